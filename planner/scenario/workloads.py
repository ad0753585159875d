"""The Deployments and StatefulSets of ``objects`` and their ``revisions``: older pod templates,
each a JSON merge patch on the workload's template, for pods of an earlier revision.  ``pods``
and ``revisions`` name a workload as ``KIND/NAME`` (``Workloads.resolve``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from planner.mergepatch import apply_merge_patch
from planner.scenario.fields import Fields, type_name

WORKLOAD_KINDS = {"statefulset": "StatefulSet", "deployment": "Deployment"}
REVISION_KEYS = ("workload", "namespace", "name", "template")


@dataclass
class Workload:
    kind: str  # Deployment | StatefulSet
    namespace: str
    name: str
    obj: dict  # the emitted (augmented) object
    revisions: list[tuple[str, dict]] = field(default_factory=list)  # (revision name, template), oldest first

    @property
    def ref(self) -> str:
        return f"{self.kind.lower()}/{self.name}"

    def template_of(self, revision: str) -> dict:
        """The pod template of a revision ("current": the workload's own)."""
        if revision == "current":
            return self.obj["spec"]["template"]
        return dict(self.revisions)[revision]


@dataclass
class Workloads:
    by_key: dict[tuple[str, str, str], Workload] = field(default_factory=dict)  # (kind, ns, name), in objects order

    def __iter__(self) -> Iterator[Workload]:
        return iter(self.by_key.values())

    def add(self, w: Workload) -> None:
        self.by_key[(w.kind, w.namespace, w.name)] = w

    def resolve(self, f: Fields, path: str, ref: Any, namespace: Any) -> Workload | None:
        """The workload ``KIND/NAME`` in ``namespace`` (default "default"), or None after reporting."""
        if not isinstance(ref, str) or "/" not in ref:
            if ref is None:
                f.required(path)
            else:
                f.invalid(path, ref, "must be KIND/NAME: statefulset/<name> or deployment/<name>")
            return None
        kind_s, _, name = ref.partition("/")
        kind = WORKLOAD_KINDS.get(kind_s.lower())
        if kind is None:
            f.unsupported(path, ref, tuple(f"{k}/<name>" for k in WORKLOAD_KINDS))
            return None
        ns = namespace if isinstance(namespace, str) and namespace else "default"
        w = self.by_key.get((kind, ns, name))
        if w is None:
            f.not_found(path, ref if ns == "default" else f"{ns}/{ref}")
        return w


def read_revisions(doc: dict, f: Fields, workloads: Workloads) -> None:
    for i, r in enumerate(f.list_of("revisions", doc.get("revisions")) or []):
        p = f"revisions[{i}]"
        if not isinstance(r, dict):
            f.invalid(p, r, f"must be a mapping, not {type_name(r)}")
            continue
        f.keys(p, r, REVISION_KEYS)
        w = workloads.resolve(f, f"{p}.workload", r.get("workload"), r.get("namespace"))
        rname = f.string(f"{p}.name", r.get("name"))
        patch = f.mapping(f"{p}.template", r.get("template"))
        if w is None or rname is None or patch is None:
            continue
        if rname == "current" or any(rname == n for n, _ in w.revisions):
            f.duplicate(f"{p}.name", rname)
            continue
        base = w.obj["spec"]["template"]
        tpl = apply_merge_patch(base, patch)  # RFC 7386 (planner/mergepatch.py)
        if tpl == base or any(tpl == t for _, t in w.revisions):
            f.invalid(f"{p}.template", rname, "gives the same pod template as another revision of the workload")
            continue
        w.revisions.append((rname, tpl))
