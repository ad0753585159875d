"""VolumeZone, transcribed case by case from upstream's table tests.

Upstream (kubernetes/kubernetes): pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go:
TestSingleZone, TestMultiZone, TestWithBinding.

Each pytest id is the upstream case name.  An upstream ``shouldFail`` (an error from
GetPodVolumeClaims) is a PreFilter failure here.  Cases after "planner:" ids are planner's own.
"""

from __future__ import annotations

import pytest

from planner.domain import (
    LABEL_REGION,
    LABEL_REGION_BETA,
    LABEL_ZONE,
    LABEL_ZONE_BETA,
    StorageClass,
)
from planner.scheduler.framework import SKIP
from planner.scheduler.plugins.volumezone import filtering as volumezone
from planner.scheduler.plugins.volumezone.filtering import ERR_REASON_CONFLICT
from tests.builders import (
    cluster,
    ephemeral_volume,
    node,
    pod,
    pod_volumes,
    pv,
    pvc,
    storage_class,
)
from tests.scheduler.plugins.volumes import run, vz_status

# =========================================================================== VolumeZone


def zone_pv(name: str, labels: dict[str, str]):  # type: ignore[no-untyped-def]
    return pv(name, labels=labels)


SINGLE_ZONE_PVS = [
    zone_pv("Vol_1", {LABEL_ZONE_BETA: "us-west1-a"}),
    zone_pv("Vol_2", {LABEL_REGION_BETA: "us-west1", "uselessLabel": "none"}),
    zone_pv("Vol_3", {LABEL_REGION_BETA: "us-west1"}),
    zone_pv("Vol_Stable_1", {LABEL_ZONE: "us-west1-a"}),
    zone_pv("Vol_Stable_2", {LABEL_REGION: "us-west1", "uselessLabel": "none"}),
    zone_pv("Vol_Stable_3", {LABEL_ZONE: "us-west1-a", LABEL_REGION: "us-west1-a"}),
]
SINGLE_ZONE_PVCS = [
    pvc("PVC_1", volume_name="Vol_1"),
    pvc("PVC_2", volume_name="Vol_2"),
    pvc("PVC_3", volume_name="Vol_3"),
    pvc("PVC_4", volume_name="Vol_not_exist"),
    pvc("PVC_Stable_1", volume_name="Vol_Stable_1"),
    pvc("PVC_Stable_2", volume_name="Vol_Stable_2"),
    pvc("PVC_Stable_3", volume_name="Vol_Stable_3"),
]

# (name, claim or None, node labels, want PreFilter "skip"/None, want Filter conflict)
SINGLE_ZONE = [
    ("pod without volume", None, {LABEL_ZONE_BETA: "us-west1-a"}, "skip", False),
    ("node without labels", "PVC_1", {}, None, False),
    ("beta zone label matched", "PVC_1", {LABEL_ZONE_BETA: "us-west1-a", "uselessLabel": "none"}, None, False),
    ("beta region label matched", "PVC_2", {LABEL_REGION_BETA: "us-west1", "uselessLabel": "none"}, None, False),
    ("beta region label doesn't match", "PVC_2", {LABEL_REGION_BETA: "no_us-west1", "uselessLabel": "none"}, None, True),
    ("beta zone label doesn't match", "PVC_1", {LABEL_ZONE_BETA: "no_us-west1-a", "uselessLabel": "none"}, None, True),
    ("zone label matched", "PVC_Stable_1", {LABEL_ZONE: "us-west1-a", "uselessLabel": "none"}, None, False),
    ("region label matched", "PVC_Stable_2", {LABEL_REGION: "us-west1", "uselessLabel": "none"}, None, False),
    ("region label doesn't match", "PVC_Stable_2", {LABEL_REGION: "no_us-west1", "uselessLabel": "none"}, None, True),
    ("zone label doesn't match", "PVC_Stable_1", {LABEL_ZONE: "no_us-west1-a", "uselessLabel": "none"}, None, True),
    ("pv with zone and region, node with only zone", "PVC_Stable_3", {LABEL_ZONE: "us-west1-a"}, None, True),
    ("pv with zone,node with beta zone", "PVC_Stable_1", {LABEL_ZONE_BETA: "us-west1-a"}, None, True),
    ("pv with beta label,node with ga label, matched", "PVC_1", {LABEL_ZONE: "us-west1-a"}, None, False),
    ("pv with beta label,node with ga label, don't match", "PVC_1", {LABEL_ZONE: "us-west1-b"}, None, True),
]


