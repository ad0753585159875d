"""InterPodAffinity filter: upstream's table tests, transcribed case by case.

Source: kubernetes/kubernetes pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go
(TestRequiredAffinitySingleNode with its namespaceSelector cases, TestRequiredAffinityMultipleNodes,
TestGetTPMapMatchingIncomingAffinityAntiAffinity); each pytest id is the upstream case name.  The
namespaces of the namespaceSelector cases are scoring_test.go's ``namespaces`` fixture.  Left out:
* "PodAffinity fails PreFilter with an invalid affinity label syntax" and "PodAntiAffinity fails
  PreFilter with an invalid antiaffinity label syntax": label-value validation of selectors is the
  loader's business, the domain model holds valid selectors only;
* TestPreFilterStateAddRemovePod: the AddPod/RemovePod PreFilter extensions (preemption) are not
  modelled;
* TestPreFilterDisabled, TestPreFilterStateClone: framework plumbing.

st.MakePod() pods live in namespace "" upstream; here they live in "default" (same namespace for
every pod of a case unless the case names another).
"""

from __future__ import annotations

import pytest

from planner.domain import Affinity, LabelSelector, LabelSelectorRequirement, Node, Pod, PodAffinityTerm
from planner.engines.audit import selectors
from planner.scheduler.framework import SKIP, UNRESOLVABLE, UNSCHEDULABLE
from planner.scheduler.plugins.interpodaffinity import filtering as ipa
from planner.scheduler.plugins.interpodaffinity.filtering import effective_selector
from tests.builders import cluster, node, pod, sel, term

