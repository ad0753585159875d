"""PodTopologySpread filter: upstream's table tests, transcribed case by case.

Source: kubernetes/kubernetes pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go
(TestPreFilterState, TestSingleConstraint, TestMultipleConstraints); each pytest id is the upstream
case name.  Left out, with the reason next to where they would be:
* TestPreFilterState cases built on configured ``defaultConstraints`` + Services (List defaulting):
  planner models the default profile, whose default constraints are ScheduleAnyway only;
* "matchLabelKeys ignored when feature gate disabled": MatchLabelKeysInPodTopologySpread is on by
  default and planner models it on;
* TestPreFilterStateAddPod / TestPreFilterStateRemovePod: the AddPod/RemovePod PreFilter extensions
  (used by preemption) are not modelled;
* TestPreFilterDisabled, TestPodTopoSignatures, BenchmarkFilter: framework plumbing.
Cases whose name says "feature gate disabled" but whose expectation is the same with the (now GA,
locked) NodeInclusionPolicyInPodTopologySpread gate on are kept.

The ``upstream`` helpers below mirror st.MakePod()/st.MakeNode(): nodes carry only the labels the
case gives them, pods live in one namespace unless the case names another.
"""

from __future__ import annotations

import pytest

from planner.domain import Affinity, LabelSelector, Node, Pod, Taint, Toleration, TopologySpreadConstraint
from planner.scheduler.framework import SKIP, UNRESOLVABLE, UNSCHEDULABLE
from planner.scheduler.plugins.podtopologyspread import filtering as pts
from tests.builders import cluster, node, node_selector, pod, sel, spread

S = None  # fwk.Success
U = UNSCHEDULABLE
UU = UNRESOLVABLE
DNS = "DoNotSchedule"
SA = "ScheduleAnyway"
MAXINT32 = 2**31 - 1

FOO = sel(None, ("foo", "Exists", []))  # fooSelector = st.MakeLabelSelector().Exists("foo")
BAR = sel(None, ("bar", "Exists", []))  # barSelector
TAINTS = (Taint("node.kubernetes.io/unschedulable", "", "NoSchedule"),)
HONOR = "Honor"
IGNORE = "Ignore"


def N(name: str, taints: tuple[Taint, ...] = (), **labels: str) -> Node:
    return node(name, labels, taints=taints, hostname_label=False)


def P(name: str, node_name: str, *, ns: str = "default", terminating: bool = False, **labels: str) -> Pod:
    return pod(name, labels, node_name=node_name, namespace=ns, terminating=terminating)


def SC(
    max_skew: int,
    key: str,
    when: str,
    selector: LabelSelector | None,
    min_domains: int | None = None,
    affinity_policy: str | None = None,
    taints_policy: str | None = None,
    match_label_keys: list[str] | None = None,
) -> TopologySpreadConstraint:
    """st.PodWrapper.SpreadConstraint's argument order; nil policies take the API defaults."""
    return spread(
        key,
        max_skew,
        selector,
        when=when,
        min_domains=min_domains,
        node_affinity_policy=affinity_policy or HONOR,
        node_taints_policy=taints_policy or IGNORE,
        match_label_keys=match_label_keys or (),
    )


def IN(
    labels: dict[str, str],
    *constraints: TopologySpreadConstraint,
    node_selector_: dict[str, str] | None = None,
    affinity: Affinity | None = None,
    tolerations: tuple[Toleration, ...] = (),
) -> Pod:
    """The incoming pod "p"."""
    return pod(
        "p", labels, spread=constraints, node_selector=node_selector_, affinity=affinity, tolerations=tolerations
    )


def affinity_in(key: str, values: list[str]) -> Affinity:
    """st.PodWrapper.NodeAffinityIn(key, values, NodeSelectorTypeMatchExpressions)."""
    return Affinity(node_required=node_selector([(key, "In", values)]))


def affinity_not_in(key: str, values: list[str]) -> Affinity:
    """st.PodWrapper.NodeAffinityNotIn(key, values)."""
    return Affinity(node_required=node_selector([(key, "NotIn", values)]))


def ZN(name: str, zone: str, **extra: str) -> Node:
    """st.MakeNode().Name(name).Label("zone", zone).Label("node", name)."""
    return N(name, zone=zone, node=name, **extra)


FOUR_NODES = [ZN("node-a", "zone1"), ZN("node-b", "zone1"), ZN("node-x", "zone2"), ZN("node-y", "zone2")]

# --------------------------------------------------------------------------- TestPreFilterState

