"""The replay keeps a StatefulSet's members and the claims' owners up to date as pods and claims
come and go (statefulset._Members, the healthy memo, Reconciler.claim_owner / _sets_of_claim),
instead of listing them again on every sync: the incremental replay must return what the full
passes (``Simulator(incremental=False)``, a fresh index every pass) return on the transitions
that change those indexes: a pod deleted and recreated under the same name, claims deleted by the
retention policy, a set scaled down then up, ordinals.start changed, the set deleted and created
again.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from planner.controllers.garbagecollector import collect_claims
from planner.domain import ClaimTemplate, OwnerRef
from planner.engines.replay import Simulator, Step
from planner.engines.workloads import WorkloadRef
from planner.snapshot import Snapshot
from tests.builders import Gi, node, pvc, storage_class
from tests.controllers.world import statefulset

REF = WorkloadRef("StatefulSet", "default", "db")


def _snap(policy: str, when_scaled: str, when_deleted: str) -> Snapshot:
    snap = Snapshot()
    for i in range(8):
        n = node(f"n{i}", zone=f"zone-{'abc'[i % 3]}", pods=1)  # a ninth pod waits
        snap.nodes[n.name] = n
    sc = storage_class("fast")
    snap.storage_classes[sc.name] = sc
    sts = statefulset(2, policy=policy, when_scaled=when_scaled, when_deleted=when_deleted)
    sts = replace(sts, volume_claim_templates=(ClaimTemplate(name="data", request=Gi, access_modes=("ReadWriteOnce",), storage_class="fast"),))
    snap.statefulsets[sts.key] = sts
    # a claim of another set's name pattern, one owned by a pod that is not there, one owned by the set
    for c in (pvc("data-other-0", storage_class="fast"), _owned("orphan", "Pod", "gone", "uid-gone"), _owned("extra-db", "StatefulSet", "db", "uid-db")):
        snap.pvcs[c.key] = c
    return snap


def _owned(name: str, kind: str, owner: str, uid: str):
    return replace(pvc(name, storage_class="fast"), owner=OwnerRef(kind, owner, uid, True))


def _steps(snap: Snapshot) -> list[Step]:
    sts = snap.statefulsets[REF.key]

    def scale(n: int) -> Step:
        return Step("scale", {"ref": REF, "workload": str(REF), "replicas": n})

    def recreate(obj) -> Step:
        return Step("create", {"objects": [("StatefulSet", REF.key, obj)], "kind": "StatefulSet", "key": REF.key})

    def claim(c) -> Step:
        return Step("create", {"objects": [("PersistentVolumeClaim", c.key, c)], "kind": "PersistentVolumeClaim", "key": c.key})

    return [
        scale(6),
        claim(_owned("scratch-db-1", "Pod", "db-1", "")),  # owned by whichever pod db-1 is
        Step("evict", {"pod": "default/db-2"}),  # recreated under the same name
        Step("evict", {"pod": "default/db-5"}),
        scale(9),  # db-8 waits: no node has room
        claim(_owned("data-db-8", "Pod", "ghost", "")),  # its claim, replaced: collected, then created again
        scale(2),  # condemned pods (and, whenScaled: Delete, their claims) go; scratch-db-1 with db-1
        scale(5),
        recreate(replace(sts, replicas=5, ordinals_start=3)),  # ordinals 3..7: 0..2 condemned
        scale(3),
        recreate(replace(sts, replicas=4, ordinals_start=0)),
        Step("rollout", {"ref": REF, "workload": str(REF), "image": "v2"}),
        Step("delete", {"ref": REF, "workload": str(REF)}),
        recreate(replace(sts, replicas=3, uid="uid-db-2")),  # the same name, a new uid
        scale(4),
    ]


@pytest.mark.parametrize("policy", ["OrderedReady", "Parallel"])
@pytest.mark.parametrize(("when_scaled", "when_deleted"), [("Retain", "Retain"), ("Delete", "Delete"), ("Delete", "Retain")])
def test_statefulset_indexes_give_the_full_passes_answers(policy, when_scaled, when_deleted):
    snap = _snap(policy, when_scaled, when_deleted)
    steps = _steps(snap)
    out = [Simulator(snap, seed=4, incremental=inc).run(list(steps), [REF]) for inc in (True, False)]
    for sa, sb in zip(out[0]["steps"], out[1]["steps"], strict=True):
        assert sa == sb, (sa["step"], sa["action"])
    assert out[0] == out[1]
    events = [e for s in out[1]["steps"] for e in s["events"]]
    assert any(e["type"] == "created" and e["pod"] == "default/db-2" for s in out[1]["steps"][3:4] for e in s["events"])
    assert any(e["type"] == "created" and e["pod"] == "default/db-7" for e in events)  # ordinals.start 3
    deleted_claims = {e["claim"] for e in events if e["type"] == "claim-deleted"}
    assert {"default/orphan", "default/scratch-db-1", "default/data-db-8", "default/extra-db"} <= deleted_claims
    recreated = [e for e in out[1]["steps"][6]["events"] if e["type"] in ("claim-deleted", "claim-created") and e["claim"] == "default/data-db-8"]
    assert [e["type"] for e in recreated] == ["claim-deleted", "claim-created"], out[1]["steps"][6]["events"]
    if when_scaled == "Delete":
        assert "default/data-db-5" in deleted_claims
    else:
        assert "default/data-db-5" not in deleted_claims
    assert out[1]["final"]["pods"], out[1]["final"]


def test_collect_claims_restricted_to_keys_is_the_full_collection_on_those_keys():
    snap = _snap("OrderedReady", "Retain", "Delete")
    full = collect_claims(snap)
    assert [a.key for a in full] == ["default/orphan"]
    assert collect_claims(snap, ["default/orphan", "default/data-other-0", "default/missing"]) == full
    assert collect_claims(snap, ["default/data-other-0"]) == []
