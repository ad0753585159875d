"""`planner validate`: read and validate the inputs, every error listed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from planner.errors import InputError
from planner.load import Limits, build_snapshot, read_objects, skipped_notice, validate_raw
from planner.output import note


def validate_inputs(paths: Iterable[str], limits: Limits, *, overlay: bool = True) -> dict:
    """Every error in the inputs; never raises for invalid content.

    Inputs are one snapshot read together; a directory of scenarios (each its own cluster) is
    validated file by file and the results merged."""
    paths = list(paths)
    try:
        raw = read_objects(paths, limits, overlay=overlay)
    except InputError as e:
        if any("only one Scenario can be read at a time" in m for m in e.messages):
            return _validate_each(paths, limits)
        return {"valid": False, "objects": {}, "errors": e.messages, "notes": [], "skipped": {}}
    errors = validate_raw(raw)
    if not raw.objects and not errors:
        errors = ["no Kubernetes objects of the kinds planner reads"]
    counts = Counter(o["kind"] for o in raw.objects)
    notes: list[str] = list(raw.notes)
    if not errors:
        try:
            notes += build_snapshot(raw).notes
        except InputError as e:
            errors = e.messages
    n = skipped_notice(raw)
    if n:
        note(n)
    return {
        "valid": not errors,
        "objects": dict(sorted(counts.items())),
        "errors": errors,
        "notes": notes,
        "skipped": dict(sorted(raw.skipped.items())),
    }


def _validate_each(paths: list[str], limits: Limits) -> dict:
    from planner.load import collect_paths

    merged: dict = {"valid": True, "objects": Counter(), "errors": [], "notes": [], "skipped": Counter(), "files": {}}
    for f in collect_paths(paths):
        r = validate_inputs([f], limits)
        merged["valid"] = merged["valid"] and r["valid"]
        merged["objects"].update(r["objects"])
        merged["errors"].extend(r["errors"])
        merged["notes"].extend(f"{f}: {n}" for n in r["notes"])
        merged["skipped"].update(r["skipped"])
        merged["files"][f] = r["valid"]
    merged["objects"] = dict(sorted(merged["objects"].items()))
    merged["skipped"] = dict(sorted(merged["skipped"].items()))
    return merged