# (incoming pod, nodes, existing pods, want); want is None for Skip, otherwise one
# (TpValueToMatchNum[i], CriticalPaths[i][0].MatchNum) per DoNotSchedule constraint.
PRE_FILTER_CASES = [
    pytest.param(
        IN({"foo": ""}, SC(5, "zone", DNS, sel({"foo": "bar"}))),
        FOUR_NODES,
        [],
        [({"zone1": 0, "zone2": 0}, 0)],
        id="clean cluster with one spreadConstraint",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO)),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", foo=""),
        ],
        [({"zone1": 3, "zone2": 2}, 2)],
        id="normal case with one spreadConstraint",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, None)),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", foo=""),
        ],
        [({"zone1": 0, "zone2": 0}, 0)],
        id="normal case with null label selector",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO)),
        FOUR_NODES + [ZN("node-o", "zone3"), ZN("node-p", "zone3")],
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", foo=""),
        ],
        [({"zone1": 3, "zone2": 2, "zone3": 0}, 0)],
        id="normal case with one spreadConstraint, on a 3-zone cluster",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO)),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", ns="ns1", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-y1", "node-y", ns="ns2", foo=""),
            P("p-y2", "node-y", foo=""),
        ],
        [({"zone1": 2, "zone2": 1}, 1)],
        id="namespace mismatch doesn't count",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO)),
        FOUR_NODES,
        [P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-b1", "node-b", foo="")]
        + [P(f"p-y{i}", "node-y", foo="") for i in range(1, 5)],
        [({"zone1": 3, "zone2": 4}, 3), ({"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}, 0)],
        id="normal case with two spreadConstraints",
    ),
    pytest.param(
        IN(
            {"foo": ""},
            SC(1, "zone", SA, FOO),
            SC(1, "zone", DNS, FOO),
            SC(1, "node", SA, FOO),
            SC(1, "node", DNS, FOO),
        ),
        [ZN("node-a", "zone1"), ZN("node-b", "zone1"), ZN("node-y", "zone2")],
        [P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-b1", "node-b", foo="")]
        + [P(f"p-y{i}", "node-y", foo="") for i in range(1, 5)],
        [({"zone1": 3, "zone2": 4}, 3), ({"node-a": 2, "node-b": 1, "node-y": 4}, 1)],
        id="soft spreadConstraints should be bypassed",
    ),
    pytest.param(
        IN({"foo": "", "bar": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, BAR)),
        [ZN("node-a", "zone1"), ZN("node-b", "zone1"), ZN("node-y", "zone2")],
        [P("p-a", "node-a", foo=""), P("p-b", "node-b", bar="")],
        [({"zone1": 1, "zone2": 0}, 0), ({"node-a": 0, "node-b": 1, "node-y": 0}, 0)],
        id="different labelSelectors - simple version",
    ),
    pytest.param(
        IN({"foo": "", "bar": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, BAR)),
        [ZN("node-a", "zone1"), ZN("node-b", "zone1"), ZN("node-y", "zone2")],
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo="", bar=""),
            P("p-b1", "node-b", foo=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", foo="", bar=""),
            P("p-y3", "node-y", foo=""),
            P("p-y4", "node-y", foo="", bar=""),
        ],
        [({"zone1": 3, "zone2": 4}, 3), ({"node-a": 1, "node-b": 0, "node-y": 2}, 0)],
        id="different labelSelectors - complex pods",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO), affinity=affinity_not_in("node", ["node-x"])),
        FOUR_NODES,
        [P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-b1", "node-b", foo="")]
        + [P(f"p-y{i}", "node-y", foo="") for i in range(1, 5)],
        [({"zone1": 3, "zone2": 4}, 3), ({"node-a": 2, "node-b": 1, "node-y": 4}, 1)],
        id="two spreadConstraints, and with podAffinity",
    ),
    # "default constraints and a service": left out, configured DoNotSchedule defaultConstraints
    # and Service-derived selectors (List defaulting) are not modelled.
    # "default constraints and a service that doesn't match": left out, same reason.
    pytest.param(
        IN(
            {"foo": "bar", "baz": "tar"},
            SC(1, "zone", DNS, sel({"baz": "tar"})),
            SC(2, "planet", SA, sel({"fot": "rok"})),
        ),
        [],
        [],
        [({}, MAXINT32)],
        id="default constraints and a service, but pod has constraints",
    ),
    # Upstream configures soft default constraints; the default profile's system defaults are soft
    # too, so a pod without constraints is skipped either way.
    pytest.param(IN({"foo": "bar"}), [], [], None, id="default soft constraints and a service"),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO)),
        FOUR_NODES,
        [P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-b1", "node-b", foo="")]
        + [P(f"p-y{i}", "node-y", foo="") for i in range(1, 5)],
        [({"zone1": 3, "zone2": 4}, 3), ({"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}, 0)],
        id="TpKeyToDomainsNum is calculated when MinDomains is enabled",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, BAR), node_selector_={"foo": ""}),
        [N("node-a", node="node-a", foo=""), N("node-b", node="node-b", foo=""), N("node-c", node="node-c", bar="")],
        [P("p-a", "node-a", bar=""), P("p-b", "node-b", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-c")],
        [({"node-a": 1, "node-b": 2}, 1)],
        id="feature gate disabled with NodeAffinityPolicy",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, BAR), node_selector_={"foo": ""}),
        [N("node-a", node="node-a", foo=""), N("node-b", node="node-b", foo=""), N("node-c", node="node-c", bar="")],
        [P("p-a", "node-a", bar=""), P("p-b", "node-b", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-c")],
        [({"node-a": 1, "node-b": 2}, 1)],
        id="NodeAffinityPolicy honored with labelSelectors",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, BAR, None, IGNORE), node_selector_={"foo": ""}),
        [N("node-a", node="node-a", foo=""), N("node-b", node="node-b", foo=""), N("node-c", node="node-c", bar="")],
        [P("p-a", "node-a", bar=""), P("p-b", "node-b", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-c")],
        [({"node-a": 1, "node-b": 2, "node-c": 0}, 0)],
        id="NodeAffinityPolicy ignored with labelSelectors",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, BAR), affinity=affinity_in("foo", [""])),
        [N("node-a", node="node-a", foo=""), N("node-b", node="node-b", foo=""), N("node-c", node="node-c", bar="")],
        [P("p-a", "node-a", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-b", bar=""), P("p-e", "node-c")],
        [({"node-a": 1, "node-b": 2}, 1)],
        id="NodeAffinityPolicy honored with nodeAffinity",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, BAR, None, IGNORE), affinity=affinity_in("foo", [""])),
        [N("node-a", node="node-a", foo=""), N("node-b", node="node-b", foo=""), N("node-c", node="node-c", bar="")],
        [P("p-a", "node-a", bar=""), P("p-b", "node-b", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-c")],
        [({"node-a": 1, "node-b": 2, "node-c": 0}, 0)],
        id="NodeAffinityPolicy ignored with nodeAffinity",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, BAR)),
        [N("node-a", node="node-a"), N("node-b", node="node-b"), N("node-c", TAINTS, node="node-c", bar="")],
        [P("p-a", "node-a", bar=""), P("p-b", "node-b", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-c")],
        [({"node-a": 1, "node-b": 2, "node-c": 0}, 0)],
        id="feature gate disabled with NodeTaintsPolicy",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, BAR)),
        [N("node-a", node="node-a"), N("node-b", node="node-b"), N("node-c", TAINTS, node="node-c", bar="")],
        [P("p-a", "node-a", bar=""), P("p-b", "node-b", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-c")],
        [({"node-a": 1, "node-b": 2, "node-c": 0}, 0)],
        id="NodeTaintsPolicy ignored",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, BAR, None, None, HONOR)),
        [N("node-a", node="node-a"), N("node-b", node="node-b"), N("node-c", TAINTS, node="node-c", bar="")],
        [P("p-a", "node-a", bar=""), P("p-b", "node-b", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-c")],
        [({"node-a": 1, "node-b": 2}, 1)],
        id="NodeTaintsPolicy honored",
    ),
    pytest.param(
        IN(
            {"foo": ""},
            SC(1, "node", DNS, BAR, None, None, HONOR),
            tolerations=(Toleration(key="node.kubernetes.io/unschedulable", operator="Exists"),),
        ),
        [N("node-a", node="node-a"), N("node-b", node="node-b"), N("node-c", TAINTS, node="node-c", bar="")],
        [P("p-a", "node-a", bar=""), P("p-b", "node-b", bar=""), P("p-c", "node-b", bar=""), P("p-d", "node-c")],
        [({"node-a": 1, "node-b": 2, "node-c": 0}, 0)],
        id="NodeTaintsPolicy honored with tolerated taints",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO, None, IGNORE), node_selector_={"foo": ""}),
        [ZN("node-a", "zone1", foo=""), ZN("node-b", "zone1"), ZN("node-x", "zone2", foo="")],
        [P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        [({"zone1": 0, "zone2": 1}, 0), ({"node-a": 0, "node-b": 2, "node-x": 1}, 0)],
        id="two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO, None, None, HONOR), SC(1, "node", DNS, FOO)),
        [
            ZN("node-a", "zone1", foo=""),
            N("node-b", TAINTS, zone="zone1", node="node-b"),
            ZN("node-x", "zone2", foo=""),
        ],
        [P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-x1", "node-x", foo="")],
        [({"zone1": 0, "zone2": 1}, 0), ({"node-a": 0, "node-b": 2, "node-x": 1}, 0)],
        id="two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO), node_selector_={"foo": ""}),
        [
            ZN("node-a", "zone1"),
            N("node-b", TAINTS, zone="zone1", node="node-b", foo=""),
            ZN("node-x", "zone2", foo=""),
            ZN("node-y", "zone2"),
        ],
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        [({"zone1": 0, "zone2": 1}, 0), ({"node-b": 0, "node-x": 1}, 0)],
        id="two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
    ),
    pytest.param(
        IN(
            {"foo": ""},
            SC(1, "zone", DNS, FOO, None, IGNORE),
            SC(1, "node", DNS, FOO, None, None, HONOR),
            node_selector_={"foo": ""},
        ),
        [
            ZN("node-a", "zone1"),
            N("node-b", TAINTS, zone="zone1", node="node-b", foo=""),
            ZN("node-x", "zone2", foo=""),
            ZN("node-y", "zone2", foo=""),
        ],
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-x2", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        [({"zone1": 2, "zone2": 3}, 2), ({"node-x": 2, "node-y": 1}, 1)],
        id="two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
    ),
    # "matchLabelKeys ignored when feature gate disabled": left out, MatchLabelKeysInPodTopologySpread
    # is on by default (beta since v1.27) and planner models it on.
    pytest.param(
        IN({"foo": "", "bar": "a"}, SC(1, "zone", DNS, FOO, match_label_keys=["bar"])),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo="", bar="a"),
            P("p-b1", "node-b", foo=""),
            P("p-y1", "node-y", foo="", bar="a"),
            P("p-y2", "node-y", bar=""),
        ],
        [({"zone1": 1, "zone2": 1}, 1)],
        id="matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
    ),
    pytest.param(
        IN({"foo": "a"}, SC(1, "zone", DNS, LabelSelector(), match_label_keys=["foo"])),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo="a"),
            P("p-a2", "node-a", foo="a"),
            P("p-b1", "node-b", foo="a"),
            P("p-y1", "node-y", foo="a"),
            P("p-y2", "node-y", foo="a"),
        ],
        [({"zone1": 3, "zone2": 2}, 2)],
        id="matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, None, match_label_keys=["bar"])),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo="a"),
            P("p-a2", "node-a", foo="a"),
            P("p-b1", "node-b", foo="a"),
            P("p-y1", "node-y", foo="a"),
            P("p-y2", "node-y", foo="a"),
        ],
        [({"zone1": 0, "zone2": 0}, 0)],
        id="key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
    ),
    # Same expectation with the gate on: a nil selector matches nothing either way.
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, None, match_label_keys=["bar"])),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo="a"),
            P("p-a2", "node-a", foo="a"),
            P("p-b1", "node-b", foo="a"),
            P("p-y1", "node-y", foo="a"),
            P("p-y2", "node-y", foo="a"),
        ],
        [({"zone1": 0, "zone2": 0}, 0)],
        id="no pod is matched when LabelSelector is nil when feature gate disabled",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO, match_label_keys=["bar"])),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo="a"),
            P("p-a2", "node-a", foo="a"),
            P("p-b1", "node-b", foo="a"),
            P("p-y1", "node-y", foo="a"),
            P("p-y2", "node-y", foo="a"),
        ],
        [({"zone1": 3, "zone2": 2}, 2)],
        id="key in matchLabelKeys is ignored when it isn't exist in pod.labels",
    ),
    pytest.param(
        IN({"foo": "", "bar": ""}, SC(1, "zone", DNS, FOO), SC(1, "zone", DNS, BAR)),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo="", bar=""),
            P("p-b1", "node-b", foo=""),
            P("p-x1", "node-x", bar=""),
            P("p-y1", "node-y", foo="", bar=""),
            P("p-y2", "node-y", bar=""),
        ],
        [({"zone1": 2, "zone2": 1}, 1), ({"zone1": 1, "zone2": 3}, 1)],
        id="two spreadConstraints with the same topologyKey",
    ),
    pytest.param(IN({"foo": ""}), [ZN("node-a", "zone1")], [], None, id="skip if not specified"),
]


