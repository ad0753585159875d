"""The CP-SAT choice of a replica goal's actions, then their verification, cheapest plan first.

One model (models.remediation) holds every candidate action as a literal and encodes what it
does to the check model (planner.engines.problem, models/): the pods of the workload are placed
in one of two worlds, the running pods kept where they run (the goal's new pods placed beside
them), or, once any option changes the pod template, every pod recreated from the changed
template (claims kept: rolled, as verification checks a template change).  Exactly encoded:

* ``scale-node-group``: an integer count of new nodes per node group (per zone), the nodes the
  group's sanitised template with its DaemonSet pods bound (as ``capacity --add-nodes`` and
  verification build them), one node class whose number of nodes is the count: their room and,
  for a hostname or a new zone, their topology domains;
* ``uncordon``: the node, uncordoned, usable only with the option;
* template changes (``raise-max-skew``, ``set-when-unsatisfiable``, ``narrow-spread-selector``,
  ``add-match-label-keys``, ``relax-anti-affinity``, ``add-toleration``, ``set-requests``): the
  workload's pods planned from the patched template (the very patches that are printed, applied
  as verification applies them) are a variant of the rolled world, whose changed constraint
  families replace the world's while the option is chosen;

and as an upper bound: ``delete-pvc`` lifts the volume pin of the pod whose claim it deletes
(the new claim may still be restricted where it is provisioned).  ``set-rollout-strategy`` and
``set-pod-management-policy`` change nothing the check model sees (a rollout's course, the order
pods are created in: the model is already check's unordered relaxation); a plan whose check
passed but whose replay failed is tried with each family of them (_repair).  When the model
places the pods with no change at all (only check's creation order defeats the goal), it cannot
tell the candidates apart: they are enumerated as for transitions (Chosen.fallback).

The objective is the plan's cost in the ranking's order (destructive last unless
``allow_destructive``, then data loss, availability risk, assumptions, spread weakened, money,
label changes, pods restarted, then the number of actions and the action types' preference), so
the optimum is the plan that ranks first.  Each solution is verified as every plan is (check and
the replay on the patched snapshot, planner.engines.remediation.verify); a verified plan is
excluded with every plan that contains it or another variant of its changes (no printed plan is
a superset of another), a rejected one alone, and the next optimum is taken, until ``top``
plans, MAX_REJECTED rejections, or the search's budget.  Candidates the model proves cannot
reach the goal alone (cheaper than the last optimum and never proposed, or by a solve) are
listed as rejected, with check's explanation of their effect (within ExplainBudget: one variant
of each family, none once a core search runs out of its budget; the model's proof otherwise),
without a replay.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from models.remediation import (
    ActionModel,
    ActionProblem,
    NodeGroupOption,
    Option,
    Variant,
    World,
    build_actions,
    cost_of,
    view,
    without_classes,
)
from models.solve import ActionResult, SolveOptions, solve_actions
from planner.controllers.daemon import daemon_pods_for_node, is_host_network
from planner.domain import Node, Pod
from planner.engines.check import preemption_possible
from planner.engines.problem import Memo, build_problem
from planner.engines.remediation.actions import COST_FIELDS, PREFERENCE, Action, Cost, Plan
from planner.engines.remediation.ahead import digest
from planner.engines.remediation.candidates import (
    MAX_ADDED_PER_ZONE,
    UNSCHEDULABLE_TAINT,
    Context,
    GroupSpec,
    group_family,
    node_group_specs,
    scale_node_group_action,
)
from planner.engines.remediation.helm import annotate_helm
from planner.engines.remediation.jsonpatch import PatchError
from planner.engines.remediation.verify import apply_plan, rolled
from planner.engines.workloads import Plan as PodPlan
from planner.engines.workloads import cluster_after_plans, plan_workload
from planner.errors import InputError, UsageError
from planner.scheduler.framework import ClusterState, NodeInfo
from planner.snapshot import Snapshot


def new_nodes_limit(snap: Snapshot) -> int:
    """The most new nodes the model adds to one node group: one per pod to place at most, and no
    more than the cluster has nodes (a plan that more than doubles a cluster per group is not a
    remedy; past_any_plan refuses the goals only such a plan could reach)."""
    return max(MAX_ADDED_PER_ZONE, len(snap.nodes))
MAX_REJECTED = 12  # plans the model proposes that verification rejects, before the search stops
STAY, ROLL = "stay", "roll"
FREE_TYPES = ("set-rollout-strategy", "set-pod-management-policy", "set-pvc-retention-policy")

Progress = Callable[[str, int, int], None]


@dataclass
class Chosen:
    plans: list[Plan] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    leftover: list[Action] = field(default_factory=list)  # candidates the model could not take: verified as before
    notes: list[str] = field(default_factory=list)
    fallback: bool = False  # the model could not tell the candidates apart: all of them are enumerated


class Preempting(Exception):
    """The goal's pods may preempt running lower-priority pods: check (which verifies every plan)
    preempts when they do not fit, and the action model has no victims; the candidates are
    verified one by one and in pairs instead (Chosen.fallback), as check answers for each."""


@dataclass
class _Space:
    am: ActionModel
    actions: dict[str, Action]  # option id -> its action
    groups: dict[str, GroupSpec]  # node group option id -> the group
    leftover: list[Action]
    rejected: list[dict[str, Any]]
    contexts: dict[str, Any] = field(default_factory=dict)  # world -> planner.engines.problem.Context
    # the calls that changed the model since it was built, ("sup" | "exact", the plan) each: what
    # names a solve of it (the child working ahead sends its solves under that name)
    history: list[tuple[str, tuple]] = field(default_factory=list)
    chain_base: int = -1  # len(history) when the child started: its solves follow "sup" calls alone
    # False once the child's model is known to differ from this process's (its first optimum was
    # guessed wrong: _solve_first): none of its solves is taken then
    chain_trusted: bool = True
    alone: dict[str, str] = field(default_factory=dict)  # option id -> its solve alone's status (_alone)


def cost_fields(allow_destructive: bool) -> tuple[str, ...]:
    """The objective's fields, most important first: the ranking's (Plan.rank_key: destructive
    last unless allowed, the cost fields, the number of actions, the types' preference), then the
    candidates' own order (a ladder's smaller change first: maxSkew +1 before +2, requests at
    75% before 50%; node groups in the order of planner.controllers.nodegroups)."""
    return (() if allow_destructive else ("destructive",)) + COST_FIELDS + ("actions", "preference", "order")


def _vector(a: Action, allow_destructive: bool, order: int) -> tuple[int, ...]:
    pref = PREFERENCE.index(a.type) if a.type in PREFERENCE else len(PREFERENCE)
    head = () if allow_destructive else (int(a.destructive),)
    return head + a.cost.key() + (1, pref, order)


def _node_vectors(allow_destructive: bool, order: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    fields = cost_fields(allow_destructive)
    per = tuple(1 if f == "money" else 0 for f in fields)
    once = tuple(1 if f == "actions" else PREFERENCE.index("scale-node-group") if f == "preference" else order if f == "order" else 0 for f in fields)
    return per, once


def _uncordoned(node: Node) -> Node:
    """The node as kubectl uncordon leaves it once the node lifecycle controller removed its
    node.kubernetes.io/unschedulable taint (verify.load_changes does the same to the object)."""
    return replace(node, unschedulable=False, taints=tuple(t for t in node.taints if t.key != UNSCHEDULABLE_TAINT))


def _new_nodes(snap: Snapshot, specs: list[GroupSpec]) -> list[NodeInfo]:
    """One new node per node group, with the DaemonSet pods it runs (bound to it): it stands for
    all the group's potential nodes, which are identical (_sized makes its class theirs)."""
    host_network = lambda ds: is_host_network(snap.raw.get(("DaemonSet", ds.key)))  # noqa: E731
    out = []
    for spec in specs:
        node = spec.group.new_node(spec.names[0])
        out.append(NodeInfo(node, daemon_pods_for_node(node, snap.daemonsets.values(), snap.pods.__contains__, host_network)))
    return out


