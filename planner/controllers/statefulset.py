"""The StatefulSet controller.

Upstream (kubernetes/kubernetes v1.37):
* pkg/controller/statefulset/stateful_set_control.go: updateStatefulSet (replicas and condemned
  pods, the first unhealthy pod), processReplica, processCondemned, runForAll (OrderedReady is
  monotonic: one pod at a time, each waiting for its predecessors to be Running and Ready,
  condemned pods removed highest ordinal first; Parallel creates and deletes all at once), the
  RollingUpdate loop (highest ordinal first, down to the partition, one pod at a time, waiting
  for the updated pod to be healthy; the path taken with the MaxUnavailableStatefulSet gate off),
  updateStatefulSetAfterInvariantEstablished (maxUnavailable, the path every RollingUpdate takes
  with the gate on, its v1.37 default; Parallel sets delete in two phases, kubernetes#137666),
  getStatefulSetRevisions,
  updateStatefulSetStatus;
* pkg/controller/statefulset/stateful_set_utils.go: getParentNameAndOrdinal, getStartOrdinal /
  getEndOrdinal, newVersionedStatefulSetPod, getPersistentVolumeClaims (claims named by
  getPersistentVolumeClaimName), isRunningAndReady / isHealthy / isCreated, getPodRevision,
  updateClaimOwnerRefForSetAndPod (persistentVolumeClaimRetentionPolicy), completeRollingUpdate,
  getStatefulSetMaxUnavailable;
* pkg/controller/statefulset/stateful_pod_control.go: CreateStatefulPod (claims before the pod),
  createMissingPersistentVolumeClaims.

Revisions are ControllerRevision names, ``<sts>-<controller_revision_hash(template)>``
(planner.revision); status.currentRevision / updateRevision live in the StatefulSet object and
``planner.controllers.reconciler.apply`` keeps them current.  There are no ControllerRevision objects: the
template of an older revision (needed for pods below the partition) is read back from a pod of
that revision; when none is left, such pods are created at the update revision.

PVC retention: upstream makes a claim's owner the StatefulSet (whenDeleted: Delete) or, once its
pod is condemned, the pod (whenScaled: Delete), and the garbage collector deletes the claim when
that owner goes.  Here a claim is created with the StatefulSet as owner when whenDeleted is
Delete (planner.controllers.garbagecollector.collect_claims deletes it once the set is gone), and the claims of a
condemned pod are deleted together with the pod when whenScaled is Delete.  Owner references of
claims that already exist are not rewritten when the policy changes.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from planner.controllers.actions import Action, CreateClaim, CreatePod, DeleteClaim, DeletePod
from planner.controllers.controller_utils import available_at, is_pod_ready, object_uid
from planner.controllers.informers import Clock, index_of, indexed
from planner.controllers.intstr import scaled_value
from planner.controllers.template_hash import template_for_hash
from planner.domain import (
    LABEL_CONTROLLER_REVISION_HASH,
    LABEL_POD_INDEX,
    LABEL_STATEFULSET_POD_NAME,
    OwnerRef,
    PersistentVolumeClaim,
    Pod,
    PodTemplate,
    PodVolume,
    StatefulSet,
)
from planner.memo import ByIdentity
from planner.revision import controller_revision_name
from planner.snapshot import Snapshot

# pkg/features MaxUnavailableStatefulSet: beta and on by default in v1.37 (kubernetes#139466; alpha
# until 1.34, on in 1.35, turned off for 1.36 and 1.35.4 by #137904 until the Parallel fix #137666
# landed).  With it, every RollingUpdate goes through updateStatefulSetAfterInvariantEstablished and
# spec.updateStrategy.rollingUpdate.maxUnavailable (default 1) bounds the pods down at once; with it
# off, pods are updated one at a time, waiting for unhealthy pods above.
MAX_UNAVAILABLE_STATEFULSET = True

# stateful_set_utils.go statefulPodRegex.
_STATEFUL_POD = re.compile(r"^(.*)-([0-9]+)$")


_ORDINALS: dict[tuple[str, str], int] = {}
_ORDINALS_MAX = 1 << 20


def get_ordinal(sts: StatefulSet, pod: Pod) -> int:
    """stateful_set_utils.go getParentNameAndOrdinal: the ordinal, or -1 when the pod's name is
    not ``<sts>-<number>`` (memoised: a replay asks for every pod of a set on every sync)."""
    return _ordinal(sts.name, pod.name)


def _ordinal(sts_name: str, pod_name: str) -> int:
    key = (sts_name, pod_name)
    hit = _ORDINALS.get(key)
    if hit is None:
        m = _STATEFUL_POD.match(pod_name)
        hit = -1 if m is None or m.group(1) != sts_name else int(m.group(2))
        if len(_ORDINALS) >= _ORDINALS_MAX:
            _ORDINALS.clear()
        _ORDINALS[key] = hit
    return hit


# What new_statefulset_pod and new_statefulset_claim made of one StatefulSet object, by (ordinal,
# revision) and (ordinal, claim template): a remediation plans the same set's thousands of pods for
# every check and replay.  Pods and claims are frozen and their dicts are never changed in place,
# so one object serves every caller.
_NEW_PODS: ByIdentity[Pod] = ByIdentity(1 << 17)
_NEW_CLAIMS: ByIdentity[PersistentVolumeClaim] = ByIdentity(1 << 17)


def new_statefulset_pod(sts: StatefulSet, ordinal: int, revision: str = "") -> Pod:
    """stateful_set_utils.go newVersionedStatefulSetPod (newStatefulSetPod, initIdentity,
    updateStorage): the template with the pod's identity (name ``<sts>-<ordinal>``, the
    statefulset.kubernetes.io/pod-name and apps.kubernetes.io/pod-index labels, the
    controller-revision-hash label when ``revision`` is given), a controller reference to the set
    and one claim volume per volumeClaimTemplate (replacing a template volume of the same name)."""
    return _NEW_PODS.get(sts, lambda: _new_statefulset_pod(sts, ordinal, revision), ordinal, revision)


def _new_statefulset_pod(sts: StatefulSet, ordinal: int, revision: str) -> Pod:
    name = sts.pod_name(ordinal)
    labels = dict(sts.template.labels)
    labels[LABEL_STATEFULSET_POD_NAME] = name
    labels[LABEL_POD_INDEX] = str(ordinal)
    if revision:
        labels[LABEL_CONTROLLER_REVISION_HASH] = revision
    claim_names = {t.name: sts.claim_name(t, ordinal) for t in sts.volume_claim_templates}
    vols = [v for v in sts.template.spec.volumes if v.name not in claim_names]
    # updateStorage: a template volume of the same name is replaced by the claim
    vols.extend(PodVolume(name=t, claim_name=c) for t, c in claim_names.items())
    spec = replace(sts.template.spec, volumes=tuple(vols), node_name="")
    return Pod(
        namespace=sts.namespace,
        name=name,
        labels=labels,
        spec=spec,
        phase="Pending",
        owner=OwnerRef("StatefulSet", sts.name, sts.uid, True),
        annotations=dict(sts.template.annotations),
    )


def new_statefulset_claim(sts: StatefulSet, ordinal: int, template_name: str) -> PersistentVolumeClaim:
    """stateful_set_utils.go getPersistentVolumeClaims, one claim: the volumeClaimTemplate named
    ``template_name`` for ``ordinal``, named getPersistentVolumeClaimName, with the set's selector
    labels added to the template's."""
    return _NEW_CLAIMS.get(sts, lambda: _new_statefulset_claim(sts, ordinal, template_name), ordinal, template_name)


