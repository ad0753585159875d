"""TaintToleration's score: upstream's table tests, transcribed case by case.

Source: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go TestTaintTolerationScore.

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
    Taint,
    Toleration,
)
from tests.builders import node
from tests.scheduler.plugins.scores import P, plugin

# --------------------------------------------------------------------------- TaintToleration

PNS = "PreferNoSchedule"


def TN(name: str, *taints: tuple[str, str, str]):
    return node(name, {}, taints=[Taint(k, v, e) for k, v, e in taints], hostname_label=False)


def TP(*tols: tuple[str, str, str, str]):
    return P(tolerations=[Toleration(key=k, operator=o, value=v, effect=e) for k, o, v, e in tols])


TAINT_SCORE = [
    pytest.param(
        TP(("foo", "Equal", "bar", PNS)),
        [TN("nodeA", ("foo", "bar", PNS)), TN("nodeB", ("foo", "blah", PNS))],
        [100, 0],
        id="node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
    ),
    pytest.param(
        TP(("cpu-type", "Equal", "arm64", PNS), ("disk-type", "Equal", "ssd", PNS)),
        [
            TN("nodeA"),
            TN("nodeB", ("cpu-type", "arm64", PNS)),
            TN("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)),
        ],
        [100, 100, 100],
        id="the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has",
    ),
    pytest.param(
        TP(("foo", "Equal", "bar", PNS)),
        [
            TN("nodeA"),
            TN("nodeB", ("cpu-type", "arm64", PNS)),
            TN("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)),
        ],
        [100, 50, 0],
        id="the more intolerable taints a node has, the lower score it gets.",
    ),
    pytest.param(
        TP(("cpu-type", "Equal", "arm64", "NoSchedule"), ("disk-type", "Equal", "ssd", "NoSchedule")),
        [
            TN("nodeA"),
            TN("nodeB", ("cpu-type", "arm64", "NoSchedule")),
            TN("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)),
        ],
        [100, 100, 0],
        id="only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function",
    ),
    pytest.param(
        TP(),
        [TN("nodeA"), TN("nodeB", ("cpu-type", "arm64", PNS))],
        [100, 0],
        id="Default behaviour No taints and tolerations, lands on node with no taints",
    ),
]


@pytest.mark.parametrize("incoming,nodes,want", TAINT_SCORE)
def test_taint_toleration_score(incoming, nodes, want):
    assert plugin("TaintToleration", incoming, nodes) == want
