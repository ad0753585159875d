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
    from planner.scheduler.framework import NodeInfo

_BASIC = (CPU, MEMORY, EPHEMERAL_STORAGE)


# Amounts up to _SAFE keep every int64 operation below exact (a sum of two, a product by MAX).
# Nodes past it (an allocatable or a sum of requests of exabytes: valid, if absurd, input) are
# scored by the scalar formula in Python integers, from the NodeInfo's own sums (the arrays hold
# them saturated to int64), as the reference does.
_SAFE = np.iinfo(np.int64).max // MAX


def _exact_where_large(arr: ClusterArrays, at: np.ndarray, pod_amounts: tuple[int, ...], out: np.ndarray, scalar: Callable[[int], int]) -> np.ndarray:
    """``out`` (the vector formula at positions ``at``) with the positions whose amounts could
    overflow int64 replaced by ``scalar``'s exact value."""
    if max(pod_amounts, default=0) > _SAFE:
        large = np.ones(len(at), dtype=bool)
    else:
        large = (arr.alloc_cpu[at] > _SAFE) | (arr.alloc_mem[at] > _SAFE) | (arr.nz_cpu[at] > _SAFE) | (arr.nz_mem[at] > _SAFE)
        large |= (arr.req_cpu[at] > _SAFE) | (arr.req_mem[at] > _SAFE)
        if not large.any():
            return out
    for k in np.flatnonzero(large):
        out[k] = scalar(int(at[k]))
    return out


def _alloc(arr: ClusterArrays, i: int) -> tuple[int, int]:
    a = arr.nodes[i].allocatable
    return a.get(CPU, 0), a.get(MEMORY, 0)


def _info(arr: ClusterArrays, i: int) -> NodeInfo:
    infos = arr.infos
    assert infos is not None  # set with the arrays, before any score
    return infos[i]


def _least(r: np.ndarray, a: np.ndarray) -> np.ndarray:
    out = np.zeros(r.shape, dtype=np.int64)
    ok = (a != 0) & (r <= a)
    out[ok] = ((a[ok] - r[ok]) * MAX) // a[ok]
    return out


def _fit_vector(arr: ClusterArrays, pcpu: int, pmem: int, at: np.ndarray) -> np.ndarray:
    ac = arr.alloc_cpu[at]
    am = arr.alloc_mem[at]
    s = _least(arr.nz_cpu[at] + min(pcpu, _SAFE), ac) * CPU_WEIGHT + _least(arr.nz_mem[at] + min(pmem, _SAFE), am) * MEMORY_WEIGHT
    w = (ac != 0) * CPU_WEIGHT + (am != 0) * MEMORY_WEIGHT
    out = np.where(w > 0, s // np.maximum(w, 1), 0)
    return _exact_where_large(arr, at, (pcpu, pmem), out, lambda i: _fit_scalar(arr, pcpu, pmem, i))


def _fit_scalar(arr: ClusterArrays, pcpu: int, pmem: int, i: int) -> int:
    ac, am = _alloc(arr, i)
    ni = _info(arr, i)
    s = w = 0
    if ac:
        r = ni.nonzero_cpu + pcpu
        s += (((ac - r) * MAX) // ac if r <= ac else 0) * CPU_WEIGHT
        w += CPU_WEIGHT
    if am:
        r = ni.nonzero_mem + pmem
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
    s = _most(arr.nz_cpu[at] + min(pcpu, _SAFE), ac) * wc + _most(arr.nz_mem[at] + min(pmem, _SAFE), am) * wm
    w = (ac != 0) * wc + (am != 0) * wm
    out = np.where(w > 0, s // np.maximum(w, 1), 0)
    return _exact_where_large(arr, at, (pcpu, pmem), out, lambda i: _most_scalar(arr, pcpu, pmem, wc, wm, i))


def _most_scalar(arr: ClusterArrays, pcpu: int, pmem: int, wc: int, wm: int, i: int) -> int:
    ac, am = _alloc(arr, i)
    ni = _info(arr, i)
    s = w = 0
    if ac:
        s += (min(ni.nonzero_cpu + pcpu, ac) * MAX // ac) * wc
        w += wc
    if am:
        s += (min(ni.nonzero_mem + pmem, am) * MAX // am) * wm
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
    with_pod = _balance(uc + min(cpu, _SAFE), um + min(mem, _SAFE), ac, am)
    if formula == "v1.35":
        out = np.where(both, with_pod, MAX)
    else:
        without = _balance(uc, um, ac, am)
        half = MAX // 2
        out = np.where(both, half + (half + with_pod - without) // 2, half + half // 2)
    return _exact_where_large(arr, at, (cpu, mem), out, lambda i: _balanced_scalar(arr, cpu, mem, formula, i))


def _balance_scalar(uc: int, um: int, ac: int, am: int) -> int:
    # _balance in float64 (numpy divides int64 arrays as float64), truncated as astype(int64)
    fc = min(float(uc) / float(ac), 1.0)
    fm = min(float(um) / float(am), 1.0)
    return int((1 - abs((fc - fm) / 2)) * MAX)


def _balanced_scalar(arr: ClusterArrays, cpu: int, mem: int, formula: str, i: int) -> int:
    ac, am = _alloc(arr, i)
    half = MAX // 2
    if ac == 0 or am == 0:
        return MAX if formula == "v1.35" else half + half // 2
    req = _info(arr, i).requested
    uc, um = req.get(CPU, 0), req.get(MEMORY, 0)
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