def _new_statefulset_claim(sts: StatefulSet, ordinal: int, template_name: str) -> PersistentVolumeClaim:
    t = next(t for t in sts.volume_claim_templates if t.name == template_name)
    labels = dict(t.labels)
    labels.update(sts.selector.match_labels)
    return PersistentVolumeClaim(
        namespace=sts.namespace,
        name=sts.claim_name(t, ordinal),
        labels=labels,
        storage_class=t.storage_class,
        request=t.request,
        access_modes=t.access_modes,
        selector=t.selector,
        volume_mode=t.volume_mode,
        phase="Pending",
    )


def pods_of_statefulset(snap: Snapshot, sts: StatefulSet) -> list[tuple[int, Pod]]:
    """stateful_set.go getPodsForStatefulSet (ClaimPods reduced to the controller reference, then
    isMemberOf): the set's pods with their ordinals, ascending."""
    return list(_members(snap, sts).items)


class _Members:
    """A set's members in ordinal order, kept with the index between lookups and brought up to
    date from its log of the pods added, changed and removed under the set (Index.watch,
    Index.touch: the replay reports every pod it binds, creates and deletes), so that a replay
    that syncs a set of thousands of pods once per pod it creates pays for the pods that changed,
    not for all of them each time.

    ``order``: (ordinal, key), ascending; ``items``: (ordinal, pod) alongside.  ``low``: per
    healthy-memo key (_healthy_memo), the lowest ordinal of a pod that changed since that memo
    was stored (the memo holds while no pod below its end changed)."""

    __slots__ = ("uid", "log", "pos", "order", "items", "low")

    def __init__(self, uid: str, log: list, order: list[tuple[int, str]], items: list[tuple[int, Pod]]) -> None:
        self.uid = uid
        self.log = log
        self.pos = len(log)
        self.order = order
        self.items = items
        self.low: dict[tuple, int] = {}

    def at(self, ordinal: int) -> Pod | None:
        """The member with that ordinal (of two names with one ordinal, ``web-01`` and ``web-1``,
        the later in key order, as a list filled in ordinal order keeps it)."""
        order = self.order
        i = bisect.bisect_left(order, (ordinal + 1,)) - 1
        if i >= 0 and order[i][0] == ordinal:
            return self.items[i][1]
        return None

    def outside(self, start: int, end: int) -> list[tuple[int, Pod]]:
        """The members whose ordinal is below ``start`` or from ``end`` on, ascending."""
        order, items = self.order, self.items
        lo = bisect.bisect_left(order, (start,))
        hi = bisect.bisect_left(order, (end,))
        return items[:lo] + items[hi:]


