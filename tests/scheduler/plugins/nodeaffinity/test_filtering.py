"""Upstream table tests of NodeAffinity's Filter, transcribed case by case.

Source (kubernetes/kubernetes, pkg/scheduler/framework/plugins/, v1.34/v1.35):
  nodeaffinity/node_affinity_test.go TestNodeAffinity

Each pytest id is the upstream case name.  Pods carry their effective requests (what the loader
computes from containers, init/sidecar containers, pod-level resources and overhead); the comment
on a case shows how upstream's containers add up when that is not obvious.
"""

from __future__ import annotations

import dataclasses

import pytest

from planner.domain import (
    Affinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from planner.matching import terms_match
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, NodeInfo, Status
from planner.scheduler.plugins.nodeaffinity import filtering as nodeaffinity
from tests.scheduler.plugins.basic import mk_node, mk_pod, reasons, run

# --------------------------------------------------------------------------- NodeAffinity


def req(key: str, op: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, op, values)


def term(exprs: tuple[NodeSelectorRequirement, ...] = (), fields: tuple[NodeSelectorRequirement, ...] = ()) -> NodeSelectorTerm:
    return NodeSelectorTerm(exprs, fields)


def required(*terms: NodeSelectorTerm) -> Affinity:
    return Affinity(node_required=NodeSelector(terms))


NAME_IN_NODE1 = req("metadata.name", "In", "node1")
NAME_IN_NODE2 = req("metadata.name", "In", "node2")
ERR_POD = nodeaffinity.ERR_REASON_POD
CONFLICT = nodeaffinity.ERR_REASON_CONFLICT

# (name, node selector, affinity, node labels, node name, want PreFilter: "skip" / None / reason,
#  want PreFilterResult names, want upstream Filter reason)
NODE_AFFINITY_CASES = [
    ("missing labels", {"foo": "bar"}, None, {}, "", None, None, ERR_POD),
    ("same labels", {"foo": "bar"}, None, {"foo": "bar"}, "", None, None, None),
    ("node labels are superset", {"foo": "bar"}, None, {"foo": "bar", "baz": "blah"}, "", None, None, None),
    ("node labels are subset", {"foo": "bar", "baz": "blah"}, None, {"foo": "bar"}, "", None, None, ERR_POD),
    ("Pod with matchExpressions using In operator that matches the existing node", {},
     required(term((req("foo", "In", "bar", "value2"),))), {"foo": "bar"}, "", None, None, None),
    ("Pod with matchExpressions using Gt operator that matches the existing node", {},
     required(term((req("kernel-version", "Gt", "0204"),))), {"kernel-version": "0206"}, "", None, None, None),
    ("Pod with matchExpressions using NotIn operator that matches the existing node", {},
     required(term((req("mem-type", "NotIn", "DDR", "DDR2"),))), {"mem-type": "DDR3"}, "", None, None, None),
    ("Pod with matchExpressions using Exists operator that matches the existing node", {},
     required(term((req("GPU", "Exists"),))), {"GPU": "NVIDIA-GRID-K1"}, "", None, None, None),
    ("Pod with affinity that don't match node's labels won't schedule onto the node", {},
     required(term((req("foo", "In", "value1", "value2"),))), {"foo": "bar"}, "", None, None, ERR_POD),
    ("Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node", {},
     required(term(())), {"foo": "bar"}, "", None, None, ERR_POD),
    ("Pod with no Affinity will schedule onto a node", {}, None, {"foo": "bar"}, "", "skip", None, None),
    ("Pod with Affinity but nil NodeSelector will schedule onto a node", {}, Affinity(node_required=None), {"foo": "bar"}, "",
     "skip", None, None),
    ("Pod with multiple matchExpressions ANDed that matches the existing node", {},
     required(term((req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER")))), {"GPU": "NVIDIA-GRID-K1"}, "", None, None, None),
    ("Pod with multiple matchExpressions ANDed that doesn't match the existing node", {},
     required(term((req("GPU", "Exists"), req("GPU", "In", "AMD", "INTER")))), {"GPU": "NVIDIA-GRID-K1"}, "", None, None, ERR_POD),
    ("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node", {},
     required(term((req("foo", "In", "bar", "value2"),)), term((req("diffkey", "In", "wrong", "value2"),))), {"foo": "bar"}, "",
     None, None, None),
    ("Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
     {"foo": "bar"}, required(term((req("foo", "Exists"),))), {"foo": "bar"}, "", None, None, None),
    ("Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, "
     "won't schedule onto the node", {"foo": "bar"}, required(term((req("foo", "Exists"),))), {"foo": "barrrrrr"}, "", None, None, ERR_POD),
    ("Pod with an invalid value in Affinity term won't be scheduled onto the node", {},
     required(term((req("foo", "NotIn", "invalid value: ___@#$%^"),))), {"foo": "bar"}, "", None, None, ERR_POD),
    ("Pod with matchFields using In operator that matches the existing node", {},
     required(term(fields=(NAME_IN_NODE1,))), {}, "node1", None, frozenset({"node1"}), None),
    ("Pod with matchFields using In operator that does not match the existing node", {},
     required(term(fields=(NAME_IN_NODE1,))), {}, "node2", None, frozenset({"node1"}), ERR_POD),
    ("Pod with two terms: matchFields does not match, but matchExpressions matches", {},
     required(term(fields=(NAME_IN_NODE1, NAME_IN_NODE2)), term((req("foo", "In", "bar"),))), {"foo": "bar"}, "node2",
     None, None, None),
    ("Pod with one term: matchFields does not match, but matchExpressions matches", {},
     required(term((req("foo", "In", "bar"),), (NAME_IN_NODE1,))), {"foo": "bar"}, "node2", None, frozenset({"node1"}), ERR_POD),
    ("Pod with one term: both matchFields and matchExpressions match", {},
     required(term((req("foo", "In", "bar"),), (NAME_IN_NODE1,))), {"foo": "bar"}, "node1", None, frozenset({"node1"}), None),
    ("Pod with two terms: both matchFields and matchExpressions do not match", {},
     required(term(fields=(NAME_IN_NODE1,)), term((req("foo", "In", "not-match-to-bar"),))), {"foo": "bar"}, "node2",
     None, None, ERR_POD),
    ("Pod with two terms of node.Name affinity", {},
     required(term(fields=(NAME_IN_NODE1,)), term(fields=(NAME_IN_NODE2,))), {}, "node2", None, frozenset({"node1", "node2"}), None),
    ("Pod with two conflicting mach field requirements", {},
     required(term(fields=(NAME_IN_NODE1, NAME_IN_NODE2))), {"foo": "bar"}, "node2", CONFLICT, None, ERR_POD),
    # Left out: "Matches added affinity and Pod's node affinity", "Matches added affinity but not Pod's node
    # affinity", "Doesn't match added affinity" (scheduler-enforced addedAffinity from plugin args is not modelled);
    # "Matches node selector/affinity correctly even if PreFilter is not called" (planner always runs PreFilter).
]


@pytest.mark.parametrize(
    "node_selector,affinity,labels,node_name,want_pre,want_names,want",
    [pytest.param(*c[1:], id=c[0]) for c in NODE_AFFINITY_CASES],
)
def test_node_affinity(
    node_selector: dict[str, str],
    affinity: Affinity | None,
    labels: dict[str, str],
    node_name: str,
    want_pre: str | None,
    want_names: frozenset[str] | None,
    want: str | None,
) -> None:
    pod = mk_pod(node_selector=node_selector, affinity=affinity)
    node = mk_node(node_name, labels)
    ni = NodeInfo(node)
    state, pre = nodeaffinity.pre_filter(pod, ClusterState([ni]))
    if want_pre == "skip":
        # Upstream: PreFilter returns Skip and Filter is never called.
        assert state is SKIP and pre is None and want is None
        return
    assert reasons(pre) == (None if want_pre is None else (want_pre,))
    if pre is not None:
        assert pre.code == UNRESOLVABLE
    assert isinstance(state, nodeaffinity.State)
    assert state.node_names == want_names
    st = nodeaffinity.filter(state, pod, ni)
    if want_names is not None and node_name not in want_names:
        # kube-scheduler never runs Filter on a node outside PreFilterResult.NodeNames: it records the
        # absent-node status.  Upstream's test calls Filter anyway; check that verdict without the result.
        assert st == Status("NodeAffinity", (nodeaffinity.ERR_REASON_ABSENT,), UNRESOLVABLE)
        assert nodeaffinity.ERR_REASON_ABSENT == "node(s) didn't satisfy plugin(s) [NodeAffinity]"
        st = nodeaffinity.filter(dataclasses.replace(state, node_names=None), pod, ni)
    assert reasons(st) == (None if want is None else (want,))
    if st is not None:
        assert st.code == UNRESOLVABLE


def test_node_affinity_matchfields_other_key() -> None:
    # Not an upstream case: fields.Set has only metadata.name, so NotIn on another field key matches
    # (Get returns ""), and an In requirement with two values is a parse error (the term matches nothing).
    node = mk_node("node1")
    assert terms_match((term(fields=(req("spec.unschedulable", "NotIn", "true"),)),), node)
    pod = mk_pod(affinity=required(term(fields=(req("metadata.name", "In", "node1", "node2"),))))
    state, pre, st = run(nodeaffinity, pod, NodeInfo(node))
    assert pre is None and reasons(st) == (ERR_POD,)


def test_nodes_outside_the_prefilter_result_get_only_its_status():
    """schedule_one.go findNodesThatFitPod: with NodeAffinity's PreFilterResult (a DaemonSet pod's
    matchFields metadata.name) no filter runs on the other nodes, which all say "didn't satisfy
    plugin(s) [NodeAffinity]": n1's taint is not its reason (was: 1 untolerated taint, 1 NodeAffinity)."""
    from pathlib import Path

    from planner.engines.explain import explain
    from planner.load import load_snapshot

    snap = load_snapshot([str(Path(__file__).resolve().parents[3] / "data" / "daemon-pod-pinned-to-a-full-node.yaml")])
    r = explain(snap, snap.pods["default/agent-x"])
    assert r["summary"] == "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    by_node = {n["name"]: [f["plugin"] for f in n["failures"]] for n in r["nodes"]}
    assert by_node == {"n1": ["NodeAffinity"], "n2": ["NodeResourcesFit"], "n3": ["NodeAffinity"]}
