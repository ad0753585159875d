"""The Deployment controller.

Upstream (kubernetes/kubernetes, current stable release):
* pkg/controller/deployment/deployment_controller.go syncDeployment: paused or scaling event ->
  sync, otherwise the strategy's rollout;
* pkg/controller/deployment/sync.go: getAllReplicaSetsAndSyncRevision, getNewReplicaSet, sync,
  scale (proportional scaling), isScalingEvent, scaleReplicaSetAndRecordEvent, scaleReplicaSet;
* pkg/controller/deployment/rolling.go: rolloutRolling, reconcileNewReplicaSet,
  reconcileOldReplicaSets, cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate;
* pkg/controller/deployment/recreate.go: rolloutRecreate, scaleDownOldReplicaSetsForRecreate,
  oldPodsRunning, scaleUpNewReplicaSetForRecreate;
* pkg/controller/deployment/util/deployment_util.go: ResolveFenceposts, MaxUnavailable,
  MaxSurge, NewRSNewReplicas, FindNewReplicaSet, FindOldReplicaSets, EqualIgnoreHash,
  FindActiveOrLatest, IsSaturated, GetReplicaSetProportion, DeploymentComplete,
  SetNewReplicaSetAnnotations, the Get*ReplicaCountForReplicaSets sums;
* pkg/controller/controller_utils.go: FilterActiveReplicaSets, ReplicaSetsByCreationTimestamp,
  ReplicaSetsBySizeOlder / ReplicaSetsBySizeNewer.

A ReplicaSet's status (replicas, availableReplicas) is computed from the snapshot's pods, as the
ReplicaSet controller would report it (planner.controllers.replicaset.replicaset_status): a pod is
available once Ready for the ReplicaSet's minReadySeconds, which getNewReplicaSet copies from the
Deployment, so maxUnavailable counts a Ready but not yet available pod as unavailable.

Simplified: the Deployment object itself is never written (status, conditions, the revision
annotation, collisionCount); old ReplicaSets beyond revisionHistoryLimit are not deleted
(cleanupDeployment); progressDeadlineSeconds is not modelled; on an existing new ReplicaSet
only the revision annotation (a rollback) and spec.minReadySeconds are synced, not the copied
Deployment annotations; rollbackTo (extensions/v1beta1) does not exist in apps/v1.
Template equality (EqualIgnoreHash) compares planner's domain form of the pod template, which
keeps what scheduling needs (images included) but not, for example, environment variables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from planner.controllers.actions import Action, CreateReplicaSet, ScaleReplicaSet
from planner.controllers.controller_utils import controlled_by, object_uid, parse_time
from planner.controllers.informers import Clock, index_of, indexed
from planner.controllers.intstr import scaled_value
from planner.controllers.replicaset import ReplicaSetStatus, pods_of_replicaset, replicaset_status
from planner.controllers.template_hash import compute_hash, deployment_collision_count
from planner.domain import (
    LABEL_POD_TEMPLATE_HASH,
    Deployment,
    IntOrString,
    LabelSelector,
    OwnerRef,
    PodTemplate,
    ReplicaSet,
    RollingUpdateDeployment,
)
from planner.snapshot import Snapshot

# deployment_util.go annotations.
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas"
# deployment_util.go annotationsToSkip (never copied from the Deployment to its ReplicaSets).
_SKIP_ANNOTATIONS = frozenset({
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    DESIRED_REPLICAS_ANNOTATION,
    MAX_REPLICAS_ANNOTATION,
    "deprecated.deployment.rollback.to",
})
# sync.go maxRevHistoryLengthInChars.
_MAX_REV_HISTORY_LENGTH = 2000


# --------------------------------------------------------------------------- deployment_util.go


def is_rolling_update(d: Deployment) -> bool:
    """deployment_util.go IsRollingUpdate."""
    return d.strategy_type == "RollingUpdate"


def _rolling(d: Deployment) -> RollingUpdateDeployment:
    return d.rolling_update if d.rolling_update is not None else RollingUpdateDeployment()


def resolve_fenceposts(max_surge: IntOrString | None, max_unavailable: IntOrString | None, desired: int) -> tuple[int, int]:
    """deployment_util.go ResolveFenceposts: maxSurge rounded up, maxUnavailable rounded down; if
    both resolve to 0, maxUnavailable is 1 (surge might not work due to quota)."""
    surge = scaled_value(max_surge, desired, True)
    unavailable = scaled_value(max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_unavailable(d: Deployment) -> int:
    """deployment_util.go MaxUnavailable (capped at spec.replicas)."""
    if not is_rolling_update(d) or d.replicas == 0:
        return 0
    ru = _rolling(d)
    _, unavailable = resolve_fenceposts(ru.max_surge, ru.max_unavailable, d.replicas)
    return min(unavailable, d.replicas)


def max_surge(d: Deployment) -> int:
    """deployment_util.go MaxSurge."""
    if not is_rolling_update(d):
        return 0
    ru = _rolling(d)
    surge, _ = resolve_fenceposts(ru.max_surge, ru.max_unavailable, d.replicas)
    return surge


def new_rs_new_replicas(d: Deployment, all_rss: list[ReplicaSet], new_rs: ReplicaSet) -> int:
    """deployment_util.go NewRSNewReplicas: RollingUpdate grows the new ReplicaSet up to
    replicas + maxSurge pods in total, never beyond spec.replicas; Recreate takes spec.replicas."""
    if d.strategy_type == "RollingUpdate":
        surge = scaled_value(_rolling(d).max_surge, d.replicas, True)
        current = get_replica_count(all_rss)
        max_total = d.replicas + surge
        if current >= max_total:
            return new_rs.replicas
        scale_up = min(max_total - current, d.replicas - new_rs.replicas)
        return new_rs.replicas + scale_up
    if d.strategy_type == "Recreate":
        return d.replicas
    raise ValueError(f"deployment type {d.strategy_type} isn't supported")


def _strip_hash(t: PodTemplate) -> PodTemplate:
    if LABEL_POD_TEMPLATE_HASH not in t.labels:
        return t
    return replace(t, labels={k: v for k, v in t.labels.items() if k != LABEL_POD_TEMPLATE_HASH})


_TEMPLATE_FIELDS = tuple(f.name for f in fields(PodTemplate) if f.compare)


def equal_ignore_hash(t1: PodTemplate, t2: PodTemplate) -> bool:
    """deployment_util.go EqualIgnoreHash: equal templates once pod-template-hash is removed (the
    whole template: what the scheduler reads, and PodTemplate.rest for the rest of it).

    ``_strip_hash(t1) == _strip_hash(t2)``, field by field without building the copies, and
    remembered per pair of template objects (a sync compares the same ones several times; the
    entry holds both, so their ids stay theirs)."""
    if t1 is t2:
        return True
    hit = _EQUAL.get((id(t1), id(t2)))
    if hit is not None and hit[0] is t1 and hit[1] is t2:
        return hit[2]
    if len(_EQUAL) >= _EQUAL_MAX:
        _EQUAL.clear()
    eq = _equal_ignore_hash(t1, t2)
    _EQUAL[(id(t1), id(t2))] = (t1, t2, eq)
    return eq


_EQUAL: dict[tuple[int, int], tuple[PodTemplate, PodTemplate, bool]] = {}
_EQUAL_MAX = 1 << 16


def _equal_ignore_hash(t1: PodTemplate, t2: PodTemplate) -> bool:
    if type(t1) is not PodTemplate or type(t2) is not PodTemplate:
        return _strip_hash(t1) == _strip_hash(t2)
    if _TEMPLATE_FIELDS == ("labels", "spec", "annotations", "rest"):  # the fields, spelt out: cheaper
        if t1.rest != t2.rest:
            return False
        s1, s2 = t1.spec, t2.spec
        if s1 is not s2 and not s1 == s2:
            return False
        n1, n2 = t1.annotations, t2.annotations
        if n1 is not n2 and not n1 == n2:
            return False
        l1, l2 = t1.labels, t2.labels
        if LABEL_POD_TEMPLATE_HASH in l1:
            l1 = {k: v for k, v in l1.items() if k != LABEL_POD_TEMPLATE_HASH}
        if LABEL_POD_TEMPLATE_HASH in l2:
            l2 = {k: v for k, v in l2.items() if k != LABEL_POD_TEMPLATE_HASH}
        return l1 is l2 or l1 == l2
    for name in _TEMPLATE_FIELDS:
        a, b = getattr(t1, name), getattr(t2, name)
        if name == "labels":
            if LABEL_POD_TEMPLATE_HASH in a:
                a = {k: v for k, v in a.items() if k != LABEL_POD_TEMPLATE_HASH}
            if LABEL_POD_TEMPLATE_HASH in b:
                b = {k: v for k, v in b.items() if k != LABEL_POD_TEMPLATE_HASH}
        if a is not b and not a == b:
            return False
    return True


def _by_creation(rs: ReplicaSet) -> tuple:
    """controller_utils.go ReplicaSetsByCreationTimestamp (an empty timestamp sorts first)."""
    ts = rs.creation_timestamp
    k = _CREATION_KEYS.get(ts)
    if k is None:
        t = parse_time(ts)
        k = (t is not None, t.timestamp() if t is not None else 0.0)
        if len(_CREATION_KEYS) >= _EQUAL_MAX:
            _CREATION_KEYS.clear()
        _CREATION_KEYS[ts] = k
    return (k[0], k[1], rs.name)


_CREATION_KEYS: dict[str, tuple[bool, float]] = {}


def replicasets_of(snap: Snapshot, d: Deployment) -> list[ReplicaSet]:
    """deployment_util.go ListReplicaSets: the ReplicaSets the Deployment controls, oldest first."""
    owned = index_of(snap).owned_replicasets(snap, d.namespace, "Deployment", d.name)
    return sorted((rs for rs in owned if controlled_by(rs.owner, "Deployment", d.name, d.uid)), key=_by_creation)


def find_new_replicaset(d: Deployment, rs_list: list[ReplicaSet]) -> ReplicaSet | None:
    """deployment_util.go FindNewReplicaSet: the oldest ReplicaSet whose template equals the
    Deployment's, ignoring the pod-template-hash label."""
    for rs in sorted(rs_list, key=_by_creation):
        if equal_ignore_hash(rs.template, d.template):
            return rs
    return None