def _members(snap: Snapshot, sts: StatefulSet) -> _Members:
    ix = index_of(snap)
    owner = (sts.namespace, "StatefulSet", sts.name)
    cache: dict = ix.__dict__.setdefault(_MEMBERS_ATTR, {})
    ent: _Members | None = cache.get(owner)
    pods = snap.pods
    if ent is None or ent.uid != sts.uid:
        log = ix.watch(owner)
        order = []
        for k in ix.pods.get(owner, ()):
            p = pods.get(k)
            if p is not None and _member(sts, p):
                order.append((_ordinal(sts.name, p.name), k))
        order.sort()
        ent = cache[owner] = _Members(sts.uid, log, order, [(o, pods[k]) for o, k in order])
    elif ent.pos < len(ent.log):
        log, order, items, low = ent.log, ent.order, ent.items, ent.low
        owned = ix.pods.get(owner, ())
        # each key once (its pod as it is now decides; a pod logged twice, created then bound,
        # ends where once puts it)
        for k in dict.fromkeys([k for _added, k in log[ent.pos:]]):
            o = _ordinal(sts.name, k.partition("/")[2])
            for mk, lowest in low.items():
                if o < lowest:
                    low[mk] = o
            i = bisect.bisect_left(order, (o, k))
            if i < len(order) and order[i] == (o, k):
                del order[i]
                del items[i]
            p = pods.get(k)
            if p is not None and p.key in owned and _member(sts, p):
                order.insert(i, (o, k))
                items.insert(i, (o, p))
        ent.pos = len(log)
    return ent


_MEMBERS_ATTR = "_statefulset_members"


def _member(sts: StatefulSet, p: Pod) -> bool:
    """controlled_by the set, with a ``<set>-<ordinal>`` name."""
    own = p.owner
    if own is None or not own.controller or own.kind != "StatefulSet" or own.name != sts.name or (own.uid and sts.uid and own.uid != sts.uid):
        return False
    return _ordinal(sts.name, p.name) >= 0


def _first(x: tuple[int, Pod]) -> int:
    return x[0]


def get_pod_revision(pod: Pod) -> str:
    """stateful_set_utils.go getPodRevision."""
    return pod.labels.get(LABEL_CONTROLLER_REVISION_HASH, "")


def is_running_and_ready(pod: Pod) -> bool:
    """stateful_set_utils.go isRunningAndReady."""
    return pod.phase == "Running" and is_pod_ready(pod)


def is_healthy(pod: Pod | None) -> bool:
    """stateful_set_utils.go isHealthy (a pod not created yet is not)."""
    return pod is not None and is_running_and_ready(pod) and not pod.terminating


def running_and_available_at(pod: Pod, min_ready_seconds: int) -> datetime | None:
    """stateful_set_utils.go isRunningAndAvailable (pkg/api/v1/pod/util.go IsPodAvailable with
    the set's minReadySeconds), as the time from which it holds: None when it never will (not
    Running and Ready, or Ready with no lastTransitionTime while minReadySeconds > 0)."""
    if pod.phase != "Running":
        return None
    return available_at(pod, min_ready_seconds)


