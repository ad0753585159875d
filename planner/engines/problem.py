"""From a snapshot and workload plans to a models.problem.Problem (node classes, pod groups).

The static part of every filter is evaluated here with the plugins themselves, once per pod
signature and node: NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts,
VolumeRestrictions, VolumeBinding, VolumeZone, InterPodAffinity against existing pods (the anti-affinity parts: they
only get stricter as pods are added), and PodTopologySpread's missing-label rule.  What changes as
new pods land (capacity, CSI volumes per node (NodeVolumeLimits), skew, anti-affinity and
affinity among the new pods) goes to the CP-SAT model.  Nodes that answer alike for every group become one class.

What each plugin contributes is in its folder's problem.py (planner/scheduler/plugins/<plugin>/
problem.py: volumebinding, noderesources, podtopologyspread, interpodaffinity); build_problem
puts the contributions together in a fixed sequence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from models.problem import Exclusion, Group, NodeClass, Problem, Victim
from planner.domain import LABEL_ZONE, POD_IDENTITY_LABELS, PODS, Pod, reads_pod_identity, terms_read_pod_identity
from planner.engines.workloads import Plan
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo
from planner.scheduler.plugins.defaultpreemption import problem as defaultpreemption
from planner.scheduler.plugins.defaultpreemption.preemption import can_evict
from planner.scheduler.plugins.interpodaffinity import filtering as ipa
from planner.scheduler.plugins.interpodaffinity import problem as interpodaffinity
from planner.scheduler.plugins.nodeaffinity import filtering as nodeaffinity
from planner.scheduler.plugins.nodename import filtering as nodename
from planner.scheduler.plugins.nodeports import filtering as nodeports
from planner.scheduler.plugins.noderesources import problem as noderesources
from planner.scheduler.plugins.nodeunschedulable import filtering as nodeunschedulable
from planner.scheduler.plugins.nodevolumelimits import problem as nodevolumelimits
from planner.scheduler.plugins.podtopologyspread import filtering as pts
from planner.scheduler.plugins.podtopologyspread import problem as podtopologyspread
from planner.scheduler.plugins.tainttoleration import filtering as tainttoleration
from planner.scheduler.plugins.volumebinding import filtering as vb_filtering
from planner.scheduler.plugins.volumebinding import problem as volumebinding
from planner.scheduler.plugins.volumebinding.problem import VOLUME_PLUGINS, volume_classes
from planner.scheduler.registry import FilterPlugin

# The filters whose verdicts are static, evaluated with the plugins themselves (the volume ones
# per pod, by volumebinding.volume_verdicts); then each plugin's own static part, in this order.
STATIC_PLUGINS: tuple[FilterPlugin, ...] = (nodeunschedulable, nodename, tainttoleration, nodeaffinity, nodeports)
STATIC_PARTS = ((ipa.NAME, interpodaffinity.static_failures), (pts.NAME, podtopologyspread.static_failures))
# The filter plugins a --scheduler-config profile enables, by name (None: the default profile's)
Enabled = frozenset[str] | None
_ORDER = {name: i for i, name in enumerate((*(m.NAME for m in STATIC_PLUGINS), *(m.NAME for m in VOLUME_PLUGINS), ipa.NAME, pts.NAME))}

__all__ = ["STATIC_PLUGINS", "Context", "Memo", "build_problem"]


@dataclass
class Context:
    """What the service needs beside the Problem to turn a solution back into pods and nodes."""

    cluster: ClusterState
    pods: dict[str, Pod]  # new pods by key
    plan_of: dict[str, int]  # pod key -> plan index
    ordered_plans: list[list[str]]  # per ordered plan: its pods in creation order
    group_pods: list[list[Pod]] = field(default_factory=list)
    node_class: dict[str, int] = field(default_factory=dict)


def _signature_memo(memo: dict[tuple, tuple], p: Pod, plan_index: int, identity_read: bool) -> tuple:
    """_signature, once per template: pods sharing their labels and spec objects share it."""
    k = (plan_index, id(p.labels), id(p.spec))
    hit = memo.get(k)
    if hit is None:
        hit = memo[k] = _signature(p, plan_index, identity_read)
    return hit


def _signature(p: Pod, plan_index: int, identity_read: bool) -> tuple:
    """What the filters read of a pod of a template.  Its identity labels (POD_IDENTITY_LABELS)
    only when some selector reads them: the pod's own (reads_pod_identity) or an existing pod's
    required anti-affinity term (``identity_read``); then pods of one template differ."""
    if identity_read or reads_pod_identity(p):
        labels = tuple(sorted(p.labels.items()))
    else:
        labels = tuple(sorted((k, v) for k, v in p.labels.items() if k not in POD_IDENTITY_LABELS))
    return (plan_index, labels, tuple(sorted(p.spec.requests.items())), id(p.spec.affinity), p.spec.topology_spread_constraints, p.spec.tolerations, tuple(sorted(p.spec.node_selector.items())), p.spec.host_ports)


def _claim_detail(pod: Pod | None, pre_filter: Any) -> tuple[list[str], str]:
    return volumebinding.claim_detail(pod, pre_filter) if pod is not None else ([], "")


def _static_failures(pod: Pod, cluster: ClusterState, enabled: Enabled = None) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Per node (in cluster order): every static plugin but the volume ones that rejects the pod,
    with its reason, in filter order, then InterPodAffinity's and PodTopologySpread's static parts
    (see volumebinding.volume_verdicts for VolumeBinding and VolumeZone).  ``enabled``: the filter
    plugins of the profile (None: every one); a disabled plugin rejects nothing."""
    n = len(cluster.node_infos)
    out: list[list[tuple[str, str]]] = [[] for _ in range(n)]
    for mod in STATIC_PLUGINS:
        if enabled is None or mod.NAME in enabled:
            _run_static(mod, pod, cluster, out)
    for name, part in STATIC_PARTS:
        if enabled is None or name in enabled:
            part(pod, cluster, out)
    return tuple(tuple(row) for row in out)


