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
decodes a pod before admitting it.

Pods read from a cluster were admitted already and are left as they are; only templates get this,
recomputed from the template as read (so applying it again changes nothing).  Where admission
would refuse the pod (a RuntimeClass not read, a nodeSelector that conflicts with the
RuntimeClass's), a note says so and the template is left as written.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from planner.convert import effective_requests, nonzero_requests
from planner.domain import Pod, PodSpec, RuntimeClass
from planner.snapshot import Snapshot

_TABLES = (
    ("Deployment", "deployments"),
    ("ReplicaSet", "replicasets"),
    ("StatefulSet", "statefulsets"),
    ("DaemonSet", "daemonsets"),
    ("ControllerRevision", "controller_revisions"),  # a StatefulSet revision's template
)


def _container_defaults(snap: Snapshot, namespace: str) -> dict[str, int]:
    """The default requests LimitRanger gives a container in ``namespace`` (the LimitRanges in
    name order, each setting only what the ones before did not)."""
    out: dict[str, int] = {}
    for _, lr in sorted((k, lr) for k, lr in snap.limit_ranges.items() if lr.namespace == namespace):
        for k, v in lr.default_request.items():
            out.setdefault(k, v)
    return out


def admitted_spec(spec: PodSpec, raw_spec: dict, defaults: dict[str, int], rc: RuntimeClass | None) -> PodSpec:  # type: ignore[type-arg]
    """``spec`` (a template's, converted from ``raw_spec``) as admission makes the pods' specs."""
    overhead = rc.overhead if rc is not None and rc.overhead and not raw_spec.get("overhead") else None
    requests = effective_requests(raw_spec, defaults or None, overhead)
    nonzero = nonzero_requests(raw_spec, defaults or None, overhead)
    node_selector, tolerations = spec.node_selector, spec.tolerations
    if rc is not None:
        node_selector = {**rc.node_selector, **spec.node_selector}
        tolerations = spec.tolerations + tuple(t for t in rc.tolerations if t not in spec.tolerations)
    same = requests == dict(spec.requests) and nonzero == spec.nonzero
    if same and node_selector == dict(spec.node_selector) and tolerations == spec.tolerations:
        return spec
    return replace(spec, requests=requests, nonzero=nonzero, node_selector=node_selector, tolerations=tolerations)


def admit_pod(snap: Snapshot, pod: Pod, raw_spec: dict) -> PodSpec:  # type: ignore[type-arg]
    """The spec of a pod about to be created from ``raw_spec`` (a manifest's), as admission makes
    it with ``snap``'s LimitRanges and RuntimeClasses (a note where it would refuse it)."""
    rc_name = pod.spec.runtime_class_name
    rc = snap.runtime_classes.get(rc_name) if rc_name else None
    if rc_name and rc is None:
        snap.notes.append(f"RuntimeClass {rc_name} (named by pod {pod.key}) was not read: its overhead and scheduling are not applied")
    return admitted_spec(pod.spec, raw_spec, _container_defaults(snap, pod.namespace), rc)


def resolve_admission(snap: Snapshot, keys: set[tuple[str, str]] | None = None) -> None:
    """Every workload template's spec (or those of ``keys``: (kind, key)) as admission makes its
    pods', in place; a note for what admission would refuse."""
    if not snap.limit_ranges and not any(
        o.template is not None and o.template.spec.runtime_class_name for _, attr in _TABLES for o in getattr(snap, attr).values()
    ):
        return
    missing: dict[str, str] = {}
    by_namespace: dict[str, dict[str, int]] = {}
    for kind, attr in _TABLES:
        table: dict[str, Any] = getattr(snap, attr)
        for key, obj in table.items():
            if (keys is not None and (kind, key) not in keys) or obj.template is None:
                continue
            rc_name = obj.template.spec.runtime_class_name
            defaults = by_namespace.get(obj.namespace) if snap.limit_ranges else {}
            if defaults is None:
                defaults = by_namespace[obj.namespace] = _container_defaults(snap, obj.namespace)
            if not defaults and not rc_name:
                continue
            raw_spec = _raw_template_spec(snap, kind, key)
            if raw_spec is None:
                continue
            rc = snap.runtime_classes.get(rc_name) if rc_name else None
            if rc_name and rc is None:
                missing.setdefault(rc_name, f"{kind} {key}")
            if rc is not None and any(obj.template.spec.node_selector.get(k, v) != v for k, v in rc.node_selector.items()):
                snap.notes.append(
                    f"{kind} {key}: its pods' nodeSelector conflicts with RuntimeClass {rc.name}'s scheduling.nodeSelector: "
                    "admission would refuse them; read as written"
                )
                rc = None
            if not defaults and rc is None:
                continue
            spec = admitted_spec(obj.template.spec, raw_spec, defaults, rc)
            if spec is not obj.template.spec:
                table[key] = replace(obj, template=replace(obj.template, spec=spec))
    for name, who in sorted(missing.items()):
        snap.notes.append(
            f"RuntimeClass {name} (named by {who}'s pods) was not read: its overhead and scheduling are not applied "
            "(admission refuses pods naming a RuntimeClass that does not exist)"
        )


def _raw_template_spec(snap: Snapshot, kind: str, key: str) -> dict | None:  # type: ignore[type-arg]
    raw = snap.raw.get((kind, key))
    if kind == "ControllerRevision" and isinstance(raw, dict):
        raw = raw.get("data")
    spec = raw.get("spec") if isinstance(raw, dict) else None
    tpl = spec.get("template") if isinstance(spec, dict) else None
    tspec = tpl.get("spec") if isinstance(tpl, dict) else None
    return tspec if isinstance(tspec, dict) else None