def get_statefulset_max_unavailable(sts: StatefulSet) -> int:
    """stateful_set_utils.go getStatefulSetMaxUnavailable: default 1, percentages rounded down,
    at least 1."""
    return max(scaled_value(sts.max_unavailable, sts.replicas, False, default=1), 1)


# --------------------------------------------------------------------------- revisions and status


# (id(raw object), id(template)) -> (raw object, template, name, revision): the objects are held,
# so their ids stay unique; a replay asks on every sync of every set
_REVISIONS: dict[tuple, tuple[Any, Any, str, str]] = {}
_REVISIONS_MAX = 4096


def _update_revision(snap: Snapshot, sts: StatefulSet) -> str:
    """The revision of the current template (getStatefulSetRevisions / newRevision): the cluster's
    status.updateRevision while the template is the one that was read (and observed), else
    ``<sts>-<hash>`` of the template (history.ControllerRevisionName).  Memoised on the raw
    object and the template (both immutable by convention)."""
    raw_obj = snap.raw.get(("StatefulSet", sts.key))
    # the priority classes resolve the template compared with the raw one (template_hash)
    key = (id(raw_obj), id(sts.template), tuple((k, id(v)) for k, v in snap.priority_classes.items()))
    hit = _REVISIONS.get(key)
    if hit is not None and hit[0] is raw_obj and hit[1] is sts.template and hit[2] == sts.name:
        return hit[3]
    rev = _compute_update_revision(snap, sts)
    if len(_REVISIONS) >= _REVISIONS_MAX:
        _REVISIONS.clear()
    _REVISIONS[key] = (raw_obj, sts.template, sts.name, rev)
    return rev


def _compute_update_revision(snap: Snapshot, sts: StatefulSet) -> str:
    tpl, raw = template_for_hash(snap, "StatefulSet", sts.key, sts.template)
    collision = 0
    if raw is not None:
        status: dict = raw["status"] if isinstance(raw.get("status"), dict) else {}
        meta: dict = raw["metadata"] if isinstance(raw.get("metadata"), dict) else {}
        gen, observed = meta.get("generation"), status.get("observedGeneration")
        rev = status.get("updateRevision")
        if isinstance(rev, str) and rev and (gen is None or (isinstance(observed, int) and observed >= gen)):
            return rev
        if isinstance(status.get("collisionCount"), int):
            collision = status["collisionCount"]
    return controller_revision_name(sts.name, tpl, collision)


def _rolled_out(snap: Snapshot, sts: StatefulSet, revision: str) -> bool:
    """stateful_set_utils.go completeRollingUpdate's test on the status computeReplicaStatus gives:
    replicas, readyReplicas and updatedReplicas all equal spec.replicas."""
    if len(index_of(snap).pods.get((sts.namespace, "StatefulSet", sts.name), ())) < sts.replicas:
        return False  # fewer pods than replicas (a scale-up under way): the set's members are among them
    pods = [p for _, p in pods_of_statefulset(snap, sts)]
    ready = sum(1 for p in pods if is_running_and_ready(p))
    updated = sum(1 for p in pods if not p.terminating and get_pod_revision(p) == revision)
    return len(pods) == sts.replicas and ready == sts.replicas and updated == sts.replicas


def statefulset_revisions(snap: Snapshot, sts: StatefulSet) -> tuple[str, str]:
    """(currentRevision, updateRevision) as the controller sees them at the start of a sync
    (getStatefulSetRevisions): current is status.currentRevision, or the update revision for a new
    history; a rolling update the stored status describes and that has finished since counts as
    completed (the status update a sync in between would have made)."""
    update = _update_revision(snap, sts)
    current = sts.current_revision or update
    stored = sts.update_revision
    if sts.update_strategy_type == "RollingUpdate" and stored and stored != current and _rolled_out(snap, sts, stored):
        current = stored
    return current, update


def sync_statefulset_status(snap: Snapshot, key: str) -> None:
    """stateful_set_control.go updateStatefulSetStatus with completeRollingUpdate: store the
    revisions in the StatefulSet (dataclasses.replace)."""
    sts = snap.statefulsets.get(key)
    if sts is None:
        return
    current, update = statefulset_revisions(snap, sts)
    if sts.update_strategy_type == "RollingUpdate" and current != update and _rolled_out(snap, sts, update):
        current = update
    if (current, update) != (sts.current_revision, sts.update_revision):
        snap.statefulsets[key] = replace(sts, current_revision=current, update_revision=update)


