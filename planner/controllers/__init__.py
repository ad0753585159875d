"""The workload controllers, ported from kube-controller-manager, for the replay simulator.

``reconcile(snap)`` runs one pass of every controller over a snapshot and returns what they would
do, as actions; ``apply(snap, actions)`` makes those actions happen.  The simulator alternates
them with a scheduler (and its own kubelet: a bound pod turns Running) to find where rollouts,
scale sequences and evictions get stuck.

The simulated world (docs/semantics.md plus these rules):

* a pod is *ready* and *available* as soon as it is Running on a node (``minReadySeconds`` and
  readiness probes are not modelled); a Pending pod is neither;
* deleting a pod removes it at once (no graceful termination); a pod already marked terminating
  in the input is honoured as upstream does (not active, not healthy);
* names, uids and creation timestamps are deterministic: a synthetic clock one second past the
  newest object of the snapshot, ReplicaSet pods named ``<rs>-<5 characters>`` from a counter
  hash (as ``planner.scenario`` names them), StatefulSet pods ``<sts>-<ordinal>``.

Modules, each porting one upstream controller (the file is cited in each module and above each
ported function):

* ``deployment``  pkg/controller/deployment/{sync.go, rolling.go, recreate.go, util/deployment_util.go}
* ``replicaset``  pkg/controller/replicaset/replica_set.go and the deletion ranking of
  pkg/controller/controller_utils.go
* ``statefulset`` pkg/controller/statefulset/{stateful_set_control.go, stateful_set_utils.go,
  stateful_pod_control.go}
* ``disruption``  pkg/controller/disruption/disruption.go and
  pkg/registry/core/pod/storage/eviction.go

This module holds the action types, the shared helpers of pkg/controller/controller_utils.go and
k8s.io/apimachinery/pkg/util/intstr, ``reconcile``, ``apply``, a garbage collector for the
claims whose owner is gone (pkg/controller/garbagecollector, reduced to ownerReferences), and
``Reconciler``: ``reconcile`` + ``apply`` as the replay runs them, syncing only the objects whose
inputs changed (the controllers are level-triggered; see its docstring).
"""

from __future__ import annotations

import heapq
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Union

from planner.convert import Converter
from planner.domain import IntOrString, OwnerRef, PersistentVolumeClaim, Pod, PodTemplate, ReplicaSet
from planner.revision import SAFE_ALPHANUMS, fnv32a
from planner.snapshot import Snapshot

# --------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class CreatePod:
    pod: Pod
    reason: str


@dataclass(frozen=True)
class DeletePod:
    key: str  # "ns/name"
    reason: str


@dataclass(frozen=True)
class CreateReplicaSet:
    rs: ReplicaSet
    reason: str


@dataclass(frozen=True)
class ScaleReplicaSet:
    """An update of a ReplicaSet by the Deployment controller: ``spec.replicas`` and, when not None,
    the ``deployment.kubernetes.io/*`` annotations it writes with the same update
    (deployment_util.go SetReplicasAnnotations; the revision on a rollback)."""

    key: str
    replicas: int
    reason: str
    annotations: Mapping[str, str] | None = None


@dataclass(frozen=True)
class CreateClaim:
    pvc: PersistentVolumeClaim
    reason: str


@dataclass(frozen=True)
class DeleteClaim:
    key: str
    reason: str


Action = Union[CreatePod, DeletePod, CreateReplicaSet, ScaleReplicaSet, CreateClaim, DeleteClaim]


# --------------------------------------------------------------------------- intstr


