"""`planner check`: can these workloads reach N replicas?  A verified witness or a minimal why-not.

The verdict comes from the CP-SAT model (models/); a "schedulable" answer is only printed with a
witness that has been replayed pod by pod through every filter plugin (planner/scheduler/plugins) in the
order given, so the two implementations check each other on every run.

When the pods do not fit among the running pods and may preempt, a second model decides with
DefaultPreemption's victims (plugins/defaultpreemption/problem.py, models/defaultpreemption.py);
its witness is replayed with the victims gone, then through upstream's per-node victim choice
(preemption.py select_victims_on_node).  ``profile`` (--scheduler-config) decides which filter
plugins constrain the problem.
"""

from __future__ import annotations

from bisect import insort
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from heapq import heapify, heappop
from typing import Any

import models
from models.defaultpreemption import add_victim_objective, clear_victim_objective, hint
from models.placement import Built, Guard
from models.problem import Exclusion, Group, NodeClass, Problem, Spread, VolumeLimit
from models.sequence import add_sequence
from models.solve import IGNORED_ASSUMPTIONS, SolveOptions, minimise_core, solve
from planner.collector import paused
from planner.controllers.disruption import preemption_pdbs
from planner.domain import PODS
from planner.engines.problem import Context, Memo, build_problem
from planner.engines.workloads import Plan, RoomBound, WorkloadRef, cluster_after_plans, past_bound, plan_workload
from planner.errors import UnknownResult, UsageError
from planner.scheduler.binding import WitnessFilters
from planner.scheduler.config import default_pods
from planner.scheduler.framework import ClusterState
from planner.scheduler.plugins.defaultpreemption.preemption import (
    can_evict,
    may_preempt,
    select_victims_on_node,
    victims_of,
)
from planner.scheduler.plugins.defaultpreemption.problem import PreemptionInput
from planner.scheduler.registry import DEFAULT_PROFILE, FilterPlugin, Profile
from planner.snapshot import Snapshot

Filters = Sequence[FilterPlugin] | None  # a profile's filter plugins (None: the default profile's)


@dataclass
class CheckOutcome:
    schedulable: bool
    placement: dict[str, str] = field(default_factory=dict)  # pod -> node, in placement order
    explanation: list[dict] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    problem: Problem | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # DefaultPreemption: the lower-priority pods the placement needs gone, in the JSON's shape
    # ({"namespace", "name", "node", "priority"}), and whether kube-scheduler's own per-node
    # victim choice, replayed in the placement's order, reaches the placement (None: not replayed)
    preempted: list[dict] = field(default_factory=list)
    preemption_exact: bool | None = None
    # an unschedulable answer's model and its unsat core, until explained (_explained)
    proof: tuple[Built, list[Guard]] | None = field(default=None, repr=False, compare=False)


MAX_SEQUENCE_STEPS = 40
PREEMPT_OPTIMISE_DTIME = 5.0  # deterministic seconds spent on the fewest victims once a solution is known
PREEMPT_REPLAY_PODS = 100  # at most this many pods are replayed through upstream's per-node victim choice
ORDERED_EXACT_GROUPS = 8  # larger OrderedReady problems try the unordered relaxation first
MAX_SEQUENCE_SIZE = 60_000  # steps x groups x classes


def _plans(snap: Snapshot, refs: list[WorkloadRef], replicas: int | None, profile: Profile | None, source: str | None = None) -> list[Plan]:
    """The workloads' plans, their new pods as the profile's filters see them (default_pods)."""
    plans = [plan_workload(snap, ref, replicas, source) for ref in refs]
    if profile is not None:
        for plan in plans:
            plan.new = default_pods(plan.new, profile)
    return plans


def _enabled(profile: Profile | None) -> frozenset[str] | None:
    return None if profile is None or profile.filter_names == DEFAULT_PROFILE.filter_names else frozenset(profile.filter_names)


def check_replicas(
    snap: Snapshot,
    refs: list[WorkloadRef],
    replicas: int | None,
    opts: SolveOptions | None = None,
    profile: Profile | None = None,
    source: str | None = None,
    explain: bool = True,
    memo: Memo | None = None,
    witness: bool = True,
) -> CheckOutcome:
    """Can the workloads run ``replicas`` (default: each one's spec.replicas)?  ``source``: what
    asked for the count (an option), named in the error for one too large to plan.  ``profile``: the scheduling profile whose filters decide (--scheduler-config; None: the
    default profile): a filter it disables adds no constraint, its DoNotSchedule default spread
    constraints are the constraints of pods without their own.  ``explain``: an unschedulable
    answer comes with its minimal explanation (False: the verdict alone, for a caller that only
    needs it, such as remediate's search for the nearest count).  ``memo``: what the problems of
    related questions share (planner.engines.problem.Memo: remediate's checks of its plans).
    ``witness`` False: a placement the model finds is not ordered pod by pod through the filters
    (nor any exact model tried when it cannot be): the answer is then the model's, schedulable
    with no placement (``stats["witness"]``: "not ordered"), for a caller whose replay of the
    same pods decides next (remediate's verification, which orders it when that replay fails);
    an unschedulable answer is the same either way (the model's proof)."""
    opts = opts or SolveOptions()
    if replicas is not None and replicas < 0:
        raise UsageError(f"--replicas {replicas}: must be greater than or equal to 0")
    enabled = _enabled(profile)
    for ref in refs:
        bound = past_bound(snap, ref, replicas, enabled=enabled)
        if bound is not None:  # more than the cluster could ever hold: no pod is planned
            return bound_outcome(bound, replicas)
    with paused():  # planner.collector: thousands of planned pods and their problem
        plans = _plans(snap, refs, replicas, profile, source)
        return check_plans(snap, plans, opts, profile, explain, memo, witness)


