"""What the LimitRanger and RuntimeClass admission plugins put into a pod created from a workload's
template: the pods a Deployment, ReplicaSet, StatefulSet or DaemonSet will create ask for what
admission gives them, not only for what the template says.

Upstream: plugin/pkg/admission/limitranger/admission.go (PodMutateLimitFunc:
defaultContainerResourceRequirements and mergeContainerResources: every container and init
container without a request for a resource gets the default request of the namespace's
LimitRanges' Container items; the first LimitRange to set a resource wins) and
plugin/pkg/admission/runtimeclass/admission.go (setOverhead: spec.overhead from the RuntimeClass's
overhead.podFixed; setScheduling: its nodeSelector merged into the pod's and its tolerations
added).  Defaulting (SetDefaults_Pod: a limit defaults the request) comes first, as the API server
decodes a pod before admitting it.  The rule itself is planner.convert.admitted (the controllers'
template hashes apply it too, to tell a template as read from one changed since).

Pods read from a cluster were admitted already and are left as they are; only templates get this,
recomputed from the template as read (so applying it again changes nothing).  Where admission
would refuse the pod (a RuntimeClass not read, a nodeSelector that conflicts with the
RuntimeClass's), a note says so and the template is read without the RuntimeClass.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from planner.convert import admitted, limit_range_defaults
from planner.domain import Pod, PodSpec
from planner.snapshot import Snapshot

_TABLES = (
    ("Deployment", "deployments"),
    ("ReplicaSet", "replicasets"),
    ("StatefulSet", "statefulsets"),
    ("DaemonSet", "daemonsets"),
    ("ControllerRevision", "controller_revisions"),  # a StatefulSet revision's template
)


def admit_pod(snap: Snapshot, pod: Pod, raw_spec: dict, by: Snapshot) -> PodSpec:  # type: ignore[type-arg]
    """The spec of a pod about to be created from ``raw_spec`` (a manifest's), as admission makes
    it with ``by``'s LimitRanges and RuntimeClasses (a note on ``snap`` where it would refuse it)."""
    spec, why = admitted(pod.spec, raw_spec, limit_range_defaults(by.limit_ranges, pod.namespace), by.runtime_classes)
    if why:
        snap.notes.append(f"pod {pod.key}: {why}")
    return spec


def resolve_admission(snap: Snapshot, keys: set[tuple[str, str]] | None = None, by: Snapshot | None = None) -> None:
    """Every workload template's spec (or those of ``keys``: (kind, key)) as admission makes its
    pods', in place; a note for what admission would refuse.  ``by``: the cluster whose
    LimitRanges and RuntimeClasses admit them (``snap`` itself by default; a manifest or a patched
    object read apart is admitted by the cluster it goes into)."""
    by = by if by is not None else snap
    limit_ranges, runtime_classes = by.limit_ranges, by.runtime_classes
    templated = list(_templated(snap, keys))
    if not limit_ranges and not any(obj.template.spec.runtime_class_name for _, _, _, obj in templated):
        return
    by_namespace: dict[str, dict[str, int]] = {}
    refused: dict[str, str] = {}  # why -> the first object it is said of
    for kind, table, key, obj in templated:
        defaults = by_namespace.get(obj.namespace) if limit_ranges else {}
        if defaults is None:
            defaults = by_namespace[obj.namespace] = limit_range_defaults(limit_ranges, obj.namespace)
        if not defaults and not obj.template.spec.runtime_class_name:
            continue
        raw_spec = raw_template_spec(snap, kind, key)
        if raw_spec is None:
            continue
        spec, why = admitted(obj.template.spec, raw_spec, defaults, runtime_classes)
        if why:
            refused.setdefault(why, f"{kind} {key}")
        if spec is not obj.template.spec:
            table[key] = replace(obj, template=replace(obj.template, spec=spec))
    for why, who in refused.items():
        snap.notes.append(f"{who}: {why}")


def _templated(snap: Snapshot, keys: set[tuple[str, str]] | None) -> Any:
    """(kind, table, key, object) of every workload with a template, in table order (of ``keys``
    only: a single one looked up, not searched for among every workload)."""
    for kind, attr in _TABLES:
        table: dict[str, Any] = getattr(snap, attr)
        items: Any = table.items()
        if keys is not None:
            mine = [k for kd, k in keys if kd == kind and k in table]
            items = [(k, table[k]) for k in mine] if len(mine) <= 1 else [(k, o) for k, o in table.items() if (kind, k) in keys]
        for key, obj in items:
            if obj.template is not None:
                yield kind, table, key, obj


def raw_template_spec(snap: Snapshot, kind: str, key: str) -> dict | None:  # type: ignore[type-arg]
    """The pod spec of the object's template as read (a ControllerRevision's: in its data)."""
    raw = snap.raw.get((kind, key))
    if kind == "ControllerRevision" and isinstance(raw, dict):
        raw = raw.get("data")
    spec = raw.get("spec") if isinstance(raw, dict) else None
    tpl = spec.get("template") if isinstance(spec, dict) else None
    tspec = tpl.get("spec") if isinstance(tpl, dict) else None
    return tspec if isinstance(tspec, dict) else None
