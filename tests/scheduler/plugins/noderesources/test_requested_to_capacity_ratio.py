"""NodeResourcesFit's RequestedToCapacityRatio strategy: upstream's tables, transcribed.

Source: pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio_test.go
(TestRequestedToCapacityRatioScoringStrategy, TestBrokenLinearFunction,
TestResourceBinPackingSingleExtended) and helper/shape_score.go (the broken linear function,
shared with VolumeBinding: planner/scheduler/plugins/helper/shape_score.py).
"""

from __future__ import annotations

import pytest

from planner.scheduler.plugins.helper.shape_score import broken_linear
from tests.scheduler.plugins.noderesources.strategies import fit_scores
from tests.scheduler.plugins.scores import ZERO, K, N, P

LEAST_SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
DEFAULT_RES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def _strategy(shape, resources=None):
    return {"type": "RequestedToCapacityRatio", "resources": resources or DEFAULT_RES,
            "requestedToCapacityRatio": {"shape": shape}}


RTCR = [
    pytest.param(
        P(requests=ZERO),
        [N("node1", 4000 * K, 10000), N("node2", 4000 * K, 10000)],
        [P("e1", "node1", requests=ZERO), P("e2", "node2", requests=ZERO)],
        [100, 100],
        id="nothing scheduled, nothing requested (default - least requested nodes have priority)",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 5000}),
        [N("node1", 4000 * K, 10000), N("node2", 6000 * K, 10000)],
        [P("e1", "node1", requests=ZERO), P("e2", "node2", requests=ZERO)],
        [38, 50],
        id="nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)",
    ),
    pytest.param(
        P(requests=ZERO),
        [N("node1", 4000 * K, 10000), N("node2", 6000 * K, 10000)],
        [P("e1", "node1", requests={"cpu": 3000 * K, "memory": 5000}),
         P("e2", "node2", requests={"cpu": 3000 * K, "memory": 5000})],
        [38, 50],
        id="no resources requested, pods scheduled with resources (default - least requested nodes have priority)",
    ),
]


@pytest.mark.parametrize("incoming,nodes,existing,want", RTCR)
def test_requested_to_capacity_ratio(incoming, nodes, existing, want):
    assert fit_scores(_strategy(LEAST_SHAPE), incoming, nodes, existing) == want


BROKEN = [
    # (shape points already scaled, (utilization, want) pairs)
    ([(10, 1), (90, 9)], [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)], [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
    ([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
]


@pytest.mark.parametrize("shape,cases", BROKEN)
def test_broken_linear_function(shape, cases):
    f = broken_linear(shape)
    for p, want in cases:
        assert f(p) == want, (shape, p)


FOO = "intel.com/foo"
EXT_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]


def _ext_node(name, foo):
    from tests.builders import node

    return node(name, cpu=4000 * K, memory=10000 * 1024 * 1024, extra={FOO: foo}, hostname_label=False)


EXT = [
    pytest.param(P(requests=ZERO), [], [0, 0], id="nothing scheduled, nothing requested"),
    pytest.param(P(requests={**ZERO, FOO: 2}), [P("e", "node2", requests=ZERO)], [2, 5],
                 id="resources requested, pods scheduled with less resources"),
    pytest.param(P(requests={**ZERO, FOO: 2}), [P("e", "node2", requests={**ZERO, FOO: 2})], [2, 10],
                 id="resources requested, pods scheduled with resources, on node with existing pod running "),
    pytest.param(P(requests={**ZERO, FOO: 4}), [], [5, 10], id="resources requested, pods scheduled with more resources"),
]


@pytest.mark.parametrize("incoming,existing,want", EXT)
def test_resource_bin_packing_single_extended(incoming, existing, want):
    nodes = [_ext_node("node1", 8), _ext_node("node2", 4)]
    got = fit_scores(_strategy(EXT_SHAPE, [{"name": FOO, "weight": 1}]), incoming, nodes, existing)
    assert got == want
