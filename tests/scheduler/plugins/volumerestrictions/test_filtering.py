"""VolumeRestrictions, after upstream's volume_restrictions_test.go TestAccessModeConflicts (the
ReadWriteOncePod part; the disk-conflict tables concern in-line volumes planner does not read)."""

from __future__ import annotations

from planner.domain import Node, PersistentVolumeClaim, Pod, PodSpec, PodVolume
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, NodeInfo, Status
from planner.scheduler.plugins.volumerestrictions import filtering as vr


def pod(name: str, claims: tuple[str, ...], node: str = "") -> Pod:
    return Pod("default", name, {}, PodSpec(node_name=node, volumes=tuple(PodVolume(c, c) for c in claims)))


def cluster(pods: list[Pod], pvcs: list[PersistentVolumeClaim]) -> ClusterState:
    ni = NodeInfo(Node("node-1"), [p for p in pods if p.spec.node_name])
    return ClusterState([ni, NodeInfo(Node("node-2"))], pvcs={p.key: p for p in pvcs})


RWOP = PersistentVolumeClaim("default", "claim-with-rwop-1", access_modes=("ReadWriteOncePod",))
RWOP2 = PersistentVolumeClaim("default", "claim-with-rwop-2", access_modes=("ReadWriteOncePod",))
RWO = PersistentVolumeClaim("default", "claim-rwo", access_modes=("ReadWriteOnce",))


def run(p: Pod, cl: ClusterState):  # type: ignore[no-untyped-def]
    state, st = vr.pre_filter(p, cl)
    if st is not None:
        return st
    if state is SKIP:
        return "skip"
    return [vr.filter(state, p, ni) for ni in cl.node_infos]


def test_nothing_to_check_without_volumes():
    assert run(pod("p", ()), cluster([], [])) == "skip"


def test_missing_claim_is_unresolvable():
    assert run(pod("p", ("claim-with-rwop-1",)), cluster([], [])) == Status(vr.NAME, ('persistentvolumeclaim "claim-with-rwop-1" not found',), UNRESOLVABLE)


def test_unused_rwop_claims_skip():
    assert run(pod("p", ("claim-with-rwop-1", "claim-with-rwop-2")), cluster([], [RWOP, RWOP2])) == "skip"


def test_rwop_claim_in_use_rejects_every_node():
    existing = pod("existing", ("claim-with-rwop-1",), node="node-1")
    st = Status(vr.NAME, (vr.ERR_REASON_RWOP_CONFLICT,))
    assert run(pod("p", ("claim-with-rwop-1",)), cluster([existing], [RWOP])) == [st, st]


def test_rwo_claim_in_use_is_no_conflict():
    existing = pod("existing", ("claim-rwo",), node="node-1")
    assert run(pod("p", ("claim-rwo",)), cluster([existing], [RWO])) == "skip"
