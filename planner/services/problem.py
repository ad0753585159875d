"""From a snapshot and workload plans to a models.problem.Problem (node classes, pod groups).

The static part of every filter is evaluated here with the plugins themselves, once per pod
signature and node: NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts,
VolumeBinding, VolumeZone, InterPodAffinity against existing pods (the anti-affinity parts: they
only get stricter as pods are added), and PodTopologySpread's missing-label rule.  What changes as
new pods land (capacity, skew, anti-affinity and affinity among the new pods) goes to the CP-SAT
model.  Nodes that answer alike for every group become one class.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from models.problem import Affinity, AntiAffinity, Exclusion, Group, NodeClass, Problem, Spread, StaticClaim
from planner.domain import (
    CPU,
    EPHEMERAL_STORAGE,
    LABEL_POD_INDEX,
    LABEL_STATEFULSET_POD_NAME,
    LABEL_ZONE,
    MEMORY,
    PODS,
    Pod,
)
from planner.framework import SKIP, ClusterState, NodeInfo
from planner.matching import find_untolerated_taint, node_selector_matches, pod_matches_node_selector_and_affinity
from planner.plugins import interpodaffinity as ipa
from planner.plugins import (
    nodeaffinity,
    nodename,
    nodeports,
    noderesourcesfit,
    nodeunschedulable,
    tainttoleration,
    volumebinding,
    volumezone,
)
from planner.plugins import podtopologyspread as pts
from planner.services.workloads import Plan

STATIC_PLUGINS = (nodeunschedulable, nodename, tainttoleration, nodeaffinity, nodeports, volumebinding, volumezone)
IDENTITY_LABELS = (LABEL_STATEFULSET_POD_NAME, LABEL_POD_INDEX)


@dataclass
class Context:
    """What the service needs beside the Problem to turn a solution back into pods and nodes."""

    cluster: ClusterState
    pods: dict[str, Pod]  # new pods by key
    plan_of: dict[str, int]  # pod key -> plan index
    ordered_plans: list[list[str]]  # per ordered plan: its pods in creation order
    group_pods: list[list[Pod]] = field(default_factory=list)
    node_class: dict[str, int] = field(default_factory=dict)


def _signature_memo(memo: dict[tuple, tuple], p: Pod, plan_index: int) -> tuple:
    """_signature, once per template: pods sharing their labels and spec objects share it."""
    k = (plan_index, id(p.labels), id(p.spec))
    hit = memo.get(k)
    if hit is None:
        hit = memo[k] = _signature(p, plan_index)
    return hit


def _signature(p: Pod, plan_index: int) -> tuple:
    labels = tuple(sorted((k, v) for k, v in p.labels.items() if k not in IDENTITY_LABELS))
    return (plan_index, labels, tuple(sorted(p.spec.requests.items())), id(p.spec.affinity), p.spec.topology_spread_constraints, p.spec.tolerations, tuple(sorted(p.spec.node_selector.items())), p.spec.host_ports)


VOLUME_PLUGINS = (volumebinding, volumezone)


def _static_failures(pod: Pod, cluster: ClusterState) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Per node (in cluster order): every static plugin but the volume ones that rejects the pod,
    with its reason, in filter order (see _volume_verdicts for VolumeBinding and VolumeZone)."""
    n = len(cluster.node_infos)
    out: list[list[tuple[str, str]]] = [[] for _ in range(n)]
    for mod in STATIC_PLUGINS:
        if mod in VOLUME_PLUGINS:
            continue
        _run_static(mod, pod, cluster, out)
    # InterPodAffinity against existing pods: anti-affinity both ways (affinity is the model's)
    aff = pod.spec.affinity
    if aff is not None:
        anti_only = replace(pod, spec=replace(pod.spec, affinity=replace(aff, pod_affinity_required=())))
    else:
        anti_only = pod
    state, status = ipa.pre_filter(anti_only, cluster)
    if status is None and isinstance(state, ipa.PreFilterState):
        for i, ni in enumerate(cluster.node_infos):
            st = ipa.filter(state, anti_only, ni)
            if st is not None:
                out[i].append((ipa.NAME, st.message))
    # nodes without a required affinity term's topology key never satisfy it
    if aff is not None and aff.pod_affinity_required:
        aff_keys = {t.topology_key for t in aff.pod_affinity_required}
        for i, ni in enumerate(cluster.node_infos):
            if any(k not in ni.node.labels for k in aff_keys):
                out[i].append((ipa.NAME, ipa.ERR_REASON_AFFINITY_RULES_NOT_MATCH))
    # PodTopologySpread: a node missing a DoNotSchedule constraint's key is rejected outright
    keys = [c.topology_key for c in pod.spec.topology_spread_constraints if c.when_unsatisfiable == pts.DO_NOT_SCHEDULE]
    if keys:
        for i, ni in enumerate(cluster.node_infos):
            if any(k not in ni.node.labels for k in keys):
                out[i].append((pts.NAME, pts.ERR_REASON_NODE_LABEL_NOT_MATCH))
    return tuple(tuple(row) for row in out)