def new_replicaset_of(snap: Snapshot, d: Deployment) -> ReplicaSet | None:
    """FindNewReplicaSet(d, ListReplicaSets(d)): the Deployment's current ReplicaSet, if any."""
    return find_new_replicaset(d, replicasets_of(snap, d))


def new_replicaset_identity(snap: Snapshot, d: Deployment) -> tuple[str, str, ReplicaSet | None]:
    """sync.go getNewReplicaSet's identity for the new ReplicaSet: ``(name, pod-template-hash,
    clash)``, the name ``<deployment>-<ComputeHash(template, status.collisionCount)>``; a
    ReplicaSet of that name that the Deployment controls with its template is ``clash`` (the new
    ReplicaSet already), any other is a hash collision: collisionCount + 1, retry."""
    collision = deployment_collision_count(snap, d)
    while True:
        h = compute_hash(snap, d, collision)
        name = f"{d.name}-{h}"
        clash = snap.replicasets.get(f"{d.namespace}/{name}")
        if clash is None:
            return name, h, None
        if controlled_by(clash.owner, "Deployment", d.name, d.uid) and equal_ignore_hash(clash.template, d.template):
            return name, h, clash
        collision = (collision or 0) + 1


_UNSET: object = object()


def find_old_replicasets(d: Deployment, rs_list: list[ReplicaSet], new: object = _UNSET) -> tuple[list[ReplicaSet], list[ReplicaSet]]:
    """deployment_util.go FindOldReplicaSets: (old ReplicaSets with replicas, all old ReplicaSets).
    ``new``: find_new_replicaset(d, rs_list) when the caller has it."""
    if new is _UNSET:
        new = find_new_replicaset(d, rs_list)
    assert new is None or isinstance(new, ReplicaSet)
    required: list[ReplicaSet] = []
    all_old: list[ReplicaSet] = []
    for rs in rs_list:
        if new is not None and rs.key == new.key:
            continue
        all_old.append(rs)
        if rs.replicas != 0:
            required.append(rs)
    return required, all_old


