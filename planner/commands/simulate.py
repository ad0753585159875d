"""`planner simulate`: load the inputs, build the steps, replay them; the JSON shape and the table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from planner import pictures
from planner.engines.workloads import parse_workload
from planner.errors import UsageError
from planner.load import Limits, load_snapshot, read_scheduler_config, read_steps
from planner.output import bad, good, note
from planner.scheduler.config import has_kernel

POD_MANAGEMENT = ("OrderedReady", "Parallel", "OrderedScheduled")


def simulate_command(
    paths: Iterable[str], workloads: list[str], namespace: str | None, ops: dict, pod_management: str | None, seed: int, limits: Limits,
    scheduler_config: str | None = None,
    *,
    overlay: bool = True,
    plot: str | None = None,
    html: str | None = None,
) -> dict[str, Any]:
    """``plot`` (--plot FILE: PNG or SVG) and ``html`` (--html FILE): the replay's timeline."""
    from planner.engines.replay import Simulator, Step, parse_steps

    pictures.check_targets(plot, html)
    if not workloads:
        raise UsageError("simulate: give at least one --workload KIND/NAME")
    if pod_management is not None and pod_management not in POD_MANAGEMENT:
        raise UsageError(f"--pod-management {pod_management!r}: supported values: {', '.join(POD_MANAGEMENT)}")
    if ops.get("set_image") and not ops.get("rollout"):
        raise UsageError("--set-image needs --rollout")
    config = read_scheduler_config(scheduler_config, limits) if scheduler_config else None
    snap = load_snapshot(paths, limits, notice=note, overlay=overlay, namespace=namespace)
    refs = [parse_workload(w, namespace) for w in workloads]
    from planner.engines.workloads import find_workload

    for r in refs:
        find_workload(snap, r)
    target = refs[0]
    steps: list[Step] = []
    if ops.get("scale") is not None:
        steps.append(Step("scale", {"ref": target, "workload": str(target), "replicas": ops["scale"], "source": f"--scale {ops['scale']}"}))
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
    # a progress callback makes the replay report its steps (planner.progress); the messages
    # themselves are the steps' descriptions, shown by the task
    sim = Simulator(snap, seed=seed, pod_management=policy, progress=_steps_reported, scheduler_config=config)
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
    if config is not None:
        result["notes"].append(
            f"scheduler profiles from {scheduler_config}: {', '.join(config.profiles)} (pods of other schedulerNames are not scheduled)"
        )
        for prof in config.profiles.values():
            result["notes"].extend(prof.notes)
            if not has_kernel(prof):
                result["notes"].append(
                    f"profile {prof.scheduler_name}: NodeResourcesFit {prof.fit_strategy.type} scores with the reference "
                    "scorer (no vectorised kernel)"
                )
        result["notes"].extend(config.notes)
    if plot or html:
        from planner.pictures.timeline import for_simulate

        for path in pictures.write(for_simulate(result, sim.snap), plot, html):
            note(f"wrote {path}")
    return result


def _steps_reported(_message: str) -> None:
    """The replay's progress callback: its steps are on the progress display already."""


MAX_NAMES = 10  # a step's Pending pods named; the rest counted
MAX_WATCHED = 10  # stuck pods of the watched workloads shown with their reasons; past it, grouped by message
MAX_OTHERS = 3  # those of other workloads
MAX_MESSAGES = 10  # those groups shown


def render_simulate(r: dict) -> str:
    lines = [f"{', '.join(r['workloads'])}: {good('COMPLETED') if r['completed'] else bad('STUCK')} (seed {r['seed']})"]
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
            elif e["type"] == "preempted":
                extra = f" -> {e['node']}: evicting {', '.join(e['victims'])}"
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
            names = st["pending"]
            more = f" (+{len(names) - MAX_NAMES} more)" if len(names) > MAX_NAMES else ""
            lines.append(f"    pending: {', '.join(names[:MAX_NAMES])}{more}")
    if r["stuck"]:
        # the watched workloads' pods, each with its reasons; past MAX_OTHERS of the other pods the
        # transition left Pending (a zone lost: hundreds), those grouped by kube-scheduler's message
        watched = set(r.get("final", {}).get("pods", {}))
        mine = [s for s in r["stuck"] if s["pod"] in watched]
        others = [s for s in r["stuck"] if s["pod"] not in watched]
        listed = mine[:MAX_WATCHED] + others[:MAX_OTHERS]
        lines.append("  stuck:")
        for s in listed:
            lines.append(f"    {s['pod']} Pending since step {s['since_step']}")
            for reason in s["reasons"]:
                lines.append(f"      {reason}")
        rest = mine[MAX_WATCHED:] + others[MAX_OTHERS:]
        if rest:
            groups: dict[str, list[str]] = {}
            for s in rest:
                groups.setdefault(s["reasons"][0] if s["reasons"] else "", []).append(s["pod"])
            of = "of other workloads " if len(mine) <= MAX_WATCHED else ""
            lines.append(f"    {len(rest)} more pod(s) {of}left Pending, by kube-scheduler's message "
                         "(-o json: each with every node's reasons):")
            ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
            for msg, pods in ranked[:MAX_MESSAGES]:
                who = ", ".join(pods[:3]) + (f" and {len(pods) - 3} more" if len(pods) > 3 else "")
                lines.append(f"      {len(pods)} pod(s) ({who})" + (f": {msg}" if msg else ""))
            if len(ranked) > MAX_MESSAGES:
                lines.append(f"      ... {sum(len(p) for _, p in ranked[MAX_MESSAGES:])} more pod(s) under {len(ranked) - MAX_MESSAGES} other message(s)")
    if r.get("pending_elsewhere"):
        lines.append("  pending before the first step, of other workloads (not counted against this transition):")
        for s in r["pending_elsewhere"]:
            lines.append(f"    {s['pod']}: {s['reasons'][0]}")
    for w in r.get("incomplete", []):
        lines.append(f"  {w}: not complete")
    if r.get("drain_blocked"):
        lines.append(f"  drain blocked by PodDisruptionBudgets: {', '.join(r['drain_blocked'])}")
    for n in r.get("notes", []):
        lines.append(f"  note: {n}")
    return "\n".join(lines)
