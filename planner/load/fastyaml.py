"""A fast path for block-style YAML as ``kubectl get -o yaml`` and Helm print it.

libyaml's events cost as much as composing them in Python: two thirds of a YAML load went to
them.  Most snapshots use a small part of YAML, one document per object: block mappings and
sequences indented by spaces, one-line plain, single- and double-quoted scalars, ``{}`` and
``[]``, and ``|``/``>`` block scalars.  This module reads that part line by line, straight into
Python values, and hands everything else to the exact path (planner.load.reader: libyaml's
events, composed within the limits), **from the start of the document it could not read**.

It never reports an error: whatever it does not fully handle -- anchors, aliases, tags, flow
collections other than ``{}`` and ``[]``, plain or quoted scalars over several lines, comments
after a value, complex or long keys, directives, ``...``, a ``---`` line with anything on it,
tabs, carriage returns and the other line breaks YAML knows (NEL, LS, PS), byte-order marks,
characters YAML forbids, indentation it does not expect, duplicate keys, merge keys (``<<``),
a scalar the resolver types as anything it has no constructor for, a nesting within one level of
``max_depth``, more documents than ``max_documents`` -- makes it stop there (:class:`Fallback`),
and the exact path reads the rest of the stream as a stream of its own, preceded by as many
empty lines as the documents before it held, so its line numbers (and its errors) are the ones
a read of the whole stream gives.  The documents before are the exact path's too: a document
the fast path reads it reads completely, and documents are cut only at lines that are exactly
``---``, which start a document wherever they are (YAML forbids such a line in a scalar; in a
block scalar a line at column 0 ends the scalar first).

Scalars are typed by the exact path's own resolver and constructors (``plain``, given by the
caller), so ``yes``, ``0o17``, ``1e3``, ``~``, timestamps and numbers past 64 bits come out as
they do there.  Block scalars follow libyaml's scanner (``yaml_parser_scan_block_scalar``) line
for line.  The bounds: nothing here recurses; collections nest at most ``max_depth - 1`` levels
before the exact path takes over (and reports the limit); there are no aliases to expand.
tests/load/test_fastyaml.py compares both paths on generated documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Fallback", "Scan"]


class Fallback(Exception):
    """Something the fast path does not read: the exact path reads from this document on."""


# Characters libyaml rejects (not YAML 1.1 "c-printable", or not encodable: lone surrogates).  Its
# reader checks characters up to 16 KiB ahead of the parser, and says where by their offset: a
# stream that holds one is left to the exact path whole, so that the message and the documents
# before it are the ones it gives.
_REJECTED = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# Characters it takes that this module does not read: tab, CR, NEL, LS, PS (line breaks or
# indentation), the byte-order mark (skipped by libyaml at a line's start).
_UNHANDLED = "\t\r\x85\u2028\u2029\ufeff"
_ASCII_TAKEN = bytes([9, 10, 13, *range(0x20, 0x7F)])  # the ASCII characters libyaml takes


def _readable_up_to(text: str) -> int:
    """-1 when ``text`` holds a character libyaml rejects; else the offset of the first character
    this module does not read (the length of ``text`` when there is none)."""
    if text.isascii():  # the usual case: checked as bytes, 16 MiB at a time
        step = 16 << 20
        for i in range(0, len(text), step):
            if text[i : i + step].encode("ascii").translate(None, _ASCII_TAKEN):
                return -1
        chars = _UNHANDLED[:2]
    elif _REJECTED.search(text) is not None:
        return -1
    else:
        chars = _UNHANDLED
    return min((k for k in (text.find(c) for c in chars) if k >= 0), default=len(text))
# not a plain scalar's first character ("-" is, when a non-space follows it: -1, -Xmx1g)
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_DQ_ESCAPES = {
    "0": "\0", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n", "v": "\x0b", "f": "\x0c",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}
_DQ_HEX = {"x": 2, "u": 4, "U": 8}
_DQ = re.compile(r'"((?:[^"\\]|\\.)*)"')  # a double-quoted scalar's body, on one line
_DQ_ESCAPE = re.compile(r"\\(?:([xuU])([0-9A-Fa-f]*)|(.))")
_BLOCK_HEADERS = {"|": (True, 0), "|-": (True, -1), "|+": (True, 1), ">": (False, 0), ">-": (False, -1), ">+": (False, 1)}
_MAX_KEY = 1000  # libyaml: a simple key ends within 1,024 characters of its start
_NOKEY = object()


def _double_quoted(body: str) -> str:
    """The value of ``"body"`` (one line, its quotes removed) as libyaml reads it."""
    if "\\" not in body:
        return body

    def one(m: re.Match[str]) -> str:
        kind, digits, ch = m.group(1), m.group(2), m.group(3)
        if kind is None:
            r = _DQ_ESCAPES.get(ch)
            if r is None:
                raise Fallback("unknown escape")
            return r
        n = _DQ_HEX[kind]
        if len(digits) < n:
            raise Fallback("short escape")
        code = int(digits[:n], 16)
        if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            raise Fallback("invalid code point")
        return chr(code) + digits[n:]

    return _DQ_ESCAPE.sub(one, body)


def _quoted_start(s: str) -> tuple[str, int]:
    """The quoted scalar ``s`` starts with (on this line): its value and where it ends."""
    if s[0] == '"':
        m = _DQ.match(s)
        if m is None:
            raise Fallback("quoted scalar")
        return _double_quoted(m.group(1)), m.end()
    j = 1
    while True:
        j = s.find("'", j)
        if j < 0:
            raise Fallback("quoted scalar")
        if s.startswith("'", j + 1):
            j += 2
            continue
        return s[1:j].replace("''", "'"), j + 1


def _quoted(s: str) -> str:
    """A one-line quoted scalar that is all of ``s``."""
    v, end = _quoted_start(s)
    if end != len(s):
        raise Fallback("quoted scalar")
    return v


class Scan:
    """The documents of ``text`` the fast path reads, in order (iterate); afterwards ``rest`` is
    None (it read them all) or ``(offset, line)``: where the exact path is to read on (the start
    of the stream, or of the ``---`` line before the document the fast path could not read) and
    how many lines precede it.  ``ndocs``: the documents it yielded.  ``plain``: a plain
    scalar's value; ``firsts``: the first characters of those it may not read as a string (None:
    any)."""

    def __init__(
        self,
        text: str,
        plain: Callable[[str], Any],
        firsts: frozenset[str] | None,
        max_depth: int,
        max_documents: int,
        typed: dict[str, Any] | None = None,
    ) -> None:
        self.text = text
        self.plain = plain
        self.firsts = firsts
        self.typed = typed if typed is not None else {}  # plain's values so far (its cache): looked up inline
        self.max_depth = max_depth
        self.max_documents = max_documents
        self.rest: tuple[int, int] | None = None
        self.ndocs = 0
        self.pos = 0  # the offset in ``text`` read up to: the end of the last document yielded

    def rest_text(self) -> str:
        """The stream the exact path reads: the rest, after as many empty lines as precede it."""
        assert self.rest is not None
        off, line = self.rest
        return self.text if off == 0 else "\n" * line + self.text[off:]

    def _separator(self, pos: int) -> int:
        """The offset of the next line that is exactly ``---`` at or after ``pos`` (a line
        start), or -1."""
        text = self.text
        if text.startswith("---", pos) and text[pos + 3 : pos + 4] in ("\n", ""):
            return pos
        while True:
            k = text.find("\n---", pos)
            if k < 0:
                return -1
            if text[k + 4 : k + 5] in ("\n", ""):
                return k + 1
            pos = k + 4

    def __iter__(self) -> Iterator[Any]:
        text = self.text
        limit = _readable_up_to(text)
        if limit < 0:
            self.rest = (0, 0)
            return
        n = len(text)
        pos = 0  # where the document's lines start
        at, line = 0, 0  # where the exact path would start reading it ("---" line or 0) and the lines before
        first = True
        while True:
            sep = self._separator(pos)
            end = sep if sep >= 0 else n
            if end > limit:
                self.rest = (at, line)
                return
            lines = text[pos:end].split("\n")
            # the first document is there when a line holds more than spaces and a comment
            if not first or any(x.lstrip(" ")[:1] not in ("", "#") for x in lines):
                if self.ndocs >= self.max_documents:
                    self.rest = (at, line)
                    return
                try:
                    doc = self._document(lines)
                except Fallback:
                    self.rest = (at, line)
                    return
                self.ndocs += 1
                self.pos = end
                yield doc
            if sep < 0:
                return
            line += len(lines) - first  # the lines from ``at`` to the next separator
            at = end
            first = False
            pos = min(end + 4, n)

    # ----------------------------------------------------------------------------- one document

    def _document(self, lines: list[str]) -> Any:
        """One document's value (``lines``: its lines, the last one not followed by a line
        break); Fallback for anything the module does not read."""
        plain = self.plain
        firsts = self.firsts
        typed = self.typed.get
        miss = _NOKEY
        max_frames = self.max_depth - 1
        indicators = _INDICATORS
        # frames: [indent, container, is_mapping, indentless]
        stack: list[list[Any]] = []
        root: list[Any] = []
        pend = True  # the last entry (stack[-1], or the root) awaits a nested node
        pkey: Any = None
        top: list[Any] = []
        i = 0
        n = len(lines)
        while i < n:
            raw = lines[i]
            i += 1
            s = raw.lstrip(" ")
            if not s:
                continue
            c = s[0]
            if c == "#":
                continue
            ind = len(raw) - len(s)
            if s[-1] == " ":
                s = s.rstrip(" ")
            dash = c == "-" and (len(s) == 1 or s[1] == " ")
            if ind == 0 and (s.startswith("---") or s.startswith("...")):
                raise Fallback("document marker")
            if pend:
                pend = False
                pind = top[0] if stack else -1
                pmap = top[2] if stack else False
                if ind > pind or (dash and pmap and ind == pind):
                    if len(stack) >= max_frames:
                        raise Fallback("deep")
                    obj: Any = [] if dash else {}
                    if not stack:
                        root.append(obj)
                    elif pmap:
                        top[1][pkey] = obj
                    else:
                        top[1].append(obj)
                    top = [ind, obj, not dash, dash and ind == pind]
                    stack.append(top)
                else:
                    v = plain("")
                    if pmap:
                        top[1][pkey] = v
                    else:
                        top[1].append(v)
            elif ind != top[0] or (top[3] and not dash):
                while ind < top[0] or (ind == top[0] and top[3] and not dash):
                    stack.pop()
                    if not stack:
                        raise Fallback("indentation")
                    top = stack[-1]
                if ind != top[0]:
                    raise Fallback("indentation")
            if dash:
                if top[2]:
                    raise Fallback("a sequence entry in a mapping")
                body = s[1:].lstrip(" ")
                if not body:
                    pend = True
                    continue
                col = ind + len(s) - len(body)
                c = body[0]
            elif not top[2]:
                raise Fallback("not a sequence entry")
            else:
                body = s
                col = ind
            # a key?  (body: the line's content after the indentation and "- ")
            if c == "'" or c == '"':
                q, end = _quoted_start(body)
                if end == len(body):
                    key = _NOKEY
                    v = q
                elif body.startswith(": ", end) or end + 1 == len(body) and body[end] == ":":
                    if end > _MAX_KEY:
                        raise Fallback("long key")
                    key = q
                    rest = body[end + 2 :]
                    if rest[:1] == " ":
                        rest = rest.lstrip(" ")
                else:
                    raise Fallback("quoted scalar")
            else:
                k = body.find(": ")
                if k < 0 and body[-1] == ":":
                    k = len(body) - 1
                if k < 0:
                    key = _NOKEY
                    if c in indicators:
                        if not (c == "-" and body[1:2] not in ("", " ")):
                            v, i = self._value(body, lines, i, ind)
                            if dash:
                                top[1].append(v)
                                continue
                            raise Fallback("not a mapping entry")
                    elif " #" in body:
                        raise Fallback("comment")
                    v = plain(body) if firsts is None or c in firsts else body
                else:
                    key = body[:k]
                    if c in indicators or key[-1] == " " or " #" in key or k > _MAX_KEY:
                        raise Fallback("key")
                    if firsts is None or c in firsts:
                        t = typed(key, miss)
                        key = plain(key) if t is miss else t
                    rest = body[k + 2 :]
                    if rest and rest[0] == " ":
                        rest = rest.lstrip(" ")
            if key is _NOKEY:
                if not dash:
                    raise Fallback("not a mapping entry")
                top[1].append(v)
                continue
            if dash:  # "- key: ...": a mapping in the sequence
                if len(stack) >= max_frames:
                    raise Fallback("deep")
                obj = {}
                top[1].append(obj)
                top = [col, obj, True, False]
                stack.append(top)
            else:
                obj = top[1]
            if key in obj:
                raise Fallback("duplicate key")
            if not rest:
                obj[key] = None  # keeps the key's place; the pending value replaces it
                pend = True
                pkey = key
                continue
            c = rest[0]
            if c in indicators:
                if not (c == "-" and rest[1:2] not in ("", " ")):
                    obj[key], i = self._value(rest, lines, i, col)
                    continue
            if " #" in rest or ": " in rest or rest[-1] == ":":
                raise Fallback("plain scalar")
            if firsts is None or c in firsts:
                t = typed(rest, miss)
                obj[key] = plain(rest) if t is miss else t
            else:
                obj[key] = rest
        if pend:
            v = plain("")
            if not stack:
                root.append(v)
            elif top[2]:
                top[1][pkey] = v
            else:
                top[1].append(v)
        return root[0]

    def _value(self, rest: str, lines: list[str], i: int, pindent: int) -> tuple[Any, int]:
        """The node ``rest`` that starts with an indicator or a quote, on the line before
        ``lines[i]``, and the index of the line after it (a block scalar reads on)."""
        c = rest[0]
        if c == "'" or c == '"':
            return _quoted(rest), i
        if c == "|" or c == ">":
            return self._block(rest, lines, i, len(lines), pindent)
        if rest == "{}":
            return {}, i
        if rest == "[]":
            return [], i
        raise Fallback("indicator")

    def _block(self, header: str, lines: list[str], pos: int, n: int, pindent: int) -> tuple[str, int]:
        """A ``|`` or ``>`` block scalar whose content starts at ``lines[pos]`` (libyaml's
        yaml_parser_scan_block_scalar and _breaks, for an automatic indentation).  The last
        line of ``lines`` is followed by no line break (the stream's end, or a ``---`` line)."""
        try:
            literal, chomp = _BLOCK_HEADERS[header]
        except KeyError:
            raise Fallback("block scalar header") from None
        if pos >= n:
            raise Fallback("block scalar at the end")
        last = n - 1
        out: list[str] = []
        indent = 0
        leading_break = ""
        leading_blank = False
        # _breaks: eat the indentation spaces and empty lines
        breaks = 0
        max_indent = 0
        while True:
            ln = lines[pos]
            col = 0
            ll = len(ln)
            while (not indent or col < indent) and col < ll and ln[col] == " ":
                col += 1
            if col > max_indent:
                max_indent = col
            if col == ll and pos < last:  # an empty line: its break
                breaks += 1
                pos += 1
                continue
            break
        indent = max(max_indent, pindent + 1, 1)
        while pos < n and col == indent and not (pos == last and col == len(lines[pos])):
            ln = lines[pos]
            trailing_blank = ln[col] == " "
            if not literal and leading_break == "\n" and not leading_blank and not trailing_blank:
                if not breaks:
                    out.append(" ")
            else:
                out.append(leading_break)
            leading_break = ""
            if breaks:
                out.append("\n" * breaks)
                breaks = 0
            leading_blank = ln[col] == " "
            out.append(ln[col:])
            if pos == last:  # the stream's end: no line break
                pos = n
                break
            leading_break = "\n"
            pos += 1
            while True:  # _breaks again, the indentation known
                ln = lines[pos]
                col = 0
                ll = len(ln)
                while col < indent and col < ll and ln[col] == " ":
                    col += 1
                if col == ll and pos < last:
                    breaks += 1
                    pos += 1
                    continue
                break
        if chomp != -1:
            out.append(leading_break)
        if chomp == 1 and breaks:
            out.append("\n" * breaks)
        return "".join(out), pos
