"""Template hashes the workload controllers put on the objects they create.

* ``pod_template_hash`` is the Deployment controller's ``pod-template-hash`` label (and the suffix of
  the ReplicaSet name ``<deployment>-<hash>``): upstream pkg/controller/controller_utils.go
  ``ComputeHash`` writes Go's deep-printed object (``hashutil.DeepHashObject``, a go-spew dump of
  the ``PodTemplateSpec`` struct) into an FNV-32a hash, then the collision count as 8
  little-endian bytes, and renders ``Sum32()`` with ``rand.SafeEncodeString``.  A spew dump of a Go
  struct cannot be reproduced from a YAML mapping, so planner hashes a canonical JSON encoding of
  the template instead (keys sorted, no spaces, Go's escaping).  The value is therefore *not* the
  one a real cluster shows for the same template, but it has the same shape (up to 10 characters
  of ``bcdfghjklmnpqrstvwxz2456789``) and is stable: the same template always gives the same hash,
  and any change to the template changes it.

* ``controller_revision_hash`` is the StatefulSet controller's revision hash (the ControllerRevision
  is named ``<statefulset>-<hash>`` and that *name* is the pods' ``controller-revision-hash`` label
  and the StatefulSet's ``status.currentRevision`` / ``status.updateRevision``).  Upstream
  (pkg/controller/history/controller_history.go ``HashControllerRevision`` over
  pkg/controller/statefulset/stateful_set_utils.go ``getPatch``) hashes real JSON bytes,
  ``{"spec":{"template":{"$patch":"replace",...}}}`` with map keys sorted, with FNV-32 (not 32a)
  followed by the collision count in decimal.  planner reproduces that byte for byte, so given the
  template exactly as the API server stores it (every default filled in, ``metadata.creationTimestamp:
  null``) the hash equals the cluster's; for a hand-written template it is merely stable.

Both are used by the scenario expander and by the replay simulator.
"""

from __future__ import annotations

import json
import math
from typing import Any

from planner.golang import go_float

# k8s.io/apimachinery/pkg/util/rand: consonants and digits that cannot spell bad words.
SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


def fnv32(data: bytes, h: int = _FNV32_OFFSET) -> int:
    """hash/fnv New32 (FNV-1): multiply, then xor."""
    for b in data:
        h = (h * _FNV32_PRIME) & 0xFFFFFFFF
        h ^= b
    return h


def fnv32a(data: bytes, h: int = _FNV32_OFFSET) -> int:
    """hash/fnv New32a (FNV-1a): xor, then multiply."""
    for b in data:
        h ^= b
        h = (h * _FNV32_PRIME) & 0xFFFFFFFF
    return h


def safe_encode_string(s: str) -> str:
    """rand.SafeEncodeString: each character mapped to SAFE_ALPHANUMS[ord(c) % 27]."""
    return "".join(SAFE_ALPHANUMS[ord(c) % len(SAFE_ALPHANUMS)] for c in s)


# --------------------------------------------------------------------------- Go's encoding/json


def _go_float(f: float) -> str:
    """encoding/json floatEncoder for float64 (NaN and infinities are errors there)."""
    if math.isnan(f) or math.isinf(f):
        raise ValueError(f"unsupported float value: {f}")
    return go_float(f, json=True)


def _go_string(s: str) -> str:
    out = json.dumps(s, ensure_ascii=False)
    # Go escapes HTML-significant characters and the JS line separators; \b and \f as \u00XX
    return (
        out.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def go_json(value: Any) -> str:
    """json.Marshal of a decoded JSON value (map keys sorted, compact), as Go prints it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return _go_string(value)
    if isinstance(value, dict):
        items = sorted((str(k), v) for k, v in value.items())
        return "{" + ",".join(f"{_go_string(k)}:{go_json(v)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    # dates and other YAML scalars: their string form, as the API would have stored them
    return _go_string(str(value))


# --------------------------------------------------------------------------- hashes


def pod_template_hash(template: dict, collision_count: int | None = None) -> str:
    """The Deployment controller's pod-template-hash of ``spec.template`` (see the module doc).

    ``collision_count`` is the Deployment's ``status.collisionCount`` (None when unset, as for a
    Deployment that never had a hash collision): when given it is appended as upstream does, as
    8 little-endian bytes of its uint32 value.
    """
    h = fnv32a(go_json(template).encode("utf-8"))
    if collision_count is not None:
        h = fnv32a((collision_count & 0xFFFFFFFF).to_bytes(4, "little") + b"\x00\x00\x00\x00", h)
    return safe_encode_string(str(h))


def statefulset_revision_patch(template: dict) -> bytes:
    """stateful_set_utils.go getPatch: the ControllerRevision's data for a StatefulSet template."""
    tpl = dict(template)
    tpl["$patch"] = "replace"
    return go_json({"spec": {"template": tpl}}).encode("utf-8")


def controller_revision_hash(template: dict, collision_count: int | None = 0) -> str:
    """HashControllerRevision of a StatefulSet's ``spec.template`` (see the module doc).

    The StatefulSet controller always passes a probe (``status.collisionCount``, 0 when unset), so
    the default is 0; None hashes the data alone (the DaemonSet controller's history with no probe).
    """
    h = fnv32(statefulset_revision_patch(template))
    if collision_count is not None:
        h = fnv32(str(int(collision_count)).encode("ascii"), h)
    return safe_encode_string(str(h))


def controller_revision_name(parent_name: str, template: dict, collision_count: int | None = 0) -> str:
    """history.ControllerRevisionName: ``<parent>-<hash>``, the prefix cut to 223 bytes."""
    prefix = parent_name[:223]
    return f"{prefix}-{controller_revision_hash(template, collision_count)}"


def replicaset_name(deployment_name: str, template: dict, collision_count: int | None = None) -> str:
    """The ReplicaSet the Deployment controller creates for ``template``: ``<deployment>-<hash>``."""
    return f"{deployment_name}-{pod_template_hash(template, collision_count)}"
