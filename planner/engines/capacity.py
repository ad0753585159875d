"""`planner capacity`: which replica counts work, surviving a zone loss, nodes to add."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from models.solve import SolveOptions
from planner import progress as progress_
from planner.controllers.daemon import daemon_pods_for_node, is_host_network
from planner.controllers.nodegroups import NodeGroup, node_groups
from planner.controllers.replicaset import pod_from_template
from planner.domain import Deployment, Pod, PodSpec, ReplicaSet, StatefulSet
from planner.engines.check import CheckOutcome, bound_outcome, check_by_known_order, check_plans, check_replicas
from planner.engines.workloads import (
    BOUND_SLACK,
    Plan,
    RoomBound,
    WorkloadRef,
    base_cluster,
    find_workload,
    owned_by,
    plan_workload,
    room_bound,
    room_for,
)
from planner.errors import UsageError
from planner.matching import find_untolerated_taint, pod_matches_node_selector_and_affinity
from planner.priority import resolve_spec
from planner.scheduler.registry import Profile
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


def limiting_constraints(out: CheckOutcome) -> list[str]:
    """The constraints (plugin names) of an unschedulable count's minimal explanation, in the order
    they are explained (a count past the cluster's bound: NodeResourcesFit, as check_replicas says)."""
    if out.schedulable:
        return []
    names = [e["constraint"] for e in out.explanation if e["constraint"] != "replicas"]
    return list(dict.fromkeys(names))


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
    profile: Profile | None = None,
) -> dict[str, Any]:
    """``profile``: the scheduling profile whose filters decide (--scheduler-config), as in check."""
    obj = find_workload(snap, ref)
    source = "--range"
    if rng is None:
        rng, source = default_range(snap, ref)
    # Counts past the cluster's bound (RoomBound, computed once, at the range's low end, where a
    # StatefulSet frees the most room) are NO by arithmetic: one closed-form answer, no check.
    # Unlike check (BOUND_SLACK), no margin: walking them would cost a full unschedulable check
    # per count (bench/bound_margin.py: 100 counts past the bound, 19 s at 50 nodes and 128 s at
    # 500, against 0.7 s and 3.6 s collapsed) and tell nothing the bound does not.
    enabled = None if profile is None else frozenset(profile.filter_names)
    unbounded = enabled is not None and "NodeResourcesFit" not in enabled
    # lower-priority pods count as free room: check preempts them
    bound = room_bound(snap, ref, rng[0], preemption=True, enabled=enabled)
    if unbounded:  # no NodeResourcesFit: no room is counted, every count is checked
        bound = replace(bound, more=max(bound.more, rng[1]))
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
    with progress_.task(f"checking replica counts of {ref}", total=total, unit="counts") as counting:
        for i, n in enumerate(range(top, rng[0] - 1, -1)):
            if progress:
                progress(f"checking {n} replicas ({i + 1}/{total})")
            counting.update(done=i, description=f"checking {n} replicas of {ref}")
            out = check_by_known_order(snap, [ref], n, known, known_plans, profile) if known else None
            if out is None:
                out = check_replicas(snap, [ref], n, opts, profile, source=asked)
                if out.schedulable and out.placement and not out.preempted:
                    # (a witness with victims is not reused: a smaller count may need fewer of them)
                    known, known_plans = out.placement, out.plans
            by_count[n] = {"replicas": n, "schedulable": out.schedulable, "reason": reason_of(out), "preempted": out.preempted,
                           "constraints": limiting_constraints(out)}
        counting.update(done=total)
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
        with progress_.task(f"losing each zone of {len(snap.zones)}"):
            result["zone_failure"] = zone_failures(snap, ref, obj.replicas, opts, profile)
    if add_nodes:
        with progress_.task(f"finding nodes to add for {first_fail} replicas"):
            result["add_nodes"] = nodes_to_add(snap, ref, first_fail, opts, profile) if first_fail is not None else {
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


def zone_failures(snap: Snapshot, ref: WorkloadRef, replicas: int, opts: SolveOptions, profile: Profile | None = None) -> list[dict]:
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
        res = check_replicas(reduced, [ref], replicas, opts, profile)
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


def group_unusable(group: NodeGroup, spec: PodSpec) -> str | None:
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


def nodes_to_add(snap: Snapshot, ref: WorkloadRef, replicas: int, opts: SolveOptions, profile: Profile | None = None) -> dict:
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
        why = group_unusable(g, spec)
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
            if check_replicas(trial, [ref], replicas, opts, profile).schedulable:
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


# --------------------------------------------------------------------------- copies of a pod spec


@dataclass
class Probe:
    """What ``capacity --pod-file`` counts copies of: a Pod (or a ReplicaSet's pods: copies of
    the pod, as the ReplicaSet controller makes them) or a Deployment's or StatefulSet's pods (a
    workload of that manifest with no replicas yet, planned by its controllers' rules:
    planner.engines.workloads), none of them in the snapshot."""

    snap: Snapshot  # the snapshot the copies go into (holding the new workload, for one)
    ref: WorkloadRef
    source: str  # "Pod default/web", for people
    spec: PodSpec  # the copies' spec (priority resolved with the snapshot's classes)
    copy: Callable[[int], list[Pod]] | None = None  # Pod / ReplicaSet: the first n copies
    notes: list[str] = field(default_factory=list)

    def plans(self, n: int) -> list[Plan]:
        if self.copy is not None:
            return [Plan(self.ref, n, new=self.copy(n))]
        return [plan_workload(self.snap, self.ref, n)]

    def bound(self) -> RoomBound:
        if self.copy is not None:
            # lower-priority pods count as free room, as check preempts them (past_bound)
            more, alone, nodes, excluded, evicting = room_for(self.spec, base_cluster(self.snap), preemption=True)
            return RoomBound(self.ref, 0, 0, more, alone, nodes, excluded, evicting)
        return room_bound(self.snap, self.ref, 0, preemption=True)


PROBE_UID = "planner-capacity-probe"  # no ownerReference of the snapshot names it


def _free_name(name: str, taken: Callable[[str], bool]) -> str:
    if not taken(name):
        return name
    i = 2
    while taken(f"{name}-copy{i if i > 2 else ''}"):
        i += 1
    return f"{name}-copy{i if i > 2 else ''}"


def make_probe(snap: Snapshot, obj: Pod | Deployment | StatefulSet | ReplicaSet, source: str) -> Probe:
    """The probe of ``obj`` (read from a manifest) for ``snap``: its pod template's priority
    resolved as admission would with the snapshot's PriorityClasses; a workload whose name the
    snapshot already uses is renamed (its pods would be mistaken for the existing one's)."""
    notes: list[str] = []
    ns = obj.namespace
    if isinstance(obj, (Deployment, StatefulSet)):
        kind = type(obj).__name__
        table = snap.deployments if kind == "Deployment" else snap.statefulsets
        owners = {(p.owner.kind, f"{p.namespace}/{p.owner.name}") for p in snap.pods.values() if p.owner is not None}
        owners |= {(rs.owner.kind, f"{rs.namespace}/{rs.owner.name}") for rs in snap.replicasets.values() if rs.owner is not None}
        name = _free_name(obj.name, lambda n: f"{ns}/{n}" in table or (kind, f"{ns}/{n}") in owners)
        if name != obj.name:
            notes.append(f"{kind} {ns}/{obj.name} is in the snapshot already: its copies are counted as those of a new {kind} {ns}/{name}")
        tpl = replace(obj.template, spec=resolve_spec(obj.template.spec, snap.priority_classes))
        probe = replace(obj, name=name, replicas=0, template=tpl, uid=PROBE_UID)
        out = snap.copy()
        getattr(out, "deployments" if kind == "Deployment" else "statefulsets")[probe.key] = probe
        policy = probe.pod_management_policy if isinstance(probe, StatefulSet) else "OrderedReady"
        if policy != "OrderedReady":
            notes.append(
                f"{source} has podManagementPolicy {policy}: its pods differ by ordinal (name, claims), so "
                "the count is the largest n that fits when n + 1 does not; `capacity --workload` walks every count"
            )
        return Probe(out, WorkloadRef(kind, ns, name), source, tpl.spec, None, notes)
    if isinstance(obj, ReplicaSet):
        spec = resolve_spec(obj.template.spec, snap.priority_classes)
        rs = replace(obj, template=replace(obj.template, spec=replace(spec, node_name="")), uid=PROBE_UID, owner=None)

        def rs_copies(n: int) -> list[Pod]:
            return [pod_from_template(rs, name, "") for name in _copy_names(snap, rs.namespace, rs.name, n)]

        return Probe(snap, WorkloadRef("ReplicaSet", ns, obj.name), source, spec, rs_copies, notes)
    spec = replace(resolve_spec(obj.spec, snap.priority_classes), node_name="")
    if obj.spec.node_name:
        notes.append(f"{source} names spec.nodeName {obj.spec.node_name}: its copies are placed by the scheduler instead")
    pod = replace(obj, spec=spec, phase="Pending", owner=None, uid="", nominated_node_name="", terminating=False)

    def pod_copies(n: int) -> list[Pod]:
        return [replace(pod, name=name) for name in _copy_names(snap, pod.namespace, pod.name, n)]

    return Probe(snap, WorkloadRef("Pod", ns, obj.name), source, spec, pod_copies, notes)


def _copy_names(snap: Snapshot, namespace: str, name: str, n: int) -> list[str]:
    """``<name>-1``, ``<name>-2``, ...: the first n names no pod of the snapshot has."""
    out: list[str] = []
    i = 0
    while len(out) < n:
        i += 1
        k = f"{name}-{i}"
        if f"{namespace}/{k}" not in snap.pods:
            out.append(k)
    return out


def spec_capacity(probe: Probe, opts: SolveOptions, max_limit: int | None = None, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """How many more copies of the probe's pod fit, as cluster-capacity reports it
    (kubernetes-sigs/cluster-capacity --podspec: the count, the pods per node, the reason the
    next one fails), proven: the count n has a witness re-verified by the filters (check), and
    n + 1 is shown impossible by check's minimal explanation, or by the cluster's bound
    (RoomBound: the room of every node the pods' taints, affinity and cordon allow).

    Copies of one spec are interchangeable, so a placement sequence of n + 1 begins with one of
    n, and n + 1 failing means every larger count fails: the search halves the interval between
    a count that fits and one that does not (starting from the bound, which fits whenever the
    pods are limited by resources alone).  A Parallel StatefulSet's pods differ by ordinal; its
    answer is the largest n that fits when n + 1 does not (Probe.notes says so).  ``max_limit``:
    stop at that many (cluster-capacity's --max-limit); the answer is then "at least"."""
    snap = probe.snap
    bound = probe.bound()
    fits: dict[int, CheckOutcome] = {0: CheckOutcome(True)}
    fails: dict[int, CheckOutcome] = {}
    lo = 0
    hi = bound.max_replicas + 1  # impossible by arithmetic
    cap = max_limit
    hi_limit = cap + 1 if cap is not None and cap < hi else hi
    step = 0

    counting = progress_.task(f"counting copies of {probe.ref.name}", unit="checks")

    def check(n: int) -> CheckOutcome:
        nonlocal step
        step += 1
        if progress:
            progress(f"checking {n} copies of {probe.source} (check {step})")
        counting.update(done=step - 1, description=f"checking {n:,} copies of {probe.ref.name} (between {lo:,} and {hi:,})")
        return check_plans(snap, probe.plans(n), opts)

    counting.__enter__()

    def settle(n: int) -> bool:
        """Check n copies and file the outcome; does n fit?"""
        out = check(n)
        (fits if out.schedulable else fails)[n] = out
        return out.schedulable

    top = hi_limit - 1
    if top > 0:
        if settle(top):
            lo = top
        else:
            hi = top
    while hi - lo > 1 and lo < top:
        mid = (lo + hi) // 2
        if settle(mid):
            lo = mid
        else:
            hi = mid
    counting.close()
    limited = cap is not None and lo == cap and (lo + 1) not in fails and lo + 1 <= bound.max_replicas
    why = None
    if not limited:
        why = fails.get(lo + 1)
        if why is None and lo + 1 <= BOUND_SLACK:  # past the bound, but the model names the zones and nodes that run out
            why = check(lo + 1)
            if why.schedulable:  # the bound is an upper bound: this cannot be
                raise AssertionError(f"{lo + 1} copies of {probe.source} fit past the cluster's bound {bound.max_replicas}")
        if why is None:
            why = bound_outcome(RoomBound(probe.ref, lo + 1, *_bound_fields(bound)), lo + 1)
    witness = fits[lo]
    per_node, per_zone, next_summary = _distribution(probe, lo, witness, limited)
    result: dict[str, Any] = {
        "pod": f"{probe.ref.namespace}/{probe.ref.name}",
        "source": probe.source,
        "requests": dict(sorted(probe.spec.requests.items())),
        "count": lo,
        "limited": limited,
        "per_node": per_node,
        "per_zone": per_zone,
        "limit": None
        if why is None
        else {
            "reason": reason_of(why),
            "explanation": why.explanation,
            "scheduler": next_summary,
        },
        "bound": {"max": bound.max_replicas, "message": bound.message(bound.max_replicas + 1)},
        "witness": {"verified": lo == 0 or bool(witness.placement), "model": witness.stats.get("model", "none")},
        "checks": step,
        "notes": probe.notes + snap.notes + [n for n in witness.notes if n not in probe.notes],
    }
    return result


def _bound_fields(b: RoomBound) -> tuple:
    return (b.running, b.more, b.alone, b.nodes, b.excluded, b.preemption)


def _distribution(probe: Probe, n: int, witness: CheckOutcome, limited: bool) -> tuple[list[dict], list[dict], str | None]:
    """The witness's pods per node and per zone (nodes in the snapshot's order, zones sorted),
    and kube-scheduler's FailedScheduling message for one copy more once they are placed (what
    cluster-capacity prints as its termination reason)."""
    from planner.engines.workloads import cluster_after_plans
    from planner.scheduler import runtime
    from planner.scheduler.binding import bind_pod

    snap = probe.snap
    plans = probe.plans(n + (0 if limited else 1))
    cluster = cluster_after_plans(snap, plans)
    new = {p.key: p for plan in plans for p in plan.new}
    counts: dict[str, int] = {}
    for k, node in witness.placement.items():
        bind_pod(cluster, new[k], node)
        counts[node] = counts.get(node, 0) + 1
    summary = None
    if not limited:
        nxt = [p for plan in plans for p in plan.new if p.key not in witness.placement]
        if nxt:
            summary = runtime.evaluate(nxt[-1], cluster).summary()
    zone_of = {ni.name: ni.node.zone for ni in cluster.node_infos}
    per_node = [{"node": ni.name, "zone": zone_of[ni.name], "count": counts[ni.name]} for ni in cluster.node_infos if ni.name in counts]
    zones: dict[str, int] = {}
    for node, c in counts.items():
        z = zone_of.get(node) or ""
        zones[z] = zones.get(z, 0) + c
    per_zone = [{"zone": z or None, "count": c} for z, c in sorted(zones.items())]
    return per_node, per_zone, summary
