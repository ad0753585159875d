"""``planner remediate --emit DIR``: the plans as files a person reviews and runs.

DIR/remediate.json is the command's JSON output.  Each plan gets DIR/plan-N/ with one file per
patch (JSON Patch / merge patch bodies as JSON, deleted objects as YAML backups, created objects
as YAML) and runbook.sh: a commented bash script that runs the plan's kubectl commands in order,
``set -euo pipefail``, and asks for a typed ``yes`` before every destructive step (``--yes``
skips the questions, for automation someone has reviewed).  JSON patches are applied with
``kubectl patch --type json --patch-file``; their ``test`` operations make the API server refuse
a patch when the object changed since the snapshot.

What it writes stays inside DIR and runs only what it says (docs/remediate.md, "--emit DIR"):
DIR is built in a fresh folder beside it and moved into place whole (planner.files.StagedDir:
nothing already in DIR is opened, a symlink is never followed, a folder planner did not make is
refused); file names are made of ``A-Za-z0-9._-`` only; every command of a runbook is checked to
be a kubectl command whose every word is quoted with ``shlex.quote`` (shell_command); every
comment is one line, its control characters escaped (escape).
"""

from __future__ import annotations

import json
import shlex
import unicodedata
from typing import Any

import yaml

from planner.engines.remediation.actions import Plan
from planner.engines.remediation.verify import Goal
from planner.errors import PlannerError
from planner.files import StagedDir, safe_name

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


def escape(text: str) -> str:
    """``text`` on one line: backslashes doubled, newlines, tabs and every other control character
    (C0, DEL, C1, the Unicode line and paragraph separators) written as ``\\n``, ``\\t``,
    ``\\xNN``, ``\\uNNNN``; so text from the input can never end a comment of the runbook."""
    out = []
    for c in text:
        o = ord(c)
        if c == "\\":
            out.append("\\\\")
        elif c in _NAMED:
            out.append(_NAMED[c])
        elif o < 0x20 or 0x7F <= o < 0xA0:
            out.append(f"\\x{o:02x}")
        elif c in ("\u2028", "\u2029") or unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"\\u{o:04x}")
        else:
            out.append(c)
    return "".join(out)


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _comment(text: str, indent: str = "# ") -> str:
    return indent + escape(text)


def shell_command(cmd: str) -> str:
    """``cmd`` as the runbook runs it, checked: a kubectl command whose every word is quoted with
    ``shlex.quote`` (or is a bare ``>`` redirecting it to a file), joined by single spaces; so no
    value in it can be read by the shell as anything but one argument.  Anything else is an error
    of planner's own (the command was built without quoting), never written.  A redirect
    (``> FILE``, the backups) must end the command and name a plain file of the plan's folder."""
    try:
        words = shlex.split(cmd)
    except ValueError:
        words = []
    canonical = " ".join(w if (w == ">" and i > 0) else shlex.quote(w) for i, w in enumerate(words))
    redirect = ">" not in words or (words.index(">") == len(words) - 2 and safe_name(words[-1]) == words[-1])
    if not words or words[0] != "kubectl" or canonical != cmd or not redirect:
        raise PlannerError(f"remediate --emit: refusing to write a command that is not quoted for the shell: {escape(cmd)}")
    return cmd


def _line(command: str) -> str:
    """A line of the runbook for one of an action's commands: an instruction (``#``) escaped as a
    comment, a command checked by shell_command."""
    if command.startswith("#"):
        return "#" + escape(command[1:])
    return shell_command(command)


def write_plan(staged: StagedDir, folder: str, plan: Plan, index: int, total: int, goal: Goal) -> list[str]:
    staged.mkdir(folder)
    written: list[str] = []
    cost = ", ".join(f"{k} {v}" for k, v in plan.cost.to_dict().items())
    verified = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in plan.verified.items()) or "yes"
    lines = [HEADER.format(index=index, total=total, goal=escape(goal.describe()), cost=escape(cost), verified=escape(verified))]
    for j, action in enumerate(plan.actions, 1):
        files: dict[str, str] = {}
        for k, patch in enumerate(action.patches, 1):
            name = f"{j:02d}-{k}-{safe_name(patch.default_file())}"
            if patch.type in ("json", "merge"):
                text = json.dumps(patch.body, indent=2, ensure_ascii=False) + "\n"
            else:
                text = yaml.safe_dump(patch.body, sort_keys=False, allow_unicode=True)
            written.append(staged.write(f"{folder}/{name}", text))
            files[patch.kubectl()] = patch.kubectl(file=name)
        lines.append("")
        flags = " DESTRUCTIVE" if action.destructive else ""
        flags += " (advisory)" if action.advisory else ""
        lines.append(_comment(f"--- step {j}: {action.type} {action.target}{flags}"))
        lines.append(_comment(action.summary))
        for e in action.side_effects:
            lines.append(_comment(e, "#   side effect: "))
        if action.destructive:
            lines.append(f"confirm {shlex.quote(escape(f'Step {j} is destructive: {action.summary}.'))}")
        for c in action.commands:
            line = files.get(c)
            if line is None:  # an instruction (a comment) that names a patch file: the file written here
                line = c
                for cmd, with_file in files.items():
                    line = line.replace(cmd, with_file)
            lines.append(_line(line))
    lines.append("")
    lines.append(f'echo "plan {index} applied: check the goal again (planner check / planner simulate on a fresh snapshot)"')
    written.append(staged.write(f"{folder}/runbook.sh", "\n".join(lines) + "\n", mode=0o755))
    return written


def check_dir(directory: str) -> None:
    """Refuse DIR now (UsageError, exit 2) if emit would refuse it at the end: before the search."""
    StagedDir(directory, "--emit")


def emit(directory: str, result: dict[str, Any], plans: list[Plan], goal: Goal) -> list[str]:
    """Write DIR whole: built in a fresh folder beside it, moved into place at the end (see
    planner.files.StagedDir: DIR a symlink, a file, or a folder planner did not make is refused)."""
    with StagedDir(directory, "--emit") as staged:
        written = [staged.write("remediate.json", json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n")]
        for i, plan in enumerate(plans, 1):
            written += write_plan(staged, f"plan-{i}", plan, i, len(plans), goal)
    return written