AFF = (UNRESOLVABLE, ipa.ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI = (UNSCHEDULABLE, ipa.ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXIST = (UNSCHEDULABLE, ipa.ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
OK = None

# scoring_test.go: var namespaces
NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


def N(name: str, **labels: str) -> Node:
    return node(name, labels, hostname_label=False)


def in_(key: str, topology: str, values: list[str]) -> PodAffinityTerm:
    """st.PodWrapper.PodAffinityIn / PodAntiAffinityIn."""
    return term(sel(None, (key, "In", values)), topology)


def not_in(key: str, topology: str, values: list[str]) -> PodAffinityTerm:
    """st.PodWrapper.PodAffinityNotIn / PodAntiAffinityNotIn."""
    return term(sel(None, (key, "NotIn", values)), topology)


def exists(key: str, topology: str) -> PodAffinityTerm:
    """st.PodWrapper.PodAffinityExists / PodAntiAffinityExists."""
    return term(sel(None, (key, "Exists", [])), topology)


def P(
    name: str = "p",
    labels: dict[str, str] | None = None,
    *,
    node_name: str = "",
    ns: str = "default",
    affinity: list[PodAffinityTerm] | tuple[PodAffinityTerm, ...] = (),
    anti: list[PodAffinityTerm] | tuple[PodAffinityTerm, ...] = (),
    terminating: bool = False,
) -> Pod:
    aff = (
        Affinity(pod_affinity_required=tuple(affinity), pod_anti_affinity_required=tuple(anti))
        if affinity or anti
        else None
    )
    return pod(name, labels, node_name=node_name, namespace=ns, affinity=aff, terminating=terminating)


def run(incoming: Pod, nodes: list[Node], existing: list[Pod], namespaces=None):
    """(PreFilter result, {node: (code, reason) or None}); None for the nodes on Skip."""
    cl = cluster(nodes, existing, namespaces=namespaces)
    state, status = ipa.pre_filter(incoming, cl)
    assert status is None
    if state is SKIP:
        return SKIP, None
    assert isinstance(state, ipa.PreFilterState)
    out = {}
    for ni in cl.node_infos:
        st = ipa.filter(state, incoming, ni)
        out[ni.name] = None if st is None else (st.code, st.reasons[0])
        if st is not None:
            assert st.plugin == "InterPodAffinity" and len(st.reasons) == 1
    return state, out


# --------------------------------------------------------------------------- TestRequiredAffinitySingleNode

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = N("node1", region="r1", zone="z11")
EXISTING = P("existing", POD_LABEL, node_name="node1")  # st.MakePod().Labels(podLabel).Node("node1")

# (incoming pod, existing pods, want); want is SKIP for a PreFilter Skip, else node1's status.
SINGLE_NODE_CASES = [
    pytest.param(
        P(),
        [],
        SKIP,
        id="A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
    ),
    pytest.param(
        P(labels=POD_LABEL2, affinity=[in_("service", "region", ["securityscan", "value2"])]),
        [EXISTING],
        OK,
        id="satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
    ),
    pytest.param(
        P(labels=POD_LABEL2, affinity=[not_in("service", "region", ["securityscan3", "value3"])]),
        [EXISTING],
        OK,
        id="satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            affinity=[term(sel(None, ("service", "In", ["securityscan", "value2"])), "", ["DiffNameSpace"])],
        ),
        [P("e", {"service": "securityscan"}, node_name="node1", ns="ns")],
        AFF,
        id="Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
    ),
    pytest.param(
        P(labels=POD_LABEL, affinity=[in_("service", "", ["antivirusscan", "value2"])]),
        [EXISTING],
        AFF,
        id="Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            affinity=[
                term(sel(None, ("service", "Exists", []), ("wrongkey", "DoesNotExist", [])), "region"),
                term(sel(None, ("service", "In", ["securityscan"]), ("service", "NotIn", ["WrongValue"])), "region"),
            ],
        ),
        [EXISTING],
        OK,
        id="satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            affinity=[
                term(sel(None, ("service", "Exists", []), ("wrongkey", "DoesNotExist", [])), "region"),
                term(sel(None, ("service", "In", ["securityscan2"]), ("service", "NotIn", ["WrongValue"])), "region"),
            ],
        ),
        [EXISTING],
        AFF,
        id="The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            affinity=[in_("service", "region", ["securityscan", "value2"])],
            anti=[in_("service", "node", ["antivirusscan", "value2"])],
        ),
        [EXISTING],
        OK,
        id="satisfies the PodAffinity and PodAntiAffinity with the existing pod",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            affinity=[in_("service", "region", ["securityscan", "value2"])],
            anti=[in_("service", "node", ["antivirusscan", "value2"])],
        ),
        [P("e", POD_LABEL, node_name="node1", anti=[in_("service", "node", ["antivirusscan", "value2"])])],
        OK,
        id="satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            affinity=[in_("service", "region", ["securityscan", "value2"])],
            anti=[in_("service", "zone", ["securityscan", "value2"])],
        ),
        [EXISTING],
        ANTI,
        id="satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
    ),
    pytest.param(
        P(
            labels=POD_LABEL,
            affinity=[in_("service", "region", ["securityscan", "value2"])],
            anti=[in_("service", "node", ["antivirusscan", "value2"])],
        ),
        [P("e", POD_LABEL, node_name="node1", anti=[in_("service", "zone", ["securityscan", "value2"])])],
        EXIST,
        id="satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
    ),
    pytest.param(
        # The existing pod runs on node2, which is not in the snapshot.
        P(labels=POD_LABEL, affinity=[not_in("service", "region", ["securityscan", "value2"])]),
        [P("e", {"service": "securityscan"}, node_name="node2")],
        AFF,
        id="pod matches its own Label in PodAffinity and that matches the existing pod Labels",
    ),
    pytest.param(
        P(labels=POD_LABEL),
        [P("e", POD_LABEL, node_name="node1", anti=[in_("service", "zone", ["securityscan", "value2"])])],
        EXIST,
        id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
    ),
    pytest.param(
        P(labels=POD_LABEL),
        [P("e", POD_LABEL, node_name="node1", anti=[not_in("service", "zone", ["securityscan", "value2"])])],
        SKIP,
        id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
    ),
    pytest.param(
        P(labels=POD_LABEL, anti=[exists("service", "region"), exists("security", "region")]),
        [P("e", POD_LABEL2, node_name="node1", anti=[exists("security", "zone")])],
        ANTI,
        id="satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
    ),
    pytest.param(
        P(labels=POD_LABEL, anti=[exists("service", "zone"), exists("security", "zone")]),
        [P("e", POD_LABEL2, node_name="node1", anti=[exists("security", "zone")])],
        ANTI,
        id="PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
    ),
    pytest.param(
        P(labels=POD_LABEL2, anti=[exists("security", "zone")]),
        [P("e", POD_LABEL, node_name="node1", anti=[exists("service", "zone"), exists("security", "zone")])],
        EXIST,
        id="PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
    ),
    pytest.param(
        P(labels={"abc": "", "xyz": ""}, anti=[exists("abc", "zone"), exists("def", "zone")]),
        [P("e", {"def": "", "xyz": ""}, node_name="node1", anti=[exists("abc", "zone"), exists("def", "zone")])],
        ANTI,
        id="PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
    ),
    pytest.param(
        P(labels={"def": "", "xyz": ""}, anti=[exists("abc", "zone"), exists("def", "zone")]),
        [P("e", {"abc": "", "xyz": ""}, node_name="node1", anti=[exists("abc", "zone"), exists("def", "zone")])],
        ANTI,
        id="PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
    ),
    # "PodAffinity fails PreFilter with an invalid affinity label syntax" and "PodAntiAffinity fails
    # PreFilter with an invalid antiaffinity label syntax": left out (label validation, see above).
    pytest.param(
        P(
            labels=POD_LABEL2,
            affinity=[
                term(
                    sel(None, ("service", "In", ["securityscan", "value2"])),
                    "region",
                    ns_selector=sel(None, ("team", "In", ["team1"])),
                )
            ],
        ),
        [P("e", POD_LABEL, node_name="node1", ns="subteam1.team1")],
        OK,
        id="affinity with NamespaceSelector",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            affinity=[
                term(
                    sel(None, ("service", "In", ["securityscan", "value2"])),
                    "region",
                    ns_selector=sel(None, ("team", "In", ["team1"])),
                )
            ],
        ),
        [P("e", POD_LABEL, node_name="node1", ns="subteam1.team2")],
        AFF,
        id="affinity with non-matching NamespaceSelector",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            ns="subteam1.team1",
            anti=[
                term(
                    sel(None, ("service", "In", ["securityscan", "value2"])),
                    "zone",
                    ns_selector=sel(None, ("team", "In", ["team1"])),
                )
            ],
        ),
        [P("e", POD_LABEL, node_name="node1", ns="subteam2.team1")],
        ANTI,
        id="anti-affinity with matching NamespaceSelector",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            ns="subteam1.team1",
            anti=[term(sel(None, ("service", "In", ["securityscan", "value2"])), "zone", ns_selector=LabelSelector())],
        ),
        [P("e", POD_LABEL, node_name="node1", ns="subteam2.team1")],
        ANTI,
        id="anti-affinity with matching all NamespaceSelector",
    ),
    pytest.param(
        P(
            labels=POD_LABEL2,
            ns="subteam1.team1",
            anti=[
                term(
                    sel(None, ("service", "In", ["securityscan", "value2"])),
                    "zone",
                    ns_selector=sel(None, ("team", "In", ["team1"])),
                )
            ],
        ),
        [P("e", POD_LABEL, node_name="node1", ns="subteam1.team2")],
        OK,
        id="anti-affinity with non-matching NamespaceSelector",
    ),
]


