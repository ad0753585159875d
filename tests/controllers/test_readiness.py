"""A pod's readiness is its Ready condition, not "Running and bound" (pkg/api/v1/pod/util.go
IsPodReady / IsPodAvailable / GetPodReadyCondition): the disruption budget counts Ready pods
(pkg/controller/disruption/disruption.go countHealthyPods, pkg/registry/core/pod/storage/eviction.go
unhealthyPodEvictionPolicy), an OrderedReady StatefulSet waits for Running and Ready and, with
minReadySeconds, available (pkg/controller/statefulset/stateful_set_control.go processReplica,
stateful_set_utils.go isRunningAndReady / isRunningAndAvailable)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from planner.controllers.controller_utils import is_pod_available, is_pod_ready
from planner.controllers.disruption import EVICTION_REFUSED, check_eviction, disruption_status
from planner.controllers.statefulset import new_statefulset_pod, reconcile_statefulset
from planner.convert import Converter
from planner.domain import OwnerRef, Pod, PodDisruptionBudget, PodSpec, ReplicaSet
from tests.builders import sel
from tests.controllers.world import created_pods, snapshot, statefulset, template

T0 = "2024-01-01T00:00:10Z"


def _pod_obj(phase: str = "Running", node: str = "n1", conditions: list | None = None) -> dict:
    status: dict = {"phase": phase}
    if conditions is not None:
        status["conditions"] = conditions
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]}, "status": status}


@pytest.mark.parametrize(
    "obj, ready, since, is_ready",
    [
        # no conditions at all (a hand-written manifest): Running on a node means Ready, as before
        (_pod_obj(), None, "", True),
        (_pod_obj(conditions=[]), None, "", True),
        # the Ready condition decides (IsPodReadyConditionTrue)
        (_pod_obj(conditions=[{"type": "Ready", "status": "True", "lastTransitionTime": T0}]), True, T0, True),
        (_pod_obj(conditions=[{"type": "Ready", "status": "False", "lastTransitionTime": T0}]), False, T0, False),
        (_pod_obj(conditions=[{"type": "Ready", "status": "Unknown"}]), False, "", False),
        # conditions without a Ready one: not Ready (GetPodReadyCondition returns nil)
        (_pod_obj(conditions=[{"type": "PodScheduled", "status": "True"}]), False, "", False),
        # a Pending pod's conditions describe its wait; the replay binds and starts it
        (_pod_obj(phase="Pending", node="", conditions=[{"type": "PodScheduled", "status": "False"}]), None, "", False),
    ],
)
def test_convert_reads_the_ready_condition(obj: dict, ready: bool | None, since: str, is_ready: bool) -> None:
    p = Converter().pod(obj)
    assert (p.ready, p.ready_since) == (ready, since)
    assert is_pod_ready(p) is is_ready
    if p.phase == "Pending":  # bound by the replay: Running, and Ready as before
        assert is_pod_ready(replace(p, spec=replace(p.spec, node_name="n1"), phase="Running"))


def test_is_pod_available_with_min_ready_seconds() -> None:
    """util.go IsPodAvailable: Ready, and minReadySeconds 0 or lastTransitionTime + minReadySeconds < now."""
    now = datetime(2024, 1, 1, 0, 0, 40, tzinfo=UTC)
    base = Pod("default", "p", {}, PodSpec(node_name="n1"), phase="Running", ready=True, ready_since=T0)
    assert is_pod_available(base, 0, now)
    assert is_pod_available(base, 29, now)  # 10 + 29 < 40
    assert not is_pod_available(base, 30, now)  # 10 + 30 is not before 40
    assert not is_pod_available(replace(base, ready_since=""), 1, now)  # a zero lastTransitionTime
    assert not is_pod_available(replace(base, ready=False), 0, now)
    assert is_pod_available(replace(base, ready=None, ready_since=""), 30, now)  # the replay's own start


# --------------------------------------------------------------------------- disruption budget

RS = ReplicaSet("default", "rs", 3, sel({"app": "web"}), template("web", "v1"), uid="uid-rs")
OWNER = OwnerRef("ReplicaSet", "rs", "uid-rs", True)


def _web(name: str, ready: bool | None = True) -> Pod:
    return Pod("default", name, {"app": "web"}, PodSpec(node_name=f"node-{name}"), phase="Running", owner=OWNER, ready=ready,
               ready_since=T0 if ready else "")


def _budget(min_available: int, policy: str = "") -> PodDisruptionBudget:
    return PodDisruptionBudget("default", "budget", sel({"app": "web"}), min_available, unhealthy_pod_eviction_policy=policy)


def test_pdb_does_not_count_a_crash_looping_replica() -> None:
    """countHealthyPods: a Running replica whose Ready condition is False is not healthy, so with
    minAvailable 2 over 2 Ready + 1 crash-looping replica no disruption is allowed and a healthy
    replica cannot be evicted (the old planner counted 3 healthy and let it go)."""
    snap = snapshot(RS, _budget(2), [_web("a"), _web("b"), _web("crash", ready=False)])
    st = disruption_status(snap, "default/budget")
    assert (st.current_healthy, st.desired_healthy, st.disruptions_allowed) == (2, 2, 0)
    d = check_eviction(snap, "default/a")
    assert (d.allowed, d.reason) == (False, EVICTION_REFUSED)
    # IfHealthyBudget: the crash-looping replica itself may go, the budget holds without it
    assert check_eviction(snap, "default/crash").allowed


@pytest.mark.parametrize("policy, allowed", [("", False), ("IfHealthyBudget", False), ("AlwaysAllow", True)])
def test_pdb_unhealthy_pod_eviction_policy(policy: str, allowed: bool) -> None:
    """eviction.go: an unready pod under a budget that does not hold (2 healthy, 3 desired) may be
    evicted only under AlwaysAllow; a Ready pod never."""
    snap = snapshot(RS, _budget(3, policy), [_web("a"), _web("b"), _web("crash", ready=False)])
    assert check_eviction(snap, "default/crash").allowed is allowed
    assert not check_eviction(snap, "default/a").allowed


def test_convert_reads_unhealthy_pod_eviction_policy() -> None:
    from planner.convert import pdb

    b = pdb({"metadata": {"name": "b"}, "spec": {"minAvailable": 1, "unhealthyPodEvictionPolicy": "AlwaysAllow"}})
    assert b.unhealthy_pod_eviction_policy == "AlwaysAllow"


# --------------------------------------------------------------------------- OrderedReady


def _running(sts, ordinal: int, ready: bool | None = True, since: str = T0) -> Pod:
    p = new_statefulset_pod(sts, ordinal)
    return replace(p, spec=replace(p.spec, node_name=f"node-{ordinal}"), phase="Running", ready=ready,
                   ready_since=since if ready else "", creation_timestamp=f"2024-01-01T00:00:0{ordinal}Z")


@pytest.mark.parametrize("policy, created", [("OrderedReady", []), ("Parallel", ["db-2"])])
def test_statefulset_waits_for_a_running_but_unready_pod(policy: str, created: list[str]) -> None:
    """processReplica: OrderedReady waits for every predecessor to be Running and Ready; db-1 is
    Running with Ready=False, so db-2 is not created (the old planner took Running for Ready).
    Parallel creates it at once."""
    sts = statefulset(3, policy=policy)
    snap = snapshot(sts, _running(sts, 0), _running(sts, 1, ready=False))
    assert created_pods(reconcile_statefulset(snap, sts.key)) == created


def test_statefulset_min_ready_seconds_delays_the_next_pod() -> None:
    """isRunningAndAvailable: db-0 became Ready at 00:00:10; with minReadySeconds 30 the set is
    requeued until it is available, so db-1 is created after 00:00:40 (the old planner created it
    one second past the newest object)."""
    sts = replace(statefulset(2), min_ready_seconds=30)
    snap = snapshot(sts, _running(sts, 0))
    (create,) = [a for a in reconcile_statefulset(snap, sts.key) if a.__class__.__name__ == "CreatePod"]
    assert create.pod.name == "db-1"
    assert create.pod.creation_timestamp == "2024-01-01T00:00:41Z"
    # without minReadySeconds it comes at once
    snap0 = snapshot(statefulset(2), _running(statefulset(2), 0))
    (c0,) = [a for a in reconcile_statefulset(snap0, "default/db") if a.__class__.__name__ == "CreatePod"]
    assert c0.pod.creation_timestamp == "2024-01-01T00:00:01Z"  # one second past db-0, the newest object


def test_statefulset_min_ready_seconds_without_transition_time_never_available() -> None:
    """IsPodAvailable: a Ready condition with no lastTransitionTime is never available when
    minReadySeconds > 0, so an OrderedReady set waits for good."""
    sts = replace(statefulset(2), min_ready_seconds=30)
    snap = snapshot(sts, _running(sts, 0, since=""))
    assert created_pods(reconcile_statefulset(snap, sts.key)) == []


# --------------------------------------------------------------------------- Deployments: minReadySeconds


def _rs_pod(rs: ReplicaSet, i: int, ready: bool | None = True, since: str = T0) -> Pod:
    return Pod("default", f"{rs.name}-{i}", dict(rs.template.labels), replace(rs.template.spec, node_name=f"node-{i}"),
               phase="Running", owner=OwnerRef("ReplicaSet", rs.name, rs.uid, True), uid=f"uid-{rs.name}-{i}",
               ready=ready, ready_since=since if ready else "")


@pytest.mark.parametrize(
    "min_ready, ready, since, want",
    [
        # replica_set_utils_test.go TestCalculateStatus "1 fully labelled pod": Ready, available
        (0, True, "", (1, 1, 1)),
        # "1 ready but non-available pod": minReadySeconds 3600 and a Ready condition without a
        # lastTransitionTime (newPod's zero time) -- Ready, not available
        (3600, True, "", (1, 1, 0)),
        # "1 non-ready pod" (a Running replica whose Ready condition is False)
        (0, False, "", (1, 0, 0)),
        # the replay's settled view: Ready since a known time is available once minReadySeconds pass
        (3600, True, T0, (1, 1, 1)),
    ],
)
def test_replicaset_status_honours_min_ready_seconds(min_ready: int, ready: bool, since: str, want: tuple) -> None:
    from planner.controllers.replicaset import replicaset_status

    rs = replace(RS, min_ready_seconds=min_ready)
    snap = snapshot(rs, [_rs_pod(rs, 0, ready, since)])
    st = replicaset_status(snap, rs)
    assert (st.replicas, st.ready_replicas, st.available_replicas) == want


def test_convert_reads_replicaset_min_ready_seconds() -> None:
    rs = Converter().replicaset({"metadata": {"name": "r"}, "spec": {"replicas": 1, "minReadySeconds": 45}})
    assert rs.min_ready_seconds == 45


def _rollout_world(min_ready: int):
    """web: 3 replicas (maxSurge 1, maxUnavailable 0), the old ReplicaSet's 3 pods available, the
    new ReplicaSet's surge pod Ready but with no lastTransitionTime."""
    from tests.controllers.world import deployment, replicaset

    d = replace(deployment(3, image="v2"), min_ready_seconds=min_ready)
    old = replace(replicaset(d, "v1", 3, 1, revision=1), min_ready_seconds=min_ready)
    new = replace(replicaset(d, "v2", 1, 2, revision=2), min_ready_seconds=min_ready)
    pods = [_rs_pod(old, i) for i in range(3)] + [_rs_pod(new, 3, since="")]
    return d, old, new, snapshot(d, old, new, pods)