def _sized(problem: Any, node_class: dict[str, int], specs: list[GroupSpec], limit: int) -> dict[str, int]:
    """The class of each node group's one new node made the class of its ``limit`` potential
    nodes (identical: the same template, DaemonSet pods and domains, a hostname each): its node
    list, and the nodes a per-node spread domain count includes.  Returns group id -> class."""
    out = {}
    for spec in specs:
        c = node_class[spec.names[0]]
        cls = problem.classes[c]
        if cls.nodes != [spec.names[0]]:
            raise ValueError(f"the new node of {spec.group.name} shares its class with {cls.nodes}")
        cls.nodes = list(spec.names[:limit])
        for sp in problem.spreads:
            if sp.per_node and c in sp.eligible:
                sp.eligible_nodes += limit - 1
        out[_gid(spec)] = c
    return out


def _rolled_cluster(snap: Snapshot, ref: Any, plan: PodPlan) -> ClusterState:
    """cluster_after_plans(rolled(snap), [plan]) from the snapshot's base cluster: the workload's
    bound pods gone, the plan's new claims there."""
    cluster = snap.base_cluster().clone()
    for p in snap.owned_pods(ref.kind, ref.key):
        if p.spec.node_name and not p.terminal:
            cluster.remove_pod(p)
    for c in plan.new_claims:
        cluster.pvcs.setdefault(c.key, c)
    return cluster


def _gid(spec: GroupSpec) -> str:
    return "group:" + group_family(spec.group)


_POD_ARGS = [f.name for f in fields(Pod) if f.init]
_pod_args = operator.attrgetter(*_POD_ARGS)
_NAME_AT = _POD_ARGS.index("name")


