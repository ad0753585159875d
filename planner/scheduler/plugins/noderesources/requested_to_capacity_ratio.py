"""NodeResourcesFit's RequestedToCapacityRatio scoring strategy.

A port of kube-scheduler v1.37 pkg/scheduler/framework/plugins/noderesources/
requested_to_capacity_ratio.go (buildRequestedToCapacityRatioScorerFunction) and fit.go
requestedToCapacityRatioScorer (the shape's 0..10 scores scaled to 0..100), on
helper.BuildBrokenLinearFunction (plugins/helper/shape_score.py, shared with VolumeBinding).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from planner.scheduler.plugins.helper.shape_score import MAX_UTILIZATION, broken_linear, function_shape, go_round

Scorer = Callable[[Sequence[int], Sequence[int]], int]


def requested_to_capacity_ratio_scorer(weights: Sequence[int], shape: Sequence[tuple[int, int]]) -> Scorer:
    """fit.go requestedToCapacityRatioScorer: ``shape`` as in the args, (utilization, score 0..10)."""
    raw = broken_linear(function_shape(shape))
    ws = tuple(weights)

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(requested * MAX_UTILIZATION // capacity)

    def scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for r, a, w in zip(requested, allocatable, ws):
            if a == 0:
                continue
            s = resource_score(r, a)
            if s > 0:
                node_score += s * w
                weight_sum += w
        if weight_sum == 0:
            return 0
        return go_round(node_score / weight_sum)

    return scorer