@pytest.mark.parametrize("incoming,existing,want", SINGLE_NODE_CASES)
def test_required_affinity_single_node(incoming: Pod, existing: list[Pod], want) -> None:
    state, statuses = run(incoming, [NODE1], existing, namespaces=NAMESPACES)
    if want is SKIP:
        assert state is SKIP
        return
    assert statuses == {"node1": want}


# --------------------------------------------------------------------------- TestRequiredAffinityMultipleNodes

RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}


def ABC(r: str = "r1", za: str = "z1", zb: str = "z2") -> list[Node]:
    """nodeA / nodeB labelled region, zone, hostname."""
    return [N("nodeA", region=r, zone=za, hostname="nodeA"), N("nodeB", region=r, zone=zb, hostname="nodeB")]


# (incoming pod, existing pods, nodes, want); want is SKIP or one status per node, in order.
MULTIPLE_NODES_CASES = [
    pytest.param(
        P(affinity=[in_("foo", "region", ["bar"])]),
        [P("p1", {"foo": "bar"}, node_name="node1")],
        [N("node1", **RG_CHINA), N("node2", **RG_CHINA_AZ1), N("node3", **RG_INDIA)],
        [OK, OK, AFF],
        id="A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
    ),
    pytest.param(
        P(
            labels={"foo": "bar", "service": "securityscan"},
            affinity=[in_("foo", "zone", ["bar"]), in_("service", "zone", ["securityscan"])],
        ),
        [P("p1", {"foo": "bar"}, node_name="nodeA")],
        [N("nodeA", zone="az1", hostname="h1"), N("nodeB", zone="az2", hostname="h2")],
        [OK, OK],
        id="The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection "
        "should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
    ),
    pytest.param(
        P(
            labels={"foo": "bar", "service": "securityscan"},
            affinity=[in_("foo", "zone", ["bar"]), in_("service", "zone", ["securityscan"])],
        ),
        [P("p1", {"foo": "bar"}, node_name="nodeA")],
        [N("nodeA", zoneLabel="az1", hostname="h1"), N("nodeB", zoneLabel="az2", hostname="h2")],
        [AFF, AFF],
        id="The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
    ),
    pytest.param(
        P(anti=[in_("foo", "region", ["abc"])]),
        [P("e", {"foo": "abc"}, node_name="nodeA")],
        [N("nodeA", region="r1", hostname="nodeA"), N("nodeB", region="r1", hostname="nodeB")],
        [ANTI, ANTI],
        id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
    ),
    pytest.param(
        P(anti=[in_("foo", "region", ["abc"]), in_("service", "zone", ["securityscan"])]),
        [P("e", {"foo": "abc", "service": "securityscan"}, node_name="nodeA")],
        ABC(),
        [ANTI, ANTI],
        id="This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
    ),
    pytest.param(
        P(anti=[in_("foo", "region", ["abc"])]),
        [P("e", {"foo": "abc"}, node_name="nodeA")],
        [N("nodeA", **RG_CHINA), N("nodeB", **RG_CHINA_AZ1), N("nodeC", **RG_INDIA)],
        [ANTI, ANTI, OK],
        id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
    ),
    pytest.param(
        P(labels={"foo": "123"}, ns="NS1", anti=[in_("foo", "region", ["bar"])]),
        [
            P("e1", {"foo": "bar"}, node_name="nodeA", ns="NS1"),
            P("e2", node_name="nodeC", ns="NS2", anti=[in_("foo", "region", ["123"])]),
        ],
        [N("nodeA", **RG_CHINA), N("nodeB", **RG_CHINA_AZ1), N("nodeC", **RG_INDIA)],
        [ANTI, ANTI, OK],
        id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
    ),
    pytest.param(
        P(labels={"foo": ""}),
        [P("e", node_name="nodeA", anti=[exists("foo", "invalid-node-label")])],
        ABC(za="z1", zb="z1"),
        SKIP,
        id="Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
    ),
    pytest.param(
        P(node_name="nodeA", anti=[exists("foo", "invalid-node-label")]),
        [P("e", {"foo": ""}, node_name="nodeA")],
        ABC(za="z1", zb="z1"),
        [OK, OK],
        id="Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
    ),
    pytest.param(
        P(labels={"foo": "", "bar": ""}),
        [
            P("e1", node_name="nodeA", anti=[exists("foo", "zone")]),
            P("e2", node_name="nodeA", anti=[exists("bar", "region")]),
        ],
        ABC(),
        [EXIST, EXIST],
        id="Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
    ),
    pytest.param(
        P(anti=[exists("foo", "zone"), exists("bar", "region")]),
        [P("e1", {"foo": ""}, node_name="nodeA"), P("e2", {"bar": ""}, node_name="nodeB")],
        ABC(),
        [ANTI, ANTI],
        id="Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
    ),
    pytest.param(
        P(labels={"foo": "", "bar": ""}),
        [P("e", node_name="nodeA", anti=[exists("foo", "invalid-node-label"), exists("bar", "zone")])],
        ABC(),
        [EXIST, OK],
        id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
    ),
    pytest.param(
        P(anti=[exists("foo", "invalid-node-label"), exists("bar", "zone")]),
        [P("podA", {"foo": "", "bar": ""}, node_name="nodeA")],
        ABC(),
        [ANTI, OK],
        id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
    ),
    pytest.param(
        P(labels={"foo": "", "bar": ""}),
        [P("e", node_name="nodeA", anti=[exists("foo", "region"), exists("bar", "zone")])],
        ABC(),
        [EXIST, EXIST],
        id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
    ),
    pytest.param(
        P(anti=[exists("foo", "region"), exists("bar", "zone")]),
        [P("e", {"foo": "", "bar": ""}, node_name="nodeA")],
        ABC(),
        [ANTI, ANTI],
        id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
    ),
    pytest.param(
        P(labels={"foo": "", "bar": ""}),
        [
            P("e1", node_name="nodeA", anti=[exists("foo", "zone"), exists("labelA", "zone")]),
            P("e2", node_name="nodeB", anti=[exists("bar", "zone"), exists("labelB", "zone")]),
        ],
        ABC() + [N("nodeC", region="r1", zone="z3", hostname="nodeC")],
        [EXIST, EXIST, OK],
        id="Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
    ),
    pytest.param(
        P(affinity=[exists("foo", "region"), exists("bar", "zone")]),
        [P("pod1", {"foo": "", "bar": ""}, node_name="nodeA")],
        ABC(za="z1", zb="z1"),
        [OK, OK],
        id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
    ),
    pytest.param(
        P(affinity=[exists("foo", "region"), exists("bar", "zone")]),
        [P("pod1", {"foo": ""}, node_name="nodeA"), P("pod2", {"bar": ""}, node_name="nodeB")],
        ABC(),
        [AFF, AFF],
        id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
    ),
]


