"""The ignore annotation: a finding the owners of an object have looked at and accepted.

    metadata:
      annotations:
        audit.planner.dev/ignore: "selector-counts-other-revisions: the chart bumps a version label per release"

The value is one line per reason, each ``rule-id[,rule-id...]: reason``; the reason is required
(it is shown as "ignored: <reason>" and kept in JSON and SARIF).  A finding is ignored when the
object it is about carries the annotation for its rule: the workload's own
``metadata.annotations`` or its pod template's (``spec.template.metadata.annotations``), and, for
Pending pods, the pods themselves (a pod copies its template's annotations).  Ignored findings
never fail the gate; they are listed apart (JSON ``suppressed``, SARIF ``suppressions`` of kind
``inSource``).

A malformed value (no reason, an unknown rule) is bad input: a one-line error naming the object
and the annotation, exit 2, so that a typo does not silently leave the gate failing on the
finding it meant to ignore.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from planner.engines.audit.model import Finding, obj
from planner.engines.audit.rules import IGNORE_ANNOTATION, RULES
from planner.errors import InputError
from planner.snapshot import Snapshot

FORMAT = '"rule-id[,rule-id...]: reason", one line per reason'


def parse(value: str, field: str) -> dict[str, str]:
    """rule id -> reason.  ``field`` names the object and the annotation, for the error."""
    out: dict[str, str] = {}
    lines = [ln.strip() for ln in str(value).splitlines() if ln.strip()]
    if not lines:
        raise InputError(f"{field}: empty; write {FORMAT}")
    for ln in lines:
        ids, sep, reason = ln.partition(":")
        reason = reason.strip()
        rule_ids = [x.strip() for x in ids.split(",")]
        if not sep or not reason:
            raise InputError(f"{field}: {ln!r} gives no reason; write {FORMAT}")
        if not all(rule_ids):
            raise InputError(f"{field}: {ln!r} has an empty rule id; write {FORMAT}")
        for rid in rule_ids:
            if rid not in RULES:
                raise InputError(f"{field}: unknown rule {rid!r} (the rules: {', '.join(RULES)})")
            out[rid] = reason
    return out


class Ignores:
    """The ignore annotations of the objects findings can be about, parsed once per value."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self._parsed: dict[str, dict[str, str]] = {}

    def _of(self, annotations: Mapping[str, str] | None, name: str, field: str) -> dict[str, str]:
        if not annotations or IGNORE_ANNOTATION not in annotations:
            return {}
        value = annotations[IGNORE_ANNOTATION]
        if value not in self._parsed:
            self._parsed[value] = parse(value, f"{name}: {field}[{IGNORE_ANNOTATION}]")
        return self._parsed[value]

    def _sources(self, name: str) -> list[tuple[Mapping[str, str] | None, str]]:
        """The annotations that speak for an object named ``kind/namespace/name``: its own and
        its pod template's."""
        kind, _, rest = name.partition("/")
        snap = self.snap
        table: dict[str, Any] = {
            "deployment": snap.deployments,
            "statefulset": snap.statefulsets,
            "daemonset": snap.daemonsets,
            "replicaset": snap.replicasets,
            "pod": snap.pods,
        }
        o = table.get(kind, {}).get(rest)
        if o is None:
            return []
        out: list[tuple[Mapping[str, str] | None, str]] = [(o.annotations, "metadata.annotations")]
        template = getattr(o, "template", None)
        if template is not None:
            out.append((template.annotations, "spec.template.metadata.annotations"))
        return out

    def check(self, names: Iterable[str]) -> None:
        """Parse the annotations of these objects: an error for a malformed one, whether or not a
        finding is about the object."""
        for name in names:
            for values, field in self._sources(name):
                self._of(values, name, field)

    def reason(self, name: str, rule: str) -> tuple[str, str] | None:
        """(reason, the annotation's field) when the object ignores the rule."""
        for values, field in self._sources(name):
            rules = self._of(values, name, field)
            if rule in rules:
                return rules[rule], field
        return None

    def suppression(self, f: Finding) -> dict | None:
        """Why ``f`` is ignored (None: it is not): the subject's annotation, or, for Pending pods,
        the annotation every one of the pods carries."""
        subject = f.objects[0]
        hit = self.reason(subject, f.rule)
        if hit is None and f.rule == "pods-pending":
            pods = [obj("Pod", *p.split("/", 1)) for p in f.details.get("pods") or []]
            hits = [self.reason(p, f.rule) for p in pods]
            if pods and all(h is not None for h in hits):
                subject, hit = pods[0], hits[0]
        if hit is None:
            return None
        reason, field = hit
        return {"kind": "annotation", "annotation": IGNORE_ANNOTATION, "object": subject, "field": field, "reason": reason}
