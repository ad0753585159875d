"""The controllers' loop: one pass of every controller over a snapshot, and its actions applied.

``reconcile(snap)`` runs one pass of every controller over a snapshot and returns what they would
do, as actions (planner.controllers.actions); ``apply(snap, actions)`` makes those actions happen.
The simulator alternates them with a scheduler (and its own kubelet: a bound pod turns Running).
``Reconciler`` is ``reconcile`` + ``apply`` as the replay runs them, syncing only the objects
whose inputs changed (the controllers are level-triggered; see its docstring).

Upstream there is no such loop in one place: each controller of kube-controller-manager
(cmd/kube-controller-manager, pkg/controller/*) runs its own workers off its informers' events.
A pass here is what they would all have done once their informers caught up.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property

from planner.controllers.actions import (
    Action,
    CreateClaim,
    CreatePod,
    CreateReplicaSet,
    DeleteClaim,
    DeletePod,
    ScaleReplicaSet,
)
from planner.controllers.deployment import _reconcile_deployment, reconcile_deployment
from planner.controllers.garbagecollector import collect_claims, release_volume
from planner.controllers.informers import _INDEX_ATTR, Index, TrackedIndex, indexed, tracked_index
from planner.controllers.replicaset import _reconcile_replicaset, reconcile_replicaset
from planner.controllers.statefulset import reconcile_statefulset, sync_statefulset_status
from planner.domain import PersistentVolumeClaim, Pod, ReplicaSet
from planner.snapshot import Snapshot


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
                mrs = rs.min_ready_seconds if a.min_ready_seconds is None else a.min_ready_seconds
                snap.replicasets[a.key] = replace(rs, replicas=a.replicas, annotations=ann, min_ready_seconds=mrs)
                if marks is not None:
                    marks.replicaset_changed(rs)
        elif isinstance(a, CreateClaim):
            was = snap.pvcs.get(a.pvc.key)
            snap.pvcs[a.pvc.key] = a.pvc
            if marks is not None:
                marks.claim_changed(a.pvc.key, was, a.pvc)
        elif isinstance(a, DeleteClaim):
            pvc = snap.pvcs.pop(a.key, None)
            if pvc is not None:
                release_volume(snap, pvc)
                if marks is not None:
                    marks.claim_changed(a.key, pvc, None)
        else:  # pragma: no cover - the union is closed
            raise TypeError(f"not an action: {a!r}")
    return touched


def _drop_derived(snap: Snapshot) -> None:
    """Forget what the snapshot derived from its tables (its cached properties)."""
    names = _DERIVED.get(type(snap))
    if names is None:
        names = _DERIVED[type(snap)] = tuple(n for n, attr in vars(type(snap)).items() if isinstance(attr, cached_property))
    d = snap.__dict__
    for name in names:
        d.pop(name, None)


_DERIVED: dict[type, tuple[str, ...]] = {}  # a snapshot class -> its cached properties' names


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

    Claims: a StatefulSet's sync reads only the claims named after it (``<template>-<set>-<n>``,
    create_claims and delete_pod), so a claim that changed marks the set of that name; the
    garbage collector (collect_claims) looks only at the claims that changed or whose owner (a
    pod or a StatefulSet, found through ``claim_owner``) changed, every claim on the first pass.
    """

    def __init__(self, snap: Snapshot, base: Snapshot | None = None) -> None:
        """``base``: the snapshot ``snap`` was copied from (the index comes from it:
        informers.tracked_index, shared with the snapshots derived from it)."""
        self.snap = snap
        self.index = tracked_index(base) if base is not None else TrackedIndex(snap)
        self.attach()
        self.everything = True
        self.deployments: set[str] = set()
        self.replicasets: set[str] = set()
        self.statefulsets: set[str] = set()
        self.unsynced: set[str] = set(snap.statefulsets)  # StatefulSets apply() has to sync
        self.claims: set[str] = set()  # claims for the garbage collector to look at
        # claim -> its owner ("Pod" | "StatefulSet", namespace/name), and back
        self.claim_owner: dict[str, tuple[str, str]] = {}
        self.owned_claims: dict[tuple[str, str], dict[str, None]] = {}
        for key, c in snap.pvcs.items():
            if c.owner is not None:
                self._own_claim(key, c)
        self._claim_sets: dict[tuple[str, str], list[str]] | None = None  # see _sets_of_claim

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
        if self.owned_claims:
            self._owner_changed("Pod", p.key)
        o = p.owner
        if o is None:
            return
        self.index.touch(p)  # a cache of the owner's pods takes the new object
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

    def pod_added(self, p: Pod) -> None:
        """A pod the replay put into the snapshot itself (a DaemonSet pod of an added node)."""
        self.index.add_pod(p)
        self.pod_changed(p)

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
        self._claim_sets = None  # its name or claim templates may be new
        if self.owned_claims:
            self._owner_changed("StatefulSet", key)

    def claim_changed(self, key: str, old: PersistentVolumeClaim | None, new: PersistentVolumeClaim | None) -> None:
        """Claim ``key`` went from ``old`` to ``new`` (None: absent)."""
        self.claims.add(key)
        if old is not None and old.owner is not None:
            was = self.claim_owner.pop(key, None)
            if was is not None:
                self.owned_claims[was].pop(key, None)
        if new is not None and new.owner is not None:
            self._own_claim(key, new)
        self.statefulsets.update(self._sets_of_claim(key))

    def _own_claim(self, key: str, c: PersistentVolumeClaim) -> None:
        assert c.owner is not None
        owner = (c.owner.kind, f"{c.namespace}/{c.owner.name}")
        self.claim_owner[key] = owner
        self.owned_claims.setdefault(owner, {})[key] = None

    def _owner_changed(self, kind: str, key: str) -> None:
        owned = self.owned_claims.get((kind, key))
        if owned:
            self.claims.update(owned)

    def _sets_of_claim(self, key: str) -> list[str]:
        """The StatefulSets whose sync reads claim ``key``: those it is named after
        (StatefulSet.claim_name: ``<template>-<set>-<ordinal>``)."""
        sets = self._claim_sets
        if sets is None:
            sets = self._claim_sets = {}
            for skey, sts in self.snap.statefulsets.items():
                for t in sts.volume_claim_templates:
                    sets.setdefault((sts.namespace, f"{t.name}-{sts.name}"), []).append(skey)
        ns, _, name = key.partition("/")
        base, _, ordinal = name.rpartition("-")
        if not ordinal.isdigit():
            return []
        out = sets.get((ns, base), [])
        if base.endswith("-"):  # a negative ordinal: <template>-<set>--<n>
            out = out + sets.get((ns, base[:-1]), [])
        return out

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
        for key in _diff(pvcs, s.pvcs):
            self.claim_changed(key, pvcs.get(key), s.pvcs.get(key))

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
        if self.everything:
            self.claims.clear()
            run(collect_claims(snap))
        else:
            claims, self.claims = self.claims, set()
            if claims:
                run(collect_claims(snap, claims))
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
