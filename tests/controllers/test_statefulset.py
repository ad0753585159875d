"""The StatefulSet controller (planner/controllers/statefulset.py). Table-driven, each case citing the upstream test or behaviour it transcribes (kubernetes/kubernetes pkg/controller/...).
Rollouts are driven by the fake scheduler of tests/controllers/world.py.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

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


def test_statefulset_max_unavailable_gate_on_by_default() -> None:
    """pkg/features MaxUnavailableStatefulSet is on by default again in v1.37 (kubernetes#139466)."""
    from planner.controllers import statefulset as sts_mod

    assert sts_mod.MAX_UNAVAILABLE_STATEFULSET is True


@pytest.mark.parametrize(
    "gate, policy, max_unavailable, first_pass",
    [
        # the v1.37 default (gate on): maxUnavailable 2 lets two outdated pods go at once
        (None, "OrderedReady", 2, ["db-2", "db-1"]),
        (None, "Parallel", 2, ["db-2", "db-1"]),
        (None, "OrderedReady", "67%", ["db-2", "db-1"]),  # 2.01 rounds down to 2
        (None, "OrderedReady", "50%", ["db-2"]),  # 1.5 rounds down to 1
        (None, "OrderedReady", "10%", ["db-2"]),  # 0.3 rounds down to 0, at least 1
        (None, "OrderedReady", None, ["db-2"]),  # unset: 1
        (True, "OrderedReady", 2, ["db-2", "db-1"]),
        # gate off (v1.36): maxUnavailable is ignored, one pod at a time
        (False, "OrderedReady", 2, ["db-2"]),
        (False, "Parallel", 2, ["db-2"]),
    ],
)
def test_statefulset_max_unavailable_behind_feature_gate(
    monkeypatch: pytest.MonkeyPatch, gate: bool | None, policy: str, max_unavailable: int | str | None, first_pass: list[str]
) -> None:
    """stateful_set_control.go updateStatefulSet: with the MaxUnavailableStatefulSet gate on, every
    RollingUpdate goes through updateStatefulSetAfterInvariantEstablished, which deletes up to
    maxUnavailable (getStatefulSetMaxUnavailable: default 1, percentages rounded down, at least 1)
    outdated pods, highest ordinals first; with it off, maxUnavailable is ignored."""
    from planner.controllers import statefulset as sts_mod

    if gate is not None:
        monkeypatch.setattr(sts_mod, "MAX_UNAVAILABLE_STATEFULSET", gate)
    sts = replace(statefulset(3, policy=policy), max_unavailable=max_unavailable)
    snap = snapshot(sts, nodes=3)
    run(snap)
    snap.statefulsets[sts.key] = replace(snap.statefulsets[sts.key], template=template("db", "v2"))
    assert deleted_pods(reconcile(snap)) == first_pass


def _rolled_with_unavailable(policy: str, replicas: int, max_unavailable: int, partition: int, unavailable: list[int]) -> Snapshot:
    """A StatefulSet whose pods all run revision 1, the ordinals in ``unavailable`` Pending (not
    Running and Ready), and whose template has just moved to revision 2."""
    sts = replace(statefulset(replicas, policy=policy, partition=partition), max_unavailable=max_unavailable)
    snap = snapshot(sts, nodes=replicas)
    run(snap)
    for o in unavailable:
        key = f"default/db-{o}"
        pod = snap.pods[key]
        snap.pods[key] = replace(pod, phase="Pending", spec=replace(pod.spec, node_name=""))
    snap.statefulsets[sts.key] = replace(snap.statefulsets[sts.key], template=template("db", "v2"))
    return snap


@pytest.mark.parametrize(
    "replicas, max_unavailable, partition, unavailable, first_pass",
    [
        # kubernetes#137666's review example: 0, 1 and 2 unavailable on the old revision, 3 and 4
        # good, maxUnavailable 1: the broken pods are replaced at once, the good ones wait (v1.36's
        # gate-on code deleted nothing: 3 unavailable >= 1)
        (5, 1, 0, [0, 1, 2], ["db-2", "db-1", "db-0"]),
        # budget left after the unavailable ones: phase 2 takes the highest available pods (the old
        # single pass spent the budget on db-4 and db-3 and never reached db-0)
        (5, 3, 0, [0], ["db-0", "db-4", "db-3"]),
        (5, 2, 0, [3], ["db-3", "db-4"]),
        # phase 1 stops at the partition; the unavailable pod below it still uses up the budget
        (3, 1, 1, [0], []),
        (3, 2, 1, [0], ["db-2"]),
        (4, 1, 2, [1, 3], ["db-3"]),
        # nothing unavailable: the plain budget, highest first
        (4, 2, 0, [], ["db-3", "db-2"]),
    ],
)
def test_statefulset_parallel_update_deletes_in_two_phases(
    replicas: int, max_unavailable: int, partition: int, unavailable: list[int], first_pass: list[str]
) -> None:
    """stateful_set_control.go updateStatefulSetAfterInvariantEstablished, v1.37 (kubernetes#137666,
    CHANGELOG-1.37 v1.37.0-alpha.1): a Parallel set does not stop when outdated pods are already
    unavailable; phase 1 deletes every outdated, unavailable, non-terminating pod from the top
    ordinal down to the partition, phase 2 deletes outdated available pods only within
    maxUnavailable - unavailable."""
    snap = _rolled_with_unavailable("Parallel", replicas, max_unavailable, partition, unavailable)
    assert deleted_pods(reconcile(snap)) == first_pass


def test_statefulset_parallel_update_waits_for_unavailable_updated_pods() -> None:
    """The short circuit stays when the unavailable pods are already at the update revision (or
    terminating): unavailable >= maxUnavailable and none of them needs the update."""
    snap = _rolled_with_unavailable("Parallel", 3, 1, 0, [])
    first = reconcile(snap)
    assert deleted_pods(first) == ["db-2"]
    apply(snap, first)
    second = reconcile(snap)  # db-2 is re-created at the update revision, Pending
    assert created_pods(second) == ["db-2"]
    apply(snap, second)
    assert deleted_pods(reconcile(snap)) == []  # db-2 (new revision) unavailable: budget spent


def test_statefulset_ordered_ready_update_keeps_single_pass() -> None:
    """OrderedReady keeps the single high-to-low pass: an unavailable outdated pod blocks the sync
    in processReplica (monotonic) before any update, so nothing is deleted until it is healthy."""
    snap = _rolled_with_unavailable("OrderedReady", 5, 1, 0, [0])
    assert deleted_pods(reconcile(snap)) == []


def test_statefulset_parallel_rollout_with_broken_pods_completes() -> None:
    """The replay of a Parallel rollout whose lowest pods are broken on the old revision: they are
    replaced first, the good ones one at a time after, and the rollout completes."""
    snap = _rolled_with_unavailable("Parallel", 5, 1, 0, [0, 1])
    history = run(snap)
    assert deleted_pods(history)[:2] == ["db-1", "db-0"]
    assert statefulset_complete(snap, "default/db")


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

    snap = load_snapshot(["scenarios/hpa-scale-up-retained-volume.yaml"])
    assert reconcile(snap) == []


# --------------------------------------------------------------------------- the replay (planner simulate)

_ROLLOUT_SCENARIO = """
apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {name: sts-rollout}
region: region-1
zones: [zone-a, zone-b]
nodePools:
- {name: general, count: 2, capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
objects:
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: web}
  spec:
    replicas: 4
    serviceName: web
    podManagementPolicy: Parallel
    updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
        - {name: web, image: "registry.example/web:1", resources: {requests: {cpu: "1", memory: 1Gi}}}
"""


def _replay_rollout(paths: list[str], workload: str, image: str) -> dict:  # type: ignore[type-arg]
    from planner.engines.replay import Simulator, Step
    from planner.engines.workloads import WorkloadRef
    from planner.load import load_snapshot

    snap = load_snapshot(paths)
    kind, name = workload.split("/")
    ref = WorkloadRef(kind, "default", name)
    return Simulator(snap, seed=0).run([Step("rollout", {"ref": ref, "workload": workload, "image": image})], [ref])


@pytest.mark.parametrize("gate, first_wave", [(True, ["web-3", "web-2"]), (False, ["web-3"])])
def test_replay_statefulset_rollout_max_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gate: bool, first_wave: list[str]
) -> None:
    """``planner simulate --rollout`` on a Parallel StatefulSet with maxUnavailable 2: v1.37 (gate
    on) takes two pods down at once, highest ordinals first; v1.36 (gate off) one at a time."""
    from planner.controllers import statefulset as sts_mod

    monkeypatch.setattr(sts_mod, "MAX_UNAVAILABLE_STATEFULSET", gate)
    f = tmp_path / "sts.yaml"
    f.write_text(_ROLLOUT_SCENARIO)
    result = _replay_rollout([str(f)], "StatefulSet/web", "registry.example/web:2")
    events = result["steps"][1]["events"]
    kinds = [(e["type"], e["pod"].split("/")[1]) for e in events if e["type"] in ("deleted", "created")]
    wave = []
    for typ, pod in kinds:
        if typ != "deleted":
            break
        wave.append(pod)
    assert wave == first_wave
    assert sorted(p for t, p in kinds if t == "deleted") == ["web-0", "web-1", "web-2", "web-3"]
    assert result["completed"]