def _zone_case(pvs, pvcs, claim, labels, classes=()):  # type: ignore[no-untyped-def]
    p = pod("pod_1", claims=[claim] if claim else [])
    cl = cluster([node("host1", labels, hostname_label=False)], pvcs=pvcs, pvs=pvs, storage_classes=classes)
    return run(volumezone, p, cl)


@pytest.mark.parametrize("name,claim,labels,want_pre,conflict", SINGLE_ZONE, ids=[c[0] for c in SINGLE_ZONE])
def test_volumezone_single_zone(name, claim, labels, want_pre, conflict):  # type: ignore[no-untyped-def]
    pre, flt = _zone_case(SINGLE_ZONE_PVS, SINGLE_ZONE_PVCS, claim, labels)
    assert pre == want_pre
    if want_pre is None:
        assert flt == [vz_status(ERR_REASON_CONFLICT) if conflict else None]


MULTI_ZONE_PVS = [
    zone_pv("Vol_1", {LABEL_ZONE_BETA: "us-west1-a"}),
    zone_pv("Vol_2", {LABEL_ZONE_BETA: "us-west1-b", "uselessLabel": "none"}),
    zone_pv("Vol_3", {LABEL_ZONE_BETA: "us-west1-c__us-west1-a"}),
    zone_pv("Vol_Stable_1", {LABEL_ZONE: "us-west1-a"}),
    zone_pv("Vol_Stable_2", {LABEL_ZONE: "us-west1-c__us-west1-a"}),
]
MULTI_ZONE_PVCS = [
    pvc("PVC_1", volume_name="Vol_1"),
    pvc("PVC_2", volume_name="Vol_2"),
    pvc("PVC_3", volume_name="Vol_3"),
    pvc("PVC_4", volume_name="Vol_not_exist"),
    pvc("PVC_Stable_1", volume_name="Vol_Stable_1"),
    pvc("PVC_Stable_2", volume_name="Vol_Stable_2"),
]
MULTI_ZONE = [
    ("node without labels", "PVC_3", {}, False),
    ("beta zone label matched", "PVC_3", {LABEL_ZONE_BETA: "us-west1-a", "uselessLabel": "none"}, False),
    ("beta zone label doesn't match", "PVC_1", {LABEL_ZONE_BETA: "us-west1-b", "uselessLabel": "none"}, True),
    ("zone label matched", "PVC_Stable_2", {LABEL_ZONE: "us-west1-a", "uselessLabel": "none"}, False),
    ("zone label doesn't match", "PVC_Stable_1", {LABEL_ZONE: "us-west1-b", "uselessLabel": "none"}, True),
]


@pytest.mark.parametrize("name,claim,labels,conflict", MULTI_ZONE, ids=[c[0] for c in MULTI_ZONE])
def test_volumezone_multi_zone(name, claim, labels, conflict):  # type: ignore[no-untyped-def]
    pre, flt = _zone_case(MULTI_ZONE_PVS, MULTI_ZONE_PVCS, claim, labels)
    assert pre is None
    assert flt == [vz_status(ERR_REASON_CONFLICT) if conflict else None]