@pytest.mark.parametrize("incoming,existing,nodes,want", MULTIPLE_NODES_CASES)
def test_required_affinity_multiple_nodes(incoming: Pod, existing: list[Pod], nodes: list[Node], want) -> None:
    # Upstream registers Namespace NS1 only.
    state, statuses = run(incoming, nodes, existing, namespaces={"NS1": {}})
    if want is SKIP:
        assert state is SKIP
        return
    assert statuses == {n.name: w for n, w in zip(nodes, want, strict=True)}


# --------------------------------------------------------------------------- TestGetTPMapMatchingIncomingAffinityAntiAffinity

NODE_A = N("nodeA", hostname="nodeA")


def normal(*labels: str) -> Pod:
    return P("normal", dict.fromkeys(labels, ""), node_name="nodeA")


# (existing pods, incoming pod, want affinity counts, want anti-affinity counts)
TP_MAP_CASES = [
    pytest.param([], P("aaa-normal"), {}, {}, id="nil test"),
    pytest.param(
        [normal("aaa")], P("aaa-normal"), {}, {}, id="incoming pod without affinity/anti-affinity causes a no-op"
    ),
    pytest.param(
        [normal("bbb")],
        P("aaa-anti", affinity=[exists("aaa", "hostname")], anti=[exists("aaa", "hostname")]),
        {},
        {},
        id="no pod has label that violates incoming pod's affinity and anti-affinity",
    ),
    pytest.param(
        [normal("aaa")],
        P("affi-antiaffi", affinity=[exists("aaa", "hostname")], anti=[exists("aaa", "hostname")]),
        {("hostname", "nodeA"): 1},
        {("hostname", "nodeA"): 1},
        id="existing pod matches incoming pod's affinity and anti-affinity - single term case",
    ),
    pytest.param(
        [normal("aaa", "bbb")],
        P(
            "affi-antiaffi",
            affinity=[exists("aaa", "hostname"), exists("bbb", "hostname")],
            anti=[exists("aaa", "hostname")],
        ),
        {("hostname", "nodeA"): 2},  # one for each term
        {("hostname", "nodeA"): 1},
        id="existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
    ),
    pytest.param(
        [normal("aaa")],
        P(
            "affi-antiaffi",
            affinity=[exists("aaa", "hostname"), exists("bbb", "hostname")],
            anti=[exists("aaa", "hostname"), exists("bbb", "hostname")],
        ),
        {},
        {("hostname", "nodeA"): 1},
        id="existing pod not match incoming pod's affinity but matches anti-affinity",
    ),
    pytest.param(
        [normal("aaa", "bbb")],
        P(
            "anaffi-antiaffiti",
            affinity=[exists("aaa", "hostname"), exists("ccc", "hostname")],
            anti=[exists("aaa", "hostname"), exists("ccc", "hostname")],
        ),
        {},
        {("hostname", "nodeA"): 1},
        id="incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 1",
    ),
    pytest.param(
        [normal("bbb")],
        P(
            "affi-antiaffi",
            affinity=[exists("aaa", "hostname"), exists("bbb", "hostname")],
            anti=[exists("aaa", "hostname"), exists("bbb", "hostname")],
        ),
        {},
        {("hostname", "nodeA"): 1},
        id="incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 2",
    ),
]


