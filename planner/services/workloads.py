"""Workloads and the pods they would run: the shared front half of check, capacity and the replay.

Semantics (docs/semantics.md):
* running pods (assigned, not terminal, not terminating) stay where they are;
* every replica that is not running is planned from the workload's current template;
* StatefulSet: ordinals start..start+N-1, each with its claims <template>-<sts>-<ordinal>; an
  existing claim is used as it is (bound: pinned to its PV's topology), a missing one is created
  from the volumeClaimTemplate (pkg/controller/statefulset/stateful_set_utils.go);
* Deployment: N pods of the current template (the ReplicaSet whose template equals the
  Deployment's, pkg/controller/deployment/util FindNewReplicaSet); pods of other revisions that
  still run stay and count;
* scaling below the running count removes pods as the controllers would: StatefulSets the highest
  ordinals, Deployments by the ReplicaSet controller's deletion ranking (controller_utils.go
  ActivePodsWithRanks, simplified: unassigned, then pending, then more pods of the set on the same
  node, then newest).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from planner.domain import (
    LABEL_CONTROLLER_REVISION_HASH,
    LABEL_POD_INDEX,
    LABEL_POD_TEMPLATE_HASH,
    LABEL_STATEFULSET_POD_NAME,
    Deployment,
    OwnerRef,
    PersistentVolumeClaim,
    Pod,
    PodTemplate,
    PodVolume,
    ReplicaSet,
    StatefulSet,
)
from planner.errors import InputError, UsageError
from planner.scheduler.framework import ClusterState
from planner.snapshot import Snapshot

KIND_ALIASES = {
    "deployment": "Deployment",
    "deployments": "Deployment",
    "deploy": "Deployment",
    "deployment.apps": "Deployment",
    "statefulset": "StatefulSet",
    "statefulsets": "StatefulSet",
    "sts": "StatefulSet",
    "statefulset.apps": "StatefulSet",
}


@dataclass(frozen=True)
class WorkloadRef:
    kind: str  # Deployment | StatefulSet
    namespace: str
    name: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def __str__(self) -> str:
        return f"{self.kind.lower()}/{self.namespace}/{self.name}"


def parse_workload(ref: str, namespace: str | None) -> WorkloadRef:
    """KIND/NAME or KIND/NAMESPACE/NAME; KIND deployment or statefulset (kubectl's short names too)."""
    parts = ref.split("/")
    if len(parts) == 2:
        kind, name = parts
        ns = namespace or "default"
    elif len(parts) == 3:
        kind, ns, name = parts
        if namespace and namespace != ns:
            raise UsageError(f"--workload {ref!r} names namespace {ns!r} but -n says {namespace!r}")
    else:
        raise UsageError(f"--workload {ref!r}: expected KIND/NAME, KIND deployment or statefulset")
    k = KIND_ALIASES.get(kind.lower())
    if k is None or not name:
        raise UsageError(f"--workload {ref!r}: KIND must be deployment or statefulset")
    return WorkloadRef(k, ns, name)


def find_workload(snap: Snapshot, ref: WorkloadRef) -> Deployment | StatefulSet:
    table = snap.deployments if ref.kind == "Deployment" else snap.statefulsets
    obj = table.get(ref.key)
    if obj is None:
        have = sorted(k for k in table if k.startswith(ref.namespace + "/"))
        hint = f" ({ref.kind}s in {ref.namespace}: {', '.join(h.split('/', 1)[1] for h in have)})" if have else ""
        raise InputError(f"{ref.kind} {ref.key} not found in the input{hint}")
    return obj


def owned_by(snap: Snapshot, p: Pod, ref: WorkloadRef) -> bool:
    """Is ``p`` a pod of the workload: a StatefulSet's directly, a Deployment's through one of its
    ReplicaSets (controller ownerReferences)."""
    if p.namespace != ref.namespace or p.owner is None:
        return False
    if ref.kind == "StatefulSet":
        return p.owner.kind == "StatefulSet" and p.owner.name == ref.name
    if p.owner.kind != "ReplicaSet":
        return False
    rs = snap.replicasets.get(f"{p.namespace}/{p.owner.name}")
    return rs is not None and rs.owner is not None and rs.owner.kind == "Deployment" and rs.owner.name == ref.name


def is_running(p: Pod) -> bool:
    """Counts as a running replica: assigned to a node, not terminal, not being deleted."""
    return p.assigned and not p.terminating


@dataclass
class Plan:
    """What reaching N replicas means for one workload."""

    ref: WorkloadRef
    replicas: int
    keep: list[Pod] = field(default_factory=list)  # running replicas that stay
    remove: list[Pod] = field(default_factory=list)  # running or pending pods that go away
    new: list[Pod] = field(default_factory=list)  # pods to place, in creation order
    new_claims: list[PersistentVolumeClaim] = field(default_factory=list)  # PVCs the controller would create
    ordered: bool = False  # OrderedReady: new pods are placed strictly in the order of ``new``
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- StatefulSet


def statefulset_pod(sts: StatefulSet, ordinal: int, revision: str = "") -> Pod:
    """newVersionedStatefulSetPod (stateful_set_utils.go): template + identity + claims."""
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


def statefulset_claim(sts: StatefulSet, ordinal: int, template_name: str) -> PersistentVolumeClaim:
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


def ordinal_of(sts: StatefulSet, pod: Pod) -> int | None:
    prefix = sts.name + "-"
    if not pod.name.startswith(prefix):
        return None
    tail = pod.name[len(prefix):]
    return int(tail) if tail.isdigit() and (tail == "0" or not tail.startswith("0")) else None


def _owner_index(snap: Snapshot) -> dict[tuple[str, str, str], list[tuple[int, Pod]]]:
    """(owner kind, namespace, owner name) -> the controller's pods with their positions in
    snap.pods.  Built in one pass and cached on the snapshot; checked on every use against the
    pods themselves (one list comparison: the same objects, or equal ones, in the same order), so
    a pod added, replaced or removed since is never missed."""
    current = list(snap.pods.values())
    cached = snap.__dict__.get("_owner_index")
    if cached is not None and cached[0] == current:
        return cached[1]
    index: dict[tuple[str, str, str], list[tuple[int, Pod]]] = {}
    for i, p in enumerate(current):
        o = p.owner
        if o is not None:
            index.setdefault((o.kind, p.namespace, o.name), []).append((i, p))
    snap.__dict__["_owner_index"] = (current, index)
    return index


def _pods_owned(snap: Snapshot, kind: str, namespace: str, names: set[str]) -> list[Pod]:
    """Pods of ``namespace`` whose controller owner is a ``kind`` named in ``names``, in snapshot order."""
    index = _owner_index(snap)
    found = [index[k] for k in ((kind, namespace, n) for n in names) if k in index]
    if len(found) == 1:
        return [p for _, p in found[0]]
    return [p for _, p in sorted((x for lst in found for x in lst), key=lambda x: x[0])]


def plan_statefulset(snap: Snapshot, sts: StatefulSet, ref: WorkloadRef, replicas: int) -> Plan:
    plan = Plan(ref, replicas, ordered=sts.pod_management_policy == "OrderedReady")
    owned: dict[int, Pod] = {}
    for p in _pods_owned(snap, "StatefulSet", sts.namespace, {sts.name}):
        o = ordinal_of(sts, p)
        if o is not None:
            owned[o] = p
    start = sts.ordinals_start
    wanted = range(start, start + replicas)
    revision = sts.update_revision
    for o, p in sorted(owned.items()):
        if o not in wanted:
            plan.remove.append(p)
    for o in wanted:
        existing = owned.get(o)
        if existing is not None and is_running(existing):
            plan.keep.append(existing)
            continue
        if existing is not None:
            plan.remove.append(existing)  # a Pending or terminal pod object is replaced by the planned one
        pod = statefulset_pod(sts, o, revision)
        plan.new.append(pod)
        for t in sts.volume_claim_templates:
            key = f"{sts.namespace}/{sts.claim_name(t, o)}"
            if key not in snap.pvcs:
                plan.new_claims.append(statefulset_claim(sts, o, t.name))
    if plan.ordered and plan.new:
        first_new = min(ordinal_of(sts, p) or 0 for p in plan.new)
        later_running = [p for p in plan.keep if (ordinal_of(sts, p) or 0) > first_new]
        if later_running:
            plan.notes.append(
                f"OrderedReady: {len(later_running)} pod(s) with higher ordinals already run; the controller still "
                "creates missing pods in ordinal order"
            )
    return plan


# --------------------------------------------------------------------------- Deployment


def _strip_hash(t: PodTemplate) -> PodTemplate:
    if LABEL_POD_TEMPLATE_HASH not in t.labels:
        return t
    labels = {k: v for k, v in t.labels.items() if k != LABEL_POD_TEMPLATE_HASH}
    return replace(t, labels=labels)


def replicasets_of(snap: Snapshot, dep: Deployment) -> list[ReplicaSet]:
    return [
        rs
        for rs in snap.replicasets.values()
        if rs.namespace == dep.namespace and rs.owner is not None and rs.owner.kind == "Deployment" and rs.owner.name == dep.name
    ]


def current_replicaset(snap: Snapshot, dep: Deployment) -> ReplicaSet | None:
    """deployment/util FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's."""
    want = _strip_hash(dep.template)
    same = [rs for rs in replicasets_of(snap, dep) if _strip_hash(rs.template) == want]
    same.sort(key=lambda rs: (rs.creation_timestamp, rs.name))
    return same[0] if same else None


def _deployment_template_hash(dep: Deployment, rs: ReplicaSet | None) -> str:
    if rs is not None:
        h = rs.labels.get(LABEL_POD_TEMPLATE_HASH) or rs.template.labels.get(LABEL_POD_TEMPLATE_HASH)
        if h:
            return h
    from planner.revision import pod_template_hash

    raw = {"metadata": {"labels": dict(dep.template.labels)}, "spec": repr(dep.template.spec)}
    return pod_template_hash(raw)


def deployment_pod(dep: Deployment, rs_name: str, template_hash: str, index: int, like: Pod | None = None) -> Pod:
    """The ReplicaSet controller's pod number ``index`` of the template.  ``like``: an earlier pod
    of the same call, whose labels, spec and annotations (never changed in place) are shared."""
    if like is not None:
        return replace(like, name=f"{rs_name}-planned-{index}")
    labels = dict(dep.template.labels)
    labels[LABEL_POD_TEMPLATE_HASH] = template_hash
    return Pod(
        namespace=dep.namespace,
        name=f"{rs_name}-planned-{index}",
        labels=labels,
        spec=replace(dep.template.spec, node_name=""),
        phase="Pending",
        owner=OwnerRef("ReplicaSet", rs_name, "", True),
        annotations=dict(dep.template.annotations),
    )


def _deletion_rank(p: Pod, colocated: dict[str, int]) -> tuple:
    # controller.ActivePodsWithRanks: unassigned < assigned; Pending < Running; more pods of the
    # set on the same node first; newer first (creationTimestamp descending).
    return (
        1 if p.spec.node_name else 0,
        1 if p.phase == "Running" else 0,
        -colocated.get(p.spec.node_name, 0),
        _neg_ts(p.creation_timestamp),
        p.name,
    )


def _neg_ts(ts: str) -> tuple:
    return tuple(-ord(c) for c in ts)


def plan_deployment(snap: Snapshot, dep: Deployment, ref: WorkloadRef, replicas: int) -> Plan:
    plan = Plan(ref, replicas)
    rs = current_replicaset(snap, dep)
    rs_names = {r.name for r in replicasets_of(snap, dep)}
    template_hash = _deployment_template_hash(dep, rs)
    rs_name = rs.name if rs is not None else f"{dep.name}-{template_hash}"
    current: list[Pod] = []
    old: list[Pod] = []
    ns, cur_name = dep.namespace, rs.name if rs is not None else None
    for p in _pods_owned(snap, "ReplicaSet", ns, rs_names):
        o = p.owner
        assert o is not None
        if o.name == cur_name:
            if is_running(p):
                current.append(p)
            elif not p.terminal:
                plan.remove.append(p)  # pending replicas are replaced by planned ones
        elif is_running(p):
            old.append(p)
    if len(current) > replicas:
        colocated: dict[str, int] = {}
        for p in current:
            colocated[p.spec.node_name] = colocated.get(p.spec.node_name, 0) + 1
        ranked = sorted(current, key=lambda p: _deletion_rank(p, colocated))
        plan.remove.extend(ranked[: len(current) - replicas])
        plan.keep = ranked[len(current) - replicas:]
    else:
        plan.keep = current
        for i in range(replicas - len(current)):
            plan.new.append(deployment_pod(dep, rs_name, template_hash, i, plan.new[0] if plan.new else None))
    if old:
        plan.notes.append(f"{len(old)} pod(s) of older revisions of {ref} still run; they stay and count")
    return plan


# --------------------------------------------------------------------------- entry


def plan_workload(snap: Snapshot, ref: WorkloadRef, replicas: int | None = None) -> Plan:
    obj = find_workload(snap, ref)
    n = obj.replicas if replicas is None else replicas
    if n < 0:
        raise UsageError(f"--replicas {n}: must be greater than or equal to 0")
    if isinstance(obj, StatefulSet):
        return plan_statefulset(snap, obj, ref, n)
    return plan_deployment(snap, obj, ref, n)


def apply_plans(snap: Snapshot, plans: Iterable[Plan]) -> Snapshot:
    """The snapshot the new pods are placed into: removed pods gone, new claims created."""
    out = snap.copy()
    for plan in plans:
        for p in plan.remove:
            out.pods.pop(p.key, None)
        for c in plan.new_claims:
            out.pvcs.setdefault(c.key, c)
    return out


def base_cluster(snap: Snapshot) -> ClusterState:
    """The snapshot's cluster (Snapshot.base_cluster): clone it before changing anything."""
    return snap.base_cluster()


def cluster_after_plans(snap: Snapshot, plans: Iterable[Plan]) -> ClusterState:
    """ClusterState.from_snapshot(apply_plans(snap, plans)), from the snapshot's base cluster
    cloned for each question."""
    cluster = base_cluster(snap).clone()
    for plan in plans:
        for p in plan.remove:
            if p.spec.node_name and not p.terminal:
                cluster.remove_pod(p)
        for c in plan.new_claims:
            cluster.pvcs.setdefault(c.key, c)
    return cluster
