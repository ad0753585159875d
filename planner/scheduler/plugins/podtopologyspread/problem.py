"""What the CP-SAT problem (planner.engines.problem) takes from PodTopologySpread.

Static: a node missing a DoNotSchedule constraint's topology key is rejected outright
(pkg/scheduler/framework/plugins/podtopologyspread/filtering.go Filter).  The rest changes as new pods land and goes to the model
(models/podtopologyspread.py) as ``Spread``s: per constraint signature its eligible node classes
(common.py's nodeLabelsMatchSpreadConstraints and matchNodeInclusionPolicies, the same
definition the Filter uses), the existing matching pods per domain (PreFilter's counts) and the
groups that carry or match it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from models.problem import Group, Problem, Spread
from planner.domain import Pod
from planner.scheduler.framework import ClusterState, NodeInfo
from planner.scheduler.plugins.podtopologyspread import filtering as pts
from planner.scheduler.plugins.podtopologyspread.common import match_node_inclusion_policies, node_has_keys


def static_failures(pod: Pod, cluster: ClusterState, out: list[list[tuple[str, str]]]) -> None:
    """Append to each node's row: the missing topology key of a DoNotSchedule constraint."""
    keys = [c.topology_key for c in pod.spec.topology_spread_constraints if c.when_unsatisfiable == pts.DO_NOT_SCHEDULE]
    if keys:
        for i, ni in enumerate(cluster.node_infos):
            if any(k not in ni.node.labels for k in keys):
                out[i].append((pts.NAME, pts.ERR_REASON_NODE_LABEL_NOT_MATCH))


@dataclass
class SpreadFacts:
    """The groups' DoNotSchedule constraints as PreFilter counted them, and per constraint the
    nodes that count (eligible) and, for per-node keys, the existing matching pods per node."""

    states: list[pts.PreFilterState | None]  # per group
    sigs: list[tuple[int, pts.ConstraintState]] = field(default_factory=list)  # (group, constraint)
    eligibility: list[list[bool]] = field(default_factory=list)  # per sig, per node
    per_node_counts: list[list[int] | None] = field(default_factory=list)  # per sig

    @property
    def topology_keys(self) -> set[str]:
        return {c.topology_key for st in self.states if st is not None for c in st.constraints}


def pre_filter_states(reps: list[Pod], rep_sig: list[tuple], cluster: ClusterState) -> SpreadFacts:
    """PreFilter for each group's representative, once per ``rep_sig`` (pods of one template
    share their counts)."""
    states: list[pts.PreFilterState | None] = []
    memo: dict[tuple, pts.PreFilterState | None] = {}
    for rep, sig in zip(reps, rep_sig):
        if sig not in memo:
            st, _ = pts.pre_filter(rep, cluster)
            memo[sig] = st if isinstance(st, pts.PreFilterState) else None
        states.append(memo[sig])
    return SpreadFacts(states)


def node_facts(facts: SpreadFacts, reps: list[Pod], rep_sig: list[tuple], nodes: list[NodeInfo], per_node: set[str]) -> None:
    """Fill ``facts``' per-constraint eligibility and per-node counts (to be uniform in a class)."""
    for g, st in enumerate(facts.states):
        if st is not None:
            for c in st.constraints:
                facts.sigs.append((g, c))
    elig_memo: dict[tuple, list[bool]] = {}
    for g, c in facts.sigs:
        rep = reps[g]
        keys = [cc.topology_key for cc in facts.states[g].constraints]  # type: ignore[union-attr]
        ek = (rep_sig[g], tuple(keys), c.node_affinity_policy, c.node_taints_policy)
        elig = elig_memo.get(ek)
        if elig is None:
            elig = []
            for ni in nodes:
                elig.append(
                    node_has_keys(ni.node, keys)
                    and match_node_inclusion_policies(c.node_affinity_policy, c.node_taints_policy, rep.spec, ni.node)
                )
            elig_memo[ek] = elig
        facts.eligibility.append(elig)
        if c.topology_key in per_node:
            facts.per_node_counts.append(
                [c.counts.get(ni.node.labels.get(c.topology_key, ""), 0) if elig[j] else 0 for j, ni in enumerate(nodes)]
            )
        else:
            facts.per_node_counts.append(None)


def add_spreads(
    problem: Problem,
    facts: SpreadFacts,
    reps: list[Pod],
    groups: list[Group],
    per_node: set[str],
    node_class: Mapping[str, int],
    nodes: list[NodeInfo],
    ordered_mode: bool,
    victim_nodes: list[tuple[int, NodeInfo, int]] | None = None,
    victim_at: Mapping[tuple[int, str], int] | None = None,
) -> None:
    """One ``Spread`` per constraint signature, shared by the groups that carry it.
    ``victim_nodes``/``victim_at``: the preemption victims (index, node, class) and their index
    by (node position, pod key): those the selector counts (PreFilter's counting: the same
    namespace, not terminating, on an eligible node) lower their domain's count when preempted."""
    sig_index: dict[tuple, Spread] = {}
    for (g, c), pnc, elig in zip(facts.sigs, facts.per_node_counts, facts.eligibility):
        rep = reps[g]
        elig_classes = sorted({node_class[nodes[j].name] for j in range(len(nodes)) if elig[j]})
        key = (rep.namespace, c.topology_key, str(c.selector), c.max_skew, c.min_domains, tuple(elig_classes), c.self_match) if not ordered_mode else (g, id(c))
        s = sig_index.get(key)
        if s is None:
            is_per_node = c.topology_key in per_node
            existing_per_node = {}
            if is_per_node and pnc is not None:
                for j, n in enumerate(pnc):
                    existing_per_node[node_class[nodes[j].name]] = n
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
            if victim_nodes and victim_at is not None and sel is not None and not sel.empty:
                elig_set = set(elig_classes)
                pos = {ni.name: j for j, ni in enumerate(nodes)}
                for vi, ni, ci in victim_nodes:
                    if ci not in elig_set:
                        continue
                    j = pos[ni.name]
                    for p in ni.pods:
                        if victim_at.get((j, p.key)) != vi or p.terminating or p.namespace != rep.namespace or not sel.matches(p.labels):
                            continue
                        key_d: str | int = ci if is_per_node else ni.node.labels.get(c.topology_key, "")
                        s.victims.setdefault(key_d, []).append(vi)
        s.carriers[g] = c.self_match
