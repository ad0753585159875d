"""A large List file loaded by two processes: the items before a split point by this one, the items
after it by a forked child, whose converted objects come back pickled.

Decoding, defaulting, validating and converting 185,000 objects is Python work of one core; the
file's items are independent until they are merged into the snapshot (duplicates aside), so the
second half can be done meanwhile on the second core.  The split (planner.load.stream): a
candidate item boundary about ``SHARE`` of the way through the items (E: just after an item's
``}``, S: the next item's ``{``).  This process reads the items up to E (``items(stop=E)``), the
child those from S to the end (``items(start=S)``), each with the sink (defaults, validation,
conversion) as it was before any item of the file.  Then:

* E turned out not to be an item's end (this process read past it): the child is stopped, and
  this process has read everything;
* the child found anything but a clean half (an error in an object, a duplicate of one of this
  half's objects, a kind planner does not read, a scenario, a crash): its work is dropped and this
  process reads the items from S itself, so that every message is the one a single process gives;
* else its objects are appended after this half's, in file order: the snapshot, its notes and
  its key order are those of a single process.

The answer is the same either way (tests/load/test_parallel.py); only the time differs.  Used
for files of ``MIN_BYTES`` (64 MiB) and more on machines with two CPUs or more that fork, busy
or not (see usable); ``PLANNER_LOAD_PROCESSES=1`` never, ``=2`` always.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import re
import signal
from collections.abc import Callable, Iterator
from typing import Any

from planner.load import stream
from planner.processes import fork_child, second_process

MIN_BYTES = 64 << 20
# Of the items read here: the child also pickles what it converted, and this process unpickles
# and merges it.  Measured on an otherwise idle 2-core machine (the load alone, 5,000 nodes,
# compact JSON): 0.56 left this process waiting 1.2-1.9 s for the child (9.6 s in all), 0.62-0.64
# about the 0.6-0.8 s of the unpickling alone (8.2-8.3 s); 0.68 made this process the slower one.
SHARE = 0.62


def usable(size: int) -> bool:
    """Two processes for an input of ``size`` bytes: large enough, and a second CPU to run on,
    busy or not.  Other jobs' processes get their fair share of the CPUs whatever planner does,
    and two processes of planner's get more of them than one: measured at 5,000 nodes on 2 CPUs
    shared with other jobs, two against one (forced, in the same rounds), the loads alone at load
    average 1.2-2.5 11.6-13.2 s against 15.1-18.6 s, check end to end at 1.4-2.5 9.9-10.1 s
    against 14.4-15.7 s and at 2.5-3 15.9-28.6 s against 16.7-29.9 s: never slower, for the
    price of pickling its half (about a third more CPU time in all).  ``PLANNER_LOAD_PROCESSES``:
    1 never, 2 whenever large enough (even on one CPU)."""
    return second_process("PLANNER_LOAD_PROCESSES", size >= MIN_BYTES)


def _state(snap: Any) -> dict[str, Any]:
    return {f.name: getattr(snap, f.name) for f in dataclasses.fields(snap)}


def _child(second: Callable[[], Iterator[Any]], handle: Callable[[int, Any], None], sink: Any, raw: Any, out: int) -> None:
    """The child's half: ``second()``'s objects, then its result on ``out`` (None: not clean)."""
    from planner.load import cache

    result: Any = None
    try:
        n = 0
        for it in second():
            handle(n, it)
            n += 1
        sink.flush()
        if not sink.errors and sink.failed is None and not raw.skipped and raw.scenario is None:
            result = (sink.count, sink.validator.count, sink.validator.seen, _state(sink.builder.snap), n)
    except Exception:  # noqa: BLE001 - whatever it is, the parent reads this half itself
        result = None
    data = cache.pickled(result)
    with open(out, "wb", closefd=True) as f:
        f.write(data)


def _reopen(f: Any) -> Any:
    """The same file (the same inode: checked) with an offset of its own."""
    st = os.fstat(f.fileno())
    g = open(f.name, "rb")  # noqa: SIM115 - the child exits right after reading it
    st2 = os.fstat(g.fileno())
    if (st.st_dev, st.st_ino) != (st2.st_dev, st2.st_ino):
        g.close()
        raise OSError("the file was replaced")
    return g


def run(lst: stream.JsonList, handle: Callable[[int, Any], None], sink: Any, raw: Any, tick: Callable[[int], None] | None = None) -> None:
    """Every item of ``lst`` to ``handle(index, item)`` (through ``sink``), as a plain loop over
    ``lst.items()`` would, the second part of them in a child process when that works out.
    ``tick(bytes)``: told now and then how far the read is (the file's bytes read; with the child,
    read_so_far)."""
    split = lst.split_point(SHARE) if sink.count == 0 and not sink.pending else None
    if split is None:
        each(lst, handle, tick)
        return
    stop, start = split
    size = os.fstat(lst.f.fileno()).st_size

    def child_second() -> Iterator[Any]:
        lst.f = _reopen(lst.f)  # a forked descriptor shares its offset with the parent's
        return lst.items(start=start)

    def both() -> None:
        assert tick is not None
        tick(read_so_far(lst.f.tell(), stop, start, size))

    halves(lambda: lst.items(stop=stop), lambda: lst.stopped, child_second, lambda: lst.items(start=start), handle, sink, raw,
           progress=both if tick is not None else None)


def each(lst: stream.JsonList, handle: Callable[[int, Any], None], tick: Callable[[int], None] | None = None) -> None:
    """Every item of ``lst`` to ``handle(index, item)`` here; ``tick(bytes)``: the file's bytes read
    so far, every 1,024 items."""
    for i, it in enumerate(lst.items()):
        handle(i, it)
        if tick is not None and not i & 1023:
            tick(lst.f.tell())


def read_so_far(offset: int, stop: int, start: int, size: int) -> int:
    """How much of a ``size``-byte input two processes have read when this one is at ``offset`` of
    its part (up to ``stop``) and the child reads from ``start`` to the end: this process's share of
    its own part stands for both (the split is sized so that both end together)."""
    return min(size, offset + int(offset / stop * (size - start))) if stop > 0 else offset


def halves(
    first: Callable[[], Iterator[Any]],
    complete: Callable[[], bool],
    child_second: Callable[[], Iterator[Any]],
    second: Callable[[], Iterator[Any]],
    handle: Callable[[int, Any], None],
    sink: Any,
    raw: Any,
    limit: int | None = None,
    progress: Callable[[], None] | None = None,
) -> None:
    """``first()``'s objects here while a forked child does ``child_second()``'s; when the first
    part turned out ``complete()`` (it ended where the second begins), the child's clean result is
    merged after it, else this process goes on with ``second()`` itself (nothing, when the first
    part read on to the end).  ``limit``: more objects than that in both raise stream.Broken (a
    bound of the whole input, which the whole read reports).  ``progress()``: called every 1,024
    objects read here."""
    r, w = os.pipe()

    def child() -> None:
        os.close(r)
        _child(child_second, handle, sink, raw, w)

    pid = fork_child(child, quiet=(0, 1))
    os.close(w)
    n = 0
    try:
        for it in first():
            handle(n, it)
            n += 1
            if progress is not None and not n & 1023:
                progress()
        if complete():
            sink.flush()
            theirs = _receive(r)
            if theirs is not None and limit is not None and n + theirs[-1] > limit:
                raise stream.Broken("more objects than the limit: the whole read says so")
            if theirs is None or not _merge(sink, theirs):
                for i, it in enumerate(second()):
                    if limit is not None and n + i >= limit:
                        raise stream.Broken("more objects than the limit: the whole read says so")
                    handle(n + i, it)
    finally:
        with contextlib.suppress(OSError):
            os.close(r)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)  # our own child, by its pid (done by now, or not needed)
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)


_DOC_START = re.compile(rb"\n---(?=[ \t\r\n]|$)")


def yaml_split(data: bytes) -> int | None:
    """Where a multi-document YAML file may be cut in two, about SHARE of the way: the start of a
    ``---`` line (a document's start wherever it is, in a file that parses: YAML forbids the marker
    inside a scalar).  None for files with anchors (``&``: an alias count is the whole file's) or
    no such line, and for files that are not YAML."""
    if b"&" in data:
        return None
    head = data[:4096].lstrip(b" \t\r\n\xef\xbb\xbf")
    if head[:1] in (b"{", b"["):
        return None
    m = _DOC_START.search(data, int(len(data) * SHARE))
    if m is None or m.start() + 1 >= len(data):
        return None
    return m.start() + 1


def _receive(r: int) -> Any:
    """The child's result, unpickled as it is read from the pipe (never all its bytes at once)."""
    try:
        with os.fdopen(os.dup(r), "rb") as f:
            return pickle.load(f)
    except Exception:  # noqa: BLE001 - a child that died half way
        return None


def _merge(sink: Any, theirs: tuple[int, int, set[Any], dict[str, Any], int]) -> bool:
    """The child's objects after ours (False, and nothing changed: a duplicate across halves)."""
    count, vcount, seen, state, _ = theirs
    if seen & sink.validator.seen or sink.errors or sink.failed is not None:
        return False
    from planner.snapshot import RawObjects

    snap = sink.builder.snap
    for name, value in state.items():
        mine = getattr(snap, name)
        if isinstance(mine, RawObjects) and isinstance(value, RawObjects):
            mine.merge(value)
        elif isinstance(mine, dict):
            mine.update(value)
        elif isinstance(mine, list):
            mine.extend(value)
        elif value != mine:
            raise AssertionError(f"snapshot field {name} not merged")  # a field added to Snapshot: merge it here
    sink.validator.seen |= seen
    sink.validator.count += vcount
    sink.count += count
    return True
