"""Check's workload planning against the replay: for a scale to N, the pods check keeps, removes
and creates (and the ReplicaSet it treats as current) are the ones the controllers keep, delete
and create when ``planner simulate --scale N`` runs them.

The replay is the Simulator itself (controllers and scheduler), StatefulSets with
``--pod-management Parallel`` (the same pods, all at once).  Compared only where the two answer
the same question: the cluster is taken as the replay's step 0 leaves it, and the scale must not
be a rollout (at most one ReplicaSet of the Deployment has replicas, no StatefulSet pod is
replaced for an update); a Deployment without a current ReplicaSet is compared on the ReplicaSet the replay
creates and the names of its pods.  Check replaces a Pending pod of the current revision by a
planned one where the replay keeps it, so:

* the running pods check removes are the running pods the replay deletes;
* every pod the replay deletes is one check removes;
* check keeps only pods the replay keeps, and plans N pods in all;
* check's new pods are the replay's new pods (same names, same owner), then one more for each
  Pending pod the replay keeps; StatefulSets: the same claims created.

Only the public entry points are used (plan_workload, Simulator), so this file runs unchanged
against an older planner: ``test_*_old_code_*`` cases are those where the old planning was wrong
(owner by name, timestamps sorted as strings, a template hash of ``repr(spec)``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.domain import (
    LABEL_POD_TEMPLATE_HASH,
    Deployment,
    LabelSelector,
    OwnerRef,
    Pod,
    PodSpec,
    PodTemplate,
    ReplicaSet,
    StatefulSet,
)
from planner.engines.replay import Simulator, Step
from planner.engines.workloads import WorkloadRef, is_running, owned_by, plan_workload
from planner.load import load_snapshot
from planner.snapshot import Snapshot
from tests.builders import node
from tests.conftest import SCENARIOS
from tests.randomcluster import scenarios

pytestmark = pytest.mark.slow  # differential: checked against a brute force / the replay


@dataclass
class Replay:
    created: list[str]  # pod keys, in creation order
    deleted: set[str]
    replicasets_created: list[str]
    replicasets_scaled: set[str]
    claims_created: set[str]
    updated: bool  # pods deleted for a rolling update
    events: list[dict]
    after: Snapshot


_CHANGES = ("created", "deleted", "scheduled", "replicaset-created", "claim-created", "claim-deleted")


@pytest.fixture(autouse=True)
def _every_replica(monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay caps a scale past the cluster's bound at one replica more than the bound (its
    answer is the same, docs/semantics.md); check plans every replica: compared with the replay of
    every replica."""
    from planner.engines import replay

    monkeypatch.setattr(replay, "STEP_SLACK", 10**9)


def replay_scale(snap: Snapshot, ref: WorkloadRef, n: int) -> Replay | None:
    """``planner simulate --scale N``; None when the cluster as read is not settled (step 0 changes
    it: check and the replay would start from different clusters)."""
    policy = "Parallel" if ref.kind == "StatefulSet" else None
    sim = Simulator(snap, seed=1, pod_management=policy)
    result = sim.run([Step("scale", {"ref": ref, "workload": str(ref), "replicas": n})], [ref])
    step0 = result["steps"][0]["events"]
    if any(e["type"] in _CHANGES for e in step0):
        if ref.kind == "Deployment":
            # step 0 is the rollout to spec.replicas: its new ReplicaSet is the one check plans for
            _new_replicaset(snap, ref, None, step0, sim.snap)
        return None
    ev = result["steps"][1]["events"]

    def mine(key: str, where: Snapshot) -> bool:  # the workload's pod, not another's (a preemption victim)
        p = where.pods.get(key)
        return p is None or owned_by(where, p, ref)

    return Replay(
        created=[e["pod"] for e in ev if e["type"] == "created" and mine(e["pod"], sim.snap)],
        deleted={e["pod"] for e in ev if e["type"] == "deleted" and mine(e["pod"], snap)},
        replicasets_created=[e["replicaset"] for e in ev if e["type"] == "replicaset-created"],
        replicasets_scaled={e["replicaset"] for e in ev if e["type"] == "scaled" and e.get("replicas") is not None},
        claims_created={e["claim"] for e in ev if e["type"] == "claim-created"},
        updated=any(e["type"] == "deleted" and "for update" in e.get("reason", "") for e in ev),
        events=ev,
        after=sim.snap,
    )