def _run_static(mod: FilterPlugin, pod: Pod, cluster: ClusterState, out: list[list[tuple[str, str]]]) -> None:
    state, status = mod.pre_filter(pod, cluster)
    if status is not None:
        for row in out:
            row.append((mod.NAME, status.message))
        return
    if state is SKIP:
        return
    flt = mod.filter
    for i, ni in enumerate(cluster.node_infos):
        st = flt(state, pod, ni)
        if st is not None:
            out[i].append((mod.NAME, st.message))


class Memo:
    """What stays valid across the problems of one set of questions on related clusters (a
    remediation's action model and its plans' checks: the same pods planned on clusters that
    differ by a few nodes or by the workload's template): VolumeBinding's PreFilter per pod.

    PreFilter (plugins/volumebinding/filtering.py pre_filter) reads of the pod its namespace, its
    volumes, and its uid and name only for an ephemeral volume's owner; of the cluster, the claims
    those volumes name, every PersistentVolume and every StorageClass.  A result is reused for a
    pod equal on those, with equal claims, on a cluster whose PVs and StorageClasses equal those
    it was computed on (compared once per problem: a few worlds are kept)."""

    WORLDS = 4

    def __init__(self) -> None:
        # per world (its PVs and StorageClasses): pod part -> [(its claims, PreFilter's result)]
        self.worlds: list[tuple[dict, dict, dict[tuple, list[tuple[tuple, tuple[Any, Any]]]]]] = []

    def world(self, cluster: ClusterState) -> dict[tuple, list[tuple[tuple, tuple[Any, Any]]]]:
        for pvs, scs, table in self.worlds:
            if pvs == cluster.pvs and scs == cluster.storage_classes:
                return table
        fresh: dict[tuple, list[tuple[tuple, tuple[Any, Any]]]] = {}
        self.worlds.insert(0, (dict(cluster.pvs), dict(cluster.storage_classes), fresh))
        del self.worlds[self.WORLDS:]
        return fresh


