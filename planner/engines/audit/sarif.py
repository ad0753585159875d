"""SARIF 2.1.0 output for GitHub code scanning (and every other SARIF viewer).

One run; the tool's rules are planner.engines.audit.rules; each finding is a result with its rule, level,
message, a location and the objects it involves as logical locations, a stable partial
fingerprint, and, when planner remediate proposed a plan, a SARIF ``fix``.

Locations: the objects are looked up in the input files (planner.engines.audit.locate); an object that is
not found there (a scenario's shorthand pods, stdin) is located at the first line of the first
input, and always named by a logical location ``kind/namespace/name``.  GitHub needs a physical
location on every result to show it.

Rules: every rule of planner.engines.audit.rules with its descriptions, default level, ``help``
(text and Markdown: what it finds, when it is milder, what happened to the people who met it, the
public write-ups and the Kubernetes documentation) and ``helpUri``: the rule's section of
docs/audit.md (``--docs-url`` gives where that file is served; without it, the path relative to
planner's repository, since planner has no published documentation URL: see docs/audit.md).

Ignored findings (planner.engines.audit.ignore) are results too, with a ``suppressions`` entry of
kind ``inSource`` (the annotation is in the object, as a suppression attribute is in source code),
status ``accepted`` and the annotation's reason as ``justification``: viewers show them as
suppressed.

Fixes: a remediate plan changes objects in the cluster (JSON patches, kubectl commands), not the
text of the input files.  Each patch becomes an ``artifactChange`` that creates the patch file
``planner-fixes/<n>-<kind>-<namespace>-<name>.<type>.json`` (what ``planner remediate --emit``
writes), and the fix's description gives the actions and their kubectl commands.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from planner import __version__
from planner.engines.audit.locate import Locator
from planner.engines.audit.rules import RULES, sarif_name

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"

KINDS = {
    "deployment": "Deployment",
    "statefulset": "StatefulSet",
    "pod": "Pod",
    "persistentvolumeclaim": "PersistentVolumeClaim",
    "persistentvolume": "PersistentVolume",
    "horizontalpodautoscaler": "HorizontalPodAutoscaler",
    "poddisruptionbudget": "PodDisruptionBudget",
    "replicaset": "ReplicaSet",
    "node": "Node",
    "daemonset": "DaemonSet",
    "job": "Job",
}


def _split(name: str) -> tuple[str, str | None, str]:
    parts = name.split("/")
    kind = KINDS.get(parts[0], parts[0])
    if len(parts) == 3:
        return kind, parts[1], parts[2]
    return kind, None, parts[-1]


def _uri(path: str) -> tuple[str, str | None]:
    """A URI reference for ``path``: relative to the working directory (uriBaseId %SRCROOT%) when
    it is inside it, else an absolute file URI."""
    if path == "-":
        return "stdin", SRCROOT
    p = Path(path)
    try:
        rel = p.resolve().relative_to(Path.cwd().resolve())
        return quote(rel.as_posix()), SRCROOT
    except ValueError:
        return p.resolve().as_uri(), None


def _artifact_location(path: str, index: int | None = None) -> dict:
    uri, base = _uri(path)
    loc: dict[str, Any] = {"uri": uri}
    if base:
        loc["uriBaseId"] = base
    if index is not None:
        loc["index"] = index
    return loc


def _logical(name: str) -> dict:
    kind, ns, short = _split(name)
    out: dict[str, Any] = {"name": short, "fullyQualifiedName": name, "kind": "resource"}
    if ns:
        out["decoratedName"] = f"{kind} {ns}/{short}"
    else:
        out["decoratedName"] = f"{kind} {short}"
    return out


def _fingerprint(f: dict) -> str:
    d = f.get("details") or {}
    key = "|".join(str(x) for x in (f["rule"], f["objects"][0], d.get("field", ""), d.get("zone", ""), d.get("pod", ""), d.get("pdb", "")))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _rule_descriptor(rule_id: str, docs_url: str | None = None) -> dict:
    r = RULES[rule_id]
    return {
        "id": r.id,
        "name": sarif_name(r.id),
        "shortDescription": {"text": r.short},
        "fullDescription": {"text": r.full},
        "helpUri": r.help_uri(docs_url),
        "help": {"text": r.help_text(), "markdown": r.help_markdown()},
        "defaultConfiguration": {"level": r.severity},
        "properties": {"tags": ["kubernetes", "scheduling", "reliability"], "precision": "high"},
    }


def _fix(plan: dict, n0: int) -> tuple[dict, int]:
    actions = plan.get("actions") or []
    changes = []
    lines = []
    n = n0
    for a in actions:
        lines.append(f"{a.get('type', '')} {a.get('target', '')}: {a.get('summary', '')}".strip())
        lines.extend(f"  $ {c}" for c in a.get("commands") or [])
        for p in a.get("patches") or []:
            n += 1
            name = "-".join(x for x in (str(p.get("kind", "")).lower(), p.get("namespace") or "", str(p.get("name", ""))) if x)
            uri = f"planner-fixes/{n:02d}-{name}.{p.get('type', 'json')}.json"
            body = json.dumps(p.get("body"), indent=2, ensure_ascii=False) + "\n"
            changes.append(
                {
                    "artifactLocation": {"uri": quote(uri), "uriBaseId": SRCROOT,
                                         "description": {"text": f"{p.get('type', 'json')} patch for {p.get('kind')} {name}"}},
                    "replacements": [{"deletedRegion": {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1},
                                      "insertedContent": {"text": body}}],
                }
            )
    fix: dict[str, Any] = {"description": {"text": "\n".join(lines) or "planner remediate plan"}, "artifactChanges": changes,
                           "properties": {"plan": plan}}
    return fix, n


def _suppression(f: dict, locator: Locator) -> dict:
    why = f["suppressed"]
    loc: dict[str, Any] = {"logicalLocations": [_logical(why["object"])],
                           "message": {"text": f"{why['object']}: {why['field']}[{why['annotation']}]"}}
    kind, _ns, short = _split(why["object"])
    at = locator.find(kind, short)
    if at:
        loc["physicalLocation"] = {"artifactLocation": _artifact_location(at[0]), "region": {"startLine": at[1]}}
    return {"kind": "inSource", "status": "accepted", "justification": why["reason"], "location": loc}


def to_sarif(result: dict, inputs: list[str], docs_url: str | None = None) -> dict:
    locator = Locator(inputs)
    files = [p for p in inputs if p != "-"] or ["-"]
    artifacts: list[dict] = []
    index: dict[str, int] = {}

    def artifact(path: str) -> int:
        if path not in index:
            index[path] = len(artifacts)
            artifacts.append({"location": _artifact_location(path)})
        return index[path]

    used = sorted({f["rule"] for f in result["findings"]})
    rule_ids = list(RULES)
    results = []
    fix_n = 0
    for f in [*result["findings"], *(result.get("suppressed") or [])]:
        found = None
        for name in f["objects"]:
            kind, _ns, short = _split(name)
            found = locator.find(kind, short)
            if found:
                break
        path, line = found if found else (files[0], 1)
        i = artifact(path)
        related = []
        for j, name in enumerate(f["objects"][1:], start=1):
            kind, _ns, short = _split(name)
            at = locator.find(kind, short)
            if at:
                related.append({"id": j, "message": {"text": name},
                                "physicalLocation": {"artifactLocation": _artifact_location(at[0], artifact(at[0])),
                                                     "region": {"startLine": at[1]}},
                                "logicalLocations": [_logical(name)]})
        res: dict[str, Any] = {
            "ruleId": f["rule"],
            "ruleIndex": rule_ids.index(f["rule"]),
            "level": f["severity"],
            "message": {"text": f["message"]},
            "locations": [
                {
                    "physicalLocation": {"artifactLocation": _artifact_location(path, i), "region": {"startLine": line}},
                    "logicalLocations": [_logical(n) for n in f["objects"]],
                }
            ],
            "partialFingerprints": {"plannerFinding/v1": _fingerprint(f)},
            "properties": {"objects": f["objects"], "details": f.get("details") or {}},
        }
        if related:
            res["relatedLocations"] = related
        if f.get("suppressed"):
            res["suppressions"] = [_suppression(f, locator)]
        if f.get("fix"):
            fix, fix_n = _fix(f["fix"], fix_n)
            res["fixes"] = [fix]
        results.append(res)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "planner",
                "fullName": "planner audit",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule_descriptor(r, docs_url) for r in rule_ids],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "artifacts": artifacts,
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "note", "message": {"text": n}} for n in result.get("notes", [])
        ]}],
        "results": results,
        "columnKind": "utf16CodeUnits",
        "properties": {"workloads": result.get("summary", {}).get("workloads", 0), "rules_reported": used,
                       "rules_run": result.get("rules", rule_ids), "scope": result.get("scope", {})},
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