def scaled_value(value: IntOrString | None, total: int, round_up: bool, default: int = 0) -> int:
    """k8s.io/apimachinery/pkg/util/intstr GetScaledValueFromIntOrPercent(ValueOrDefault(value, default)).

    An int is returned as it is; "N%" is N percent of ``total``, rounded up or down.
    """
    if value is None:
        return default
    if isinstance(value, bool):
        raise ValueError(f"invalid value for IntOrString: {value!r}")
    if isinstance(value, int):
        return value
    s = str(value)
    if not s.endswith("%"):
        raise ValueError(f"invalid value for IntOrString: invalid type: string is not a percentage: {s!r}")
    try:
        pct = int(s[:-1])
    except ValueError:
        raise ValueError(f"invalid value for IntOrString: {s!r}") from None
    num = pct * total
    return -(-num // 100) if round_up else num // 100


# --------------------------------------------------------------------------- pods (controller_utils.go, podutil)


def is_pod_active(p: Pod) -> bool:
    """controller_utils.go IsPodActive: not Succeeded/Failed and no deletionTimestamp."""
    return not p.terminal and not p.terminating


def is_pod_ready(p: Pod) -> bool:
    """pkg/api/v1/pod IsPodReady, in the simulated world: Running on a node."""
    return p.phase == "Running" and bool(p.spec.node_name)


def is_pod_available(p: Pod) -> bool:
    """pkg/api/v1/pod IsPodAvailable with minReadySeconds taken as 0 (not modelled)."""
    return is_pod_ready(p)


def controlled_by(owner: OwnerRef | None, kind: str, name: str, uid: str) -> bool:
    """metav1.IsControlledBy, by kind and name (and uid when both sides have one)."""
    if owner is None or not owner.controller or owner.kind != kind or owner.name != name:
        return False
    return not owner.uid or not uid or owner.uid == uid


# --------------------------------------------------------------------------- deterministic identity

# The epoch of planner.scenario: a snapshot with no timestamps starts there.
BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)
_TS_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


_PARSED: dict[str, datetime | None] = {}
_PARSED_MAX = 1 << 20


def parse_time(ts: str) -> datetime | None:
    """An RFC 3339 creationTimestamp, or None when empty or unreadable (memoised: the controllers
    compare the same timestamps over and over)."""
    try:
        return _PARSED[ts]
    except KeyError:
        pass
    if not ts:
        return None
    try:
        t: datetime | None = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        t = None
    if t is not None and t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[ts] = t
    return t


class Clock:
    """The simulated clock: one second past the newest pod or ReplicaSet of the snapshot.

    Every object created in a pass takes the next second, so creation order is total and a later
    pass (which sees those objects) continues after them.
    """

    def __init__(self, snap: Snapshot) -> None:
        self._next = index_of(snap).latest + timedelta(seconds=1)

    @property
    def now(self) -> datetime:
        return self._next

    def tick(self) -> str:
        t = self._next
        self._next = t + timedelta(seconds=1)
        return t.strftime(_TS_FORMAT)


# --------------------------------------------------------------------------- the informers' indexes

_INDEX_ATTR = "_planner_controllers_index"
OwnerKey = tuple[str, str, str]  # (namespace, controller kind, controller name)


