"""`planner remediate`: glue between the CLI and planner.engines.remediation (loading, JSON, table)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from models.solve import SolveOptions
from planner import progress
from planner.engines.remediation import Goal, remediate
from planner.engines.workloads import parse_workload
from planner.errors import UsageError
from planner.load import Limits, load_snapshot, read_steps
from planner.output import bad, good, note


def remediate_command(
    paths: Iterable[str],
    workload: str,
    namespace: str | None,
    replicas: int | None,
    rollout: bool,
    scale: int | None,
    forbid: list[str],
    allow_destructive: bool,
    top: int,
    emit_dir: str | None,
    opts: SolveOptions,
    seed: int,
    limits: Limits,
    steps: str | None = None,
    context: str | None = None,
    *,
    overlay: bool = True,
) -> dict[str, Any]:
    given = [x for x in (replicas is not None, rollout, scale is not None, steps is not None) if x]
    if len(given) != 1:
        raise UsageError("remediate: give exactly one goal: --replicas N, --rollout, --scale N or --steps FILE")
    if context is not None:
        from planner.engines.remediation.emit import check_context

        check_context(context)
    if emit_dir:
        from planner.engines.remediation.emit import check_dir

        check_dir(emit_dir)  # a DIR that --emit would refuse is refused before the search
    snap = load_snapshot(paths, limits, notice=note, overlay=overlay, namespace=namespace)
    ref = parse_workload(workload, namespace)
    if steps is not None:
        goal = Goal(ref, "replay", None, steps=read_steps(steps, limits), source=steps)
        from planner.engines.remediation.verify import parse_goal_steps

        if not parse_goal_steps(snap, goal):  # the steps are read as the replay reads them: errors exit 2
            raise UsageError(f"--steps {steps}: no steps")
    elif replicas is not None:
        goal = Goal(ref, "replicas", replicas, source=f"--replicas {replicas}")
    elif scale is not None:
        goal = Goal(ref, "scale", scale, source=f"--scale {scale}")
    else:
        goal = Goal(ref, "rollout", None)
    # the search's progress(stage, done, total) calls (or progress(message)) on the progress display
    out = remediate(snap, goal, forbid, allow_destructive, top, opts, seed, progress=progress.callback())
    result = out.to_dict()
    result["notes"] = out.notes + snap.notes
    result["context"] = context
    if emit_dir:
        from planner.engines.remediation.emit import emit

        files = emit(emit_dir, result, out.plans, goal, out.alternatives, context)
        note(f"wrote {len(files)} file(s) to {emit_dir}")
    return result


def _goal_text(g: dict) -> str:
    if g["type"] == "replicas":
        return f"{g['workload']} x{g['replicas']}"
    if g["type"] == "scale":
        return f"scale {g['workload']} to {g['replicas']}"
    if g["type"] == "replay":
        return f"the steps of {g['steps']} ({g['workload']})"
    return f"roll out {g['workload']}"


def _render_plan(lines: list[str], title: str, p: dict) -> None:
    c = p["cost"]
    cost = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in c.items() if v) or "nothing"
    tag = "  DESTRUCTIVE" if p["destructive"] else ""
    tag += "  CHANGES THE GOAL" if p.get("changes_goal") else ""
    lines.append(f"{title}{tag}  (cost: {cost})")
    for j, a in enumerate(p["actions"], 1):
        flags = " [destructive]" if a["destructive"] else ""
        flags += " [advisory]" if a["advisory"] else ""
        flags += " [policy decision]" if a.get("policy_decision") else ""
        flags += "".join(f" [helm: {h['release'] or 'release not named'}]" for h in a.get("helm", []))
        lines.append(f"  {j}. {a['type']} {a['target']}{flags}")
        lines.append(f"     {a['summary']}")
        for e in a["side_effects"]:
            lines.append(f"     - {e}")
        for e in a.get("assumes", []):
            lines.append(f"     - assumes: {e}")
        for e in a.get("risks", []):
            lines.append(f"     - risk: {e}")
        for cmd in a["commands"]:
            lines.append(f"     $ {cmd}")


REJECTED_SHOWN = 6  # the table lists this many rejected candidates; -o json lists them all


def render_remediate(r: dict) -> str:
    lines = []
    goal = _goal_text(r["goal"])
    alternatives = r.get("alternatives") or []
    if r["schedulable_now"]:
        lines.append(f"{goal}: {good('the goal holds already')}; nothing to fix")
    else:
        more = f"; {len(alternatives)} alternative(s) that change the goal" if alternatives else ""
        lines.append(f"{goal}: {bad('FAILS')} now; {len(r['plans'])} verified plan(s) that reach it as asked, cheapest first{more}")
        if r["failure"]:
            lines.append(f"  why: {r['failure']}")
    if r.get("context"):
        lines.append(f"  kube-context: {r['context']} (every command of the --emit runbooks names it)")
    for i, p in enumerate(r["plans"], 1):
        _render_plan(lines, f"plan {i}", p)
    if alternatives:
        lines.append("alternatives (they change the goal: another replica count than the one asked):")
        for i, p in enumerate(alternatives, 1):
            _render_plan(lines, f"alternative {i}", p)
    if r.get("rejected"):
        lines.append("tried and rejected (the goal still fails):")
        for x in r["rejected"][:REJECTED_SHOWN]:
            lines.append(f"  - {' + '.join(x['actions'])}: {x['reason']}")
        if len(r["rejected"]) > REJECTED_SHOWN:
            lines.append(f"  ... and {len(r['rejected']) - REJECTED_SHOWN} more (-o json lists every one)")
    for n in r.get("notes", []):
        lines.append(f"note: {n}")
    return "\n".join(lines)
