"""`planner audit`: glue between the CLI and planner.engines.audit: loading, the JSON shape, the table and SARIF."""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Iterable
from fnmatch import fnmatchcase
from typing import Any

from planner.engines.audit import NOTE, RULES, SEVERITIES, Scope, audit, reaches
from planner.engines.audit.scope import rule_list, selected_rules, unknown_rules
from planner.errors import UsageError
from planner.load import Limits, collect_paths, load_snapshot
from planner.output import bad, good, note, warn

FAIL_ON = SEVERITIES  # note | warning | error


def audit_command(
    paths: Iterable[str],
    namespace: str | Iterable[str] | None,
    all_namespaces: bool,
    limits: Limits,
    opts: Any = None,
    *,
    exclude: Iterable[str] = (),
    rules: Iterable[str] = (),
    skip_rules: Iterable[str] = (),
    overlay: bool = True,
) -> dict[str, Any]:
    """``namespace``: -n (one or several names or shell patterns); ``exclude``: --exclude-namespace;
    ``rules`` / ``skip_rules``: --rules / --skip-rules (comma-separated, repeatable); ``overlay``:
    the inputs after the first applied over it (--overlay/--no-overlay), as every command reads
    them.  One -n that names a namespace (not a pattern) is also the namespace of namespace-less
    objects of the inputs, as with the other commands (kubectl apply -n)."""
    include = [namespace] if isinstance(namespace, str) else list(namespace or [])
    if include and all_namespaces:
        raise UsageError("audit: give -n NAMESPACE or -A, not both")
    only, skip = rule_list(rules), rule_list(skip_rules)
    for flag, ids in (("--rules", only), ("--skip-rules", skip)):
        bad = unknown_rules(ids)
        if bad:
            raise UsageError(f"audit: unknown rule {bad[0]!r} in {flag} (the rules: {', '.join(RULES)})")
    chosen = selected_rules(only or None, skip)
    if not chosen:
        raise UsageError("audit: --rules and --skip-rules leave no rule to run")
    scope = Scope(include=tuple(include) or None, exclude=tuple(exclude), all_namespaces=all_namespaces)
    paths = list(paths)
    snap = load_snapshot(paths, limits, notice=note, overlay=overlay, namespace=loading_namespace(include))
    names = {k.split("/", 1)[0] for k in (*snap.deployments, *snap.statefulsets)}
    for pattern in include:
        if not any(scope.hazards(n) and fnmatchcase(n, pattern) for n in names):
            note(f"note: no workload in namespace {pattern}")
    res = audit(snap, opts=opts, scope=scope, rules=chosen)
    findings = [f.to_json() for f in res.findings]
    return {
        "findings": findings,
        "suppressed": [f.to_json() for f in res.suppressed],
        "summary": {
            "workloads": len(res.workloads),
            "errors": sum(1 for f in findings if f["severity"] == "error"),
            "warnings": sum(1 for f in findings if f["severity"] == "warning"),
            "notes": sum(1 for f in findings if f["severity"] == NOTE),
            "suppressed": len(res.suppressed),
        },
        "namespaces": include or "all",
        "scope": scope.to_json(),
        "rules": res.rules,
        "inputs": _inputs(paths),
        "notes": res.notes + snap.notes,
    }


def _inputs(paths: list[str]) -> list[str]:
    try:
        return collect_paths(paths)
    except Exception:  # already read successfully by load_snapshot; a race is not worth an error
        return list(paths)


def loading_namespace(include: list[str]) -> str | None:
    """The namespace namespace-less objects go into: the one -n given, when it names a namespace
    rather than a pattern; None (default, as kubectl) otherwise."""
    if len(include) == 1 and not any(ch in include[0] for ch in "*?["):
        return include[0]
    return None


def exit_code(result: dict, fail_on: str) -> int:
    return 1 if any(reaches(f["severity"], fail_on) for f in result["findings"]) else 0


def render_table(r: dict, show_notes: bool = False) -> str:
    """Findings by object, errors first.  Notes (below the default gate) are counted per rule in one
    line unless ``show_notes`` (--fail-on note) asks for them in full; ignored findings are listed
    with their reason."""
    s = r["summary"]
    shown = [f for f in r["findings"] if show_notes or f["severity"] != NOTE]
    notes = [f for f in r["findings"] if f["severity"] == NOTE]
    ignored = r.get("suppressed") or []
    lines = []
    counts = f"{s['errors']} error(s), {s['warnings']} warning(s)" + (f", {len(notes)} note(s)" if notes else "")
    if not r["findings"]:
        lines.append(good(f"No hazards found in {s['workloads']} workload(s).") + (f" {len(ignored)} finding(s) ignored." if ignored else ""))
    elif not s["errors"] and not s["warnings"]:
        lines.append(good(f"No warnings or errors in {s['workloads']} workload(s) audited") + f": {len(notes)} note(s)"
                     + (f"; {len(ignored)} finding(s) ignored" if ignored else ""))
    else:
        lines.append(f"{len(r['findings'])} finding(s) ({counts}) in {s['workloads']} workload(s) audited"
                     + (f"; {len(ignored)} ignored" if ignored else ""))
    by_object: dict[str, list[dict]] = {}
    for f in shown:
        by_object.setdefault(f["objects"][0], []).append(f)
    width = 100
    for name, fs in by_object.items():
        lines.append("")
        lines.append(name)
        for f in fs:
            sev = f"{f['severity'].upper():<8}"
            sev = bad(sev) if f["severity"] == "error" else warn(sev) if f["severity"] == "warning" else sev
            head = f"  {sev} {f['rule']}"
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
    if notes and not show_notes:
        per_rule = Counter(f["rule"] for f in notes)
        lines.append("")
        lines.extend(_wrap(f"{len(notes)} note(s), below the gate: " + ", ".join(f"{k} {v}" for k, v in sorted(per_rule.items()))
                           + " (-o json lists them; --fail-on note shows them here and fails on them).", width, 0, 2))
    if ignored:
        lines.append("")
        lines.append(f"{len(ignored)} finding(s) ignored by annotation:")
        for f in ignored:
            lines.append(f"  {f['objects'][0]}  {f['rule']} ({f['severity']})")
            lines.extend(_wrap(f"ignored: {f['suppressed']['reason']}", width, 11, 11))
    if r.get("notes"):
        lines.append("")
        for x in r["notes"]:
            lines.append(f"note: {x}")
    return "\n".join(lines)


def _wrap(text: str, width: int, first: int, rest: int) -> list[str]:
    return textwrap.wrap(text, width=width, initial_indent=" " * first, subsequent_indent=" " * rest,
                         break_on_hyphens=False, break_long_words=False)


def render_sarif(r: dict, docs_url: str | None = None) -> dict:
    from planner.engines.audit.sarif import to_sarif

    return to_sarif(r, r.get("inputs") or [], docs_url)


def check_docs_url(url: str | None) -> str | None:
    """--docs-url: an absolute http(s) URL (SARIF's helpUri must be absolute), without a fragment."""
    if url is None:
        return None
    from urllib.parse import urlsplit

    u = urlsplit(url)
    if u.scheme not in ("http", "https") or not u.netloc or u.fragment:
        raise UsageError(f"audit: --docs-url {url!r} is not an absolute http(s) URL without a #fragment "
                         "(where docs/audit.md is served, e.g. https://git.example.com/planner/blob/main/docs/audit.md)")
    return url


def rules_reference() -> list[dict]:
    return [{"id": x.id, "severity": x.severity, "summary": x.short} for x in RULES.values()]