def settled(snap: Snapshot, ref: WorkloadRef) -> Snapshot:
    """The cluster once the replay's step 0 is over (what ``simulate`` scales)."""
    sim = Simulator(snap, seed=1)
    sim.run([], [ref])
    return sim.snap


def _new_replicaset(snap: Snapshot, ref: WorkloadRef, n: int | None, events: list[dict], after: Snapshot) -> None:
    """No current ReplicaSet: the replay rolls out a new one; check's pods are that ReplicaSet's,
    named as the replay names its pods."""
    plan = plan_workload(snap, ref, n)
    created = [e["replicaset"] for e in events if e["type"] == "replicaset-created"]
    if not created:
        return
    assert len(created) == 1, created
    rs_key = created[0]
    owners = {p.owner.name for p in plan.new if p.owner is not None}
    assert owners <= {rs_key.split("/", 1)[1]}, (owners, rs_key)
    mine = [k.split("/", 1)[1] for e in events if e["type"] == "created" and (k := e["pod"]) in after.pods
            and (p := after.pods[k]).owner is not None and f"{p.namespace}/{p.owner.name}" == rs_key]
    assert [p.name for p in plan.new][: len(mine)] == mine, ([p.name for p in plan.new], mine)


def compare(snap: Snapshot, ref: WorkloadRef, n: int, settle: bool = True) -> bool:
    """Assert that check's plan for N replicas is the replay's scale to N; False when the two are
    not comparable (see the module docstring).  A cluster the replay's step 0 changes is compared
    as step 0 leaves it (``settle``)."""
    r = replay_scale(snap, ref, n)
    if r is None:
        return settle and compare(settled(snap, ref), ref, n, settle=False)
    if ref.kind == "Deployment" and sum(
        1 for rs in snap.replicasets.values()
        if rs.namespace == ref.namespace and rs.owner is not None and rs.owner.name == ref.name and rs.replicas > 0
    ) > 1:
        return False  # several ReplicaSets with replicas: a rollout under way
    plan = plan_workload(snap, ref, n)
    new_names = [p.name for p in plan.new]
    if ref.kind == "Deployment" and r.replicasets_created:
        _new_replicaset(snap, ref, n, r.events, r.after)
        return True
    if ref.kind == "Deployment" and len(r.replicasets_scaled) > 1:
        return False  # proportional scaling of several ReplicaSets: a rollout under way
    if r.updated:
        return False  # a StatefulSet's rolling update
    removed = {p.key for p in plan.remove}
    removed_running = {p.key for p in plan.remove if is_running(p)}
    running_before = {k for k, p in snap.pods.items() if is_running(p)}
    assert removed_running == r.deleted & running_before, (sorted(removed_running), sorted(r.deleted))
    assert r.deleted <= removed, (sorted(r.deleted), sorted(removed))
    kept = {p.key for p in plan.keep}
    assert kept <= set(r.after.pods) and not kept & r.deleted, (sorted(kept), sorted(r.deleted))
    assert len(plan.keep) + len(plan.new) == n
    pending_kept = [k for k in removed - removed_running if k not in r.deleted]
    created = [k.split("/", 1)[1] for k in r.created]
    assert len(new_names) == len(created) + len(pending_kept), (new_names, created, pending_kept)
    if ref.kind == "StatefulSet":
        assert set(created) <= set(new_names), (new_names, created)
        assert {c.key for c in plan.new_claims} == r.claims_created
    else:
        assert new_names[: len(created)] == created, (new_names, created)
        owners = {p.owner.name for p in plan.new if p.owner is not None}
        replay_owners = {p.owner.name for k in r.created if (p := r.after.pods.get(k)) is not None and p.owner is not None}
        assert owners == replay_owners or not created, (owners, replay_owners)
    return True


# --------------------------------------------------------------------------- random clusters


