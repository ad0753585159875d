"""A large kubectl ``List`` JSON file decoded one item at a time.

``kubectl get ... -o json`` (and ``planner snapshot``) prints one ``List`` whose ``items`` hold
every object.  Decoding it whole builds every object's dicts at once (orjson peaks at over four
times the file size, and cannot decode inputs of 2 GiB or more at all); a load only needs one
item at a time: pods' dicts are dropped as soon as they are validated and converted.

The file is split, never guessed at.  Its parts:

* ``P``: from the start to the ``[`` that opens ``items`` (the first ``"items": [`` in the file);
* each item: from its ``{`` to the first line that closes it at the items' indentation
  (``\\n<indent>}``), the indentation being what precedes the first item's ``{``;
* ``Q``: from the ``]`` that closes ``items`` to the end of the file (found from the tail:
  a ``]`` that starts a line; in compact JSON, any ``]``).

Why the result is the whole-document decode: ``P + sentinel + Q`` (the *frame*) is decoded by
orjson and must hold the sentinel exactly once, as the only element of its top-level
``items``, so ``P``'s last ``[`` and ``Q``'s first ``]`` are the brackets of the top-level
``items`` array (the last one, which is the one a decoder keeps).  Each piece cut out must decode
as one complete JSON value, or several separated by commas (wrapped in ``[[ ]]`` so that it is
decoded at the depth it has in the file, which keeps orjson's nesting limit where it is; each of
them an object), and only whitespace, one comma, whitespace may separate two pieces; the last
piece must be followed by whitespace and exactly ``Q``.  The
file is then ``P + v1 , v2 , ... vn + Q``, whose one parse (JSON's grammar is unambiguous) is the
frame with ``items = [v1, ..., vn]``: what ``orjson.loads`` of the whole file returns.

Compact JSON (no newline before the first item: the API server's own encoding, ``kubectl get
--raw``, ``jq -c``) has no lines to go by.  There an item's end is *looked for* at each ``}``
followed by ``,{"K"`` -- ``K`` the first key of the first item (``apiVersion`` in kubectl's sorted
output, ``metadata`` in the API server's typed lists) -- or by the ``]`` that closes ``items``, and
is *proven* by the decode: the bytes from the item's ``{`` to that ``}`` must decode as one JSON
value.  JSON's grammar is unambiguous, so exactly one such ``}`` ends the value that starts at the
``{``; a candidate inside the item (a nested list of objects whose first key is ``K``) does not
decode and the next one is tried, at most ``MAX_TRIES`` per item (then :class:`Broken`).  An item
whose first key is another (a StorageClass's ``allowVolumeExpansion`` sorts before
``apiVersion``) is not looked for: it ends up in the piece of the item before it, which then
decodes as several values.

Anything else is not streamed: :class:`NotStreamable` before any item was decoded (the caller
reads the file whole, as before), :class:`Broken` after (the caller starts the load over, reading
every file whole, so that every error message is the one a whole read gives).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import orjson

__all__ = ["CHUNK", "Broken", "JsonList", "NotStreamable"]

CHUNK = 16 << 20  # bytes read at a time
MAX_TRIES = 64  # compact JSON: candidate ends tried per item
TAIL = 1 << 20  # where Q (the end of the file after the items) is looked for
_HEAD = 4096  # parse_bytes decides JSON vs YAML from the first 4 KiB
_BOM = b"\xef\xbb\xbf"
_WS = re.compile(rb"[ \t\r\n]*")
_ITEMS = re.compile(rb'"items"[ \t\r\n]*:[ \t\r\n]*\[')
_SENTINEL = "planner/stream: the items of this List \x00"
_SENTINEL_JSON = orjson.dumps(_SENTINEL)
_LBRACE, _RBRACE, _RBRACKET, _COMMA = ord("{"), ord("}"), ord("]"), ord(",")
_WS_BYTES = b" \t\r\n"
_FIRST_KEY = re.compile(rb'\{[ \t\r\n]*("(?:[^"\\]|\\.)*")[ \t\r\n]*:')


class NotStreamable(Exception):
    """The file is not a List this module splits; nothing of it has been used."""


class Broken(Exception):
    """The file turned out not to split as its frame said, after items were handed out."""


def _count_sentinel(doc: Any) -> int:
    n = 0
    work = [doc]
    while work:
        v = work.pop()
        if type(v) is dict:
            for k, x in v.items():
                n += k == _SENTINEL
                work.append(x)
        elif type(v) is list:
            work.extend(v)
        elif v == _SENTINEL:
            n += 1
    return n


def _frame(p: bytes, q: bytes) -> dict | None:  # type: ignore[type-arg]
    """The top-level object with the sentinel as its items, or None when P/Q do not frame it."""
    try:
        doc = orjson.loads(b"".join((p, _SENTINEL_JSON, q)))
    except orjson.JSONDecodeError:
        return None
    if type(doc) is not dict:
        return None
    items = doc.get("items")
    if type(items) is not list or len(items) != 1 or items[0] != _SENTINEL or _count_sentinel(doc) != 1:
        return None
    return doc


def _objects(found: list[Any]) -> list[Any]:
    if any(type(v) is not dict for v in found):
        raise Broken("an item that is not an object")
    return found


class JsonList:
    """``JsonList.open(path, size)`` -> ``.frame`` (the top-level object, ``items`` excluded) and
    ``.items()`` (each item decoded, in order).  Use as a context manager (closes the file)."""

    def __init__(self, f: io.BufferedReader, size: int, chunk: int) -> None:
        self.f = f
        self.size = size
        self.chunk = chunk
        self.frame: dict = {}  # type: ignore[type-arg]
        self._head = b""
        self._first = 0  # offset of the first item's "{" (or of the closing "]")
        self._q_start = 0  # offset of the "]" that closes items
        self._end = re.compile(b"")  # "\n<indent>}": the line that closes an item
        self.compact = False  # items are found by candidate ends proven by the decode
        self.stopped = False  # items(stop=E) ended at E
        self.buf = bytearray()  # the part of the file being split (items()): buf[:n]
        self.n = 0
        self.off = 0  # the file offset of buf[0]

    @classmethod
    def open(cls, path: str, size: int, chunk: int = CHUNK) -> JsonList:
        f = open(path, "rb")  # noqa: SIM115 - closed by __exit__ or below
        try:
            s = cls(f, size, chunk)
            s._open()
        except BaseException:
            f.close()
            raise
        return s

    def __enter__(self) -> JsonList:
        return self

    def __exit__(self, *exc: object) -> None:
        self.f.close()

    def _open(self) -> None:
        f, size = self.f, self.size
        head = f.read(min(size, max(self.chunk, _HEAD)))
        start = 3 if head.startswith(_BOM) else 0
        first = _WS.match(head, start).end()  # type: ignore[union-attr]
        if first >= start + _HEAD or first >= len(head) or head[first] != _LBRACE:
            raise NotStreamable("not a JSON object")
        m = _ITEMS.search(head, first)
        if m is None:
            raise NotStreamable("no items in the first chunk")
        p_end = m.end()
        k = _WS.match(head, p_end).end()  # type: ignore[union-attr]
        if k >= len(head):
            raise NotStreamable("no item in the first chunk")
        p = head[start:p_end]
        if head[k] == _RBRACKET:  # items: []
            q = head[k:] + f.read()
            frame = _frame(p, q)
            q_start = k
        elif head[k] == _LBRACE:
            ws = head[p_end:k]
            nl = ws.rfind(b"\n")
            if nl < 0:  # compact: a "}" followed by ,{"K" (K the first item's first key) or by "]"
                fk = _FIRST_KEY.match(head, k)
                if fk is None:
                    raise NotStreamable("no first key in the first item")
                key = re.escape(fk.group(1))
                # Only the ends followed by the next item: the "}" before the ``]`` that closes
                # items is found by its offset (q_start), so that the "}]" of every list of
                # objects inside an item (containers, conditions, ...) is not a candidate.
                self._end = re.compile(rb"\}(?=[ \t\r\n]*,[ \t\r\n]*\{[ \t\r\n]*" + key + rb"[ \t\r\n]*:)")
                self.compact = True
            else:
                self._end = re.compile(re.escape(b"\n" + ws[nl + 1 :] + b"}"))
            frame, q_start = self._find_q(p, head, k)
        else:
            raise NotStreamable("items do not start with an object")
        if frame is None:
            raise NotStreamable("the items' brackets were not found")
        del frame["items"]
        self.frame = frame
        self._head = head
        self._first = k
        self._q_start = q_start

    def _find_q(self, p: bytes, head: bytes, k: int) -> tuple[dict | None, int]:  # type: ignore[type-arg]
        """Q: the last ``]`` that starts a line (compact: any ``]``) in the file's tail and frames P."""
        f, size = self.f, self.size
        if len(head) == size:
            tail, off = head, 0
        else:
            off = max(k + 1, size - TAIL)
            f.seek(off)
            tail = f.read()
        hi = len(tail)
        for _ in range(64):
            i = tail.rfind(b"]", max(k + 1 - off, 0), hi)
            if i < 0:
                break
            hi = i
            nl = tail.rfind(b"\n", 0, i)
            if not self.compact and (nl < 0 or _WS.match(tail, nl).end() != i):  # type: ignore[union-attr]
                continue
            frame = _frame(p, tail[i:])
            if frame is not None:
                return frame, off + i
        return None, 0

    def _fill(self, keep: int) -> bool:
        """Drop ``buf[:keep]``, move the rest to the front and read the next chunk after it, into
        the same memory (fresh pages cost more than the copy); False at the end of the file."""
        buf, n, chunk = self.buf, self.n, self.chunk
        rest = n - keep
        if keep:
            buf[:rest] = buf[keep:n]
        if len(buf) < rest + chunk:  # an item longer than the buffer
            buf.extend(bytes(rest + chunk - len(buf)))
        with memoryview(buf) as mv:
            got = self.f.readinto(mv[rest : rest + chunk])
        self.off += keep
        self.n = rest + got
        return got > 0

    def _skip_ws(self, i: int) -> int:
        """The index in buf of the first non-whitespace byte at or after ``i`` (reading on as
        needed: indices before ``i`` are invalid afterwards); self.n at the end of the file."""
        while True:
            k = _WS.match(self.buf, i, self.n).end()  # type: ignore[union-attr]
            if k < self.n or not self._fill(i):
                return k
            i = 0

    def _last_end(self, at: int) -> int:
        """Compact JSON, when the buffer holds the ``]`` that closes items: the index in buf just
        after the ``}`` that precedes it (only whitespace between), at or after ``at``; else 0."""
        qi = self._q_start - self.off
        if not at < qi <= self.n:
            return 0
        buf = self.buf
        j = qi
        while j > at and buf[j - 1] in _WS_BYTES:
            j -= 1
        return j if j > at and buf[j - 1] == _RBRACE else 0

    def split_point(self, fraction: float, window: int = 4 << 20) -> tuple[int, int] | None:
        """(E, S): a place where one item may end (E: the offset just after its ``}``) and the next
        begin (S: the offset of its ``{``), found about ``fraction`` of the way through the items
        by the pattern items() looks for, or None.  Only a candidate: items(stop=E) tells whether
        an item really ends there (``stopped``)."""
        lo, hi = self._first, self._q_start
        at = lo + int((hi - lo) * fraction)
        if not lo < at < hi:
            return None
        self.f.seek(at)
        win = self.f.read(min(window, hi - at))
        for m in self._end.finditer(win):
            e = m.end()
            k = _WS.match(win, e).end()  # type: ignore[union-attr]
            if k < len(win) and win[k] == _COMMA:
                k = _WS.match(win, k + 1).end()  # type: ignore[union-attr]
                if k < len(win) and win[k] == _LBRACE:
                    return at + e, at + k
        return None

    def items(self, start: int | None = None, stop: int | None = None) -> Iterator[Any]:
        """Each item, decoded; raises Broken when the file does not split as framed.  ``start``:
        the offset of an item's ``{`` to begin at (instead of the first item); ``stop``: the
        offset just after an item's ``}`` to end at, when one ends exactly there (then
        ``stopped`` is True; else the items go on to the end)."""
        self.stopped = False
        if self._first == self._q_start:
            return
        if start is None:
            head = self._head
            self._head = b""
            self.buf = buf = bytearray(len(head) + self.chunk)
            buf[: len(head)] = head
            self.n = len(head)  # buf[:n] holds the file from offset self.off
            self.off = 0
            del head
            self.f.seek(self.n)
            rel = self._first  # the current item starts at buf[rel]
        else:
            self._head = b""
            self.buf = bytearray(self.chunk)
            self.n = 0
            self.off = start
            self.f.seek(start)
            self._fill(0)
            buf = self.buf
            rel = 0
            if self.n == 0 or buf[0] != _LBRACE:
                raise Broken("no item starts there")
        find, q_start = self._end.search, self._q_start  # re: twice as fast as bytes.find here
        loads, join = orjson.loads, b"".join
        compact = self.compact
        at = rel  # where the search for its end goes on (compact: after a candidate that failed)
        tries = 0
        while True:
            m = find(buf, at, self.n)
            if m is not None:
                e = m.end()
            elif compact and (e := self._last_end(at)) > 0:
                pass  # the last item: it ends at the "}" before the "]" that closes items
            else:
                if not self._fill(rel):
                    raise Broken("an item does not end")
                buf = self.buf
                at -= rel
                rel = 0
                continue
            with memoryview(buf) as mv:
                text = join((b"[[", mv[rel:e], b"]]"))
            try:
                found = loads(text)[0]  # one item, or several: "v1, v2, ..." decodes as that list
            except orjson.JSONDecodeError:
                del text
                tries += 1
                if not compact or tries >= MAX_TRIES:
                    raise Broken("an item is not one JSON value") from None
                at = e  # the "}" was inside the item: the next candidate
                continue
            del text
            tries = 0
            end = self.off + e
            # what follows: whitespace, then "," whitespace "{", or the closing "]" (Q)
            k = self._skip_ws(e)
            buf = self.buf
            if k < self.n and buf[k] == _COMMA:
                k = self._skip_ws(k + 1)
                buf = self.buf
                if k >= self.n or buf[k] != _LBRACE:
                    raise Broken("an item that is not an object")
                yield from _objects(found)
                if end == stop:
                    self.stopped = True
                    return
                rel = at = k
                continue
            if k < self.n and buf[k] == _RBRACKET and self.off + k == q_start:
                yield from _objects(found)
                return
            raise Broken("items end where the frame does not")
