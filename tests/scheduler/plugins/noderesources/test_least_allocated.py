"""NodeResourcesFit's score (LeastAllocated): upstream's table tests, transcribed case by case.

Source: pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go
TestLeastAllocatedScoringStrategy.

Each pytest id is the upstream case name.  Transcription notes:
* Units: ``st.MakeNode().Capacity({"cpu": "4000"})`` is 4000 *cores*; planner counts millicores, so
  those cpu figures are multiplied by 1000 (ratios, hence scores, unchanged).  makeNode() of the
  balanced tests already takes millicores.
* Upstream's pods built with ``st.MakePod().Obj()`` have *no containers*, hence no non-zero default
  request; planner has aggregate requests only, so they are written with explicit zero requests
  (which upstream also keeps at 0).
* Left out: argument validation cases (resource weights), cases configuring scored extended/DRA
  resources or ``addedAffinity`` (not the default profile), "PreScore not called" variants (framework
  plumbing), cases for disabled feature gates, invalid label selectors (rejected at load by planner).
"""

from __future__ import annotations

import pytest

from planner.scheduler.plugins.noderesources import least_allocated
from tests.scheduler.plugins.scores import ZERO, K, N, P, plugin

# --------------------------------------------------------------------------- LeastAllocated

LEAST = [
    pytest.param(
        P(requests=ZERO),
        [N("node1", 4000 * K, 10000), N("node2", 4000 * K, 10000)],
        [],
        [100, 100],
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 5000}),
        [N("node1", 4000 * K, 10000), N("node2", 6000 * K, 10000)],
        [],
        [37, 50],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        P(requests=ZERO),
        [N("node1", 4000 * K, 10000), N("node2", 4000 * K, 10000)],
        [
            P("e1", "node1", requests=ZERO),
            P("e2", "node1", requests=ZERO),
            P("e3", "node2", requests=ZERO),
            P("e4", "node2", requests=ZERO),
        ],
        [100, 100],
        id="no resources requested, pods scheduled",
    ),
    pytest.param(
        P(requests=ZERO),
        [N("node1", 10000 * K, 20000), N("node2", 10000 * K, 20000)],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e3", "node2", requests={"cpu": 3000 * K, "memory": 0}),
            P("e4", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [70, 57],
        id="no resources requested, pods scheduled with resources",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 5000}),
        [N("node1", 10000 * K, 20000), N("node2", 10000 * K, 20000)],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [57, 45],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 5000}),
        [N("node1", 10000 * K, 20000), N("node2", 10000 * K, 50000)],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [57, 60],
        id="resources requested, pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 0}),
        [N("node1", 4000 * K, 10000), N("node2", 4000 * K, 10000)],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [50, 25],
        id="requested resources exceed node capacity",
    ),
    pytest.param(
        P(requests=ZERO),
        [N("node1"), N("node2")],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [0, 0],
        id="zero node resources, pods scheduled with resources",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 4000}),
        [
            N("node1", 6000 * K, 10000),
            N(
                "node2",
                6000 * K,
                10000,
            ),
        ],
        [],
        [55, 55],
        id="if the node doesn't have a resource",
    ),
]


@pytest.mark.parametrize("incoming,nodes,existing,want", LEAST)
def test_least_allocated(incoming, nodes, existing, want):
    assert plugin("NodeResourcesFit", incoming, nodes, existing) == want


def test_least_allocated_weights():
    """'nothing scheduled, resources requested with different weight on CPU and memory, differently
    sized nodes': the scorer with memory weight 2, cpu weight 1 (not the default profile's)."""
    assert least_allocated.least_resource_scorer([3000, 5000], [4000, 10000], [1, 2]) == 41
    assert least_allocated.least_resource_scorer([3000, 5000], [6000, 10000], [1, 2]) == 50


def test_nonzero_defaults_for_pods_without_requests():
    """schedutil defaults: a pod (and every existing pod) without cpu/memory requests counts 100m/200Mi."""
    mi = 1024 * 1024
    nodes = [N("node1", 1000, 1000 * mi), N("node2", 1000, 1000 * mi)]
    existing = [P("e1", "node1"), P("e2", "node1")]  # 2 x (100m, 200Mi) on node1
    # node1: cpu (1000-300)*100/1000 = 70, memory (1000-600)*100/1000 = 40 -> 55
    # node2: cpu 90, memory 80 -> 85
    assert plugin("NodeResourcesFit", P(), nodes, existing) == [55, 85]
    # an explicit zero request stays zero
    # node1: cpu (1000-200)*100/1000 = 80, memory (1000-400)*100/1000 = 60 -> 70
    assert plugin("NodeResourcesFit", P(requests={"cpu": 0, "memory": 0}), nodes, existing) == [70, 100]


def test_nonzero_requests_count_every_container_without_a_request():
    """NodeInfo.NonZeroRequested counts 100m/200Mi per container without a request: n1's pod of
    three such containers leaves it fuller than n2's pod of one, so LeastAllocated prefers n2
    whatever the seed (was: one default per pod, a tie the seed broke)."""
    import json
    from pathlib import Path

    from tests.conftest import run_cli

    f = Path(__file__).resolve().parents[3] / "data" / "nonzero-requests-per-container.yaml"
    for seed in range(4):
        r = run_cli(["simulate", str(f), "-w", "deployment/web", "--scale", "1", "--seed", str(seed), "-o", "json"])
        assert r.code == 0, r.out + r.err
        pods = json.loads(r.out)["final"]["pods"]
        assert {p["node"] for k, p in pods.items() if "/web-" in k} == {"n2"}
