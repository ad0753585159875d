"""NodeAffinity's score: upstream's table tests, transcribed case by case.

Source: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go TestNodeAffinityPriority.

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

from planner.domain import (
    Affinity,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PreferredSchedulingTerm,
)
from planner.scheduler.plugins.nodeaffinity.scoring import ScoreError
from tests.builders import node
from tests.scheduler.plugins.scores import P, plugin

# --------------------------------------------------------------------------- NodeAffinity


def pref(weight: int, *exprs: tuple[str, str, list[str]]) -> PreferredSchedulingTerm:
    return PreferredSchedulingTerm(
        weight, NodeSelectorTerm(tuple(NodeSelectorRequirement(k, o, tuple(v)) for k, o, v in exprs))
    )


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = Affinity(node_preferred=(pref(2, ("foo", "In", ["bar"])),))
AFFINITY2 = Affinity(
    node_preferred=(
        pref(2, ("foo", "In", ["bar"])),
        pref(4, ("key", "In", ["value"])),
        pref(5, ("foo", "In", ["bar"]), ("key", "In", ["value"]), ("az", "In", ["az1"])),
    )
)


def LN(name: str, labels: dict[str, str]):
    return node(name, labels, hostname_label=False)


NODE_AFFINITY = [
    pytest.param(
        P(),
        [LN("node1", LABEL1), LN("node2", LABEL2), LN("node3", LABEL3)],
        None,
        id="all nodes are same priority as NodeAffinity is nil",
    ),
    pytest.param(P(), [LN("node1", LABEL1)], None, id="Skip is returned in PreScore when NodeAffinity is nil"),
    pytest.param(
        P(affinity=AFFINITY1),
        [LN("node1", LABEL4), LN("node2", LABEL2), LN("node3", LABEL3)],
        [0, 0, 0],
        id="no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
    ),
    pytest.param(
        P(affinity=AFFINITY1),
        [LN("node1", LABEL1), LN("node2", LABEL2), LN("node3", LABEL3)],
        [100, 0, 0],
        id="only node1 matches the preferred scheduling requirements of pod",
    ),
    pytest.param(
        P(affinity=AFFINITY2),
        [LN("node1", LABEL1), LN("node5", LABEL5), LN("node2", LABEL2)],
        [18, 100, 36],
        id="all nodes matches the preferred scheduling requirements of pod but with different priorities ",
    ),
]


@pytest.mark.parametrize("incoming,nodes,want", NODE_AFFINITY)
def test_node_affinity_priority(incoming, nodes, want):
    assert plugin("NodeAffinity", incoming, nodes) == want


def test_node_affinity_priority_broken_affinity():
    """'PreScore returns error when an incoming Pod has a broken affinity'."""
    bad = P(affinity=Affinity(node_preferred=(pref(2, ("invalid key", "In", ["bar"])),)))
    with pytest.raises(ScoreError):
        plugin("NodeAffinity", bad, [LN("node1", LABEL1)])
