"""`planner check`: can these workloads reach N replicas?  A verified witness or a minimal why-not.

The verdict comes from the CP-SAT model (models/); a "schedulable" answer is only printed with a
witness that has been replayed pod by pod through every filter plugin (planner/plugins) in the
order given, so the two implementations check each other on every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import models
from models.placement import Built, Guard
from models.problem import Exclusion, Group, Problem, Spread
from models.solve import SolveOptions, minimise_core, solve
from planner.errors import UnknownResult
from planner.framework import ClusterState
from planner.services.binding import bind_pod, fits_node
from planner.services.problem import Context, build_problem
from planner.services.workloads import Plan, WorkloadRef, apply_plans, plan_workload
from planner.snapshot import Snapshot

MAX_WITNESS_RETRIES = 5


@dataclass
class CheckOutcome:
    schedulable: bool
    placement: dict[str, str] = field(default_factory=dict)  # pod -> node, in placement order
    explanation: list[dict] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    problem: Problem | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def check_replicas(snap: Snapshot, refs: list[WorkloadRef], replicas: int | None, opts: SolveOptions | None = None) -> CheckOutcome:
    opts = opts or SolveOptions()
    plans = [plan_workload(snap, ref, replicas) for ref in refs]
    notes = [n for p in plans for n in p.notes]
    snap2 = apply_plans(snap, plans)
    cluster = ClusterState.from_snapshot(snap2)
    if not any(p.new for p in plans):
        return CheckOutcome(True, {}, [], plans, None, {"pods_to_place": 0}, notes)
    problem, ctx = build_problem(cluster, plans)
    notes += problem.notes
    built = models.build(problem)
    stats = {
        "pods_to_place": sum(g.count for g in problem.groups),
        "groups": len(problem.groups),
        "node_classes": len(problem.classes),
        "nodes": len(cluster.node_infos),
        "ordered": problem.ordered,
    }
    for attempt in range(MAX_WITNESS_RETRIES + 1):
        res = solve(built, opts)
        stats["solve_seconds"] = round(stats.get("solve_seconds", 0) + res.wall_time, 4)
        if res.status == "unknown":
            raise UnknownResult(f"unknown: {res.reason}; no answer is given (raise --time-limit)")
        if res.status == "infeasible":
            if attempt > 0:
                raise UnknownResult(
                    "unknown: the model's final placements all failed to be ordered pod by pod through the filters; "
                    "planner gives no answer rather than a wrong one"
                )
            core = minimise_core(built, res.core, opts)
            return CheckOutcome(False, {}, explain_core(built, core, ctx, opts), plans, problem, stats, notes)
        placement = order_witness(problem, ctx, res.x, snap2)
        if placement is not None:
            stats["witness_attempts"] = attempt + 1
            return CheckOutcome(True, placement, [], plans, problem, stats, notes)
        _forbid(built, res.x)
    raise UnknownResult("unknown: no verified order found for the model's placements")


def _forbid(built: Built, x: dict[tuple[int, int], int]) -> None:
    m = built.model
    diffs = []
    for k, v in x.items():
        d = m.NewBoolVar(f"nogood{len(built.aux)}_{k}")
        m.Add(built.x[k] != v).OnlyEnforceIf(d)
        diffs.append(d)
    built.aux[("nogood", len(built.aux))] = None
    m.AddBoolOr(diffs)


# --------------------------------------------------------------------------- witness


def order_witness(problem: Problem, ctx: Context, x: dict[tuple[int, int], int], snap: Snapshot) -> dict[str, str] | None:
    """Place every pod through all filters, following the model's class quotas; None if stuck.

    Lowest domain first (the order that the spread argument in models/podtopologyspread.py
    proves sufficient), pods of an OrderedReady workload strictly in creation order.
    """
    cluster = ClusterState.from_snapshot(snap)
    quota = {k: v for k, v in x.items() if v > 0}
    queues = [list(pods) for pods in ctx.group_pods]
    heads: dict[str, int] = {}
    for seq in ctx.ordered_plans:
        for i, k in enumerate(seq):
            heads[k] = i
    done_in_plan: dict[int, int] = {}
    placed_count: dict[str, int] = {}  # node -> new pods placed there
    tally: dict[tuple[int, str], int] = {}  # (spread, domain) -> new matching pods placed
    placement: dict[str, str] = {}
    total = sum(len(q) for q in queues)
    spreads_of: dict[int, list[Spread]] = {}
    for s in problem.spreads:
        for g in s.carriers:
            spreads_of.setdefault(g, []).append(s)
    while len(placement) < total:
        cands = []
        for g, q in enumerate(queues):
            if not q:
                continue
            pod = q[0]
            plan_i = ctx.plan_of[pod.key]
            if pod.key in heads and heads[pod.key] != done_in_plan.get(plan_i, 0):
                continue
            for (gg, c), n in quota.items():
                if gg != g or n <= 0:
                    continue
                cands.append((_priority(problem, spreads_of.get(g, []), c, tally), g, c))
        cands.sort()
        progressed = False
        tries = 0
        for _, g, c in cands:
            pod = queues[g][0]
            nodes = sorted(problem.classes[c].nodes, key=lambda n: placed_count.get(n, 0))
            for node in nodes:
                tries += 1
                if fits_node(pod, cluster, node):
                    continue
                bind_pod(cluster, pod, node)
                placement[pod.key] = node
                placed_count[node] = placed_count.get(node, 0) + 1
                quota[(g, c)] -= 1
                queues[g].pop(0)
                if pod.key in heads:
                    pi = ctx.plan_of[pod.key]
                    done_in_plan[pi] = done_in_plan.get(pi, 0) + 1
                for s in problem.spreads:
                    if g in s.matchers:
                        d = node if s.per_node else problem.classes[c].domains.get(s.topology_key, "")
                        tally[(s.index, d)] = tally.get((s.index, d), 0) + 1
                progressed = True
                break
            if progressed or tries > 400:
                break
        if not progressed:
            return None
    return placement


def _priority(problem: Problem, spreads: list[Spread], c: int, tally: dict[tuple[int, str], int]) -> tuple:
    total = 0
    cls = problem.classes[c]
    for s in spreads:
        if s.per_node:
            total += s.existing_per_node.get(c, 0)
        else:
            d = cls.domains.get(s.topology_key, "")
            total += s.existing.get(d, 0) + tally.get((s.index, d), 0)
    return (total, c)


# --------------------------------------------------------------------------- explanations


def _zones_of(problem: Problem, classes: list[int]) -> str:
    zones = sorted({problem.classes[c].zone or problem.classes[c].label for c in classes})
    return ", ".join(zones) if zones else "no node"


def explain_core(built: Built, core: list[Guard], ctx: Context, opts: SolveOptions) -> list[dict]:
    p = built.problem
    out: list[dict] = []
    for g in core:
        if g.kind == "place":
            grp: Group = g.ref
            out.append(
                {
                    "constraint": "replicas",
                    "objects": [f"Pod {k}" for k in grp.pods],
                    "message": f"{_pods_phrase(grp)} of {grp.workload} must be placed",
                }
            )
    for g in core:
        if g.kind == "static":
            e: Exclusion = g.ref
            grp = p.groups[g.group] if g.group is not None else None
            allowed = [c.index for c in p.classes if c.index not in e.classes]
            who = _pods_phrase(grp) if grp else "the pods"
            if e.detail and allowed:
                msg = f"{who} must run in {_zones_of(p, allowed)} ({e.detail})"
            elif e.detail:
                msg = f"{who} fits no node: {e.reason} ({e.detail})"
            elif not allowed:
                msg = f"{who}: {e.plugin} rejects every node ({e.reason})"
            else:
                msg = f"{who}: {e.plugin} rejects {_places(p, e.classes)} ({e.reason})"
            objects = e.objects or ([f"Pod {k}" for k in grp.pods] if grp else [])
            out.append({"constraint": e.plugin, "objects": objects, "message": msg})
    for g in core:
        if g.kind == "capacity":
            zone = g.ref or "nodes without a zone"
            cls = [c for c in p.classes if c.zone == g.ref]
            room = []
            for grp in p.groups:
                n = sum(c.size * c.cap[grp.index] for c in cls)
                room.append(f"{n} more pod(s) like {grp.pods[0]}")
            out.append(
                {
                    "constraint": "NodeResourcesFit",
                    "objects": [f"Node {n}" for c in cls for n in c.nodes][:20],
                    "message": f"{zone} has room for only " + "; ".join(room) + " (cpu, memory, pods)",
                }
            )
    others = [g for g in core if g.kind in ("spread", "anti", "affinity")]
    for g in others:
        counter = solve(built, opts, enabled=[x for x in core if x is not g])
        if g.kind == "spread":
            out.append(_spread_message(built, g.ref, counter.x if counter.status == "feasible" else None))
        elif g.kind == "anti":
            a = g.ref
            doms = "node" if a.per_node else a.topology_key
            ga, gb = p.groups[a.a], p.groups[a.b]
            if a.a == a.b:
                msg = f"required anti-affinity ({a.topology_key}): at most one pod of {ga.workload} per {doms}"
            else:
                msg = f"required anti-affinity ({a.topology_key}): {ga.name} and {gb.name} may not share a {doms}"
            out.append({"constraint": "InterPodAffinity", "objects": [a.source], "message": msg})
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


def _pods_phrase(grp: Group | None) -> str:
    if grp is None:
        return "the pods"
    if grp.count == 1:
        return grp.pods[0].split("/", 1)[1]
    return f"{grp.count} pods ({', '.join(k.split('/', 1)[1] for k in grp.pods[:3])}{', ...' if grp.count > 3 else ''})"


def _spread_message(built: Built, s: Spread, x: dict[tuple[int, int], int] | None) -> dict:
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
                counts[n] = e + t // c.size + (1 if i < t % c.size else 0)
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
