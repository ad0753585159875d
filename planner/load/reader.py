"""Bounded reading of untrusted YAML and JSON.

Nothing read is trusted.  Bounds are enforced while parsing, before anything is built:

* file size (default 1 GiB) is checked before a byte is read;
* input must be UTF-8 (a UTF-8 byte-order mark is allowed) and free of NUL bytes;
* YAML is composed from libyaml's event stream by an iterative composer, never by
  ``yaml.safe_load``: recursion-free (CSafeLoader's recursive composer crashes the process at
  ~50,000 levels), with a nesting limit, a limit on the nodes that aliases expand to (alias
  bombs), a document-count limit, duplicate mapping keys rejected and unknown tags rejected;
  the documents in the block style kubectl prints are read by a line-by-line fast path
  (planner.load.fastyaml), which hands anything else to the composer with the same result;
* JSON is decoded by the standard library with a duplicate-key hook for inputs up to
  ``json_strict_bytes`` (hand-written territory), and by orjson above that (machine-written
  ``kubectl get -o json`` snapshots of 100-400 MB, where the stdlib hook would cost several times
  the decode).  orjson rejects NaN, invalid UTF-8 and nesting beyond 1,024 levels; it keeps the
  last of duplicate keys, which ``planner validate --strict-json`` checks at any size.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from planner.errors import InputError


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 1 << 30  # per file
    # a kubectl JSON List is read item by item (planner.load.stream: memory bounded per item, not
    # by the file): the indented List of a 5,000-node cluster is 1.6 GiB
    max_stream_bytes: int = 8 << 30
    max_depth: int = 256  # nesting of YAML collections (JSON: orjson's 1,024 / stdlib recursion limit)
    max_documents: int = 1_000_000  # YAML documents per file
    max_alias_nodes: int = 1_000_000  # nodes that alias references may expand to, per file
    json_strict_bytes: int = 32 << 20  # JSON up to this size is checked for duplicate keys

    @property
    def largest(self) -> int:
        """The largest file any input may be (a List read item by item, else max_bytes)."""
        return max(self.max_bytes, self.max_stream_bytes)

    def too_large(self, source: str, size: int) -> str:
        """The message for an input of ``size`` bytes read whole, past max_bytes."""
        stream = (f" (a kubectl JSON List file of up to {self.max_stream_bytes} bytes is read item by item where a snapshot is loaded)"
                  if self.max_stream_bytes > self.max_bytes and source not in ("-", "<stdin>") else "")
        return f"{source}: {size} bytes is more than the {self.max_bytes}-byte limit{stream} (see --max-bytes)"


class _Cut(Exception):
    """An input error found while parsing: carries the message without the source prefix."""


# --------------------------------------------------------------------------- bytes -> text


def decode_text(data: bytes, source: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    nul = data.find(b"\x00")
    if nul != -1:
        raise InputError(f"{source}: binary data (NUL byte at offset {nul}): not a YAML or JSON file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{source}: not UTF-8 (invalid byte 0x{data[e.start]:02x} at offset {e.start})") from None


def looks_like_json(text: str) -> bool:
    for ch in text[:4096]:
        if ch in " \t\r\n":
            continue
        return ch in "{["
    return False


# --------------------------------------------------------------------------- JSON


def _no_dup_pairs(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _Cut(f"duplicate key {json.dumps(k)}")
        out[k] = v
    return out


def _reject_constant(name: str) -> Any:
    raise _Cut(f"{name} is not valid JSON")


def _json_int(text: str) -> int | float:
    """A JSON integer; one of more digits than Python converts (4,300) is read as a float, as
    orjson reads every integer past 64 bits (an integer field then rejects it)."""
    return int(text) if len(text) <= 4300 else float(text)


def parse_json(data: bytes | str, source: str, limits: Limits, strict: bool | None = None) -> Any:
    """Decode one JSON value; trailing garbage, duplicate keys (strict), NaN are errors."""
    size = len(data)
    if strict is None:
        strict = size <= limits.json_strict_bytes
    try:
        if strict:
            text = data if isinstance(data, str) else decode_text(data, source)
            return json.loads(text, object_pairs_hook=_no_dup_pairs, parse_constant=_reject_constant, parse_int=_json_int)
        return orjson.loads(data)
    except _Cut as e:
        raise InputError(f"{source}: {e}") from None
    except RecursionError:
        raise InputError(f"{source}: nesting too deep: more than the JSON decoder's limit") from None
    except orjson.JSONDecodeError as e:  # before json.JSONDecodeError: it is a subclass of it
        msg = str(e).lower()
        if "recursion" in msg or "depth limit" in msg:
            raise InputError(f"{source}: nesting too deep: more than 1024 levels") from None
        raise InputError(f"{source}: line {e.lineno}, column {e.colno}: invalid JSON: {e.msg}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{source}: line {e.lineno}, column {e.colno}: invalid JSON: {e.msg}") from None


# --------------------------------------------------------------------------- YAML

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


_LOADER: Any = None


def _loader_class() -> Any:
    """libyaml's parser and PyYAML's safe resolver; composition is ours (``iter_yaml``).  PyYAML
    is imported on the first YAML input, not by every command at start-up."""
    global _LOADER
    if _LOADER is None:
        import yaml

        base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
        _LOADER = type("_Loader", (base,), {"__module__": __name__})
    return _LOADER


def _yaml_number(construct_int: Callable[[Any], Any], construct_float: Callable[[Any], Any]) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """Numbers as Kubernetes reads YAML (sigs.k8s.io/yaml's go-yaml v2, resolve): a plain integer
    is an int64 or a uint64; past both it is a float64 (rounded) when ParseFloat succeeds; and a
    number past float64 (an integer of hundreds of digits, ``1e400``) is no number at all but the
    string as written.  (So a quantity written as such a number is a valid quantity and an integer
    field rejects it as a string.)  Python's int() refuses more than 4,300 digits: such an integer
    is past float64 anyway."""

    def integer(node: Any) -> Any:
        try:
            v = construct_int(node)
        except ValueError:  # past Python's integer-string conversion limit (an explicit !!int of no number: refused)
            if not node.value.lstrip("+-").replace("_", "").isdigit():
                raise
            return node.value
        if -(1 << 63) <= v < (1 << 64):
            return v
        try:
            return float(v)
        except OverflowError:
            return node.value

    def floating(node: Any) -> Any:
        v = construct_float(node)
        if isinstance(v, float) and math.isinf(v) and not node.value.lstrip("+-").lower() == ".inf":
            return node.value  # ParseFloat's range error: a string
        return v

    return integer, floating


def _scalar_constructors(loader: Any) -> dict[str, Callable[[Any], Any]]:
    c = loader
    integer, floating = _yaml_number(c.construct_yaml_int, c.construct_yaml_float)
    return {
        "tag:yaml.org,2002:null": lambda n: None,
        "tag:yaml.org,2002:bool": c.construct_yaml_bool,
        "tag:yaml.org,2002:int": integer,
        "tag:yaml.org,2002:float": floating,
        # Kubernetes reads YAML through JSON: a timestamp is a string (sigs.k8s.io/yaml).
        _TIMESTAMP: lambda n: n.value,
        "tag:yaml.org,2002:binary": lambda n: n.value,
    }


class _Frame:
    __slots__ = ("obj", "key", "has_key", "anchor", "size", "line", "merges")

    def __init__(self, obj: Any, anchor: str | None, line: int) -> None:
        self.obj = obj
        self.key: Any = None
        self.has_key = False
        self.anchor = anchor
        self.size = 1
        self.line = line
        self.merges: list[dict] | None = None


def _line(ev: Any) -> int:
    """The 1-based line an event starts on (0: unknown), for messages."""
    return ev.start_mark.line + 1 if ev.start_mark is not None else 0


def _hashable_key(key: Any, line: int) -> Any:
    if isinstance(key, (dict, list)):
        raise _Cut(f"line {line}: a mapping key must be a scalar")
    return key


def iter_yaml(text: str, source: str, limits: Limits) -> list[Any]:
    """Compose every document of a YAML stream within ``limits``; returns the documents."""
    return list(iter_yaml_docs(text, source, limits))


def iter_yaml_docs(
    text: str, source: str, limits: Limits, *, fast: bool = True, stats: dict[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[Any]:
    """iter_yaml one document at a time (an error in a later document is raised when it is
    reached).  ``fast``: the documents planner.load.fastyaml reads, read by it, the rest (from
    the first document it does not read) by libyaml's events as below; the documents, values
    and messages are the same either way.  ``stats`` (tests, bench): gets ``fast``, the
    documents the fast path read, and ``exact_from``, None or where the exact path took over
    (an offset in ``text`` and the lines before it).  ``progress(offset)``: told every 256
    documents the fast path reads how far into ``text`` it is."""
    ndocs = 0
    if fast:
        from planner.load.fastyaml import Scan

        plain, firsts, typed = _plain_scalars()
        scan = Scan(text, plain, firsts, limits.max_depth, limits.max_documents, typed)
        if progress is None:
            yield from scan
        else:
            for doc in scan:
                yield doc
                if not scan.ndocs & 255:
                    progress(scan.pos)
        if stats is not None:
            stats.update(fast=scan.ndocs, exact_from=scan.rest)
        if scan.rest is None:
            return
        text = scan.rest_text()
        ndocs = scan.ndocs
        del scan
    yield from _exact_docs(text, source, limits, ndocs)


def _plain_scalars() -> tuple[Callable[[str], Any], frozenset[str] | None, dict[str, Any]]:
    """The value of a plain scalar as the exact path (iter_yaml_docs) types it: its resolver's
    tag, then its constructors; planner.load.fastyaml.Fallback for a merge key or a tag the
    exact path rejects (the exact path then reads the document and says so).  And the first
    characters of the scalars the resolver may type as anything but a string (None: any), and
    the values typed so far (plain's cache, which the fast path looks in first)."""
    import yaml

    from planner.load.fastyaml import Fallback

    loader = _loader_class()("")
    constructors = _scalar_constructors(loader)
    resolve = loader.resolve
    resolvers = loader.yaml_implicit_resolvers
    firsts = frozenset(k for k in resolvers if k)  # the first characters a resolver looks at
    every = None in resolvers  # a resolver for any first character: none in PyYAML's
    scalar_node = yaml.ScalarNode
    implicit = (True, False)  # a plain scalar's, as libyaml reports it
    cache: dict[str, Any] = {}
    miss = object()

    def plain(v: str) -> Any:
        r = cache.get(v, miss)
        if r is not miss:
            return r
        tag = resolve(scalar_node, v, implicit)
        if tag == _STR:
            r = v
        else:
            ctor = constructors.get(tag)
            if ctor is None:  # the merge key, or a tag the exact path rejects
                raise Fallback(tag)
            try:
                r = ctor(scalar_node(tag, v))
            except (ValueError, yaml.YAMLError):
                raise Fallback(tag) from None
        if len(cache) < 100_000:
            cache[v] = r
        return r

    return plain, None if every else firsts, cache


def _exact_docs(text: str, source: str, limits: Limits, ndocs: int = 0) -> Iterator[Any]:
    """iter_yaml_docs by libyaml's events; ``ndocs``: the documents read before ``text``."""
    import yaml
    from yaml.events import (
        AliasEvent,
        DocumentEndEvent,
        DocumentStartEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
        StreamEndEvent,
        StreamStartEvent,
    )

    loader = _loader_class()(text)
    del text
    constructors = _scalar_constructors(loader)
    scalar_node = yaml.ScalarNode
    resolve = loader.resolve
    anchors: dict[str, tuple[Any, int]] = {}
    alias_nodes = 0
    max_depth = limits.max_depth
    try:
        try:
            while True:
                ev = loader.get_event()
                if isinstance(ev, StreamStartEvent):
                    continue
                if isinstance(ev, StreamEndEvent):
                    break
                if not isinstance(ev, DocumentStartEvent):  # pragma: no cover - parser guarantees
                    raise _Cut("unexpected YAML event")
                if ndocs >= limits.max_documents:
                    raise _Cut(f"more than {limits.max_documents} YAML documents")
                anchors.clear()
                stack: list[_Frame] = []
                result: Any = None
                done = False
                while not done:
                    ev = loader.get_event()
                    et = type(ev)  # libyaml's events are these exact classes
                    size = 1
                    if et is ScalarEvent:
                        tag = ev.tag
                        if tag is None or tag == "!":
                            tag = resolve(scalar_node, ev.value, ev.implicit)
                        if tag == _STR:
                            value: Any = ev.value
                        elif tag == _MERGE:
                            value = _MERGE_KEY
                        else:
                            ctor = constructors.get(tag)
                            if ctor is None:
                                raise _Cut(f"line {_line(ev)}: unsupported YAML tag {tag}")
                            try:
                                value = ctor(scalar_node(tag, ev.value))
                            except (ValueError, KeyError, yaml.YAMLError):  # an explicit tag on no such value: !!bool foo
                                raise _Cut(f"line {_line(ev)}: invalid {tag.rsplit(':', 1)[-1]} {ev.value!r}") from None
                        if ev.anchor:
                            anchors[ev.anchor] = (value, 1)
                    elif et is AliasEvent:
                        if ev.anchor not in anchors:
                            raise _Cut(f"line {_line(ev)}: unknown alias *{ev.anchor}")
                        value, size = anchors[ev.anchor]
                        alias_nodes += size
                        if alias_nodes > limits.max_alias_nodes:
                            raise _Cut(
                                f"line {_line(ev)}: aliases expand to more than {limits.max_alias_nodes} nodes (YAML alias bomb?)"
                            )
                        if isinstance(value, (dict, list)):
                            value = _deep_copy(value)
                    elif et is MappingStartEvent or et is SequenceStartEvent:
                        line = _line(ev)
                        if ev.tag not in (None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"):
                            raise _Cut(f"line {line}: unsupported YAML tag {ev.tag}")
                        if len(stack) >= max_depth:
                            raise _Cut(f"line {line}: nesting deeper than {max_depth} levels")
                        stack.append(_Frame({} if et is MappingStartEvent else [], ev.anchor, line))
                        continue
                    elif et is MappingEndEvent or et is SequenceEndEvent:
                        fr = stack.pop()
                        value = fr.obj
                        size = fr.size
                        if fr.merges:
                            merged: dict = {}
                            for m in fr.merges:
                                for k, v in m.items():
                                    merged.setdefault(k, v)
                            for k, v in merged.items():
                                value.setdefault(k, v)
                        if fr.anchor:
                            anchors[fr.anchor] = (value, size)
                    elif et is DocumentEndEvent:
                        ndocs += 1
                        done = True
                        yield result
                        result = None
                        continue
                    else:  # pragma: no cover
                        raise _Cut(f"line {_line(ev)}: unexpected YAML event")
                    # attach value to its parent
                    if not stack:
                        result = value
                        continue
                    parent = stack[-1]
                    parent.size += size
                    pobj = parent.obj
                    if type(pobj) is list:
                        pobj.append(value)
                    elif not parent.has_key:
                        vt = type(value)
                        parent.key = value if value is _MERGE_KEY or (vt is not dict and vt is not list) else _hashable_key(value, _line(ev))
                        parent.has_key = True
                    else:
                        key = parent.key
                        parent.has_key = False
                        if key is _MERGE_KEY:
                            items = value if isinstance(value, list) else [value]
                            if not all(isinstance(m, dict) for m in items):
                                raise _Cut(f"line {_line(ev)}: a merge key (<<) needs a mapping or a list of mappings")
                            parent.merges = (parent.merges or []) + items
                        elif key in pobj:
                            raise _Cut(f"line {_line(ev)}: duplicate key {json.dumps(key, default=str)}")
                        else:
                            pobj[key] = value
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
            problem = e.problem or e.context or ""
            if "nesting depth" in problem:
                # libyaml >= 0.2.5 (PyYAML >= 6.0.3 wheels) stops flow nesting past 1,000 levels while
                # it scans ahead, before our event loop sees the collections: the input is then deeper
                # than our own bound too, and is reported in its words, whichever library tripped.
                raise _Cut(f"{where}nesting deeper than {max_depth} levels") from None
            raise _Cut(f"{where}invalid YAML: {problem}") from None
        except yaml.YAMLError as e:
            raise _Cut(f"invalid YAML: {e}") from None
    except _Cut as e:
        raise InputError(f"{source}: {e}") from None
    finally:
        loader.dispose()


class _MergeKey:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<<"


_MERGE_KEY = _MergeKey()


def _deep_copy(obj: Any) -> Any:
    # Iterative copy of an aliased collection (already bounded by max_alias_nodes).
    root: Any = {} if isinstance(obj, dict) else []
    work = [(obj, root)]
    while work:
        src, dst = work.pop()
        items = src.items() if isinstance(src, dict) else enumerate(src)
        for k, v in items:
            if isinstance(v, (dict, list)):
                nv: Any = {} if isinstance(v, dict) else []
                work.append((v, nv))
            else:
                nv = v
            if isinstance(dst, dict):
                dst[k] = nv
            else:
                dst.append(nv)
    return root


# --------------------------------------------------------------------------- entry


def parse_bytes(data: bytes, source: str, limits: Limits, progress: Callable[[int], None] | None = None) -> list[Any]:
    """Parse one input (file or stdin) into its documents (JSON: one value); ``progress``: see
    iter_bytes."""
    return list(iter_bytes(data, source, limits, progress))


def iter_bytes(data: bytes, source: str, limits: Limits, progress: Callable[[int], None] | None = None) -> Iterator[Any]:
    """parse_bytes, YAML documents one at a time: the checks of the whole input and a JSON
    input's decoding are done before this returns; a YAML document's errors are raised when it
    is reached.  ``progress``: see iter_yaml_docs (its offsets are characters of the text, the
    bytes' for ASCII)."""
    if len(data) > limits.max_bytes:
        raise InputError(limits.too_large(source, len(data)))
    if not data or data.isspace():  # no copy of a 1.6 GB input (bytes.strip() would make one)
        raise InputError(f"{source}: empty input: no Kubernetes objects")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    head = data[:4096].lstrip(b" \t\r\n")
    if head[:1] in (b"{", b"["):
        if data.find(b"\x00") != -1:
            decode_text(data, source)  # raises the binary-data error
        return iter([parse_json(data, source, limits)])
    text = decode_text(data, source)
    del data
    return iter_yaml_docs(text, source, limits, progress=progress)
