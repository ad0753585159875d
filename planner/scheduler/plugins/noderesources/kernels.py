"""NodeResources, vectorised: NodeResourcesFit's Filter on the replay's node arrays
(planner.scheduler.fastfilter; fit.go fitsRequest: allocatable minus requested, per resource the
pod requests) and NodeResourcesFit's (LeastAllocated) and NodeResourcesBalancedAllocation's Score.

Equal to the reference Scores (fit.py, balanced_allocation.py: pkg/scheduler/framework/plugins/
noderesources/{fit,least_allocated,balanced_allocation}.go) in the same float64 operations and
order, on the per-node arrays of planner.scheduler.arrays (see its docstring).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from planner.domain import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Pod
from planner.scheduler.arrays import MAX, ClusterArrays, gather, per_node
from planner.scheduler.plugins.noderesources import balanced_allocation, fit
from planner.scheduler.plugins.noderesources.resource_allocation import CPU_WEIGHT, MEMORY_WEIGHT, nonzero_requests

if TYPE_CHECKING:
    from planner.scheduler.fastfilter import FastFilter

_BASIC = (CPU, MEMORY, EPHEMERAL_STORAGE)


def _least(r: np.ndarray, a: np.ndarray) -> np.ndarray:
    out = np.zeros(r.shape, dtype=np.int64)
    ok = (a != 0) & (r <= a)
    out[ok] = ((a[ok] - r[ok]) * MAX) // a[ok]
    return out




def _fit_vector(arr: ClusterArrays, pcpu: int, pmem: int, at: np.ndarray) -> np.ndarray:
    ac = arr.alloc_cpu[at]
    am = arr.alloc_mem[at]
    s = _least(arr.nz_cpu[at] + pcpu, ac) * CPU_WEIGHT + _least(arr.nz_mem[at] + pmem, am) * MEMORY_WEIGHT
    w = (ac != 0) * CPU_WEIGHT + (am != 0) * MEMORY_WEIGHT
    return np.where(w > 0, s // np.maximum(w, 1), 0)


def _fit_scalar(arr: ClusterArrays, pcpu: int, pmem: int, i: int) -> int:
    ac, am = int(arr.alloc_cpu[i]), int(arr.alloc_mem[i])
    s = w = 0
    if ac:
        r = int(arr.nz_cpu[i]) + pcpu
        s += (((ac - r) * MAX) // ac if r <= ac else 0) * CPU_WEIGHT
        w += CPU_WEIGHT
    if am:
        r = int(arr.nz_mem[i]) + pmem
        s += (((am - r) * MAX) // am if r <= am else 0) * MEMORY_WEIGHT
        w += MEMORY_WEIGHT
    return s // w if w > 0 else 0


def fit_score(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray:
    """NodeResourcesFit LeastAllocated on cpu and memory (fit.score)."""
    pcpu, pmem = nonzero_requests(pod)
    full = per_node(arr, ("fit", pcpu, pmem), lambda at: _fit_vector(arr, pcpu, pmem, at),
                     lambda i: _fit_scalar(arr, pcpu, pmem, i))
    return gather(full, arr)


def _most(r: np.ndarray, a: np.ndarray) -> np.ndarray:
    out = np.zeros(r.shape, dtype=np.int64)
    ok = a != 0
    out[ok] = (np.minimum(r[ok], a[ok]) * MAX) // a[ok]
    return out


def _most_vector(arr: ClusterArrays, pcpu: int, pmem: int, wc: int, wm: int, at: np.ndarray) -> np.ndarray:
    ac = arr.alloc_cpu[at]
    am = arr.alloc_mem[at]
    s = _most(arr.nz_cpu[at] + pcpu, ac) * wc + _most(arr.nz_mem[at] + pmem, am) * wm
    w = (ac != 0) * wc + (am != 0) * wm
    return np.where(w > 0, s // np.maximum(w, 1), 0)


def _most_scalar(arr: ClusterArrays, pcpu: int, pmem: int, wc: int, wm: int, i: int) -> int:
    ac, am = int(arr.alloc_cpu[i]), int(arr.alloc_mem[i])
    s = w = 0
    if ac:
        s += (min(int(arr.nz_cpu[i]) + pcpu, ac) * MAX // ac) * wc
        w += wc
    if am:
        s += (min(int(arr.nz_mem[i]) + pmem, am) * MAX // am) * wm
        w += wm
    return s // w if w > 0 else 0


def most_allocated_kernel(cpu_weight: int, memory_weight: int) -> Callable[[ClusterArrays, np.ndarray, Pod], np.ndarray]:
    """NodeResourcesFit MostAllocated on cpu and memory with these weights (fit.strategy_scorer's
    reference, most_allocated.go), for a --scheduler-config profile."""
    wc, wm = cpu_weight, memory_weight

    def kernel(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray:
        pcpu, pmem = nonzero_requests(pod)
        full = per_node(arr, ("most", pcpu, pmem, wc, wm), lambda at: _most_vector(arr, pcpu, pmem, wc, wm, at),
                        lambda i: _most_scalar(arr, pcpu, pmem, wc, wm, i))
        return gather(full, arr)

    return kernel


def _balance(uc: np.ndarray, um: np.ndarray, ac: np.ndarray, am: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        fc = np.minimum(uc / ac, 1.0)
        fm = np.minimum(um / am, 1.0)
        return ((1 - np.abs((fc - fm) / 2)) * MAX).astype(np.int64)


def _balanced_vector(arr: ClusterArrays, cpu: int, mem: int, formula: str, at: np.ndarray) -> np.ndarray:
    ac = arr.alloc_cpu[at]
    am = arr.alloc_mem[at]
    both = (ac != 0) & (am != 0)
    uc = arr.req_cpu[at]
    um = arr.req_mem[at]
    with_pod = _balance(uc + cpu, um + mem, ac, am)
    if formula == "v1.35":
        return np.where(both, with_pod, MAX)
    without = _balance(uc, um, ac, am)
    half = MAX // 2
    return np.where(both, half + (half + with_pod - without) // 2, half + half // 2)


def _balance_scalar(uc: int, um: int, ac: int, am: int) -> int:
    # _balance in float64 (numpy divides int64 arrays as float64), truncated as astype(int64)
    fc = min(float(uc) / float(ac), 1.0)
    fm = min(float(um) / float(am), 1.0)
    return int((1 - abs((fc - fm) / 2)) * MAX)


def _balanced_scalar(arr: ClusterArrays, cpu: int, mem: int, formula: str, i: int) -> int:
    ac, am = int(arr.alloc_cpu[i]), int(arr.alloc_mem[i])
    half = MAX // 2
    if ac == 0 or am == 0:
        return MAX if formula == "v1.35" else half + half // 2
    uc, um = int(arr.req_cpu[i]), int(arr.req_mem[i])
    with_pod = _balance_scalar(uc + cpu, um + mem, ac, am)
    if formula == "v1.35":
        return with_pod
    return half + (half + with_pod - _balance_scalar(uc, um, ac, am)) // 2


def balanced_score(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray | None:
    """NodeResourcesBalancedAllocation (balanced_allocation.score); None for Skip."""
    state = balanced_allocation.pre_score(pod, arr.cluster, [])
    if not isinstance(state, balanced_allocation.BalancedState):
        return None
    cpu, mem, formula = state.cpu, state.mem, state.formula
    full = per_node(arr, ("balanced", cpu, mem, formula), lambda at: _balanced_vector(arr, cpu, mem, formula, at),
                     lambda i: _balanced_scalar(arr, cpu, mem, formula, i))
    return gather(full, arr)


# --------------------------------------------------------------------------- Filter (the replay's)


def resources_mask(ff: FastFilter, pod: Pod) -> np.ndarray:
    """fit.go fitsRequest: pod count, then each requested resource (> 0) against allocatable
    minus requested.  Kept per set of requests and brought up to date for the nodes whose pods
    changed since (ff.log); the caller must not change the array."""
    need = tuple((r, q) for r, q in pod.spec.requests.items()
                 if q > 0 and (r in _BASIC or fit.is_scalar_resource_name(r)))
    hit = ff.res_cache.get(need)
    if hit is None:
        ok = ff.npods + 1 <= ff.alloc[PODS]
        for r, q in need:
            if r in _BASIC:
                ok &= q <= ff.alloc[r] - ff.used[r]
            else:
                a, u = ff._scalar(r)
                ok &= q <= a - u
        if len(ff.res_cache) > ff.MAX_CACHE:
            ff.res_cache.clear()
        ff.res_cache[need] = [ok, len(ff.log)]
        return ok
    ok, seen = hit
    if seen < len(ff.log):
        pods_alloc = ff.alloc[PODS]
        for i in set(ff.log[seen:]):
            fits = int(ff.npods[i]) + 1 <= int(pods_alloc[i])
            for r, q in need:
                if not fits:
                    break
                if r in _BASIC:
                    fits = q <= int(ff.alloc[r][i]) - int(ff.used[r][i])
                else:
                    fits = q <= int(ff.scalar_alloc[r][i]) - int(ff.scalar_used[r][i])
            ok[i] = fits
        hit[1] = len(ff.log)
    return ok
