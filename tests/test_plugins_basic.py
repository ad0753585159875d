"""Upstream table tests of the basic filter plugins, transcribed case by case.

Sources (kubernetes/kubernetes, pkg/scheduler/framework/plugins/, v1.34/v1.35):
* nodeunschedulable/node_unschedulable_test.go  TestNodeUnschedulable
* nodename/node_name_test.go                    TestNodeName
* tainttoleration/taint_toleration_test.go      TestTaintTolerationFilter
* nodeaffinity/node_affinity_test.go            TestNodeAffinity
* nodeports/node_ports_test.go                  TestNodePorts
* noderesources/fit_test.go                     TestEnoughRequests, TestNotEnoughRequests,
                                                TestStorageRequests, TestRestartableInitContainers

Each pytest id is the upstream case name.  Pods carry their effective requests (what the loader
computes from containers, init/sidecar containers, pod-level resources and overhead); the comment
on a case shows how upstream's containers add up when that is not obvious.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import pytest

from planner.domain import (
    Affinity,
    HostPort,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodSpec,
    Taint,
    Toleration,
)
from planner.matching import terms_match
from planner.scheduler.framework import SKIP, UNRESOLVABLE, UNSCHEDULABLE, ClusterState, NodeInfo, Status
from planner.scheduler.plugins.nodeaffinity import filtering as nodeaffinity
from planner.scheduler.plugins.nodename import filtering as nodename
from planner.scheduler.plugins.nodeports import filtering as nodeports
from planner.scheduler.plugins.noderesources import fit as noderesourcesfit
from planner.scheduler.plugins.nodeunschedulable import filtering as nodeunschedulable
from planner.scheduler.plugins.tainttoleration import filtering as tainttoleration

# --------------------------------------------------------------------------- helpers


def mk_node(
    name: str = "",
    labels: Mapping[str, str] | None = None,
    *,
    taints: tuple[Taint, ...] = (),
    unschedulable: bool = False,
    allocatable: Mapping[str, int] | None = None,
) -> Node:
    return Node(name=name, labels=dict(labels or {}), taints=taints, unschedulable=unschedulable, allocatable=dict(allocatable or {}))


def mk_pod(name: str = "p", **spec: object) -> Pod:
    return Pod(namespace="default", name=name, labels={}, spec=PodSpec(**spec))  # type: ignore[arg-type]


def run(mod, pod: Pod, ni: NodeInfo) -> tuple[object, Status | None, Status | None]:
    """PreFilter then (unless skipped or rejected) Filter, as the framework does."""
    state, pre = mod.pre_filter(pod, ClusterState([ni]))
    if pre is not None or state is SKIP:
        return state, pre, None
    return state, pre, mod.filter(state, pod, ni)


def reasons(st: Status | None) -> tuple[str, ...] | None:
    return None if st is None else st.reasons


# --------------------------------------------------------------------------- NodeUnschedulable

UNSCHEDULABLE_TOLERATION = Toleration(key="node.kubernetes.io/unschedulable", operator="", effect="NoSchedule")


@pytest.mark.parametrize(
    "pod,node,want",
    [
        pytest.param(mk_pod(), mk_node(unschedulable=True), nodeunschedulable.ERR_REASON_UNSCHEDULABLE,
                     id="Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)"),
        pytest.param(mk_pod(), mk_node(unschedulable=False), None, id="Schedule pod to normal node"),
        pytest.param(mk_pod(tolerations=(UNSCHEDULABLE_TOLERATION,)), mk_node(unschedulable=True), None,
                     id="Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)"),
    ],
)
def test_node_unschedulable(pod: Pod, node: Node, want: str | None) -> None:
    _, pre, st = run(nodeunschedulable, pod, NodeInfo(node))
    assert pre is None
    assert reasons(st) == (None if want is None else (want,))
    if st is not None:
        assert st.code == UNRESOLVABLE and st.plugin == "NodeUnschedulable"


# --------------------------------------------------------------------------- NodeName


@pytest.mark.parametrize(
    "pod,node,want",
    [
        pytest.param(mk_pod(), mk_node(""), None, id="no host specified"),
        pytest.param(mk_pod(node_name="foo"), mk_node("foo"), None, id="host matches"),
        pytest.param(mk_pod(node_name="bar"), mk_node("foo"), nodename.ERR_REASON, id="host doesn't match"),
    ],
)
def test_node_name(pod: Pod, node: Node, want: str | None) -> None:
    _, pre, st = run(nodename, pod, NodeInfo(node))
    assert pre is None
    assert reasons(st) == (None if want is None else (want,))
    if st is not None:
        assert st.code == UNRESOLVABLE


# --------------------------------------------------------------------------- TaintToleration


def taint(key: str, value: str, effect: str) -> Taint:
    return Taint(key=key, value=value, effect=effect)


def tol(key: str = "", operator: str = "", value: str = "", effect: str = "") -> Toleration:
    return Toleration(key=key, operator=operator, value=value, effect=effect)


UNTOLERATED = tainttoleration.ERR_REASON_UNTOLERATED


@pytest.mark.parametrize(
    "tolerations,taints,want,legacy",
    [
        pytest.param((), (taint("dedicated", "user1", "NoSchedule"),), UNTOLERATED, "node(s) had untolerated taint {dedicated: user1}",
                     id="A pod having no tolerations can't be scheduled onto a node with nonempty taints"),
        pytest.param((tol("dedicated", "", "user1", "NoSchedule"),), (taint("dedicated", "user1", "NoSchedule"),), None, None,
                     id="A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule"),
        pytest.param((tol("dedicated", "Equal", "user2", "NoSchedule"),), (taint("dedicated", "user1", "NoSchedule"),),
                     UNTOLERATED, "node(s) had untolerated taint {dedicated: user1}",
                     id="A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule"),
        pytest.param((tol("foo", "Exists", "", "NoSchedule"),), (taint("foo", "bar", "NoSchedule"),), None, None,
                     id="A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node"),
        pytest.param((tol("dedicated", "Equal", "user2", "NoSchedule"), tol("foo", "Exists", "", "NoSchedule")),
                     (taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")), None, None,
                     id="A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node"),
        pytest.param((tol("foo", "Equal", "bar", "PreferNoSchedule"),), (taint("foo", "bar", "NoSchedule"),),
                     UNTOLERATED, "node(s) had untolerated taint {foo: bar}",
                     id="A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, "
                        "can't be scheduled onto the node"),
        pytest.param((tol("foo", "Equal", "bar"),), (taint("foo", "bar", "NoSchedule"),), None, None,
                     id="The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, "
                        "and the effect of taint is NoSchedule. Pod can be scheduled onto the node"),
        pytest.param((tol("dedicated", "Equal", "user2", "NoSchedule"),), (taint("dedicated", "user1", "PreferNoSchedule"),), None, None,
                     id="The pod has a toleration that key and value don't match the taint on the node, "
                        "but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node"),
        pytest.param((), (taint("dedicated", "user1", "PreferNoSchedule"),), None, None,
                     id="The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node"),
    ],
)
def test_taint_toleration_filter(tolerations: tuple[Toleration, ...], taints: tuple[Taint, ...], want: str | None, legacy: str | None) -> None:
    # Upstream's table says "node(s) had untolerated taint {k: v}" up to kubernetes#134740; since then
    # (v1.35, v1.34 patch releases) the reason is the generic one, and `legacy` is the old text.
    pod = mk_pod(tolerations=tolerations)
    node = mk_node("nodeA", taints=taints)
    state, pre, st = run(tainttoleration, pod, NodeInfo(node))
    assert pre is None
    assert reasons(st) == (None if want is None else (want,))
    if st is not None:
        assert st.code == UNRESOLVABLE
        t = tainttoleration.untolerated_taint(state, node)  # type: ignore[arg-type]
        assert t is not None
        assert tainttoleration.LEGACY_REASON_FORMAT.format(key=t.key, value=t.value) == legacy


def test_taint_toleration_tolerate_everything_skips() -> None:
    # Not an upstream case: the PreFilter shortcut for an Exists toleration with no key and no effect.
    state, pre, _ = run(tainttoleration, mk_pod(tolerations=(tol(operator="Exists"),)), NodeInfo(mk_node("n", taints=(taint("a", "b", "NoExecute"),))))
    assert state is SKIP and pre is None


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


# --------------------------------------------------------------------------- NodePorts


def ports_pod(node_name: str, *infos: str) -> Pod:
    """upstream newPod(host, "PROTOCOL/IP/PORT"...)."""
    hps = []
    for info in infos:
        proto, ip, port = info.split("/")
        hps.append(HostPort(port=int(port), protocol=proto, host_ip=ip))
    return mk_pod(node_name=node_name, host_ports=tuple(hps))


ERR_PORTS = nodeports.ERR_REASON


@pytest.mark.parametrize(
    "pod,existing,want",
    [
        pytest.param(mk_pod(), None, "skip", id="skip filter"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8080"), ports_pod("m1", "UDP/127.0.0.1/9090"), None, id="other port"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8080"), ports_pod("m1", "UDP/127.0.0.1/8080"), ERR_PORTS, id="same udp port"),
        pytest.param(ports_pod("m1", "TCP/127.0.0.1/8080"), ports_pod("m1", "TCP/127.0.0.1/8080"), ERR_PORTS, id="same tcp port"),
        pytest.param(ports_pod("m1", "TCP/127.0.0.1/8080"), ports_pod("m1", "TCP/127.0.0.2/8080"), None, id="different host ip"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8080"), ports_pod("m1", "TCP/127.0.0.1/8080"), None, id="different protocol"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), ports_pod("m1", "UDP/127.0.0.1/8080"), ERR_PORTS,
                     id="second udp port conflict"),
        pytest.param(ports_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"), ports_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"),
                     ERR_PORTS, id="first tcp port conflict"),
        pytest.param(ports_pod("m1", "TCP/0.0.0.0/8001"), ports_pod("m1", "TCP/127.0.0.1/8001"), ERR_PORTS,
                     id="first tcp port conflict due to 0.0.0.0 hostIP"),
        pytest.param(ports_pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"), ports_pod("m1", "TCP/127.0.0.1/8001"), ERR_PORTS,
                     id="TCP hostPort conflict due to 0.0.0.0 hostIP"),
        pytest.param(ports_pod("m1", "TCP/127.0.0.1/8001"), ports_pod("m1", "TCP/0.0.0.0/8001"), ERR_PORTS,
                     id="second tcp port conflict to 0.0.0.0 hostIP"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8001"), ports_pod("m1", "TCP/0.0.0.0/8001"), None, id="second different protocol"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8001"), ports_pod("m1", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"), ERR_PORTS,
                     id="UDP hostPort conflict due to 0.0.0.0 hostIP"),
    ],
)
def test_node_ports(pod: Pod, existing: Pod | None, want: str | None) -> None:
    ni = NodeInfo(mk_node("m1"), [existing] if existing is not None else [])
    state, pre, st = run(nodeports, pod, ni)
    assert pre is None
    if want == "skip":
        assert state is SKIP
        return
    assert reasons(st) == (None if want is None else (want,))
    if st is not None:
        assert st.code == UNSCHEDULABLE


# --------------------------------------------------------------------------- NodeResourcesFit

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"
EXT_DRA = "extended.resource.dra.io/something"


def alloc(cpu: int, memory: int, pods: int, ext_a: int, storage: int, huge_a: int) -> dict[str, int]:
    """upstream makeAllocatableResources(milliCPU, memory, pods, extendedA, storage, hugePageA)."""
    return {"cpu": cpu, "memory": memory, "pods": pods, EXT_A: ext_a, "ephemeral-storage": storage, HUGE_A: huge_a}


def res(cpu: int = 0, memory: int = 0, storage: int = 0, **_: int) -> dict[str, int]:
    return {"cpu": cpu, "memory": memory, "ephemeral-storage": storage}


def rq(cpu: int = 0, memory: int = 0, storage: int = 0, scalars: Mapping[str, int] | None = None) -> dict[str, int]:
    """Effective requests as upstream's framework.Resource{MilliCPU, Memory, EphemeralStorage, ScalarResources}."""
    return {**res(cpu, memory, storage), **(scalars or {})}


