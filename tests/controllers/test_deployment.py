"""The Deployment controller (planner/controllers/deployment.py). Table-driven, each case citing the upstream test or behaviour it transcribes (kubernetes/kubernetes pkg/controller/...).
Rollouts are driven by the fake scheduler of tests/controllers/world.py.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from planner.controllers.actions import (
    CreatePod,
    CreateReplicaSet,
    DeletePod,
    ScaleReplicaSet,
)
from planner.controllers.deployment import (
    _DeploymentSync,
    max_unavailable,
    new_rs_new_replicas,
    reconcile_deployment,
    resolve_fenceposts,
    rollout_complete,
)
from planner.controllers.reconciler import apply, reconcile
from planner.domain import (
    LABEL_POD_TEMPLATE_HASH,
    OwnerRef,
    RollingUpdateDeployment,
)
from planner.snapshot import Snapshot
from tests.controllers.world import (
    deployment,
    hostname_anti_affinity,
    pods_of,
    replicaset,
    rs_pods,
    run,
    snapshot,
    template,
)

# --------------------------------------------------------------------------- deployment_util.go


@pytest.mark.parametrize(
    "surge, unavailable, desired, want",
    [
        # deployment_util_test.go TestResolveFenceposts
        ("0%", "0%", 0, (0, 1)),
        ("39%", "39%", 10, (4, 3)),
        (None, "39%", 10, (0, 3)),
        ("39%", None, 10, (4, 0)),
        (None, None, 10, (0, 1)),
        # the brief's cases: the default 25%/25% on 2 replicas (seed 004), and its fix
        ("25%", "25%", 2, (1, 0)),
        ("25%", "50%", 2, (1, 1)),
        ("25%", "25%", 8, (2, 2)),
        (1, 1, 2, (1, 1)),
    ],
)
def test_resolve_fenceposts(surge: str | None, unavailable: str | None, desired: int, want: tuple[int, int]) -> None:
    assert resolve_fenceposts(surge, unavailable, desired) == want


@pytest.mark.parametrize("surge, unavailable", [("oops", "39%"), ("55%", "urg")])
def test_resolve_fenceposts_errors(surge: str, unavailable: str) -> None:
    """deployment_util_test.go TestResolveFenceposts: a string that is not a percentage is an error."""
    with pytest.raises(ValueError):
        resolve_fenceposts(surge, unavailable, 10)


@pytest.mark.parametrize(
    "replicas, unavailable, strategy, want",
    [
        # deployment_util_test.go TestMaxUnavailable
        (10, 5, "RollingUpdate", 5),
        (10, 10, "RollingUpdate", 10),
        (5, 10, "RollingUpdate", 5),
        (0, 10, "RollingUpdate", 0),
        (10, 5, "Recreate", 0),
        (10, "50%", "RollingUpdate", 5),
        (10, "100%", "RollingUpdate", 10),
        (5, "100%", "RollingUpdate", 5),
    ],
)
def test_max_unavailable(replicas: int, unavailable: int | str, strategy: str, want: int) -> None:
    assert max_unavailable(deployment(replicas, 1, unavailable, strategy=strategy)) == want


@pytest.mark.parametrize(
    "strategy, dep_replicas, new_rs_replicas, surge, want",
    [
        # deployment_util_test.go TestNewRSNewReplicas (allRSs holds one other RS of 5 replicas)
        ("RollingUpdate", 1, 5, 1, 5),  # can not scale up - to newRSReplicas
        ("RollingUpdate", 6, 2, 10, 6),  # scale up - to depReplicas
        ("Recreate", 3, 1, 1, 3),  # recreate - to depReplicas
    ],
)
def test_new_rs_new_replicas(strategy: str, dep_replicas: int, new_rs_replicas: int, surge: int, want: int) -> None:
    d = replace(deployment(dep_replicas, surge, 1), strategy_type=strategy, rolling_update=RollingUpdateDeployment(surge, 1))
    rs5 = replicaset(d, "other", 5, 1)
    new = replicaset(d, "v1", new_rs_replicas, 2)
    assert new_rs_new_replicas(d, [rs5], new) == want


# --------------------------------------------------------------------------- rolling.go


@pytest.mark.parametrize(
    "dep_replicas, surge, old_replicas, new_replicas, want",
    [
        # rolling_test.go TestDeploymentController_reconcileNewReplicaSet (maxUnavailable 0)
        (10, 0, 10, 0, None),  # should not scale up
        (10, 2, 10, 0, 2),
        (10, 2, 5, 0, 7),
        (10, 2, 10, 2, None),
        (10, 2, 2, 11, 10),  # should scale down
    ],
)
def test_reconcile_new_replicaset(dep_replicas: int, surge: int, old_replicas: int, new_replicas: int, want: int | None) -> None:
    d = deployment(dep_replicas, surge, 0, image="v2")
    old = replicaset(d, "v1", old_replicas, 1)
    new = replicaset(d, "v2", new_replicas, 2, revision=2)
    s = _DeploymentSync(snapshot(d, old, new), d)
    scaled = s.reconcile_new_replicaset([new, old], new)
    assert scaled == (want is not None)
    if want is None:
        assert s.actions == []
    else:
        assert [(a.key, a.replicas) for a in s.actions if isinstance(a, ScaleReplicaSet)] == [(new.key, want)]


@pytest.mark.parametrize(
    "dep_replicas, unavailable, old_replicas, new_replicas, ready_old, ready_new, want_old",
    [
        # rolling_test.go TestDeploymentController_reconcileOldReplicaSets (maxSurge 0)
        (10, 0, 10, 0, 10, 0, 9),
        (10, 2, 10, 0, 10, 0, 8),
        (10, 2, 10, 0, 8, 0, 8),  # unhealthy replicas of the old RS cleaned up
        (10, 2, 10, 0, 9, 0, 8),  # 1 unhealthy cleaned up and 1 ready pod scaled down
        (10, 2, 8, 2, 8, 0, None),  # unavailable new pods do not let old RSs scale down further
    ],
)
def test_reconcile_old_replicasets(
    dep_replicas: int, unavailable: int, old_replicas: int, new_replicas: int, ready_old: int, ready_new: int, want_old: int | None
) -> None:
    d = deployment(dep_replicas, 0, unavailable, image="v2")
    old = replicaset(d, "v1", old_replicas, 1)
    new = replicaset(d, "v2", new_replicas, 2, revision=2)
    snap = snapshot(d, old, new, rs_pods(old, ready_old, old_replicas - ready_old), rs_pods(new, ready_new, new_replicas - ready_new, 100))
    s = _DeploymentSync(snap, d)
    scaled = s.reconcile_old_replicasets([old, new], [old], new)
    assert scaled == (want_old is not None)
    if want_old is not None:
        assert s.rss[old.key].replicas == want_old
        assert all(isinstance(a, ScaleReplicaSet) and a.key == old.key for a in s.actions)


@pytest.mark.parametrize(
    "ready, unhealthy, max_cleanup, want",
    [
        # rolling_test.go TestDeploymentController_cleanupUnhealthyReplicas (old RS of 10)
        (8, 2, 1, 1),
        (8, 2, 3, 2),
        (8, 2, 0, 0),
        (10, 0, 3, 0),
    ],
)
def test_cleanup_unhealthy_replicas(ready: int, unhealthy: int, max_cleanup: int, want: int) -> None:
    d = deployment(10, 2, 2)
    old = replicaset(d, "v0", 10, 1)
    s = _DeploymentSync(snapshot(d, old, rs_pods(old, ready, unhealthy)), d)
    result = s.cleanup_unhealthy_replicas([old], max_cleanup)
    assert result is not None and result[1] == want


@pytest.mark.parametrize(
    "dep_replicas, unavailable, ready, old_replicas, want_old",
    [
        # rolling_test.go TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate
        (10, 0, 10, 10, 9),
        (10, 2, 10, 10, 8),
        (10, 2, 8, 10, None),
        (10, 2, 1, 10, None),
    ],
)
def test_scale_down_old_replicasets_for_rolling_update(dep_replicas: int, unavailable: int, ready: int, old_replicas: int, want_old: int | None) -> None:
    d = deployment(dep_replicas, 0, unavailable, image="v2")
    old = replicaset(d, "v1", old_replicas, 1)
    s = _DeploymentSync(snapshot(d, old, rs_pods(old, ready, old_replicas - ready)), d)
    scaled = s.scale_down_old_replicasets_for_rolling_update([old], [old])
    if want_old is None:
        assert scaled == 0 and s.actions == []
    else:
        assert [(a.key, a.replicas) for a in s.actions if isinstance(a, ScaleReplicaSet)] == [(old.key, want_old)]


def test_new_template_creates_replicaset_with_next_revision() -> None:
    """sync.go getNewReplicaSet: <deployment>-<pod-template-hash>, pod-template-hash in labels and
    selector, revision max + 1 (SetNewReplicaSetAnnotations), NewRSNewReplicas replicas (surge 1)."""
    d = deployment(3, "25%", "25%", image="v2")
    old = replicaset(d, "v1", 3, 1, revision=4)
    snap = snapshot(d, old, rs_pods(old, 3))
    actions = reconcile_deployment(snap, d.key)
    created = [a.rs for a in actions if isinstance(a, CreateReplicaSet)]
    assert len(created) == 1
    rs = created[0]
    h = rs.labels[LABEL_POD_TEMPLATE_HASH]
    assert rs.name == f"web-{h}"
    assert rs.template.labels[LABEL_POD_TEMPLATE_HASH] == h and rs.selector.matches(rs.template.labels)
    assert rs.annotations["deployment.kubernetes.io/revision"] == "5"
    assert rs.annotations["deployment.kubernetes.io/max-replicas"] == "4"
    assert rs.replicas == 1
    assert rs.owner == OwnerRef("Deployment", "web", "uid-web", True)
    # the same pass, once applied, is stable: a second pass does not create another ReplicaSet
    apply(snap, actions)
    assert not any(isinstance(a, CreateReplicaSet) for a in reconcile_deployment(snap, d.key))


def test_full_rolling_update_of_three_replicas() -> None:
    """rolling.go: 3 replicas, 25%/25% (surge 1, unavailable 0): at most 4 pods and never fewer than
    3 available at any point; the rollout completes (DeploymentComplete) with only new pods."""
    d = deployment(3, "25%", "25%", image="v1")
    old = replicaset(d, "v1", 3, 1)
    snap = snapshot(d, old, rs_pods(old, 3), nodes=6)
    assert rollout_complete(snap, d.key)
    snap.deployments[d.key] = replace(d, template=template("web", "v2"))
    assert not rollout_complete(snap, d.key)

    def invariant(s: Snapshot) -> None:
        pods = [p for p in s.pods.values() if not p.terminal]
        assert len(pods) <= 4
        assert sum(1 for p in pods if p.phase == "Running") >= 3

    history = run(snap, check=invariant)
    assert rollout_complete(snap, d.key)
    assert len(pods_of(snap, "v2")) == 3 and not pods_of(snap, "v1")
    assert snap.replicasets[old.key].replicas == 0
    deleted = [a for a in history if isinstance(a, DeletePod)]
    assert len(deleted) == 3


def test_seed_004_rollout_stalls_with_default_strategy() -> None:
    """Seed 004: 2 replicas, required hostname anti-affinity, 2 nodes, 25%/25%: the surge pod cannot
    be placed, and with maxUnavailable 0 no old pod may be deleted, so the rollout never completes."""
    d = deployment(2, "25%", "25%", image="v1")
    old = replicaset(d, "v1", 2, 1)
    snap = snapshot(d, old, rs_pods(old, 2), nodes=2)
    snap.deployments[d.key] = replace(d, template=template("web", "v2"))
    history = run(snap, fits=hostname_anti_affinity)
    assert not any(isinstance(a, DeletePod) for a in history)
    assert not rollout_complete(snap, d.key)
    surge = pods_of(snap, "v2")
    assert len(surge) == 1 and surge[0].phase == "Pending" and not surge[0].spec.node_name
    assert len([p for p in pods_of(snap, "v1") if p.phase == "Running"]) == 2


def test_seed_004_fix_max_unavailable_50_percent_completes() -> None:
    """Seed 004 fixed: maxUnavailable 50% (1 of 2) lets one old pod go first; the rollout completes
    with the anti-affinity intact."""
    d = deployment(2, "25%", "50%", image="v1")
    old = replicaset(d, "v1", 2, 1)
    snap = snapshot(d, old, rs_pods(old, 2), nodes=2)
    snap.deployments[d.key] = replace(d, template=template("web", "v2"))
    run(snap, fits=hostname_anti_affinity)
    assert rollout_complete(snap, d.key)
    assert sorted(p.spec.node_name for p in pods_of(snap, "v2")) == ["node-0", "node-1"]


def test_recreate_removes_old_pods_before_creating_new_ones() -> None:
    """recreate.go rolloutRecreate: old ReplicaSets go to 0 and their pods away (oldPodsRunning)
    before the new ReplicaSet is created with spec.replicas."""
    d = deployment(3, strategy="Recreate", image="v1")
    old = replicaset(d, "v1", 3, 1)
    snap = snapshot(d, old, rs_pods(old, 3), nodes=3)
    snap.deployments[d.key] = replace(d, template=template("web", "v2"))

    first = reconcile(snap)
    assert [(a.key, a.replicas) for a in first if isinstance(a, ScaleReplicaSet)] == [(old.key, 0)]
    assert sum(isinstance(a, DeletePod) for a in first) == 3
    assert not any(isinstance(a, (CreateReplicaSet, CreatePod)) for a in first)
    apply(snap, first)

    second = reconcile(snap)
    created = [a.rs for a in second if isinstance(a, CreateReplicaSet)]
    assert len(created) == 1 and created[0].replicas == 3
    assert sum(isinstance(a, CreatePod) for a in second) == 3

    def never_mixed(s: Snapshot) -> None:
        assert not (pods_of(s, "v1") and pods_of(s, "v2"))

    apply(snap, second)
    run(snap, check=never_mixed)
    assert rollout_complete(snap, d.key)


def test_scaling_event_scales_proportionally() -> None:
    """sync.go scale (isScalingEvent): mid-rollout, 10 -> 15 replicas is spread over both active
    ReplicaSets in proportion (deployment_util.go GetReplicaSetProportion), up to replicas + maxSurge."""
    d = deployment(10, 3, 2, image="v2")
    old = replicaset(d, "v1", 8, 1)
    new = replicaset(d, "v2", 5, 2, revision=2)
    old = replace(old, annotations={**old.annotations, "deployment.kubernetes.io/max-replicas": "13"})
    new = replace(new, annotations={**new.annotations, "deployment.kubernetes.io/max-replicas": "13"})
    d = replace(d, replicas=15)
    snap = snapshot(d, old, new, rs_pods(old, 8), rs_pods(new, 5, 0, 50))
    actions = reconcile_deployment(snap, d.key)
    sizes = {a.key: a.replicas for a in actions if isinstance(a, ScaleReplicaSet)}
    # allowed 15 + maxSurge 3 = 18, 5 to add, larger first: old 8 * 18/13 = 11.08 -> 11 (+3),
    # new 5 * 18/13 = 6.92 -> 7 (+2)
    assert sizes == {old.key: 11, new.key: 7}
    assert all(a.annotations and a.annotations["deployment.kubernetes.io/desired-replicas"] == "15" for a in actions if isinstance(a, ScaleReplicaSet))


def test_deployment_rollback_bumps_revision() -> None:
    """sync.go getNewReplicaSet / SetNewReplicaSetAnnotations: going back to an old template makes
    its ReplicaSet the new one with revision max + 1, the old number kept in revision-history."""
    d = deployment(2, image="v1")
    v1 = replicaset(d, "v1", 0, 1, revision=1)
    v2 = replicaset(d, "v2", 2, 2, revision=2)
    snap = snapshot(d, v1, v2, rs_pods(v2, 2))
    actions = reconcile_deployment(snap, d.key)
    bump = actions[0]
    assert isinstance(bump, ScaleReplicaSet) and bump.key == v1.key and bump.replicas == 0
    assert bump.annotations == {"deployment.kubernetes.io/revision": "3", "deployment.kubernetes.io/revision-history": "1"}
    assert not any(isinstance(a, CreateReplicaSet) for a in actions)