def test_replay_seed_001_rollout_replaces_the_broken_pod_first() -> None:
    """Seed 001 rolled out: search-2 is Pending on the old revision, so (v1.37 two-phase delete) it
    is replaced at once as an unavailable pod; search-0 and search-1 wait while the new search-2
    cannot be placed (before kubernetes#137666 the gate-on controller deleted nothing at all)."""
    result = _replay_rollout(["scenarios/hpa-scale-up-retained-volume.yaml"], "StatefulSet/search", "search:v2")
    deleted = [e for e in result["steps"][1]["events"] if e["type"] == "deleted"]
    assert [e["pod"] for e in deleted] == ["default/search-2"]
    assert "unavailable Pod search-2" in deleted[0]["reason"]
    assert not result["completed"]


def test_a_pod_below_the_partition_is_recreated_from_its_controller_revision():
    """stateful_set_utils.go newVersionedStatefulSetPod: below the partition the pod is made at the
    current revision, from that revision's ControllerRevision (history.ApplyRevision), even when no
    pod of that revision is left to read it back from.  Was: the update revision's template."""
    import json
    from pathlib import Path

    from planner.load import load_snapshot
    from tests.conftest import run_cli

    f = Path(__file__).resolve().parents[1] / "data" / "statefulset-partition-evicted-canary.yaml"
    snap = load_snapshot([str(f)])
    sts = snap.statefulsets["default/web"]
    assert sts.current_revision != sts.update_revision
    cr = snap.controller_revisions[f"default/{sts.current_revision}"]
    assert cr.template is not None and cr.template.spec.images == ("nginx:1.26",)
    r = run_cli(["simulate", str(f), "-w", "statefulset/web", "--evict", "web-0", "-o", "json"])
    assert r.code == 0, r.out + r.err
    created = [e for s in json.loads(r.out)["steps"] for e in s["events"] if e["type"] == "created"]
    assert [e["pod"] for e in created] == ["default/web-0"]
    assert f"(revision {sts.current_revision})" in created[0]["reason"]