def _renamed(plan: PodPlan, tag: str) -> PodPlan:
    """The plan with its new pods named ``<name>@<tag>`` (``replace(p, name=...)``, by one call of
    the class: a variant's thousands of pods)."""
    out = []
    for p in plan.new:
        args = list(_pod_args(p))
        args[_NAME_AT] = f"{p.name}@{tag}"
        out.append(Pod(*args))
    return replace(plan, new=out)


def _claim_groups(problem: Any, pods: dict[str, Pod], claim_key: str) -> list[int]:
    ns, _, name = claim_key.partition("/")
    out = []
    for g in problem.groups:
        for k in g.pods:
            p = pods.get(k)
            if p is not None and p.namespace == ns and any(v.claim_name == name for v in p.spec.volumes):
                out.append(g.index)
                break
    return out


def build_space(
    snap: Snapshot, ctx: Context, cands: list[Action], allow_destructive: bool, limit: int | None = None, memo: Memo | None = None
) -> _Space:
    """The action model of a replica goal's candidates (module docstring): its two worlds built
    by planner.engines.problem on the cluster with the nodes options add or uncordon, the template
    changes as variants of the rolled world, the options' cost vectors.  ``memo``: what the
    problems share with the checks of the plans (planner.engines.problem.Memo)."""
    goal = ctx.goal
    ref = goal.ref
    n = goal.replicas
    leftover: list[Action] = []
    rejected: list[dict[str, Any]] = []
    options: list[Option] = []
    actions: dict[str, Action] = {}
    templates: list[tuple[str, Action]] = []
    uncordons: dict[str, str] = {}  # node -> option
    unpins: dict[str, str] = {}  # option -> claim key
    for i, a in enumerate(cands):
        if a.type in ("scale-node-group", "scale-to"):
            continue
        oid = f"{i}:{a.type}"
        if a.rolls_template:
            templates.append((oid, a))
            world = ROLL
        elif a.type == "uncordon":
            uncordons[a.params["node"]] = oid
            world = ""
        elif a.type == "delete-pvc":
            unpins[oid] = a.params["claim"]
            world = ""
        elif a.type in FREE_TYPES:
            world = ""
        else:
            leftover.append(a)
            continue
        options.append(Option(oid, _vector(a, allow_destructive, i), a.conflict, world, a.family))
        actions[oid] = a
    families = {a.family for a in cands if a.type == "scale-node-group"}
    # a node group never needs more new nodes than there are pods to place (each takes one)
    limit = max(1, min(limit if limit is not None else new_nodes_limit(snap), n or 0))
    specs = [s for s in node_group_specs(ctx, limit) if group_family(s.group) in families] if families else []
    new_infos = _new_nodes(snap, specs)
    replaced = [_uncordoned(snap.nodes[name]) for name in uncordons if name in snap.nodes]
    tags = {spec.names[0]: "new:" + _gid(spec) for spec in specs}
    tags.update({name: "uncordon:" + name for name in uncordons})

    # the world of the running pods kept
    plan_s = plan_workload(snap, ref, n)
    cluster_s = cluster_after_plans(snap, [plan_s])
    if preemption_possible(snap, [plan_s], cluster_s):
        raise Preempting
    cluster_s = cluster_s.with_nodes(new_infos, replaced)
    prob_s, pctx_s = build_problem(cluster_s, [plan_s], relax_order=True, tags=tags, memo=memo)
    classes: dict[str, dict[str, int]] = {STAY: _sized(prob_s, pctx_s.node_class, specs, limit)}
    stay = World(STAY, view(prob_s, [g.index for g in prob_s.groups]))
    stay.gated = {pctx_s.node_class[name]: oid for name, oid in uncordons.items() if name in pctx_s.node_class}
    for oid, claim in unpins.items():
        stay.unpins[oid] = [(g, pl) for g in _claim_groups(stay.problem, pctx_s.pods, claim) for pl in ("VolumeBinding", "VolumeZone")]
    worlds = [stay]

    # the world of every pod recreated from a changed template
    kept: list[tuple[str, PodPlan]] = []
    if templates:
        base_snap = rolled(snap, ref)
        plan_r = plan_workload(base_snap, ref, n)
        for oid, a in templates:
            try:
                trial, _ = apply_plan(snap, goal, a.patches)
                variant = plan_workload(rolled(trial, ref), ref, n)
            except (PatchError, InputError, UsageError) as e:
                reason = "; ".join(getattr(e, "messages", None) or [str(e)])
                rejected.append({"actions": [a.label()], "reason": f"patch: {reason}"})
                options = [o for o in options if o.id != oid]
                continue
            if len(variant.new) != len(plan_r.new):
                leftover.append(a)
                options = [o for o in options if o.id != oid]
                continue
            kept.append((oid, _renamed(variant, oid)))
    if kept:
        cluster_r = _rolled_cluster(snap, ref, plan_r).with_nodes(new_infos, replaced)
        plans = [plan_r] + [p for _, p in kept]
        union, pctx_r = build_problem(cluster_r, plans, relax_order=True, tags=tags, links={i: 0 for i in range(1, len(plans))}, memo=memo)
        classes[ROLL] = _sized(union, pctx_r.node_class, specs, limit)
        position = {p.key: (i, k) for i, plan in enumerate(plans) for k, p in enumerate(plan.new)}
        by_pos: dict[tuple[int, int], int] = {}
        for g in union.groups:
            for key in g.pods:
                by_pos[position[key]] = g.index
        base_groups = [g.index for g in union.groups if position[g.pods[0]][0] == 0]
        firsts = [position[union.groups[u].pods[0]][1] for u in base_groups]
        roll = World(ROLL, view(union, base_groups))
        for i, (oid, _) in enumerate(kept, 1):
            roll.variants.append(Variant(oid, view(union, [by_pos[(i, k)] for k in firsts])))
        roll.gated = {pctx_r.node_class[name]: oid for name, oid in uncordons.items() if name in pctx_r.node_class}
        for oid, claim in unpins.items():
            roll.unpins[oid] = [(g, pl) for g in _claim_groups(roll.problem, pctx_r.pods, claim) for pl in ("VolumeBinding", "VolumeZone")]
        worlds.append(roll)
    roll_ids = {oid for oid, _ in kept}
    options = [o for o in options if o.world != ROLL or o.id in roll_ids]
    node_groups = []
    groups: dict[str, GroupSpec] = {}
    for k, s in enumerate(specs):
        gid = _gid(s)
        per, once = _node_vectors(allow_destructive, len(cands) + k)
        node_groups.append(NodeGroupOption(gid, per, once, limit, {w: classes[w][gid] for w in classes}))
        groups[gid] = s
    ap = ActionProblem(worlds, options, node_groups, cost_fields(allow_destructive))
    contexts = {STAY: pctx_s, **({ROLL: pctx_r} if kept else {})}
    return _Space(build_actions(ap), {o.id: actions[o.id] for o in options}, groups, leftover, rejected, contexts)


