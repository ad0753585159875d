"""NodeVolumeLimits, after upstream's csi_test.go TestCSILimits (CSI PVs, unbound claims counted by
their class's provisioner, a volume shared with a pod on the node counted once, no CSINode or no
count: no limit)."""

from __future__ import annotations

import pytest

from planner.domain import (
    CSINode,
    CSINodeDriver,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodSpec,
    PodVolume,
    StorageClass,
)
from planner.scheduler.framework import ClusterState, NodeInfo, Status
from planner.scheduler.plugins.nodevolumelimits import filtering as nvl

EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"


def pod(name: str, claims: tuple[str, ...], node: str = "") -> Pod:
    return Pod("default", name, {}, PodSpec(node_name=node, volumes=tuple(PodVolume(c, c) for c in claims)))


def pvc(name: str, pv: str = "", cls: str | None = "csi-sc") -> PersistentVolumeClaim:
    ann = {"pv.kubernetes.io/bind-completed": "yes"} if pv else {}
    return PersistentVolumeClaim("default", name, storage_class=cls, volume_name=pv, phase="Bound" if pv else "Pending", annotations=ann)


def pv(name: str, driver: str) -> PersistentVolume:
    return PersistentVolume(name, csi_driver=driver, csi_volume_handle=f"h-{name}")


def cluster(existing: list[Pod], limit: int | None, driver: str = EBS, csinode: bool = True) -> ClusterState:
    claims = [pvc(f"csi-{i}", f"pv-{i}") for i in range(4)] + [pvc("unbound-0"), pvc("unbound-1"), pvc("gce-0", "pv-gce-0"), pvc("no-class", cls="")]
    pvs = [pv(f"pv-{i}", EBS) for i in range(4)] + [pv("pv-gce-0", GCE)]
    cl = ClusterState(
        [NodeInfo(Node("node-1"), existing)],
        pvcs={c.key: c for c in claims},
        pvs={v.name: v for v in pvs},
        storage_classes={"csi-sc": StorageClass("csi-sc", provisioner=EBS, volume_binding_mode="WaitForFirstConsumer")},
    )
    if csinode:
        cl.csinodes["node-1"] = CSINode("node-1", (CSINodeDriver(driver, "id-1", limit),))
    return cl


EXCEEDED = Status(nvl.NAME, (nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))

CASES = [
    ("fits the limit", ("csi-0", "csi-1"), [("csi-2",)], 4, None),
    ("exceeds the limit", ("csi-0", "csi-1"), [("csi-2", "csi-3")], 3, EXCEEDED),
    ("the same volume counts once", ("csi-0",), [("csi-0", "csi-1")], 2, None),
    ("unbound claims count against their class", ("unbound-0", "unbound-1"), [("csi-2",)], 2, EXCEEDED),
    ("an unbound claim of an existing pod counts", ("csi-0",), [("unbound-0",)], 1, EXCEEDED),
    ("another driver's volumes do not count", ("csi-0",), [("gce-0",)], 1, None),
    ("a claim without a class is not counted", ("no-class",), [("csi-0",)], 1, None),
    ("no count: no limit", ("csi-0", "csi-1"), [("csi-2",)], None, None),
]


@pytest.mark.parametrize("name, new, existing, limit, want", CASES, ids=[c[0] for c in CASES])
def test_csi_limits(name, new, existing, limit, want):
    pods = [pod(f"e{i}", claims, node="node-1") for i, claims in enumerate(existing)]
    cl = cluster(pods, limit)
    state, st = nvl.pre_filter(pod("p", new), cl)
    assert st is None
    assert nvl.filter(state, pod("p", new), cl.node_infos[0]) == want


def test_no_csinode_no_limit():
    cl = cluster([pod("e", ("csi-0", "csi-1"), node="node-1")], 0, csinode=False)
    state, _ = nvl.pre_filter(pod("p", ("csi-2",)), cl)
    assert nvl.filter(state, pod("p", ("csi-2",)), cl.node_infos[0]) is None


def test_limit_of_another_driver():
    cl = cluster([], 0, driver=GCE)
    state, _ = nvl.pre_filter(pod("p", ("csi-0",)), cl)
    assert nvl.filter(state, pod("p", ("csi-0",)), cl.node_infos[0]) is None
