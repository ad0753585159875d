"""What NodeResourcesFit's and NodeResourcesBalancedAllocation's Scores share (resource_allocation.go).

The scorers are in least_allocated.py and balanced_allocation.py, the plugins' PreScore/Score in
fit.py and balanced_allocation.py.

A port of kube-scheduler v1.37 (kubernetes/kubernetes):
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

The non-zero requests are computed per container when the pod (or template) is converted
(PodSpec.nonzero, planner.convert.nonzero_requests): each container and init container without a
cpu (memory) request counts 100m (200Mi) before the sidecar and init-container aggregation, as
applyNonMissing does; an explicit ``cpu: 0`` request stays 0, and a pod without containers counts
0.  A PodSpec built by hand (tests) has no such entry: its aggregate requests get the default once.
(Upstream's own table tests use pods with *no containers*, which have no non-zero default; they are
transcribed with explicit zero requests.)

Speed: the node's non-zero requested sums are cached per NodeInfo (keyed by the node info and
validated by its pod count and last pod, which every add/remove changes), so Score is O(1) per
node.
"""

from __future__ import annotations

from typing import Any

from planner.domain import Pod
from planner.scheduler import framework
from planner.scheduler.framework import ClusterState, NodeInfo, nonzero_of

MAX_NODE_SCORE = 100

# pkg/scheduler/util/pod_resources.go: 0.1 core, 200 MiB (planner.convert.NON_MISSING)
DEFAULT_MILLI_CPU_REQUEST = framework.DEFAULT_MILLI_CPU_REQUEST
DEFAULT_MEMORY_REQUEST = framework.DEFAULT_MEMORY_REQUEST

# The default NodeResourcesFitArgs.scoringStrategy.resources and
# NodeResourcesBalancedAllocationArgs.resources: cpu and memory, weight 1 each.
CPU_WEIGHT = 1
MEMORY_WEIGHT = 1


def nonzero_requests(pod: Pod) -> tuple[int, int]:
    """resourcehelper.PodRequests with NonMissingContainerRequests {cpu: 100m, memory: 200Mi}
    (framework.nonzero_of: per container, as converted)."""
    return nonzero_of(pod.spec)


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
            c, m = nonzero_of(p.spec)
            cpu += c
            mem += m
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