def _volume_verdicts(
    pod: Pod, cluster: ClusterState, base: tuple[tuple[tuple[str, str], ...], ...], vclasses: list[list[int]], memo: dict[str, tuple[Any, Any]]
) -> tuple:
    """``base`` (the verdicts of the pod's template, from _static_failures) with VolumeBinding's
    and VolumeZone's verdicts for this pod merged in, each node's row in filter order.

    The volume Filters run once per class of ``vclasses`` (nodes they cannot tell apart, see
    volume_classes), or once per node when a claim's selected-node annotation reads its name."""
    nodes = cluster.node_infos
    everywhere: list[tuple[str, str]] = []  # a PreFilter's rejection holds on every node
    extras: dict[int, list[tuple[str, str]]] = {}
    for mod in VOLUME_PLUGINS:
        state, status = _vb_pre_filter(pod, cluster, memo) if mod is volumebinding else mod.pre_filter(pod, cluster)
        if status is not None:
            everywhere.append((mod.NAME, status.message))
            continue
        if state is SKIP:
            continue
        groups = vclasses if not getattr(state, "selected", ()) else [[i] for i in range(len(nodes))]
        for members in groups:
            st = mod.filter(state, pod, nodes[members[0]])
            if st is not None:
                verdict = (mod.NAME, st.message)
                for i in members:
                    extras.setdefault(i, []).append(verdict)
    if not everywhere and not extras:
        return base
    rows = list(base)
    merged: dict[tuple, tuple] = {}  # (id(base row), added) -> merged row: rows repeat across nodes
    for i in (range(len(nodes)) if everywhere else extras):
        added = tuple(everywhere + extras.get(i, []))
        key = (id(base[i]), added)
        row = merged.get(key)
        if row is None:
            row = merged[key] = tuple(sorted(base[i] + added, key=lambda f: _ORDER.get(f[0], 99)))
        rows[i] = row
    return tuple(rows)


_ORDER = {mod.NAME: i for i, mod in enumerate((*STATIC_PLUGINS, ipa, pts))}


def _run_static(mod: Any, pod: Pod, cluster: ClusterState, out: list[list[tuple[str, str]]]) -> None:
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


