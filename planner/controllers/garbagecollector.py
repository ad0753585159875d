"""The garbage collector, for claims, and what releasing a claim does to its volume.

Upstream: pkg/controller/garbagecollector (a dependent whose controller owner is gone is
deleted; reduced here to claims and ownerReferences), the StatefulSet PVC retention policy that
gives claims those owners (pkg/controller/statefulset/stateful_set_utils.go
updateClaimOwnerRefForSetAndPod) and pkg/controller/volume/persistentvolume/pv_controller.go
reclaimVolume (a released volume is deleted or kept Released by its reclaim policy).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from planner.controllers.actions import Action, DeleteClaim
from planner.domain import PersistentVolumeClaim
from planner.snapshot import Snapshot


def release_volume(snap: Snapshot, pvc: PersistentVolumeClaim) -> None:
    """pv_controller.go reclaimVolume for the volume bound to a deleted claim: reclaim policy Delete
    removes it, any other leaves it Released."""
    pv = snap.pvs.get(pvc.volume_name) if pvc.volume_name else None
    if pv is None or pv.claim_ref != (pvc.namespace, pvc.name):
        return
    if pv.reclaim_policy == "Delete":
        del snap.pvs[pv.name]
    else:
        snap.pvs[pv.name] = replace(pv, phase="Released")


def collect_claims(snap: Snapshot, keys: Iterable[str] | None = None) -> list[Action]:
    """The garbage collector for PersistentVolumeClaims whose controller owner is gone.

    The StatefulSet controller makes a claim's owner the StatefulSet when whenDeleted is Delete
    and the condemned pod when whenScaled is Delete (stateful_set_utils.go
    updateClaimOwnerRefForSetAndPod); pkg/controller/garbagecollector deletes the claim once that
    owner no longer exists (a uid mismatch counts as gone).  Other dependents are left alone: a
    snapshot may hold pods without their ReplicaSet simply because it was not exported.

    ``keys``: only these claims are looked at (the replay's: those that changed or whose owner
    did, controllers.reconciler.Reconciler); None: every claim.
    """
    out: list[Action] = []
    pvcs = snap.pvcs
    if keys is None:
        owned = [k for k, c in pvcs.items() if c.owner is not None and not c.terminating]  # most claims have no owner
    else:
        owned = [k for k in keys if (c := pvcs.get(k)) is not None and c.owner is not None and not c.terminating]
    for key in sorted(owned):
        pvc = pvcs[key]
        o = pvc.owner
        assert o is not None
        okey = f"{pvc.namespace}/{o.name}"
        owner_obj = snap.statefulsets.get(okey) if o.kind == "StatefulSet" else snap.pods.get(okey) if o.kind == "Pod" else None
        if o.kind not in ("StatefulSet", "Pod"):
            continue
        if owner_obj is None or (o.uid and owner_obj.uid and o.uid != owner_obj.uid):
            out.append(DeleteClaim(key, f"garbage collector: owner {o.kind} {okey} no longer exists"))
    return out
