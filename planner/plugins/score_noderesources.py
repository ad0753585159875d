"""NodeResourcesFit (LeastAllocated) and NodeResourcesBalancedAllocation, Score half.

A port of kube-scheduler v1.36 (kubernetes/kubernetes):
* pkg/scheduler/framework/plugins/noderesources/fit.go (PreScore, Score: the default scoring
  strategy LeastAllocated with resources cpu and memory, weight 1 each);
* pkg/scheduler/framework/plugins/noderesources/least_allocated.go (leastResourceScorer,
  leastRequestedScore);
* pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go (PreScore with the
  best-effort Skip of kubernetes#129138, balancedResourceScorer);
* pkg/scheduler/framework/plugins/noderesources/resource_allocation.go (score,
  calculateResourceAllocatableRequest, calculatePodResourceRequest, isBestEffortPod);
* pkg/scheduler/util/pod_resources.go (DefaultMilliCPURequest = 100, DefaultMemoryRequest =
  200 MiB) as applied through resourcehelper.PodRequests' NonMissingContainerRequests, and
  pkg/scheduler/framework/types.go (NodeInfo.NonZeroRequested).

Semantics
---------
* LeastAllocated uses *non-zero* requests: a container without a cpu (memory) request counts
  100m (200Mi), both for the incoming pod and for every pod already on the node
  (NodeInfo.NonZeroRequested).  Per resource with allocatable > 0:
  ``(allocatable - requested) * 100 // allocatable`` (0 when requested > allocatable); the node
  score is the weighted mean, integer-divided.
* BalancedAllocation uses the *actual* requests (useRequested) and is skipped (PreScore Skip,
  i.e. 0 for every node) for a pod whose cpu and memory requests are both 0.  Per resource with
  allocatable > 0 the fraction requested/allocatable (capped at 1); with two fractions
  ``std = |f1 - f2| / 2`` (more: the population standard deviation), balance = int((1 - std) * 100).
  - v1.36 (kubernetes#135573, "consider the change to the node's balance"):
    ``score = 50 + (50 + balance(with pod) - balance(without pod)) // 2``: 75 for no change, 50 for
    balanced to fully unbalanced, 100 for the reverse.  The upstream source of this release was not
    available to us verbatim; the formula is the one published with the PR (release note in
    CHANGELOG-1.36, the PR description, and write-ups quoting ``balancedResourceScorer(requested,
    allocated, allocatable)``).  Its int64 arithmetic follows from the Go expression.
  - v1.35 and earlier: ``score = balance(with pod)``; select it with
    ``BALANCED_FORMULA = "v1.35"`` (the upstream v1.35 table test runs against it).

Approximation: planner keeps a pod's *aggregate* effective requests (PodSpec.requests), not one
entry per container.  Upstream defaults the request of each container that lacks one; here a pod
whose aggregate has no ``cpu`` (``memory``) key gets one default, which is exact for a single
container pod and for pods whose containers all set the request, and low by 100m/200Mi per extra
container without a request.  An explicit ``cpu: 0`` request stays 0, as upstream.  (Upstream's own
table tests use pods with *no containers*, which have no non-zero default; they are transcribed
with explicit zero requests.)

Speed: the node's non-zero requested sums are cached per NodeInfo (keyed by the node info and
validated by its pod count and last pod, which every add/remove changes), so Score is O(1) per
node.
"""

from __future__ import annotations

import math
from typing import Any

from planner.domain import CPU, MEMORY, Pod
from planner.framework import SKIP, ClusterState, NodeInfo

FIT_NAME = "NodeResourcesFit"
BALANCED_NAME = "NodeResourcesBalancedAllocation"

MAX_NODE_SCORE = 100

# pkg/scheduler/util/pod_resources.go
DEFAULT_MILLI_CPU_REQUEST = 100  # 0.1 core
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # 200 MiB

# The default NodeResourcesFitArgs.scoringStrategy.resources and
# NodeResourcesBalancedAllocationArgs.resources: cpu and memory, weight 1 each.
CPU_WEIGHT = 1
MEMORY_WEIGHT = 1

# "v1.36" (current stable: balance change with and without the pod) or "v1.35" (balance with it).
BALANCED_FORMULA = "v1.36"


def nonzero_requests(pod: Pod) -> tuple[int, int]:
    """resourcehelper.PodRequests with NonMissingContainerRequests {cpu: 100m, memory: 200Mi}.

    On the aggregate requests (see the module docstring): a missing key gets the default.
    """
    req = pod.spec.requests
    cpu = req[CPU] if CPU in req else DEFAULT_MILLI_CPU_REQUEST
    mem = req[MEMORY] if MEMORY in req else DEFAULT_MEMORY_REQUEST
    return cpu, mem


