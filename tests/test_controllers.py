"""The workload controllers (planner/controllers), table-driven, each case citing the upstream test
or behaviour it transcribes (kubernetes/kubernetes pkg/controller/...).

Rollouts are driven by a tiny fake scheduler defined here (every Pending pod is bound to the first
node it fits on and turns Running), so these tests do not depend on planner's scheduler plugins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from planner import controllers
from planner.controllers import (
    CreateClaim,
    CreatePod,
    CreateReplicaSet,
    DeleteClaim,
    DeletePod,
    ScaleReplicaSet,
    apply,
    can_evict,
    disruption_status,
    disruptions_allowed,
    reconcile,
    reconcile_deployment,
    reconcile_replicaset,
    reconcile_statefulset,
    resolve_fenceposts,
    rollout_complete,
    statefulset_complete,
)
from planner.controllers.deployment import _DeploymentSync, max_unavailable, new_rs_new_replicas
from planner.controllers.disruption import EVICTION_REFUSED
from planner.controllers.replicaset import pods_to_delete
from planner.controllers.statefulset import get_pod_revision
from planner.domain import (
    LABEL_POD_TEMPLATE_HASH,
    ClaimTemplate,
    Deployment,
    LabelSelector,
    OwnerRef,
    Pod,
    PodDisruptionBudget,
    PodSpec,
    PodTemplate,
    ReplicaSet,
    RollingUpdateDeployment,
    StatefulSet,
)
from planner.snapshot import Snapshot
from tests.builders import Gi, node, sel

# --------------------------------------------------------------------------- builders


def template(app: str, image: str) -> PodTemplate:
    return PodTemplate(labels={"app": app}, spec=PodSpec(images=(image,)))


def deployment(
    replicas: int = 3,
    surge: int | str | None = "25%",
    unavailable: int | str | None = "25%",
    *,
    strategy: str = "RollingUpdate",
    image: str = "v1",
    name: str = "web",
) -> Deployment:
    return Deployment(
        namespace="default",
        name=name,
        replicas=replicas,
        selector=sel({"app": name}),
        template=template(name, image),
        strategy_type=strategy,
        rolling_update=RollingUpdateDeployment(surge, unavailable) if strategy == "RollingUpdate" else None,  # type: ignore[arg-type]
        uid=f"uid-{name}",
    )


def replicaset(d: Deployment, image: str, replicas: int, second: int, revision: int = 1) -> ReplicaSet:
    """A ReplicaSet of ``d`` for ``image``, created at second ``second`` (deployment_util's generateRS)."""
    h = f"h{image}"
    labels = {**d.template.labels, LABEL_POD_TEMPLATE_HASH: h}
    return ReplicaSet(
        namespace=d.namespace,
        name=f"{d.name}-{h}",
        replicas=replicas,
        selector=sel({**dict(d.selector.match_labels), LABEL_POD_TEMPLATE_HASH: h}),
        template=PodTemplate(labels=labels, spec=PodSpec(images=(image,))),
        owner=OwnerRef("Deployment", d.name, d.uid, True),
        labels=labels,
        annotations={
            "deployment.kubernetes.io/revision": str(revision),
            "deployment.kubernetes.io/desired-replicas": str(d.replicas),
        },
        uid=f"uid-{d.name}-{h}",
        creation_timestamp=f"2024-01-01T00:00:{second:02d}Z",
    )


def rs_pods(rs: ReplicaSet, running: int, pending: int = 0, first_node: int = 0) -> list[Pod]:
    """``running`` pods of ``rs`` bound to node-<i> (one per node) and ``pending`` unbound ones."""
    pods = []
    for i in range(running + pending):
        bound = i < running
        pods.append(Pod(
            namespace=rs.namespace,
            name=f"{rs.name}-{i}",
            labels=dict(rs.template.labels),
            spec=replace(rs.template.spec, node_name=f"node-{first_node + i}" if bound else ""),
            phase="Running" if bound else "Pending",
            owner=OwnerRef("ReplicaSet", rs.name, rs.uid, True),
            uid=f"uid-{rs.name}-{i}",
            creation_timestamp="2024-01-01T00:00:01Z",
        ))
    return pods


def snapshot(*objs: object, nodes: int = 0) -> Snapshot:
    s = Snapshot()
    for i in range(nodes):
        n = node(f"node-{i}")
        s.nodes[n.name] = n
    for o in objs:
        if isinstance(o, Deployment):
            s.deployments[o.key] = o
        elif isinstance(o, ReplicaSet):
            s.replicasets[o.key] = o
        elif isinstance(o, StatefulSet):
            s.statefulsets[o.key] = o
        elif isinstance(o, Pod):
            s.pods[o.key] = o
        elif isinstance(o, PodDisruptionBudget):
            s.pdbs[o.key] = o
        elif isinstance(o, list):
            for p in o:
                s.pods[p.key] = p
        else:
            raise TypeError(o)
    return s


# --------------------------------------------------------------------------- the fake world


Fits = Callable[[Snapshot, Pod, str], bool]


def anywhere(snap: Snapshot, pod: Pod, node_name: str) -> bool:
    return True


def hostname_anti_affinity(snap: Snapshot, pod: Pod, node_name: str) -> bool:
    """Required hostname anti-affinity against the pod's own app (seed 004)."""
    app = pod.labels.get("app")
    return not any(
        p.spec.node_name == node_name and p.labels.get("app") == app and not p.terminal
        for p in snap.pods.values()
    )


def schedule(snap: Snapshot, fits: Fits = anywhere) -> bool:
    """The fake scheduler and kubelet: each Pending pod goes to the first node it fits on and runs."""
    moved = False
    for key in sorted(snap.pods):
        pod = snap.pods[key]
        if pod.spec.node_name or pod.terminal:
            continue
        for name in sorted(snap.nodes):
            if fits(snap, pod, name):
                snap.pods[key] = replace(pod, spec=replace(pod.spec, node_name=name), phase="Running")
                moved = True
                break
    return moved


def run(snap: Snapshot, fits: Fits = anywhere, rounds: int = 30, check: Callable[[Snapshot], None] | None = None) -> list:
    """Alternate controller passes and scheduling until nothing changes; returns every action."""
    history: list = []
    for _ in range(rounds):
        actions = reconcile(snap)
        apply(snap, actions)
        history.extend(actions)
        if check is not None:
            check(snap)
        moved = schedule(snap, fits)
        if not actions and not moved:
            return history
    raise AssertionError("the simulated world did not settle")


def pods_of(snap: Snapshot, image: str) -> list[Pod]:
    return [p for p in snap.pods.values() if p.spec.images == (image,)]


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


# --------------------------------------------------------------------------- replica_set.go


def test_replicaset_creates_missing_pods_with_generated_names() -> None:
    """replica_set.go manageReplicas (diff < 0): pods from the template, controller reference to the
    ReplicaSet, <rs>-<5 characters> names, deterministic."""
    d = deployment(3)
    rs = replicaset(d, "v1", 3, 1)
    snap = snapshot(d, rs, rs_pods(rs, 1))
    actions = reconcile_replicaset(snap, rs.key)
    pods = [a.pod for a in actions if isinstance(a, CreatePod)]
    assert len(pods) == 2
    for p in pods:
        assert p.name.startswith(f"{rs.name}-") and len(p.name) == len(rs.name) + 6
        assert p.owner == OwnerRef("ReplicaSet", rs.name, rs.uid, True)
        assert p.labels == rs.template.labels and p.phase == "Pending" and p.uid
    assert len({p.name for p in pods}) == 2
    assert [a.pod.name for a in reconcile_replicaset(snap, rs.key) if isinstance(a, CreatePod)] == [p.name for p in pods]


def _ranked(*pods: Pod) -> list[str]:
    return [p.name for p in pods_to_delete(list(pods), list(pods), len(pods) - 1, controllers.BASE_TIME)]


@pytest.mark.parametrize(
    "a, b, first",
    [
        # controller_utils_test.go TestSortingActivePodsWithRanks: which of two pods is deleted first
        (dict(node_name=""), dict(node_name="n1"), "a"),  # 1. unassigned < assigned
        (dict(node_name="n1", phase="Pending"), dict(node_name="n2", phase="Running"), "a"),  # 2. Pending < Running
        (dict(node_name="n1", phase="Unknown"), dict(node_name="n2", phase="Running"), "a"),  # 2. Unknown < Running
        (dict(node_name="n1", cost="-5"), dict(node_name="n2"), "a"),  # 4. lower pod-deletion-cost first
        (dict(node_name="n1", created="2024-01-01T00:00:09Z"), dict(node_name="n2", created=""), "b"),  # 8. empty creation time first
    ],
)
def test_deletion_ranking(a: dict, b: dict, first: str) -> None:
    def mk(name: str, node_name: str = "", phase: str | None = None, cost: str | None = None, created: str = "2024-01-01T00:00:01Z") -> Pod:
        return Pod("default", name, {"app": "web"}, PodSpec(node_name=node_name), phase=phase or ("Running" if node_name else "Pending"),
                   annotations={"controller.kubernetes.io/pod-deletion-cost": cost} if cost else {}, creation_timestamp=created, uid=name)

    pa, pb = mk("a", **a), mk("b", **b)
    assert _ranked(pa, pb) == [first]
    assert _ranked(pb, pa) == [first]


def test_deletion_ranking_doubled_up_first() -> None:
    """controller_utils.go ActivePodsWithRanks rule 5: a pod sharing its node with more related
    pods is deleted first (getPodsRankedByRelatedPodsOnSameNode)."""
    pods = [Pod("default", n, {}, PodSpec(node_name=h), phase="Running", creation_timestamp="2024-01-01T00:00:01Z", uid=n)
            for n, h in (("a", "n1"), ("b", "n2"), ("c", "n2"))]
    victims = pods_to_delete(pods, pods, 1, controllers.BASE_TIME)
    assert victims[0].name in ("b", "c")


def test_replicaset_scale_down_prefers_pending_pods() -> None:
    """replica_set.go getPodsToDelete: scaling 3 -> 1 deletes the unscheduled pod before a running one."""
    d = deployment(1)
    rs = replicaset(d, "v1", 1, 1)
    snap = snapshot(d, rs, rs_pods(rs, 2, 1))
    deleted = [a.key for a in reconcile_replicaset(snap, rs.key) if isinstance(a, DeletePod)]
    assert len(deleted) == 2 and f"default/{rs.name}-2" in deleted


# --------------------------------------------------------------------------- stateful_set_control.go


def statefulset(
    replicas: int = 3,
    *,
    policy: str = "OrderedReady",
    image: str = "v1",
    when_scaled: str = "Retain",
    when_deleted: str = "Retain",
    partition: int = 0,
    strategy: str = "RollingUpdate",
) -> StatefulSet:
    return StatefulSet(
        namespace="default",
        name="db",
        replicas=replicas,
        selector=sel({"app": "db"}),
        template=template("db", image),
        pod_management_policy=policy,
        update_strategy_type=strategy,
        partition=partition,
        volume_claim_templates=(ClaimTemplate(name="data", request=Gi, access_modes=("ReadWriteOnce",)),),
        retention_when_scaled=when_scaled,
        retention_when_deleted=when_deleted,
        uid="uid-db",
    )


def created_pods(actions: list) -> list[str]:
    return [a.pod.name for a in actions if isinstance(a, CreatePod)]


def deleted_pods(actions: list) -> list[str]:
    return [a.key.split("/", 1)[1] for a in actions if isinstance(a, DeletePod)]


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


# --------------------------------------------------------------------------- disruption


def pdb(min_available: int | str | None = None, max_unavailable: int | str | None = None, selector: LabelSelector | None = None) -> PodDisruptionBudget:
    return PodDisruptionBudget("default", "budget", selector if selector is not None else sel({"app": "web"}), min_available, max_unavailable)


def bare_rs(replicas: int) -> ReplicaSet:
    return ReplicaSet("default", "rs", replicas, sel({"app": "web"}), template("web", "v1"), uid="uid-rs")


def web_pod(name: str, ready: bool = True, owner: OwnerRef | None = None) -> Pod:
    return Pod("default", name, {"app": "web"}, PodSpec(node_name="n1" if ready else ""), phase="Running" if ready else "Pending", owner=owner)


RS_OWNER = OwnerRef("ReplicaSet", "rs", "uid-rs", True)


@pytest.mark.parametrize(
    "budget, pods, rs_replicas, want",
    [
        # disruption_test.go, VerifyPdbStatus(disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods)
        # TestUnavailable: minAvailable 3 over 4 ready pods, then one unready
        (pdb(min_available=3), [web_pod(f"p{i}") for i in range(4)], None, (1, 4, 3, 4)),
        (pdb(min_available=3), [web_pod(f"p{i}") for i in range(3)] + [web_pod("p3", ready=False)], None, (0, 3, 3, 4)),
        # TestIntegerMaxUnavailable: a pod without a controller -> no disruption
        (pdb(max_unavailable=1), [web_pod("naked")], None, (0, 1, 0, 0)),
        # TestIntegerMaxUnavailableWithScaling: maxUnavailable 2, one pod of a ReplicaSet of 7, then 5
        (pdb(max_unavailable=2), [web_pod("pod", owner=RS_OWNER)], 7, (0, 1, 5, 7)),
        (pdb(max_unavailable=2), [web_pod("pod", owner=RS_OWNER)], 5, (0, 1, 3, 5)),
        # TestPercentageMaxUnavailableWithScaling: 30% of 7 rounds up to 3
        (pdb(max_unavailable="30%"), [web_pod("pod", owner=RS_OWNER)], 7, (0, 1, 4, 7)),
        (pdb(max_unavailable="30%"), [web_pod("pod", owner=RS_OWNER)], 1, (1, 1, 0, 1)),
        # TestReplicaSet: minAvailable 20% of a ReplicaSet of 10
        (pdb(min_available="20%"), [web_pod("pod", owner=RS_OWNER)], 10, (0, 1, 2, 10)),
        # TestNakedPod: a percentage with no controller -> no disruption
        (pdb(min_available="28%"), [web_pod("naked")], None, (0, 1, 0, 0)),
        # a null selector matches no pod
        (PodDisruptionBudget("default", "budget", None, 1, None), [web_pod("p0")], None, (0, 0, 1, 0)),
    ],
)
def test_disruption_status(budget: PodDisruptionBudget, pods: list[Pod], rs_replicas: int | None, want: tuple[int, int, int, int]) -> None:
    objs: list[object] = [budget, *pods]
    if rs_replicas is not None:
        objs.append(bare_rs(rs_replicas))
    st = disruption_status(snapshot(*objs), budget.key)
    assert (st.disruptions_allowed, st.current_healthy, st.desired_healthy, st.expected_pods) == want
    assert disruptions_allowed(snapshot(*objs), budget.key) == want[0]


def test_disruption_statefulset_controller() -> None:
    """disruption_test.go TestStatefulSetController: minAvailable 34% of a StatefulSet of 3 rounds
    up to 2; disruptions are allowed once the third pod is healthy."""
    sts = statefulset(3)
    owner = OwnerRef("StatefulSet", "db", "uid-db", True)
    budget = pdb(min_available="34%", selector=sel({"app": "db"}))
    pods = [replace(web_pod(f"db-{i}", owner=owner), labels={"app": "db"}) for i in range(3)]
    for n in range(1, 4):
        st = disruption_status(snapshot(sts, budget, *pods[:n]), budget.key)
        assert (st.disruptions_allowed, st.current_healthy, st.desired_healthy, st.expected_pods) == ((0 if n < 3 else 1), n, 2, 3)


def test_eviction_refused_when_no_disruption_allowed() -> None:
    """eviction.go checkAndDecrement: with disruptionsAllowed 0 the eviction is refused (429) with
    upstream's message; a pod the budget does not select, or a Pending pod (canIgnorePDB), may go."""
    d = deployment(2, name="web")
    rs = replicaset(d, "v1", 2, 1)
    pods = rs_pods(rs, 2)
    budget = pdb(min_available=2)
    snap = snapshot(d, rs, pods, budget)
    ok, why = can_evict(snap, pods[0].key)
    assert (ok, why) == (False, EVICTION_REFUSED)
    assert why == "Cannot evict pod as it would violate the pod's disruption budget."
    # minAvailable 1: one disruption allowed, then none once a pod is gone
    snap.pdbs[budget.key] = pdb(min_available=1)
    assert can_evict(snap, pods[0].key) == (True, "")
    del snap.pods[pods[0].key]
    assert can_evict(snap, pods[1].key) == (False, EVICTION_REFUSED)
    # canIgnorePDB: a Pending pod is deleted without looking at the budget
    pending = replace(pods[0], spec=replace(pods[0].spec, node_name=""), phase="Pending")
    snap.pods[pending.key] = pending
    assert can_evict(snap, pending.key) == (True, "")
    # two budgets selecting the pod: the eviction subresource refuses
    snap.pdbs["default/other"] = PodDisruptionBudget("default", "other", sel({"app": "web"}), 0, None)
    ok, why = can_evict(snap, pods[1].key)
    assert not ok and "more than one PodDisruptionBudget" in why


def test_eviction_with_max_unavailable_percentage() -> None:
    """disruption.go getExpectedPodCount: maxUnavailable 50% of a Deployment of 3 rounds up to 2,
    so 2 of the 3 running pods may be evicted one after the other, not the third."""
    d = deployment(3)
    rs = replicaset(d, "v1", 3, 1)
    pods = rs_pods(rs, 3)
    snap = snapshot(d, rs, pods, pdb(max_unavailable="50%"))
    for p in pods[:2]:
        assert can_evict(snap, p.key) == (True, "")
        del snap.pods[p.key]
    assert can_evict(snap, pods[2].key) == (False, EVICTION_REFUSED)


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
