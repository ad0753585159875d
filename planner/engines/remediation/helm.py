"""Helm-managed objects: a direct patch drifts from the chart.

Helm 3 marks every object it installs with the label ``app.kubernetes.io/managed-by: Helm`` and
the annotations ``meta.helm.sh/release-name`` and ``meta.helm.sh/release-namespace`` (helm
pkg/action/validate.go: the ownership metadata it checks before it adopts an object, and sets
on every object of a release).  An object changed with ``kubectl patch`` keeps those marks but
no longer matches what the chart renders: ``helm upgrade`` and ``helm rollback`` patch the live
object with a three-way strategic merge of the release's last manifest, the new manifest and the
live object (helm pkg/kube/client.go createPatch: CreateThreeWayMergePatch), which sets every
field the chart renders back to the chart's value, and the fix is lost; a field the chart does not
render survives, but the chart no longer describes what runs.  So every action that patches, deletes or re-creates such an
object says which release owns it and that the chart's values must change too.

Objects that merely carry ``app.kubernetes.io/managed-by: Helm`` without the annotation (hand-made
templates, charts rendered with ``helm template`` and applied with kubectl) are flagged too; the
release is then named from the ``app.kubernetes.io/instance`` label, the chart convention, when
there is one.
"""

from __future__ import annotations

from typing import Any

from planner.engines.remediation.actions import Action, ObjectPatch
from planner.snapshot import Snapshot

MANAGED_BY = "app.kubernetes.io/managed-by"
RELEASE_NAME = "meta.helm.sh/release-name"
RELEASE_NAMESPACE = "meta.helm.sh/release-namespace"
INSTANCE = "app.kubernetes.io/instance"


def helm_release(obj: dict | None) -> dict[str, Any] | None:
    """The Helm release that manages ``obj`` (a raw object), or None when it is not Helm's."""
    if not isinstance(obj, dict):
        return None
    md = obj.get("metadata") or {}
    labels = md.get("labels") or {}
    ann = md.get("annotations") or {}
    if not isinstance(labels, dict) or not isinstance(ann, dict):
        return None
    name = ann.get(RELEASE_NAME)
    if labels.get(MANAGED_BY) != "Helm" and not name:
        return None
    out: dict[str, Any] = {"release": None, "release_namespace": None, "source": ""}
    if name:
        out["release"] = str(name)
        out["release_namespace"] = str(ann.get(RELEASE_NAMESPACE) or md.get("namespace") or "default")
        out["source"] = f"annotation {RELEASE_NAME}"
    elif labels.get(INSTANCE):
        out["release"] = str(labels[INSTANCE])
        out["release_namespace"] = str(md.get("namespace") or "default")
        out["source"] = f"label {INSTANCE} (no {RELEASE_NAME} annotation)"
    else:
        out["source"] = f"label {MANAGED_BY}: Helm (no release named)"
    return out


def _object_of(snap: Snapshot, p: ObjectPatch) -> dict | None:
    from planner.engines.remediation.verify import object_key

    if p.type == "create":
        return p.body if isinstance(p.body, dict) else None
    return snap.raw.get((p.kind, object_key(p.kind, p.namespace, p.name)))


def annotate_helm(snap: Snapshot, actions: list[Action]) -> None:
    """Fill ``helm`` of every action that changes a Helm-managed object, once per object, and add
    the side effect that says what it means.  New Nodes (scale-node-group) are not Helm's."""
    for a in actions:
        seen: set[tuple[str, str | None, str]] = set()
        for p in a.patches:
            ident = (p.kind, p.namespace, p.name)
            if ident in seen or (p.kind == "Node" and p.type == "create"):
                continue
            rel = helm_release(_object_of(snap, p))
            if rel is None:
                continue
            seen.add(ident)
            entry = {"kind": p.kind, "namespace": p.namespace, "name": p.name, **rel}
            a.helm.append(entry)
            where = f"{p.kind} {p.key}"
            if rel["release"]:
                who = f"Helm release {rel['release']} (namespace {rel['release_namespace']})"
                how = f"helm upgrade {rel['release']} -n {rel['release_namespace']} with the chart's values changed the same way"
            else:
                who = "Helm (no release named on the object)"
                how = "the chart that renders it changed the same way"
            a.side_effects.append(
                f"{where} is managed by {who}: this direct change drifts from the chart; the next helm upgrade or rollback of the "
                f"release writes back every field the chart renders; make it lasting with {how}"
            )