def filter_active(rss: list[ReplicaSet | None]) -> list[ReplicaSet]:
    """controller_utils.go FilterActiveReplicaSets: spec.replicas > 0."""
    return [rs for rs in rss if rs is not None and rs.replicas > 0]


def get_replica_count(rss: list[ReplicaSet]) -> int:
    """deployment_util.go GetReplicaCountForReplicaSets: the sum of spec.replicas."""
    return sum(rs.replicas for rs in rss)


def _revision(rs: ReplicaSet) -> int | None:
    """deployment_util.go Revision: the revision annotation (0 when absent, None when unreadable)."""
    v = rs.annotations.get(REVISION_ANNOTATION)
    if v is None:
        return 0
    try:
        return int(v)
    except ValueError:
        return None


def max_revision(rss: list[ReplicaSet]) -> int:
    """deployment_util.go MaxRevision (unreadable revisions skipped)."""
    return max((r for r in (_revision(rs) for rs in rss) if r is not None), default=0)


def _int_annotation(rs: ReplicaSet, key: str) -> int | None:
    """deployment_util.go getIntFromAnnotation / getNonNegativeInt32FromAnnotation: a decimal
    uint32 that fits an int32, else None."""
    v = rs.annotations.get(key)
    if v is None or not v.isascii() or not v.isdigit():
        return None
    n = int(v)
    return n if n <= 2**31 - 1 else None