class Index:
    """Pods and ReplicaSets by controller owner, and the newest creation time: the lookups the
    controllers make (upstream's informer indexes), so a pass costs O(objects), not O(objects^2).

    ``indexed(snap)`` attaches one to a snapshot for the duration of a call; ``apply`` keeps an
    attached index current.  Lookups return the snapshot's current objects (a pod the scheduler
    replaced keeps its key and owner).
    """

    def __init__(self, snap: Snapshot) -> None:
        self.pods: dict[OwnerKey, dict[str, None]] = {}
        self.replicasets: dict[OwnerKey, dict[str, None]] = {}
        self.latest = BASE_TIME
        for p in snap.pods.values():
            self.add_pod(p)
        for rs in snap.replicasets.values():
            self.add_replicaset(rs)

    def _stamp(self, ts: str) -> None:
        t = parse_time(ts)
        if t is not None and t > self.latest:
            self.latest = t

    @staticmethod
    def _owner(namespace: str, owner: OwnerRef | None) -> OwnerKey | None:
        return (namespace, owner.kind, owner.name) if owner is not None and owner.controller else None

    def add_pod(self, p: Pod) -> None:
        k = self._owner(p.namespace, p.owner)
        if k is not None:
            self.pods.setdefault(k, {})[p.key] = None
        self._stamp(p.creation_timestamp)

    def remove_pod(self, p: Pod) -> None:
        k = self._owner(p.namespace, p.owner)
        if k is not None:
            self.pods.get(k, {}).pop(p.key, None)

    def add_replicaset(self, rs: ReplicaSet) -> None:
        k = self._owner(rs.namespace, rs.owner)
        if k is not None:
            self.replicasets.setdefault(k, {})[rs.key] = None
        self._stamp(rs.creation_timestamp)

    def remove_replicaset(self, rs: ReplicaSet) -> None:
        k = self._owner(rs.namespace, rs.owner)
        if k is not None:
            self.replicasets.get(k, {}).pop(rs.key, None)

    def owned_pods(self, snap: Snapshot, namespace: str, kind: str, name: str) -> list[Pod]:
        keys = self.pods.get((namespace, kind, name), {})
        return [snap.pods[k] for k in keys if k in snap.pods]

    def owned_replicasets(self, snap: Snapshot, namespace: str, kind: str, name: str) -> list[ReplicaSet]:
        keys = self.replicasets.get((namespace, kind, name), {})
        return [snap.replicasets[k] for k in keys if k in snap.replicasets]


class TrackedIndex(Index):
    """An Index kept for the whole replay (planner.controllers.Reconciler): the creation times of
    the pods and ReplicaSets that exist are kept as a multiset, so that ``begin_pass`` sets
    ``latest`` to what a fresh Index would find (the newest object that exists now, BASE_TIME at
    least); within a pass ``latest`` only rises, as a fresh Index does while ``_apply`` adds to it."""

    def __init__(self, snap: Snapshot) -> None:
        self._times: dict[tuple[str, str], datetime] = {}  # ("Pod" | "ReplicaSet", key) -> creation time
        self._count: dict[datetime, int] = {}
        self._heap: list[tuple[float, datetime]] = []  # (-timestamp, time), stale entries popped lazily
        # active pods (is_pod_active) per controller and controller uid, and what each pod added
        # there; a pod keeps its activity while it is indexed (the replay's binds do not change it)
        self._active: dict[OwnerKey, dict[str, int]] = {}
        self._active_of: dict[str, tuple[OwnerKey, str]] = {}
        self._building = True  # the heap and latest are made once at the end
        super().__init__(snap)
        self._building = False
        self._heap = [(-t.timestamp(), t) for t, c in self._count.items() if c > 0]
        heapq.heapify(self._heap)
        self.begin_pass()

    def _stamp(self, ts: str) -> None:
        if not self._building:  # while building, begin_pass sets latest at the end
            super()._stamp(ts)

    def active_pods(self, namespace: str, kind: str, name: str, uid: str) -> int:
        """The number of active pods controlled_by(kind, name, uid): the pods of the owner key
        whose owner uid is empty, or ``uid`` is, or both are equal."""
        by_uid = self._active.get((namespace, kind, name))
        if not by_uid:
            return 0
        n = 0
        for u, c in by_uid.items():
            if not u or not uid or u == uid:
                n += c
        return n

    def _track(self, kind: str, key: str, ts: str) -> None:
        self._untrack(kind, key)
        t = parse_time(ts)
        if t is None:
            return
        self._times[(kind, key)] = t
        c = self._count.get(t, 0)
        self._count[t] = c + 1
        if c == 0 and not self._building:
            heapq.heappush(self._heap, (-t.timestamp(), t))

    def _untrack(self, kind: str, key: str) -> None:
        t = self._times.pop((kind, key), None)
        if t is not None:
            self._count[t] -= 1

    def add_pod(self, p: Pod) -> None:
        # Index.add_pod, with what this index keeps besides
        key = p.key
        o = p.owner
        k = (p.namespace, o.kind, o.name) if o is not None and o.controller else None
        if k is not None:
            self.pods.setdefault(k, {})[key] = None
        self._stamp(p.creation_timestamp)
        self._track("Pod", key, p.creation_timestamp)
        self._deactivate(key)
        if k is not None and o is not None and not p.terminal and not p.terminating:  # is_pod_active
            by_uid = self._active.setdefault(k, {})
            by_uid[o.uid] = by_uid.get(o.uid, 0) + 1
            self._active_of[key] = (k, o.uid)

    def remove_pod(self, p: Pod) -> None:
        super().remove_pod(p)
        self._untrack("Pod", p.key)
        self._deactivate(p.key)

    def _deactivate(self, key: str) -> None:
        was = self._active_of.pop(key, None)
        if was is not None:
            self._active[was[0]][was[1]] -= 1

    def add_replicaset(self, rs: ReplicaSet) -> None:
        super().add_replicaset(rs)
        self._track("ReplicaSet", rs.key, rs.creation_timestamp)

    def remove_replicaset(self, rs: ReplicaSet) -> None:
        super().remove_replicaset(rs)
        self._untrack("ReplicaSet", rs.key)

    def begin_pass(self) -> None:
        heap, count = self._heap, self._count
        while heap and count.get(heap[0][1], 0) <= 0:
            heapq.heappop(heap)
        self.latest = max(heap[0][1], BASE_TIME) if heap else BASE_TIME


