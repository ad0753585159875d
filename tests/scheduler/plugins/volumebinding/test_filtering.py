"""VolumeBinding, transcribed case by case from upstream's table tests.

Upstream (kubernetes/kubernetes):
* pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go: TestVolumeBinding (PreFilter
  and Filter outcomes; the scores are not transcribed);
* pkg/scheduler/framework/plugins/volumebinding/binder_test.go: TestFindPodVolumesWithoutProvisioning,
  TestFindPodVolumesWithProvisioning (the "no CSIDriver" variant: capacity tracking is not modelled).

Each pytest id is the upstream case name.  An upstream ``shouldFail`` (an error from
GetPodVolumeClaims) is a PreFilter failure here.  Cases after "planner:" ids are planner's own.
"""

from __future__ import annotations

import dataclasses

import pytest

from planner.domain import (
    LABEL_HOSTNAME,
    LABEL_REGION,
    LABEL_ZONE,
    LabelSelector,
    OwnerRef,
    StorageClass,
    TopologySelectorTerm,
)
from planner.scheduler.framework import ERROR, SKIP, UNRESOLVABLE, Status
from planner.scheduler.plugins.volumebinding import filtering as volumebinding
from planner.scheduler.plugins.volumebinding.filtering import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE,
)
from planner.scheduler.plugins.volumezone import filtering as volumezone
from planner.scheduler.runtime import evaluate
from tests.builders import (
    Gi,
    claim_volume,
    cluster,
    ephemeral_volume,
    node,
    node_selector,
    pod,
    pod_volumes,
    pv,
    pvc,
    storage_class,
)
from tests.scheduler.plugins.volumes import G, run, vb_status

# =========================================================================== VolumeBinding: TestVolumeBinding

# volume_binding_test.go storage classes: no provisioner at all ("" -> no dynamic provisioning).
IMMEDIATE_SC = storage_class("immediate-sc", wffc=False, provisioner="")
WAIT_SC = storage_class("wait-sc", provisioner="")
WAIT_HDD_SC = storage_class("wait-hdd-sc", provisioner="")
TVB_CLASSES = [IMMEDIATE_SC, WAIT_SC, WAIT_HDD_SC]


def make_pvc(name: str, cls: str, *, bound_pv: str = "", request: int = 0, phase: str | None = None):  # type: ignore[no-untyped-def]
    """makePVC(name, class)[.withBoundPV(pv)][.withRequestStorage(q)][.withPhase(p)]."""
    c = pvc(name, storage_class=cls, request=request, volume_name=bound_pv, phase=phase or "Pending")
    c = dataclasses.replace(c, access_modes=())
    if bound_pv:
        c = dataclasses.replace(c, annotations={ANN_BIND_COMPLETED: "true"})
    return c


def make_pv(name: str, cls: str, *, phase: str = "Available", capacity: int = 0, affinity: dict[str, list[str]] | None = None):  # type: ignore[no-untyped-def]
    """makePV(name, class).withPhase(p)[.withCapacity(q)][.withNodeAffinity(map)] -- one term, In per key."""
    na = node_selector([(k, "In", v) for k, v in affinity.items()]) if affinity else None
    return dataclasses.replace(pv(name, storage_class=cls, capacity=capacity, node_affinity=na, phase=phase), access_modes=())


def zonal_nodes():  # type: ignore[no-untyped-def]
    out = []
    for z in "abc":
        for n in "ab":
            out.append(node(f"zone-{z}-node-{n}", {LABEL_REGION: f"region-{z}", LABEL_ZONE: f"zone-{z}"}))
    return out


def zonal_pvs():  # type: ignore[no-untyped-def]
    out = []
    for z, cap in (("a", 200), ("b", 100)):
        for i in range(2):
            out.append(make_pv(f"pv-{z}-{i}", "wait-sc", capacity=cap * Gi, affinity={LABEL_REGION: [f"region-{z}"], LABEL_ZONE: [f"zone-{z}"]}))
    return out