@pytest.mark.parametrize("incoming,nodes,existing,want", PRE_FILTER_CASES)
def test_pre_filter_state(incoming: Pod, nodes: list[Node], existing: list[Pod], want) -> None:
    state, status = pts.pre_filter(incoming, cluster(nodes, existing))
    assert status is None
    if want is None:
        assert state is SKIP
        return
    assert isinstance(state, pts.PreFilterState)
    assert [(c.counts, c.min_match) for c in state.constraints] == want


def test_pre_filter_state_merged_selectors() -> None:
    """The Selector fields upstream expects in the two "matchLabelKeys ANDed" cases."""
    c = SC(1, "zone", DNS, FOO, match_label_keys=["bar"])
    state, _ = pts.pre_filter(IN({"foo": "", "bar": "a"}, c), cluster(FOUR_NODES))
    assert isinstance(state, pts.PreFilterState)
    assert state.constraints[0].selector == sel(None, ("foo", "Exists", []), ("bar", "In", ["a"]))
    c = SC(1, "zone", DNS, LabelSelector(), match_label_keys=["foo"])
    state, _ = pts.pre_filter(IN({"foo": "a"}, c), cluster(FOUR_NODES))
    assert isinstance(state, pts.PreFilterState)
    assert state.constraints[0].selector == sel(None, ("foo", "In", ["a"]))


