"""What a deleted claim releases (planner/controllers/garbagecollector.py).
"""

from __future__ import annotations

from dataclasses import replace

from planner.controllers.actions import (
    DeleteClaim,
)
from planner.controllers.reconciler import apply
from planner.snapshot import Snapshot


def test_delete_claim_releases_its_volume() -> None:
    """pv_controller.go reclaimVolume: a deleted claim's volume is removed (reclaim policy Delete)
    or left Released (Retain)."""
    from tests.builders import pv, pvc

    snap = Snapshot()
    for name, policy in (("a", "Delete"), ("b", "Retain")):
        v = replace(pv(f"pv-{name}", zone="zone-a"), claim_ref=("default", f"claim-{name}"), phase="Bound", reclaim_policy=policy)
        snap.pvs[v.name] = v
        c = replace(pvc(f"claim-{name}"), volume_name=v.name, phase="Bound")
        snap.pvcs[c.key] = c
    apply(snap, [DeleteClaim("default/claim-a", "test"), DeleteClaim("default/claim-b", "test")])
    assert snap.pvcs == {} and list(snap.pvs) == ["pv-b"] and snap.pvs["pv-b"].phase == "Released"