def local_pvs(with_hdd: bool):  # type: ignore[no-untyped-def]
    out = []
    for n, cap in (("a", 200), ("b", 100)):
        classes = ["wait-sc", "wait-sc"] + (["wait-hdd-sc", "wait-hdd-sc"] if with_hdd else [])
        for i, cls in enumerate(classes):
            out.append(make_pv(f"pv-{n}-{i}", cls, capacity=cap * Gi, affinity={LABEL_HOSTNAME: [f"node-{n}"]}))
    return out


BIND = vb_status(ERR_REASON_BIND_CONFLICT)

# (name, pod claims, nodes, pvcs, pvs, want PreFilter, want Filter per node)
TEST_VOLUME_BINDING = [
    ("pod has not pvcs", [], [node("node-a")], [], [], "skip", None),
    (
        "all bound", ["pvc-a"], [node("node-a")],
        [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a")], [make_pv("pv-a", "wait-sc")], None, [None],
    ),
    # upstream's stored test also expects PreFilterResult{node-a} (GetEligibleNodes); the current
    # binder.go / PreFilter return no PreFilterResult, so only the Filter outcome is transcribed.
    (
        "all bound with local volumes", ["pvc-a", "pvc-b"], [node("node-a")],
        [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a"), make_pvc("pvc-b", "wait-sc", bound_pv="pv-b")],
        [make_pv("pv-a", "wait-sc", phase="Bound", affinity={LABEL_HOSTNAME: ["node-a"]}),
         make_pv("pv-b", "wait-sc", phase="Bound", affinity={LABEL_HOSTNAME: ["node-a"]})],
        None, [None],
    ),
    ("PVC does not exist", ["pvc-a"], [node("node-a")], [], [], vb_status('persistentvolumeclaim "pvc-a" not found'), None),
    (
        "Part of PVCs do not exist", ["pvc-a", "pvc-b"], [node("node-a")],
        [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a")], [], vb_status('persistentvolumeclaim "pvc-b" not found'), None,
    ),
    (
        "immediate claims not bound", ["pvc-a"], [node("node-a")],
        [make_pvc("pvc-a", "immediate-sc")], [], vb_status(ERR_UNBOUND_IMMEDIATE), None,
    ),
    ("unbound claims no matches", ["pvc-a"], [node("node-a")], [make_pvc("pvc-a", "wait-sc")], [], None, [BIND]),
    (
        "bound and unbound unsatisfied", ["pvc-a", "pvc-b"], [node("node-a", {"foo": "barbar"})],
        [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a"), make_pvc("pvc-b", "wait-sc")],
        [make_pv("pv-a", "wait-sc", affinity={"foo": ["bar"]})],
        None, [vb_status(ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT)],
    ),
    ("pvc not found", ["pvc-a"], [node("node-a")], [], [], vb_status('persistentvolumeclaim "pvc-a" not found'), None),
    (
        "pv not found", ["pvc-a"], [node("node-a")], [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a")], [],
        None, [vb_status(ERR_REASON_PV_NOT_EXIST)],
    ),
    (
        "pv not found claim lost", ["pvc-a"], [node("node-a")],
        [make_pvc("pvc-a", "wait-sc", bound_pv="pv-a", phase="Lost")], [],
        vb_status('persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'), None,
    ),
    (
        "local volumes with close capacity are preferred", ["pvc-a"],
        [node("node-a"), node("node-b"), node("node-c")],
        [make_pvc("pvc-a", "wait-sc", request=50 * Gi)], local_pvs(with_hdd=False), None, [None, None, BIND],
    ),
    (
        "local volumes with close capacity are preferred (multiple pvcs)", ["pvc-0", "pvc-1"],
        [node("node-a"), node("node-b"), node("node-c")],
        [make_pvc("pvc-0", "wait-sc", request=50 * Gi), make_pvc("pvc-1", "wait-hdd-sc", request=100 * Gi)],
        local_pvs(with_hdd=True), None, [None, None, BIND],
    ),
    (
        "zonal volumes with close capacity are preferred", ["pvc-a"], zonal_nodes(),
        [make_pvc("pvc-a", "wait-sc", request=50 * Gi)], zonal_pvs(), None, [None, None, None, None, BIND, BIND],
    ),
    (
        "zonal volumes with close capacity are preferred (custom shape)", ["pvc-a"], zonal_nodes(),
        [make_pvc("pvc-a", "wait-sc", request=50 * Gi)], zonal_pvs(), None, [None, None, None, None, BIND, BIND],
    ),
]


@pytest.mark.parametrize(
    "name,claims,nodes,pvcs,pvs,want_pre,want_filter", TEST_VOLUME_BINDING, ids=[c[0] for c in TEST_VOLUME_BINDING]
)
def test_volume_binding(name, claims, nodes, pvcs, pvs, want_pre, want_filter):  # type: ignore[no-untyped-def]
    p = pod("pod-a", claims=claims)
    cl = cluster(nodes, pvcs=pvcs, pvs=pvs, storage_classes=TVB_CLASSES)
    pre, flt = run(volumebinding, p, cl)
    assert pre == want_pre
    assert flt == want_filter


# =========================================================================== VolumeBinding: binder_test FindPodVolumes

NS = "testns"
NODE_KEY = "nodeKey"
PROVISIONER = "test-provisioner"
WAIT_CLASS = "waitClass"
IMMEDIATE_CLASS = "immediateClass"
WAIT_CLASS_PROV = "waitClassWithProvisioner"
TOPO_MISMATCH_CLASS = "topoMismatchClass"

BINDER_CLASSES = [
    StorageClass(
        WAIT_CLASS_PROV, provisioner=PROVISIONER, volume_binding_mode="WaitForFirstConsumer",
        allowed_topologies=(TopologySelectorTerm(((NODE_KEY, ("node1", "reference-value")),)),),
    ),
    StorageClass(IMMEDIATE_CLASS, volume_binding_mode="Immediate"),
    StorageClass(WAIT_CLASS, provisioner="kubernetes.io/no-provisioner", volume_binding_mode="WaitForFirstConsumer"),
    StorageClass(
        TOPO_MISMATCH_CLASS, provisioner=PROVISIONER, volume_binding_mode="WaitForFirstConsumer",
        allowed_topologies=(TopologySelectorTerm(((NODE_KEY, ("reference-value",)),)),),
    ),
]


def test_pvc(name: str, size: int, state: str, pv_name: str, cls: str, node_name: str = ""):  # type: ignore[no-untyped-def]
    """binder_test.go makeTestPVC: namespace testns, UID pvc-uid, Filesystem, no access modes."""
    ann: dict[str, str] = {}
    vol = ""
    if state == "selected-node":
        ann[ANN_SELECTED_NODE] = node_name
    elif state == "bound":
        ann[ANN_BIND_COMPLETED] = "yes"
        vol = pv_name
    elif state == "prebound":
        vol = pv_name
    c = pvc(name, namespace=NS, storage_class=cls, request=size, volume_name=vol, phase="Pending", annotations=ann)
    return dataclasses.replace(c, uid="pvc-uid", access_modes=())


test_pvc.__test__ = False  # type: ignore[attr-defined]  # a builder, not a test


def test_pv(name: str, node_name: str, capacity: int, bound_to, cls: str):  # type: ignore[no-untyped-def]
    """binder_test.go makeTestPV: Available, nodeKey In [node], claimRef (with UID) to bound_to."""
    na = node_selector([(NODE_KEY, "In", [node_name])]) if node_name else None
    v = pv(name, storage_class=cls, capacity=capacity, node_affinity=na, phase="Available")
    v = dataclasses.replace(v, access_modes=())
    if bound_to is not None:
        v = dataclasses.replace(v, claim_ref=(bound_to.namespace, bound_to.name), claim_uid=bound_to.uid)
    return v


test_pv.__test__ = False  # type: ignore[attr-defined]

unboundPVC = test_pvc("unbound-pvc", 1 * G, "unbound", "", WAIT_CLASS)
unboundPVC2 = test_pvc("unbound-pvc2", 5 * G, "unbound", "", WAIT_CLASS)
preboundPVC = test_pvc("prebound-pvc", 1 * G, "prebound", "pv-node1a", WAIT_CLASS)
boundPVC = test_pvc("bound-pvc", 1 * G, "bound", "pv-bound", WAIT_CLASS)
immediateUnboundPVC = test_pvc("immediate-unbound-pvc", 1 * G, "unbound", "", IMMEDIATE_CLASS)
immediateBoundPVC = test_pvc("immediate-bound-pvc", 1 * G, "bound", "pv-bound-immediate", IMMEDIATE_CLASS)
provisionedPVC = test_pvc("provisioned-pvc", 1 * Gi, "unbound", "", WAIT_CLASS_PROV)
noProvisionerPVC = test_pvc("no-provisioner-pvc", 1 * Gi, "unbound", "", WAIT_CLASS)
topoMismatchPVC = test_pvc("topo-mismatch-pvc", 1 * Gi, "unbound", "", TOPO_MISMATCH_CLASS)
selectedNodePVC = test_pvc("provisioned-pvc", 1 * Gi, "selected-node", "", WAIT_CLASS_PROV, node_name="node1")

pvNode1a = test_pv("pv-node1a", "node1", 5 * G, None, WAIT_CLASS)
pvNode1b = test_pv("pv-node1b", "node1", 10 * G, None, WAIT_CLASS)
pvNode2 = test_pv("pv-node2", "node2", 1 * G, None, WAIT_CLASS)
pvBound = test_pv("pv-bound", "node1", 1 * G, boundPVC, WAIT_CLASS)
pvNode1aBound = test_pv("pv-node1a", "node1", 5 * G, unboundPVC, WAIT_CLASS)
pvBoundImmediate = test_pv("pv-bound-immediate", "node1", 1 * G, immediateBoundPVC, IMMEDIATE_CLASS)
pvBoundImmediateNode2 = test_pv("pv-bound-immediate", "node2", 1 * G, immediateBoundPVC, IMMEDIATE_CLASS)

# GenericEphemeralVolume: pod "test-pod" (UID "") owns "test-pod-test-volume" when owned.
correctGenericPVC = dataclasses.replace(
    test_pvc("test-pod-test-volume", 1 * G, "bound", "pv-bound", IMMEDIATE_CLASS), owner=OwnerRef("Pod", "test-pod", "", True)
)
conflictingGenericPVC = test_pvc("test-pod-test-volume", 1 * G, "bound", "pv-bound", IMMEDIATE_CLASS)
pvBoundGeneric = test_pv("pv-bound", "node1", 1 * G, correctGenericPVC, WAIT_CLASS)

FAIL = "fail"
# (name, pod PVCs, PVs, cached PVCs or None, pod volumes or None, want bindings, want provisions, want reasons | FAIL)
FIND_POD_VOLUMES = [
    # --- TestFindPodVolumesWithoutProvisioning
    ("no-volumes", [], [], None, None, [], [], []),
    # "no-pvcs" (an emptyDir volume) is left out: planner's PodSpec.volumes only holds claim volumes.
    ("pvc-not-found", [boundPVC], [], [], None, [], [], FAIL),
    ("bound-pvc", [boundPVC], [pvBound], None, None, [], [], []),
    ("bound-pvc,pv-not-exists", [boundPVC], [], None, None, [], [], [ERR_REASON_PV_NOT_EXIST]),
    ("prebound-pvc", [preboundPVC], [pvNode1aBound], None, None, [], [], FAIL),
    ("unbound-pvc,pv-same-node", [unboundPVC], [pvNode2, pvNode1a, pvNode1b], None, None, [("unbound-pvc", "pv-node1a")], [], []),
    ("unbound-pvc,pv-different-node", [unboundPVC], [pvNode2], None, None, [], [], [ERR_REASON_BIND_CONFLICT]),
    (
        "two-unbound-pvcs", [unboundPVC, unboundPVC2], [pvNode1a, pvNode1b], None, None,
        [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")], [], [],
    ),
    (
        "two-unbound-pvcs,order-by-size", [unboundPVC2, unboundPVC], [pvNode1a, pvNode1b], None, None,
        [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")], [], [],
    ),
    (
        "two-unbound-pvcs,partial-match", [unboundPVC, unboundPVC2], [pvNode1a], None, None,
        [("unbound-pvc", "pv-node1a")], [], [ERR_REASON_BIND_CONFLICT],
    ),
    ("one-bound,one-unbound", [unboundPVC, boundPVC], [pvBound, pvNode1a], None, None, [("unbound-pvc", "pv-node1a")], [], []),
    ("one-bound,one-unbound,no-match", [unboundPVC, boundPVC], [pvBound, pvNode2], None, None, [], [], [ERR_REASON_BIND_CONFLICT]),
    ("one-prebound,one-unbound", [unboundPVC, preboundPVC], [pvNode1a, pvNode1b], None, None, [], [], FAIL),
    ("immediate-bound-pvc", [immediateBoundPVC], [pvBoundImmediate], None, None, [], [], []),
    ("immediate-bound-pvc-wrong-node", [immediateBoundPVC], [pvBoundImmediateNode2], None, None, [], [], [ERR_REASON_NODE_CONFLICT]),
    ("immediate-unbound-pvc", [immediateUnboundPVC], [], None, None, [], [], FAIL),
    ("immediate-unbound-pvc,delayed-mode-bound", [immediateUnboundPVC, boundPVC], [pvBound], None, None, [], [], FAIL),
    ("immediate-unbound-pvc,delayed-mode-unbound", [immediateUnboundPVC, unboundPVC], [], None, None, [], [], FAIL),
    ("generic-ephemeral,no-pvc", [], [], [], [ephemeral_volume("test-pod", "no-such-pvc")], [], [], FAIL),
    ("generic-ephemeral,with-pvc", [], [pvBoundGeneric], [correctGenericPVC], [ephemeral_volume("test-pod", "test-volume")], [], [], []),
    ("generic-ephemeral,wrong-pvc", [], [pvBoundGeneric], [conflictingGenericPVC], [ephemeral_volume("test-pod", "test-volume")], [], [], FAIL),
    # --- TestFindPodVolumesWithProvisioning ("no CSIDriver"; the capacity-tracking variants are
    # left out: CSIStorageCapacity is not modelled)
    ("one-provisioned", [provisionedPVC], [], None, None, [], ["provisioned-pvc"], []),
    (
        "two-unbound-pvcs,one-matched,one-provisioned", [unboundPVC, provisionedPVC], [pvNode1a], None, None,
        [("unbound-pvc", "pv-node1a")], ["provisioned-pvc"], [],
    ),
    ("one-bound,one-provisioned", [boundPVC, provisionedPVC], [pvBound], None, None, [], ["provisioned-pvc"], []),
    ("one-binding,one-selected-node", [boundPVC, selectedNodePVC], [pvBound], None, None, [], ["provisioned-pvc"], []),
    ("immediate-unbound-pvc (provisioning)", [immediateUnboundPVC], [], None, None, [], [], FAIL),
    ("one-immediate-bound,one-provisioned", [immediateBoundPVC, provisionedPVC], [pvBoundImmediate], None, None, [], ["provisioned-pvc"], []),
    ("invalid-provisioner", [noProvisionerPVC], [], None, None, [], [], [ERR_REASON_BIND_CONFLICT]),
    ("volume-topology-unsatisfied", [topoMismatchPVC], [], None, None, [], [], [ERR_REASON_BIND_CONFLICT]),
    # TestFindPodVolumesWithCSIMigration is left out: CSI migration (in-tree PV translation) is not modelled.
]


@pytest.mark.parametrize(
    "name,pod_pvcs,pvs,cache_pvcs,vols,want_bindings,want_provisions,want_reasons",
    FIND_POD_VOLUMES,
    ids=[c[0] for c in FIND_POD_VOLUMES],
)
def test_find_pod_volumes(name, pod_pvcs, pvs, cache_pvcs, vols, want_bindings, want_provisions, want_reasons):  # type: ignore[no-untyped-def]
    if vols is None:
        vols = [claim_volume(c.name, f"vol{i}") for i, c in enumerate(pod_pvcs)]  # withPVCSVolume
    p = pod_volumes("test-pod", vols, namespace=NS, node_name="node1")
    test_node = node("node1", {NODE_KEY: "node1"}, hostname_label=False)
    cl = cluster([test_node], pvcs=pod_pvcs if cache_pvcs is None else cache_pvcs, pvs=pvs, storage_classes=BINDER_CLASSES)
    state, st = volumebinding.pre_filter(p, cl)
    if want_reasons == FAIL:
        assert st is not None and st.code == UNRESOLVABLE
        return
    assert st is None
    if state is SKIP:
        assert not vols
        return
    volumes, reasons = volumebinding.find_pod_volumes(state, test_node)
    assert sorted(reasons) == sorted(want_reasons)
    assert [(c.name, v.name) for c, v in volumes.static_bindings] == want_bindings
    assert [c.name for c in volumes.dynamic_provisions] == want_provisions
    assert volumebinding.filter(state, p, cl.node_infos[0]) == (vb_status(*reasons) if reasons else None)


def test_find_pod_volumes_failure_messages():  # type: ignore[no-untyped-def]
    """planner: the exact PreFilter messages behind binder_test's shouldFail cases."""
    def pre(vols, pvcs):  # type: ignore[no-untyped-def]
        p = pod_volumes("test-pod", vols, namespace=NS)
        return volumebinding.pre_filter(p, cluster([node("node1")], pvcs=pvcs, storage_classes=BINDER_CLASSES))[1]

    assert pre([claim_volume("prebound-pvc")], [preboundPVC]) == vb_status(ERR_UNBOUND_IMMEDIATE)
    assert pre([ephemeral_volume("test-pod", "no-such-pvc")], []) == vb_status(
        'waiting for ephemeral volume controller to create the persistentvolumeclaim "test-pod-no-such-pvc"'
    )
    assert pre([ephemeral_volume("test-pod", "test-volume")], [conflictingGenericPVC]) == vb_status(
        "PVC testns/test-pod-test-volume was not created for pod testns/test-pod (pod is not owner)"
    )


# =========================================================================== VolumeBinding: planner's own cases


def sts_cluster(nodes, pvcs, pvs, classes=None):  # type: ignore[no-untyped-def]
    return cluster(nodes, pvcs=pvcs, pvs=pvs, storage_classes=classes or [storage_class("gp3", default=True)])


THREE_ZONES = [node("n-a", zone="us-east-1a"), node("n-b", zone="us-east-1b"), node("n-c", zone="us-east-1c")]


def test_planner_retained_pv_pins_statefulset_pod_to_its_zone():  # type: ignore[no-untyped-def]
    """planner: a bound, retained EBS-style PV with zone nodeAffinity keeps db-0 in us-east-1b."""
    c = pvc("data-db-0", storage_class="gp3", volume_name="pvc-123")
    v = pv("pvc-123", zone="us-east-1b", storage_class="gp3", claim=("default", "data-db-0"))
    p = pod("db-0", claims=["data-db-0"])
    cl = sts_cluster(THREE_ZONES, [c], [v])
    pre, flt = run(volumebinding, p, cl)
    assert pre is None
    conflict = vb_status(ERR_REASON_NODE_CONFLICT)
    assert flt == [conflict, None, conflict]
    ev = evaluate(p, cl, [volumebinding, volumezone])
    assert ev.feasible_nodes == ["n-b"]
    assert ev.summary() == "1/3 nodes are available."
    chain = ev.states["VolumeBinding"].claims[0]
    assert (chain.pvc, chain.pv, chain.storage_class, chain.bound) == ("default/data-db-0", "pvc-123", "gp3", True)
    assert str(chain) == "PVC default/data-db-0 -> PV pvc-123 -> topology.kubernetes.io/zone in (us-east-1b)"


def test_planner_wffc_unbound_claim_allowed_topologies():  # type: ignore[no-untyped-def]
    """planner: an unbound WFFC claim provisions only where allowedTopologies allow; the chain says so."""
    sc = storage_class("gp3", default=True, allowed={LABEL_ZONE: ["us-east-1a", "us-east-1c"]})
    p = pod("db-1", claims=["data-db-1"])
    cl = sts_cluster(THREE_ZONES, [pvc("data-db-1")], [], [sc])
    pre, flt = run(volumebinding, p, cl)
    assert pre is None
    assert flt == [None, BIND, None]
    state, _ = volumebinding.pre_filter(p, cl)
    assert str(state.claims[0]) == (
        "PVC default/data-db-1 -> unbound, WaitForFirstConsumer, provisioner ebs.csi.aws.com -> "
        "provisioning on: topology.kubernetes.io/zone in (us-east-1a, us-east-1c)"
    )
    ev = evaluate(p, cl, [volumebinding])
    assert ev.summary() == "2/3 nodes are available."


def test_planner_all_nodes_fail_summary():  # type: ignore[no-untyped-def]
    c = pvc("data-db-0", storage_class="gp3", volume_name="pv-x")
    v = pv("pv-x", zone="us-west-2a", storage_class="gp3", claim=("default", "data-db-0"))
    ev = evaluate(pod("db-0", claims=["data-db-0"]), sts_cluster(THREE_ZONES, [c], [v]), [volumebinding])
    assert ev.summary() == "0/3 nodes are available: 3 node(s) had volume node affinity conflict."


def test_planner_selected_node_pins_claim():  # type: ignore[no-untyped-def]
    c = pvc("d", annotations={ANN_SELECTED_NODE: "n-c"})
    pre, flt = run(volumebinding, pod("p", claims=["d"]), sts_cluster(THREE_ZONES, [c], []))
    assert pre is None and flt == [BIND, BIND, None]


def test_planner_static_pv_smallest_fit_and_exclusion():  # type: ignore[no-untyped-def]
    """planner: two claims of one pod never take the same PV; the smaller claim takes the smallest fit."""
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner")
    pvs = [pv("big", zone="us-east-1a", storage_class="local", capacity=100 * Gi),
           pv("small", zone="us-east-1a", storage_class="local", capacity=20 * Gi)]
    claims = [pvc("x", storage_class="local", request=20 * Gi), pvc("y", storage_class="local", request=10 * Gi)]
    p = pod("p", claims=["x", "y"])
    cl = cluster(THREE_ZONES, pvcs=claims, pvs=pvs, storage_classes=[sc])
    state, st = volumebinding.pre_filter(p, cl)
    assert st is None
    vols, reasons = volumebinding.find_pod_volumes(state, THREE_ZONES[0])
    assert reasons == [] and [(c.name, v.name) for c, v in vols.static_bindings] == [("y", "small"), ("x", "big")]
    # one PV, two claims: the second claim finds nothing and cannot be provisioned
    cl = cluster(THREE_ZONES, pvcs=claims, pvs=pvs[1:], storage_classes=[sc])
    assert run(volumebinding, p, cl)[1] == [BIND, BIND, BIND]


def test_planner_find_matching_volume_filters():  # type: ignore[no-untyped-def]
    """planner: FindMatchingVolume: claimRef (UID), phase, selector, access and volume modes."""
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner")
    c = dataclasses.replace(pvc("x", storage_class="local", request=Gi), uid="u1", selector=LabelSelector((("tier", "fast"),)))

    def fits(v):  # type: ignore[no-untyped-def]
        cl = cluster(THREE_ZONES[:1], pvcs=[c], pvs=[v], storage_classes=[sc])
        return run(volumebinding, pod("p", claims=["x"]), cl)[1] == [None]

    base = pv("v", storage_class="local", capacity=Gi, labels={"tier": "fast"})
    assert fits(base)
    assert not fits(dataclasses.replace(base, labels={}))  # selector
    assert not fits(dataclasses.replace(base, phase="Released"))  # not Available
    assert not fits(dataclasses.replace(base, capacity=Gi - 1))  # too small
    assert not fits(dataclasses.replace(base, access_modes=("ReadOnlyMany",)))  # access modes
    assert not fits(dataclasses.replace(base, volume_mode="Block"))  # volume mode
    assert not fits(dataclasses.replace(base, claim_ref=("default", "other")))  # claimed by another
    # prebound to this claim: phase, selector and access modes no longer matter; a UID must match
    pre = dataclasses.replace(base, claim_ref=("default", "x"), phase="Bound", labels={}, access_modes=())
    assert fits(pre)
    assert fits(dataclasses.replace(pre, claim_uid="u1"))
    assert not fits(dataclasses.replace(pre, claim_uid="u2"))


def test_planner_prebound_pv_decides_alone():  # type: ignore[no-untyped-def]
    """planner: a PV prebound to the claim whose affinity fails makes FindMatchingVolume return nil."""
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner")
    c = pvc("x", storage_class="local", request=Gi)
    pvs = [pv("a-free", zone="us-east-1a", storage_class="local", capacity=Gi),
           pv("b-prebound", zone="us-east-1b", storage_class="local", capacity=Gi, claim=("default", "x"), phase="Available")]
    cl = cluster(THREE_ZONES, pvcs=[c], pvs=pvs, storage_classes=[sc])
    assert run(volumebinding, pod("p", claims=["x"]), cl)[1] == [BIND, None, BIND]


def test_planner_match_fields_ignored_in_pv_affinity():  # type: ignore[no-untyped-def]
    """planner: CheckNodeAffinity builds a node with labels only; nodeSelectorTerm.match skips
    matchFields when the node has no fields, so a metadata.name requirement is ignored."""
    c = pvc("d", storage_class="gp3", volume_name="v")
    only_fields = node_selector(fields=[("metadata.name", "In", ["n-a"])])
    v = pv("v", storage_class="gp3", node_affinity=only_fields, claim=("default", "d"))
    assert run(volumebinding, pod("p", claims=["d"]), sts_cluster(THREE_ZONES, [c], [v]))[1] == [None] * 3
    mixed = node_selector([(LABEL_ZONE, "In", ["us-east-1c"])], fields=[("metadata.name", "In", ["n-a"])])
    v = dataclasses.replace(v, node_affinity=mixed)  # two terms ORed: zone c, or (ignored) name n-a
    assert run(volumebinding, pod("p", claims=["d"]), sts_cluster(THREE_ZONES, [c], [v]))[1] == [None] * 3


def test_planner_prefilter_failures():  # type: ignore[no-untyped-def]
    deleting = dataclasses.replace(pvc("d", volume_name="v"), terminating=True)
    assert volumebinding.pre_filter(pod("p", claims=["d"]), sts_cluster(THREE_ZONES, [deleting], []))[1] == vb_status(
        'persistentvolumeclaim "d" is being deleted'
    )
    nomode = StorageClass("odd", volume_binding_mode="")
    st = volumebinding.pre_filter(pod("p", claims=["d"]), sts_cluster(THREE_ZONES, [pvc("d", storage_class="odd")], [], [nomode]))[1]
    assert st == Status("VolumeBinding", ('VolumeBindingMode not set for StorageClass "odd"',), ERROR)
    # no class at all (unset and no default): IsDelayBindingMode is false -> unbound immediate
    st = volumebinding.pre_filter(pod("p", claims=["d"]), cluster(THREE_ZONES, pvcs=[pvc("d")]))[1]
    assert st == vb_status(ERR_UNBOUND_IMMEDIATE)


def test_planner_bound_by_phase_without_annotation_and_trivial_state():  # type: ignore[no-untyped-def]
    """planner: phase Bound counts as fully bound; with no node-affine PV the state is trivial."""
    c = pvc("d", volume_name="v")  # builder: phase Bound, no bind-completed annotation
    state, st = volumebinding.pre_filter(pod("p", claims=["d"]), sts_cluster(THREE_ZONES, [c], [pv("v", claim=("default", "d"))]))
    assert st is None and state.trivial and state.claims[0].topology == "any node"
