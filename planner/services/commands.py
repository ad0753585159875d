"""Glue between the CLI and the services for check and capacity: loading, JSON shape, tables."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from models.solve import SolveOptions
from planner.errors import UsageError
from planner.load import Limits, load_snapshot, read_steps
from planner.output import note, progress, table
from planner.services.capacity import capacity, parse_range
from planner.services.check import check_replicas
from planner.services.workloads import parse_workload


def check_command(
    paths: Iterable[str], workloads: list[str], replicas: int | None, namespace: str | None, opts: SolveOptions, limits: Limits
) -> dict[str, Any]:
    if not workloads:
        raise UsageError("check: give at least one --workload KIND/NAME")
    snap = load_snapshot(paths, limits, notice=note)
    refs = [parse_workload(w, namespace) for w in workloads]
    out = check_replicas(snap, refs, replicas, opts)
    targets = {str(p.ref): p.replicas for p in out.plans}
    first = out.plans[0]
    return {
        "workload": str(first.ref),
        "replicas": first.replicas,
        "workloads": [{"workload": w, "replicas": n} for w, n in targets.items()],
        "schedulable": out.schedulable,
        "placement": out.placement,
        "explanation": out.explanation,
        "kept": sorted(p.key for plan in out.plans for p in plan.keep),
        "removed": sorted(p.key for plan in out.plans for p in plan.remove),
        "notes": out.notes + snap.notes,
        # timings stay out of the JSON so that identical inputs give identical output
        "stats": {k: v for k, v in out.stats.items() if k != "solve_seconds"},
    }


def render_check(r: dict) -> str:
    lines = []
    targets = ", ".join(f"{w['workload']} x{w['replicas']}" for w in r["workloads"])
    lines.append(f"{targets}: {'SCHEDULABLE' if r['schedulable'] else 'UNSCHEDULABLE'}")
    if r["schedulable"]:
        if r["placement"]:
            lines.append("  placement (in an order that passes every filter, pod by pod):")
            lines.append(table(["pod", "node"], [[p, n] for p, n in r["placement"].items()], indent="    "))
        else:
            lines.append("  nothing to place: the running pods already make up the replicas")
        if r["kept"]:
            lines.append(f"  running pods kept: {len(r['kept'])}")
    else:
        lines.append("  why (a minimal set of facts that cannot all hold):")
        for e in r["explanation"]:
            lines.append(f"    - [{e['constraint']}] {e['message']}")
    for n in r["notes"]:
        lines.append(f"  note: {n}")
    return "\n".join(lines)


def capacity_command(
    paths: Iterable[str],
    workload: str,
    namespace: str | None,
    rng: str | None,
    zone_failure: bool,
    add_nodes: bool,
    plot: str | None,
    opts: SolveOptions,
    limits: Limits,
) -> dict[str, Any]:
    snap = load_snapshot(paths, limits, notice=note)
    ref = parse_workload(workload, namespace)
    r = parse_range(rng) if rng else None
    result = capacity(snap, ref, r, zone_failure, add_nodes, opts, progress=progress)
    if plot:
        write_plot(result, snap, plot)
        note(f"wrote {plot}")
    return result


def render_capacity(r: dict) -> str:
    lines = [f"{r['workload']}: replicas {r['range']['min']}..{r['range']['max']} ({r['range']['source']})"]
    rows = [[x["replicas"], "yes" if x["schedulable"] else "NO", x["reason"]] for x in r["replicas"]]
    lines.append(table(["replicas", "schedulable", "reason"], rows, indent="  "))
    lines.append(f"  max_replicas: {r['max_replicas'] if r['max_replicas'] is not None else 'none'}")
    if r["non_monotonic"]:
        ok_above = ", ".join(str(n) for n in r["non_monotonic"])
        lines.append(f"  NOT MONOTONIC: {ok_above} fail(s) although a larger count works (scaling through it gets stuck)")
    for z in r.get("zone_failure", []):
        state = "survives" if z["schedulable"] else "DOES NOT survive"
        lines.append(f"  zone {z['zone']} lost ({z['nodes_lost']} nodes): {z['replicas']} replicas {state}" + (f": {z['reason']}" if z["reason"] else ""))
        for lp in z["lost_pods"]:
            vols = ", ".join(f"{v['claim']} -> {v['pv']}" + (" (pinned)" if v["pinned"] else "") for v in lp["volumes"])
            lines.append(f"    lost {lp['pod']} on {lp['node']}" + (f"; volumes {vols}" if vols else ""))
    an = r.get("add_nodes")
    if an:
        if an.get("found"):
            per = ", ".join(f"{k} in {z} (like {an['cloned_from'][z]})" for z, k in an["per_zone"].items())
            lines.append(f"  to schedule {an['replicas']} replicas add {an['total']} node(s): {per}")
        else:
            lines.append(f"  add nodes: {an.get('message')}")
    return "\n".join(lines)


def write_plot(result: dict, snap: Any, path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'planner[plot]'") from None
    rows = result["replicas"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    xs = [r["replicas"] for r in rows]
    colors = ["#2e7d32" if r["schedulable"] else "#c62828" for r in rows]
    ax1.bar(xs, [1] * len(xs), color=colors)
    ax1.set_yticks([])
    ax1.set_xlabel("replicas")
    ax1.set_title(f"{result['workload']}: schedulable (green) / not (red)")
    zones = snap.zones or ["(no zone)"]
    free_cpu = []
    for z in zones:
        total = 0
        for n in snap.nodes.values():
            if (n.zone or "(no zone)") == z:
                used = sum(p.spec.requests.get("cpu", 0) for p in snap.pods.values() if p.spec.node_name == n.name and not p.terminal)
                total += max(0, n.allocatable.get("cpu", 0) - used)
        free_cpu.append(total / 1000)
    ax2.bar(zones, free_cpu, color="#1565c0")
    ax2.set_ylabel("free cpu (cores)")
    ax2.set_title("headroom per zone")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --------------------------------------------------------------------------- simulate

POD_MANAGEMENT = ("OrderedReady", "Parallel", "OrderedScheduled")


def simulate_command(
    paths: Iterable[str], workloads: list[str], namespace: str | None, ops: dict, pod_management: str | None, seed: int, limits: Limits
) -> dict[str, Any]:
    from planner.services.simulate import Simulator, Step, parse_steps

    if not workloads:
        raise UsageError("simulate: give at least one --workload KIND/NAME")
    if pod_management is not None and pod_management not in POD_MANAGEMENT:
        raise UsageError(f"--pod-management {pod_management!r}: supported values: {', '.join(POD_MANAGEMENT)}")
    if ops.get("set_image") and not ops.get("rollout"):
        raise UsageError("--set-image needs --rollout")
    snap = load_snapshot(paths, limits, notice=note)
    refs = [parse_workload(w, namespace) for w in workloads]
    from planner.services.workloads import find_workload

    for r in refs:
        find_workload(snap, r)
    target = refs[0]
    steps: list[Step] = []
    if ops.get("scale") is not None:
        steps.append(Step("scale", {"ref": target, "workload": str(target), "replicas": ops["scale"]}))
    if ops.get("rollout"):
        steps.append(Step("rollout", {"ref": target, "workload": str(target), "image": ops.get("set_image")}))
    if ops.get("evict"):
        e = ops["evict"]
        steps.append(Step("evict", {"pod": e if "/" in e else f"{namespace or target.namespace}/{e}"}))
    if ops.get("delete"):
        r = parse_workload(ops["delete"], namespace)
        steps.append(Step("delete", {"ref": r, "workload": str(r)}))
    if ops.get("drain"):
        steps.append(Step("drain", {"node": ops["drain"]}))
    if ops.get("zone_down"):
        steps.append(Step("zone-down", {"zone": ops["zone_down"]}))
    if ops.get("steps"):
        path = ops["steps"]
        steps.extend(parse_steps(read_steps(path, limits), snap, namespace, path))
    if not steps and snap.scenario and snap.scenario.get("steps"):
        steps = parse_steps(snap.scenario["steps"], snap, namespace, f"Scenario {snap.scenario['name']}")
    policy = "OrderedReady" if pod_management == "OrderedScheduled" else pod_management
    sim = Simulator(snap, seed=seed, pod_management=policy, progress=progress)
    result = sim.run(steps, refs)
    result["workloads"] = [str(r) for r in refs]
    result["seed"] = seed
    result["pod_management"] = pod_management
    if pod_management == "OrderedScheduled":
        result.setdefault("notes", []).append(
            "OrderedScheduled: each pod is created once the previous one is scheduled; pods are ready as soon as they are "
            "bound in this replay, so it behaves as OrderedReady with no start-up time"
        )
    result.setdefault("notes", []).extend(snap.notes)
    return result


def render_simulate(r: dict) -> str:
    lines = [f"{', '.join(r['workloads'])}: {'COMPLETED' if r['completed'] else 'STUCK'} (seed {r['seed']})"]
    for st in r["steps"]:
        lines.append(f"  step {st['step']}: {st['action']}")
        shown = 0
        for e in st["events"]:
            if e["type"] in ("scaled", "replicaset-created") or shown >= 40:
                continue
            shown += 1
            what = e.get("pod") or e.get("claim") or e.get("node") or e.get("object") or ""
            extra = ""
            if e["type"] == "scheduled":
                extra = f" -> {e['node']}" + (f" ({e['zone']})" if e.get("zone") else "")
            elif e.get("reason"):
                extra = f" ({e['reason']})"
            lines.append(f"    {e['type']:<17} {what}{extra}")
        hidden = sum(1 for e in st["events"] if e["type"] not in ("scaled", "replicaset-created")) - shown
        if hidden > 0:
            lines.append(f"    ... {hidden} more event(s) (see -o json)")
        for w, zones in st["zones"].items():
            if zones:
                lines.append(f"    {w}: " + ", ".join(f"{z}={n}" for z, n in zones.items()) + f"  (skew {st['skew'][w]})")
        if st["pending"]:
            lines.append(f"    pending: {', '.join(st['pending'])}")
    if r["stuck"]:
        lines.append("  stuck:")
        for s in r["stuck"]:
            lines.append(f"    {s['pod']} Pending since step {s['since_step']}")
            for reason in s["reasons"]:
                lines.append(f"      {reason}")
    for w in r.get("incomplete", []):
        lines.append(f"  {w}: not complete")
    if r.get("drain_blocked"):
        lines.append(f"  drain blocked by PodDisruptionBudgets: {', '.join(r['drain_blocked'])}")
    for n in r.get("notes", []):
        lines.append(f"  note: {n}")
    return "\n".join(lines)