def insufficient(name: str) -> str:
    return f"Insufficient {name}"


CPU_, MEM_, EPH_ = insufficient("cpu"), insufficient("memory"), insufficient("ephemeral-storage")
DEFAULT_ALLOC = alloc(10, 20, 32, 5, 20, 5)

# (name, pod effective requests, existing pod requests or None for an empty NodeInfo, want code, want reasons)
ENOUGH_REQUESTS_CASES = [
    ("no resources requested always fits", {}, rq(10, 20), None, None),
    ("too many resources fails", rq(1, 1), rq(10, 20), UNSCHEDULABLE, (CPU_, MEM_)),
    # containers 1/1, init 3/1 -> max(1, 3), max(1, 1)
    ("too many resources fails due to init container cpu", rq(3, 1), rq(8, 19), UNSCHEDULABLE, (CPU_,)),
    # init 3/1 and 2/1
    ("too many resources fails due to highest init container cpu", rq(3, 1), rq(8, 19), UNSCHEDULABLE, (CPU_,)),
    # containers 1/1, init 1/3
    ("too many resources fails due to init container memory", rq(1, 3), rq(9, 19), UNSCHEDULABLE, (MEM_,)),
    ("too many resources fails due to highest init container memory", rq(1, 3), rq(9, 19), UNSCHEDULABLE, (MEM_,)),
    ("init container fits because it's the max, not sum, of containers and init containers", rq(1, 1), rq(9, 19), None, None),
    ("multiple init containers fit because it's the max, not sum, of containers and init containers", rq(1, 1), rq(9, 19), None, None),
    ("both resources fit", rq(1, 1), rq(5, 5), None, None),
    ("one resource memory fits", rq(2, 1), rq(9, 5), UNSCHEDULABLE, (CPU_,)),
    ("one resource cpu fits", rq(1, 2), rq(5, 19), UNSCHEDULABLE, (MEM_,)),
    ("equal edge case", rq(5, 1), rq(5, 19), None, None),
    # containers 4/1, init 5/1
    ("equal edge case for init container", rq(5, 1), rq(5, 19), None, None),
    ("extended resource fits", rq(scalars={EXT_A: 1}), rq(), None, None),
    ("extended resource fits for init container", rq(scalars={EXT_A: 1}), rq(), None, None),
    ("extended resource capacity enforced", rq(1, 1, scalars={EXT_A: 10}), rq(scalars={EXT_A: 0}), UNRESOLVABLE, (insufficient(EXT_A),)),
    ("extended resource capacity enforced for init container", rq(1, 1, scalars={EXT_A: 10}), rq(scalars={EXT_A: 0}),
     UNRESOLVABLE, (insufficient(EXT_A),)),
    ("extended resource allocatable enforced", rq(1, 1, scalars={EXT_A: 1}), rq(scalars={EXT_A: 5}), UNSCHEDULABLE, (insufficient(EXT_A),)),
    ("extended resource allocatable enforced for init container", rq(1, 1, scalars={EXT_A: 1}), rq(scalars={EXT_A: 5}),
     UNSCHEDULABLE, (insufficient(EXT_A),)),
    # two containers 1/1/3 each
    ("extended resource allocatable enforced for multiple containers", rq(2, 2, scalars={EXT_A: 6}), rq(scalars={EXT_A: 2}),
     UNRESOLVABLE, (insufficient(EXT_A),)),
    # two init containers 1/1/3 each -> max
    ("extended resource allocatable admits multiple init containers", rq(1, 1, scalars={EXT_A: 3}), rq(scalars={EXT_A: 2}), None, None),
    # init containers 1/1/6 and 1/1/3
    ("extended resource allocatable enforced for multiple init containers", rq(1, 1, scalars={EXT_A: 6}), rq(scalars={EXT_A: 2}),
     UNRESOLVABLE, (insufficient(EXT_A),)),
    ("extended resource allocatable enforced for unknown resource", rq(1, 1, scalars={EXT_B: 1}), rq(), UNRESOLVABLE, (insufficient(EXT_B),)),
    ("extended resource allocatable enforced for unknown resource for init container", rq(1, 1, scalars={EXT_B: 1}), rq(),
     UNRESOLVABLE, (insufficient(EXT_B),)),
    ("kubernetes.io resource capacity enforced", rq(1, 1, scalars={K8S_IO_A: 10}), rq(), UNRESOLVABLE, (insufficient(K8S_IO_A),)),
    ("kubernetes.io resource capacity enforced for init container", rq(1, 1, scalars={K8S_IO_B: 10}), rq(),
     UNRESOLVABLE, (insufficient(K8S_IO_B),)),
    ("hugepages resource capacity enforced", rq(1, 1, scalars={HUGE_A: 10}), rq(scalars={HUGE_A: 0}), UNRESOLVABLE, (insufficient(HUGE_A),)),
    ("hugepages resource capacity enforced for init container", rq(1, 1, scalars={HUGE_A: 10}), rq(scalars={HUGE_A: 0}),
     UNRESOLVABLE, (insufficient(HUGE_A),)),
    ("hugepages resource allocatable enforced for multiple containers", rq(2, 2, scalars={HUGE_A: 6}), rq(scalars={HUGE_A: 2}),
     UNRESOLVABLE, (insufficient(HUGE_A),)),
    # Left out: "skip checking ignored extended resource" (NodeResourcesFitArgs.ignoredResources not modelled).
    # requests 1m/1 + overhead 3m/13
    ("resources + pod overhead fits", rq(4, 14), rq(5, 5), None, None),
    # requests 1m/1 + overhead 1m/15
    ("requests + overhead does not fit for memory", rq(2, 16), rq(5, 5), UNSCHEDULABLE, (MEM_,)),
    # Left out: "skip checking ignored extended resource via resource groups" (ignoredResourceGroups not modelled).
    ("skip checking extended resource request with quantity zero via resource groups", rq(1, 1, scalars={EXT_A: 0}),
     rq(scalars={EXT_A: 6}), None, None),
    ("skip checking resource request with quantity zero", rq(scalars={EXT_A: 1}), rq(20, 30, scalars={EXT_A: 1}), None, None),
    # Pod-level resources (the loader's effective requests): pod-level cpu/memory/hugepages replace the containers' sums.
    ("both pod-level and container-level resources fit", rq(1, 2), rq(5, 5), None, None),
    ("pod-level cpu resource not fit", rq(7, 2), rq(5, 5), UNSCHEDULABLE, (CPU_,)),
    ("pod-level memory resource not fit", rq(3, 2), rq(5, 19), UNSCHEDULABLE, (MEM_,)),
    ("pod-level hugepages resource fit", rq(3, 2, scalars={HUGE_A: 5}), None, None, None),
    ("both pod-level and container-level hugepages resource fit", rq(3, 2, scalars={HUGE_A: 5}), None, None, None),
    ("pod-level hugepages resource not fit", rq(3, 2, scalars={HUGE_A: 10}), None, UNRESOLVABLE, (insufficient(HUGE_A),)),
    ("one pod-level cpu resource fits and all init and non-init containers resources fit", rq(3, 2), rq(5, 19), UNSCHEDULABLE, (MEM_,)),
    # DRAExtendedResource: planner has no DeviceClasses, so only the cases where upstream delegates nothing.
    ("extended resource backed by device plugin", rq(scalars={EXT_A: 1}), rq(), None, None),
    # Left out: "extended resource backed by DRA", "extended resource backed by DRA, nil draManager",
    # "extended resource was backed by Device Plugin (Allocatable: 0)" and "... global cache" (DeviceClass delegation).
    ("extended resource backed by DRA not enabled", rq(1, 1, scalars={EXT_DRA: 1}), rq(), UNRESOLVABLE, (insufficient(EXT_DRA),)),
    ("extended resource NOT backed by DRA", rq(1, 1, scalars={EXT_B: 1}), rq(), UNRESOLVABLE, (insufficient(EXT_B),)),
]