def materialize(space: _Space, ctx: Context, chosen: dict[str, int]) -> list[Action]:
    """The actions of a solution, in the order of the candidates (node groups last)."""
    out = [space.actions[oid] for oid in space.actions if chosen.get(oid)]
    made = [scale_node_group_action(ctx, spec, chosen[gid]) for gid, spec in space.groups.items() if chosen.get(gid)]
    annotate_helm(ctx.snap, made)
    return out + made


def _summed(actions: list[Action]) -> Cost:
    return sum((a.cost for a in actions), Cost())


def choose(
    search: Any,
    ctx: Context,
    cands: list[Action],
    allow_destructive: bool,
    top: int,
    progress: Progress | None = None,
) -> Chosen:
    """The plans of a replica goal: the model's optima, verified, cheapest first."""
    out = Chosen()
    t0 = time.monotonic()
    if progress:
        progress("building the model of the candidate actions", 0, top)
    try:
        space = build_space(search.snap, ctx, cands, allow_destructive, memo=search.memo)
    except Preempting:
        out.notes.append(
            "the pods may preempt lower-priority pods, which the model of the candidate actions does not weigh: "
            "the candidates were verified one by one and in pairs, with preemption"
        )
        out.leftover = [a for a in cands if a.type != "scale-to"]
        out.fallback = True
        return out
    out.leftover = space.leftover
    out.rejected.extend(space.rejected)
    am = space.am
    opts = SolveOptions(time_limit=search.opts.time_limit, seed=search.opts.seed, workers=search.opts.workers)
    stats: dict[str, Any] = {
        "options": len(am.lits),
        "node_groups": len(am.counts),
        "worlds": len(am.problem.worlds),
        "build_seconds": round(time.monotonic() - t0, 3),
        "solves": 0,
        "solve_seconds": 0.0,
        "proposed": 0,
        "rejected": 0,
        "_found": [],
        "_repaired": [],
    }
    proposed: set[tuple] = set()
    # every plan cheaper than this was proposed (None: not known): see the proofs below
    proven_below: float | None = 0
    while len(out.plans) < top and stats["rejected"] < MAX_REJECTED and not search.exhausted:
        if search.ahead is not None and stats["_found"]:
            # the child may be solving this very optimum (its chain: _agenda), which this process
            # would wait for: meanwhile, the explanations the search will most likely ask for
            # (as before the last verification, below: the same answers whoever computes them)
            search.while_waiting(
                ("solve", digest(repr(space.history))),
                (
                    (("explain", oid), lambda oid=oid: _core_explanation(space, oid, opts))
                    for oid in _likely_explained(search, space, list(stats["_found"]), _used(out), proven_below, opts)
                ),
                last=lambda answer: answer[1],
                rest=lambda: [("explain", oid) for oid in space.actions],
            )
        t = time.monotonic()
        if not stats["solves"] and top > 1 and len(am.problem.worlds) > 1 and search.may_start_ahead():
            res, solved_ahead = _solve_first(search, space, ctx, opts, out, proposed, top), False
        else:
            res, solved_ahead = _solve(search, space, opts)
        stats["solves"] += 1
        stats["solve_seconds"] += time.monotonic() - t
        if res.status == "infeasible":
            proven_below = float("inf") if proven_below is not None else None
            break
        if res.status not in ("optimal", "feasible"):
            out.notes.append(f"the model of the candidate actions gave no answer ({res.reason}): the plans found so far are printed")
            proven_below = None
            break
        if proven_below is not None:
            proven_below = res.objective if res.status == "optimal" else None
        chosen = res.chosen
        if not chosen:
            # the model places the pods with no change while check does not: check's order (an
            # OrderedReady set's ordinals) is what fails, which the model relaxes; it cannot tell
            # the candidates apart, so they are tried one by one and in pairs, as for transitions
            out.notes.append("the goal fails only in the order the pods are created in, which the action model does not see: the candidates were tried one by one")
            out.leftover = [a for a in cands if a.type != "scale-to"]
            out.fallback = True
            break
        key = tuple(sorted(chosen.items()))
        if key in proposed:  # cannot happen once blocked; a guard against a loop
            break
        proposed.add(key)
        actions = materialize(space, ctx, chosen)
        stats["proposed"] += 1
        if progress:
            progress(f"verifying plans: {' + '.join(a.type for a in actions)}", len(out.plans), top)
        if len(out.plans) + 1 < top and not search.ahead_started:
            # while this plan is verified, a forked child solves for the next ones (as if it were
            # verified) and verifies them (planner.engines.remediation.ahead)
            space.chain_base = len(space.history)
            search.start_ahead(lambda worker: _agenda(worker, search, space, ctx, opts, dict(chosen), len(out.plans), top, set(proposed), _used(out, actions), proven_below))  # noqa: B023
        if len(out.plans) + 1 >= top and search.ahead is not None:
            # the last plan wanted, which the child may be verifying: while this process would
            # wait for it, the explanations that come next, in the order they are asked for, up
            # to one whose core search runs out (ExplainBudget asks for none after it); their
            # answers, as the child's, are those computed alone
            search.while_waiting(
                search.verify_key(actions),
                (
                    (("explain", oid), lambda oid=oid: _core_explanation(space, oid, opts))
                    for oid in _likely_explained(search, space, [*stats["_found"], chosen], _used(out, actions), proven_below, opts)
                ),
                last=lambda answer: answer[1],
                rest=lambda: [("explain", oid) for oid in space.actions],
            )
        v = search.verify(actions, checked_ahead=solved_ahead)
        if v.ok:
            out.plans.append(Plan(actions, _summed(actions), _verified(v)))
            _block(space, chosen, exact=False)
            stats["_found"].append(dict(chosen))
            continue
        stats["rejected"] += 1
        out.rejected.append({"actions": [a.label() for a in actions], "reason": v.reason})
        _block(space, chosen, exact=True)
        if v.detail.get("check") is True:
            # check places the pods but the replay does not reach them: the way there (a rollout's
            # course, the order pods are created in) is what the options the model cannot weigh
            # change; each family of them is tried with this plan, cheapest variant first, as the
            # enumeration tries pairs (the first variant that works ends its family)
            _repair(search, space, ctx, am, chosen, out, stats, top)
    # the candidates the model proves cannot reach the goal alone.  The optima come cheapest
    # first, so an option (a node group with any count) whose cost alone is below the last
    # optimum and that was never proposed has no placement alone (or only one that contains a
    # plan found): proven without another solve; a costlier one takes a solve of its own
    if out.fallback:
        proven_below = None
    found_families = [{space.actions[k].family if k in space.actions else k for k in f} for f in stats["_found"]]
    used = _used(out)
    proofs = 0
    budget = ExplainBudget()
    for oid, a in space.actions.items():
        if out.fallback or a.label() in used or search.exhausted or any(f <= {a.family} for f in found_families):
            continue
        if proven_below is None or _objective_of(am, {oid: 1}) >= proven_below:
            proofs += 1
            if _alone(search, space, oid, opts) != "infeasible":
                continue
        out.rejected.append({"actions": [a.label()], "reason": _explain(space, oid, opts, ctx.failure.text, budget, search) or _proof_reason(ctx, a)})
    for ng in am.problem.node_groups:
        spec = space.groups[ng.id]
        if search.exhausted or any(f <= {ng.id} for f in found_families) or proven_below is None:
            continue
        if _objective_of(am, {ng.id: ng.limit}) < proven_below:
            a = scale_node_group_action(ctx, spec, min(ng.limit, MAX_ADDED_PER_ZONE))
            if a.label() not in used:
                out.rejected.append({"actions": [a.label()], "reason": _proof_reason(ctx, a, nodes=ng.limit)})
    stats["proofs"] = proofs
    stats["solve_seconds"] = round(stats["solve_seconds"], 3)
    stats["seconds"] = round(time.monotonic() - t0, 3)
    del stats["_found"], stats["_repaired"]
    out.stats = stats
    return out