def check_plans(
    snap: Snapshot, plans: list[Plan], opts: SolveOptions, profile: Profile | None = None, explain: bool = True, memo: Memo | None = None,
    witness: bool = True,
) -> CheckOutcome:
    """check_replicas for plans made (planner.engines.workloads.Plan): their new pods placed
    beside the cluster's, removed pods gone; a witness verified through the filters, or a
    minimal explanation.  ``profile``, ``explain``, ``memo``, ``witness``: as check_replicas's (the plans' new pods already
    defaulted by it: _plans)."""
    enabled = _enabled(profile)
    notes = [n for p in plans for n in p.notes]
    for p in plans:
        gates = sorted({g for pod in p.new for g in pod.spec.scheduling_gates})
        if gates:
            notes.append(
                f"the new pods of {p.ref} carry scheduling gates ({', '.join(gates)}): kube-scheduler places none of them until the "
                "controller that set the gates removes them; the answer is for once they are"
            )
    if not any(p.new for p in plans):
        return CheckOutcome(True, {}, [], plans, None, {"pods_to_place": 0}, notes)
    cluster = cluster_after_plans(snap, plans)
    filters = None if profile is None else profile.filters
    problem, ctx = build_problem(cluster, plans, enabled=enabled, memo=memo)
    notes += problem.notes
    stats: dict[str, Any] = {
        "pods_to_place": sum(g.count for g in problem.groups),
        "groups": len(problem.groups),
        "node_classes": len(problem.classes),
        "nodes": len(cluster.node_infos),
        "ordered": problem.ordered,
        "model": "final-state" if not problem.ordered else "ordered",
    }
    out = None
    if problem.ordered and len(problem.groups) > ORDERED_EXACT_GROUPS:
        # The exact ordered model grows with the square of the pods: first the unordered model, a
        # relaxation (an ordinal-order sequence is a sequence): its "unschedulable" is a proof,
        # and its placement, replayed strictly in ordinal order through the filters, a witness.
        relaxed, rctx = build_problem(cluster, plans, relax_order=True, enabled=enabled, memo=memo)
        rstats = {**stats, "groups": len(relaxed.groups), "node_classes": len(relaxed.classes), "model": "unordered relaxation"}
        out = _attempt(relaxed, rctx, cluster, opts, rstats, sequenced=False, filters=filters, witness=witness)
        if out is not None:
            stats = rstats
            problem, ctx = relaxed, rctx
    if out is None:
        out = _attempt(problem, ctx, cluster, opts, stats, sequenced=False, filters=filters, witness=witness)
    if out is None:
        # The final placements found cannot be ordered through the filters: decide exactly with
        # the sequenced model (one node per class when per-node domains are involved).
        steps = stats["pods_to_place"]
        per_node = any(sp.per_node for sp in problem.spreads) or any(f.per_node for f in problem.affinity) or any(a.per_node for a in problem.anti)
        if per_node:
            problem, ctx = build_problem(cluster, plans, aggregate=False, enabled=enabled, memo=memo)
        size = steps * len(problem.groups) * len(problem.classes)
        if steps > MAX_SEQUENCE_STEPS or size > MAX_SEQUENCE_SIZE:
            raise UnknownResult(
                f"unknown: the final placements need an order the quick search did not find, and {steps} pods on "
                f"{len(problem.classes)} node classes is too large for the exact sequenced model; no answer is given"
            )
        stats["model"] = "ordered" if problem.ordered else "sequenced"
        stats["node_classes"] = len(problem.classes)
        out = _attempt(problem, ctx, cluster, opts, stats, sequenced=not problem.ordered, filters=filters)
        if out is None:
            raise UnknownResult("unknown: no verified order found for the model's placement; planner gives no answer rather than a wrong one")
    if not out.schedulable:
        # with preemption possible, an unschedulable answer comes from its model; asked only
        # when the pods do not fit as they are (it reads every running pod)
        pre = _preemption_input(snap, plans, cluster)
        if pre is not None:
            out = _preempting(cluster, plans, pre, opts, stats, filters, enabled, explain, memo)
        else:
            notes += _no_preemption_notes(plans, cluster)
            if explain:
                out.explanation = _explained(out, ctx, opts)
    out.plans = plans
    out.notes = notes + out.notes
    return out


# --------------------------------------------------------------------------- preemption


def _preemption_input(snap: Snapshot, plans: list[Plan], cluster: ClusterState) -> PreemptionInput | None:
    """What the preempting model needs, or None when the new pods can preempt nothing (none may
    preempt, or no running pod but the workloads' own has a lower priority)."""
    specs = {id(p.spec): p.spec for plan in plans for p in plan.new}
    keep = {p.key for plan in plans for p in plan.keep}
    # a pod some template may evict, the highest-priority template that may preempt may evict too
    # (victims_of: a strictly lower priority): that one template asked of each node, not every
    # pod's (a StatefulSet's pods have a spec each)
    top = max((sp for sp in specs.values() if may_preempt(sp)), key=lambda sp: sp.priority, default=None)
    # a node whose lowest priority (NodeInfo.min_priority) is not below the template's has no victim
    if top is None or not any(
        ni.min_priority < top.priority and victims_of(top, [q for q in ni.pods if q.key not in keep]) for ni in cluster.node_infos
    ):
        return None
    return PreemptionInput(preemption_pdbs(snap), keep)