NOT_ENOUGH_ALLOC = alloc(10, 20, 1, 0, 0, 0)
NOT_ENOUGH_REQUESTS_CASES = [
    ("even without specified resources, predicate fails when there's no space for additional pod", {}, rq(10, 20)),
    ("even if both resources fit, predicate fails when there's no space for additional pod", rq(1, 1), rq(5, 5)),
    ("even for equal edge case, predicate fails when there's no space for additional pod", rq(5, 1), rq(5, 19)),
    # containers 5/1, init 5/1
    ("even for equal edge case, predicate fails when there's no space for additional pod due to init container", rq(5, 1), rq(5, 19)),
]

STORAGE_REQUESTS_CASES = [
    ("empty storage requested, and pod fits", rq(1, 1), rq(2, 10), None, None),
    ("storage ephemeral local storage request exceeds allocatable", rq(storage=25), rq(2, 2), UNRESOLVABLE, (EPH_,)),
    ("ephemeral local storage is sufficient", rq(storage=5), rq(2, 2, 10), None, None),
    ("pod fits", rq(storage=10), rq(2, 2), None, None),
]

RESTARTABLE_ALLOC = alloc(2, 0, 1, 0, 0, 0)
RESTARTABLE_INIT_CASES = [
    # Left out: the two "... if sidecar containers is disabled" cases (SidecarContainers is GA and locked on).
    ("allow pod without restartable init containers if sidecar containers is enabled", {}, None, None),
    ("allow pod with restartable init containers if sidecar containers is enabled", {}, None, None),
    # regular 1m + sidecar 1m
    ("allow pod if the total requested resources do not exceed the node's allocatable resources", rq(2), None, None),
    # regular 1m + sidecar 2m
    ("not allow pod if the total requested resources do exceed the node's allocatable resources", rq(3), UNRESOLVABLE, (CPU_,)),
]