def at_update_revision(snap: Snapshot, ref: WorkloadRef) -> Snapshot:
    """A StatefulSet's pods labelled with the revision the controller computes for its template
    (randomcluster draws them without one: to the replay, a rolling update)."""
    if ref.kind != "StatefulSet":
        return snap
    sim = Simulator(snap, seed=1)
    sim.run([], [ref])
    sts = sim.snap.statefulsets[ref.key]
    out = snap.copy()
    out.statefulsets[ref.key] = replace(out.statefulsets[ref.key], current_revision=sts.update_revision,
                                        update_revision=sts.update_revision)
    for k, p in snap.pods.items():
        if p.owner is not None and p.owner.kind == "StatefulSet" and p.owner.name == ref.name:
            out.pods[k] = replace(p, labels={**p.labels, "controller-revision-hash": sts.update_revision})
    return out


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios(), st.integers(0, 5))
def test_random_clusters(sc, n):
    COMPARED.append(compare(at_update_revision(sc.snapshot, sc.ref), sc.ref, n))


COMPARED: list[bool] = []


def test_random_clusters_were_compared():
    """Most draws are comparable (run after test_random_clusters, in file order)."""
    if COMPARED:
        assert sum(COMPARED) >= 0.8 * len(COMPARED), (sum(COMPARED), len(COMPARED))


# --------------------------------------------------------------------------- the bundled scenarios


def _workloads(snap: Snapshot) -> list[tuple[WorkloadRef, int]]:
    out = [(WorkloadRef("Deployment", d.namespace, d.name), d.replicas) for d in snap.deployments.values()]
    out += [(WorkloadRef("StatefulSet", s.namespace, s.name), s.replicas) for s in snap.statefulsets.values()]
    return out


def _counts(replicas: int) -> list[int]:
    return sorted({0, 1, max(replicas - 1, 0), replicas, replicas + 2})