def statefulset_complete(snap: Snapshot, key: str) -> bool:
    """All replicas exist, are Running and Ready, no condemned pod is left, and every pod the
    update strategy updates (ordinals from start + partition for RollingUpdate, all for OnDelete)
    is at the update revision (kubectl's StatefulSetStatusViewer, with no pods above the range)."""
    sts = snap.statefulsets.get(key)
    if sts is None:
        return False
    with indexed(snap):
        _, update = statefulset_revisions(snap, sts)
        by_ordinal = dict(pods_of_statefulset(snap, sts))
    start = sts.ordinals_start
    if set(by_ordinal) != set(range(start, start + sts.replicas)):
        return False
    first_updated = start + sts.partition if sts.update_strategy_type == "RollingUpdate" else start
    for o, p in by_ordinal.items():
        if not is_healthy(p):
            return False
        if o >= first_updated and get_pod_revision(p) != update:
            return False
    return True


def _template_of_revision(snap: Snapshot, sts: StatefulSet, revision: str, update: str) -> PodTemplate | None:
    """history.ApplyRevision: the update revision is the set's template; an older one is the
    template of the set's ControllerRevision of that name (when the snapshot holds it; the loader
    resolved its priority and admission as a workload template's), else read back from a pod of
    that revision (its labels and spec without the identity the controller added), None when
    neither is left."""
    if revision == update:
        return sts.template
    cr = snap.controller_revisions.get(f"{sts.namespace}/{revision}")
    if cr is not None and cr.template is not None and (cr.owner is None or not cr.owner.uid or not sts.uid or cr.owner.uid == sts.uid):
        return cr.template
    claim_names = {t.name for t in sts.volume_claim_templates}
    identity = {LABEL_STATEFULSET_POD_NAME, LABEL_POD_INDEX, LABEL_CONTROLLER_REVISION_HASH}
    for _, p in pods_of_statefulset(snap, sts):
        if get_pod_revision(p) == revision:
            labels = {k: v for k, v in p.labels.items() if k not in identity}
            spec = replace(p.spec, node_name="", volumes=tuple(v for v in p.spec.volumes if v.name not in claim_names))
            return PodTemplate(labels=labels, spec=spec, annotations=dict(p.annotations))
    return None


# --------------------------------------------------------------------------- the controller


_MEMO_ATTR = "_statefulset_healthy_memo"


def _healthy_memo(snap: Snapshot) -> dict:
    """Per StatefulSet, the replicas a monotonic sync found healthy and available (pod objects, in
    ordinal order) and the latest time one became available: kept with the controllers' index of
    the snapshot (the replay's), so it lives as long as that index is kept current."""
    ix = index_of(snap)
    memo = ix.__dict__.get(_MEMO_ATTR)
    if memo is None:
        memo = ix.__dict__[_MEMO_ATTR] = {}
    return memo


def reconcile_statefulset(snap: Snapshot, key: str) -> list[Action]:
    """stateful_set_control.go UpdateStatefulSet / updateStatefulSet: one sync of one StatefulSet."""
    sts = snap.statefulsets.get(key)
    if sts is None:
        return []
    with indexed(snap):
        return _StatefulSetSync(snap, sts).run()


_NO_ORDINAL = 1 << 62  # _Members.low when no pod changed


def _minus_first(x: tuple[int, Pod]) -> int:
    return -x[0]


class _Replicas:
    """The sync's replicas: ``replicas[i]`` is the member with ordinal start + i (None: not
    created), read from the set's members on demand (a sync of a set of thousands reads a few),
    the pods the sync creates set over them."""

    __slots__ = ("members", "start", "n", "created")

    def __init__(self, members: _Members, start: int, n: int) -> None:
        self.members = members
        self.start = start
        self.n = n
        self.created: dict[int, Pod] = {}

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Pod | None:
        if not 0 <= i < self.n:
            raise IndexError(i)
        hit = self.created.get(i)
        return hit if hit is not None else self.members.at(self.start + i)

    def __setitem__(self, i: int, pod: Pod) -> None:
        if not 0 <= i < self.n:
            raise IndexError(i)
        self.created[i] = pod

    def __iter__(self) -> Iterator[Pod | None]:
        return (self[i] for i in range(self.n))