# --------------------------------------------------------------------------- Filter


def run_filter(incoming: Pod, nodes: list[Node], existing: list[Pod]) -> dict[str, str | None]:
    cl = cluster(nodes, existing)
    state, status = pts.pre_filter(incoming, cl)
    assert status is None
    assert isinstance(state, pts.PreFilterState)
    out: dict[str, str | None] = {}
    for ni in cl.node_infos:
        st = pts.filter(state, incoming, ni)
        out[ni.name] = None if st is None else st.code
    return out


def codes(a=S, b=S, x=S, y=S) -> dict[str, str | None]:
    return {"node-a": a, "node-b": b, "node-x": x, "node-y": y}


PODS_2_1_0_3 = [P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-b1", "node-b", foo="")] + [
    P(f"p-y{i}", "node-y", foo="") for i in range(1, 4)
]

SINGLE_CONSTRAINT_CASES = [
    pytest.param(IN({"foo": ""}, SC(1, "zone", DNS, FOO)), FOUR_NODES, [], codes(), id="no existing pods"),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, BAR)),
        FOUR_NODES,
        [],
        codes(),
        id="no existing pods, incoming pod doesn't match itself",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO)),
        FOUR_NODES,
        [
            P("p-a1", "node-a", ns="ns1", foo=""),
            P("p-b1", "node-a", ns="ns2", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        codes(S, S, U, U),
        id="existing pods in a different namespace do not count",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, None)),
        FOUR_NODES,
        [P("p-x1", "node-x", foo=""), P("p-y1", "node-y", foo="")],
        codes(),
        id="existing pods do not match null selector",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO)),
        FOUR_NODES,
        PODS_2_1_0_3,
        codes(),
        id="pods spread across zones as 3/3, all nodes fit",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO)),
        [ZN("node-a", "zone1"), N("node-b", zon="zone1", node="node-b"), ZN("node-x", "zone2"), ZN("node-y", "zone2")],
        [
            P("p-a1", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-x1", "node-x", foo=""),
            P("p-y1", "node-y", foo=""),
        ],
        codes(S, UU, U, U),
        id="pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "rack", DNS, FOO)),
        [ZN("node-a", "zone1"), ZN("node-x", "zone2")],
        [],
        {"node-a": UU, "node-x": UU},
        id="pod cannot be scheduled as all nodes don't have label 'rack'",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, FOO)),
        FOUR_NODES,
        PODS_2_1_0_3,
        codes(U, U, S, U),
        id="pods spread across nodes as 2/1/0/3, only node-x fits",
    ),
    pytest.param(
        IN({"foo": ""}, SC(2, "node", DNS, FOO)),
        FOUR_NODES,
        PODS_2_1_0_3,
        codes(U, S, S, U),
        id="pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
    ),
    pytest.param(
        IN({"bar": ""}, SC(1, "node", DNS, FOO)),
        FOUR_NODES,
        PODS_2_1_0_3,
        codes(U, S, S, U),
        id="pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
    ),
    # In this unit test the NodeAffinity filter does not run, so node-b and node-x still fit.
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, FOO), affinity=affinity_in("node", ["node-a", "node-y"])),
        FOUR_NODES,
        PODS_2_1_0_3,
        codes(S, S, S, U),
        id="incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, FOO)),
        [N("node-a", node="node-a"), N("node-b", node="node-b")],
        [P("p-a", "node-a", terminating=True, foo=""), P("p-b", "node-b", foo="")],
        {"node-a": S, "node-b": U},
        id="terminating Pods should be excluded",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), affinity=affinity_not_in("node", ["node-b"])),
        FOUR_NODES,
        [P("p-b1", "node-b", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(S, S, U, U),
        id="incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
    ),
    pytest.param(
        IN({"foo": ""}, SC(2, "node", DNS, FOO, 4)),
        [N("node-a", node="node-a"), N("node-b", node="node-b"), N("node-c", node="node-c")],
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-b2", "node-b", foo=""),
            P("p-c1", "node-c", foo=""),
        ],
        {"node-a": U, "node-b": U, "node-c": S},
        id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
    ),
    pytest.param(
        IN({"foo": ""}, SC(2, "node", DNS, FOO, 2)),
        [N("node-a", node="node-a"), N("node-b", node="node-b"), N("node-c", node="node-c")],
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo=""),
            P("p-b1", "node-b", foo=""),
            P("p-b2", "node-b", foo=""),
            P("p-c1", "node-c", foo=""),
        ],
        {"node-a": S, "node-b": S, "node-c": S},
        id="pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
    ),
    pytest.param(
        IN({"foo": ""}, SC(2, "zone", DNS, FOO, 3)),
        FOUR_NODES,
        [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, S),
        id="pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
    ),
    pytest.param(
        IN({"foo": ""}, SC(2, "zone", DNS, FOO, 1)),
        FOUR_NODES,
        [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(),
        id="pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, FOO), node_selector_={"foo": ""}),
        [
            N("node-a", node="node-a", foo=""),
            N("node-b", node="node-b", foo=""),
            N("node-x", node="node-x", foo=""),
            N("node-y", node="node-y"),
        ],
        [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, S),
        id="NodeAffinityPolicy honored with labelSelectors",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, FOO, None, IGNORE), node_selector_={"foo": ""}),
        [
            N("node-a", node="node-a", foo=""),
            N("node-b", node="node-b", foo=""),
            N("node-x", node="node-x", foo=""),
            N("node-y", node="node-y"),
        ],
        [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, U),
        id="NodeAffinityPolicy ignored with labelSelectors",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, FOO), affinity=affinity_in("foo", [""])),
        [
            N("node-a", node="node-a", foo=""),
            N("node-b", node="node-b", foo=""),
            N("node-x", node="node-x", foo=""),
            N("node-y", node="node-y"),
        ],
        [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, S),
        id="NodeAffinityPolicy honored with nodeAffinity",
    ),
    # Upstream reuses the name "NodeAffinityPolicy ignored with labelSelectors" for the
    # nodeAffinity variant; pytest disambiguates the duplicate id.
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, FOO, None, IGNORE), affinity=affinity_in("foo", [""])),
        [
            N("node-a", node="node-a", foo=""),
            N("node-b", node="node-b", foo=""),
            N("node-x", node="node-x", foo=""),
            N("node-y", node="node-y"),
        ],
        [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, U),
        id="NodeAffinityPolicy ignored with labelSelectors",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, FOO, None, None, HONOR)),
        [
            N("node-a", node="node-a", foo=""),
            N("node-b", node="node-b", foo=""),
            N("node-x", node="node-x", foo=""),
            N("node-y", TAINTS, node="node-y"),
        ],
        [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, S),
        id="NodeTaintsPolicy honored",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "node", DNS, FOO)),
        [
            N("node-a", node="node-a", foo=""),
            N("node-b", node="node-b", foo=""),
            N("node-x", node="node-x", foo=""),
            N("node-y", TAINTS, node="node-y"),
        ],
        [P("p-b1", "node-a", foo=""), P("p-b2", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, U),
        id="NodeTaintsPolicy ignored",
    ),
]


