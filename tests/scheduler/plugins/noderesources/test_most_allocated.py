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


@pytest.mark.parametrize("weights", [(1, 1), (1, 3), (7, 2)])
def test_kernel_equals_reference(weights):
    """The replay's vectorised MostAllocated (kernels.most_allocated_kernel) equals the reference
    Score on random clusters, pods without requests (non-zero defaults) and overcommitted nodes too,
    and nodes and pods of exabytes (amounts past int64 once summed: scored exactly, never wrapped)."""
    import random

    from planner.scheduler import scoring
    from tests.builders import cluster, node, pod
    from tests.scheduler.plugins.noderesources.strategies import fit_profile

    prof = fit_profile({"type": "MostAllocated", "resources": [{"name": "cpu", "weight": weights[0]},
                                                               {"name": "memory", "weight": weights[1]}]})
    fit_plugin = next(s for s in prof.scorers if s.name == "NodeResourcesFit")
    assert fit_plugin.kernel is not None
    rng = random.Random(sum(weights))
    huge = [2**63 - 1, 2**62, 10**17]  # past int64 once summed or multiplied by 100 (quantities saturate to int64)
    for k in range(40):
        big = huge if k >= 30 else []
        nodes = [node(f"n{i}", cpu=rng.choice([0, 1000, 4000, *big]), memory=rng.choice([0, 2**30, 2**34, *big])) for i in range(rng.randint(1, 40))]
        existing = [pod(f"e{j}", node_name=rng.choice(nodes).name,
                        **({} if rng.random() < 0.3 else {"cpu": rng.choice([rng.randint(0, 3000), *big]), "memory": rng.choice([rng.randint(0, 2**33), *big])}))
                    for j in range(rng.randint(0, 60))]
        incoming = pod("in", **({} if rng.random() < 0.3 else {"cpu": rng.choice([rng.randint(0, 2000), *big]), "memory": rng.choice([rng.randint(0, 2**32), *big])}))
        c = cluster(nodes, existing)
        names = [n.name for n in nodes if rng.random() < 0.8] or [nodes[0].name]
        fast = dict(scoring.run_score_plugins(incoming, c, names, (fit_plugin,)))["NodeResourcesFit"]
        ref = scoring.plugin_scores("NodeResourcesFit", incoming, c, names, (fit_plugin,))
        assert fast is not None and ref is not None
        assert [s // 1 for s in fast] == [r * fit_plugin.weight for r in ref]


def test_requested_to_capacity_ratio_has_no_kernel():
    from tests.scheduler.plugins.noderesources.strategies import fit_profile

    prof = fit_profile({"type": "RequestedToCapacityRatio",
                        "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}})
    assert next(s for s in prof.scorers if s.name == "NodeResourcesFit").kernel is None  # the reference scores
