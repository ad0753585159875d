"""The Deployments and StatefulSets of ``objects`` and their ``revisions``: older pod templates,
each a JSON merge patch on the workload's template, for pods of an earlier revision.  ``pods``
and ``revisions`` name a workload as ``KIND/NAME`` (``Workloads.resolve``)."""

from __future__ import annotations

import math
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


def check_workload(f: Fields, p: str, obj: dict) -> None:
    """The parts of a Deployment's or StatefulSet's manifest (``p``: its path, ``objects[i]``) that
    the expansion derives objects from must have their type: the selector's matchLabels (the
    ReplicaSets' selectors, the claims' labels), the pod template (below) and a StatefulSet's
    volumeClaimTemplates with their accessModes (the claims).  Everything else is validated
    with the expanded objects."""
    spec = obj["spec"]
    sel = spec.get("selector")
    if isinstance(sel, dict):
        f.mapping(f"{p}.spec.selector.matchLabels", sel.get("matchLabels"))
    check_template(f, f"{p}.spec.template", spec["template"])
    if obj.get("kind") != "StatefulSet":
        return
    for j, ct in enumerate(f.list_of(f"{p}.spec.volumeClaimTemplates", spec.get("volumeClaimTemplates")) or []):
        cspec = ct.get("spec") if isinstance(ct, dict) else None
        if isinstance(cspec, dict):
            cp = f"{p}.spec.volumeClaimTemplates[{j}].spec"
            f.list_of(f"{cp}.accessModes", cspec.get("accessModes"))
            sc = cspec.get("storageClassName")
            if sc is not None and not isinstance(sc, str):
                f.invalid(f"{cp}.storageClassName", sc, f"must be a string, not {type_name(sc)}")


def check_template(f: Fields, p: str, tpl: dict) -> bool:
    """A pod template's parts the expansion reads: metadata and labels (the pods' and
    ReplicaSets' labels), containers (the pods' QoS class), tolerations (with the default ones
    added), volumes (with a StatefulSet's claims), nodeSelector and required node affinity (where
    ``zone`` places a pod), and no Infinity or NaN anywhere (JSON has none: the revision hashes
    could not be computed); False when one is reported."""
    before = len(f.items)
    _finite(f, p, tpl)
    md = f.mapping(f"{p}.metadata", tpl.get("metadata"))
    if md:
        f.mapping(f"{p}.metadata.labels", md.get("labels"))
    pod_spec = tpl.get("spec")
    if not isinstance(pod_spec, dict):
        return len(f.items) == before
    sp = f"{p}.spec"
    for key in ("initContainers", "containers", "tolerations", "volumes"):
        f.list_of(f"{sp}.{key}", pod_spec.get(key))
    f.mapping(f"{sp}.nodeSelector", pod_spec.get("nodeSelector"))
    aff = f.mapping(f"{sp}.affinity", pod_spec.get("affinity")) or {}
    na = f.mapping(f"{sp}.affinity.nodeAffinity", aff.get("nodeAffinity")) or {}
    rp = f"{sp}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    req = f.mapping(rp, na.get("requiredDuringSchedulingIgnoredDuringExecution")) or {}
    for i, term in enumerate(f.list_of(f"{rp}.nodeSelectorTerms", req.get("nodeSelectorTerms")) or []):
        if not isinstance(term, dict):
            continue  # (validation reports it; placement skips it)
        for key in ("matchExpressions", "matchFields"):
            tp = f"{rp}.nodeSelectorTerms[{i}].{key}"
            for j, e in enumerate(f.list_of(tp, term.get(key)) or []):
                if isinstance(e, dict):
                    f.list_of(f"{tp}[{j}].values", e.get("values"))
    return len(f.items) == before


def _finite(f: Fields, p: str, tpl: dict) -> None:
    stack: list[tuple[str, Any]] = [(p, tpl)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            f.invalid(path, v, "must be a finite number")
        elif isinstance(v, dict):
            stack.extend((f"{path}.{k}", x) for k, x in reversed(v.items()))
        elif isinstance(v, list):
            stack.extend((f"{path}[{i}]", x) for i, x in reversed(list(enumerate(v))))


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
        if check_template(Fields(), "", base):  # (a malformed part of the workload's own is reported with it)
            check_template(f, f"{p}.template", tpl)
        if tpl == base or any(tpl == t for _, t in w.revisions):
            f.invalid(f"{p}.template", rname, "gives the same pod template as another revision of the workload")
            continue
        w.revisions.append((rname, tpl))