@pytest.mark.parametrize("existing,incoming,want_aff,want_anti", TP_MAP_CASES)
def test_get_tp_map_matching_incoming_affinity_anti_affinity(existing, incoming, want_aff, want_anti) -> None:
    state, _ = ipa.pre_filter(incoming, cluster([NODE_A], existing))
    if state is SKIP:  # no terms: upstream returns the two empty maps
        assert want_aff == want_anti == {}
        return
    assert isinstance(state, ipa.PreFilterState)
    assert state.affinity_counts == want_aff
    assert state.anti_affinity_counts == want_anti


# --------------------------------------------------------------------------- planner's own checks
# Not transcriptions: the v1.34/v1.35 semantics the upstream tables do not pin down, with their
# upstream evidence in planner/scheduler/plugins/interpodaffinity/filtering.py.


def test_terminating_pods_count_for_affinity_and_anti_affinity() -> None:
    nodes = ABC()
    existing = [P("t", {"app": "db"}, node_name="nodeA", terminating=True)]
    _, statuses = run(P(affinity=[in_("app", "zone", ["db"])]), nodes, existing)
    assert statuses == {"nodeA": OK, "nodeB": AFF}
    _, statuses = run(P(anti=[in_("app", "zone", ["db"])]), nodes, existing)
    assert statuses == {"nodeA": ANTI, "nodeB": OK}
    _, statuses = run(
        P(labels={"app": "web"}),
        nodes,
        [P("t", node_name="nodeA", terminating=True, anti=[in_("app", "zone", ["web"])])],
    )
    assert statuses == {"nodeA": EXIST, "nodeB": OK}


