"""JSON Patch (RFC 6902), JSON Merge Patch (RFC 7386) and JSON Pointer (RFC 6901), as the API
server and ``kubectl patch --local`` apply them.

Only what remediate needs and exactly as specified:

* RFC 6902 operations ``add``, ``remove``, ``replace``, ``move``, ``copy``, ``test``, applied in
  order to a copy; the first failing operation fails the whole patch (the document is left as it
  was).  ``add`` on an array index inserts (``-`` appends); on an object member it sets.
  ``test`` compares JSON values: numbers by value, objects regardless of member order, arrays
  element by element (RFC 6902 section 4.6).  The API server uses evanphx/json-patch, which
  follows the RFC; ``kubectl patch --type json`` uses the same library.
* RFC 6901 pointers: ``/a/b~1c/0``: ``~1`` is ``/`` and ``~0`` is ``~`` (escape(): the other way).
* RFC 7386 merge patch: objects merge recursively, ``null`` deletes a member, anything else
  (arrays included) replaces.
"""

from __future__ import annotations

import copy
from typing import Any

from planner.mergepatch import apply_merge_patch  # noqa: F401  (re-exported for callers)


class PatchError(ValueError):
    """A patch that cannot be applied (a failed ``test``, a missing path)."""


def escape(token: str) -> str:
    """RFC 6901 section 3: one reference token, escaped (``~`` first, then ``/``)."""
    return token.replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    return "".join("/" + escape(str(t)) for t in tokens)


def _tokens(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchError(f"invalid JSON pointer {path!r}: must start with '/'")
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def _index(container: list, token: str, path: str, for_add: bool = False) -> int:
    if token == "-" and for_add:
        return len(container)
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise PatchError(f"{path}: invalid array index {token!r}")
    i = int(token)
    limit = len(container) if for_add else len(container) - 1
    if i > limit:
        raise PatchError(f"{path}: index {i} out of range")
    return i


def _parent(doc: Any, path: str) -> tuple[Any, str]:
    toks = _tokens(path)
    if not toks:
        raise PatchError(f"{path!r}: the whole document cannot be the target here")
    cur = doc
    for t in toks[:-1]:
        cur = _child(cur, t, path)
    return cur, toks[-1]


def _child(cur: Any, t: str, path: str) -> Any:
    if isinstance(cur, dict):
        if t not in cur:
            raise PatchError(f"{path}: member {t!r} not found")
        return cur[t]
    if isinstance(cur, list):
        return cur[_index(cur, t, path)]
    raise PatchError(f"{path}: cannot descend into a {type(cur).__name__}")


def get(doc: Any, path: str) -> Any:
    cur = doc
    for t in _tokens(path):
        cur = _child(cur, t, path)
    return cur


def has(doc: Any, path: str) -> bool:
    try:
        get(doc, path)
        return True
    except PatchError:
        return False


def json_equal(a: Any, b: Any) -> bool:
    """RFC 6902 section 4.6 equality (bool is not a number, as in JSON)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _add(doc: Any, path: str, value: Any) -> Any:
    if path == "":
        return value
    parent, last = _parent(doc, path)
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, path, for_add=True), value)
    else:
        raise PatchError(f"{path}: parent is not an object or array")
    return doc


def _remove(doc: Any, path: str) -> tuple[Any, Any]:
    parent, last = _parent(doc, path)
    if isinstance(parent, dict):
        if last not in parent:
            raise PatchError(f"{path}: member {last!r} not found")
        return doc, parent.pop(last)
    if isinstance(parent, list):
        return doc, parent.pop(_index(parent, last, path))
    raise PatchError(f"{path}: parent is not an object or array")


def apply_json_patch(doc: Any, ops: list[dict]) -> Any:
    """RFC 6902: the patched copy of ``doc``; raises PatchError and leaves ``doc`` untouched."""
    if not isinstance(ops, list):
        raise PatchError("a JSON patch is an array of operations")
    out = copy.deepcopy(doc)
    for i, op in enumerate(ops):
        if not isinstance(op, dict) or "op" not in op or "path" not in op:
            raise PatchError(f"operation {i}: needs 'op' and 'path'")
        kind, path = op["op"], op["path"]
        if kind in ("add", "replace", "test") and "value" not in op:
            raise PatchError(f"operation {i} ({kind} {path}): missing 'value'")
        if kind == "add":
            out = _add(out, path, copy.deepcopy(op["value"]))
        elif kind == "remove":
            out, _ = _remove(out, path)
        elif kind == "replace":
            if path == "":
                out = copy.deepcopy(op["value"])
                continue
            get(out, path)  # must exist
            out, _ = _remove(out, path)
            out = _add(out, path, copy.deepcopy(op["value"]))
        elif kind == "move":
            frm = op.get("from")
            if not isinstance(frm, str):
                raise PatchError(f"operation {i} (move): missing 'from'")
            out, value = _remove(out, frm)
            out = _add(out, path, value)
        elif kind == "copy":
            frm = op.get("from")
            if not isinstance(frm, str):
                raise PatchError(f"operation {i} (copy): missing 'from'")
            out = _add(out, path, copy.deepcopy(get(out, frm)))
        elif kind == "test":
            try:
                have = get(out, path)
            except PatchError:
                raise PatchError(f"testing value {path} failed: not found") from None
            if not json_equal(have, op["value"]):
                raise PatchError(f"testing value {path} failed: test failed")
        else:
            raise PatchError(f"operation {i}: unknown op {kind!r}")
    return out
