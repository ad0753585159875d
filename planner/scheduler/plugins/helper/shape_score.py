"""helper.BuildBrokenLinearFunction (pkg/scheduler/framework/plugins/helper/shape_score.go) and the
Go integer arithmetic it and its callers use: one definition for VolumeBinding's storage-capacity
score (plugins/volumebinding/scoring.py) and NodeResourcesFit's RequestedToCapacityRatio strategy
(plugins/noderesources/requested_to_capacity_ratio.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

MAX_NODE_SCORE = 100  # framework.MaxNodeScore
MAX_CUSTOM_PRIORITY_SCORE = 10  # config.MaxCustomPriorityScore
MAX_UTILIZATION = 100  # maxUtilization of both callers


def go_div(a: int, b: int) -> int:
    """Go's integer division: truncates towards zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def go_round(x: float) -> int:
    """Go's math.Round: half away from zero."""
    if x < 0:
        return -go_round(-x)
    r = math.floor(x)
    return int(r) + (1 if x - r >= 0.5 else 0)


def function_shape(points: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The args' (utilization, score 0..10) points with each score scaled to MaxNodeScore (x 10),
    as both callers build their helper.FunctionShape."""
    return tuple((u, s * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in points)


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """helper.BuildBrokenLinearFunction: shape[0]'s score below the first point, the last score
    above the last, linear in between (integer arithmetic as upstream)."""

    def f(p: int) -> int:
        for i, (u, s) in enumerate(shape):
            if p <= u:
                if i == 0:
                    return s
                u0, s0 = shape[i - 1]
                return s0 + go_div((s - s0) * (p - u0), u - u0)
        return shape[-1][1]

    return f
