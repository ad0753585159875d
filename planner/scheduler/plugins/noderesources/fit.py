"""NodeResourcesFit: the node must have room for the pod's requests and one more pod.

Port of the PreFilter and Filter of pkg/scheduler/framework/plugins/noderesources/fit.go
(v1.37: fitsRequest), and of its PreScore and Score (v1.37: the default scoring strategy
LeastAllocated with resources cpu and memory, weight 1 each; least_allocated.go, semantics in
resource_allocation.py), with the resource classification of
pkg/scheduler/util/utils.go IsScalarResourceName and pkg/apis/core/v1/helper/helpers.go.

fitsRequest, in its order (the order of the reasons):
1. "Too many pods" when len(pods on node) + 1 > allocatable pods (always checked);
2. cpu, memory, ephemeral-storage: only when the pod requests > 0 of it, failing when
   request > allocatable - requested;
3. scalar resources (extended resources, hugepages-*, *kubernetes.io/*, attachable-volumes-*),
   skipping zero requests; one missing from allocatable counts as 0.  Upstream walks a Go map
   (random order); the reasons come in name order here.
Other names ("storage", unprefixed unknown names, "pods") are not checked, as upstream.

The status is UnschedulableAndUnresolvable when some failing request exceeds the node's whole
allocatable (preemption cannot help; kubernetes#131345), otherwise Unschedulable ("Too many pods"
alone is Unschedulable).

Requests are the pod's effective requests (PodSpec.requests, computed by the loader from
containers, init and sidecar containers, pod-level resources and overhead), and NodeInfo.requested
sums those of the node's pods.  Not modelled: NodeResourcesFitArgs.ignoredResources /
ignoredResourceGroups (empty in the default profile) and the DRAExtendedResource delegation of
extended resources backed by a DeviceClass (planner has no DeviceClasses, where upstream delegates
nothing either).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from planner.domain import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Pod
from planner.matching import is_qualified_name
from planner.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE, ClusterState, NodeInfo, Status
from planner.scheduler.plugins.noderesources.resource_allocation import (
    CPU_WEIGHT,
    MAX_NODE_SCORE,
    MEMORY_WEIGHT,
    _nonzero_cache,
    _NonZeroCache,
    nonzero_requests,
)

NAME = "NodeResourcesFit"

ERR_REASON_TOO_MANY_PODS = "Too many pods"
ERR_REASON_INSUFFICIENT_FORMAT = "Insufficient {}"  # fmt.Sprintf("Insufficient %v", rName)
ERR_REASON_CPU = "Insufficient cpu"
ERR_REASON_MEMORY = "Insufficient memory"
ERR_REASON_EPHEMERAL_STORAGE = "Insufficient ephemeral-storage"

# k8s.io/api/core/v1 resource name prefixes.
RESOURCE_DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
DEFAULT_RESOURCE_REQUESTS_PREFIX = "requests."
RESOURCE_HUGEPAGES_PREFIX = "hugepages-"
RESOURCE_ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"


def is_prefixed_native_resource(name: str) -> bool:
    return RESOURCE_DEFAULT_NAMESPACE_PREFIX in name


def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io."""
    if "/" not in name or is_prefixed_native_resource(name) or name.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        return False
    return is_qualified_name(DEFAULT_RESOURCE_REQUESTS_PREFIX + name)


@lru_cache(maxsize=4096)
def is_scalar_resource_name(name: str) -> bool:
    """schedutil.IsScalarResourceName: the names framework.Resource keeps in ScalarResources."""
    return (
        is_extended_resource_name(name)
        or name.startswith(RESOURCE_HUGEPAGES_PREFIX)
        or is_prefixed_native_resource(name)
        or name.startswith(RESOURCE_ATTACHABLE_VOLUMES_PREFIX)
    )


@dataclass(frozen=True, slots=True)
class State:
    """preFilterState: the pod's requests as framework.Resource keeps them."""

    milli_cpu: int
    memory: int
    ephemeral_storage: int
    scalars: tuple[tuple[str, int, str], ...]  # (name, request > 0, reason), by name


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[Any, Status | None]:
    req = pod.spec.requests
    scalars = tuple(
        (name, q, ERR_REASON_INSUFFICIENT_FORMAT.format(name))
        for name, q in sorted(req.items())
        if q > 0 and is_scalar_resource_name(name)
    )
    return State(req.get(CPU, 0), req.get(MEMORY, 0), req.get(EPHEMERAL_STORAGE, 0), scalars), None


def filter(state: Any, pod: Pod, node_info: NodeInfo) -> Status | None:
    # fails  <=>  len(node pods) + 1 > allocatable[pods]
    #             or exists r in {cpu, memory, ephemeral-storage, scalars} with
    #                request[r] > 0 and request[r] > allocatable[r] - requested[r]
    # unresolvable  <=>  some failing r has request[r] > allocatable[r]
    alloc = node_info.node.allocatable
    used = node_info.requested
    reasons: list[str] | None = None
    unresolvable = False
    if len(node_info.pods) + 1 > alloc.get(PODS, 0):
        reasons = [ERR_REASON_TOO_MANY_PODS]
    s: State = state
    q = s.milli_cpu
    if q > 0:
        a = alloc.get(CPU, 0)
        if q > a - used.get(CPU, 0):
            reasons = reasons or []
            reasons.append(ERR_REASON_CPU)
            unresolvable = unresolvable or q > a
    q = s.memory
    if q > 0:
        a = alloc.get(MEMORY, 0)
        if q > a - used.get(MEMORY, 0):
            reasons = reasons or []
            reasons.append(ERR_REASON_MEMORY)
            unresolvable = unresolvable or q > a
    q = s.ephemeral_storage
    if q > 0:
        a = alloc.get(EPHEMERAL_STORAGE, 0)
        if q > a - used.get(EPHEMERAL_STORAGE, 0):
            reasons = reasons or []
            reasons.append(ERR_REASON_EPHEMERAL_STORAGE)
            unresolvable = unresolvable or q > a
    for name, q, reason in s.scalars:
        a = alloc.get(name, 0)
        if q > a - used.get(name, 0):
            reasons = reasons or []
            reasons.append(reason)
            unresolvable = unresolvable or q > a
    if reasons is None:
        return None
    return Status(NAME, tuple(reasons), UNRESOLVABLE if unresolvable else UNSCHEDULABLE)