@pytest.mark.parametrize("incoming,nodes,existing,want", SINGLE_CONSTRAINT_CASES)
def test_single_constraint(incoming: Pod, nodes: list[Node], existing: list[Pod], want: dict[str, str | None]) -> None:
    assert run_filter(incoming, nodes, existing) == want


MULTIPLE_CONSTRAINTS_CASES = [
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO)),
        FOUR_NODES,
        PODS_2_1_0_3,
        codes(U, U, S, U),
        id="two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO)),
        FOUR_NODES,
        PODS_2_1_0_3 + [P("p-y4", "node-y", foo="")],
        codes(U, U, U, U),
        id="two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
    ),
    pytest.param(
        IN({"foo": "", "bar": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, BAR)),
        FOUR_NODES,
        [P("p-a1", "node-a", foo=""), P("p-y1", "node-y", bar="")],
        codes(U, U, S, U),
        id="Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
    ),
    pytest.param(
        IN({"foo": "", "bar": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, BAR)),
        FOUR_NODES,
        [P("p-a1", "node-a", foo=""), P("p-x1", "node-x", bar=""), P("p-y1", "node-y", bar="")],
        codes(U, U, U, U),
        id="Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
    ),
    pytest.param(
        IN({"foo": "", "bar": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, BAR)),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo=""),
            P("p-a2", "node-a", foo="", bar=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", foo="", bar=""),
            P("p-y3", "node-y", foo=""),
        ],
        codes(U, S, U, U),
        id="Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
    ),
    pytest.param(
        IN({"bar": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, BAR)),
        FOUR_NODES,
        [P("p-a1", "node-a", foo=""), P("p-x1", "node-x", bar=""), P("p-y1", "node-y", bar="")],
        codes(S, S, U, U),
        id="Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO)),
        [ZN("node-a", "zone1"), ZN("node-b", "zone1"), N("node-x", zone="zone2"), ZN("node-y", "zone2")],
        [P("p-a1", "node-a", foo=""), P("p-y3", "node-y", foo="")],
        codes(U, S, UU, U),
        id="two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO, None, IGNORE), node_selector_={"foo": ""}),
        [
            ZN("node-a", "zone1", foo=""),
            ZN("node-b", "zone1", foo=""),
            ZN("node-x", "zone2", foo=""),
            ZN("node-y", "zone2"),
        ],
        [P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, U),
        id="two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO, None, None, HONOR), SC(1, "node", DNS, FOO)),
        [
            ZN("node-a", "zone1", foo=""),
            ZN("node-b", "zone1", foo=""),
            ZN("node-x", "zone2", foo=""),
            N("node-y", TAINTS, zone="zone2", node="node-y"),
        ],
        [P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, U),
        id="two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
    ),
    pytest.param(
        IN({"foo": ""}, SC(1, "zone", DNS, FOO), SC(1, "node", DNS, FOO), node_selector_={"foo": ""}),
        [
            ZN("node-a", "zone1", foo=""),
            ZN("node-b", "zone1"),
            ZN("node-x", "zone2", foo=""),
            N("node-y", TAINTS, zone="zone2", node="node-y", foo=""),
        ],
        [P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, S, S, U),
        id="two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
    ),
    pytest.param(
        IN(
            {"foo": ""},
            SC(1, "zone", DNS, FOO, None, None, HONOR),
            SC(1, "node", DNS, FOO, None, IGNORE),
            node_selector_={"foo": ""},
        ),
        [
            ZN("node-a", "zone1", foo=""),
            ZN("node-b", "zone1"),
            ZN("node-x", "zone2", foo=""),
            N("node-y", TAINTS, zone="zone2", node="node-y", foo=""),
        ],
        [P("p-a1", "node-a", foo=""), P("p-b1", "node-b", foo=""), P("p-y1", "node-y", foo="")],
        codes(U, U, S, U),
        id="two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
    ),
    pytest.param(
        IN({"foo": "", "bar": ""}, SC(1, "zone", DNS, BAR), SC(1, "zone", DNS, FOO)),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo="", bar=""),
            P("p-a2", "node-a", foo=""),
            P("p-b1", "node-b", foo="", bar=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", foo="", bar=""),
            P("p-y3", "node-y", foo=""),
        ],
        codes(U, U, S, S),
        id="two Constraints on zone, spreads = [3/3, 2/1]",
    ),
    pytest.param(
        IN({"foo": "", "bar": ""}, SC(1, "zone", DNS, BAR), SC(1, "zone", DNS, FOO)),
        FOUR_NODES,
        [
            P("p-a1", "node-a", foo="", bar=""),
            P("p-a2", "node-a", foo=""),
            P("p-b1", "node-b", foo="", bar=""),
            P("p-y1", "node-y", foo=""),
            P("p-y2", "node-y", foo="", bar=""),
            P("p-y3", "node-y", foo=""),
            P("p-y4", "node-y", foo=""),
        ],
        codes(U, U, U, U),
        id="two Constraints on zone, spreads = [3/4, 2/1]",
    ),
]


