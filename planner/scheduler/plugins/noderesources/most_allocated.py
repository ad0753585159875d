"""NodeResourcesFit's MostAllocated scoring strategy (bin packing: GKE's optimize-utilization profile).

A port of kube-scheduler v1.37 pkg/scheduler/framework/plugins/noderesources/most_allocated.go
(mostResourceScorer, mostRequestedScore); the requested and allocatable amounts per resource are
resource_allocation.go's (fit.py strategy_scorer).
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.scheduler.plugins.noderesources.resource_allocation import MAX_NODE_SCORE


def most_requested_score(requested: int, capacity: int) -> int:
    """most_allocated.go mostRequestedScore: requested above capacity (pods without requests get
    the non-zero defaults) counts as full."""
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    return (requested * MAX_NODE_SCORE) // capacity


def most_resource_scorer(requested: Sequence[int], allocatable: Sequence[int], weights: Sequence[int]) -> int:
    """most_allocated.go mostResourceScorer: the weighted mean over resources with allocatable > 0."""
    node_score = weight_sum = 0
    for r, a, w in zip(requested, allocatable, weights):
        if a == 0:
            continue
        node_score += most_requested_score(r, a) * w
        weight_sum += w
    if weight_sum == 0:
        return 0
    return node_score // weight_sum
