"""The StatefulSet controller (planner/controllers/statefulset.py). Table-driven, each case citing the upstream test or behaviour it transcribes (kubernetes/kubernetes pkg/controller/...).
Rollouts are driven by the fake scheduler of tests/controllers/world.py.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from planner.controllers.actions import (
    CreateClaim,
    CreatePod,
    DeleteClaim,
)
from planner.controllers.reconciler import apply, reconcile
from planner.controllers.statefulset import get_pod_revision, reconcile_statefulset, statefulset_complete
from planner.domain import (
    OwnerRef,
)
from planner.snapshot import Snapshot
from tests.controllers.world import created_pods, deleted_pods, run, schedule, snapshot, statefulset, template

# --------------------------------------------------------------------------- stateful_set_control.go




def test_statefulset_ordered_ready_creates_one_pod_at_a_time() -> None:
    """stateful_set_control_test.go CreatesPods (Monotonic, assertMonotonicInvariants): pod N+1 is
    created only once pods 0..N are Running and Ready; each pod's claim is created before it."""
    sts = statefulset(3)
    snap = snapshot(sts, nodes=3)
    first = reconcile(snap)
    assert created_pods(first) == ["db-0"]
    assert [a.pvc.name for a in first if isinstance(a, CreateClaim)] == ["data-db-0"]
    assert isinstance(first[0], CreateClaim) and isinstance(first[1], CreatePod)
    apply(snap, first)
    assert reconcile(snap) == []  # db-0 is Pending: wait
    schedule(snap)
    second = reconcile(snap)
    assert created_pods(second) == ["db-1"]
    apply(snap, second)
    run(snap)
    assert sorted(p.name for p in snap.pods.values()) == ["db-0", "db-1", "db-2"]
    pod = snap.pods["default/db-1"]
    assert pod.labels["statefulset.kubernetes.io/pod-name"] == "db-1" and pod.labels["apps.kubernetes.io/pod-index"] == "1"
    assert [v.claim_name for v in pod.spec.volumes] == ["data-db-1"]
    assert statefulset_complete(snap, sts.key)


def test_statefulset_parallel_creates_all_pods() -> None:
    """stateful_set_control_test.go CreatesPods (Burst, assertBurstInvariants): Parallel creates
    every missing pod in one sync."""
    snap = snapshot(statefulset(3, policy="Parallel"), nodes=3)
    actions = reconcile(snap)
    assert reconcile_statefulset(snap, "default/db") == actions
    assert created_pods(actions) == ["db-0", "db-1", "db-2"]
    assert sum(isinstance(a, CreateClaim) for a in actions) == 3


@pytest.mark.parametrize(
    "policy, when_scaled, per_pass, claims_left",
    [
        # stateful_set_control_test.go ScalesDown over runTestOverPVCRetentionPolicies
        ("OrderedReady", "Retain", [["db-2"], ["db-1"]], ["data-db-0", "data-db-1", "data-db-2"]),
        ("OrderedReady", "Delete", [["db-2"], ["db-1"]], ["data-db-0"]),
        ("Parallel", "Retain", [["db-2", "db-1"]], ["data-db-0", "data-db-1", "data-db-2"]),
        ("Parallel", "Delete", [["db-2", "db-1"]], ["data-db-0"]),
    ],
)
def test_statefulset_scale_down(policy: str, when_scaled: str, per_pass: list[list[str]], claims_left: list[str]) -> None:
    """Scale 3 -> 1: condemned pods go highest ordinal first (one per sync when OrderedReady);
    whenScaled Retain keeps their claims, Delete removes them with the pods."""
    sts = statefulset(3, policy=policy, when_scaled=when_scaled)
    snap = snapshot(sts, nodes=3)
    run(snap)
    assert statefulset_complete(snap, sts.key)
    snap.statefulsets[sts.key] = replace(snap.statefulsets[sts.key], replicas=1)
    for want in per_pass:
        actions = reconcile(snap)
        assert deleted_pods(actions) == want
        apply(snap, actions)
    assert reconcile(snap) == []
    assert sorted(c.name for c in snap.pvcs.values()) == claims_left
    assert statefulset_complete(snap, sts.key)
    # scaling back up re-creates db-1 with its retained claim, or a fresh one
    snap.statefulsets[sts.key] = replace(snap.statefulsets[sts.key], replicas=2)
    actions = reconcile(snap)
    assert created_pods(actions) == ["db-1"]
    assert [a.pvc.name for a in actions if isinstance(a, CreateClaim)] == ([] if when_scaled == "Retain" else ["data-db-1"])