@pytest.mark.parametrize("incoming,nodes,existing,want", MULTIPLE_CONSTRAINTS_CASES)
def test_multiple_constraints(
    incoming: Pod, nodes: list[Node], existing: list[Pod], want: dict[str, str | None]
) -> None:
    assert run_filter(incoming, nodes, existing) == want


# --------------------------------------------------------------------------- planner's own checks
# Not transcriptions: reason strings, explain helpers and the v1.34/v1.35 behaviours the upstream
# tables do not pin down, each with its upstream evidence in planner/scheduler/plugins/podtopologyspread/filtering.py.


def test_reasons_and_codes() -> None:
    incoming = IN({"foo": ""}, SC(1, "zone", DNS, FOO))
    cl = cluster(
        [ZN("node-a", "zone1"), N("node-b", node="node-b"), ZN("node-x", "zone2")], [P("p-a1", "node-a", foo="")]
    )
    state, _ = pts.pre_filter(incoming, cl)
    assert isinstance(state, pts.PreFilterState)
    a, b, x = (pts.filter(state, incoming, ni) for ni in cl.node_infos)
    assert a is not None and a.plugin == "PodTopologySpread" and a.code == UNSCHEDULABLE
    assert a.reasons == ("node(s) didn't match pod topology spread constraints",)
    assert b is not None and b.code == UNRESOLVABLE
    assert b.reasons == ("node(s) didn't match pod topology spread constraints (missing required label)",)
    assert x is None


