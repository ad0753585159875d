"""`planner check`: load the inputs, decide each workload's replica count, the JSON shape and the table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from models.solve import SolveOptions
from planner import pictures, progress
from planner.engines.check import check_replicas
from planner.engines.workloads import parse_workload
from planner.errors import UsageError
from planner.load import Limits, load_snapshot, read_scheduler_config
from planner.output import bad, good, note, table
from planner.scheduler.config import feasibility_notes


def check_command(
    paths: Iterable[str],
    workloads: list[str],
    replicas: int | None,
    namespace: str | None,
    opts: SolveOptions,
    limits: Limits,
    scheduler_config: str | None = None,
    *,
    overlay: bool = True,
    plot: str | None = None,
    html: str | None = None,
) -> dict[str, Any]:
    """``plot`` (--plot FILE: PNG or SVG) and ``html`` (--html FILE): the zone map of the answer."""
    if not workloads:
        raise UsageError("check: give at least one --workload KIND/NAME")
    pictures.check_targets(plot, html)
    config = read_scheduler_config(scheduler_config, limits) if scheduler_config else None
    snap = load_snapshot(paths, limits, notice=note, overlay=overlay, namespace=namespace)
    refs = [parse_workload(w, namespace) for w in workloads]
    asked = ", ".join(str(r) for r in refs) + (f" x{replicas}" if replicas is not None else "")
    with progress.task(f"checking {asked}"):
        out = check_replicas(snap, refs, replicas, opts, None if config is None else config.main,
                             source=None if replicas is None else f"--replicas {replicas}")
    targets = {str(p.ref): p.replicas for p in out.plans}
    first = out.plans[0]
    result = {
        "workload": str(first.ref),
        "replicas": first.replicas,
        "workloads": [{"workload": w, "replicas": n} for w, n in targets.items()],
        "schedulable": out.schedulable,
        "placement": out.placement,
        "explanation": out.explanation,
        "kept": sorted(p.key for plan in out.plans for p in plan.keep),
        "removed": sorted(p.key for plan in out.plans for p in plan.remove),
        # DefaultPreemption: the lower-priority pods that must be evicted first (empty: none)
        "preempted": out.preempted,
        "preemption_exact": out.preemption_exact,
        "notes": out.notes + snap.notes + ([] if config is None else feasibility_notes(config, config.main)),
        # timings stay out of the JSON so that identical inputs give identical output
        "stats": {k: v for k, v in out.stats.items() if k != "solve_seconds"},
    }
    if plot or html:
        from planner.pictures.zonemap import for_check

        for path in pictures.write(for_check(snap, out, result), plot, html):
            note(f"wrote {path}")
    return result


def render_check(r: dict) -> str:
    lines = []
    targets = ", ".join(f"{w['workload']} x{w['replicas']}" for w in r["workloads"])
    lines.append(f"{targets}: {good('SCHEDULABLE') if r['schedulable'] else bad('UNSCHEDULABLE')}")
    if r["schedulable"]:
        if r["placement"]:
            lines.append("  placement (in an order that passes every filter, pod by pod):")
            lines.append(table(["pod", "node"], [[p, n] for p, n in r["placement"].items()], indent="    "))
        else:
            lines.append("  nothing to place: the running pods already make up the replicas")
        if r["kept"]:
            lines.append(f"  running pods kept: {len(r['kept'])}")
        if r.get("preempted"):
            lines.append(f"  preempts {len(r['preempted'])} lower-priority pod(s) first (DefaultPreemption):")
            lines.append(table(["pod", "node", "priority"], [[f"{v['namespace']}/{v['name']}", v["node"], v["priority"]] for v in r["preempted"]], indent="    "))
    else:
        lines.append("  why (a minimal set of facts that cannot all hold):")
        for e in r["explanation"]:
            lines.append(f"    - [{e['constraint']}] {e['message']}")
    for n in r["notes"]:
        lines.append(f"  note: {n}")
    return "\n".join(lines)
