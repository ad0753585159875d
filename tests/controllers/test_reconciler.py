"""The controllers' loop (planner/controllers/reconciler.py): reconcile and apply.
"""

from __future__ import annotations

from planner.controllers.reconciler import apply, reconcile
from tests.controllers.world import (
    deployment,
    snapshot,
)

# --------------------------------------------------------------------------- reconcile / apply


def test_reconcile_does_not_change_the_snapshot_and_apply_replays_it() -> None:
    """reconcile() works on a copy; applying its actions to the snapshot gives the same world."""
    d = deployment(3, image="v1")
    snap = snapshot(d, nodes=3)
    actions = reconcile(snap)
    assert snap.replicasets == {} and snap.pods == {}
    assert [type(a).__name__ for a in actions] == ["CreateReplicaSet", "CreatePod", "CreatePod", "CreatePod"]
    apply(snap, actions)
    assert len(snap.replicasets) == 1 and len(snap.pods) == 3
    assert reconcile(snap) == []
    assert reconcile(snapshot(d, nodes=3)) == actions  # deterministic