def test_schedule_anyway_only_and_system_defaults_skip() -> None:
    """Soft constraints and the (soft) system default constraints never reach the filter."""
    assert all(c.when_unsatisfiable == "ScheduleAnyway" for c in pts.SYSTEM_DEFAULT_CONSTRAINTS)
    cl = cluster(FOUR_NODES)
    assert pts.pre_filter(IN({"foo": ""}, SC(1, "zone", SA, FOO)), cl) == (SKIP, None)
    assert pts.pre_filter(IN({"foo": ""}), cl) == (SKIP, None)


def test_empty_selector_counts_nothing_but_self_matches() -> None:
    """countPodsMatchSelector's ``selector.Empty()`` short-circuit (v1.27 - v1.35, #141339)."""
    incoming = IN({"foo": ""}, SC(1, "zone", DNS, LabelSelector()))
    existing = [P("p-a1", "node-a", foo=""), P("p-a2", "node-a", foo=""), P("p-a3", "node-a", foo="")]
    state, _ = pts.pre_filter(incoming, cluster(FOUR_NODES, existing))
    assert isinstance(state, pts.PreFilterState)
    c = state.constraints[0]
    assert c.counts == {"zone1": 0, "zone2": 0} and c.self_match == 1
    assert run_filter(incoming, FOUR_NODES, existing) == codes()