def preemption_possible(snap: Snapshot, plans: list[Plan], cluster: ClusterState) -> bool:
    """Whether check answers for ``plans`` (on ``cluster``, cluster_after_plans's) with its
    preempting model when the pods do not fit as they are: some running pod has a lower priority
    than a new pod that may preempt."""
    return _preemption_input(snap, plans, cluster) is not None


def _no_preemption_notes(plans: list[Plan], cluster: ClusterState) -> list[str]:
    """Why preemption does not help an unschedulable answer: a template with preemptionPolicy
    Never while lower-priority pods run."""
    out = []
    for plan in plans:
        if not plan.new or may_preempt(plan.new[0].spec):
            continue
        spec = plan.new[0].spec
        lower = sum(1 for ni in cluster.node_infos for q in ni.pods if can_evict(spec.priority, q))
        if lower:
            out.append(f"{plan.ref}'s pods have preemptionPolicy Never: they do not preempt the {lower} lower-priority pod(s) "
                       f"that run (priority below {spec.priority})")
    return out


def _preempting(
    cluster: ClusterState,
    plans: list[Plan],
    pre: PreemptionInput,
    opts: SolveOptions,
    stats: dict,
    filters: Filters,
    enabled: frozenset[str] | None,
    explain: bool = True,
    memo: Memo | None = None,
) -> CheckOutcome:
    """The workloads' pods do not fit among the running pods: decide with DefaultPreemption's
    victims (models/defaultpreemption.py).  Infeasible: a minimal why, which counts the room the
    victims could free (``explain`` False: the verdict alone).  Feasible: the fewest PodDisruptionBudget violations, then the fewest
    victims; the placement is replayed through every filter with the victims gone (the witness),
    then through upstream's own per-node victim choice (SelectVictimsOnNode) in the same order."""
    ordered = any(plan.ordered and plan.new for plan in plans)
    for relax in ([True, False] if ordered else [False]):
        problem, ctx = build_problem(cluster, plans, relax_order=relax, enabled=enabled, preemption=pre, memo=memo)
        pstats = {**stats, "groups": len(problem.groups), "node_classes": len(problem.classes), "victim_candidates": len(problem.victims),
                  "model": ("unordered relaxation" if relax else stats.get("model", "final-state")) + " with preemption"}
        built = models.build(problem)
        res = solve(built, opts)
        pstats["solve_seconds"] = round(stats.get("solve_seconds", 0) + res.wall_time, 4)
        if res.status == "unknown":
            raise UnknownResult(f"unknown: {res.reason}; no answer is given{_hint(res.reason)}")
        if res.status == "infeasible":
            notes = [_preemption_considered(problem)] if problem.victims else []
            if not explain:
                return CheckOutcome(False, {}, [], [], problem, pstats, notes)
            core = minimise_core(built, res.core, opts)
            return CheckOutcome(False, {}, explain_core(built, core, ctx, opts), [], problem, pstats, notes)
        add_victim_objective(built)
        hint(built, res.x, res.victims)
        best = solve(built, SolveOptions(time_limit=opts.time_limit, seed=opts.seed, workers=opts.workers, dtime=PREEMPT_OPTIMISE_DTIME))
        clear_victim_objective(built)
        if best.status == "feasible":
            res = best
        pstats["fewest_victims_proven"] = res.optimal
        victims = [problem.victims[i] for i in res.victims]
        base = cluster.clone()
        for v in victims:
            ni = base.own(v.node)
            pod = next(p for p in ni.pods if p.key == v.pod)
            ni.remove_pod(pod)
        placement = order_witness(problem, ctx, res.x, base, None, filters)
        if placement is None:
            continue
        out = CheckOutcome(True, placement, [], [], problem, pstats, [])
        out.preempted = [{"namespace": v.pod.split("/", 1)[0], "name": v.pod.split("/", 1)[1], "node": v.node, "priority": v.priority}
                         for v in sorted(victims, key=lambda v: (v.node, v.pod))]
        out.preemption_exact, why = _upstream_replay(cluster, placement, ctx, pre, filters, {v.pod for v in victims})
        if why:
            out.notes.append(why)
        return out
    raise UnknownResult("unknown: no verified order found for the placement with preemption; planner gives no answer rather than a wrong one")


def _preemption_considered(problem: Problem) -> str:
    nodes = {v.node for v in problem.victims}
    prios = sorted({v.priority for v in problem.victims})
    return (f"preemption considered: evicting lower-priority pods ({len(problem.victims)} candidate(s) of priority "
            f"{prios[0]}{'..' + str(prios[-1]) if len(prios) > 1 else ''} on {len(nodes)} node(s) the pods may use) does not help")


