"""``planner remediate --emit DIR``: the plans as files a person reviews and runs.

DIR/remediate.json is the command's JSON output.  Each plan gets DIR/plan-N/ with one file per
patch (JSON Patch / merge patch bodies as JSON, deleted objects as YAML backups, created objects
as YAML) and runbook.sh: a commented bash script that runs the plan's kubectl commands in order,
``set -euo pipefail``, and asks for a typed ``yes`` before every destructive step (``--yes``
skips the questions, for automation someone has reviewed).  JSON patches are applied with
``kubectl patch --type json --patch-file``; their ``test`` operations make the API server refuse
a patch when the object changed since the snapshot.

The cluster is pinned.  A snapshot (``planner snapshot``: kubectl's List, passed through) records
no kube-context, so the context is the one given to ``remediate --context``: every kubectl
command of the runbook carries ``--context CONTEXT``, and the runbook refuses to start when the
current context (``kubectl config current-context``) is another one, so that what the reviewer
thinks the cluster is and what it is agree.  Without ``--context`` the runbook says at its top
that no context was pinned, reads the current context once, asks before it goes on (``--yes``
does not ask) and passes that context to every command: a context switched while it runs does
not split the plan across clusters.

Every delete is guarded by the object's uid, as read: ``kubectl delete`` has no precondition
flag, so the runbook sends the API's own DeleteOptions (``preconditions.uid``, and the
propagation policy ``--cascade=orphan`` sets) with ``kubectl delete --raw PATH -f FILE``
(kubectl/pkg/cmd/delete/delete.go RunDelete: --raw sends the file as the DELETE body,
kubectl/pkg/rawhttp/raw.go; the API server decodes a body without a Content-Type as JSON,
apiserver/pkg/endpoints/handlers/negotiation/negotiate.go NegotiateInputSerializerForMediaType,
and answers 409 Conflict when the uid differs, so the runbook stops and an object made since
under the same name is left alone).  A delete whose object has no uid in the snapshot (a
hand-written one) is a plain ``kubectl delete``, and the runbook says it is not guarded.

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

from planner.engines.remediation.actions import API_PATHS, Plan
from planner.engines.remediation.verify import Goal
from planner.errors import PlannerError, UsageError
from planner.files import StagedDir, safe_name

HEADER = """#!/usr/bin/env bash
# planner remediate: {what} {index} of {total} for the goal: {goal}
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

PINNED = """
# kube-context: {shown}, given to planner remediate --context. Every kubectl command below
# names it; the runbook refuses to start when the current context is another one.
KUBE_CONTEXT={context}
CURRENT_CONTEXT="$(kubectl config current-context || true)"
if [ "$CURRENT_CONTEXT" != "$KUBE_CONTEXT" ]; then
  echo "this runbook was written for the kube-context $KUBE_CONTEXT, but the current context is '$CURRENT_CONTEXT'; nothing was changed (kubectl config use-context first, or emit the plans again with --context)" >&2
  exit 1
fi
"""

