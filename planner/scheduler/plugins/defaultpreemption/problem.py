"""What the CP-SAT problem (planner.engines.problem) takes from DefaultPreemption.

The victims (models/defaultpreemption.py): the running pods a group's pods may evict, by the
plugin's own rule (preemption.py victims_of: strictly lower priority, never with preemptionPolicy
Never), on the nodes where evicting them could let a pod of the group in.  Per node that is what
SelectVictimsOnNode's first step asks (default_preemption.go: remove every lower-priority pod of
the node, then run the filters): a node whose static verdict for the group fails only for
reasons other pods cause on it (NodePorts: a host port in use; InterPodAffinity: anti-affinity
with a pod there) and passes with the node's victims gone, or one the group already passes (its
room is then what preemption frees).  A node rejected for anything else (taints, node affinity,
a cordon, volumes, anti-affinity with pods on other nodes of a zone) is one preemption cannot
help: nodesWherePreemptionMightHelp leaves it out, and so does this.

Per (group, node) whose rejection preemption lifts, the victims that cause it (each pod causes a
port or anti-affinity conflict on its own, so the rejection lifts exactly when every one of them
is gone): each is found by putting it back alone on the node and running the filter.  The
PodDisruptionBudgets each victim counts against (filterPodsWithPDBViolation's matching: same
namespace, a non-empty selector that matches) become models.problem.Budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from models.problem import Budget
from planner.domain import Pod, selector_matches
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo
from planner.scheduler.plugins.defaultpreemption.preemption import PDBFacts, victims_of
from planner.scheduler.plugins.interpodaffinity import filtering as ipa
from planner.scheduler.plugins.interpodaffinity import problem as interpodaffinity
from planner.scheduler.plugins.nodeports import filtering as nodeports
from planner.scheduler.plugins.noderesources import problem as noderesources

# the static rejections another pod on the node causes, which its eviction lifts
LIFTABLE = frozenset({nodeports.NAME, ipa.NAME})


@dataclass
class PreemptionInput:
    """What check gives the problem builder to let the new pods preempt: the budgets (as the
    disruption controller computes them) and the pods never to evict (the workloads' own)."""

    pdbs: list[PDBFacts]
    keep: set[str] = field(default_factory=set)


@dataclass
class VictimFacts:
    """Per node index: the candidate victims; per (group, node): the victims each liftable
    plugin's rejection needs gone, and the room with every candidate gone."""

    on_node: dict[int, list[Pod]] = field(default_factory=dict)
    usable: dict[int, set[int]] = field(default_factory=dict)  # node -> groups that may preempt there
    blockers: dict[tuple[int, int], dict[str, list[str]]] = field(default_factory=dict)
    cap_preempt: dict[int, list[int]] = field(default_factory=dict)  # node -> per group

    @property
    def nodes(self) -> set[int]:
        return set(self.on_node)


def _liftable_failures(pod: Pod, cluster: ClusterState, j: int, enabled: frozenset[str] | None) -> dict[str, bool]:
    """Whether NodePorts and InterPodAffinity's static part reject ``pod`` on node ``j`` of ``cluster``."""
    out: dict[str, bool] = {}
    ni = cluster.node_infos[j]
    if enabled is None or nodeports.NAME in enabled:
        state, status = nodeports.pre_filter(pod, cluster)
        out[nodeports.NAME] = status is not None or (state is not SKIP and nodeports.filter(state, pod, ni) is not None)
    if enabled is None or ipa.NAME in enabled:
        rows: list[list[tuple[str, str]]] = [[] for _ in cluster.node_infos]
        interpodaffinity.static_failures(pod, cluster, rows)
        out[ipa.NAME] = bool(rows[j])
    return out


def _without(cluster: ClusterState, j: int, pods: Sequence[Pod]) -> ClusterState:
    c = cluster.clone()
    ni = c.own(cluster.node_infos[j].name)
    for p in pods:
        ni.remove_pod(p)
    return c


def victim_facts(
    reps: list[Pod],
    counts: list[int],
    cluster: ClusterState,
    verdicts: list[tuple],
    keep: set[str],
    enabled: frozenset[str] | None,
) -> VictimFacts:
    """The candidate victims of the groups (``reps``: one pod per group, ``counts`` its pods,
    ``verdicts``: per group, per node, the static rejections), ``keep``: pods never evicted (the
    planned workloads' own)."""
    facts = VictimFacts()
    for j, ni in enumerate(cluster.node_infos):
        pods = [p for p in ni.pods if p.key not in keep]
        if not pods:
            continue
        usable: set[int] = set()
        mine: dict[int, list[Pod]] = {}
        for g, rep in enumerate(reps):
            vs = victims_of(rep.spec, pods)
            if not vs:
                continue
            row = verdicts[g][j]
            if any(plugin not in LIFTABLE for plugin, _ in row):
                continue  # preemption cannot help on this node
            if row:
                lifted = _blockers(rep, cluster, j, vs, {plugin for plugin, _ in row}, enabled)
                if lifted is None:
                    continue
                facts.blockers[g, j] = lifted
            usable.add(g)
            mine[g] = vs
        if not usable:
            continue
        every = list({p.key: p for vs in mine.values() for p in vs}.values())
        facts.on_node[j] = every
        facts.usable[j] = usable
        bare = _without(cluster, j, every).node_infos[j]
        facts.cap_preempt[j] = [noderesources.capacities(rep, [bare], counts[g])[0] if (enabled is None or noderesources.NAME in enabled)
                                else counts[g] for g, rep in enumerate(reps)]
    return facts


def _blockers(
    rep: Pod, cluster: ClusterState, j: int, victims: list[Pod], plugins: set[str], enabled: frozenset[str] | None
) -> dict[str, list[str]] | None:
    """Per rejecting plugin, the victims whose presence alone makes it reject; None when the node
    rejects the pod even with every victim gone (or the rejection has no single cause)."""
    if any(_liftable_failures(rep, _without(cluster, j, victims), j, enabled).get(pl) for pl in plugins):
        return None
    out: dict[str, list[str]] = {pl: [] for pl in plugins}
    for v in victims:
        alone = _without(cluster, j, [p for p in victims if p.key != v.key])
        fails = _liftable_failures(rep, alone, j, enabled)
        for pl in plugins:
            if fails.get(pl):
                out[pl].append(v.key)
    if any(not keys for keys in out.values()):
        return None
    return out


def budgets(pdbs: Sequence[PDBFacts]) -> list[Budget]:
    return [Budget(i, f"{b.namespace}/{b.name}", b.disruptions_allowed) for i, b in enumerate(pdbs)]


def budgets_of(pod: Pod, pdbs: Sequence[PDBFacts]) -> list[int]:
    """filterPodsWithPDBViolation's matching: the budgets that count ``pod``."""
    if not pod.labels:
        return []
    return [i for i, b in enumerate(pdbs)
            if b.namespace == pod.namespace and b.selector is not None and not b.selector.empty and selector_matches(b.selector, pod.labels)]


__all__ = ["LIFTABLE", "NodeInfo", "PreemptionInput", "VictimFacts", "budgets", "budgets_of", "victim_facts"]
