"""NodeResourcesFit's default scoring strategy, LeastAllocated.

A port of kube-scheduler v1.37 pkg/scheduler/framework/plugins/noderesources/least_allocated.go
(leastResourceScorer, leastRequestedScore); see resource_allocation.py for the semantics.
"""

from __future__ import annotations

from planner.scheduler.plugins.noderesources.resource_allocation import MAX_NODE_SCORE


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