def _upstream_replay(
    cluster: ClusterState, placement: dict[str, str], ctx: Context, pre: PreemptionInput, filters: Filters, chosen: set[str]
) -> tuple[bool | None, str]:
    """The placement replayed pod by pod, in its order, with the victims still running: a pod that
    does not fit its node preempts there as kube-scheduler does (SelectVictimsOnNode: every
    lower-priority pod removed, then as many reprieved as fit, PDB-violating ones first).
    (True, "") when every pod gets its node that way; (False, why) when one does not: kube-scheduler's
    per-node choice cannot reach this placement in this order; (None, why) when not replayed."""
    if len(placement) > PREEMPT_REPLAY_PODS:
        return None, (f"the victims were checked with the filters; kube-scheduler's own per-node victim choice was not replayed "
                      f"for {len(placement)} pods (at most {PREEMPT_REPLAY_PODS}): simulate shows it")
    work = cluster.clone()
    wf = WitnessFilters(work, filters)
    for key, node in placement.items():
        pod = ctx.pods[key]
        if wf.fits(pod, node):
            gone, _, st = select_victims_on_node(pod, work, node, pre.pdbs, filters)
            if st is not None or not gone:
                return False, _gap(key, node, chosen)
            ni = work.own(node)
            for v in gone:
                ni.remove_pod(v)
            wf = WitnessFilters(work, filters)
            if wf.fits(pod, node):
                return False, _gap(key, node, chosen)
        wf.bind(pod, node)
    return True, ""


def _gap(key: str, node: str, chosen: set[str]) -> str:
    return (f"kube-scheduler preempts one node at a time, for a pod that fits no node: replayed that way in this order, "
            f"{key.split('/', 1)[1]} does not get {node}, so the victims listed ({len(chosen)}) are a valid way to make room "
            "(checked with every filter) that kube-scheduler may not choose; planner simulate shows what it does")


def bound_outcome(bound: RoomBound, replicas: int | None) -> CheckOutcome:
    """UNSCHEDULABLE by arithmetic: the count asked is past the cluster's bound (RoomBound)."""
    ref = bound.workload
    plan = Plan(bound.ref, bound.asked)
    explanation = [
        {"constraint": "replicas", "objects": [ref], "message": f"{bound.asked:,} replicas of {ref} must run"},
        {"constraint": "NodeResourcesFit", "objects": [f"Node {n}" for n in bound.nodes[:20]], "message": bound.message(bound.asked)},
    ]
    stats: dict[str, Any] = {"pods_to_place": max(0, bound.asked - bound.running), "model": "bound", "bound": bound.max_replicas, "nodes": len(bound.nodes)}
    return CheckOutcome(False, {}, explanation, [plan], None, stats, [])


def _hint(reason: str) -> str:
    """What to do about an unknown solve: a longer time limit, unless the solver itself is at fault."""
    return "" if reason == IGNORED_ASSUMPTIONS else " (raise --time-limit)"


def _attempt(
    problem: Problem,
    ctx: Context,
    cluster: ClusterState,
    opts: SolveOptions,
    stats: dict,
    sequenced: bool,
    filters: Filters = None,
    witness: bool = True,
) -> CheckOutcome | None:
    """One solve: an unschedulable outcome (its explanation left to _explained), a verified
    witness, or None when the model's placement could not be ordered through the filters
    (``witness`` False: the model's placement is not ordered, the outcome has none)."""
    built = models.build(problem)
    if sequenced:
        add_sequence(built)
    res = solve(built, opts)
    stats["solve_seconds"] = round(stats.get("solve_seconds", 0) + res.wall_time, 4)
    if res.status == "unknown":
        raise UnknownResult(f"unknown: {res.reason}; no answer is given{_hint(res.reason)}")
    if res.status == "infeasible":
        out = CheckOutcome(False, {}, [], [], problem, stats, [])
        out.proof = (built, res.core)
        return out
    if not witness:
        return CheckOutcome(True, {}, [], [], problem, {**stats, "witness": "not ordered"}, [])
    placement = order_witness(problem, ctx, res.x, cluster, res.sequence or None, filters)
    if placement is None:
        return None
    return CheckOutcome(True, placement, [], [], problem, stats, [])


def _explained(out: CheckOutcome, ctx: Context, opts: SolveOptions) -> list[dict]:
    """The minimal explanation of an unschedulable outcome of _attempt (its model and core)."""
    assert out.proof is not None
    built, core = out.proof
    out.proof = None
    return explain_core(built, minimise_core(built, core, opts), ctx, opts)


def check_by_known_order(
    snap: Snapshot,
    refs: list[WorkloadRef],
    replicas: int,
    order: dict[str, str],
    known_plans: list[Plan] | None = None,
    profile: Profile | None = None,
) -> CheckOutcome | None:
    """Schedulable by a known placement order, or None (then only a full check decides).

    ``order`` is a verified witness for more replicas of the same workloads (pod -> node, in
    placement order).  The pods the count ``replicas`` needs, taken in that order, are placed one at
    a time through every filter plugin, from the cluster that count starts from; if each one fits
    and an OrderedReady workload's pods come in creation order, that is a witness for this count,
    verified like any other.  (A prefix of a valid placement sequence is valid: an OrderedReady
    StatefulSet's witness is in ordinal order, so its smaller counts are its prefixes.)  Anything
    else, including a pod the order does not name, gives None; never an "unschedulable".

    ``known_plans``: the plans ``order`` was verified for.  When this count keeps and removes the
    same pods, its new pods are equal to theirs and come first in ``order``, its starting cluster
    differs from theirs only by the unbound claims of the pods it does not create (which no filter
    of another pod reads), so the prefix of the verified sequence is itself verified and is not
    replayed again."""
    plans = _plans(snap, refs, replicas, profile)
    new = {p.key: p for plan in plans for p in plan.new}
    if not new or any(k not in order for k in new):
        return None
    sequence = [k for k in order if k in new]
    for plan in plans:
        if plan.ordered and plan.new:
            keys = {p.key for p in plan.new}
            if [k for k in sequence if k in keys] != [p.key for p in plan.new]:
                return None
    stats: dict[str, Any] = {"pods_to_place": len(new), "model": "known order"}
    notes = [n for p in plans for n in p.notes]
    if known_plans is not None and _prefix_of(plans, known_plans, sequence, order):
        stats["model"] = "prefix of a verified witness"
        return CheckOutcome(True, {k: order[k] for k in sequence}, [], plans, None, stats, notes)
    cluster = cluster_after_plans(snap, plans)
    witness = WitnessFilters(cluster, None if profile is None else profile.filters)
    placement: dict[str, str] = {}
    for k in sequence:
        node = order[k]
        if node not in cluster.by_name or witness.fits(new[k], node):
            return None
        witness.bind(new[k], node)
        placement[k] = node
    stats["nodes"] = len(cluster.node_infos)
    return CheckOutcome(True, placement, [], plans, None, stats, notes)


