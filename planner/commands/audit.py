"""`planner audit`: glue between the CLI and planner.engines.audit: loading, the JSON shape, the table and SARIF."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import Any

from planner.engines.audit import RULES, SEVERITIES, audit, reaches
from planner.errors import UsageError
from planner.load import Limits, collect_paths, load_snapshot
from planner.output import note

FAIL_ON = SEVERITIES  # warning | error


def audit_command(paths: Iterable[str], namespace: str | None, all_namespaces: bool, limits: Limits, opts: Any = None) -> dict[str, Any]:
    if namespace and all_namespaces:
        raise UsageError("audit: give -n NAMESPACE or -A, not both")
    paths = list(paths)
    snap = load_snapshot(paths, limits, notice=note)
    namespaces = [namespace] if namespace else None
    if namespace and not any(k.startswith(namespace + "/") for k in (*snap.deployments, *snap.statefulsets)):
        note(f"note: no workload in namespace {namespace}")
    res = audit(snap, namespaces, opts, progress=_progress)
    findings = [f.to_json() for f in res.findings]
    return {
        "findings": findings,
        "summary": {
            "workloads": len(res.workloads),
            "errors": sum(1 for f in findings if f["severity"] == "error"),
            "warnings": sum(1 for f in findings if f["severity"] == "warning"),
        },
        "namespaces": namespaces or "all",
        "inputs": _inputs(paths),
        "notes": res.notes + snap.notes,
    }


def _inputs(paths: list[str]) -> list[str]:
    try:
        return collect_paths(paths)
    except Exception:  # already read successfully by load_snapshot; a race is not worth an error
        return list(paths)


def _progress(msg: str) -> None:
    import sys

    if sys.stderr.isatty():
        sys.stderr.write("\r" + msg[:70].ljust(70))
        sys.stderr.flush()
        if msg.startswith("auditing") and "(" in msg:
            done, _, total = msg.rsplit("(", 1)[1].rstrip(")").partition("/")
            if done == total:
                sys.stderr.write("\r" + " " * 70 + "\r")


def exit_code(result: dict, fail_on: str) -> int:
    return 1 if any(reaches(f["severity"], fail_on) for f in result["findings"]) else 0


def render_table(r: dict) -> str:
    s = r["summary"]
    n = len(r["findings"])
    lines = []
    if not n:
        lines.append(f"No hazards found in {s['workloads']} workload(s).")
    else:
        lines.append(
            f"{n} finding(s) ({s['errors']} error(s), {s['warnings']} warning(s)) in {s['workloads']} workload(s) audited"
        )
    by_object: dict[str, list[dict]] = {}
    for f in r["findings"]:
        by_object.setdefault(f["objects"][0], []).append(f)
    width = 100
    for name, fs in by_object.items():
        lines.append("")
        lines.append(name)
        for f in fs:
            head = f"  {f['severity'].upper():<8} {f['rule']}"
            lines.append(head)
            lines.extend(_wrap(f["message"], width, 11, 11))
            others = f["objects"][1:]
            if others:
                lines.extend(_wrap("objects: " + ", ".join(others), width, 11, 20))
            fix = f.get("fix")
            if fix:
                acts = fix.get("actions") or []
                text = "; ".join(a.get("summary") or a.get("type", "") for a in acts) or "see -o json"
                lines.extend(_wrap("fix: " + text, width, 11, 16))
    if r.get("notes"):
        lines.append("")
        for x in r["notes"]:
            lines.append(f"note: {x}")
    return "\n".join(lines)


def _wrap(text: str, width: int, first: int, rest: int) -> list[str]:
    return textwrap.wrap(text, width=width, initial_indent=" " * first, subsequent_indent=" " * rest,
                         break_on_hyphens=False, break_long_words=False)


def render_sarif(r: dict) -> dict:
    from planner.engines.audit.sarif import to_sarif

    return to_sarif(r, r.get("inputs") or [])


def rules_reference() -> list[dict]:
    return [{"id": x.id, "severity": x.severity, "summary": x.short} for x in RULES.values()]
