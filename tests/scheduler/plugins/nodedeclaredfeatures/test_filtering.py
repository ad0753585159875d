"""NodeDeclaredFeatures (pkg/scheduler/framework/plugins/nodedeclaredfeatures, GA in v1.37).

Upstream's nodedeclaredfeatures_test.go builds pods whose specs require features through the
component-helpers framework; planner reads none of the pod fields that infer a requirement, so
what is tested is the half planner can meet: a pod requiring no declared feature passes on every
node (PreFilter Skip), and the Filter's subset rule and reason string when a requirement exists.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.domain import Node
from planner.scheduler.framework import SKIP, UNRESOLVABLE, NodeInfo, Status
from planner.scheduler.plugins.nodedeclaredfeatures import filtering as ndf
from planner.scheduler.runtime import evaluate
from tests.builders import cluster, node, pod


def test_reason_string():
    assert ndf.NAME == "NodeDeclaredFeatures"
    assert ndf.ERR_REASON_UNSATISFIED_REQUIREMENTS == "node(s) didn't match Pod's required features"


def test_pod_without_requirements_is_skipped():
    c = cluster([node("n1"), node("n2")])
    p = pod("p", {"app": "a"}, cpu=100)
    assert ndf.pre_filter(p, c) == (SKIP, None)
    ev = evaluate(p, c)
    assert ev.feasible_nodes == ["n1", "n2"]
    assert ndf.NAME in ev.states and ev.states[ndf.NAME] is SKIP


@dataclass(frozen=True)
class _DeclaringNode(Node):
    declared_features: tuple[str, ...] = ()


def test_filter_requires_a_subset_of_the_declared_features():
    need = frozenset({"FeatureA"})
    has = NodeInfo(_DeclaringNode("n1", declared_features=("FeatureA", "FeatureB")), [])
    lacks = NodeInfo(_DeclaringNode("n2", declared_features=("FeatureB",)), [])
    plain = NodeInfo(node("n3"), [])
    p = pod("p")
    assert ndf.filter(need, p, has) is None
    want = Status(ndf.NAME, ("node(s) didn't match Pod's required features",), UNRESOLVABLE)
    assert ndf.filter(need, p, lacks) == want
    assert ndf.filter(need, p, plain) == want


def test_explain_lists_it_like_the_other_filters():
    from planner.scheduler import registry

    assert registry.FILTER_PLUGINS[-1] is ndf