def test_min_domains_global_min_and_skew_if_placed() -> None:
    incoming = IN({"foo": ""}, SC(1, "zone", DNS, FOO, 3))
    existing = [P("p-a1", "node-a", foo=""), P("p-x1", "node-x", foo=""), P("p-x2", "node-x", foo="")]
    cl = cluster(FOUR_NODES + [N("node-z")], existing)
    state, _ = pts.pre_filter(incoming, cl)
    assert isinstance(state, pts.PreFilterState)
    c = state.constraints[0]
    assert c.eligible_domains == ["zone1", "zone2"]
    assert (c.min_match, c.global_min) == (1, 0)  # 2 eligible domains < minDomains 3
    by_name = {ni.name: ni.node for ni in cl.node_infos}
    assert [s for _, s in pts.skew_if_placed(state, by_name["node-a"])] == [2]
    assert [s for _, s in pts.skew_if_placed(state, by_name["node-x"])] == [3]
    assert [s for _, s in pts.skew_if_placed(state, by_name["node-z"])] == [None]


def test_match_label_keys_applied_once_on_api_server_merged_selector() -> None:
    """A selector the API server already merged (key In (value)) gives the same counts."""
    existing = [
        P("p-a1", "node-a", app="x", rev="1"),
        P("p-a2", "node-a", app="x", rev="2"),
        P("p-y1", "node-y", app="x", rev="1"),
    ]
    raw = SC(1, "zone", DNS, sel({"app": "x"}), match_label_keys=["rev"])
    merged = SC(1, "zone", DNS, sel({"app": "x"}, ("rev", "In", ["1"])), match_label_keys=["rev"])
    got = []
    for c in (raw, merged):
        state, _ = pts.pre_filter(IN({"app": "x", "rev": "1"}, c), cluster(FOUR_NODES, existing))
        assert isinstance(state, pts.PreFilterState)
        got.append(state.constraints[0].counts)
    assert got[0] == got[1] == {"zone1": 1, "zone2": 1}