@dataclass
class _StatefulSetSync:
    snap: Snapshot
    sts: StatefulSet

    def __post_init__(self) -> None:
        sts, snap = self.sts, self.snap
        self.current, self.update = statefulset_revisions(snap, sts)
        self.current_template = _template_of_revision(snap, sts, self.current, self.update)
        self.monotonic = sts.pod_management_policy != "Parallel"  # allowsBurst
        self.clock = Clock(snap)
        self.actions: list[Action] = []
        self.deleted: set[str] = set()
        self.error = False
        start, n = sts.ordinals_start, sts.replicas
        # replicas[i] holds ordinal start + i (None: not created); condemned, highest ordinal first
        self.members = _members(snap, sts)
        self.replicas = _Replicas(self.members, start, n)
        condemned = self.members.outside(start, start + n)
        condemned.sort(key=_minus_first)  # stable: of one ordinal, in key order
        self.condemned: list[Pod] = [p for _, p in condemned]
        # the replicas that the last sync found healthy and available (the very same pod objects:
        # none of the set's pods below the memo's end changed since, _Members.low) are so again: a
        # sync of a set of thousands does not look at each of them again
        self.memo_key = (sts.key, sts.ordinals_start, sts.min_ready_seconds, self.monotonic)
        memo = _healthy_memo(snap).get(self.memo_key)
        self.known = 0  # replicas[:known] are healthy and available (when monotonic)
        self.known_at: datetime | None = None  # the latest time one of them becomes available
        if memo is not None and self.monotonic:
            k, at, ent = memo
            if ent is self.members and k <= n and self.members.low.get(self.memo_key, -1) >= start + k:
                self.known, self.known_at = k, at
        # the first unhealthy pod: in the replicas in ordinal order, else the lowest condemned one
        self.first_unhealthy: str | None = None
        for i in range(self.known, n):
            r = self.replicas[i]
            if not is_healthy(r):
                self.first_unhealthy = r.key if r is not None else f"{sts.namespace}/{sts.pod_name(start + i)}"
                break
        if self.first_unhealthy is None:
            for c in reversed(self.condemned):
                if not is_healthy(c):
                    self.first_unhealthy = c.key
                    break

    def _reason(self, text: str) -> str:
        return f"StatefulSet {self.sts.key}: {text}"

    # ------------------------------------------------------------------ updateStatefulSet

    def run(self) -> list[Action]:
        sts = self.sts
        if self._run_replicas():
            return self.actions
        if self._run_for_all(len(self.condemned), self.process_condemned):
            return self.actions
        if sts.update_strategy_type == "OnDelete":
            return self.actions
        if MAX_UNAVAILABLE_STATEFULSET:
            self.update_after_invariant_established()
            return self.actions
        # we terminate the Pod with the largest ordinal that does not match the update revision,
        # down to the partition, waiting for unhealthy pods
        for target in range(len(self.replicas) - 1, sts.partition - 1, -1):
            pod = self.replicas[target]
            if pod is None:
                return self.actions
            if get_pod_revision(pod) != self.update and not pod.terminating:
                if pod.key not in self.deleted:
                    self.delete_pod(pod, f"Pod {pod.name} is terminating for update to revision {self.update}")
                return self.actions
            if not is_healthy(pod):
                return self.actions
        return self.actions

    def _run_replicas(self) -> bool:
        """runForAll over the replicas (processReplica).  Monotonic: the replicas the last sync
        found healthy and available are passed at once (processReplica does nothing for them but
        wait until each is available: the clock moves to the latest of those times, as it would
        pod by pod); the memo is then the healthy, available prefix this sync found."""
        if not self.monotonic:
            return self._run_for_all(len(self.replicas), self.process_replica)
        if self.known_at is not None:
            self.clock.wait_until(self.known_at)
        latest = self.known_at
        stop = None
        for i in range(self.known, len(self.replicas)):
            pod = self.replicas[i]
            healthy = pod is not None and pod.phase == "Running" and not pod.terminating and is_running_and_ready(pod)
            at = running_and_available_at(pod, self.sts.min_ready_seconds) if healthy and pod is not None else None
            should_exit = self.process_replica(i)
            if self.error or should_exit:
                stop = i
                break
            if at is not None and (latest is None or at > latest):
                latest = at
        end = len(self.replicas) if stop is None else stop
        if all(self.replicas[i] is not None for i in range(self.known, end)):
            # the members are as this sync read them (its actions are applied after it)
            self.members.low[self.memo_key] = _NO_ORDINAL
            _healthy_memo(self.snap)[self.memo_key] = (end, latest, self.members)
        return stop is not None

    def _run_for_all(self, count: int, fn: Callable[[int], bool]) -> bool:
        """stateful_set_control.go runForAll: monotonic stops at the first pod that blocks; burst
        runs every pod (slowStartBatch), stopping only on an error."""
        for i in range(count):
            should_exit = fn(i)
            if self.error or (self.monotonic and should_exit):
                return True
        return False

    def process_replica(self, i: int) -> bool:
        """stateful_set_control.go processReplica."""
        sts = self.sts
        pod = self.replicas[i]
        if pod is not None and pod.phase in ("Failed", "Succeeded"):
            if not pod.terminating and pod.key not in self.deleted:
                self.delete_pod(pod, f"recreating {pod.phase.lower()} Pod {pod.name}")
            return True  # a new pod is created on the next sync, once this one is gone
        if pod is None:
            pod = self.new_versioned_pod(sts.ordinals_start + i)
            if not self.create_claims(pod, sts.ordinals_start + i):
                return True
            self.actions.append(CreatePod(pod, self._reason(
                f"create Pod {pod.name} (revision {get_pod_revision(pod)})"
                + ("" if self.monotonic else ", podManagementPolicy Parallel"))))
            self.replicas[i] = pod
            return self.monotonic  # burst: an object just created has no status to wait on
        if pod.phase == "Pending":
            self.create_claims(pod, sts.ordinals_start + i)  # createMissingPersistentVolumeClaims
        if pod.terminating and self.monotonic:
            return True
        if not is_running_and_ready(pod) and self.monotonic:
            return True
        # If we have a Pod that has been created but is not available we can not make progress.
        if self.monotonic and not self.wait_available(pod):
            return True
        return False

    def wait_available(self, pod: Pod) -> bool:
        """stateful_set_utils.go isRunningAndAvailable, waited for: upstream a set blocked on a pod
        that is Ready but not yet for minReadySeconds is requeued for the remaining time
        (stateful_set.go enqueueSSAfter); the simulated world lets that time pass, the clock moves
        to the moment the pod becomes available (what this sync then creates carries that
        creationTimestamp) and the sync goes on.  False when the pod never becomes available."""
        at = running_and_available_at(pod, self.sts.min_ready_seconds)
        if at is None:
            return False
        self.clock.wait_until(at)
        return True

    def process_condemned(self, i: int) -> bool:
        """stateful_set_control.go processCondemned: scale down, highest ordinal first."""
        pod = self.condemned[i]
        if pod.terminating:
            return self.monotonic
        if not is_running_and_ready(pod) and self.monotonic and pod.key != self.first_unhealthy:
            return True
        # the same for availability (isRunningAndAvailable with minReadySeconds)
        if self.monotonic and pod.key != self.first_unhealthy and not self.wait_available(pod):
            return True
        self.delete_pod(pod, f"Pod {pod.name} is terminating for scale down to {self.sts.replicas} replicas", condemned=True)
        return True

    def update_after_invariant_established(self) -> None:
        """stateful_set_control.go updateStatefulSetAfterInvariantEstablished (v1.37, kubernetes#137666).

        unavailable counts the replicas that are not healthy (a pod not created yet included).  A
        sync stops there when unavailable >= maxUnavailable, unless the set is Parallel and some of
        those unavailable pods are outdated and not terminating.  Parallel then deletes in two
        phases, highest ordinal first, down to the partition: (1) every outdated pod that is not
        Running and Ready and not terminating, whatever the budget (deleting it takes nothing more
        down); (2) outdated Running and Ready pods, at most maxUnavailable - unavailable of them.
        OrderedReady keeps the single pass: up to maxUnavailable - unavailable outdated,
        non-terminating pods."""
        sts = self.sts
        max_unavailable = get_statefulset_max_unavailable(sts)
        update_min = sts.partition
        parallel = sts.pod_management_policy == "Parallel"
        unavailable = 0
        unavailable_needing_update = 0
        for pod in self.replicas:
            if pod is None or not is_healthy(pod) or not self.wait_available(pod):  # isUnavailable
                unavailable += 1
                if parallel and pod is not None and get_pod_revision(pod) != self.update and not pod.terminating:
                    unavailable_needing_update += 1
        if unavailable >= max_unavailable and unavailable_needing_update == 0:
            return
        why = f"for update to revision {self.update} (maxUnavailable {max_unavailable})"
        if parallel:
            # phase 1: outdated pods that are already unavailable
            for target in range(len(self.replicas) - 1, update_min - 1, -1):
                pod = self.replicas[target]
                if pod is None or get_pod_revision(pod) == self.update or pod.terminating:
                    continue
                if not is_running_and_ready(pod) or not self.wait_available(pod):  # !isRunningAndAvailable
                    if pod.key not in self.deleted:
                        self.delete_pod(pod, f"unavailable Pod {pod.name} is terminating {why}")
            # phase 2: outdated available pods, within the budget left
            remaining = max_unavailable - unavailable
            for target in range(len(self.replicas) - 1, update_min - 1, -1):
                if remaining <= 0:
                    break
                pod = self.replicas[target]
                if pod is None or get_pod_revision(pod) == self.update or pod.terminating:
                    continue
                if is_running_and_ready(pod) and self.wait_available(pod):
                    if pod.key not in self.deleted:
                        self.delete_pod(pod, f"Pod {pod.name} is terminating {why}")
                    remaining -= 1
            return
        to_delete = max_unavailable - unavailable
        deleted = 0
        for target in range(len(self.replicas) - 1, update_min - 1, -1):
            if deleted >= to_delete:
                break
            pod = self.replicas[target]
            if pod is not None and get_pod_revision(pod) != self.update and not pod.terminating:
                if pod.key not in self.deleted:
                    self.delete_pod(pod, f"Pod {pod.name} is terminating {why}")
                deleted += 1

    # ------------------------------------------------------------------ pods and claims

    def new_versioned_pod(self, ordinal: int) -> Pod:
        """stateful_set_utils.go newVersionedStatefulSetPod: below start + partition a pod is created
        at the current revision, otherwise at the update revision."""
        sts = self.sts
        below_partition = sts.update_strategy_type == "RollingUpdate" and ordinal < sts.ordinals_start + sts.partition
        if below_partition and self.current != self.update and self.current_template is not None:
            # a copy of the set made for this pod alone: not remembered (new_statefulset_pod's memo)
            pod = _new_statefulset_pod(replace(sts, template=self.current_template), ordinal, self.current)
        else:
            pod = new_statefulset_pod(sts, ordinal, self.update)
        created = self.clock.tick()
        return replace(pod, uid=object_uid("Pod", pod.namespace, pod.name, created), creation_timestamp=created)

    def create_claims(self, pod: Pod, ordinal: int) -> bool:
        """stateful_pod_control.go createPersistentVolumeClaims: create the pod's missing claims
        from the volumeClaimTemplates; False (upstream's error) when one is being deleted."""
        sts = self.sts
        for t in sts.volume_claim_templates:
            ckey = f"{sts.namespace}/{sts.claim_name(t, ordinal)}"
            existing = self.snap.pvcs.get(ckey)
            if existing is not None and ckey not in self.deleted:
                if existing.terminating:
                    self.error = True
                    return False
                continue
            claim = new_statefulset_claim(sts, ordinal, t.name)
            owner = OwnerRef("StatefulSet", sts.name, sts.uid, True) if sts.retention_when_deleted == "Delete" else None
            claim = replace(claim, owner=owner, uid=object_uid("PersistentVolumeClaim", claim.namespace, claim.name, self.clock.tick()))
            self.actions.append(CreateClaim(claim, self._reason(f"create Claim {claim.name} for Pod {pod.name}")))
            self.deleted.discard(ckey)
        return True

    def delete_pod(self, pod: Pod, why: str, condemned: bool = False) -> None:
        """stateful_pod_control.go DeleteStatefulPod; for a condemned pod under whenScaled: Delete,
        also what the garbage collector then does to the claims it owns."""
        sts = self.sts
        self.actions.append(DeletePod(pod.key, self._reason(why)))
        self.deleted.add(pod.key)
        if not condemned or sts.retention_when_scaled != "Delete":
            return
        ordinal = get_ordinal(sts, pod)
        for t in sts.volume_claim_templates:
            ckey = f"{sts.namespace}/{sts.claim_name(t, ordinal)}"
            if ckey in self.snap.pvcs and ckey not in self.deleted:
                self.actions.append(DeleteClaim(ckey, self._reason(
                    f"garbage collector: Claim {ckey.split('/', 1)[1]} was owned by condemned Pod {pod.name} "
                    "(persistentVolumeClaimRetentionPolicy.whenScaled: Delete)")))
                self.deleted.add(ckey)
