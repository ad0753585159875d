"""`planner capacity`: which replica counts work, surviving a zone loss, nodes to add."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from models.solve import SolveOptions
from planner.controllers.daemon import daemon_pods_for_node, is_host_network
from planner.controllers.nodegroups import NodeGroup, node_groups
from planner.domain import Pod, PodSpec, StatefulSet
from planner.engines.check import CheckOutcome, check_by_known_order, check_replicas
from planner.engines.workloads import WorkloadRef, find_workload, owned_by, room_bound
from planner.errors import UsageError
from planner.matching import find_untolerated_taint, pod_matches_node_selector_and_affinity
from planner.snapshot import Snapshot

MAX_ADDED_NODES = 12


def parse_range(text: str) -> tuple[int, int]:
    try:
        a, _, b = text.partition("..")
        lo, hi = int(a), int(b)
    except ValueError:
        raise UsageError(f"--range {text!r}: expected A..B with integers, e.g. 2..6") from None
    if lo < 0 or hi < lo:
        raise UsageError(f"--range {text!r}: need 0 <= A <= B")
    return lo, hi


MAX_COUNTS = 501  # counts checked one by one; those past the cluster's bound are answered together


def default_range(snap: Snapshot, ref: WorkloadRef) -> tuple[tuple[int, int], str]:
    obj = find_workload(snap, ref)
    hpa = snap.hpa_for(ref.kind, ref.namespace, ref.name)
    if hpa is not None:
        return (hpa.min_replicas, hpa.max_replicas), f"HorizontalPodAutoscaler {hpa.key}"
    return (1, max(1, 2 * obj.replicas)), "1..2 x spec.replicas"


def reason_of(out: CheckOutcome) -> str:
    if out.schedulable:
        return ""
    # the most specific line: the last explanation (the violated rule with its numbers)
    msgs = [e["message"] for e in out.explanation if e["constraint"] != "replicas"]
    return "; ".join(msgs) if msgs else "unschedulable"


def _asked(source: str, rng: tuple[int, int], ref: WorkloadRef) -> str:
    """Where the range comes from, as an error names it: the option, the HPA's fields, or the
    workload's spec.replicas."""
    span = f"{rng[0]}..{rng[1]}"
    if source == "--range":
        return f"--range {span}"
    if source.startswith("HorizontalPodAutoscaler"):
        return f"{source}: spec.minReplicas..spec.maxReplicas {span}"
    return f"{ref.kind} {ref.key}: spec.replicas ({source}: {span})"