class _NonZeroCache:
    """NodeInfo.NonZeroRequested (milli-cpu, memory) per node info, recomputed when its pods change."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        # id(node info) -> (node info, pod count, last pod, cpu, memory)
        self.entries: dict[int, tuple[Any, int, Any, int, int]] = {}

    def get(self, ni: NodeInfo) -> tuple[int, int]:
        pods = ni.pods
        n = len(pods)
        e = self.entries.get(id(ni))
        if e is not None and e[1] == n and e[0] is ni and (n == 0 or e[2] is pods[-1]):
            return e[3], e[4]
        cpu = mem = 0
        for p in pods:
            req = p.spec.requests
            cpu += req[CPU] if CPU in req else DEFAULT_MILLI_CPU_REQUEST
            mem += req[MEMORY] if MEMORY in req else DEFAULT_MEMORY_REQUEST
        self.entries[id(ni)] = (ni, n, pods[-1] if n else None, cpu, mem)
        return cpu, mem


def _nonzero_cache(cluster: ClusterState) -> _NonZeroCache:
    c = cluster.__dict__.get("_planner_nonzero_requested")
    if c is None:
        c = _NonZeroCache()
        cluster.__dict__["_planner_nonzero_requested"] = c
    return c


def node_nonzero_requested(cluster: ClusterState, ni: NodeInfo) -> tuple[int, int]:
    """NodeInfo.NonZeroRequested (milli-cpu, memory bytes) of ``ni``."""
    return _nonzero_cache(cluster).get(ni)


# --------------------------------------------------------------------------- scorers


def least_requested_score(requested: int, capacity: int) -> int:
    """least_allocated.go leastRequestedScore."""
    if capacity == 0:
        return 0
    if requested > capacity:
        return 0
    return ((capacity - requested) * MAX_NODE_SCORE) // capacity


def least_resource_scorer(requested: list[int], allocatable: list[int], weights: list[int]) -> int:
    """least_allocated.go leastResourceScorer: the weighted mean over resources with allocatable > 0."""
    node_score = weight_sum = 0
    for r, a, w in zip(requested, allocatable, weights):
        if a == 0:
            continue
        node_score += least_requested_score(r, a) * w
        weight_sum += w
    if weight_sum == 0:
        return 0
    return node_score // weight_sum


def balance(requested: list[int], allocatable: list[int]) -> int:
    """int64((1 - std) * MaxNodeScore) over the fractions of resources with allocatable > 0."""
    fractions: list[float] = []
    total = 0.0
    for r, a in zip(requested, allocatable):
        if a == 0:
            continue
        f = r / a
        if f > 1:
            f = 1.0
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        s = 0.0
        for f in fractions:
            s = s + (f - mean) * (f - mean)
        std = math.sqrt(s / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


def balanced_resource_scorer(
    requested: list[int], allocated: list[int], allocatable: list[int], formula: str | None = None
) -> int:
    """balanced_allocation.go balancedResourceScorer (see the module docstring for the two formulas)."""
    with_pod = balance(requested, allocatable)
    if (formula or BALANCED_FORMULA) == "v1.35":
        return with_pod
    without_pod = balance(allocated, allocatable)
    return MAX_NODE_SCORE // 2 + (MAX_NODE_SCORE // 2 + with_pod - without_pod) // 2


# --------------------------------------------------------------------------- NodeResourcesFit


class FitState:
    __slots__ = ("cpu", "mem", "cache")

    def __init__(self, cpu: int, mem: int, cache: _NonZeroCache) -> None:
        self.cpu = cpu
        self.mem = mem
        self.cache = cache


def fit_pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> FitState:
    """fit.go PreScore: the pod's non-zero cpu and memory requests (never Skip)."""
    cpu, mem = nonzero_requests(pod)
    return FitState(cpu, mem, _nonzero_cache(cluster))


def fit_score(state: FitState, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    """fit.go Score with LeastAllocated on cpu and memory (weight 1 each), for every node."""
    get = state.cache.get
    pcpu, pmem = state.cpu, state.mem
    out: list[int] = []
    append = out.append
    wc, wm = CPU_WEIGHT, MEMORY_WEIGHT
    for ni in nodes:
        alloc = ni.node.allocatable
        ncpu, nmem = get(ni)
        ac = alloc.get(CPU, 0)
        am = alloc.get(MEMORY, 0)
        s = w = 0
        if ac:
            r = ncpu + pcpu
            s = ((ac - r) * MAX_NODE_SCORE // ac) * wc if r <= ac else 0
            w = wc
        if am:
            r = nmem + pmem
            s += ((am - r) * MAX_NODE_SCORE // am) * wm if r <= am else 0
            w += wm
        append(s // w if w else 0)
    return out


# --------------------------------------------------------------------------- BalancedAllocation


class BalancedState:
    __slots__ = ("cpu", "mem", "formula")

    def __init__(self, cpu: int, mem: int, formula: str) -> None:
        self.cpu = cpu
        self.mem = mem
        self.formula = formula


def balanced_pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> BalancedState | object:
    """balanced_allocation.go PreScore: actual requests; Skip for a best-effort pod."""
    req = pod.spec.requests
    cpu = req.get(CPU, 0)
    mem = req.get(MEMORY, 0)
    if cpu == 0 and mem == 0:
        return SKIP
    return BalancedState(cpu, mem, BALANCED_FORMULA)


def balanced_score(state: BalancedState, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    """balanced_allocation.go Score for every node (cpu and memory)."""
    pcpu, pmem = state.cpu, state.mem
    v135 = state.formula == "v1.35"
    half = MAX_NODE_SCORE // 2
    out: list[int] = []
    append = out.append
    for ni in nodes:
        alloc = ni.node.allocatable
        used = ni.requested
        ac = alloc.get(CPU, 0)
        am = alloc.get(MEMORY, 0)
        if ac and am:
            ucpu = used.get(CPU, 0)
            umem = used.get(MEMORY, 0)
            fc = (ucpu + pcpu) / ac
            fm = (umem + pmem) / am
            if fc > 1:
                fc = 1.0
            if fm > 1:
                fm = 1.0
            with_pod = int((1 - abs((fc - fm) / 2)) * MAX_NODE_SCORE)
            if v135:
                append(with_pod)
                continue
            fc = ucpu / ac
            fm = umem / am
            if fc > 1:
                fc = 1.0
            if fm > 1:
                fm = 1.0
            without_pod = int((1 - abs((fc - fm) / 2)) * MAX_NODE_SCORE)
            append(half + (half + with_pod - without_pod) // 2)
        else:
            # At most one resource has allocatable: std 0 on both sides.
            append(MAX_NODE_SCORE if v135 else half + (half + MAX_NODE_SCORE - MAX_NODE_SCORE) // 2)
    return out