def _fit(pod_requests: dict[str, int], existing: dict[str, int] | None, allocatable: dict[str, int]) -> Status | None:
    pods = [] if existing is None else [mk_pod("existing", node_name="n", requests=existing)]
    ni = NodeInfo(mk_node("n", allocatable=allocatable), pods)
    state, pre, st = run(noderesourcesfit, mk_pod(requests=pod_requests), ni)
    assert pre is None and state is not SKIP
    return st


def _check(st: Status | None, code: str | None, want: tuple[str, ...] | None) -> None:
    assert reasons(st) == want
    if st is not None:
        assert st.code == code and st.plugin == "NodeResourcesFit"


@pytest.mark.parametrize("pod_requests,existing,code,want", [pytest.param(*c[1:], id=c[0]) for c in ENOUGH_REQUESTS_CASES])
def test_enough_requests(pod_requests: dict[str, int], existing: dict[str, int] | None, code: str | None, want: tuple[str, ...] | None) -> None:
    _check(_fit(pod_requests, existing, DEFAULT_ALLOC), code, want)


@pytest.mark.parametrize("pod_requests,existing", [pytest.param(*c[1:], id=c[0]) for c in NOT_ENOUGH_REQUESTS_CASES])
def test_not_enough_requests(pod_requests: dict[str, int], existing: dict[str, int]) -> None:
    _check(_fit(pod_requests, existing, NOT_ENOUGH_ALLOC), UNSCHEDULABLE, (noderesourcesfit.ERR_REASON_TOO_MANY_PODS,))