def volume_classes(cluster: ClusterState) -> list[list[int]]:
    """Node indices grouped by everything VolumeBinding's and VolumeZone's Filters read of a node.

    Those Filters read the node's labels only (volumebinding.find_pod_volumes matches PV node
    affinity on a name-less copy of the node, as CheckNodeAffinity does; volumezone reads the zone
    and region labels), and of the labels only the keys that some PersistentVolume's node affinity
    or some StorageClass's allowedTopologies names, plus the topology labels.  Nodes equal on those
    keys get equal verdicts, so a pod's volume verdicts cost one Filter call per class instead of
    one per node.  Cached on the ClusterState for as long as the keys and the Node objects stay
    the same.
    """
    keys: set[str] = set(volumezone.TOPOLOGY_LABELS)
    by_name = False
    for pv in cluster.pvs.values():
        if pv.node_affinity is not None:
            for term in pv.node_affinity.terms:
                keys.update(r.key for r in term.match_expressions)
                by_name = by_name or bool(term.match_fields)
    for sc in cluster.storage_classes.values():
        for t in sc.allowed_topologies:
            keys.update(k for k, _ in t.requirements)
    ordered = sorted(keys)
    key = (tuple(ordered), by_name, tuple(id(ni.node) for ni in cluster.node_infos))
    cached = getattr(cluster, "_volume_classes", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    groups: dict[tuple, list[int]] = {}
    for i, ni in enumerate(cluster.node_infos):
        labels = ni.node.labels
        proj = (tuple(labels.get(k) for k in ordered), ni.node.name if by_name else None)
        groups.setdefault(proj, []).append(i)
    out = list(groups.values())
    cluster._volume_classes = (key, out)  # type: ignore[attr-defined]
    return out


def _capacities(pod: Pod, nodes: list[NodeInfo], limit: int) -> list[int]:
    """Per node: how many more pods like ``pod`` fit (NodeResourcesFit, repeated)."""
    state, _ = noderesourcesfit.pre_filter(pod, None)  # type: ignore[arg-type]
    flt = noderesourcesfit.filter
    reqs = [(name, q) for name, q in pod.spec.requests.items() if q > 0 and (name in (CPU, MEMORY, EPHEMERAL_STORAGE) or noderesourcesfit.is_scalar_resource_name(name))]
    out = []
    for ni in nodes:
        if flt(state, pod, ni) is not None:
            out.append(0)
            continue
        alloc = ni.node.allocatable
        used = ni.requested
        k = alloc.get(PODS, 0) - len(ni.pods)
        for name, q in reqs:
            k = min(k, (alloc.get(name, 0) - used.get(name, 0)) // q)
        out.append(max(0, min(k, limit)))
    return out


def _per_node_keys(cluster: ClusterState, keys: set[str]) -> set[str]:
    """Topology keys whose values are unique per node (hostname-like domains)."""
    out = set()
    for k in keys:
        vals = [ni.node.labels[k] for ni in cluster.node_infos if k in ni.node.labels]
        if vals and len(set(vals)) == len(vals):
            out.add(k)
    return out


def _vb_pre_filter(pod: Pod, cluster: ClusterState, memo: dict[str, tuple[Any, Any]]) -> tuple[Any, Any]:
    """VolumeBinding's PreFilter for the pod, once per build_problem (the cluster does not change)."""
    hit = memo.get(pod.key)
    if hit is None:
        hit = memo[pod.key] = volumebinding.pre_filter(pod, cluster)
    return hit


def _claim_detail(pod: Pod, cluster: ClusterState, memo: dict[str, tuple[Any, Any]]) -> tuple[list[str], str]:
    state, _ = _vb_pre_filter(pod, cluster, memo)
    chains = getattr(state, "claims", None) or []
    objects = []
    parts = []
    for c in chains:
        objects.append(f"PersistentVolumeClaim {c.pvc}")
        if c.pv:
            objects.append(f"PersistentVolume {c.pv}")
        parts.append(str(c))
    return objects, "; ".join(parts)


def _reads_identity(pod: Pod) -> bool:
    """A spread selector that reads a per-pod label (statefulset.kubernetes.io/pod-name): such
    pods' counts differ, so they are not shared within a template."""
    for c in pod.spec.topology_spread_constraints:
        keys = set(c.match_label_keys)
        if c.label_selector is not None:
            keys |= {k for k, _ in c.label_selector.match_labels} | {r.key for r in c.label_selector.match_expressions}
        if keys & set(IDENTITY_LABELS):
            return True
    return False


def _prebound(pod: Pod, cluster: ClusterState, memo: dict[str, tuple[Any, Any]]) -> tuple[str, ...]:
    """PVs whose claimRef names one of the pod's claims: such a pod is not interchangeable."""
    if not pod.spec.volumes:
        return ()
    state, _ = _vb_pre_filter(pod, cluster, memo)
    names: list[str] = []
    for u in getattr(state, "to_match", ()):
        names.extend(pv.name for pv, _ in u.prebound)
    return tuple(sorted(names))


def _static_claims(problem: Problem, reps: list[Pod], cluster: ClusterState, classes_nodes: list[list[NodeInfo]], memo: dict[str, tuple[Any, Any]]) -> None:
    """Claims that, on some classes, only an existing PV can serve (see models/volumebinding.py)."""
    for g, rep in enumerate(reps):
        if not rep.spec.volumes:
            continue
        state, status = _vb_pre_filter(rep, cluster, memo)
        if status is not None or not isinstance(state, volumebinding.VolumeBindingState):
            continue
        for u in state.to_match:
            options: dict[int, list[str]] = {}
            for c, members in enumerate(classes_nodes):
                labels = members[0].node.labels
                if u.provisionable and volumebinding.topology_terms_match(u.allowed_topologies, labels):
                    continue
                pvs = []
                for pv, sel in tuple(u.prebound) + tuple(u.candidates):
                    label_nodes = [type(ni.node)(name="", labels=ni.node.labels) for ni in members]
                    if sel is None or any(node_selector_matches(sel, n) for n in label_nodes):
                        pvs.append(pv.name)
                options[c] = pvs
            if options:
                problem.static_claims.append(
                    StaticClaim(
                        index=len(problem.static_claims),
                        group=g,
                        claim=u.pvc.name,
                        options=options,
                        source=f"PersistentVolumeClaim {u.pvc.key} (class {u.pvc.storage_class or 'default'})",
                    )
                )


def build_problem(cluster: ClusterState, plans: list[Plan], aggregate: bool = True, relax_order: bool = False) -> tuple[Problem, Context]:
    """``relax_order``: the unordered model even for an OrderedReady workload (a relaxation: its
    "unschedulable" is a proof for the ordinal order too; its witness still follows that order)."""
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

    # 1. static verdicts per pod signature, then per pod for volumes (pins differ per pod)
    by_sig: dict[tuple, tuple] = {}
    verdicts: list[Any] = []
    details: dict[str, tuple[list[str], str]] = {}
    vclasses = volume_classes(cluster) if any(p.spec.volumes for _, p in new_pods) else None
    vb_memo: dict[str, tuple[Any, Any]] = {}
    sig_memo: dict[tuple, tuple] = {}  # pods alive for the whole build: their ids are stable
    for i, p in new_pods:
        sig = _signature_memo(sig_memo, p, i)
        base = by_sig.get(sig)
        if base is None:
            base = by_sig[sig] = _static_failures(p, cluster)
        if p.spec.volumes:
            assert vclasses is not None
            v = _volume_verdicts(p, cluster, base, vclasses, vb_memo)
            details[p.key] = _claim_detail(p, cluster, vb_memo)
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
    pod_keys = []
    for (i, p), v in zip(new_pods, verdicts):
        cv = canon_by_id.get(id(v))
        if cv is None:
            cv = canon_by_id[id(v)] = canon.setdefault(v, v)
        pod_keys.append((_signature_memo(sig_memo, p, i), id(cv), _prebound(p, cluster, vb_memo)))
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
                    host_ports=bool(p.spec.host_ports),
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
    spread_states = []
    spread_memo: dict[tuple, Any] = {}
    rep_sig = [_signature(rep, ctx.plan_of[rep.key]) + ((rep.key,) if _reads_identity(rep) else ()) for rep in reps]
    for rep, sig in zip(reps, rep_sig):
        if sig not in spread_memo:
            st, _ = pts.pre_filter(rep, cluster)
            spread_memo[sig] = st if isinstance(st, pts.PreFilterState) else None
        spread_states.append(spread_memo[sig])
    topo_keys: set[str] = set()
    for st in spread_states:
        if st is not None:
            topo_keys |= {c.topology_key for c in st.constraints}
    for rep in reps:
        aff = rep.spec.affinity
        if aff is not None:
            topo_keys |= {t.topology_key for t in aff.pod_affinity_required + aff.pod_anti_affinity_required}
    per_node = _per_node_keys(cluster, topo_keys)
    zone_keys = sorted((topo_keys - per_node) | {LABEL_ZONE})

    # 4. per-node facts that must be uniform within a class
    cap_memo: dict[tuple, list[int]] = {}
    caps = []
    for g, rep in enumerate(reps):
        ck = (tuple(sorted(rep.spec.requests.items())), groups[g].count)
        if ck not in cap_memo:
            cap_memo[ck] = _capacities(rep, nodes, groups[g].count)
        caps.append(cap_memo[ck])
    multi_vector = len({tuple(sorted(g.requests.items())) for g in groups}) > 1
    spread_sigs: list[tuple[int, pts.ConstraintState]] = []
    for g, st in enumerate(spread_states):
        if st is not None:
            for c in st.constraints:
                spread_sigs.append((g, c))
    per_node_counts: list[list[int] | None] = []
    eligibility = []
    elig_memo: dict[tuple, list[bool]] = {}
    for g, c in spread_sigs:
        rep = reps[g]
        keys = [cc.topology_key for cc in spread_states[g].constraints]  # type: ignore[union-attr]
        ek = (rep_sig[g], tuple(keys), c.node_affinity_policy, c.node_taints_policy)
        elig = elig_memo.get(ek)
        if elig is None:
            elig = []
            for ni in nodes:
                ok = all(k in ni.node.labels for k in keys)
                if ok and c.node_affinity_policy == pts.HONOR:
                    ok = pod_matches_node_selector_and_affinity(rep.spec, ni.node)
                if ok and c.node_taints_policy == pts.HONOR:
                    ok = find_untolerated_taint(ni.node.taints, rep.spec.tolerations) is None
                elig.append(ok)
            elig_memo[ek] = elig
        eligibility.append(elig)
        if c.topology_key in per_node:
            per_node_counts.append([c.counts.get(ni.node.labels.get(c.topology_key, ""), 0) if elig[j] else 0 for j, ni in enumerate(nodes)])
        else:
            per_node_counts.append(None)
    affinity_specs = []  # (group, AffinityTerm, existing-per-node flags or None)
    for g, rep in enumerate(reps):
        aff = rep.spec.affinity
        if aff is None:
            continue
        for raw in aff.pod_affinity_required:
            term = ipa.AffinityTerm.of(rep, raw)
            flags = []
            for ni in nodes:
                flags.append(any(term.matches(ep, cluster.namespace_labels_of(ep.namespace)) for ep in ni.pods))
            affinity_specs.append((g, term, flags))

    node_keys = []
    for j, ni in enumerate(nodes):
        labels = ni.node.labels
        key = (
            tuple(gv[j] for gv in group_verdicts),
            tuple(cp[j] for cp in caps),
            tuple(labels.get(k) for k in zone_keys),
            tuple(pc[j] if pc is not None else None for pc in per_node_counts),
            tuple(el[j] for el in eligibility),
            tuple(tuple(labels.get(k) is not None for k in sorted(per_node))),
            tuple(f[j] for _, _, f in affinity_specs),
            ni.name if (multi_vector or not aggregate) else None,
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
            free = {r: ni.node.allocatable.get(r, 0) - ni.requested.get(r, 0) for r in {r for g in groups for r in g.requests}}
            free[PODS] = ni.node.allocatable.get(PODS, 0) - len(ni.pods)
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

    # 5. static exclusions per group and plugin
    for g, gv in enumerate(group_verdicts):
        by_plugin: dict[str, tuple[str, list[int]]] = {}
        for ci, j in enumerate(class_rep):
            for plugin, reason in gv[j]:
                r, cls = by_plugin.setdefault(plugin, (reason, []))
                cls.append(ci)
        for plugin, (reason, cls) in by_plugin.items():
            objects, detail = ([], "")
            if plugin in (volumebinding.NAME, volumezone.NAME):
                objs: list[str] = []
                parts: list[str] = []
                for k in groups[g].pods:
                    o, d = details.get(k, ([], ""))
                    objs.extend(x for x in o if x not in objs)
                    if d and d not in parts:
                        parts.append(d)
                objects = objs
                detail = "; ".join(parts[:4]) + (f"; and {len(parts) - 4} more" if len(parts) > 4 else "")
            groups[g].exclusions.append(Exclusion(plugin, reason, cls, objects, detail))

    # 6. spread signatures shared by groups
    problem = Problem(classes=classes, groups=groups, ordered=ordered_mode, exact_packing=True, notes=notes)
    sig_index: dict[tuple, Spread] = {}
    for (g, c), pnc, elig in zip(spread_sigs, per_node_counts, eligibility):
        rep = reps[g]
        elig_classes = sorted({ctx.node_class[nodes[j].name] for j in range(len(nodes)) if elig[j]})
        key = (rep.namespace, c.topology_key, str(c.selector), c.max_skew, c.min_domains, tuple(elig_classes), c.self_match) if not ordered_mode else (g, id(c))
        s = sig_index.get(key)
        if s is None:
            is_per_node = c.topology_key in per_node
            existing_per_node = {}
            if is_per_node and pnc is not None:
                for j, n in enumerate(pnc):
                    existing_per_node[ctx.node_class[nodes[j].name]] = n
            s = Spread(
                index=len(problem.spreads),
                topology_key=c.topology_key,
                max_skew=c.max_skew,
                min_domains=c.min_domains,
                selector=str(c.selector) if c.selector is not None else "<nothing>",
                namespace=rep.namespace,
                per_node=is_per_node,
                carriers={},
                matchers=[],
                eligible=elig_classes,
                existing={} if is_per_node else dict(c.counts),
                existing_per_node=existing_per_node,
                domains=[] if is_per_node else sorted(c.counts),
                eligible_nodes=sum(1 for e in elig if e),
                source=f"{groups[g].workload} topologySpreadConstraints ({c.topology_key})",
            )
            sig_index[key] = s
            problem.spreads.append(s)
            sel = c.selector
            for h, hrep in enumerate(reps):
                if hrep.namespace == rep.namespace and sel is not None and not sel.empty and sel.matches(hrep.labels):
                    s.matchers.append(h)
        s.carriers[g] = c.self_match

    members: list[list[NodeInfo]] = [[] for _ in classes]
    for ni in nodes:
        members[ctx.node_class[ni.name]].append(ni)
    _static_claims(problem, reps, cluster, members, vb_memo)

    # 7. anti-affinity and affinity among the new pods
    ns_labels = {ns: cluster.namespace_labels_of(ns) for ns in {r.namespace for r in reps}}
    seen_anti: set[tuple] = set()
    for g, rep in enumerate(reps):
        aff = rep.spec.affinity
        if aff is None:
            continue
        for raw in aff.pod_anti_affinity_required:
            term = ipa.AffinityTerm.of(rep, raw)
            for h, hrep in enumerate(reps):
                if not term.matches(hrep, ns_labels[hrep.namespace]):
                    continue
                a, b2 = (g, h) if g <= h else (h, g)
                key = (a, b2, term.topology_key)
                if key in seen_anti:
                    continue
                seen_anti.add(key)
                problem.anti.append(
                    AntiAffinity(
                        index=len(problem.anti),
                        topology_key=term.topology_key,
                        per_node=term.topology_key in per_node,
                        a=a,
                        b=b2,
                        source=f"{groups[g].workload} podAntiAffinity ({term.topology_key})",
                    )
                )
    for g, term, flags in affinity_specs:
        rep = reps[g]
        supporters = [h for h, hrep in enumerate(reps) if h != g and term.matches(hrep, ns_labels[hrep.namespace])]
        self_match = term.matches(rep, ns_labels[rep.namespace])
        existing_domains = sorted(
            {nodes[j].node.labels[term.topology_key] for j, f in enumerate(flags) if f and term.topology_key in nodes[j].node.labels}
        )
        existing_classes = sorted({ctx.node_class[nodes[j].name] for j, f in enumerate(flags) if f})
        problem.affinity.append(
            Affinity(
                index=len(problem.affinity),
                topology_key=term.topology_key,
                per_node=term.topology_key in per_node,
                carrier=g,
                supporters=supporters,
                self_match=self_match,
                existing_domains=existing_domains,
                existing_classes=existing_classes,
                any_existing=bool(existing_domains),
                source=f"{groups[g].workload} podAffinity ({term.topology_key})",
            )
        )
    if len(plans_with_new) > 1 and any(plans[i].ordered for i in plans_with_new):
        notes.append("several workloads with OrderedReady: the model checks without order; the witness keeps each workload's order")
    return problem, ctx
