"""`planner remediate`: the cheapest verified changes that make a failing goal succeed.

Modules: ``actions`` (the JSON contract: actions, patches, cost), ``jsonpatch`` (RFC 6902 /
7386 / 6901), ``candidates`` (what could be changed, from why the goal fails), ``verify`` (a
plan's patches applied to the snapshot, the goal decided again by check and the replay),
``search`` (the goal as asked before alternatives that change it, cheapest first, minimal plans,
destructive last), ``helm`` (the Helm releases whose objects a plan patches) and ``emit`` (patch
files and a runbook pinned to a kube-context, deletes guarded by uid).  See docs/remediate.md.
"""

from planner.engines.remediation.actions import ACTION_TYPES, Action, Cost, ObjectPatch, Plan
from planner.engines.remediation.search import Outcome, remediate
from planner.engines.remediation.verify import Goal, apply_patches, evaluate

__all__ = ["ACTION_TYPES", "Action", "Cost", "Goal", "ObjectPatch", "Outcome", "Plan", "apply_patches", "evaluate", "remediate"]