@pytest.mark.parametrize("when_deleted, left", [("Retain", 2), ("Delete", 0)])
def test_statefulset_when_deleted(when_deleted: str, left: int) -> None:
    """persistentVolumeClaimRetentionPolicy.whenDeleted: Delete makes the StatefulSet the claims'
    owner (updateClaimOwnerRefForSetAndPod); once the set is gone the garbage collector deletes them."""
    sts = statefulset(2, policy="Parallel", when_deleted=when_deleted)
    snap = snapshot(sts, nodes=2)
    run(snap)
    owners = {c.owner for c in snap.pvcs.values()}
    assert owners == ({OwnerRef("StatefulSet", "db", "uid-db", True)} if when_deleted == "Delete" else {None})
    del snap.statefulsets[sts.key]
    for k in [k for k in snap.pods]:
        del snap.pods[k]
    actions = reconcile(snap)
    assert all(isinstance(a, DeleteClaim) for a in actions)
    apply(snap, actions)
    assert len(snap.pvcs) == left


@pytest.mark.parametrize(
    "partition, deleted_order, old_left",
    [
        # stateful_set_control_test.go TestStatefulSetControlRollingUpdate / ...WithPartition
        (0, ["db-2", "db-1", "db-0"], []),
        (1, ["db-2", "db-1"], ["db-0"]),
        (3, [], ["db-0", "db-1", "db-2"]),
    ],
)
def test_statefulset_rolling_update_order(partition: int, deleted_order: list[str], old_left: list[str]) -> None:
    """The RollingUpdate loop: the highest ordinal not at the update revision is deleted, one pod at
    a time, each re-created at the update revision and waited for; ordinals below the partition
    keep the current revision."""
    sts = statefulset(3, partition=partition)
    snap = snapshot(sts, nodes=3)
    run(snap)
    rev1 = snap.statefulsets[sts.key].update_revision
    assert rev1.startswith("db-") and snap.statefulsets[sts.key].current_revision == rev1
    snap.statefulsets[sts.key] = replace(snap.statefulsets[sts.key], template=template("db", "v2"))

    def one_at_a_time(s: Snapshot) -> None:
        assert sum(1 for p in s.pods.values() if p.phase != "Running") <= 1

    history = run(snap, check=one_at_a_time)
    assert deleted_pods(history) == deleted_order
    after = snap.statefulsets[sts.key]
    assert after.update_revision != rev1
    assert sorted(p.name for p in snap.pods.values() if get_pod_revision(p) == rev1) == old_left
    assert statefulset_complete(snap, sts.key)
    assert after.current_revision == (after.update_revision if partition == 0 else rev1)


@pytest.mark.parametrize("gate, first_pass", [(False, ["db-2"]), (True, ["db-2", "db-1"])])
def test_statefulset_max_unavailable_behind_feature_gate(monkeypatch: pytest.MonkeyPatch, gate: bool, first_pass: list[str]) -> None:
    """stateful_set_control.go updateStatefulSetAfterInvariantEstablished: with the
    MaxUnavailableStatefulSet gate on, maxUnavailable 2 lets two outdated pods go at once, highest
    ordinals first; with the gate off (the default) maxUnavailable is ignored: one at a time."""
    from planner.controllers import statefulset as sts_mod

    monkeypatch.setattr(sts_mod, "MAX_UNAVAILABLE_STATEFULSET", gate)
    sts = replace(statefulset(3), max_unavailable=2)
    snap = snapshot(sts, nodes=3)
    run(snap)
    snap.statefulsets[sts.key] = replace(snap.statefulsets[sts.key], template=template("db", "v2"))
    assert deleted_pods(reconcile(snap)) == first_pass


def test_statefulset_recreates_failed_pod() -> None:
    """stateful_set_control_test.go RecreatesFailedPod: a Failed replica is deleted, then created anew."""
    sts = statefulset(1)
    snap = snapshot(sts, nodes=1)
    run(snap)
    snap.pods["default/db-0"] = replace(snap.pods["default/db-0"], phase="Failed")
    actions = reconcile(snap)
    assert deleted_pods(actions) == ["db-0"] and not created_pods(actions)
    apply(snap, actions)
    assert created_pods(reconcile(snap)) == ["db-0"]


def test_statefulset_revision_of_loaded_set_is_kept() -> None:
    """A StatefulSet read from a scenario keeps the cluster's updateRevision while its template is
    unchanged, so its pods are not rolled (seed 001 is already at its update revision)."""
    from planner.load import load_snapshot

    snap = load_snapshot(["scenarios/seed-001-hpa-parallel.yaml"])
    assert reconcile(snap) == []
