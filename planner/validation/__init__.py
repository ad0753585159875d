"""Validate decoded Kubernetes objects as the API server would, with its wording.

Entry points:

* :func:`planner.validation.defaults.apply_defaults` -- the API server's defaults, in place; run
  it before validating (objects are validated as stored, i.e. defaulted);
* :func:`validate_object` -- one object's problems as one-line messages prefixed with the object
  (``StatefulSet default/web: spec.replicas: Invalid value: -1: must be greater than or equal to
  0``; cluster-scoped objects read ``Node worker-1: ...``);
* :func:`validate_objects` -- every object's problems plus duplicate objects.

The rules are ports of the Kubernetes v1.37 validation code (planner.KUBERNETES_BASELINE) (see core.py, apps.py, other.py),
create path, default feature gates, restricted to the fields planner reads.  Input is untrusted: a
field of the wrong JSON type is reported (``... must be of type string``) rather than raised.

Not validated (planner does not read them): container env, probes, lifecycle, security contexts,
volume sources other than persistentVolumeClaim and ephemeral (they are only counted), volume
mounts, DNS config, host aliases, readiness/scheduling gates, pod-level resources, annotations'
meaning (pod-deletion-cost, seccomp, AppArmor), HPA metrics and behavior, StorageClass parameters,
managedFields, status (beyond type checks of the phases planner reads).  Rules that only apply on
update (immutability, ratcheting of old invalid data) do not apply to a snapshot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.validation import apps, core, other
from planner.validation.defaults import NAMESPACED_KINDS, apply_defaults
from planner.validation.field import (
    FieldError,
    Path,
    format_errors,
    format_value,
    go_quote,
    not_supported,
    required,
    type_error,
)

__all__ = ["apply_defaults", "validate_object", "validate_objects", "ObjectValidator", "KINDS", "API_VERSIONS"]

Validator = Callable[[dict, list[FieldError]], None]  # type: ignore[type-arg]

_VALIDATORS: dict[str, Validator] = {
    "Namespace": core.validate_namespace,
    "Node": core.validate_node,
    "StorageClass": other.validate_storageclass,
    "CSINode": other.validate_csinode,
    "PersistentVolume": core.validate_pv,
    "PersistentVolumeClaim": core.validate_pvc,
    "Pod": core.validate_pod,
    "ReplicaSet": apps.validate_replicaset,
    "Deployment": apps.validate_deployment,
    "StatefulSet": apps.validate_statefulset,
    "DaemonSet": apps.validate_daemonset,
    "HorizontalPodAutoscaler": other.validate_hpa,
    "PodDisruptionBudget": other.validate_pdb,
    "PriorityClass": other.validate_priorityclass,
    "LimitRange": other.validate_limitrange,
    "RuntimeClass": other.validate_runtimeclass,
    "ControllerRevision": other.validate_controllerrevision,
}
KINDS = tuple(_VALIDATORS)
_STATUS_READ = ("Pod", "Node")  # kinds whose validators read (and type-check) status themselves

# The API version whose field semantics planner implements, per kind.  (A planner check, not an
# API server one: the server converts between versions, planner reads one of them.)
API_VERSIONS = {
    "Namespace": "v1",
    "Node": "v1",
    "PersistentVolume": "v1",
    "PersistentVolumeClaim": "v1",
    "Pod": "v1",
    "StorageClass": "storage.k8s.io/v1",
    "CSINode": "storage.k8s.io/v1",
    "ReplicaSet": "apps/v1",
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "HorizontalPodAutoscaler": "autoscaling/v2",
    "PodDisruptionBudget": "policy/v1",
    "PriorityClass": "scheduling.k8s.io/v1",
    "LimitRange": "v1",
    "RuntimeClass": "node.k8s.io/v1",
    "ControllerRevision": "apps/v1",
}


def _identity(obj: dict) -> tuple[str, str | None, str]:  # type: ignore[type-arg]
    """(kind, namespace or None for cluster-scoped kinds, name) as shown in messages."""
    raw_kind = obj.get("kind")
    kind = raw_kind if type(raw_kind) is str else ""
    raw_meta = obj.get("metadata")
    meta: dict = raw_meta if type(raw_meta) is dict else {}  # type: ignore[type-arg]
    raw_name = meta.get("name")
    name = raw_name if type(raw_name) is str else ""
    ns: str | None = None
    if kind in NAMESPACED_KINDS:
        raw_ns = meta.get("namespace")
        ns = raw_ns if type(raw_ns) is str and raw_ns else "default"
    return kind, ns, name


def _prefix(kind: str, ns: str | None, name: str) -> str:
    shown = name or "<no name>"
    return f"{kind or 'object'} {shown}" if ns is None else f"{kind or 'object'} {ns}/{shown}"


def validate_object(obj: dict) -> list[str]:  # type: ignore[type-arg]
    """The problems of one (defaulted) object, each a full one-line message; [] when valid."""
    if type(obj) is not dict:
        return [f"object: {type_error(Path(), obj, 'object').body()}"]
    kind, ns, name = _identity(obj)
    prefix = _prefix(kind, ns, name)
    raw_kind = obj.get("kind")
    if raw_kind is None or raw_kind == "":
        return [f"{prefix}: {required(Path('kind'))}"]
    if type(raw_kind) is not str:
        return [f"{prefix}: {type_error(Path('kind'), raw_kind, 'string')}"]
    validator = _VALIDATORS.get(kind)
    if validator is None:
        return [f"{prefix}: {not_supported(Path('kind'), kind, KINDS)}"]
    errs: list[FieldError] = []
    api_version = obj.get("apiVersion")
    if api_version is not None and api_version != API_VERSIONS[kind]:
        errs.append(not_supported(Path("apiVersion"), api_version, (API_VERSIONS[kind],)))
    if ns is not None:
        meta = obj.get("metadata")
        if type(meta) is dict and not meta.get("namespace"):
            # kubectl sends the request's namespace; validate as the server sees the object
            obj = dict(obj)
            obj["metadata"] = {**meta, "namespace": ns}
    status = obj.get("status")
    if status is not None and type(status) is not dict and kind not in _STATUS_READ:
        errs.append(type_error(Path("status"), status, "object"))  # no Go struct decodes from it
    try:
        validator(obj, errs)
    except Exception as e:  # a validator bug must not take the whole load down
        errs.append(FieldError("InternalError", "object", None, f"planner validation failed: {type(e).__name__}: {e}"))
    return [f"{prefix}: {m}" for m in format_errors(errs)]


def validate_objects(objs: list[Any]) -> list[str]:
    """validate_object for each object, then one message per object that repeats an earlier one
    (same kind, namespace and name), as the API server's "already exists" would reject it."""
    v = ObjectValidator()
    out: list[str] = []
    for obj in objs:
        out.extend(v.validate(obj))
    return out


class ObjectValidator:
    """validate_objects one object at a time (a streamed load validates each object as it is
    read): the only state across objects is the set of (kind, namespace, name) already seen."""

    __slots__ = ("seen", "count")

    def __init__(self) -> None:
        self.seen: set[tuple[str, str | None, str]] = set()
        self.count = 0  # objects validated so far (the index in validate_objects' messages)

    def validate(self, obj: Any) -> list[str]:
        i = self.count
        self.count += 1
        if type(obj) is not dict:
            return [f"item[{i}]: {type_error(Path(), obj, 'object').body()}"]
        out = validate_object(obj)
        kind, ns, name = _identity(obj)
        if not kind or not name or kind not in _VALIDATORS:
            return out
        key = (kind, ns, name)
        if key in self.seen:
            where = f" in namespace {go_quote(ns)}" if ns is not None else ""
            out.append(
                f"{_prefix(kind, ns, name)}: metadata.name: Duplicate value: {format_value(name)}: "
                f"another {kind} named {go_quote(name)}{where} appears earlier in the input"
            )
        else:
            self.seen.add(key)
        return out