def _variants(snap: Snapshot) -> list[tuple[str, Snapshot]]:
    """The scenario as read and one-change variants of it: timestamps written with another UTC
    offset or fractional seconds, a pod-deletion-cost, an orphan copy of a pod (its owner's uid
    differs), a stale ReplicaSet of an earlier Deployment of the same name."""
    out = [("as read", snap)]
    running = [p for p in snap.pods.values() if is_running(p) and p.owner is not None]
    if running:
        s = snap.copy()
        for i, p in enumerate(running):
            # the same instants, spelt with +05:00 (a string sort is now off by five hours), a
            # few with fractional seconds
            ts = f"2024-01-01T{5 + i % 12:02d}:{i % 60:02d}:00{'.5' if i % 3 == 0 else ''}+05:00"
            s.pods[p.key] = replace(p, creation_timestamp=ts, uid=p.uid or f"uid-{p.name}")
        out.append(("timestamps with an offset", s))
        s = snap.copy()
        p = running[len(running) // 2]
        s.pods[p.key] = replace(p, annotations={**p.annotations, "controller.kubernetes.io/pod-deletion-cost": "-5"})
        out.append(("a pod-deletion-cost", s))
        s = snap.copy()
        assert p.owner is not None
        orphan = replace(p, name=p.name + "x", owner=replace(p.owner, uid="uid-of-a-deleted-owner"))
        s.pods[orphan.key] = orphan
        out.append(("an orphan pod", s))
    for d in snap.deployments.values():
        s = snap.copy()
        stale = ReplicaSet(d.namespace, f"{d.name}-stale", 0, d.selector, d.template,
                           owner=OwnerRef("Deployment", d.name, "uid-of-a-deleted-deployment", True),
                           creation_timestamp="2020-01-01T00:00:00Z", uid="uid-stale")
        s.replicasets[stale.key] = stale
        out.append((f"a stale ReplicaSet of deployment {d.name}", s))
    return out


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
def test_bundled_scenarios(path):
    snap = load_snapshot([str(path)])
    compared = 0
    tried = 0
    for what, variant in _variants(snap):
        for ref, replicas in _workloads(variant):
            for n in _counts(replicas):
                tried += 1
                try:
                    compared += compare(variant, ref, n)
                except AssertionError as e:
                    raise AssertionError(f"{what}: {ref} -> {n}: {e}") from e
    BUNDLED.append((compared, tried))


BUNDLED: list[tuple[int, int]] = []


def test_bundled_scenarios_were_compared():
    """Most of the scales are comparable (run after test_bundled_scenarios, in file order; a
    scenario caught mid-rollout, seed 004, is compared only through its variants' other
    workloads, if any)."""
    if BUNDLED:
        compared, tried = sum(c for c, _ in BUNDLED), sum(t for _, t in BUNDLED)
        assert compared >= tried // 2, (compared, tried)


# --------------------------------------------------------------------------- where the old planning was wrong

NS = "default"
TPL = PodTemplate({"app": "web"}, PodSpec(images=("web:1",)))
SEL = LabelSelector((("app", "web"),))


def _deployment(replicas: int, *rss: tuple[str, int, str, str]) -> tuple[Snapshot, WorkloadRef]:
    """Deployment web (uid dep-uid) with ReplicaSets (name, spec.replicas, creationTimestamp,
    owner uid) of its template; three nodes."""
    snap = Snapshot()
    for i in range(3):
        n = node(f"node-{i}", zone=f"zone-{'abc'[i]}")
        snap.nodes[n.name] = n
    d = Deployment(NS, "web", replicas, SEL, TPL, uid="dep-uid")
    snap.deployments[d.key] = d
    for name, n_rs, ts, owner_uid in rss:
        h = name.rsplit("-", 1)[1]
        t = replace(TPL, labels={**TPL.labels, LABEL_POD_TEMPLATE_HASH: h})
        rs = ReplicaSet(NS, name, n_rs, SEL, t, owner=OwnerRef("Deployment", "web", owner_uid, True),
                        labels=dict(t.labels), uid=f"uid-{name}", creation_timestamp=ts)
        snap.replicasets[rs.key] = rs
    return snap, WorkloadRef("Deployment", NS, "web")


def _pod(snap: Snapshot, rs_name: str, name: str, node_name: str, ts: str, uid: str | None = None) -> Pod:
    rs = snap.replicasets[f"{NS}/{rs_name}"]
    p = Pod(NS, name, dict(rs.template.labels), replace(rs.template.spec, node_name=node_name), phase="Running",
            owner=OwnerRef("ReplicaSet", rs_name, rs.uid if uid is None else uid, True), uid=f"uid-{name}",
            creation_timestamp=ts)
    snap.pods[p.key] = p
    return p


def test_old_code_current_replicaset_by_time_not_string():
    """FindNewReplicaSet takes the oldest ReplicaSet with the template: 10:00+02:00 is 08:00Z,
    older than 09:00Z, though it sorts after it as a string."""
    snap, ref = _deployment(2, ("web-aaaa", 2, "2024-01-01T10:00:00+02:00", "dep-uid"),
                            ("web-bbbb", 0, "2024-01-01T09:00:00Z", "dep-uid"))
    _pod(snap, "web-aaaa", "web-aaaa-1", "node-0", "2024-01-01T10:00:00+02:00")
    _pod(snap, "web-aaaa", "web-aaaa-2", "node-1", "2024-01-01T10:00:00+02:00")
    assert compare(snap, ref, 3)
    assert {p.owner.name for p in plan_workload(snap, ref, 3).new if p.owner} == {"web-aaaa"}


def test_old_code_replicaset_of_an_earlier_deployment_of_the_same_name():
    """ListReplicaSets: a ReplicaSet whose controller is a Deployment ``web`` of another uid (an
    earlier one, deleted) is not this Deployment's, even with the same name prefix and template."""
    snap, ref = _deployment(1, ("web-cccc", 1, "2024-01-01T09:00:00Z", "dep-uid"),
                            ("web-dddd", 0, "2023-01-01T09:00:00Z", "uid-of-a-deleted-deployment"))
    _pod(snap, "web-cccc", "web-cccc-1", "node-0", "2024-01-01T09:00:00Z")
    assert compare(snap, ref, 3)
    plan = plan_workload(snap, ref, 3)
    assert [p.name for p in plan.keep] == ["web-cccc-1"]
    assert {p.owner.name for p in plan.new if p.owner} == {"web-cccc"}


@pytest.mark.parametrize("fraction", [False, True])
def test_old_code_scale_down_removes_the_newest_pod_by_time(fraction):
    """getPodsToDelete (ActivePodsWithRanks, rule 8): the newer pod goes first.  Y is newer than X,
    though X sorts after Y as a string (another UTC offset; or fractional seconds: '.' < 'Z')."""
    if fraction:
        x_ts, y_ts = "2024-01-01T00:00:00Z", "2024-01-01T00:00:00.900Z"
    else:
        x_ts, y_ts = "2024-01-01T12:00:00+10:00", "2024-01-01T05:00:00Z"
    snap, ref = _deployment(2, ("web-eeee", 2, "2023-12-31T00:00:00Z", "dep-uid"))
    _pod(snap, "web-eeee", "web-eeee-x", "node-0", x_ts)
    _pod(snap, "web-eeee", "web-eeee-y", "node-1", y_ts)
    assert compare(snap, ref, 1)
    assert [p.name for p in plan_workload(snap, ref, 1).remove] == ["web-eeee-y"]


def test_old_code_orphan_pod_with_a_matching_owner_name():
    """A pod naming the ReplicaSet as controller with another uid is not its pod
    (IsControlledBy): the ReplicaSet still needs its replicas, and a scale-down never picks it."""
    snap, ref = _deployment(2, ("web-ffff", 2, "2024-01-01T00:00:00Z", "dep-uid"))
    _pod(snap, "web-ffff", "web-ffff-1", "node-0", "2024-01-01T00:00:00Z")
    _pod(snap, "web-ffff", "web-ffff-2", "node-1", "2024-01-01T00:00:00Z")
    _pod(snap, "web-ffff", "web-ffff-9", "node-1", "2024-01-01T00:00:05Z", uid="uid-of-a-deleted-replicaset")
    for n in (1, 2, 3):
        assert compare(snap, ref, n)
    assert "default/web-ffff-9" not in {p.key for p in plan_workload(snap, ref, 1).remove}


def test_old_code_new_replicaset_name_is_the_controllers_hash():
    """No ReplicaSet has the template: check's pods belong to the ReplicaSet the Deployment
    controller creates, ``<deployment>-<ComputeHash(template)>``."""
    snap, ref = _deployment(2)
    compare(snap, ref, 2)  # step 0 creates the ReplicaSet: compared there, then on what it leaves
    owners = {p.owner.name for p in plan_workload(snap, ref, 2).new if p.owner}
    assert owners == {settled(snap, ref).replicasets.popitem()[1].name}


def test_old_code_statefulset_ordinal_with_a_leading_zero():
    """getParentNameAndOrdinal: ``db-01`` is the set's pod of ordinal 1 (strconv.ParseInt)."""
    snap = Snapshot()
    for i in range(2):
        n = node(f"node-{i}", zone="zone-a")
        snap.nodes[n.name] = n
    sts = StatefulSet(NS, "db", 2, LabelSelector((("app", "db"),)), PodTemplate({"app": "db"}, PodSpec(images=("db:1",))),
                      uid="sts-uid", pod_management_policy="Parallel")
    snap.statefulsets[sts.key] = sts
    for name, node_name in (("db-0", "node-0"), ("db-01", "node-1")):
        p = Pod(NS, name, {"app": "db"}, PodSpec(images=("db:1",), node_name=node_name), phase="Running",
                owner=OwnerRef("StatefulSet", "db", "sts-uid", True), uid=f"uid-{name}", creation_timestamp="2024-01-01T00:00:00Z")
        snap.pods[p.key] = p
    ref = WorkloadRef("StatefulSet", NS, "db")
    assert compare(snap, ref, 2)
    assert not plan_workload(snap, ref, 2).new


def test_the_comparison_sees_a_difference():
    """compare() fails when check's plan and the replay differ (a plan that keeps a pod the
    replay deletes)."""
    snap, ref = _deployment(2, ("web-gggg", 2, "2024-01-01T00:00:00Z", "dep-uid"))
    _pod(snap, "web-gggg", "web-gggg-1", "node-0", "2024-01-01T00:00:00Z")
    _pod(snap, "web-gggg", "web-gggg-2", "node-1", "2024-01-01T00:00:01Z")
    import planner.engines.workloads as w

    real = w.plan_workload

    def wrong(snap, ref, n):  # keeps the pods in the other order
        plan = real(snap, ref, n)
        return dataclasses.replace(plan, keep=plan.remove, remove=plan.keep)

    globals()["plan_workload"] = wrong
    try:
        with pytest.raises(AssertionError):
            compare(snap, ref, 1)
    finally:
        globals()["plan_workload"] = real