def _used(out: Chosen, verifying: Sequence[Action] = ()) -> set[str]:
    """The labels the proofs leave out: the plans' actions (and those of the plan ``verifying``,
    as if it were verified) and the candidates rejected alone."""
    used = {a.label() for p in out.plans for a in p.actions} | {x["actions"][0] for x in out.rejected if len(x["actions"]) == 1}
    return used | {a.label() for a in verifying}


def _frozen(chosen: dict[str, int]) -> tuple:
    return tuple(sorted(chosen.items()))


def _block(space: _Space, chosen: dict[str, int], exact: bool) -> None:
    """The model told that the plan ``chosen`` was rejected (``exact``: it alone) or verified
    (it and every plan that contains it), and the call recorded (_Space.history)."""
    if exact:
        space.am.block_exact(chosen)
    else:
        space.am.block_supersets(chosen)
    space.history.append(("exact" if exact else "sup", _frozen(chosen)))


def _solve(search: Any, space: _Space, opts: SolveOptions) -> tuple[Any, bool]:
    """The model's next optimum: the child's solve of the model as it is now when it did it
    (the same calls since it was built: then its answers stand for the solver's), else solved
    here; and whether it was the child's (a plan of its chain, which it checks: _agenda)."""
    ahead = search.ahead
    if ahead is not None and space.chain_trusted:
        # the child's chain of solves follows "sup" calls alone: wait for it only while the
        # model's calls could be those
        chain = space.chain_base >= 0 and all(kind == "sup" for kind, _ in space.history[space.chain_base :])
        found, runs = ahead.lookup(("solve", digest(repr(space.history))), "chain" if chain else None)
        if found:
            return solve_actions(space.am, opts, recorded=runs), True
    return solve_actions(space.am, opts), False