def _round_half_away(x: float) -> int:
    """k8s.io/utils/integer RoundToInt32 (math.Round: halves away from zero)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


# --------------------------------------------------------------------------- status


@dataclass(frozen=True)
class DeploymentStatus:
    replicas: int  # active pods of every ReplicaSet
    updated_replicas: int  # active pods of the new ReplicaSet
    ready_replicas: int
    available_replicas: int


def deployment_status(snap: Snapshot, d: Deployment) -> DeploymentStatus:
    """sync.go calculateStatus, from the ReplicaSets' statuses."""
    with indexed(snap):
        return _deployment_status(snap, d)


def _deployment_status(snap: Snapshot, d: Deployment) -> DeploymentStatus:
    rss = replicasets_of(snap, d)
    new = find_new_replicaset(d, rss)
    st = {rs.key: replicaset_status(snap, rs) for rs in rss}
    return DeploymentStatus(
        replicas=sum(s.replicas for s in st.values()),
        updated_replicas=st[new.key].replicas if new is not None else 0,
        ready_replicas=sum(s.ready_replicas for s in st.values()),
        available_replicas=sum(s.available_replicas for s in st.values()),
    )


def rollout_complete(snap: Snapshot, dep_key: str) -> bool:
    """deployment_util.go DeploymentComplete: every desired replica is updated and available and
    no old pod is left (status.replicas == updatedReplicas == availableReplicas == spec.replicas)."""
    d = snap.deployments.get(dep_key)
    if d is None:
        return False
    s = deployment_status(snap, d)
    return s.updated_replicas == d.replicas and s.replicas == d.replicas and s.available_replicas == d.replicas


# --------------------------------------------------------------------------- the controller


def reconcile_deployment(snap: Snapshot, key: str) -> list[Action]:
    """deployment_controller.go syncDeployment: a paused Deployment or a scaling event is only
    scaled (sync); otherwise the strategy's rollout runs (Recreate or RollingUpdate)."""
    with indexed(snap):
        return _reconcile_deployment(snap, key)


def _reconcile_deployment(snap: Snapshot, key: str) -> list[Action]:
    """reconcile_deployment with an index attached."""
    d = snap.deployments.get(key)
    if d is None:
        return []
    if SETTLED_SHORTCUT and _settled(snap, d):
        return []
    s = _DeploymentSync(snap, d)
    if d.paused or s.is_scaling_event():
        s.sync()
    elif d.strategy_type == "Recreate":
        s.rollout_recreate()
    else:
        s.rollout_rolling()
    return s.actions


# tests/controllers/test_deployment_settled.py turns it off to hold _settled to the full sync
SETTLED_SHORTCUT = True


def _settled(snap: Snapshot, d: Deployment) -> bool:
    """True only when syncDeployment would change nothing, decided without running it (most
    Deployments of a snapshot, every one of them synced at the replay's first pass): a
    RollingUpdate Deployment, not paused, whose new ReplicaSet (FindNewReplicaSet) has
    spec.replicas and the Deployment's minReadySeconds, every old one 0, and a revision no lower
    than MaxRevision(old) + 1.

    Then the sync does nothing: getAllReplicaSetsAndSyncRevision finds the new ReplicaSet and
    SetNewReplicaSetAnnotations has no revision to write; with a scaling event, scale() finds
    the new ReplicaSet the only active one (or, at 0 replicas, the latest) already at
    spec.replicas; without one, reconcileNewReplicaSet sees spec.replicas and
    reconcileOldReplicaSets no old replicas."""
    if d.paused or d.strategy_type != "RollingUpdate":
        return False
    # replicasets_of without its sort: the new ReplicaSet is the oldest of those whose template
    # equals the Deployment's (find_new_replicaset), so only those are sorted, when there are
    # several; an other one with replicas answers at once
    keys = index_of(snap).replicasets.get((d.namespace, "Deployment", d.name))
    if not keys:
        return False
    table, name, uid, template = snap.replicasets, d.name, d.uid, d.template
    equal: list[ReplicaSet] = []
    others: list[ReplicaSet] = []
    for k in keys:
        rs = table.get(k)
        if rs is None or not controlled_by(rs.owner, "Deployment", name, uid):
            continue
        if equal_ignore_hash(rs.template, template):
            equal.append(rs)
        elif rs.replicas != 0:
            return False  # an old ReplicaSet with replicas
        else:
            others.append(rs)
    if not equal:
        return False
    new = equal[0] if len(equal) == 1 else min(equal, key=_by_creation)
    if new.replicas != d.replicas or new.min_ready_seconds != d.min_ready_seconds:
        return False
    for rs in equal:
        if rs is not new:
            if rs.replicas != 0:
                return False
            others.append(rs)
    return not _DeploymentSync._revision_annotations(new, max_revision(others) + 1 if others else 1)