class _SharedPreFilter(volumebinding.PreFilterMemo):
    """PreFilterMemo backed by a Memo: a pod's result from another problem when it is valid here."""

    def __init__(self, cluster: ClusterState, memo: Memo) -> None:
        super().__init__(cluster)
        self.table = memo.world(cluster)

    def __call__(self, pod: Pod) -> tuple[Any, Any]:
        hit = self.memo.get(pod.key)
        if hit is None:
            vols = pod.spec.volumes
            eph = any(v.ephemeral for v in vols)
            part = (pod.namespace, vols, (pod.name, pod.uid) if eph else None)
            claims = tuple(self.cluster.pvcs.get(f"{pod.namespace}/{v.claim_name}") for v in vols)
            entries = self.table.setdefault(part, [])
            for known, result in entries:
                if known == claims:
                    hit = result
                    break
            else:
                hit = vb_filtering.pre_filter(pod, self.cluster)
                entries.append((claims, hit))
            self.memo[pod.key] = hit
        return hit


def _per_node_keys(cluster: ClusterState, keys: set[str]) -> set[str]:
    """Topology keys whose values are unique per node (hostname-like domains)."""
    out = set()
    for k in keys:
        vals = [ni.node.labels[k] for ni in cluster.node_infos if k in ni.node.labels]
        if vals and len(set(vals)) == len(vals):
            out.add(k)
    return out