def capacity(
    snap: Snapshot,
    ref: WorkloadRef,
    rng: tuple[int, int] | None,
    zone_failure: bool,
    add_nodes: bool,
    opts: SolveOptions,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    obj = find_workload(snap, ref)
    source = "--range"
    if rng is None:
        rng, source = default_range(snap, ref)
    # Counts past the cluster's bound (RoomBound, computed once, at the range's low end, where a
    # StatefulSet frees the most room) are NO by arithmetic: one closed-form answer, no check.
    # Unlike check (BOUND_SLACK), no margin: walking them would cost a full unschedulable check
    # per count (bench/bound_margin.py: 100 counts past the bound, 19 s at 50 nodes and 128 s at
    # 500, against 0.7 s and 3.6 s collapsed) and tell nothing the bound does not.
    bound = room_bound(snap, ref, rng[0])
    top = min(rng[1], bound.max_replicas)
    asked = _asked(source, rng, ref)
    if top - rng[0] + 1 > MAX_COUNTS:  # whatever the range's source: an HPA's too
        raise UsageError(
            f"{asked}: {top - rng[0] + 1:,} counts up to the cluster's bound {bound.max_replicas:,} to check; "
            f"at most {MAX_COUNTS} counts at once (give --range A..B)"
        )
    past = {"min": max(rng[0], top + 1), "max": rng[1]} if rng[1] > top else None
    by_count: dict[int, dict[str, Any]] = {}
    # From the largest count down: a verified witness for n replicas is tried, in its own order,
    # for every smaller count (check_by_known_order re-verifies it through the filters); only
    # counts it does not settle get a full check.  Unschedulable answers always come from check.
    known: dict[str, str] | None = None
    known_plans: list | None = None
    total = top - rng[0] + 1
    for i, n in enumerate(range(top, rng[0] - 1, -1)):
        if progress:
            progress(f"checking {n} replicas ({i + 1}/{total})")
        out = check_by_known_order(snap, [ref], n, known, known_plans) if known else None
        if out is None:
            out = check_replicas(snap, [ref], n, opts, source=asked)
            if out.schedulable and out.placement:
                known, known_plans = out.placement, out.plans
        by_count[n] = {"replicas": n, "schedulable": out.schedulable, "reason": reason_of(out)}
    rows = [by_count[n] for n in range(rng[0], top + 1)]
    ok: list[int] = [r["replicas"] for r in rows if r["schedulable"]]
    first_fail: int | None = next((r["replicas"] for r in rows if not r["schedulable"]), past["min"] if past else None)
    non_monotonic = [r["replicas"] for r in rows if not r["schedulable"] and any(o > r["replicas"] for o in ok)]
    result: dict[str, Any] = {
        "workload": str(ref),
        "range": {"min": rng[0], "max": rng[1], "source": source},
        "max_replicas": max(ok) if ok else None,
        "replicas": rows,
        "non_monotonic": non_monotonic,
        # rows stop at the bound: every count from past.min to past.max is NO, for this reason
        "bound": {"max_replicas": bound.max_replicas, "message": bound.message(past["min"] if past else bound.max_replicas), "past": past},
    }
    if zone_failure:
        result["zone_failure"] = zone_failures(snap, ref, obj.replicas, opts)
    if add_nodes:
        result["add_nodes"] = nodes_to_add(snap, ref, first_fail, opts) if first_fail is not None else {
            "replicas": None,
            "message": "every count in the range is schedulable: no nodes needed",
        }
    return result


def _without_zone(snap: Snapshot, zone: str) -> tuple[Snapshot, list[str]]:
    out = snap.copy()
    gone = [n for n, node in snap.nodes.items() if node.zone == zone]
    for n in gone:
        del out.nodes[n]
    for k, p in list(out.pods.items()):
        if p.spec.node_name in gone:
            del out.pods[k]
    return out, gone


def zone_failures(snap: Snapshot, ref: WorkloadRef, replicas: int, opts: SolveOptions) -> list[dict]:
    owned = [p for p in snap.pods.values() if owned_by(snap, p, ref)]
    out = []
    for zone in snap.zones:
        reduced, gone = _without_zone(snap, zone)
        lost = []
        for p in owned:
            if p.spec.node_name in gone:
                vols = []
                for v in p.spec.volumes:
                    pvc = snap.pvcs.get(f"{p.namespace}/{v.claim_name}")
                    if pvc is not None:
                        pv = snap.pvs.get(pvc.volume_name) if pvc.volume_name else None
                        pinned = pv is not None and pv.node_affinity is not None
                        vols.append({"claim": pvc.key, "pv": pv.name if pv else None, "pinned": pinned})
                lost.append({"pod": p.key, "node": p.spec.node_name, "volumes": vols})
        res = check_replicas(reduced, [ref], replicas, opts)
        out.append(
            {
                "zone": zone,
                "nodes_lost": len(gone),
                "replicas": replicas,
                "schedulable": res.schedulable,
                "lost_pods": lost,
                "reason": reason_of(res),
            }
        )
    return out


def _group_usable(group: NodeGroup, spec: PodSpec) -> str | None:
    """Why the workload's pods could never use a new node of ``group`` (None: they could): the
    template's taints and labels against the pod template (TaintToleration, NodeAffinity), so
    that the search does not spend nodes on a tainted GPU pool or a pool the pods do not select."""
    node = group.new_node(f"{group.template.name}-added")
    taint = find_untolerated_taint(node.taints, spec.tolerations)
    if taint is not None:
        return f"untolerated taint {taint.key}={taint.value}:{taint.effect}"
    if not pod_matches_node_selector_and_affinity(spec, node):
        return "the pods' node affinity/selector does not match"
    return None


def _add_group_nodes(snap: Snapshot, group: NodeGroup, count: int) -> tuple[Snapshot, list[Pod]]:
    """``count`` new nodes of ``group`` (cluster-autoscaler's sanitised template) and the
    DaemonSet pods each would run, bound to it."""
    out = snap.copy()
    added: list[Pod] = []
    for i in range(count):
        name = f"{group.template.name}-added-{i}"
        node = out.nodes[name] = group.new_node(name)
        pods = daemon_pods_for_node(
            node, out.daemonsets.values(), out.pods.__contains__, lambda ds: is_host_network(out.raw.get(("DaemonSet", ds.key)))
        )
        for p in pods:
            out.pods[p.key] = p
        added.extend(pods)
    return out, added


def _requests_sum(pods: list[Pod]) -> dict[str, int]:
    total: dict[str, int] = {}
    for p in pods:
        for r, v in p.spec.requests.items():
            total[r] = total.get(r, 0) + v
    return total


def nodes_to_add(snap: Snapshot, ref: WorkloadRef, replicas: int, opts: SolveOptions) -> dict:
    """The fewest new nodes of the cluster's node groups that make ``replicas`` schedulable.

    The groups and their templates are cluster-autoscaler's (planner.controllers.nodegroups: a
    ready, uncordoned template node, its transient taints dropped); groups whose new nodes the
    workload's pods could not use (an untolerated taint, an unmatched node selector) are left
    out; each new node carries the DaemonSet pods that would run on it (planner.controllers.daemon),
    whose requests are taken from its room."""
    spec = find_workload(snap, ref).template.spec
    groups = node_groups(snap.nodes.values())
    usable: list[NodeGroup] = []
    skipped: list[dict[str, Any]] = []
    for g in groups:
        why = _group_usable(g, spec)
        if why is None:
            usable.append(g)
        else:
            skipped.append({"group": g.name, "label": g.label, "zone": g.zone, "reason": why})
    if not usable:
        return {
            "replicas": replicas,
            "found": False,
            "message": "no node group has nodes the workload's pods could use",
            "skipped_groups": skipped,
        }
    for total in range(1, MAX_ADDED_NODES + 1):
        for combo in _compositions(total, len(usable)):
            trial = snap
            daemon: dict[str, list[Pod]] = {}
            for g, k in zip(usable, combo):
                if k:
                    trial, pods = _add_group_nodes(trial, g, k)
                    daemon[g.name] = pods
            if check_replicas(trial, [ref], replicas, opts).schedulable:
                chosen = [(g, k) for g, k in zip(usable, combo) if k]
                per_zone: dict[str, int] = {}
                cloned_from: dict[str, str] = {}
                rows = []
                for g, k in chosen:
                    z = g.zone or ""
                    per_zone[z] = per_zone.get(z, 0) + k
                    cloned_from.setdefault(z, g.template.name)
                    pods = daemon[g.name]
                    per_node = [p for p in pods if p.spec.node_name == f"{g.template.name}-added-0"]
                    rows.append(
                        {
                            "group": g.name,
                            "label": g.label,
                            "zone": g.zone,
                            "count": k,
                            "template": g.template.name,
                            "template_fallback": g.fallback,
                            "daemonset_pods": sorted(f"{p.namespace}/{p.owner.name}" for p in per_node if p.owner),
                            "daemonset_requests": _requests_sum(per_node),
                        }
                    )
                message = "; ".join(f"add {k} node{'s' if k > 1 else ''} to {g.describe()}" for g, k in chosen)
                return {
                    "replicas": replicas,
                    "found": True,
                    "total": total,
                    "per_zone": per_zone,
                    "cloned_from": cloned_from,
                    "node_groups": rows,
                    "message": message,
                    "skipped_groups": skipped,
                }
    names = ", ".join(g.name for g in usable)
    return {
        "replicas": replicas,
        "found": False,
        "message": f"adding up to {MAX_ADDED_NODES} nodes to the node groups ({names}) does not make {replicas} schedulable",
        "skipped_groups": skipped,
    }


def _compositions(total: int, parts: int):
    for cut in itertools.combinations(range(total + parts - 1), parts - 1):
        prev = -1
        out = []
        for c in cut + (total + parts - 1,):
            out.append(c - prev - 1)
            prev = c
        yield tuple(out)


def is_statefulset(obj: Any) -> bool:
    return isinstance(obj, StatefulSet)