def _prefix_of(plans: list[Plan], known: list[Plan], sequence: list[str], order: dict[str, str]) -> bool:
    """Is ``sequence`` (this count's new pods in ``order``) the start of ``order``, with the same
    kept and removed pods as ``known`` and new pods and claims equal to ``known``'s?"""
    if len(plans) != len(known) or list(order)[: len(sequence)] != sequence:
        return False
    known_new = {p.key: p for plan in known for p in plan.new}
    known_claims = {c.key: c for plan in known for c in plan.new_claims}
    for plan, kp in zip(plans, known):
        if [p.key for p in plan.keep] != [p.key for p in kp.keep] or [p.key for p in plan.remove] != [p.key for p in kp.remove]:
            return False
        if any(known_new.get(p.key) != p for p in plan.new) or any(known_claims.get(c.key) != c for c in plan.new_claims):
            return False
    return True


# --------------------------------------------------------------------------- witness


def order_witness(
    problem: Problem,
    ctx: Context,
    x: dict[tuple[int, int], int],
    base: ClusterState,
    sequence: list[tuple[int, int]] | None = None,
    filters: Filters = None,
) -> dict[str, str] | None:
    """Place every pod through all filters, following the model's class quotas; None if stuck.

    Lowest domain first (the order that the spread argument in models/podtopologyspread.py
    proves sufficient), pods of an OrderedReady workload strictly in creation order.
    """
    cluster = base.clone()
    witness = WitnessFilters(cluster, filters)
    quota = {k: v for k, v in x.items() if v > 0}
    # the classes each group still has quota on (the candidates of a step are sorted, so their
    # order here does not matter)
    open_classes: dict[int, list[int]] = {}
    for g, c in quota:
        open_classes.setdefault(g, []).append(c)
    queues = [deque(pods) for pods in ctx.group_pods]
    heads: dict[str, int] = {}
    for seq in ctx.ordered_plans:
        for i, k in enumerate(seq):
            heads[k] = i
    done_in_plan: dict[int, int] = {}
    placed_count: dict[str, int] = {}  # node -> new pods placed there
    # per class its nodes by (new pods placed there, position in the class): the order the nodes
    # are tried in, kept sorted as pods are placed instead of sorted again for every pod
    by_load: dict[int, list[tuple[int, int, str]]] = {}
    tally: dict[tuple[int, str], int] = {}  # (spread, domain) -> new matching pods placed
    placement: dict[str, str] = {}
    total = sum(len(q) for q in queues)
    spreads_of: dict[int, list[Spread]] = {}
    for s in problem.spreads:
        for g in s.carriers:
            spreads_of.setdefault(g, []).append(s)
    matching = [[s for s in problem.spreads if g in s.matchers] for g in range(len(queues))]
    # (group, class) -> a candidate's priority but for the pods placed so far, and the tally
    # entries that add them (see _priority_parts)
    parts: dict[tuple[int, int], tuple[int, tuple[tuple[int, str], ...]]] = {}
    for g, cs in open_classes.items():
        for c in cs:
            parts[(g, c)] = _priority_parts(problem, spreads_of.get(g, []), c)
    # group -> the tally entries of its classes (a tuple per domain) -> a heap of (priority but
    # for the pods placed, class) of its classes, those whose quota ran out popped when on top:
    # within one tuple the pods placed add the same to every class, so its top is its best class
    heaps: dict[int, dict[tuple[tuple[int, str], ...], list[tuple[int, int]]]] = {}
    for (g, c), (base_prio, keys) in parts.items():
        heaps.setdefault(g, {}).setdefault(keys, []).append((base_prio, c))
    for by_keys in heaps.values():
        for h in by_keys.values():
            heapify(h)
    tries = 0

    def priority(base_prio: int, keys: tuple[tuple[int, str], ...]) -> int:
        """A candidate class's priority but for its class: its base plus the tally of its keys."""
        for tk in keys:
            base_prio += tally.get(tk, 0)
        return base_prio

    def attempt(g: int, c: int) -> bool:
        """Place the head of group g on the least loaded node of class c that fits (tries counted)."""
        nonlocal tries
        pod = queues[g][0]
        order = by_load.get(c)
        if order is None:
            order = by_load[c] = [(placed_count.get(n, 0), i, n) for i, n in enumerate(problem.classes[c].nodes)]
            order.sort()
        for pos, (load, i, node) in enumerate(order):
            tries += 1
            if witness.fits(pod, node):
                continue
            witness.bind(pod, node)
            placement[pod.key] = node
            placed_count[node] = load + 1
            del order[pos]
            insort(order, (load + 1, i, node))
            quota[(g, c)] -= 1
            queues[g].popleft()
            if pod.key in heads:
                pi = ctx.plan_of[pod.key]
                done_in_plan[pi] = done_in_plan.get(pi, 0) + 1
            for s in matching[g]:
                d = node if s.per_node else problem.classes[c].domains.get(s.topology_key, "")
                tally[(s.index, d)] = tally.get((s.index, d), 0) + 1
            return True
        return False

    step = 0
    while len(placement) < total:
        tries = 0
        if sequence is not None:
            g, c = sequence[step]
            step += 1
            if not attempt(g, c):
                return None
            continue
        # the candidates are (group, class) pairs with quota left, for the groups whose head may
        # go now, tried in (priority, class, group) order: the first from the heaps, the others
        # (when no node of its class takes the pod) sorted in full
        ready = []
        for g, q in enumerate(queues):
            if not q:
                continue
            pod = q[0]
            if pod.key in heads and heads[pod.key] != done_in_plan.get(ctx.plan_of[pod.key], 0):
                continue
            ready.append(g)
        best: tuple[tuple[int, int], int, int] | None = None
        for g in ready:
            for keys, h in heaps.get(g, {}).items():
                while h and quota[(g, h[0][1])] <= 0:
                    heappop(h)
                if h:
                    cand = ((priority(h[0][0], keys), h[0][1]), g, h[0][1])
                    if best is None or cand < best:
                        best = cand
        if best is None:
            return None
        if attempt(best[1], best[2]):
            continue
        if tries > 400:
            return None
        cands = []
        for g in ready:
            for c in open_classes.get(g, ()):
                if quota[(g, c)] > 0:
                    cands.append(((priority(*parts[(g, c)]), c), g, c))
        cands.sort()
        progressed = False
        for cand in cands:
            if cand == best:
                continue
            if attempt(cand[1], cand[2]):
                progressed = True
                break
            if tries > 400:
                break
        if not progressed:
            return None
    return placement