@pytest.mark.parametrize("pod_requests,existing,code,want", [pytest.param(*c[1:], id=c[0]) for c in STORAGE_REQUESTS_CASES])
def test_storage_requests(pod_requests: dict[str, int], existing: dict[str, int], code: str | None, want: tuple[str, ...] | None) -> None:
    _check(_fit(pod_requests, existing, DEFAULT_ALLOC), code, want)


@pytest.mark.parametrize("pod_requests,code,want", [pytest.param(*c[1:], id=c[0]) for c in RESTARTABLE_INIT_CASES])
def test_restartable_init_containers(pod_requests: dict[str, int], code: str | None, want: tuple[str, ...] | None) -> None:
    # upstream: an empty NodeInfo on a node with allocatable cpu 2m, memory 0, pods 1.
    _check(_fit(pod_requests, None, RESTARTABLE_ALLOC), code, want)


def test_fit_reason_order_and_ignored_names() -> None:
    # Not an upstream case: reasons in fitsRequest order (pods, cpu, memory, ephemeral-storage, scalars
    # by name), and names that are not scalar resources ("storage", unprefixed names) are never checked.
    pod_requests = {"cpu": 11, "memory": 21, "ephemeral-storage": 21, EXT_B: 1, EXT_A: 6, "storage": 10**9, "foo": 1}
    st = _fit(pod_requests, rq(), alloc(10, 20, 1, 5, 20, 5))
    _check(st, UNRESOLVABLE, ("Too many pods", CPU_, MEM_, EPH_, insufficient(EXT_A), insufficient(EXT_B)))