def _solve_first(search: Any, space: _Space, ctx: Context, opts: SolveOptions, out: Chosen, proposed: set, top: int) -> Any:
    """The model's first optimum when a child will work ahead (choose): the world of the pods kept
    is solved first, and the child is forked on its plan at once, as if no template change made a
    cheaper one (the proofs of the other worlds, made here meanwhile, almost always say so: the
    child takes the model as they leave it then, solve_actions' ``recorded``), rather than after
    those proofs.  When a template change is cheaper after all, this process's plans differ from
    the child's guess: the child's solves, keyed by the plans blocked, are never taken (and not
    waited for), its verifications are of real plans.  The answer is solve_actions' own."""
    first = solve_actions(space.am, opts, worlds=1)
    chosen = dict(first.chosen)
    guessed = first.status == "optimal" and bool(chosen)
    if guessed:
        actions = materialize(space, ctx, chosen)
        guess = [*first.runs, *(ActionResult(status="infeasible", reason="guessed") for _ in space.am.problem.worlds[1:])]
        seen = set(proposed) | {tuple(sorted(chosen.items()))}
        used = _used(out, actions)

        def agenda(worker: Any) -> None:
            solve_actions(space.am, opts, recorded=guess)  # the model as the proofs leave it
            _agenda(worker, search, space, ctx, opts, chosen, len(out.plans), top, seen, used, first.objective)

        space.chain_base = len(space.history)
        search.start_ahead(agenda)
    res = solve_actions(space.am, opts, recorded=first.runs, resume=True)
    if guessed and (res.status != "optimal" or res.chosen != chosen or any(r.status != "infeasible" for r in res.runs[1:])):
        # the proofs did not say what the child took them to (a cheaper template change, or a
        # solve out of time): its model differs from this one, so none of its solves is taken
        # (its checks and replays, which depend on the plans alone, still are)
        space.chain_base = -1
        space.chain_trusted = False
    return res


def _agenda(
    worker: Any, search: Any, space: _Space, ctx: Context, opts: SolveOptions, chosen: dict[str, int], found: int, top: int,
    proposed: set, used: set[str], bound: float | None,
) -> None:
    """The child's work (planner.engines.remediation.ahead), while this process verifies the plan
    ``chosen``: the model's next optima as if each plan before were verified (as the loop of
    ``choose`` asks for them, up to ``top`` plans), then their verifications, the last first (this
    process verifies from the first), what the search does after the model
    (Search.after_choose), then the explanations of the candidates it will most likely prove
    useless alone (_likely_explained, in order, up to one whose core search runs out)."""
    chain: list[dict[str, int]] = []
    first = dict(chosen)
    while found + 1 < top:
        _block(space, chosen, exact=False)
        res = worker.through(("solve", digest(repr(space.history))), lambda: solve_actions(space.am, opts), send=lambda r: r.runs)
        if res.status not in ("optimal", "feasible") or not res.chosen or _frozen(res.chosen) in proposed:
            break
        proposed.add(_frozen(res.chosen))
        chosen = res.chosen
        chain.append(dict(chosen))
        found += 1
        bound = res.objective if bound is not None and res.status == "optimal" else None
    worker.mark("chain")
    # the chain's checks first (this process, verifying the plans from the first, then finds each
    # plan's check done and replays it), then the verifications, the last first
    for c in chain:
        search.check_ahead(materialize(space, ctx, c))
    for c in reversed(chain):
        search.verify(materialize(space, ctx, c))
    if search.after_choose is not None:
        search.after_choose()
    # the explanations of the candidates proven useless alone (choose, after the model's plans), in
    # the order this process asks for them (it takes those the child has not begun), up to one whose
    # core search runs out: ExplainBudget asks for none after it
    used = used | {a.label() for c in chain for a in materialize(space, ctx, c)}
    for oid in list(_likely_explained(search, space, [first, *chain], used, bound, opts)):  # their proofs' solves first
        answer = search.through(("explain", oid), lambda: _core_explanation(space, oid, opts))  # noqa: B023
        if answer is not None and answer[1]:
            break