def test_first_pod_rule_needs_no_match_anywhere() -> None:
    """affinity_counts must be empty: a matching pod elsewhere blocks the first-pod exception."""
    nodes = ABC()
    incoming = P(labels={"app": "x"}, affinity=[in_("app", "zone", ["x"])])
    _, statuses = run(incoming, nodes, [])
    assert statuses == {"nodeA": OK, "nodeB": OK}
    _, statuses = run(incoming, nodes, [P("e", {"app": "x"}, node_name="nodeB")])
    assert statuses == {"nodeA": AFF, "nodeB": OK}
    # A matching pod on a node without the term's key adds no count: the exception holds.
    nodes_c = nodes + [N("nodeC", region="r1")]
    _, statuses = run(incoming, nodes_c, [P("e", {"app": "x"}, node_name="nodeC")])
    assert statuses == {"nodeA": OK, "nodeB": OK, "nodeC": AFF}
    # The pod must match its own terms, namespace included.
    other_ns = P(labels={"app": "x"}, affinity=[term(sel({"app": "x"}), "zone", ["elsewhere"])])
    _, statuses = run(other_ns, nodes, [])
    assert statuses == {"nodeA": AFF, "nodeB": AFF}


def test_match_label_keys_and_mismatch_label_keys() -> None:
    """applyMatchLabelKeysAndMismatchLabelKeys with the term owner's labels."""
    nodes = ABC()
    existing = [
        P("old", {"app": "x", "rev": "1"}, node_name="nodeA"),
        P("new", {"app": "x", "rev": "2"}, node_name="nodeB"),
    ]
    by_rev = term(sel({"app": "x"}), "zone", match_label_keys=("rev",))
    _, statuses = run(P(labels={"app": "x", "rev": "2"}, affinity=[by_rev]), nodes, existing)
    assert statuses == {"nodeA": AFF, "nodeB": OK}
    other_rev = term(sel({"app": "x"}), "zone", mismatch_label_keys=("rev",))
    _, statuses = run(P(labels={"app": "x", "rev": "2"}, anti=[other_rev]), nodes, existing)
    assert statuses == {"nodeA": ANTI, "nodeB": OK}
    # An existing pod's term is merged with the existing pod's labels.
    owner = P("owner", {"app": "x", "rev": "1"}, node_name="nodeA", anti=[by_rev])
    assert run(P(labels={"app": "x", "rev": "2"}), nodes, [owner])[0] is SKIP
    _, statuses = run(P(labels={"app": "x", "rev": "1"}), nodes, [owner])
    assert statuses == {"nodeA": EXIST, "nodeB": OK}
    # A null labelSelector stays null: the keys add nothing.
    assert ipa.effective_selector(term(None, "zone", match_label_keys=("rev",)), {"rev": "1"}) is None
    # Applying the keys to an API-server-merged selector changes nothing.
    merged = term(sel({"app": "x"}, ("rev", "In", ["2"])), "zone", match_label_keys=("rev",))
    _, statuses = run(P(labels={"app": "x", "rev": "2"}, affinity=[merged]), nodes, existing)
    assert statuses == {"nodeA": AFF, "nodeB": OK}


