"""`planner check`: load the inputs, decide each workload's replica count, the JSON shape and the table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from models.solve import SolveOptions
from planner.engines.check import check_replicas
from planner.engines.workloads import parse_workload
from planner.errors import UsageError
from planner.load import Limits, load_snapshot, read_scheduler_config
from planner.output import note, table
from planner.scheduler.config import feasibility_notes


def check_command(
    paths: Iterable[str],
    workloads: list[str],
    replicas: int | None,
    namespace: str | None,
    opts: SolveOptions,
    limits: Limits,
    scheduler_config: str | None = None,
) -> dict[str, Any]:
    if not workloads:
        raise UsageError("check: give at least one --workload KIND/NAME")
    config = read_scheduler_config(scheduler_config, limits) if scheduler_config else None
    snap = load_snapshot(paths, limits, notice=note)
    refs = [parse_workload(w, namespace) for w in workloads]
    out = check_replicas(snap, refs, replicas, opts, source=None if replicas is None else f"--replicas {replicas}")
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
        "notes": out.notes + snap.notes + ([] if config is None else feasibility_notes(config, config.main)),
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