def _priority_parts(problem: Problem, spreads: list[Spread], c: int) -> tuple[int, tuple[tuple[int, str], ...]]:
    """A candidate class's priority in order_witness, (its spreads' matching pods, class): the
    existing pods of its domains (of the class itself for a per-node spread), and the keys of
    order_witness's tally whose new pods add to them (the class's domain of each spread that is not
    per node)."""
    total = 0
    keys: list[tuple[int, str]] = []
    cls = problem.classes[c]
    for s in spreads:
        if s.per_node:
            total += s.existing_per_node.get(c, 0)
        else:
            d = cls.domains.get(s.topology_key, "")
            total += s.existing.get(d, 0)
            keys.append((s.index, d))
    return total, tuple(keys)


# --------------------------------------------------------------------------- explanations


def _zones_of(problem: Problem, classes: list[int]) -> str:
    zones = sorted({problem.classes[c].zone or problem.classes[c].label for c in classes})
    return ", ".join(zones) if zones else "no node"


def explain_core(built: Built, core: list[Guard], ctx: Context, opts: SolveOptions) -> list[dict]:
    p = built.problem
    out: list[dict] = []
    # the pods that must be placed, per workload
    by_workload: dict[str, list[str]] = {}
    for g in core:
        if g.kind == "place":
            by_workload.setdefault(g.ref.workload, []).extend(g.ref.pods)
    for wl, pods in by_workload.items():
        out.append({"constraint": "replicas", "objects": [f"Pod {k}" for k in pods], "message": f"{_names(pods)} of {wl} must be placed"})
    # static exclusions; identical ones (same plugin, reason, nodes) merged across pods
    merged: dict[tuple, list[str]] = {}
    first: dict[tuple, tuple] = {}
    for g in core:
        if g.kind == "static":
            e: Exclusion = g.ref
            key = (e.plugin, e.reason, tuple(e.classes), e.detail if e.detail else "")
            grp = p.groups[g.group] if g.group is not None else None
            merged.setdefault(key, []).extend(grp.pods if grp else [])
            first.setdefault(key, (e, grp))
    for key, pods in merged.items():
        e, grp = first[key]
        allowed = [c.index for c in p.classes if c.index not in e.classes]
        who = _names(pods) if pods else "the pods"
        if e.detail and allowed:
            msg = f"{who} must run in {_zones_of(p, allowed)} ({e.detail})"
        elif e.detail:
            msg = f"{who} {'fits' if len(pods) == 1 else 'fit'} no node: {e.reason} ({e.detail})"
        elif not allowed:
            msg = f"{who}: {e.plugin} rejects every node ({e.reason})"
        else:
            msg = f"{who}: {e.plugin} rejects {_places(p, e.classes)} ({e.reason})"
        objects = e.objects if (e.objects and len(pods) <= 1) else [f"Pod {k}" for k in pods]
        out.append({"constraint": e.plugin, "objects": objects, "message": msg})
    for g in core:
        if g.kind == "capacity":
            out.append(_capacity_message(p, g.ref))
    for g in core:
        if g.kind == "volumelimits":
            out.append(_volume_limit_message(p, g.ref))
    others = [g for g in core if g.kind in ("spread", "affinity")]
    antis: dict[str, list] = {}
    for g in core:
        if g.kind == "anti":
            antis.setdefault(g.ref.source, []).append(g.ref)
    for source, items in antis.items():
        groups = sorted({x for a in items for x in (a.a, a.b)})
        pods = [k for gi in groups for k in p.groups[gi].pods]
        a = items[0]
        doms = "node" if a.per_node else a.topology_key
        msg = f"required anti-affinity ({a.topology_key}): {_names(pods)} may not share a {doms}"
        out.append({"constraint": "InterPodAffinity", "objects": [source], "message": msg})
    for g in others:
        # any placement that keeps the rest of the core shows what the guard prevents: the first
        # one found, without probing (models.solve.SolveOptions.probing)
        counter = solve(built, replace(opts, probing=False), enabled=[x for x in core if x is not g])
        if g.kind == "spread":
            out.append(_spread_message(built, g.ref, counter.x if counter.status == "feasible" else None, ctx))
        else:
            f = g.ref
            out.append(
                {
                    "constraint": "InterPodAffinity",
                    "objects": [f.source],
                    "message": f"required pod affinity ({f.topology_key}): every pod of {p.groups[f.carrier].name} needs a matching pod in its domain"
                    + (f" (existing in: {', '.join(f.existing_domains)})" if f.existing_domains else " (none exists yet)"),
                }
            )
    return out


