"""Template hashes of the objects the controllers create.

Upstream: pkg/controller/controller_utils.go ComputeHash (the Deployment's pod-template-hash and
the name ``<deployment>-<hash>`` of its ReplicaSet, with status.collisionCount) and
pkg/controller/history/controller_history.go HashControllerRevision / ControllerRevisionName
(a StatefulSet's revisions).  The hash functions themselves are planner.revision's (shared with
the scenario expander); this module decides what is hashed: the template as the cluster (or the
scenario) holds it when the object is unchanged, else its domain form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from planner.convert import Converter, admitted, limit_range_defaults
from planner.domain import Deployment, PodTemplate
from planner.priority import resolve_spec
from planner.revision import pod_template_hash
from planner.snapshot import Snapshot


def template_for_hash(snap: Snapshot, kind: str, key: str, template: PodTemplate) -> tuple[dict, dict | None]:
    """The pod template as a JSON value for planner.revision's hashes, and the raw object.

    When the snapshot holds the object as read and its template is still the one in the domain
    object, the raw template is hashed (what the cluster or the scenario hashed); a template the
    simulator changed is hashed from its domain form, which is stable but cluster-independent.
    """
    raw = snap.raw.get((kind, key))
    if isinstance(raw, dict):
        spec = raw.get("spec")
        t = spec.get("template") if isinstance(spec, dict) else None
        if isinstance(t, dict):
            read = snap.read_templates.get((kind, key))
            if read is not None and read[0] is raw and read[1] is template:
                return t, raw  # the loader made this template of this object (Snapshot.read_templates)
            if _resolved(_converted_template(t), t, key, snap) == template:
                return t, raw
    return {"planner.dev/template": _plain(template)}, None


def _resolved(t: PodTemplate, raw: dict, key: str, snap: Snapshot) -> PodTemplate:  # type: ignore[type-arg]
    """The template as the loader holds it: its priority resolved (planner.priority) and, where
    LimitRanges or a RuntimeClass apply, what admission gives its pods (planner.convert.admitted)."""
    spec = resolve_spec(t.spec, snap.priority_classes)
    if snap.limit_ranges or spec.runtime_class_name:
        raw_spec = raw.get("spec")
        if isinstance(raw_spec, dict):
            namespace = key.split("/", 1)[0] if "/" in key else ""
            spec, _ = admitted(spec, raw_spec, limit_range_defaults(snap.limit_ranges, namespace), snap.runtime_classes)
    return t if spec is t.spec else replace(t, spec=spec)


# id(raw template) -> (raw template, its domain form); the raw object is held, so its id stays unique.
_CONVERTED: dict[int, tuple[dict, PodTemplate]] = {}
_CONVERTED_MAX = 4096


def _converted_template(t: dict) -> PodTemplate:
    hit = _CONVERTED.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    if len(_CONVERTED) >= _CONVERTED_MAX:
        _CONVERTED.clear()
    converted = Converter().template(t)
    _CONVERTED[id(t)] = (t, converted)
    return converted


def _plain(v: object) -> object:
    """A JSON value of a domain object (dataclasses with slots, tuples, mappings)."""
    fields = getattr(type(v), "__dataclass_fields__", None)
    if fields is not None:
        return {f: _plain(getattr(v, f)) for f in fields}
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    return v


def deployment_collision_count(snap: Snapshot, d: Deployment) -> int | None:
    """The Deployment's status.collisionCount as read (None when unset or changed since)."""
    _, raw = template_for_hash(snap, "Deployment", d.key, d.template)
    status = raw.get("status") if raw is not None else None
    if isinstance(status, dict) and isinstance(status.get("collisionCount"), int):
        return int(status["collisionCount"])
    return None


def compute_hash(snap: Snapshot, d: Deployment, collision_count: int | None) -> str:
    """controller_utils.go ComputeHash(&d.Spec.Template, collisionCount): the pod-template-hash of
    the Deployment's template (planner.revision.pod_template_hash of template_for_hash's value)."""
    tpl, _ = template_for_hash(snap, "Deployment", d.key, d.template)
    return pod_template_hash(tpl, collision_count)