def _alone(search: Any, space: _Space, oid: str, opts: SolveOptions) -> str:
    """The status of the model's solve with the option ``oid`` alone (every other option off, no
    new node): the proof that it cannot reach the goal alone ("infeasible").  Asked by the proofs
    and by the guesses of what they will explain (_likely_explained, here and in the child working
    ahead), so under a key of its own and remembered.

    The answer does not depend on the plans blocked since the model was built, for any option
    the proofs reach: a verified plan's block holds unless every option of that plan is of the
    option's family (the proofs skip such a family), and a rejected plan's block excludes that
    plan alone, which is the option alone only when it was rejected alone (the proofs skip its
    label).  So an answer computed earlier stands for the one the proofs would compute."""
    hit = space.alone.get(oid)
    if hit is None:
        hit = space.alone[oid] = search.through(("alone", oid), lambda: solve_actions(space.am, opts, space.am.only({oid: 1})).status)
    return hit


def _objective_of(am: ActionModel, chosen: dict[str, int]) -> int:
    return sum(w * c for w, c in zip(am.weights, cost_of(am, chosen)))


def _verified(v: Any) -> dict[str, Any]:
    return {k: v.detail[k] for k in ("check", "replay") if k in v.detail}


def _contains(space: _Space, big: dict[str, int], small: dict[str, int]) -> bool:
    """Is the plan ``small`` part of ``big`` (an option of the same family as each of its options,
    new nodes in its node groups)?"""
    fams = {space.actions[k].family if k in space.actions else k for k in big}
    return all((space.actions[k].family if k in space.actions else k) in fams for k in small)


def _repair(search: Any, space: _Space, ctx: Context, am: ActionModel, chosen: dict[str, int], out: Chosen, stats: dict[str, Any], top: int) -> None:
    """``chosen`` with each family of the options the model cannot weigh (FREE_TYPES), cheapest
    variant first.  Not for a plan that contains one repaired already (its repairs contain that
    one's), nor into a plan that contains one found."""
    if any(_contains(space, chosen, r) for r in stats["_repaired"]) or any(_contains(space, chosen, f) for f in stats["_found"]):
        return
    stats["_repaired"].append(dict(chosen))
    taken = {space.actions[oid].conflict for oid in chosen if oid in space.actions}
    families: dict[str, list[str]] = {}
    for oid, a in space.actions.items():
        if a.type in FREE_TYPES and oid not in chosen and a.conflict not in taken:
            families.setdefault(a.family, []).append(oid)
    order = sorted(families, key=lambda f: min(space.actions[o].cost.key() for o in families[f]))
    for fam in order:
        for oid in sorted(families[fam], key=lambda o: space.actions[o].cost.key()):
            if len(out.plans) >= top or search.exhausted or stats["rejected"] >= MAX_REJECTED:
                return
            more = {**chosen, oid: 1}
            if any(_contains(space, more, f) for f in stats["_found"]):
                continue
            actions = materialize(space, ctx, more)
            v = search.verify(actions)
            stats["proposed"] += 1
            if v.ok:
                out.plans.append(Plan(actions, _summed(actions), _verified(v)))
                _block(space, more, exact=False)
                stats["_found"].append(more)
                break
            stats["rejected"] += 1
            out.rejected.append({"actions": [a.label() for a in actions], "reason": v.reason})
            _block(space, more, exact=True)


EXPLAIN_DTIME = 0.1  # deterministic seconds for the search of one rejected candidate's explanation (models.solve.QUICK_CORE_DTIME)


@dataclass
class ExplainBudget:
    """What the explanations of the candidates the model proves useless alone may still spend
    (each one builds the variant's check model, searches a small core and explains it: a few
    tenths of a second on hundreds of nodes).  Check explains one variant of each family (a
    ladder's first: requests at 75% and not again at 50%), and none once one search for a small
    core runs out of its deterministic time (EXPLAIN_DTIME: models of hundreds of pods on hundreds
    of classes); the others are given the model's proof (_proof_reason), which is as true.
    Deterministic: the same candidates are explained on every run."""

    quick: bool = True
    families: set[str] = field(default_factory=set)  # the families a variant of which was explained