def index_of(snap: Snapshot) -> Index:
    """The index attached to ``snap``, or a fresh one."""
    ix = snap.__dict__.get(_INDEX_ATTR)
    return ix if isinstance(ix, Index) else Index(snap)


class indexed:  # noqa: N801 - used as a function: ``with indexed(snap) as ix``
    """Attach an index to ``snap`` for the duration (nested uses share the outer one).  A class
    rather than a generator context manager: every sync enters one."""

    __slots__ = ("snap", "owner")

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.owner = False

    def __enter__(self) -> Index:
        ix = self.snap.__dict__.get(_INDEX_ATTR)
        if isinstance(ix, Index):
            return ix
        self.owner = True
        ix = self.snap.__dict__[_INDEX_ATTR] = Index(self.snap)
        return ix

    def __exit__(self, *exc: object) -> None:
        if self.owner:
            self.snap.__dict__.pop(_INDEX_ATTR, None)


def object_uid(kind: str, namespace: str, name: str, created: str) -> str:
    """A deterministic uid; an object re-created under the same name gets a new one."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"planner-controllers:{kind}/{namespace}/{name}/{created}"))


# apiserver names.SimpleNameGenerator: generateName is cut to 63 - 5 characters, then 5 random ones.
_MAX_GENERATED_NAME_LENGTH = 63 - 5


def generate_name(prefix: str, taken: Callable[[str], bool], start: list[int] | None = None) -> str:
    """storage/names SimpleNameGenerator.GenerateName, made deterministic: the 5-character suffix
    hashes ``<base>/<counter>`` (as planner.scenario does), counting up to the first free name."""
    base = prefix[:_MAX_GENERATED_NAME_LENGTH]
    stem = prefix[:-1] if prefix.endswith("-") else prefix
    # ``start`` (a one-element list) carries the counter between the names of one sync, so that
    # creating n pods probes n names, not n^2/2; each sync starts from 0: the names stay a pure
    # function of the pods that exist
    i = start[0] if start else 0
    while True:
        h = fnv32a(f"{stem}/{i}".encode())
        suffix = ""
        for _ in range(5):
            suffix += SAFE_ALPHANUMS[h % len(SAFE_ALPHANUMS)]
            h //= len(SAFE_ALPHANUMS)
        name = base + suffix
        if not taken(name):
            if start is not None:
                start[0] = i + 1
            return name
        i += 1


def template_for_hash(snap: Snapshot, kind: str, key: str, template: PodTemplate) -> tuple[dict, dict | None]:
    """The pod template as a JSON value for planner.revision's hashes, and the raw object.

    When the snapshot holds the object as read and its template is still the one in the domain
    object, the raw template is hashed (what the cluster or the scenario hashed); a template the
    simulator changed is hashed from its domain form, which is stable but cluster-independent.
    """
    raw = snap.raw.get((kind, key))
    if isinstance(raw, dict):
        spec = raw.get("spec")
        t = spec.get("template") if isinstance(spec, dict) else None
        if isinstance(t, dict) and _converted_template(t) == template:
            return t, raw
    return {"planner.dev/template": _plain(template)}, None


# id(raw template) -> (raw template, its domain form); the raw object is held, so its id stays unique.
_CONVERTED: dict[int, tuple[dict, PodTemplate]] = {}
_CONVERTED_MAX = 4096


def _converted_template(t: dict) -> PodTemplate:
    hit = _CONVERTED.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    if len(_CONVERTED) >= _CONVERTED_MAX:
        _CONVERTED.clear()
    converted = Converter().template(t)
    _CONVERTED[id(t)] = (t, converted)
    return converted


def _plain(v: object) -> object:
    """A JSON value of a domain object (dataclasses with slots, tuples, mappings)."""
    fields = getattr(type(v), "__dataclass_fields__", None)
    if fields is not None:
        return {f: _plain(getattr(v, f)) for f in fields}
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    return v


# --------------------------------------------------------------------------- controllers

from planner.controllers.deployment import (  # noqa: E402
    _reconcile_deployment,
    deployment_status,
    reconcile_deployment,
    resolve_fenceposts,
    rollout_complete,
)
from planner.controllers.disruption import can_evict, disruption_status, disruptions_allowed  # noqa: E402
from planner.controllers.replicaset import _reconcile_replicaset, reconcile_replicaset, replicaset_status  # noqa: E402
from planner.controllers.statefulset import (  # noqa: E402
    reconcile_statefulset,
    statefulset_complete,
    statefulset_revisions,
    sync_statefulset_status,
)


def reconcile(snap: Snapshot) -> list[Action]:
    """One pass of every controller over the snapshot, in a fixed order: the Deployment controller
    (Deployments by key), the ReplicaSet controller, the StatefulSet controller, then the garbage
    collector for claims.  Each controller sees what the ones before it did in this pass (as it
    would after its informers caught up), so one pass takes a new template to new pods.
    ``snap`` is not changed; ``apply(snap, reconcile(snap))`` makes the pass happen.
    """
    work = snap.copy()
    out: list[Action] = []
    with indexed(work):

        def run(actions: list[Action]) -> None:
            for key in sorted(_apply(work, actions)):
                sync_statefulset_status(work, key)
            out.extend(actions)

        for key in sorted(work.deployments):
            run(reconcile_deployment(work, key))
        for key in sorted(work.replicasets):
            run(reconcile_replicaset(work, key))
        for key in sorted(work.statefulsets):
            run(reconcile_statefulset(work, key))
        run(collect_claims(work))
    return out


def apply(snap: Snapshot, actions: list[Action]) -> None:
    """Make the actions happen in the snapshot, in order (objects are replaced, never mutated).

    Beyond the actions themselves, as the API server and the other controllers would:
    * a deleted claim releases its PersistentVolume: reclaim policy Delete removes it, any other
      leaves it Released (pkg/controller/volume/persistentvolume/pv_controller.go reclaimVolume);
    * every StatefulSet's status.currentRevision / updateRevision is brought up to date
      (stateful_set_control.go updateStatefulSetStatus, completeRollingUpdate);
    * the snapshot's derived graphs are dropped, to be rebuilt on demand.
    """
    with indexed(snap):
        _apply(snap, actions)
        for key in sorted(snap.statefulsets):
            sync_statefulset_status(snap, key)
    _drop_derived(snap)


def _apply(snap: Snapshot, actions: list[Action], removed: list[Pod] | None = None, marks: Reconciler | None = None) -> set[str]:
    """The actions themselves (keeping an attached index current); returns the keys of the
    StatefulSets whose pods changed.  ``removed`` collects the pods deleted; ``marks`` (the
    replay's Reconciler) learns which objects changed."""
    ix = snap.__dict__.get(_INDEX_ATTR)
    ix = ix if isinstance(ix, Index) else None
    touched: set[str] = set()

    def note(p: Pod) -> None:
        if p.owner is not None and p.owner.kind == "StatefulSet":
            touched.add(f"{p.namespace}/{p.owner.name}")
        if marks is not None:
            marks.pod_changed(p)

    for a in actions:
        if isinstance(a, CreatePod):
            old = snap.pods.get(a.pod.key)
            if old is not None:
                if ix is not None:
                    ix.remove_pod(old)
                if marks is not None:
                    marks.pod_changed(old)
            snap.pods[a.pod.key] = a.pod
            if ix is not None:
                ix.add_pod(a.pod)
            note(a.pod)
        elif isinstance(a, DeletePod):
            gone = snap.pods.pop(a.key, None)
            if gone is not None:
                if ix is not None:
                    ix.remove_pod(gone)
                if removed is not None:
                    removed.append(gone)
                note(gone)
        elif isinstance(a, CreateReplicaSet):
            snap.replicasets[a.rs.key] = a.rs
            if ix is not None:
                ix.add_replicaset(a.rs)
            if marks is not None:
                marks.replicaset_changed(a.rs)
        elif isinstance(a, ScaleReplicaSet):
            rs = snap.replicasets.get(a.key)
            if rs is not None:
                ann = dict(rs.annotations)
                if a.annotations:
                    ann.update(a.annotations)
                snap.replicasets[a.key] = replace(rs, replicas=a.replicas, annotations=ann)
                if marks is not None:
                    marks.replicaset_changed(rs)
        elif isinstance(a, CreateClaim):
            snap.pvcs[a.pvc.key] = a.pvc
            if marks is not None:
                marks.claim_changed(a.pvc.namespace)
        elif isinstance(a, DeleteClaim):
            pvc = snap.pvcs.pop(a.key, None)
            if pvc is not None:
                _release_volume(snap, pvc)
                if marks is not None:
                    marks.claim_changed(pvc.namespace)
        else:  # pragma: no cover - the union is closed
            raise TypeError(f"not an action: {a!r}")
    return touched


def _drop_derived(snap: Snapshot) -> None:
    for name, attr in vars(type(snap)).items():
        if isinstance(attr, cached_property):
            snap.__dict__.pop(name, None)


class Reconciler:
    """The controllers as the replay runs them: ``reconcile`` then ``apply``, over a snapshot
    that the replay keeps changing, with the work of a pass limited to what changed.

    The controllers are level-triggered: a sync reads its own object and the objects it owns
    (a Deployment: its ReplicaSets and their pods; a ReplicaSet: its pods; a StatefulSet: its
    pods and claims), and, given the same inputs, returns the same actions.  A sync that returned
    nothing returns nothing again until one of those inputs changes.  So a pass that syncs only
    the *dirty* objects (whose inputs changed since their last sync; every object on the first
    pass), in the order of ``reconcile`` (Deployments by key, then ReplicaSets, then
    StatefulSets, each phase taking the objects dirty when it starts, so that a ReplicaSet the
    Deployment phase scaled is synced in the same pass), returns exactly the actions of the full
    pass.  The creation clock is the full pass's too: ``TrackedIndex.begin_pass``.

    ``reconcile`` applies the actions as it goes (the full pass applies them to a copy, then
    ``apply`` to the snapshot: the same objects in the same dict order, as no pass creates and
    deletes one pod), syncs the StatefulSet statuses ``apply`` would sync, and returns the actions
    and the pods it deleted.  The replay reports every other change through ``pod_changed`` (a
    bind), ``pod_removed`` and ``tables_changed`` (after a step).
    """

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.index = TrackedIndex(snap)
        self.attach()
        self.everything = True
        self.deployments: set[str] = set()
        self.replicasets: set[str] = set()
        self.statefulsets: set[str] = set()
        self.unsynced: set[str] = set(snap.statefulsets)  # StatefulSets apply() has to sync

    def attach(self) -> None:
        """Make the index the snapshot's (what index_of and indexed find) while the replay keeps
        it current."""
        self.snap.__dict__[_INDEX_ATTR] = self.index

    def detach(self) -> None:
        """Take it off: whoever changes the snapshot next would not keep it current."""
        if self.snap.__dict__.get(_INDEX_ATTR) is self.index:
            del self.snap.__dict__[_INDEX_ATTR]

    # ------------------------------------------------------------------ what changed

    def pod_changed(self, p: Pod) -> None:
        o = p.owner
        if o is None:
            return
        if o.kind == "ReplicaSet":
            key = f"{p.namespace}/{o.name}"
            self.replicasets.add(key)
            rs = self.snap.replicasets.get(key)
            if rs is not None:
                self._owner_deployment(rs)
        elif o.kind == "StatefulSet":
            key = f"{p.namespace}/{o.name}"
            self.statefulsets.add(key)
            self.unsynced.add(key)

    def pod_removed(self, p: Pod) -> None:
        """A pod the replay deleted from the snapshot itself."""
        self.index.remove_pod(p)
        self.pod_changed(p)

    def _owner_deployment(self, rs: ReplicaSet) -> None:
        if rs.owner is not None and rs.owner.kind == "Deployment":
            self.deployments.add(f"{rs.namespace}/{rs.owner.name}")

    def replicaset_changed(self, rs: ReplicaSet) -> None:
        self.replicasets.add(rs.key)
        self._owner_deployment(rs)
        cur = self.snap.replicasets.get(rs.key)
        if cur is not None and cur is not rs:
            self._owner_deployment(cur)

    def statefulset_changed(self, key: str) -> None:
        self.statefulsets.add(key)
        self.unsynced.add(key)

    def claim_changed(self, namespace: str) -> None:
        for key in self.snap.statefulsets:
            if key.startswith(namespace + "/"):
                self.statefulsets.add(key)

    def tables(self) -> tuple[dict, dict, dict, dict]:
        """The workload and claim tables as they are (before a step; see tables_changed)."""
        s = self.snap
        return dict(s.deployments), dict(s.replicasets), dict(s.statefulsets), dict(s.pvcs)

    def tables_changed(self, before: tuple[dict, dict, dict, dict]) -> None:
        """Mark what a step added, replaced or removed in those tables (pods: pod_removed)."""
        s = self.snap
        deps, rss, stss, pvcs = before
        for key in _diff(deps, s.deployments):
            self.deployments.add(key)
        for key in _diff(rss, s.replicasets):
            old, new = rss.get(key), s.replicasets.get(key)
            if old is not None:
                self.index.remove_replicaset(old)
                self.replicaset_changed(old)
            if new is not None:
                self.index.add_replicaset(new)
                self.replicaset_changed(new)
        for key in _diff(stss, s.statefulsets):
            self.statefulset_changed(key)
        for ns in {k.split("/", 1)[0] for k in _diff(pvcs, s.pvcs)}:
            self.claim_changed(ns)

    # ------------------------------------------------------------------ a pass

    def _take(self, dirty: set[str], table: dict) -> list[str]:
        keys = sorted(table) if self.everything else sorted(k for k in dirty if k in table)
        dirty.clear()
        return keys

    def _sync(self, key: str) -> None:
        before = self.snap.statefulsets.get(key)
        sync_statefulset_status(self.snap, key)
        if self.snap.statefulsets.get(key) is not before:
            self.statefulsets.add(key)  # its stored revisions are an input of its next sync
        self.unsynced.discard(key)

    def reconcile(self) -> tuple[list[Action], list[Pod]]:
        """One pass (``reconcile`` + ``apply``); returns the actions and the pods deleted."""
        snap = self.snap
        self.index.begin_pass()
        out: list[Action] = []
        removed: list[Pod] = []

        def run(actions: list[Action]) -> None:
            for key in sorted(_apply(snap, actions, removed, self)):
                self._sync(key)
            out.extend(actions)

        # the index is attached for good: the syncs themselves, without entering it each time
        for key in self._take(self.deployments, snap.deployments):
            if a := _reconcile_deployment(snap, key):
                run(a)
        for key in self._take(self.replicasets, snap.replicasets):
            if a := _reconcile_replicaset(snap, key):
                run(a)
        for key in self._take(self.statefulsets, snap.statefulsets):
            if a := reconcile_statefulset(snap, key):
                run(a)
        run(collect_claims(snap))
        self.everything = False
        if out:
            for key in sorted(k for k in self.unsynced if k in snap.statefulsets):
                self._sync(key)
            self.unsynced.clear()
            _drop_derived(snap)
        return out, removed


def _diff(before: dict, after: dict) -> list[str]:
    """Keys added, removed or bound to another object."""
    out = [k for k, v in after.items() if before.get(k) is not v]
    out.extend(k for k in before if k not in after)
    return out


def _release_volume(snap: Snapshot, pvc: PersistentVolumeClaim) -> None:
    pv = snap.pvs.get(pvc.volume_name) if pvc.volume_name else None
    if pv is None or pv.claim_ref != (pvc.namespace, pvc.name):
        return
    if pv.reclaim_policy == "Delete":
        del snap.pvs[pv.name]
    else:
        snap.pvs[pv.name] = replace(pv, phase="Released")


def collect_claims(snap: Snapshot) -> list[Action]:
    """The garbage collector for PersistentVolumeClaims whose controller owner is gone.

    The StatefulSet controller makes a claim's owner the StatefulSet when whenDeleted is Delete
    and the condemned pod when whenScaled is Delete (stateful_set_utils.go
    updateClaimOwnerRefForSetAndPod); pkg/controller/garbagecollector deletes the claim once that
    owner no longer exists (a uid mismatch counts as gone).  Other dependents are left alone: a
    snapshot may hold pods without their ReplicaSet simply because it was not exported.
    """
    out: list[Action] = []
    for key in sorted(snap.pvcs):
        pvc = snap.pvcs[key]
        o = pvc.owner
        if o is None or pvc.terminating:
            continue
        okey = f"{pvc.namespace}/{o.name}"
        owner_obj = snap.statefulsets.get(okey) if o.kind == "StatefulSet" else snap.pods.get(okey) if o.kind == "Pod" else None
        if o.kind not in ("StatefulSet", "Pod"):
            continue
        if owner_obj is None or (o.uid and owner_obj.uid and o.uid != owner_obj.uid):
            out.append(DeleteClaim(key, f"garbage collector: owner {o.kind} {okey} no longer exists"))
    return out


__all__ = [
    "Action",
    "CreateClaim",
    "CreatePod",
    "CreateReplicaSet",
    "DeleteClaim",
    "DeletePod",
    "Reconciler",
    "ScaleReplicaSet",
    "TrackedIndex",
    "apply",
    "can_evict",
    "collect_claims",
    "deployment_status",
    "disruption_status",
    "disruptions_allowed",
    "reconcile",
    "reconcile_deployment",
    "reconcile_replicaset",
    "reconcile_statefulset",
    "replicaset_status",
    "resolve_fenceposts",
    "rollout_complete",
    "statefulset_complete",
    "statefulset_revisions",
]
