"""`planner render`: the inputs, scenarios expanded, as one kubectl-appliable List."""

from __future__ import annotations

import json
from collections.abc import Iterable

import orjson

from planner.errors import InputError
from planner.load import Limits, read_objects, skipped_notice, validate_raw
from planner.output import note


def render_inputs(paths: Iterable[str], limits: Limits, *, overlay: bool = True) -> dict:
    """The inputs (scenarios expanded, later inputs applied over the first) as one
    kubectl-appliable List; validated first."""
    raw = read_objects(paths, limits, overlay=overlay)
    try:  # a copy before the API server's defaults
        pristine = orjson.loads(orjson.dumps(raw.objects))
    except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits (a quantity may be one)
        pristine = json.loads(json.dumps(raw.objects))
    errors = validate_raw(raw)
    if errors:
        raise InputError(*errors)
    n = skipped_notice(raw)
    if n:
        note(n)
    for m in raw.notes:
        note(f"note: {m}")
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": pristine}