UNPINNED = """
# kube-context: NONE WAS PINNED (planner remediate --context CONTEXT pins one). The runbook
# reads the current context once, says which it is and asks before going on; every kubectl
# command below then names that context.
KUBE_CONTEXT="$(kubectl config current-context || true)"
if [ -z "$KUBE_CONTEXT" ]; then echo "no kube-context was pinned and kubectl has no current context; nothing was changed" >&2; exit 1; fi
echo "no kube-context was pinned when this runbook was written: it will change the cluster of the current context, $KUBE_CONTEXT" >&2
confirm "No kube-context was pinned: the changes go to the cluster of the current context."
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


def _line(command: str, context: str | None) -> str:
    """A line of the runbook for one of an action's commands: an instruction (``#``) escaped as a
    comment, a command checked by shell_command and given the kube-context: ``--context CONTEXT``
    (quoted) when one was pinned, else ``--context "$KUBE_CONTEXT"`` (the context the runbook read)."""
    if command.startswith("#"):
        return "#" + escape(command[1:])
    rest = shell_command(command)[len("kubectl ") :]
    flag = shlex.quote(context) if context is not None else '"$KUBE_CONTEXT"'
    return f"kubectl --context {flag} {rest}"


def _runs_commands(plan: Plan) -> bool:
    return any(not c.startswith("#") for a in plan.actions for c in a.commands)


def check_context(context: str | None) -> None:
    """A kube-context the runbooks can pin: not empty, and on one line (no control characters:
    ``escape`` would change it), so that it is one shell word on the lines that use it."""
    if context is not None and (not context or escape(context) != context or "\\" in context):
        raise UsageError(f"--context {escape(context)!r}: a kube-context name the runbooks can pin: not empty, no control characters or backslashes")


def write_plan(staged: StagedDir, folder: str, plan: Plan, index: int, total: int, goal: Goal, context: str | None = None) -> list[str]:
    check_context(context)
    staged.mkdir(folder)
    written: list[str] = []
    cost = ", ".join(f"{k} {v}" for k, v in plan.cost.to_dict().items())
    verified = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in plan.verified.items()) or "yes"
    what = "alternative" if plan.changes_goal else "plan"
    lines = [HEADER.format(what=what, index=index, total=total, goal=escape(goal.describe()), cost=escape(cost), verified=escape(verified))]
    if _runs_commands(plan):
        if context is not None:
            lines.append(PINNED.format(shown=escape(context), context=shlex.quote(context)))
        else:
            lines.append(UNPINNED)
    if plan.changes_goal:
        lines.append(_comment("an ALTERNATIVE: this plan changes the goal (it reaches another replica count than the one asked)"))
    for j, action in enumerate(plan.actions, 1):
        files: dict[str, str] = {}
        notes: dict[str, list[str]] = {}
        for k, patch in enumerate(action.patches, 1):
            name = f"{j:02d}-{k}-{safe_name(patch.default_file())}"
            if patch.type in ("json", "merge"):
                text = json.dumps(patch.body, indent=2, ensure_ascii=False) + "\n"
            else:
                text = yaml.safe_dump(patch.body, sort_keys=False, allow_unicode=True)
            written.append(staged.write(f"{folder}/{name}", text))
            if patch.type == "delete" and patch.uid and patch.kind in API_PATHS:
                opts = f"{j:02d}-{k}-{safe_name(patch.default_file().rsplit('.', 1)[0] + '.options.json')}"
                written.append(staged.write(f"{folder}/{opts}", json.dumps(patch.delete_options(), indent=2) + "\n"))
                files[patch.kubectl()] = patch.kubectl(file=opts)
                notes[patch.kubectl()] = [
                    f"# {patch.kind} {patch.key} is deleted only if its uid is still {patch.uid} (DeleteOptions.preconditions in "
                    f"{opts}; the API server answers 409 Conflict otherwise, and the runbook stops); a backup of it as read: {name}"
                ]
            elif patch.type == "delete":
                files[patch.kubectl()] = patch.kubectl()
                notes[patch.kubectl()] = [f"# NOT GUARDED: the snapshot records no uid for {patch.kind} {patch.key}, so this delete has no uid precondition"]
            else:
                files[patch.kubectl()] = patch.kubectl(file=name)
        lines.append("")
        flags = " DESTRUCTIVE" if action.destructive else ""
        flags += " (advisory)" if action.advisory else ""
        flags += " POLICY DECISION" if action.policy_decision else ""
        lines.append(_comment(f"--- step {j}: {action.type} {action.target}{flags}"))
        lines.append(_comment(action.summary))
        for e in action.side_effects:
            lines.append(_comment(e, "#   side effect: "))
        for e in action.assumes:
            lines.append(_comment(e, "#   assumes: "))
        for e in action.risks:
            lines.append(_comment(e, "#   risk: "))
        for h in action.helm:
            who = f"release {h['release']} (namespace {h['release_namespace']})" if h.get("release") else "a Helm release (not named)"
            lines.append(_comment(f"{h['kind']} {h['name']} is managed by Helm, {who}: change the chart's values too", "#   helm: "))
        if action.destructive:
            lines.append(f"confirm {shlex.quote(escape(f'Step {j} is destructive: {action.summary}.'))}")
        elif action.policy_decision and any(not c.startswith("#") for c in action.commands):
            lines.append(f"confirm {shlex.quote(escape(f'Step {j} is a policy decision: {action.summary}.'))}")
        for c in action.commands:
            for n in notes.get(c, []):
                lines.append(_line(n, context))
            line = files.get(c)
            if line is None:  # an instruction (a comment) that names a patch file: the file written here
                line = c
                for cmd, with_file in files.items():
                    line = line.replace(cmd, with_file)
            lines.append(_line(line, context))
    lines.append("")
    lines.append(f'echo "{what} {index} applied: check the goal again (planner check / planner simulate on a fresh snapshot)"')
    written.append(staged.write(f"{folder}/runbook.sh", "\n".join(lines) + "\n", mode=0o755))
    return written


def check_dir(directory: str) -> None:
    """Refuse DIR now (UsageError, exit 2) if emit would refuse it at the end: before the search."""
    StagedDir(directory, "--emit")


def emit(
    directory: str,
    result: dict[str, Any],
    plans: list[Plan],
    goal: Goal,
    alternatives: list[Plan] | None = None,
    context: str | None = None,
) -> list[str]:
    """Write DIR whole: built in a fresh folder beside it, moved into place at the end (see
    planner.files.StagedDir: DIR a symlink, a file, or a folder planner did not make is refused).
    Plans that reach the goal are DIR/plan-N, those that change it DIR/alternative-N."""
    check_context(context)
    with StagedDir(directory, "--emit") as staged:
        written = [staged.write("remediate.json", json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n")]
        for i, plan in enumerate(plans, 1):
            written += write_plan(staged, f"plan-{i}", plan, i, len(plans), goal, context)
        alts = alternatives or []
        for i, plan in enumerate(alts, 1):
            written += write_plan(staged, f"alternative-{i}", plan, i, len(alts), goal, context)
    return written