def _explain(
    space: _Space, oid: str, opts: SolveOptions, failure: str = "", budget: ExplainBudget | None = None, search: Any = None
) -> str | None:
    """check's explanation of why the goal still fails with the option alone: for a template
    change, from its variant's problem (every pod recreated from the changed template), built
    alone and explained in check's own words (planner.engines.check.explain_core) on a small core
    (models.solve.quick_core: cheap, not minimised, within ``budget``: ExplainBudget); for an
    option that changes nothing check sees (a rollout strategy, the pod management policy), the
    goal's own failure (``failure``).  None: no explanation (the caller gives the model's proof).
    ``search``: its ``through`` takes the child's answer when the child working ahead has it
    (_core_explanation depends on the option and the model as built alone)."""
    a = space.actions[oid]
    if a.rolls_template and ROLL in {w.name for w in space.am.problem.worlds}:
        if _variant_problem(space, oid) is None:
            return None
    elif a.type in FREE_TYPES:
        # no change check sees: the goal's own failure, as check explained it
        return f"check: still unschedulable: {failure}" if failure else None
    else:
        return None
    if budget is not None:
        if not budget.quick or a.family in budget.families:
            return None
        budget.families.add(a.family)
    compute = lambda: _core_explanation(space, oid, opts)  # noqa: E731
    why, ran_out = search.through(("explain", oid), compute) if search is not None else compute()
    if ran_out and budget is not None:
        budget.quick = False
        if search is not None:  # no explanation is asked for after this one
            search.forgo(("explain", o) for o in space.actions if o != oid)
    return why


def _variant_problem(space: _Space, oid: str) -> Any:
    """The problem of the template change ``oid`` alone, its pods under their own names (they were
    renamed to share the world's problem); None when the world holds no variant of it."""
    w = next(w for w in space.am.problem.worlds if w.name == ROLL)
    variant = next((v.problem for v in w.variants if v.option == oid), None)
    if variant is None:
        return None
    return replace(variant, groups=[replace(g, pods=b.pods) for g, b in zip(variant.groups, w.problem.groups)])


def _core_explanation(space: _Space, oid: str, opts: SolveOptions) -> tuple[str | None, bool]:
    """_explain's work for a template change: (the explanation, or None; whether the search for a
    small core ran out of its deterministic time, EXPLAIN_DTIME).  The same on every call."""
    from models import build
    from models.solve import quick_core
    from planner.engines.capacity import reason_of
    from planner.engines.check import CheckOutcome, explain_core

    w = next(w for w in space.am.problem.worlds if w.name == ROLL)
    problem = _variant_problem(space, oid)
    # the problem as it is without any option: the nodes options add or uncordon left out
    drop = set(w.gated) | {ng.classes[w.name] for ng in space.am.problem.node_groups if w.name in ng.classes}
    built = build(without_classes(problem, drop))
    core = quick_core(built, replace(opts, workers=1), EXPLAIN_DTIME)
    if not core:
        return None, True
    why = reason_of(CheckOutcome(False, explanation=explain_core(built, core, space.contexts[w.name], opts)))
    return f"check: still unschedulable: {why}", False


def _likely_explained(
    search: Any, space: _Space, found: list[dict[str, int]], used: set[str], bound: float | None, opts: SolveOptions
) -> Iterator[str]:
    """The template changes whose explanation the search will most likely ask for after the model's
    plans, in the order it asks (choose's proofs, then _explain): as if the plans ``found`` were
    all the plans, ``used`` the labels of their actions and of the candidates rejected alone, and
    ``bound`` the last optimum (None: not proven).  A candidate is explained when no plan found
    lies within its family, its label is not used, the model proves it useless alone (below the
    bound, or by its solve alone: _alone, whose answers the proofs take) and it is the first of its
    family so explained (ExplainBudget).  Lazy: each solve runs when the next one is asked for."""
    if ROLL not in {w.name for w in space.am.problem.worlds}:
        return
    am = space.am
    families = [{space.actions[k].family if k in space.actions else k for k in f} for f in found]
    explained: set[str] = set()
    for oid, a in space.actions.items():
        if not a.rolls_template or a.family in explained or a.label() in used or any(f <= {a.family} for f in families):
            continue
        if _variant_problem(space, oid) is None:
            continue
        if (bound is None or _objective_of(am, {oid: 1}) >= bound) and _alone(search, space, oid, opts) != "infeasible":
            continue
        explained.add(a.family)
        yield oid


def _proof_reason(ctx: Context, a: Action, nodes: int = 0) -> str:
    n = ctx.goal.replicas
    what = f"up to {nodes} new node(s) of this group" if nodes else "this change"
    return (
        f"model: no placement of the {n} replicas exists with {what} alone (the check model with its effect: "
        f"{'every pod recreated from the changed template, ' if a.rolls_template else ''}the other constraints unchanged)"
    )


__all__ = ["Chosen", "build_space", "choose", "cost_fields", "materialize"]
