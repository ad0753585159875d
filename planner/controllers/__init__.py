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
k8s.io/apimachinery/pkg/util/intstr, ``reconcile``, ``apply`` and a garbage collector for the
claims whose owner is gone (pkg/controller/garbagecollector, reduced to ownerReferences).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
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


def parse_time(ts: str) -> datetime | None:
    """An RFC 3339 creationTimestamp, or None when empty or unreadable."""
    if not ts:
        return None
    try:
        t = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


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

    def owned_pods(self, snap: Snapshot, namespace: str, kind: str, name: str) -> list[Pod]:
        keys = self.pods.get((namespace, kind, name), {})
        return [snap.pods[k] for k in keys if k in snap.pods]

    def owned_replicasets(self, snap: Snapshot, namespace: str, kind: str, name: str) -> list[ReplicaSet]:
        keys = self.replicasets.get((namespace, kind, name), {})
        return [snap.replicasets[k] for k in keys if k in snap.replicasets]


def index_of(snap: Snapshot) -> Index:
    """The index attached to ``snap``, or a fresh one."""
    ix = snap.__dict__.get(_INDEX_ATTR)
    return ix if isinstance(ix, Index) else Index(snap)


@contextmanager
def indexed(snap: Snapshot) -> Iterator[Index]:
    """Attach an index to ``snap`` for the duration (nested uses share the outer one)."""
    ix = snap.__dict__.get(_INDEX_ATTR)
    if isinstance(ix, Index):
        yield ix
        return
    ix = snap.__dict__[_INDEX_ATTR] = Index(snap)
    try:
        yield ix
    finally:
        snap.__dict__.pop(_INDEX_ATTR, None)


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
    deployment_status,
    reconcile_deployment,
    resolve_fenceposts,
    rollout_complete,
)
from planner.controllers.disruption import can_evict, disruption_status, disruptions_allowed  # noqa: E402
from planner.controllers.replicaset import reconcile_replicaset, replicaset_status  # noqa: E402
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
    for name, attr in vars(type(snap)).items():
        if isinstance(attr, cached_property):
            snap.__dict__.pop(name, None)


def _apply(snap: Snapshot, actions: list[Action]) -> set[str]:
    """The actions themselves (keeping an attached index current); returns the keys of the
    StatefulSets whose pods changed."""
    ix = snap.__dict__.get(_INDEX_ATTR)
    ix = ix if isinstance(ix, Index) else None
    touched: set[str] = set()

    def note(p: Pod) -> None:
        if p.owner is not None and p.owner.kind == "StatefulSet":
            touched.add(f"{p.namespace}/{p.owner.name}")

    for a in actions:
        if isinstance(a, CreatePod):
            old = snap.pods.get(a.pod.key)
            if old is not None and ix is not None:
                ix.remove_pod(old)
            snap.pods[a.pod.key] = a.pod
            if ix is not None:
                ix.add_pod(a.pod)
            note(a.pod)
        elif isinstance(a, DeletePod):
            gone = snap.pods.pop(a.key, None)
            if gone is not None:
                if ix is not None:
                    ix.remove_pod(gone)
                note(gone)
        elif isinstance(a, CreateReplicaSet):
            snap.replicasets[a.rs.key] = a.rs
            if ix is not None:
                ix.add_replicaset(a.rs)
        elif isinstance(a, ScaleReplicaSet):
            rs = snap.replicasets.get(a.key)
            if rs is not None:
                ann = dict(rs.annotations)
                if a.annotations:
                    ann.update(a.annotations)
                snap.replicasets[a.key] = replace(rs, replicas=a.replicas, annotations=ann)
        elif isinstance(a, CreateClaim):
            snap.pvcs[a.pvc.key] = a.pvc
        elif isinstance(a, DeleteClaim):
            pvc = snap.pvcs.pop(a.key, None)
            if pvc is not None:
                _release_volume(snap, pvc)
        else:  # pragma: no cover - the union is closed
            raise TypeError(f"not an action: {a!r}")
    return touched


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
    "ScaleReplicaSet",
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
