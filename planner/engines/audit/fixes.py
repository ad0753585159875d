"""Each finding's ``fix``: the cheapest verified plan of planner remediate for the finding's goal.

A finding carries a goal (planner.engines.audit.model.Goal): the workload's replicas (check), or a
rollout that completes (the replay), on the snapshot as read or, for a hazard that needs an
event first, on the snapshot after it (the pod evicted, the HPA's scale-down).  remediate
(planner.engines.remediation.remediate) searches and verifies the plans; the first one, in its ranking
(every non-destructive plan before a destructive one, then cost), is the fix.  A rule whose cure
is a particular kind of change (a selector narrowed, matchLabelKeys added) takes the first plan
made of such changes only.  ``fix`` is null when the goal already holds (the hazard is latent:
nothing fails yet that a plan could be verified against), when remediate finds no plan, or when
no plan is of the rule's kind.

The fix is remediate's plan JSON (docs/output.md, schema ``remediate``: cost, destructive,
verified, actions with their patches and kubectl commands), plus ``goal``.
"""

from __future__ import annotations

from typing import Any

from planner.engines.audit.model import Finding, Goal
from planner.errors import PlannerError
from planner.snapshot import Snapshot

# rules whose fix must be made of these action types (None: any plan)
RELEVANT: dict[str, set[str] | None] = {
    "selector-broader-than-workload": {"narrow-spread-selector", "add-match-label-keys"},
    "selector-counts-other-revisions": {"add-match-label-keys"},
}

TOP = 5  # plans asked of remediate per goal


def _goal_snapshot(snap: Snapshot, goal: Goal) -> Snapshot:
    if goal.snapshot is not None:
        return goal.snapshot
    if goal.without_pod and goal.without_pod in snap.pods:
        out = snap.copy()
        del out.pods[goal.without_pod]
        return out
    return snap


def attach_fixes(snap: Snapshot, findings: list[Finding], notes: list[str], opts: Any = None) -> None:
    """Fill ``fix`` on every finding that has a goal; remediate runs once per distinct goal."""
    from planner.engines.remediation import Goal as RGoal
    from planner.engines.remediation import remediate

    cache: dict[tuple, list[dict] | None] = {}
    deadlocked = {f.objects[0] for f in findings if f.rule == "rollout-deadlock"}
    for f in findings:
        g = f.goal
        if g is None:
            continue
        if not _goal_may_fail(snap, f, deadlocked, opts):
            continue  # the goal holds: remediate would say there is nothing to fix
        kind = "rollout" if g.rollout else "replicas"
        key = (str(g.ref), kind, g.replicas, g.without_pod, id(g.snapshot) if g.snapshot is not None else None)
        if key not in cache:
            try:
                out = remediate(_goal_snapshot(snap, g), RGoal(g.ref, kind, None if g.rollout else g.replicas), top=TOP, opts=opts)
                cache[key] = None if out.schedulable_now else [dict(p.to_dict(), goal=out.goal.to_dict()) for p in out.plans]
            except PlannerError as e:
                notes.append(f"fix for {g.ref}: remediate failed: {'; '.join(e.messages)}")
                cache[key] = None
        plans = cache[key] or []
        wanted = RELEVANT.get(f.rule)
        for p in plans:
            if wanted is None or all(a["type"] in wanted for a in p["actions"]):
                f.fix = p
                break


def _goal_may_fail(snap: Snapshot, f: Finding, deadlocked: set[str], opts: Any) -> bool:
    """Cheap answers for the selector rules, which fire on many healthy workloads: a rollout that
    the audit's own replay completed (or that nothing could block), replicas that check places."""
    g = f.goal
    assert g is not None
    if f.rule == "selector-counts-other-revisions":
        return f.objects[0] in deadlocked
    if f.rule == "selector-broader-than-workload" and g.replicas is not None and g.snapshot is None and not g.without_pod:
        from planner.engines.check import check_replicas
        from planner.errors import UnknownResult

        try:
            return not check_replicas(snap, [g.ref], g.replicas, opts).schedulable
        except UnknownResult:
            return True
    return True