# --------------------------------------------------------------------------- Score (LeastAllocated)


class FitState:
    __slots__ = ("cpu", "mem", "cache")

    def __init__(self, cpu: int, mem: int, cache: _NonZeroCache) -> None:
        self.cpu = cpu
        self.mem = mem
        self.cache = cache


def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> FitState:
    """fit.go PreScore: the pod's non-zero cpu and memory requests (never Skip)."""
    cpu, mem = nonzero_requests(pod)
    return FitState(cpu, mem, _nonzero_cache(cluster))


def score(state: FitState, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
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


# --------------------------------------------------------------------------- Score (any strategy)

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


@dataclass(frozen=True, slots=True)
class ScoringStrategy:
    """NodeResourcesFitArgs.scoringStrategy as defaulted (v1 SetDefaults_NodeResourcesFitArgs):
    the type, the (resource, weight) list, and for RequestedToCapacityRatio the shape's
    (utilization, score 0..10) points."""

    type: str = LEAST_ALLOCATED
    resources: tuple[tuple[str, int], ...] = ((CPU, CPU_WEIGHT), (MEMORY, MEMORY_WEIGHT))
    shape: tuple[tuple[int, int], ...] = ()

    @property
    def is_default(self) -> bool:
        return self == DEFAULT_STRATEGY


DEFAULT_STRATEGY = ScoringStrategy()


class StrategyState:
    __slots__ = ("requests", "cache")

    def __init__(self, requests: tuple[int, ...], cache: _NonZeroCache) -> None:
        self.requests = requests
        self.cache = cache


def _pod_request(pod: Pod, name: str, nonzero: tuple[int, int]) -> int:
    """resource_allocation.go calculatePodResourceRequest (useRequested false: cpu and memory with
    the non-zero defaults)."""
    if name == CPU:
        return nonzero[0]
    if name == MEMORY:
        return nonzero[1]
    return pod.spec.requests.get(name, 0)


def strategy_scorer(strategy: ScoringStrategy) -> tuple[Any, Any]:
    """fit.go PreScore and Score with any scoring strategy (resource_allocation.go score and
    calculateResourceAllocatableRequest), the reference for the non-default strategies: per
    resource of the strategy, (allocatable, requested + the pod's request) -- cpu and memory from
    NodeInfo.NonZeroRequested, ephemeral-storage and scalar resources from NodeInfo.Requested; a
    scalar resource the pod does not request, or one the node does not have, is left out (0, 0)."""
    from planner.scheduler.plugins.noderesources.least_allocated import least_resource_scorer
    from planner.scheduler.plugins.noderesources.most_allocated import most_resource_scorer
    from planner.scheduler.plugins.noderesources.requested_to_capacity_ratio import requested_to_capacity_ratio_scorer

    names = tuple(n for n, _ in strategy.resources)
    weights = tuple(w for _, w in strategy.resources)
    scorer: Callable[[Sequence[int], Sequence[int]], int]
    if strategy.type == MOST_ALLOCATED:
        def scorer(r: Sequence[int], a: Sequence[int]) -> int:
            return most_resource_scorer(r, a, weights)
    elif strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        scorer = requested_to_capacity_ratio_scorer(weights, strategy.shape)
    else:
        def scorer(r: Sequence[int], a: Sequence[int]) -> int:
            return least_resource_scorer(list(r), list(a), list(weights))

    def pre_score_s(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> StrategyState:
        nz = nonzero_requests(pod)
        return StrategyState(tuple(_pod_request(pod, n, nz) for n in names), _nonzero_cache(cluster))

    def score_s(state: StrategyState, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
        get = state.cache.get
        out: list[int] = []
        k = len(names)
        for ni in nodes:
            alloc = ni.node.allocatable
            used = ni.requested
            nzc, nzm = get(ni)
            req = [0] * k
            cap = [0] * k
            for i, (name, q) in enumerate(zip(names, state.requests)):
                if q == 0 and is_scalar_resource_name(name):
                    continue
                if name == CPU:
                    a, r = alloc.get(CPU, 0), nzc + q
                elif name == MEMORY:
                    a, r = alloc.get(MEMORY, 0), nzm + q
                elif name == EPHEMERAL_STORAGE:
                    a, r = alloc.get(EPHEMERAL_STORAGE, 0), used.get(EPHEMERAL_STORAGE, 0) + q
                elif is_scalar_resource_name(name) and name in alloc:
                    a, r = alloc[name], used.get(name, 0) + q
                else:
                    continue
                if a == 0:
                    continue
                cap[i] = a
                req[i] = r
            out.append(scorer(req, cap))
        return out

    return pre_score_s, score_s