MAX_ROOM_ENTRIES = 4  # node classes named per group in a capacity message; the rest are summed


def _room(grp: Group, c: NodeClass) -> tuple[int, str]:
    """How many more pods of ``grp`` one node of ``c`` takes (what the capacity guard bounds it
    by), and what binds there: the resources whose free amount gives exactly that number ("" when
    the count is not bound by the node, or the binding part cannot be told from the free amounts)."""
    cap = max(c.cap[grp.index], 0)
    limits = {"pods": c.free.get(PODS, 0)}
    for r, q in sorted(grp.requests.items()):
        if q > 0 and r in c.free:
            limits[r] = c.free[r] // q
    if grp.host_ports:
        limits["host ports"] = 1
        cap = min(cap, 1)
    if cap >= grp.count:
        return cap, ""
    if max(0, min(limits.values())) != cap:
        return cap, ""  # bound by something the free amounts do not show (NodeResourcesFit said so)
    return cap, ", ".join(r for r, k in limits.items() if max(0, k) == cap)


def _room_preempting(grp: Group, c: NodeClass) -> tuple[int, str]:
    """_room, or on a node with victims the room once all of them are preempted."""
    if not c.victims or c.cap_preempt is None:
        return _room(grp, c)
    k = min(max(c.cap_preempt[grp.index], 0), grp.count)
    return k, f"after preempting its {len(c.victims)} lower-priority pod(s)"


def _capacity_message(p: Problem, zone: str) -> dict:
    """The capacity guard of one zone, in nodes and numbers: per group, the room of the nodes it may
    use there (nodes a static filter keeps it off are not counted, and are named as such)."""
    cls = [c for c in p.classes if c.zone == zone]
    n_nodes = sum(c.size for c in cls)
    if zone:
        where = zone
    elif n_nodes <= 3:
        where = ", ".join(n for c in cls for n in c.nodes)
    else:
        where = f"the {n_nodes} nodes without a zone label"
    parts: dict[str, list[str]] = {}  # what the room is -> the groups' first pods it is said of
    objects: list[str] = []
    binding: set[str] = set()  # what binds the rooms named
    for grp in p.groups:
        skipped: dict[int, list[str]] = {}  # class -> the static filters that keep grp off it
        for e in grp.exclusions:
            for ci in e.classes:
                skipped.setdefault(ci, []).append(e.plugin)
        usable = [c for c in cls if c.index not in skipped]
        rooms = sorted(((c, *_room_preempting(grp, c)) for c in usable), key=lambda t: (-t[1], t[0].nodes[0]))
        entries = [f"{c.label} {k}" + (" each" if c.size > 1 else "") + (f" ({why})" if why else "") for c, k, why in rooms[:MAX_ROOM_ENTRIES]]
        binding.update(why for _, _, why in rooms[:MAX_ROOM_ENTRIES])
        rest = rooms[MAX_ROOM_ENTRIES:]
        if rest:
            entries.append(f"and {sum(c.size for c, _, _ in rest)} more node(s) with room for {sum(c.size * k for c, k, _ in rest)}")
        room = sum(c.size * k for c, k, _ in rooms)
        # "only" where the group has fewer places there than pods (a core may hold a zone that
        # has room for all of them beside another fact: one pod per node)
        text = f"{'only ' if room < grp.count else ''}{room} more pod(s) like {{pods}}" + (": " + ", ".join(entries) if entries else "")
        names = [n for c in cls if c.index in skipped for n in c.nodes]
        if names:
            plugins = list(dict.fromkeys(pl for c in cls for pl in skipped.get(c.index, [])))
            who = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            text += f", not counting {who} ({', '.join(plugins)})"
        parts.setdefault(text, []).append(grp.pods[0])
        objects.extend(f"Node {n}" for c in usable for n in c.nodes if f"Node {n}" not in objects)
    said = [text.replace("{pods}", _names(pods) if len(pods) <= 4 else f"{pods[0].split('/', 1)[-1]} (and {len(pods) - 1} more)") for text, pods in parts.items()]
    verb = "have" if (not zone and 1 < n_nodes <= 3) else "has"
    # host ports alone bind: NodePorts' guard (one pod per node), else NodeResourcesFit's
    plugin = "NodePorts" if binding == {"host ports"} else "NodeResourcesFit"
    return {"constraint": plugin, "objects": objects[:20], "message": f"{where} {verb} room for " + "; ".join(said)}


