"""Tolerant accessors for raw (unvalidated) manifests: the expanded objects are validated by the
loader afterwards, so the expansion reads what it needs and ignores what is malformed."""

from __future__ import annotations

from typing import Any


def d(v: Any) -> dict:
    """``v`` if a mapping, else an empty one."""
    return v if isinstance(v, dict) else {}


def lst(v: Any) -> list:
    """``v`` if a list, else an empty one."""
    return v if isinstance(v, list) else []


def claim_templates(sts: dict) -> list[dict]:
    """A StatefulSet's volumeClaimTemplates that have a name."""
    spec = d(sts.get("spec"))
    out = []
    for ct in lst(spec.get("volumeClaimTemplates")):
        if isinstance(ct, dict) and isinstance(ct.get("metadata"), dict) and isinstance(ct["metadata"].get("name"), str):
            out.append(ct)
    return out