@pytest.mark.parametrize("min_ready, old_after", [(0, 2), (30, None)])
def test_deployment_rollout_counts_a_not_yet_available_pod_as_unavailable(min_ready: int, old_after: int | None) -> None:
    """rolling.go reconcileOldReplicaSets: maxScaledDown = allPods - minAvailable - newRSUnavailable.
    With minReadySeconds 30 the new pod (Ready, no lastTransitionTime) never becomes available
    (IsPodAvailable), so 4 - 3 - 1 = 0 old pods may go; without it, one may (the old planner
    ignored a Deployment's minReadySeconds and always scaled the old ReplicaSet down)."""
    from planner.controllers.actions import ScaleReplicaSet
    from planner.controllers.deployment import reconcile_deployment

    d, old, _, snap = _rollout_world(min_ready)
    scaled = {a.key: a.replicas for a in reconcile_deployment(snap, d.key) if isinstance(a, ScaleReplicaSet)}
    assert scaled.get(old.key) == old_after


def test_deployment_copies_min_ready_seconds_to_its_replicasets() -> None:
    """sync.go getNewReplicaSet: a new ReplicaSet gets the Deployment's minReadySeconds, and an
    existing new ReplicaSet whose minReadySeconds differs is updated to it."""
    from planner.controllers.actions import CreateReplicaSet, ScaleReplicaSet
    from planner.controllers.deployment import reconcile_deployment
    from planner.controllers.reconciler import apply
    from tests.controllers.world import deployment, replicaset

    d = replace(deployment(2, image="v2"), min_ready_seconds=20)
    old = replicaset(d, "v1", 2, 1)
    snap = snapshot(d, old, [_rs_pod(old, i) for i in range(2)])
    (created,) = [a for a in reconcile_deployment(snap, d.key) if isinstance(a, CreateReplicaSet)]
    assert created.rs.min_ready_seconds == 20
    new = replace(replicaset(d, "v2", 2, 2, revision=2), min_ready_seconds=0)
    snap = snapshot(d, new, [_rs_pod(new, i) for i in range(2)])
    acts = [a for a in reconcile_deployment(snap, d.key) if isinstance(a, ScaleReplicaSet) and a.key == new.key]
    assert acts and acts[0].min_ready_seconds == 20
    apply(snap, acts)
    assert snap.replicasets[new.key].min_ready_seconds == 20
