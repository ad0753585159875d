"""Mutating decoded YAML/JSON documents for the fuzz tests: every path in a document, and a value
set or deleted at one (tests/commands/test_fuzz.py, tests/scenario/test_malformed.py)."""

from __future__ import annotations

import copy
from typing import Any

Path_ = tuple[Any, ...]

DELETE = object()  # as a value: remove the key or list item


def paths(node: Any, prefix: Path_ = ()) -> list[Path_]:
    """Every path below ``node`` (mapping keys and list indexes), parents before children."""
    out: list[Path_] = []
    if isinstance(node, dict):
        items: Any = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return out
    for k, v in items:
        out.append(prefix + (k,))
        out.extend(paths(v, prefix + (k,)))
    return out


def set_at(doc: Any, path: Path_, value: Any) -> None:
    """Set the value at ``path`` in place (a copy of it), or delete it (DELETE)."""
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    if value is DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(value)