def test_namespaces_defaults_and_null_namespace_selector() -> None:
    nodes = ABC()
    existing = [P("e", {"app": "db"}, node_name="nodeA", ns="other")]
    # empty namespaces + null selector: the pod's own namespace only
    _, statuses = run(P(anti=[in_("app", "zone", ["db"])]), nodes, existing)
    assert statuses == {"nodeA": OK, "nodeB": OK}
    # namespaces listed, null selector: only those
    _, statuses = run(P(anti=[term(sel({"app": "db"}), "zone", ["other"])]), nodes, existing)
    assert statuses == {"nodeA": ANTI, "nodeB": OK}
    # selector on the metadata.name label of a namespace with no Namespace object in the snapshot
    by_name = term(sel({"app": "db"}), "zone", ns_selector=sel({"kubernetes.io/metadata.name": "other"}))
    _, statuses = run(P(anti=[by_name]), nodes, existing)
    assert statuses == {"nodeA": ANTI, "nodeB": OK}


def test_repeated_match_label_keys_merge_once():
    """A key listed twice in matchLabelKeys adds one requirement (the plugin's own copy added it
    twice; the audit's and PodTopologySpread's copies once).  Same pods matched either way."""
    t = term(sel({"app": "web"}), "kubernetes.io/hostname", match_label_keys=("release", "release"))
    got = effective_selector(t, {"app": "web", "release": "r1"})
    assert got is not None
    assert got.match_expressions == (LabelSelectorRequirement("release", "In", ("r1",)),)
    assert selectors.term_selector(t, {"app": "web", "release": "r1"}) == got
