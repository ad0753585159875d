"""The ReplicaSet controller.

Upstream: pkg/controller/replicaset/replica_set.go (syncReplicaSet, manageReplicas,
getPodsToDelete, getPodsRankedByRelatedPodsOnSameNode, getIndirectlyRelatedPods),
pkg/controller/replicaset/replica_set_utils.go (calculateStatus) and
pkg/controller/controller_utils.go (GetPodFromTemplate; ActivePodsWithRanks and FilterActivePods are
planner.controllers.controller_utils).

Simplified: pods belong to a ReplicaSet by their controller ownerReference only (claimPods'
adoption of orphans and release of pods whose labels stopped matching are not modelled);
expectations are always satisfied (the simulated world is synchronous); the deletion ranking's
"ready for less time" rule (6) and restart counts (7) see equal values, since the snapshot has no
Ready condition times or container statuses.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime

from planner.controllers.actions import Action, CreatePod, DeletePod
from planner.controllers.controller_utils import (
    controlled_by,
    deletion_less,
    generate_name,
    is_pod_active,
    is_pod_available,
    is_pod_ready,
    object_uid,
    ranking_now,
)
from planner.controllers.informers import Clock, TrackedIndex, index_of, indexed, observed_at
from planner.domain import OwnerRef, Pod, ReplicaSet
from planner.snapshot import Snapshot

# replica_set.go BurstReplicas: at most this many creations or deletions per sync.
BURST_REPLICAS = 500

def pods_of_replicaset(snap: Snapshot, rs: ReplicaSet) -> list[Pod]:
    """replica_set.go syncReplicaSet's pod list (claimPods reduced to the controller reference):
    the pods whose controller is ``rs``, any phase, by name."""
    owned = index_of(snap).owned_pods(snap, rs.namespace, "ReplicaSet", rs.name)
    return sorted((p for p in owned if controlled_by(p.owner, "ReplicaSet", rs.name, rs.uid)), key=lambda p: p.name)


@dataclass(frozen=True)
class ReplicaSetStatus:
    replicas: int  # active pods
    ready_replicas: int
    available_replicas: int


def replicaset_status(snap: Snapshot, rs: ReplicaSet) -> ReplicaSetStatus:
    """replica_set_utils.go calculateStatus over the active pods (FilterActivePods): available is
    IsPodAvailable with the ReplicaSet's spec.minReadySeconds (the replay's settled view: a pod
    Ready since a known time becomes available; one Ready without a lastTransitionTime never does
    while minReadySeconds > 0)."""
    active = [p for p in pods_of_replicaset(snap, rs) if is_pod_active(p)]
    return ReplicaSetStatus(
        replicas=len(active),
        ready_replicas=sum(1 for p in active if is_pod_ready(p)),
        available_replicas=sum(1 for p in active if is_pod_available(p, rs.min_ready_seconds)),
    )


def pod_from_template(rs: ReplicaSet, name: str, created: str) -> Pod:
    """controller_utils.go GetPodFromTemplate: the template's labels, annotations and spec, with a
    controller reference to the ReplicaSet."""
    t = rs.template
    return Pod(
        namespace=rs.namespace,
        name=name,
        labels=dict(t.labels),
        spec=t.spec,
        phase="Pending",
        owner=OwnerRef("ReplicaSet", rs.name, rs.uid, True),
        uid=object_uid("Pod", rs.namespace, name, created),
        annotations=dict(t.annotations),
        creation_timestamp=created,
    )


def related_pods(snap: Snapshot, rs: ReplicaSet) -> list[Pod]:
    """replica_set.go getIndirectlyRelatedPods: the pods of every ReplicaSet that has the same
    controller as ``rs`` (the Deployment's ReplicaSets); none for a ReplicaSet without a controller
    (getReplicaSetsWithSameController returns nil there, so every pod's rank is 0)."""
    if rs.owner is None or not rs.owner.controller:
        return []
    out: list[Pod] = []
    siblings = index_of(snap).owned_replicasets(snap, rs.namespace, rs.owner.kind, rs.owner.name)
    for other in sorted(siblings, key=lambda r: r.name):
        if other.owner is not None and other.owner.uid == rs.owner.uid:
            out.extend(pods_of_replicaset(snap, other))
    return out


def ranked_for_deletion(filtered: list[Pod], related: list[Pod], now: datetime, observed: datetime | None = None) -> list[Pod]:
    """replica_set.go getPodsToDelete's order: ``filtered`` sorted by ActivePodsWithRanks
    (controller_utils.go), each pod's rank being the number of active related pods on its node
    (getPodsRankedByRelatedPodsOnSameNode); the first pods go first.  Ages from ranking_now
    (``observed``: about when the snapshot was taken, informers.observed_at)."""
    now = ranking_now(now, filtered, observed)
    on_node: dict[str, int] = {}
    for p in related:
        if is_pod_active(p):
            on_node[p.spec.node_name] = on_node.get(p.spec.node_name, 0) + 1
    ranked = [(p, on_node.get(p.spec.node_name, 0)) for p in filtered]

    def cmp(x: tuple[Pod, int], y: tuple[Pod, int]) -> int:
        if deletion_less(x[0], x[1], y[0], y[1], now):
            return -1
        if deletion_less(y[0], y[1], x[0], x[1], now):
            return 1
        return (x[0].name > y[0].name) - (x[0].name < y[0].name)

    ranked.sort(key=functools.cmp_to_key(cmp))
    return [p for p, _ in ranked]


def pods_to_delete(filtered: list[Pod], related: list[Pod], diff: int, now: datetime, observed: datetime | None = None) -> list[Pod]:
    """replica_set.go getPodsToDelete: the ``diff`` pods ranked first (ranked_for_deletion)."""
    if diff >= len(filtered):
        return list(filtered)
    return ranked_for_deletion(filtered, related, now, observed)[:diff]


def reconcile_replicaset(snap: Snapshot, key: str) -> list[Action]:
    """replica_set.go syncReplicaSet / manageReplicas: create or delete pods until the ReplicaSet
    has ``spec.replicas`` active pods (at most BURST_REPLICAS per sync)."""
    with indexed(snap):
        return _reconcile_replicaset(snap, key)


def _reconcile_replicaset(snap: Snapshot, key: str) -> list[Action]:
    rs = snap.replicasets.get(key)
    if rs is None:
        return []
    # the common case first: as many active pods as replicas, nothing to do (no sort, no clock);
    # the count of pods_of_replicaset's active pods (kept by the replay's index), inlined
    ix = index_of(snap)
    name, uid = rs.name, rs.uid
    if isinstance(ix, TrackedIndex):
        active = ix.active_pods(rs.namespace, "ReplicaSet", name, uid)
    else:
        pods = snap.pods
        active = 0
        for k in ix.pods.get((rs.namespace, "ReplicaSet", name), {}):
            p = pods.get(k)
            if p is None or p.phase in ("Succeeded", "Failed") or p.terminating:  # Pod.terminal
                continue
            o = p.owner  # controlled_by(p.owner, "ReplicaSet", name, uid)
            if o is not None and o.controller and o.kind == "ReplicaSet" and o.name == name and (not o.uid or not uid or o.uid == uid):
                active += 1
    if active == rs.replicas:
        return []
    filtered = [p for p in pods_of_replicaset(snap, rs) if is_pod_active(p)]
    diff = len(filtered) - rs.replicas
    clock = Clock(snap)
    out: list[Action] = []
    if diff < 0:
        n = min(-diff, BURST_REPLICAS)
        mine: set[str] = set()

        def taken(name: str) -> bool:
            return name in mine or f"{rs.namespace}/{name}" in snap.pods

        counter = [0]
        for _ in range(n):
            name = generate_name(rs.name + "-", taken, counter)
            mine.add(name)
            pod = pod_from_template(rs, name, clock.tick())
            out.append(CreatePod(pod, f"ReplicaSet {key}: too few replicas, need {rs.replicas}, have {len(filtered)}"))
    elif diff > 0:
        n = min(diff, BURST_REPLICAS)
        victims = pods_to_delete(filtered, related_pods(snap, rs), n, clock.now, observed_at(snap))
        for p in victims:
            out.append(DeletePod(p.key, f"ReplicaSet {key}: too many replicas, need {rs.replicas}, have {len(filtered)}"))
    return out

