"""NodeResourcesFit's MostAllocated strategy: upstream's table, transcribed case by case.

Source: pkg/scheduler/framework/plugins/noderesources/most_allocated_test.go
TestMostAllocatedScoringStrategy (units and zero-request pods as test_least_allocated.py's notes say).
"""

from __future__ import annotations

import pytest

from planner.scheduler.plugins.noderesources import most_allocated
from tests.scheduler.plugins.noderesources.strategies import fit_scores
from tests.scheduler.plugins.scores import ZERO, K, N, P

DEFAULT = {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
CPU_ONLY = {"cpu": 3000 * K, "memory": 0}
CPU_AND_MEMORY = {"cpu": 3000 * K, "memory": 5000}

MOST = [
    pytest.param(
        DEFAULT, P(requests=ZERO), [N("node1", 4000 * K, 10000), N("node2", 4000 * K, 10000)], [], [0, 0],
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        # node1: cpu 75, memory 50 -> 62; node2: cpu 50, memory 50 -> 50
        DEFAULT, P(requests=CPU_AND_MEMORY), [N("node1", 4000 * K, 10000), N("node2", 6000 * K, 10000)], [], [62, 50],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        # node1: cpu 60, memory 0 -> 30; node2: cpu 60, memory 25 -> 42
        DEFAULT,
        P(requests=ZERO),
        [N("node1", 10000 * K, 20000), N("node2", 10000 * K, 20000)],
        [P("e1", "node1", requests=CPU_ONLY), P("e2", "node1", requests=CPU_ONLY),
         P("e3", "node2", requests=CPU_ONLY), P("e4", "node2", requests=CPU_AND_MEMORY)],
        [30, 42],
        id="no resources requested, pods scheduled with resources",
    ),
    pytest.param(
        # node1: cpu 60, memory 25 -> 42; node2: cpu 60, memory 50 -> 55
        DEFAULT,
        P(requests=CPU_AND_MEMORY),
        [N("node1", 10000 * K, 20000), N("node2", 10000 * K, 20000)],
        [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)],
        [42, 55],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        # node1: cpu 75 * 1, memory 50 * 2 -> 58; node2: cpu 50, memory 50 -> 50
        {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 2}]},
        P(requests=CPU_AND_MEMORY),
        [N("node1", 4000 * K, 10000), N("node2", 6000 * K, 10000)],
        [],
        [58, 50],
        id="nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes",
    ),
    pytest.param(
        # requested above capacity counts as full: node1 cpu 100 (6000 of 4000), memory 0; node2 cpu 100, memory 50
        DEFAULT,
        P(requests=CPU_ONLY),
        [N("node1", 4000 * K, 10000), N("node2", 4000 * K, 10000)],
        [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)],
        [50, 75],
        id="resources requested with more than the node, pods scheduled with resources",
    ),
]


@pytest.mark.parametrize("strategy,incoming,nodes,existing,want", MOST)
def test_most_allocated(strategy, incoming, nodes, existing, want):
    assert fit_scores(strategy, incoming, nodes, existing) == want


def test_most_requested_score():
    assert most_allocated.most_requested_score(5, 10) == 50
    assert most_allocated.most_requested_score(15, 10) == 100  # capped at capacity
    assert most_allocated.most_requested_score(5, 0) == 0
    assert most_allocated.most_resource_scorer([0, 5], [0, 10], [3, 1]) == 50  # no allocatable: left out