# TestWithBinding: Class_Immediate has no volumeBindingMode in the upstream test (nil); planner
# spells a nil mode "" (a loaded object gets the API default, Immediate).
WITH_BINDING_CLASSES = [
    StorageClass("Class_Immediate", volume_binding_mode=""),
    StorageClass("Class_Wait", volume_binding_mode="WaitForFirstConsumer"),
]
WITH_BINDING_PVS = [zone_pv("Vol_1", {LABEL_ZONE_BETA: "us-west1-a"})]
WITH_BINDING_PVCS = [
    pvc("PVC_1", volume_name="Vol_1"),
    pvc("PVC_NoSC", storage_class="Class_0"),
    pvc("PVC_EmptySC"),  # storageClassName unset, and the cluster has no default class
    pvc("PVC_WaitSC", storage_class="Class_Wait"),
    pvc("PVC_ImmediateSC", storage_class="Class_Immediate"),
]
WITH_BINDING_NODE = {LABEL_ZONE_BETA: "us-west1-a", "uselessLabel": "none"}
WITH_BINDING = [
    ("label zone failure domain matched", "PVC_1", None),
    ("unbound volume empty storage class", "PVC_EmptySC", vz_status("PersistentVolumeClaim had no pv name and storageClass name")),
    # upstream's fake lister says `storageclasses.storage.k8s.io "Class_0" not found`; the real
    # informer lister (Resource("storageclass")) says:
    ("unbound volume no storage class", "PVC_NoSC", vz_status('storageclass.storage.k8s.io "Class_0" not found')),
    ("unbound volume immediate binding mode", "PVC_ImmediateSC", vz_status('VolumeBindingMode not set for StorageClass "Class_Immediate"')),
    ("unbound volume wait binding mode", "PVC_WaitSC", "skip"),
]


@pytest.mark.parametrize("name,claim,want_pre", WITH_BINDING, ids=[c[0] for c in WITH_BINDING])
def test_volumezone_with_binding(name, claim, want_pre):  # type: ignore[no-untyped-def]
    pre, flt = _zone_case(WITH_BINDING_PVS, WITH_BINDING_PVCS, claim, WITH_BINDING_NODE, WITH_BINDING_CLASSES)
    assert pre == want_pre
    if want_pre is None:
        assert flt == [None]


def test_volumezone_planner_immediate_class_unbound():  # type: ignore[no-untyped-def]
    """planner: an unbound claim of a class with mode Immediate -> "PersistentVolume had no name"."""
    classes = [storage_class("imm", wffc=False)]
    pre, _ = _zone_case([], [pvc("c", storage_class="imm")], "c", WITH_BINDING_NODE, classes)
    assert pre == vz_status("PersistentVolume had no name")


def test_volumezone_planner_missing_pvc_and_pv():  # type: ignore[no-untyped-def]
    pre, _ = _zone_case(SINGLE_ZONE_PVS, SINGLE_ZONE_PVCS, "nope", {})
    assert pre == vz_status('persistentvolumeclaim "nope" not found')
    pre, _ = _zone_case(SINGLE_ZONE_PVS, SINGLE_ZONE_PVCS, "PVC_4", {})
    assert pre == vz_status('persistentvolume "Vol_not_exist" not found')


def test_volumezone_planner_unparsable_label_ignored_and_default_class():  # type: ignore[no-untyped-def]
    """planner: "a__" fails LabelZonesToSet and is ignored; an unset class uses the default (WFFC: skipped)."""
    pvs = [zone_pv("bad", {LABEL_ZONE: "us-west1-a__"})]
    pre, _ = _zone_case(pvs, [pvc("c", volume_name="bad")], "c", {LABEL_ZONE: "elsewhere"})
    assert pre == "skip"
    classes = [storage_class("gp3", default=True)]
    pre, _ = _zone_case([], [pvc("c")], "c", {LABEL_ZONE: "x"}, classes)
    assert pre == "skip"


def test_volumezone_planner_ephemeral_volumes_not_read():  # type: ignore[no-untyped-def]
    """planner: getPersistentVolumeClaimNameFromPod only reads persistentVolumeClaim sources."""
    p = pod_volumes("web", [ephemeral_volume("web", "scratch")])
    cl = cluster([node("n", zone="a")], pvcs=[], pvs=[])
    assert volumezone.pre_filter(p, cl) == (SKIP, None)
