"""``planner remediate --emit DIR``: the plans as files a person reviews and runs.

DIR/remediate.json is the command's JSON output.  Each plan gets DIR/plan-N/ with one file per
patch (JSON Patch / merge patch bodies as JSON, deleted objects as YAML backups, created objects
as YAML) and runbook.sh: a commented bash script that runs the plan's kubectl commands in order,
``set -euo pipefail``, and asks for a typed ``yes`` before every destructive step (``--yes``
skips the questions, for automation someone has reviewed).  JSON patches are applied with
``kubectl patch --type json --patch-file``; their ``test`` operations make the API server refuse
a patch when the object changed since the snapshot.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import yaml

from planner.engines.remediation.actions import Plan
from planner.engines.remediation.verify import Goal
from planner.errors import UsageError

HEADER = """#!/usr/bin/env bash
# planner remediate: plan {index} of {total} for the goal: {goal}
# cost: {cost}
# verified before it was written: {verified}
#
# Every JSON patch starts with "test" operations: the API server refuses it (and nothing
# changes) when the object is no longer what the snapshot showed. Review each step first.
#
# usage: ./runbook.sh          asks for a typed "yes" before every destructive step
#        ./runbook.sh --yes    asks nothing (only for a plan you have reviewed)
set -euo pipefail
cd "$(dirname "$0")"
ASSUME_YES=no
if [ "${{1:-}}" = "--yes" ]; then ASSUME_YES=yes; fi
confirm() {{
  if [ "$ASSUME_YES" = yes ]; then return 0; fi
  read -r -p "$1 Type yes to continue: " answer
  if [ "$answer" != yes ]; then echo "stopped before a destructive step; nothing more was changed" >&2; exit 1; fi
}}
"""


def _comment(text: str, indent: str = "# ") -> str:
    return "\n".join(indent + line for line in text.splitlines() or [""])


def write_plan(directory: Path, plan: Plan, index: int, total: int, goal: Goal) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    cost = ", ".join(f"{k} {v}" for k, v in plan.cost.to_dict().items())
    verified = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in plan.verified.items()) or "yes"
    lines = [HEADER.format(index=index, total=total, goal=goal.describe(), cost=cost, verified=verified)]
    for j, action in enumerate(plan.actions, 1):
        files: dict[str, str] = {}
        for k, patch in enumerate(action.patches, 1):
            name = f"{j:02d}-{k}-{patch.default_file()}"
            path = directory / name
            if patch.type in ("json", "merge"):
                path.write_text(json.dumps(patch.body, indent=2, ensure_ascii=False) + "\n")
            else:
                path.write_text(yaml.safe_dump(patch.body, sort_keys=False, allow_unicode=True))
            written.append(str(path))
            files[patch.kubectl()] = patch.kubectl(file=name)
        lines.append("")
        flags = " DESTRUCTIVE" if action.destructive else ""
        flags += " (advisory)" if action.advisory else ""
        lines.append(f"# --- step {j}: {action.type} {action.target}{flags}")
        lines.append(_comment(action.summary))
        for e in action.side_effects:
            lines.append(_comment(e, "#   side effect: "))
        if action.destructive:
            lines.append(f"confirm {shlex.quote(f'Step {j} is destructive: {action.summary}.')}")
        for c in action.commands:
            line = files.get(c)
            if line is None:  # an instruction (a comment) that names a patch file: the file written here
                line = c
                for cmd, with_file in files.items():
                    line = line.replace(cmd, with_file)
            lines.append(line)
    lines.append("")
    lines.append(f'echo "plan {index} applied: check the goal again (planner check / planner simulate on a fresh snapshot)"')
    runbook = directory / "runbook.sh"
    runbook.write_text("\n".join(lines) + "\n")
    os.chmod(runbook, 0o755)
    written.append(str(runbook))
    return written


def emit(directory: str, result: dict[str, Any], plans: list[Plan], goal: Goal) -> list[str]:
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise UsageError(f"--emit {directory}: exists and is not a directory")
    root.mkdir(parents=True, exist_ok=True)
    out = root / "remediate.json"
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n")
    written = [str(out)]
    for i, plan in enumerate(plans, 1):
        written += write_plan(root / f"plan-{i}", plan, i, len(plans), goal)
    return written
