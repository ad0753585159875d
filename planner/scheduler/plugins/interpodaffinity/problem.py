"""What the CP-SAT problem (planner.engines.problem) takes from InterPodAffinity.

Against the existing pods the anti-affinity parts are static (they only get stricter as pods are
added) and are evaluated here with the plugin's own Filter (filtering.py,
pkg/scheduler/framework/plugins/interpodaffinity/filtering.go); a node without a required
affinity term's topology key never satisfies it.  Affinity and anti-affinity among the new pods
go to the model (models/interpodaffinity.py) as ``AntiAffinity`` and ``Affinity``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from models.problem import Affinity, AntiAffinity, Group, Problem
from planner.domain import Pod
from planner.scheduler.framework import ClusterState, NodeInfo
from planner.scheduler.plugins.interpodaffinity import filtering as ipa

# (group, the group's required affinity term, per node: does an existing pod match the term)
AffinitySpec = tuple[int, ipa.AffinityTerm, list[bool]]


def static_failures(pod: Pod, cluster: ClusterState, out: list[list[tuple[str, str]]]) -> None:
    """Append to each node's row: InterPodAffinity against existing pods, anti-affinity both ways
    (affinity is the model's), and the missing topology key of a required affinity term."""
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


def topology_keys(reps: list[Pod]) -> set[str]:
    """The topology keys of the groups' required affinity and anti-affinity terms."""
    keys: set[str] = set()
    for rep in reps:
        aff = rep.spec.affinity
        if aff is not None:
            keys |= {t.topology_key for t in aff.pod_affinity_required + aff.pod_anti_affinity_required}
    return keys


def affinity_specs(reps: list[Pod], nodes: list[NodeInfo], cluster: ClusterState) -> list[AffinitySpec]:
    """Every group's required affinity terms, with the nodes holding an existing pod that matches."""
    out = []
    for g, rep in enumerate(reps):
        aff = rep.spec.affinity
        if aff is None:
            continue
        for raw in aff.pod_affinity_required:
            term = ipa.AffinityTerm.of(rep, raw)
            flags = []
            for ni in nodes:
                flags.append(any(term.matches(ep, cluster.namespace_labels_of(ep.namespace)) for ep in ni.pods))
            out.append((g, term, flags))
    return out


def add_terms(
    problem: Problem,
    reps: list[Pod],
    groups: list[Group],
    specs: list[AffinitySpec],
    per_node: set[str],
    node_class: Mapping[str, int],
    nodes: list[NodeInfo],
    cluster: ClusterState,
) -> None:
    """Anti-affinity and affinity among the new pods (models/interpodaffinity.py)."""
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
    for g, term, flags in specs:
        rep = reps[g]
        supporters = [h for h, hrep in enumerate(reps) if h != g and term.matches(hrep, ns_labels[hrep.namespace])]
        self_match = term.matches(rep, ns_labels[rep.namespace])
        existing_domains = sorted(
            {nodes[j].node.labels[term.topology_key] for j, f in enumerate(flags) if f and term.topology_key in nodes[j].node.labels}
        )
        existing_classes = sorted({node_class[nodes[j].name] for j, f in enumerate(flags) if f})
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
