"""CP-SAT screening of replica goals: which constraint groups must give way, at least.

The check model (models/) guards every hard constraint group with an assumption literal: a spread
constraint, a required anti-affinity relation, a pod's volume pins (VolumeBinding/VolumeZone
exclusions), the capacity of a zone.  Here each guard gets a *relax* literal (relax = the group
no longer binds, which is what a candidate action of that kind does at most: set-when-unsatisfiable
or a wider maxSkew or a narrower selector relax a spread; relax-anti-affinity an anti-affinity
relation; delete-pvc a volume pin; scale-node-group a zone's capacity), every pod must be placed, and
CP-SAT minimises the relaxations by the issue's lexicographic cost (data loss, availability risk,
spread weakened, money, label changes).  Each optimum, excluded with its supersets, gives the
next: the minimal relaxation sets, cheapest first.

The sets order the search (planner.engines.remediation.search) and are reported with the plans; they do
not prune it, since an action can do more than relax its own group (relax-anti-affinity also
changes the running pods once they roll).  Every printed plan is verified on the patched snapshot
(planner.engines.remediation.verify).  Used for replica goals; rollouts and scaling are transitions,
decided by the replay.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import models
from models.placement import Guard
from models.solve import SolveOptions, solve
from planner.engines.problem import build_problem
from planner.engines.workloads import WorkloadRef, cluster_after_plans, plan_workload
from planner.errors import UnknownResult
from planner.snapshot import Snapshot

# what relaxing one guard of each kind costs, in the lexicographic order
_WEIGHT = {
    "static": 10**8,  # a volume pin goes only with the volume: data loss (delete-pvc)
    "anti": 10**6,  # availability risk: replicas may share a node or zone
    "spread": 10**4,  # spread weakened
    "capacity": 10**2,  # money: nodes to add
    "affinity": 10**4,
    "volumes": 10**2,
}

# candidate action types and the guard kinds they relax
ACTION_KINDS = {
    "set-when-unsatisfiable": ("spread",),
    "raise-max-skew": ("spread",),
    "narrow-spread-selector": ("spread",),
    "add-match-label-keys": ("spread", "anti"),
    "relax-anti-affinity": ("anti",),
    "delete-pvc": ("static",),
    "scale-node-group": ("capacity", "static", "spread", "anti"),  # new nodes add room and domains
    "uncordon": ("capacity",),  # a cordoned node's room, in its zone
    "set-requests": ("capacity",),  # more pods fit in the room there is
}

MAX_SETS = 8


@dataclass
class Screening:
    sets: list[list[str]] = field(default_factory=list)  # minimal relaxation sets, cheapest first, as labels
    set_kinds: list[set[str]] = field(default_factory=list)  # the guard kinds of each set
    kinds: set[str] = field(default_factory=set)  # guard kinds in some minimal set
    infeasible: bool = False  # even relaxing everything relaxable does not place the pods

    def may_help(self, action_type: str) -> bool:
        kinds = ACTION_KINDS.get(action_type)
        if kinds is None:
            return True  # strategy, scale-to, retention, pod management: not screened
        return any(k in self.kinds for k in kinds)


def _kind(g: Guard) -> str | None:
    """The guard's kind for screening, or None when no candidate action relaxes it.

    Static exclusions are split by plugin: a volume pin (VolumeBinding, VolumeZone) gives way only
    with the volume (delete-pvc); InterPodAffinity's (the running pods' anti-affinity against the
    new ones) is an anti-affinity relation (relax-anti-affinity, once the running pods roll)."""
    if g.kind == "static":
        plugin = getattr(g.ref, "plugin", "")
        if plugin in ("VolumeBinding", "VolumeZone"):
            return "static"
        if plugin == "InterPodAffinity":
            return "anti"
        return None
    return g.kind if g.kind in _WEIGHT else None


def _label(g: Guard) -> str:
    ref = g.ref
    if g.kind == "static":
        return f"{ref.plugin} pin ({ref.detail or ref.reason})"
    if g.kind == "capacity":
        return f"capacity of {ref or 'nodes without a zone'}"
    source = getattr(ref, "source", "")
    return f"{g.kind} {source}".strip()


def screen(snap: Snapshot, ref: WorkloadRef, replicas: int | None, opts: SolveOptions | None = None) -> Screening | None:
    """The minimal relaxation sets for ``replicas`` of ``ref``; None when nothing is to be placed."""
    opts = opts or SolveOptions()
    plans = [plan_workload(snap, ref, replicas)]
    if not plans[0].new:
        return None
    cluster = cluster_after_plans(snap, plans)
    problem, _ = build_problem(cluster, plans)
    built = models.build(problem)
    m = built.model
    relax = {}
    for g in built.guards:
        if g.kind == "place":
            m.add(g.lit == 1)
        elif _kind(g) is not None:
            r = m.new_bool_var(f"relax[{g.lit.index}]")
            m.add(g.lit + r == 1)
            relax[g.lit.index] = (g, r)
            built.aux[("relax", g.lit.index)] = r  # read back by solve()
        else:
            m.add(g.lit == 1)  # taints, node affinity, ...: no candidate action relaxes them
    m.minimize(sum(_WEIGHT[_kind(g) or g.kind] * r for g, r in relax.values()))
    out = Screening()
    for _ in range(MAX_SETS):
        # the one solve entry (models.solve): no assumptions, the guards are fixed above
        res = solve(built, opts, enabled=[])
        if res.status == "unknown":
            raise UnknownResult(f"unknown: {res.reason}")
        if res.status != "feasible":
            if not out.sets:
                out.infeasible = True
            break
        chosen = [(g, r) for idx, (g, r) in relax.items() if res.values.get(("relax", idx))]
        if not chosen:
            break  # feasible without relaxing anything: nothing to screen
        out.sets.append([_label(g) for g, _ in chosen])
        out.set_kinds.append({_kind(g) or g.kind for g, _ in chosen})
        out.kinds.update(_kind(g) or g.kind for g, _ in chosen)
        # the next optimum: neither this set nor any superset of it
        m.add(sum(r for _, r in chosen) <= len(chosen) - 1)
    return out