class _DeploymentSync:
    """One syncDeployment of one Deployment: the ReplicaSets as this sync has left them, and the
    actions it took."""

    def __init__(self, snap: Snapshot, d: Deployment) -> None:
        self.snap = snap
        self.d = d
        self.rss: dict[str, ReplicaSet] = {rs.key: rs for rs in replicasets_of(snap, d)}
        self.actions: list[Action] = []
        self.clock = Clock(snap)
        self._status: dict[str, ReplicaSetStatus] = {}
        # the last getAllReplicaSetsAndSyncRevision that changed nothing: (ReplicaSets it saw, new, old)
        self._all: tuple[tuple[int, ...], ReplicaSet | None, list[ReplicaSet]] | None = None

    # ------------------------------------------------------------------ helpers

    def status(self, rs: ReplicaSet) -> ReplicaSetStatus:
        st = self._status.get(rs.key)
        if st is None:
            st = self._status[rs.key] = replicaset_status(self.snap, rs)
        return st

    def available(self, rss: list[ReplicaSet]) -> int:
        """deployment_util.go GetAvailableReplicaCountForReplicaSets."""
        return sum(self.status(rs).available_replicas for rs in rss)

    def actual(self, rss: list[ReplicaSet]) -> int:
        """deployment_util.go GetActualReplicaCountForReplicaSets."""
        return sum(self.status(rs).replicas for rs in rss)

    def _reason(self, text: str) -> str:
        return f"Deployment {self.d.key}: {text}"

    # ------------------------------------------------------------------ sync.go

    def get_all_replicasets_and_sync_revision(self, create: bool) -> tuple[ReplicaSet | None, list[ReplicaSet]]:
        """sync.go getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created if asked) and all
        old ones.  (A second call on the same ReplicaSets returns what the first did when that
        one changed nothing and found the new ReplicaSet, or was not asked to create it.)"""
        seen = tuple(map(id, self.rss.values()))
        hit = self._all
        if hit is not None and hit[0] == seen and (hit[1] is not None or not create):
            return hit[1], list(hit[2])
        n_actions = len(self.actions)
        rs_list = sorted(self.rss.values(), key=_by_creation)
        existing = find_new_replicaset(self.d, rs_list)  # once for both below
        _, all_old = find_old_replicasets(self.d, rs_list, existing)
        new = self.get_new_replicaset(rs_list, all_old, create, existing)
        if len(self.actions) == n_actions and tuple(map(id, self.rss.values())) == seen:
            self._all = (seen, new, list(all_old))
        return new, all_old

    def get_new_replicaset(self, rs_list: list[ReplicaSet], old: list[ReplicaSet], create: bool,
                           existing: object = _UNSET) -> ReplicaSet | None:
        """sync.go getNewReplicaSet: sync the revision of an existing new ReplicaSet (a rollback
        raises it to max + 1, deployment_util.go SetNewReplicaSetAnnotations), or create
        ``<deployment>-<pod-template-hash>`` with revision max + 1 and NewRSNewReplicas replicas.
        ``existing``: find_new_replicaset(d, rs_list) when the caller has it."""
        d = self.d
        if existing is _UNSET:
            existing = find_new_replicaset(d, rs_list)
        assert existing is None or isinstance(existing, ReplicaSet)
        new_revision = max_revision(old) + 1
        if existing is not None:
            ann = self._revision_annotations(existing, new_revision)
            # minReadySecondsNeedsUpdate: the ReplicaSet follows the Deployment's minReadySeconds
            mrs = d.min_ready_seconds if existing.min_ready_seconds != d.min_ready_seconds else None
            if ann or mrs is not None:
                text = f"Updated revision of replica set {existing.name} to {new_revision}" if ann else (
                    f"Updated minReadySeconds of replica set {existing.name} to {d.min_ready_seconds}")
                self.actions.append(ScaleReplicaSet(existing.key, existing.replicas, self._reason(text), ann or None, d.min_ready_seconds))
                existing = replace(existing, annotations={**existing.annotations, **ann}, min_ready_seconds=d.min_ready_seconds)
                self.rss[existing.key] = existing
            return existing
        if not create:
            return None

        name, h, clash = new_replicaset_identity(self.snap, d)
        if clash is not None:
            return clash

        labels = dict(d.template.labels)
        labels[LABEL_POD_TEMPLATE_HASH] = h
        match = dict(d.selector.match_labels)
        match[LABEL_POD_TEMPLATE_HASH] = h
        created = self.clock.tick()
        new_rs = ReplicaSet(
            namespace=d.namespace,
            name=name,
            replicas=0,
            selector=LabelSelector(tuple(sorted(match.items())), d.selector.match_expressions),
            template=replace(d.template, labels=labels),
            owner=OwnerRef("Deployment", d.name, d.uid, True),
            labels=dict(labels),
            annotations={},
            uid=object_uid("ReplicaSet", d.namespace, name, created),
            creation_timestamp=created,
            min_ready_seconds=d.min_ready_seconds,
        )
        replicas = new_rs_new_replicas(d, [*old, new_rs], new_rs)
        ann = {k: v for k, v in d.annotations.items() if k not in _SKIP_ANNOTATIONS}
        ann[REVISION_ANNOTATION] = str(new_revision)
        ann[DESIRED_REPLICAS_ANNOTATION] = str(d.replicas)
        ann[MAX_REPLICAS_ANNOTATION] = str(d.replicas + max_surge(d))
        new_rs = replace(new_rs, replicas=replicas, annotations=ann)
        self.actions.append(CreateReplicaSet(new_rs, self._reason(
            f"Created new replica set {name} (revision {new_revision}): its template differs from every "
            f"ReplicaSet's; scaled up replica set {name} from 0 to {replicas}")))
        self.rss[new_rs.key] = new_rs
        return new_rs

    @staticmethod
    def _revision_annotations(rs: ReplicaSet, new_revision: int) -> dict[str, str]:
        """The revision part of deployment_util.go SetNewReplicaSetAnnotations (exists = true)."""
        old = rs.annotations.get(REVISION_ANNOTATION)
        try:
            old_int = int(old) if old is not None else 0
        except ValueError:
            return {}
        if old_int >= new_revision:
            return {}
        ann = {REVISION_ANNOTATION: str(new_revision)}
        if old is not None:
            history = rs.annotations.get(REVISION_HISTORY_ANNOTATION, "")
            if not history:
                ann[REVISION_HISTORY_ANNOTATION] = old
            else:
                parts = history.split(",")
                total = len(history) + len(old) + 1
                start = 0
                while total > _MAX_REV_HISTORY_LENGTH and start < len(parts):
                    total -= len(parts[start]) + 1
                    start += 1
                if total <= _MAX_REV_HISTORY_LENGTH:
                    ann[REVISION_HISTORY_ANNOTATION] = ",".join([*parts[start:], old])
        return ann

    def scale_rs_and_record_event(self, rs: ReplicaSet, new_scale: int) -> tuple[bool, ReplicaSet]:
        """sync.go scaleReplicaSetAndRecordEvent: nothing to do when the size is already right."""
        if rs.replicas == new_scale:
            return False, rs
        return self.scale_rs(rs, new_scale, "up" if rs.replicas < new_scale else "down")

    def scale_rs(self, rs: ReplicaSet, new_scale: int, operation: str) -> tuple[bool, ReplicaSet]:
        """sync.go scaleReplicaSet: set spec.replicas and the desired/max replicas annotations
        (deployment_util.go SetReplicasAnnotations); True when the size changed."""
        d = self.d
        size_needs_update = rs.replicas != new_scale
        ann = {DESIRED_REPLICAS_ANNOTATION: str(d.replicas), MAX_REPLICAS_ANNOTATION: str(d.replicas + max_surge(d))}
        annotations_need_update = any(rs.annotations.get(k) != v for k, v in ann.items())
        if size_needs_update or annotations_need_update:
            if size_needs_update:
                text = f"Scaled {operation} replica set {rs.name} from {rs.replicas} to {new_scale}"
            else:
                text = f"Updated replica set {rs.name}: desired-replicas {d.replicas}, max-replicas {d.replicas + max_surge(d)}"
            self.actions.append(ScaleReplicaSet(rs.key, new_scale, self._reason(text), ann))
            rs = replace(rs, replicas=new_scale, annotations={**rs.annotations, **ann})
            self.rss[rs.key] = rs
        return size_needs_update, rs

    def is_scaling_event(self) -> bool:
        """sync.go isScalingEvent: an active ReplicaSet whose desired-replicas annotation differs
        from spec.replicas."""
        new, old = self.get_all_replicasets_and_sync_revision(False)
        for rs in filter_active([*old, new]):
            desired = _int_annotation(rs, DESIRED_REPLICAS_ANNOTATION)
            if desired is not None and desired != self.d.replicas:
                return True
        return False

    def sync(self) -> None:
        """sync.go sync: scaling only (a paused Deployment, or a scaling event)."""
        new, old = self.get_all_replicasets_and_sync_revision(False)
        self.scale(new, old)

    def scale(self, new: ReplicaSet | None, old: list[ReplicaSet]) -> None:
        """sync.go scale: one active ReplicaSet takes spec.replicas; a saturated new ReplicaSet
        empties the old ones; otherwise (RollingUpdate) the difference to replicas + maxSurge is
        spread proportionally, larger ReplicaSets first."""
        d = self.d
        active_or_latest = find_active_or_latest(new, old)
        if active_or_latest is not None:
            if active_or_latest.replicas != d.replicas:
                self.scale_rs_and_record_event(active_or_latest, d.replicas)
            return
        if self.is_saturated(new):
            for o in filter_active(list(old)):
                self.scale_rs_and_record_event(o, 0)
            return
        if not is_rolling_update(d):
            return
        all_rss = filter_active([*old, new])
        allowed = d.replicas + max_surge(d) if d.replicas > 0 else 0
        to_add = allowed - get_replica_count(all_rss)
        operation = ""
        if to_add > 0:
            # controller_utils.go ReplicaSetsBySizeNewer: larger first, then newer first
            all_rss.sort(key=_by_creation, reverse=True)
            all_rss.sort(key=lambda rs: -rs.replicas)
            operation = "up"
        elif to_add < 0:
            # controller_utils.go ReplicaSetsBySizeOlder: larger first, then older first
            all_rss.sort(key=_by_creation)
            all_rss.sort(key=lambda rs: -rs.replicas)
            operation = "down"
        added = 0
        size: dict[str, int] = {}
        for rs in all_rss:
            if to_add != 0:
                proportion = self.proportion(rs, to_add, added)
                size[rs.name] = rs.replicas + proportion
                added += proportion
            else:
                size[rs.name] = rs.replicas
        for i, rs in enumerate(all_rss):
            if i == 0 and to_add != 0:
                size[rs.name] = max(size[rs.name] + to_add - added, 0)
            self.scale_rs(rs, size[rs.name], operation)

    def is_saturated(self, rs: ReplicaSet | None) -> bool:
        """deployment_util.go IsSaturated."""
        if rs is None:
            return False
        desired = _int_annotation(rs, DESIRED_REPLICAS_ANNOTATION)
        d = self.d
        return desired is not None and rs.replicas == d.replicas and desired == d.replicas and self.status(rs).available_replicas == d.replicas

    def proportion(self, rs: ReplicaSet, to_add: int, added: int) -> int:
        """deployment_util.go GetReplicaSetProportion."""
        if rs.replicas == 0 or to_add == 0 or to_add == added:
            return 0
        fraction = self.fraction(rs)
        allowed = to_add - added
        return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)

    def fraction(self, rs: ReplicaSet) -> int:
        """deployment_util.go getReplicaSetFraction."""
        d = self.d
        if d.replicas == 0:
            return -rs.replicas
        deployment_replicas = d.replicas + max_surge(d)
        annotated = _int_annotation(rs, MAX_REPLICAS_ANNOTATION)
        if annotated is None:
            annotated = self.actual(list(self.rss.values()))  # d.Status.Replicas
        if annotated <= 0:
            return 0  # upstream divides by zero here; no proportion is the safe reading
        return _round_half_away(rs.replicas * deployment_replicas / annotated) - rs.replicas

    # ------------------------------------------------------------------ rolling.go

    def rollout_rolling(self) -> None:
        """rolling.go rolloutRolling: scale the new ReplicaSet up if possible, else the old ones down."""
        new, old = self.get_all_replicasets_and_sync_revision(True)
        assert new is not None
        all_rss = [*old, new]
        if self.reconcile_new_replicaset(all_rss, new):
            return
        self.reconcile_old_replicasets(all_rss, filter_active(list(old)), new)

    def reconcile_new_replicaset(self, all_rss: list[ReplicaSet], new: ReplicaSet) -> bool:
        """rolling.go reconcileNewReplicaSet."""
        d = self.d
        if new.replicas == d.replicas:
            return False
        if new.replicas > d.replicas:
            scaled, _ = self.scale_rs_and_record_event(new, d.replicas)
            return scaled
        scaled, _ = self.scale_rs_and_record_event(new, new_rs_new_replicas(d, all_rss, new))
        return scaled

    def reconcile_old_replicasets(self, all_rss: list[ReplicaSet], old: list[ReplicaSet], new: ReplicaSet) -> bool:
        """rolling.go reconcileOldReplicaSets: scale old ReplicaSets down by at most
        allPods - minAvailable - unavailable new pods, unhealthy replicas first."""
        d = self.d
        if get_replica_count(old) == 0:
            return False
        all_pods = get_replica_count(all_rss)
        min_available = d.replicas - max_unavailable(d)
        new_unavailable = new.replicas - self.status(new).available_replicas
        max_scaled_down = all_pods - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        cleaned = self.cleanup_unhealthy_replicas(old, max_scaled_down)
        if cleaned is None:
            return False
        old, cleanup_count = cleaned
        scaled_down = self.scale_down_old_replicasets_for_rolling_update([*old, new], old)
        return cleanup_count + scaled_down > 0

    def cleanup_unhealthy_replicas(self, old: list[ReplicaSet], max_cleanup: int) -> tuple[list[ReplicaSet], int] | None:
        """rolling.go cleanupUnhealthyReplicas: scale old ReplicaSets down by their unavailable
        replicas, oldest first, at most ``max_cleanup`` in all (None: upstream's error return)."""
        old = sorted(old, key=_by_creation)
        total = 0
        for i, rs in enumerate(old):
            if total >= max_cleanup:
                break
            if rs.replicas == 0:
                continue
            available = self.status(rs).available_replicas
            if rs.replicas == available:
                continue
            count = min(max_cleanup - total, rs.replicas - available)
            new_count = rs.replicas - count
            if new_count > rs.replicas:
                return None  # "got invalid request to scale down"
            _, old[i] = self.scale_rs_and_record_event(rs, new_count)
            total += count
        return old, total

    def scale_down_old_replicasets_for_rolling_update(self, all_rss: list[ReplicaSet], old: list[ReplicaSet]) -> int:
        """rolling.go scaleDownOldReplicaSetsForRollingUpdate: remove available - minAvailable
        replicas from the old ReplicaSets, oldest first."""
        d = self.d
        min_available = d.replicas - max_unavailable(d)
        available = self.available(all_rss)
        if available <= min_available:
            return 0
        total = 0
        to_scale_down = available - min_available
        for rs in sorted(old, key=_by_creation):
            if total >= to_scale_down:
                break
            if rs.replicas == 0:
                continue
            count = min(rs.replicas, to_scale_down - total)
            self.scale_rs_and_record_event(rs, rs.replicas - count)
            total += count
        return total

    # ------------------------------------------------------------------ recreate.go

    def rollout_recreate(self) -> None:
        """recreate.go rolloutRecreate: scale every old ReplicaSet to 0, wait until no old pod is
        left, then create (or scale) the new ReplicaSet to spec.replicas."""
        new, old = self.get_all_replicasets_and_sync_revision(False)
        scaled_down = False
        for rs in filter_active(list(old)):  # scaleDownOldReplicaSetsForRecreate
            scaled, _ = self.scale_rs_and_record_event(rs, 0)
            scaled_down = scaled_down or scaled
        if scaled_down:
            return
        if self.old_pods_running(new, old):
            return
        if new is None:
            new, old = self.get_all_replicasets_and_sync_revision(True)
            assert new is not None
        self.scale_rs_and_record_event(new, self.d.replicas)  # scaleUpNewReplicaSetForRecreate

    def old_pods_running(self, new: ReplicaSet | None, old: list[ReplicaSet]) -> bool:
        """recreate.go oldPodsRunning: old ReplicaSets report pods, or any pod of a ReplicaSet other
        than the new one is not terminal (terminating pods count)."""
        if self.actual(old) > 0:
            return True
        for rs in self.rss.values():
            if new is not None and rs.key == new.key:
                continue
            if any(not p.terminal for p in pods_of_replicaset(self.snap, rs)):
                return True
        return False


def find_active_or_latest(new: ReplicaSet | None, old: list[ReplicaSet]) -> ReplicaSet | None:
    """deployment_util.go FindActiveOrLatest: the only active ReplicaSet, or the newest one when
    none is active; None when several are active."""
    if new is None and not old:
        return None
    newest_first = sorted(old, key=_by_creation, reverse=True)
    active = filter_active([*newest_first, new])
    if not active:
        return new if new is not None else newest_first[0]
    if len(active) == 1:
        return active[0]
    return None