def build_problem(
    cluster: ClusterState,
    plans: list[Plan],
    aggregate: bool = True,
    relax_order: bool = False,
    enabled: Enabled = None,
    preemption: defaultpreemption.PreemptionInput | None = None,
    tags: dict[str, str] | None = None,
    links: dict[int, int] | None = None,
    memo: Memo | None = None,
) -> tuple[Problem, Context]:
    """``relax_order``: the unordered model even for an OrderedReady workload (a relaxation: its
    "unschedulable" is a proof for the ordinal order too; its witness still follows that order).
    ``enabled``: the filter plugins of the scheduling profile (--scheduler-config), by name; a
    plugin the profile disables contributes nothing: no static verdict, no capacity
    (NodeResourcesFit), no host-port rule (NodePorts), no spread (PodTopologySpread), no affinity
    terms (InterPodAffinity), no attach limits (NodeVolumeLimits), no static claims (VolumeBinding).
    ``preemption``: the new pods may preempt lower-priority pods (DefaultPreemption): the
    victims (plugins/defaultpreemption/problem.py) go to the problem, each victim's node a class
    of its own.
    ``tags``: node -> a tag; nodes of different tags are never in one class (the nodes a
    remediation may add, one class per node group, and may uncordon, one each: models.remediation
    gates them).  ``links``: plan index -> the plan it is
    a variant of (the same pods, position by position, from a changed template: a remediation's
    candidate); the pods of linked plans are grouped alike, position by position (the common
    refinement of their groupings), so that group i of one is group i of the other.  ``memo``:
    what the problems of related questions share (Memo); the problem is the same without it."""

    def on(name: str) -> bool:
        return enabled is None or name in enabled

    key: Any
    v: Any
    new_pods: list[tuple[int, Pod]] = [(i, p) for i, plan in enumerate(plans) for p in plan.new]
    plans_with_new = [i for i, plan in enumerate(plans) if plan.new]
    ordered_mode = len(plans_with_new) == 1 and plans[plans_with_new[0]].ordered and not relax_order
    ctx = Context(
        cluster=cluster,
        pods={p.key: p for _, p in new_pods},
        plan_of={p.key: i for i, p in new_pods},
        ordered_plans=[[p.key for p in plan.new] for plan in plans if plan.ordered and plan.new],
    )
    nodes = cluster.node_infos
    notes: list[str] = []
    identity_read = any(
        terms_read_pod_identity(ep.spec.affinity.pod_anti_affinity_required)
        for ni in nodes
        for ep in ni.pods_with_required_anti_affinity
        if ep.spec.affinity is not None
    )

    # 1. static verdicts per pod signature, then per pod for volumes (pins differ per pod)
    by_sig: dict[tuple, tuple] = {}
    verdicts: list[Any] = []
    # pods with volumes, by key: their claim chains (volumebinding.claim_detail) are the detail of
    # a volume plugin's exclusion, read only for the groups that have one (step 5)
    with_volumes: dict[str, Pod] = {}
    details: dict[str, tuple[list[str], str]] = {}
    vclasses = volume_classes(cluster) if any(p.spec.volumes for _, p in new_pods) else None
    vb_pre_filter = volumebinding.PreFilterMemo(cluster) if memo is None else _SharedPreFilter(cluster, memo)
    sig_memo: dict[tuple, tuple] = {}  # pods alive for the whole build: their ids are stable
    vol_memo: dict[tuple, Any] = {}  # the volume plugins' verdicts per pod volumes (volume_verdicts)
    for i, p in new_pods:
        sig = _signature_memo(sig_memo, p, i, identity_read)
        base = by_sig.get(sig)
        if base is None:
            base = by_sig[sig] = _static_failures(p, cluster, enabled)
        if p.spec.volumes:
            assert vclasses is not None
            v = volumebinding.volume_verdicts(p, cluster, base, vclasses, vb_pre_filter, _ORDER, enabled, vol_memo)
            with_volumes[p.key] = p
        else:
            v = base
        verdicts.append(v)

    # 2. groups: interchangeable pods (same signature and same static verdicts)
    group_key: dict[tuple, int] = {}
    groups: list[Group] = []
    group_pods: list[list[Pod]] = []
    group_verdicts: list[tuple] = []
    canon_by_id: dict[int, tuple] = {}  # verdict tables compared by content, hashed once per object
    canon: dict[tuple, tuple] = {}
    pod_keys: list[Any] = []
    for (i, p), v in zip(new_pods, verdicts):
        cv = canon_by_id.get(id(v))
        if cv is None:
            cv = canon_by_id[id(v)] = canon.setdefault(v, v)
        pod_keys.append((_signature_memo(sig_memo, p, i, identity_read), id(cv), volumebinding.prebound(p, vb_pre_filter)))
    if links:
        # a pod's group key is the tuple of the keys of its position in every linked plan
        starts: dict[int, int] = {}
        n = 0
        for i, plan in enumerate(plans):
            starts[i] = n
            n += len(plan.new)
        linked: dict[int, list[int]] = {}
        for v, b in links.items():
            if len(plans[v].new) != len(plans[b].new):
                raise ValueError(f"plan {v} is linked to plan {b} but places {len(plans[v].new)} pods, not {len(plans[b].new)}")
            linked.setdefault(b, [b]).append(v)
        keyed: list[Any] = list(pod_keys)
        for b, ms in linked.items():
            for pos in range(len(plans[b].new)):
                combined = tuple(pod_keys[starts[i] + pos] for i in ms)
                for i in ms:
                    keyed[starts[i] + pos] = (i, combined)
        pod_keys = keyed
    if ordered_mode and len(set(pod_keys)) == 1:
        # An OrderedReady workload whose new pods are all interchangeable: placing them in ordinal
        # order is placing them in some order (any valid order is one in ordinal order once the
        # pods are renamed), so the unordered model decides it, and the witness still follows
        # creation order (ctx.ordered_plans).  Pods that differ (a bound claim's pin) keep the
        # ordered model, one group per pod.
        ordered_mode = False
    for n, ((i, p), v, pk) in enumerate(zip(new_pods, verdicts, pod_keys)):
        key = (n,) if ordered_mode else pk
        gi = group_key.get(key)
        if gi is None:
            gi = group_key[key] = len(groups)
            groups.append(
                Group(
                    index=gi,
                    pods=[],
                    workload=str(plans[i].ref),
                    labels=dict(p.labels),
                    requests=dict(p.spec.requests),
                    host_ports=bool(p.spec.host_ports) and on(nodeports.NAME),
                )
            )
            group_pods.append([])
            group_verdicts.append(v)
        groups[gi].pods.append(p.key)
        group_pods[gi].append(p)
    ctx.group_pods = group_pods
    reps = [gp[0] for gp in group_pods]

    # 3. constraints' shapes: topology keys, per-node or zone-like
    # pods of one template (an OrderedReady StatefulSet's are one group each) share their counts
    rep_sig = [_signature(rep, ctx.plan_of[rep.key], identity_read) + ((rep.key,) if reads_pod_identity(rep) else ()) for rep in reps]
    spread = podtopologyspread.pre_filter_states(reps if on(pts.NAME) else [], rep_sig, cluster)
    topo_keys = spread.topology_keys | (interpodaffinity.topology_keys(reps) if on(ipa.NAME) else set())
    per_node = _per_node_keys(cluster, topo_keys)
    zone_keys = sorted((topo_keys - per_node) | {LABEL_ZONE})

    # 4. per-node facts that must be uniform within a class
    cap_memo: dict[tuple, list[int]] = {}
    caps = []
    for g, rep in enumerate(reps):
        ck = (tuple(sorted(rep.spec.requests.items())), groups[g].count)
        if ck not in cap_memo:
            # NodeResourcesFit disabled: no room is counted (nor pod slots: its Filter counts them)
            cap_memo[ck] = noderesources.capacities(rep, nodes, groups[g].count) if on(noderesources.NAME) else [groups[g].count] * len(nodes)
        caps.append(cap_memo[ck])
    # pods that are placed together (linked plans are alternatives: one of them is placed)
    together: list[list[int]] = [list(range(len(groups)))]
    if links:
        plan_groups: dict[int, list[int]] = {}
        for gi, gp in enumerate(group_pods):
            plan_groups.setdefault(ctx.plan_of[gp[0].key], []).append(gi)
        alone = [gs for i, gs in plan_groups.items() if i in links or i in links.values()]
        rest = [gi for i, gs in plan_groups.items() if not (i in links or i in links.values()) for gi in gs]
        together = [gs + rest for gs in alone] or [rest]
    multi_vector = any(len({tuple(sorted(groups[g].requests.items())) for g in gs}) > 1 for gs in together)
    podtopologyspread.node_facts(spread, reps, rep_sig, nodes, per_node)
    affinity_specs = interpodaffinity.affinity_specs(reps, nodes, cluster) if on(ipa.NAME) else []
    # NodeVolumeLimits: CSI volumes per driver per node (None: no node limits a driver in use)
    vfacts = nodevolumelimits.volume_facts(reps, [p for _, p in new_pods], cluster) if on(nodevolumelimits.NAME) else None
    # groups bringing different volumes share a node's room exactly only on one-node classes
    volume_vector = vfacts is not None and any(len(gs) > 1 for gs in together)
    # DefaultPreemption: the victims, per node (each such node a class of its own)
    vf = None
    if preemption is not None:
        vf = defaultpreemption.victim_facts(reps, [g.count for g in groups], cluster, group_verdicts, preemption.keep, enabled)
    victim_nodes = vf.nodes if vf is not None else set()

    node_keys = []
    for j, ni in enumerate(nodes):
        labels = ni.node.labels
        key = (
            tuple(gv[j] for gv in group_verdicts),
            tuple(cp[j] for cp in caps),
            tuple(labels.get(k) for k in zone_keys),
            tuple(pc[j] if pc is not None else None for pc in spread.per_node_counts),
            tuple(el[j] for el in spread.eligibility),
            tuple(tuple(labels.get(k) is not None for k in sorted(per_node))),
            tuple(f[j] for _, _, f in affinity_specs),
            vfacts.node_key(len(groups), j) if vfacts is not None else None,
            ni.name if (multi_vector or volume_vector or not aggregate or j in victim_nodes) else None,
            tags.get(ni.name) if tags else None,
        )
        node_keys.append(key)
    class_of_key: dict[tuple, int] = {}
    classes: list[NodeClass] = []
    class_rep: list[int] = []
    for j, key in enumerate(node_keys):
        ci = class_of_key.get(key)
        ni = nodes[j]
        if ci is None:
            ci = class_of_key[key] = len(classes)
            if on(noderesources.NAME):
                free = {r: ni.node.allocatable.get(r, 0) - ni.requested.get(r, 0) for r in {r for g in groups for r in g.requests}}
                free[PODS] = ni.node.allocatable.get(PODS, 0) - len(ni.pods)
            else:
                free = {}
            classes.append(
                NodeClass(
                    index=ci,
                    nodes=[],
                    zone=ni.node.labels.get(LABEL_ZONE, ""),
                    domains={k: ni.node.labels[k] for k in zone_keys if k in ni.node.labels},
                    cap=[caps[g][j] for g in range(len(groups))],
                    free=free,
                    node_keys=frozenset(k for k in per_node if k in ni.node.labels),
                )
            )
            class_rep.append(j)
        classes[ci].nodes.append(ni.name)
        ctx.node_class[ni.name] = ci
    volume_limits = vfacts.constraints(class_rep, len(groups)) if vfacts is not None else []
    victims: list[Victim] = []
    victim_at: dict[tuple[int, str], int] = {}  # (node index, pod key) -> victim
    if vf is not None and preemption is not None:
        for j in sorted(vf.on_node):
            ci = ctx.node_class[nodes[j].name]
            vcls = classes[ci]
            vcls.cap_preempt = vf.cap_preempt[j]
            for pod in vf.on_node[j]:
                req = {r: pod.spec.requests.get(r, 0) for r in vcls.free if r != PODS}
                if PODS in vcls.free:
                    req[PODS] = 1
                preemptors = sorted(g for g in vf.usable[j] if can_evict(reps[g].spec.priority, pod))
                vi = len(victims)
                victims.append(Victim(vi, pod.key, nodes[j].name, ci, pod.spec.priority, req, preemptors,
                                      defaultpreemption.budgets_of(pod, preemption.pdbs)))
                victim_at[j, pod.key] = vi
                vcls.victims.append(vi)

    # 5. static exclusions per group and plugin
    for g, gv in enumerate(group_verdicts):
        by_plugin: dict[str, tuple[str, list[int]]] = {}
        for ci, j in enumerate(class_rep):
            for plugin, reason in gv[j]:
                r, cls = by_plugin.setdefault(plugin, (reason, []))
                cls.append(ci)
        for plugin, (reason, cls) in by_plugin.items():
            objects, detail = ([], "")
            if volumebinding.is_volume_plugin(plugin):
                objs: list[str] = []
                parts: list[str] = []
                for k in groups[g].pods:
                    o, d = details.get(k) or details.setdefault(k, _claim_detail(with_volumes.get(k), vb_pre_filter))
                    objs.extend(x for x in o if x not in objs)
                    if d and d not in parts:
                        parts.append(d)
                objects = objs
                detail = "; ".join(parts[:4]) + (f"; and {len(parts) - 4} more" if len(parts) > 4 else "")
            unless: dict[int, list[int]] = {}
            if vf is not None:
                for ci in cls:
                    j = class_rep[ci]
                    keys = vf.blockers.get((g, j), {}).get(plugin)
                    if keys:
                        unless[ci] = [victim_at[j, k] for k in keys]
            groups[g].exclusions.append(Exclusion(plugin, reason, cls, objects, detail, unless))

    # 6. spread signatures shared by groups
    problem = Problem(classes=classes, groups=groups, ordered=ordered_mode, exact_packing=True, notes=notes, volume_limits=volume_limits)
    if victims and preemption is not None:
        problem.victims = victims
        problem.budgets = defaultpreemption.budgets(preemption.pdbs)
    victim_pods = [(v.index, cluster.by_name[v.node], v.node_class) for v in victims]
    podtopologyspread.add_spreads(problem, spread, reps, groups, per_node, ctx.node_class, nodes, ordered_mode, victim_pods, victim_at)

    members: list[list[NodeInfo]] = [[] for _ in classes]
    for ni in nodes:
        members[ctx.node_class[ni.name]].append(ni)
    if on(volumebinding.NAME):
        volumebinding.static_claims(problem, reps, members, vb_pre_filter)

    # 7. anti-affinity and affinity among the new pods
    if on(ipa.NAME):
        interpodaffinity.add_terms(problem, reps, groups, affinity_specs, per_node, ctx.node_class, nodes, cluster)
    if len(plans_with_new) > 1 and any(plans[i].ordered for i in plans_with_new):
        notes.append("several workloads with OrderedReady: the model checks without order; the witness keeps each workload's order")
    return problem, ctx
