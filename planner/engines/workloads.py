"""Workloads and the pods they would run: the shared front half of check, capacity and the replay.

Semantics (docs/semantics.md):
* running pods (assigned, not terminal, not terminating) stay where they are;
* every replica that is not running is planned from the workload's current template;
* StatefulSet: ordinals start..start+N-1, each with its claims <template>-<sts>-<ordinal>; an
  existing claim is used as it is (bound: pinned to its PV's topology), a missing one is created
  from the volumeClaimTemplate;
* Deployment: N pods of the current template; pods of other revisions that still run stay and
  count;
* scaling below the running count removes pods as the controllers would: StatefulSets the highest
  ordinals, Deployments by the ReplicaSet controller's deletion ranking.

Every rule about which objects belong to a workload and what the controllers make is the
controllers' own (planner.controllers), so that check plans exactly what the replay does:
ownership by controller ownerReference (uid included: metav1.IsControlledBy), the current
ReplicaSet (deployment_util.go FindNewReplicaSet), the new ReplicaSet's name and pod-template-hash
(sync.go getNewReplicaSet, controller_utils.go ComputeHash), the pods a scale-down deletes
(replica_set.go getPodsToDelete, controller_utils.go ActivePodsWithRanks), the names of the pods
a ReplicaSet creates (manageReplicas, GetPodFromTemplate) and a StatefulSet's pods and claims
(stateful_set_utils.go newVersionedStatefulSetPod, getPersistentVolumeClaims).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from planner.controllers.controller_utils import controlled_by, generate_name, is_pod_active
from planner.controllers.deployment import find_new_replicaset, new_replicaset_identity, replicasets_of
from planner.controllers.informers import Clock, indexed, observed_at
from planner.controllers.replicaset import pod_from_template, pods_of_replicaset, ranked_for_deletion
from planner.controllers.statefulset import (
    get_ordinal,
    new_statefulset_claim,
    new_statefulset_pod,
    pods_of_statefulset,
    statefulset_revisions,
)
from planner.domain import (
    LABEL_POD_TEMPLATE_HASH,
    Deployment,
    Node,
    OwnerRef,
    PersistentVolumeClaim,
    Pod,
    PodSpec,
    ReplicaSet,
    StatefulSet,
)
from planner.errors import InputError, UsageError
from planner.scenario import MAX_PODS
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
    """Is ``p`` a pod of the workload, as its controllers see it: a StatefulSet's directly, a
    Deployment's through one of its ReplicaSets (controller ownerReferences, uids compared when
    both sides have one: metav1.IsControlledBy)."""
    if p.namespace != ref.namespace or p.owner is None:
        return False
    if ref.kind == "StatefulSet":
        sts = snap.statefulsets.get(ref.key)
        return sts is not None and controlled_by(p.owner, "StatefulSet", sts.name, sts.uid)
    if p.owner.kind != "ReplicaSet":
        return False
    rs = snap.replicasets.get(f"{p.namespace}/{p.owner.name}")
    dep = snap.deployments.get(ref.key)
    return (rs is not None and dep is not None and controlled_by(p.owner, "ReplicaSet", rs.name, rs.uid)
            and controlled_by(rs.owner, "Deployment", dep.name, dep.uid))


def pods_of_workload(snap: Snapshot, obj: Deployment | StatefulSet) -> list[Pod]:
    """The pods the workload's controllers own (any phase), by name: a StatefulSet's members
    (getPodsForStatefulSet), a Deployment's ReplicaSets' pods (ListReplicaSets, then each one's
    pods)."""
    with indexed(snap, read_only=True):
        if isinstance(obj, StatefulSet):
            out = [p for _, p in pods_of_statefulset(snap, obj)]
        else:
            out = [p for rs in replicasets_of(snap, obj) for p in pods_of_replicaset(snap, rs)]
    return sorted(out, key=lambda p: p.name)


def is_running(p: Pod) -> bool:
    """Counts as a running replica: assigned to a node, not terminal, not being deleted."""
    return p.assigned and not p.terminating


def rollout_under_way(snap: Snapshot, obj: Deployment | StatefulSet, pods: Iterable[Pod]) -> bool:
    """The workload is mid-rollout: its live pods (``pods``, not terminal) are of more than one
    revision, or of none that is current (a Deployment's template matches no ReplicaSet; a
    StatefulSet's update revision differs from its current one).  A workload whose pods are all
    of the current revision is not, even when one of them is unready (a crash-looping replica):
    kubectl rollout restart still starts a rollout there."""
    live = [p for p in pods if not p.terminal]
    if isinstance(obj, Deployment):
        from planner.controllers.deployment import new_replicaset_of

        hashes = {p.labels.get(LABEL_POD_TEMPLATE_HASH) for p in live}
        return len(hashes) > 1 or (new_replicaset_of(snap, obj) is None and bool(live))
    revs = {p.labels.get("controller-revision-hash") for p in live}
    return len(revs) > 1 or bool(obj.update_revision and obj.current_revision and obj.update_revision != obj.current_revision)


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


def plan_statefulset(snap: Snapshot, sts: StatefulSet, ref: WorkloadRef, replicas: int) -> Plan:
    plan = Plan(ref, replicas, ordered=sts.pod_management_policy == "OrderedReady")
    owned: dict[int, Pod] = dict(pods_of_statefulset(snap, sts))
    start = sts.ordinals_start
    wanted = range(start, start + replicas)
    # the revision the controller creates pods at (getStatefulSetRevisions): status.updateRevision
    # while the status describes the template, else the template's own (an applied change)
    _, revision = statefulset_revisions(snap, sts)
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
        pod = new_statefulset_pod(sts, o, revision)
        plan.new.append(pod)
        for t in sts.volume_claim_templates:
            key = f"{sts.namespace}/{sts.claim_name(t, o)}"
            if key not in snap.pvcs:
                plan.new_claims.append(new_statefulset_claim(sts, o, t.name))
    if plan.ordered and plan.new:
        first_new = min(get_ordinal(sts, p) for p in plan.new)
        later_running = [p for p in plan.keep if get_ordinal(sts, p) > first_new]
        if later_running:
            plan.notes.append(
                f"OrderedReady: {len(later_running)} pod(s) with higher ordinals already run; the controller still "
                "creates missing pods in ordinal order"
            )
    return plan


# --------------------------------------------------------------------------- Deployment


def deployment_pods(snap: Snapshot, dep: Deployment, rs: ReplicaSet | None, count: int) -> list[Pod]:
    """The ``count`` pods the ReplicaSet controller would create next for ``rs``, the Deployment's
    current ReplicaSet (None: the one the Deployment controller would create,
    new_replicaset_identity): controller_utils.go GetPodFromTemplate, named as manageReplicas
    names them (``<rs>-<5 characters>``, the first names not taken), unassigned."""
    if rs is None:
        name, h, _ = new_replicaset_identity(snap, dep)
        template = replace(dep.template, labels={**dep.template.labels, LABEL_POD_TEMPLATE_HASH: h})
        rs = ReplicaSet(dep.namespace, name, count, dep.selector, template, owner=OwnerRef("Deployment", dep.name, dep.uid, True))
    ns = rs.namespace

    def taken(name: str) -> bool:
        return name in mine or f"{ns}/{name}" in snap.pods

    mine: set[str] = set()
    counter = [0]
    out: list[Pod] = []
    for _ in range(count):
        name = generate_name(rs.name + "-", taken, counter)
        mine.add(name)
        if out:  # the labels, spec and annotations (never changed in place) are shared
            out.append(replace(out[0], name=name))
            continue
        pod = pod_from_template(rs, name, "")
        out.append(replace(pod, spec=replace(pod.spec, node_name=""), uid=""))
    return out


def plan_deployment(snap: Snapshot, dep: Deployment, ref: WorkloadRef, replicas: int) -> Plan:
    """The current ReplicaSet (FindNewReplicaSet) keeps its running pods, less the ones the
    ReplicaSet controller deletes first when there are more than ``replicas``
    (getPodsToDelete's ranking over the active pods, related pods of every ReplicaSet of the
    Deployment counted per node); its other pods are replaced by planned ones, which bring it to
    ``replicas`` (named as the controller names them)."""
    plan = Plan(ref, replicas)
    rss = replicasets_of(snap, dep)
    rs = find_new_replicaset(dep, rss)
    current: list[Pod] = []  # running
    active: list[Pod] = []  # what the ReplicaSet controller counts (is_pod_active), by name
    old = 0
    for r in rss:
        for p in pods_of_replicaset(snap, r):
            if rs is None or r.key != rs.key:
                old += is_running(p)
                continue
            if is_pod_active(p):
                active.append(p)
            if is_running(p):
                current.append(p)
            elif not p.terminal:
                plan.remove.append(p)  # pending replicas are replaced by planned ones
    if len(current) > replicas:
        assert rs is not None
        related = [p for r in rss for p in pods_of_replicaset(snap, r)]
        ranked = ranked_for_deletion(active, related, Clock(snap).now, observed_at(snap))
        running = {p.key for p in current}
        ranked_running = [p for p in ranked if p.key in running]
        plan.remove.extend(ranked_running[: len(current) - replicas])
        plan.keep = ranked_running[len(current) - replicas:]
    else:
        plan.keep = current
        plan.new = deployment_pods(snap, dep, rs, replicas - len(current))
    if old:
        plan.notes.append(f"{old} pod(s) of older revisions of {ref} still run; they stay and count")
    return plan


# --------------------------------------------------------------------------- entry


def plan_workload(snap: Snapshot, ref: WorkloadRef, replicas: int | None = None, source: str | None = None) -> Plan:
    """What reaching ``replicas`` (default spec.replicas) means for the workload; ``source``
    names where the count comes from (an option, a step) in the error for one too large to plan."""
    obj = find_workload(snap, ref)
    n = obj.replicas if replicas is None else replicas
    if n < 0:
        raise UsageError(f"--replicas {n}: must be greater than or equal to 0")
    ensure_plannable(snap, ref, n, source)
    with indexed(snap, read_only=True):  # one index (cached on the snapshot) for every lookup
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


# --------------------------------------------------------------------------- the cluster's bound


@dataclass(frozen=True)
class RoomBound:
    """The most replicas of a workload the cluster could ever hold (an upper bound, never an
    answer that a count fits): its running pods, plus for every node its template's pods pass the
    static filters on (taints, node affinity and selector, cordon) the most more pods like them the
    node has room for, min(free pod slots, free r / request r for every resource r requested), free
    room counted after every other pod that runs there.  A count past it is unschedulable by
    arithmetic alone: check, capacity, simulate and remediate answer it without planning pods."""

    ref: WorkloadRef
    asked: int  # the count the bound was computed for (a StatefulSet's pods outside its ordinals free room)
    running: int  # running pods of the workload (those that stay are among them)
    more: int  # the most more pods like the template the counted nodes could take
    alone: dict[str, int]  # "pod slots" / resource -> the room were it the only limit
    nodes: list[str]  # the nodes counted
    excluded: list[str]  # nodes the static filters rule out
    preemption: bool = False  # the room of lower-priority pods, which preemption could evict, counted as free

    @property
    def workload(self) -> str:
        return str(self.ref)

    @property
    def max_replicas(self) -> int:
        return self.running + self.more

    def message(self, asked: int) -> str:
        alone = ", ".join(f"{k} {v:,}" for k, v in self.alone.items())
        why = f"{alone}" + (f"; not counting {_few(self.excluded)}, which the pods' taints, affinity or cordon rule out" if self.excluded else "")
        pre = " (lower-priority pods counted as evictable)" if self.preemption else ""
        return (
            f"the cluster has room for at most {self.more:,} more pod(s) like {self.workload}'s on {len(self.nodes):,} node(s){pre} "
            f"({why}), beside its {self.running:,} running: at most {self.max_replicas:,} replicas; {asked:,} asked"
        )


def _few(names: list[str], k: int = 4) -> str:
    return ", ".join(names[:k]) + (f" and {len(names) - k:,} more" if len(names) > k else "")


def room_bound(
    snap: Snapshot,
    ref: WorkloadRef,
    replicas: int,
    preemption: bool = False,
    cluster: ClusterState | None = None,
    running: list[Pod] | None = None,
    enabled: frozenset[str] | None = None,
    within: int | None = None,
) -> RoomBound:
    """RoomBound for ``replicas`` of ``ref`` on ``cluster`` (default: the snapshot's), in one pass
    over the nodes.  ``preemption``: pods of a lower priority than the template's (which
    DefaultPreemption may evict, unless the template says preemptionPolicy: Never) leave their room
    free, as the replay may evict them.  ``running``: the workload's running pods, when the caller
    (the replay) knows them.  ``enabled``: the profile's filter plugins by name (None: the
    default profile's); a node filter it disables (TaintToleration, NodeAffinity,
    NodeUnschedulable) rules no node out.  ``within``: the caller asks only whether
    ``max_replicas >= within``: the nodes are counted until that holds, and the RoomBound returned
    is then partial (its ``more`` at least what the answer needs, its nodes those looked at): good
    for that comparison only; when it does not hold, every node was counted and the bound is whole."""
    from planner.priority import resolve_spec

    obj = find_workload(snap, ref)
    spec = resolve_spec(obj.template.spec, snap.priority_classes)
    cluster = cluster if cluster is not None else base_cluster(snap)
    owned = running if running is not None else [p for p in pods_of_workload(snap, obj) if is_running(p)]
    # the running pods a plan for ``replicas`` could remove (their room frees up): a StatefulSet's
    # outside its ordinals; a Deployment removes running pods only below its running count
    freed: dict[str, list[Pod]] = {}
    if isinstance(obj, StatefulSet):
        lo, hi = obj.ordinals_start, obj.ordinals_start + replicas
        for p in owned:
            o = get_ordinal(obj, p)
            if not lo <= o < hi:
                freed.setdefault(p.spec.node_name, []).append(p)
    enough = None if within is None else within - len(owned)
    more, alone, nodes, excluded, evicting = room_for(spec, cluster, freed, preemption, enabled, enough=enough)
    return RoomBound(ref, replicas, len(owned), more, alone, nodes, excluded, evicting)


def cordon_tolerated(spec: PodSpec) -> bool:
    """Does the pod tolerate node.kubernetes.io/unschedulable (NodeUnschedulable lets it onto a
    cordoned node)?"""
    from planner.matching import find_untolerated_taint
    from planner.scheduler.plugins.nodeunschedulable.filtering import TAINT_NODE_UNSCHEDULABLE

    return find_untolerated_taint([TAINT_NODE_UNSCHEDULABLE], spec.tolerations) is None


def static_exclusion(spec: PodSpec, node: Node, cordon_ok: bool, enabled: frozenset[str] | None = None) -> str | None:
    """Why the filters that do not look at other pods rule ``node`` out for pods of ``spec``
    (NodeUnschedulable, TaintToleration, NodeAffinity, in kube-scheduler's order), or None when
    they let it in.  ``cordon_ok``: cordon_tolerated(spec); ``enabled``: the profile's filter
    plugins by name (None: the default profile's): a disabled one rules no node out."""
    from planner.matching import find_untolerated_taint, pod_matches_node_selector_and_affinity

    def on(name: str) -> bool:
        return enabled is None or name in enabled

    if node.unschedulable and not cordon_ok and on("NodeUnschedulable"):
        return "cordoned"
    taint = find_untolerated_taint(node.taints, spec.tolerations) if on("TaintToleration") else None
    if taint is not None:
        return f"taint {taint.key}{'=' + taint.value if taint.value else ''}:{taint.effect}"
    if on("NodeAffinity") and not pod_matches_node_selector_and_affinity(spec, node):
        return "node affinity or selector"
    return None


def room_for(
    spec: PodSpec,
    cluster: ClusterState,
    freed: dict[str, list[Pod]] | None = None,
    preemption: bool = False,
    enabled: frozenset[str] | None = None,
    per_node: dict[str, tuple[bool, int, str]] | None = None,
    enough: int | None = None,
) -> tuple[int, dict[str, int], list[str], list[str], bool]:
    """The most more pods of ``spec`` the nodes of ``cluster`` have room for (RoomBound's
    arithmetic): ``(more, alone, nodes counted, nodes excluded, lower-priority pods counted as
    evictable)``.  ``freed``: node -> pods whose room counts as free; ``enabled``: as
    room_bound's.  ``per_node``, when given, is filled with node -> (counted, more pods, what
    limits them: "pod slots" or a resource; for an excluded node False, 0 and static_exclusion's
    reason).  ``enough``: stop once ``more`` reaches it (the nodes after are not looked at: every
    figure returned is then partial, ``more`` a lower bound of the whole that is at least ``enough``)."""
    from planner.scheduler.plugins.defaultpreemption.preemption import may_preempt, victims_of
    from planner.scheduler.plugins.noderesources.fit import is_scalar_resource_name

    freed = freed or {}
    # the resources NodeResourcesFit checks
    reqs = {r: q for r, q in spec.requests.items() if q > 0 and (r in ("cpu", "memory", "ephemeral-storage") or is_scalar_resource_name(r))}
    evict_below = spec.priority if preemption and may_preempt(spec) else None
    cordon_ok = cordon_tolerated(spec)
    alone = {"pod slots": 0, **{r: 0 for r in sorted(reqs)}}
    more = 0
    nodes: list[str] = []
    excluded: list[str] = []
    for ni in cluster.node_infos:
        if enough is not None and more >= enough:
            break
        node = ni.node
        why = static_exclusion(spec, node, cordon_ok, enabled)
        if why is not None:
            excluded.append(node.name)
            if per_node is not None:
                per_node[node.name] = (False, 0, why)
            continue
        nodes.append(node.name)
        gone = list(freed.get(node.name, ()))
        if evict_below is not None:
            gone += victims_of(spec, ni.pods)
        used = dict(ni.requested)
        for p in gone:
            for r, q in p.spec.requests.items():
                used[r] = used.get(r, 0) - q
        alloc = node.allocatable
        k = max(0, alloc.get("pods", 0) - len(ni.pods) + len(gone))
        alone["pod slots"] += k
        limit = "pod slots"
        for r, q in reqs.items():
            kr = max(0, (alloc.get(r, 0) - used.get(r, 0)) // q)
            alone[r] += kr
            if kr < k:
                k, limit = kr, r
        more += k
        if per_node is not None:
            per_node[node.name] = (True, k, limit)
    return more, alone, nodes, excluded, evict_below is not None


# check's margin: counts this close past the bound still get the full check, whose why names what
# runs out where (the bound counts resources only: a hostname anti-affinity or a zone spread
# limits far sooner), for under 2 s at 1,000 past on 500 nodes (bench/bound_margin.py,
# docs/semantics.md).  capacity has none, the replay none for a step's count (STEP_SLACK).
BOUND_SLACK = 1000

# The most new pods planner plans (check, capacity, remediate, audit) or replays (simulate) for a
# workload at once: as many as a scenario may hold.  Only a count the cluster's bound does not
# answer can reach it: nodes whose allocatable pods, cpu and memory are so large that the
# arithmetic rules nothing out (valid input: the API server sets no maximum).
MAX_PLANNED_PODS = MAX_PODS


def ensure_plannable(snap: Snapshot, ref: WorkloadRef, replicas: int, source: str | None = None, running: int | None = None) -> None:
    """Raise InputError when ``replicas`` of ``ref`` need more than MAX_PLANNED_PODS new pods
    (``running``: the workload's running pods, when known).  ``source``: what asked for the count
    (an option, a step; None: the workload's spec.replicas)."""
    if replicas - len(snap.pods) <= MAX_PLANNED_PODS and running is None:
        return  # the common case, without counting: at most that many pods run
    obj = find_workload(snap, ref)
    if running is None:
        running = sum(1 for p in pods_of_workload(snap, obj) if is_running(p))
    new = replicas - running
    if new <= MAX_PLANNED_PODS:
        return
    what = source or (f"{ref.kind} {ref.key}: spec.replicas" if replicas == obj.replicas else f"{ref.kind} {ref.key}")
    raise InputError(
        f"{what}: {replicas:,} replicas of {ref} need {new:,} new pods: more than planner places at once "
        f"({MAX_PLANNED_PODS:,}, as many as a scenario may hold), and the nodes' allocatable pods, cpu and memory "
        "are large enough that the count is not ruled out by arithmetic either"
    )


def past_bound(
    snap: Snapshot, ref: WorkloadRef, replicas: int | None, slack: int | None = None, enabled: frozenset[str] | None = None
) -> RoomBound | None:
    """The bound when ``replicas`` (default spec.replicas) is more than ``slack`` past it, else
    None.  Counts just past it are left to the full check, whose explanation names the zones and
    nodes that run out; farther ones are answered by the arithmetic alone, without planning pods.
    Lower-priority pods count as free room (check preempts them); ``enabled``: the profile's
    filter plugins (None: the default profile's; without NodeResourcesFit there is no bound)."""
    slack = BOUND_SLACK if slack is None else slack
    n = find_workload(snap, ref).replicas if replicas is None else replicas
    if n <= slack or (enabled is not None and "NodeResourcesFit" not in enabled):
        return None
    b = room_bound(snap, ref, n, preemption=True, enabled=enabled)
    return b if n > b.max_replicas + slack else None