def _volume_limit_message(p: Problem, vl: VolumeLimit) -> dict:
    """NodeVolumeLimits' guard for one CSI driver, in nodes and numbers: each class's attach limit
    (CSINode allocatable.count), the volumes attached there, the room left, and what the pods need."""
    classes = sorted({c for _, c in vl.need})
    parts: list[str] = []
    total_room = 0
    objects: list[str] = []
    for c in classes[:MAX_ROOM_ENTRIES]:
        cls = p.classes[c]
        each = " each" if cls.size > 1 else ""
        parts.append(f"{cls.label} attach{'es' if cls.size == 1 else ''} at most {vl.limit[c]}{each} ({vl.attached[c]} attached, room for {vl.room(c)})")
    for c in classes:
        total_room += p.classes[c].size * vl.room(c)
        objects.extend(f"CSINode {n}" for n in p.classes[c].nodes)
    if len(classes) > MAX_ROOM_ENTRIES:
        parts.append(f"and {sum(p.classes[c].size for c in classes[MAX_ROOM_ENTRIES:])} more node(s)")
    needs: dict[int, set[int]] = {}
    for (g, _), k in vl.need.items():
        needs.setdefault(g, set()).add(k)
    wants = []
    total_need = 0
    for g, ks in sorted(needs.items()):
        grp = p.groups[g]
        k = min(ks)
        total_need += k * grp.count
        wants.append(f"{_names(grp.pods)} need{'s' if grp.count == 1 else ''} {k} new volume(s) each")
    msg = (
        f"CSI driver {vl.driver}: " + "; ".join(parts) + f": room for {total_room} new volume(s) in all, "
        f"while {'; '.join(wants)} ({total_need} in all): node(s) exceed max volume count"
    )
    return {"constraint": "NodeVolumeLimits", "objects": objects[:20], "message": msg}


def _places(problem: Problem, classes: list[int]) -> str:
    """Zones whose every node is listed, else node names (at most 8)."""
    chosen = set(classes)
    parts: list[str] = []
    by_zone: dict[str, list[int]] = {}
    for c in problem.classes:
        by_zone.setdefault(c.zone, []).append(c.index)
    for zone, cls in sorted(by_zone.items()):
        if zone and all(ci in chosen for ci in cls):
            parts.append(zone)
        else:
            parts.extend(n for ci in cls if ci in chosen for n in problem.classes[ci].nodes)
    text = ", ".join(parts[:8])
    return text + (f" and {len(parts) - 8} more" if len(parts) > 8 else "")


def _names(pods: list[str]) -> str:
    short = [k.split("/", 1)[1] for k in pods]
    if len(short) <= 4:
        return ", ".join(short)
    return f"{len(short)} pods ({', '.join(short[:3])}, ...)"


def _pods_phrase(grp: Group | None) -> str:
    if grp is None:
        return "the pods"
    if grp.count == 1:
        return grp.pods[0].split("/", 1)[1]
    return f"{grp.count} pods ({', '.join(k.split('/', 1)[1] for k in grp.pods[:3])}{', ...' if grp.count > 3 else ''})"


def _spread_message(built: Built, s: Spread, x: dict[tuple[int, int], int] | None, ctx: Context | None = None) -> dict:
    p = built.problem
    base = f"topology spread ({s.topology_key}, maxSkew {s.max_skew}, selector {s.selector})"
    objects = [s.source]
    if x is None:
        return {"constraint": "PodTopologySpread", "objects": objects, "message": base + " cannot be met"}
    if s.per_node:
        counts: dict[str, int] = {}
        for c in p.classes:
            if c.index not in s.eligible:
                continue
            t = sum(x.get((g, c.index), 0) for g in s.matchers)
            e = s.existing_per_node.get(c.index, 0)
            for i, n in enumerate(c.nodes):
                # name the domain (the node's value of the key; for hostname that is the node)
                ni = ctx.cluster.by_name.get(n) if ctx is not None else None
                label = ni.node.labels.get(s.topology_key, n) if ni is not None else n
                counts[label] = e + t // c.size + (1 if i < t % c.size else 0)
    else:
        counts = {d: s.existing.get(d, 0) for d in s.domains}
        for c in p.classes:
            if c.index in s.eligible:
                d = c.domains.get(s.topology_key)
                if d in counts:
                    counts[d] += sum(x.get((g, c.index), 0) for g in s.matchers)
    if not counts:
        return {"constraint": "PodTopologySpread", "objects": objects, "message": base + ": no eligible domain"}
    gmin = 0 if s.forced_zero_min else min(counts.values())
    hi = max(counts, key=lambda d: (counts[d], d))
    lo = min(counts, key=lambda d: (counts[d], d))
    skew = counts[hi] - gmin
    where_min = f"minDomains {s.min_domains} > {len(counts)} eligible domains, so the minimum is 0" if s.forced_zero_min else f"{lo} holds {counts[lo]}"
    msg = (
        f"{hi} would then hold {counts[hi]} pod(s) matching {s.selector} while {where_min}: "
        f"skew {skew} > maxSkew {s.max_skew} ({s.topology_key})"
    )
    if skew <= s.max_skew:
        msg = f"{base}: every placement that satisfies the other constraints breaks it while pods arrive one at a time (counts at the end: " + ", ".join(f"{d}={n}" for d, n in sorted(counts.items())) + ")"
    return {"constraint": "PodTopologySpread", "objects": objects, "message": msg}
