"""NodeResourcesBalancedAllocation: upstream's table tests, transcribed case by case.

Source: pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go
TestNodeResourcesBalancedAllocation (the v1.35 table: its expectations are for the v1.35 formula, so
they run with ``BALANCED_FORMULA = "v1.35"``; the v1.36 formula is checked against the three anchor
points of kubernetes#135573's description).

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

from planner.scheduler.plugins.noderesources import balanced_allocation
from tests.scheduler.plugins.scores import ZERO, N, P, plugin

# --------------------------------------------------------------------------- BalancedAllocation

CPU_AND_MEMORY = {"cpu": 3000, "memory": 5000}
CPU_ONLY = {"cpu": 3000, "memory": 0}

BALANCED = [
    pytest.param(
        P(requests=ZERO),
        [N("node1", 4000, 10000), N("node2", 4000, 10000)],
        [],
        None,
        id="nothing scheduled, nothing requested, skip in PreScore",
    ),
    pytest.param(
        P(requests=CPU_AND_MEMORY),
        [N("node1", 4000, 10000), N("node2", 6000, 10000)],
        [],
        [87, 100],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        P(requests=CPU_AND_MEMORY),
        [N("node1", 10000, 20000), N("node2", 10000, 20000)],
        [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)],
        [82, 95],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        P(requests=CPU_AND_MEMORY),
        [N("node1", 10000, 20000), N("node2", 10000, 50000)],
        [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)],
        [82, 80],
        id="resources requested, pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        P(requests=CPU_ONLY),
        [N("node1", 6000, 10000), N("node2", 6000, 10000)],
        [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)],
        [50, 75],
        id="requested resources at node capacity",
    ),
    pytest.param(
        P(requests=CPU_AND_MEMORY),
        [
            N(
                "node1",
                3500,
                40000,
            ),
            N("node2", 3500, 40000),
        ],
        [],
        [63, 63],
        id="node without the scalar resource should skip the scalar resource",
    ),
]


@pytest.mark.parametrize("incoming,nodes,existing,want", BALANCED)
def test_balanced_allocation_v135(monkeypatch, incoming, nodes, existing, want):
    monkeypatch.setattr(balanced_allocation, "BALANCED_FORMULA", "v1.35")
    assert plugin("NodeResourcesBalancedAllocation", incoming, nodes, existing) == want


def test_balanced_allocation_three_resources():
    """'include scalar resource on a node for balanced resource allocation': std over cpu, memory and
    a GPU fraction (scorer level; the default profile scores cpu and memory only)."""
    assert balanced_allocation.balance([3000, 5000, 4], [3500, 40000, 8]) == 70
    assert balanced_allocation.balance([3000, 5000, 1], [3500, 40000, 8]) == 65


@pytest.mark.parametrize(
    "existing,incoming,want",
    [
        pytest.param({"cpu": 500, "memory": 500}, {"cpu": 100, "memory": 100}, 75, id="no change to balance"),
        pytest.param(
            {"cpu": 0, "memory": 0}, {"cpu": 1000, "memory": 0}, 50, id="perfectly balanced to perfectly imbalanced"
        ),
        pytest.param(
            {"cpu": 1000, "memory": 0}, {"cpu": 0, "memory": 1000}, 100, id="perfectly imbalanced to perfectly balanced"
        ),
    ],
)
def test_balanced_allocation_v136_anchor_points(existing, incoming, want):
    """kubernetes#135573: 75 for no change, 50 for the worst change, 100 for the best one."""
    assert balanced_allocation.BALANCED_FORMULA == "v1.36"
    nodes = [N("node1", 1000, 1000)]
    assert plugin(
        "NodeResourcesBalancedAllocation", P(requests=incoming), nodes, [P("e", "node1", requests=existing)]
    ) == [want]


def test_balanced_allocation_v136_table():
    """The v1.35 table's first cases under the v1.36 formula: 50 + (50 + with - without) // 2."""
    # empty nodes are perfectly balanced (100) without the pod: 87 -> 50 + 37 // 2 = 68; 100 -> 75
    assert plugin(
        "NodeResourcesBalancedAllocation",
        P(requests=CPU_AND_MEMORY),
        [N("node1", 4000, 10000), N("node2", 6000, 10000)],
    ) == [68, 75]
    # without the pod node1 is cpu 0.3 / memory 0 (85), node2 cpu 0.3 / memory 0.25 (97)
    existing = [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)]
    assert plugin(
        "NodeResourcesBalancedAllocation",
        P(requests=CPU_AND_MEMORY),
        [N("node1", 10000, 20000), N("node2", 10000, 20000)],
        existing,
    ) == [
        50 + (50 + 82 - 85) // 2,
        50 + (50 + 95 - 97) // 2,
    ]
