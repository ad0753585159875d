"""Work done ahead on the second core: a forked copy of the search computes, while this process
verifies a plan, what the search will most likely ask for next.

The search (planner.engines.remediation.search, .choose) runs as it does in one process; each
answer it asks for has a key (a solve of the action model after the same calls, a plan's
verification by its patches and, for a replica goal, each of its two parts, check and the replay,
a replica count's check).  A forked child, which inherits the loaded
snapshot and the search as they are (nothing is pickled but the answers), works through an
agenda: the next optima of the action model as if every plan before them were verified, their
checks, then their verifications (the last first), then the other replica counts and the plan
of the nearest one.
It says which key it is doing, then sends the answer.  When the search asks for a key:

* the child sent its answer: that answer (computed as this process would have: the same code on
  the same state);
* the child is doing it (or, for the solves, has not yet finished its chain of them): this
  process waits for it;
* else this process computes it and tells the child, which then skips it.

So the plans, their order, the rejected candidates and every count are those of one process; the
child only saves time (tests/engines/test_remediation_ahead.py).  A wrong guess (a plan rejected
where the child assumed it verified) costs the child's time, never an answer.  At most one
child; it ignores Ctrl-C (this process stops it, by its pid, whatever ends the search) and dies
with this process.  Used on clusters of ``MIN_NODES`` nodes and more, on machines with two CPUs
or more that fork; ``PLANNER_REMEDIATE_PROCESSES=1`` never, ``=2`` always.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import select
import signal
import struct
from collections.abc import Callable, Hashable
from typing import Any

from planner.processes import fork_child, second_process

MIN_NODES = 100
ENV = "PLANNER_REMEDIATE_PROCESSES"
_HEADER = struct.Struct("<I")


def usable(nodes: int) -> bool:
    """A second process for a search on a cluster of ``nodes`` nodes: large enough to pay for a
    fork, fork available, a second CPU (planner.processes).  ``PLANNER_REMEDIATE_PROCESSES``: 1 never, 2 always."""
    return second_process(ENV, nodes >= MIN_NODES, forced_at_any_size=True)


def digest(text: str) -> str:
    """A key's short form: keys travel both ways through pipes (the plans' patches can run to
    kilobytes), and a pipe holds 64 KiB."""
    return hashlib.sha256(text.encode()).hexdigest()


def _write(fd: int, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    data = _HEADER.pack(len(data)) + data
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _read_exact(fd: int, n: int) -> bytes | None:
    out = b""
    while len(out) < n:
        chunk = os.read(fd, n - len(out))
        if not chunk:
            return None
        out += chunk
    return out


def _read(fd: int) -> Any:
    """One message, or None at the end of the pipe (the child is gone)."""
    head = _read_exact(fd, _HEADER.size)
    if head is None:
        return None
    body = _read_exact(fd, _HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)  # noqa: S301 - our own child's pipe


def _ready(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])


def _die_with_parent() -> None:
    """The child is killed when this process dies (Linux): a parent killed outright cannot stop it."""
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Worker:
    """The child's side: each item of the agenda through ``through``."""

    def __init__(self, out: int, taken_fd: int) -> None:
        self.out = out
        self.taken_fd = taken_fd
        self.taken: set[Hashable] = set()

    def _drain(self) -> None:
        while _ready(self.taken_fd):
            msg = _read(self.taken_fd)
            if msg is None:
                raise SystemExit(0)  # the parent is gone
            self.taken.add(msg)

    def through(self, key: Hashable, compute: Callable[[], Any], send: Callable[[Any], Any] = lambda v: v, optional: bool = False) -> Any:
        """``compute()``'s value, sent to the parent under ``key`` (``send(value)`` of it).
        ``optional``: an answer the agenda does not need itself: skipped (None) when the parent
        took it."""
        self._drain()
        if optional and key in self.taken:
            return None
        _write(self.out, ("doing", key))
        value = compute()
        _write(self.out, ("done", key, send(value)))
        return value

    def mark(self, name: str) -> None:
        """A stage of the agenda is over (the parent stops waiting for the keys it could bring)."""
        _write(self.out, ("mark", name))


class Ahead:
    """This process's side of the child started by ``start``."""

    def __init__(self, pid: int, inbox: int, taken_fd: int) -> None:
        self.pid = pid
        self.inbox = inbox
        self.taken_fd = taken_fd
        self.done: dict[Hashable, Any] = {}
        self.doing: Hashable | None = None
        self.marks: set[str] = set()
        self.alive = True
        self.used = 0  # answers taken from the child

    @classmethod
    def start(cls, agenda: Callable[[Worker], None]) -> Ahead | None:
        """Fork a child that runs ``agenda(worker)``; None when the fork fails."""
        r, w = os.pipe()
        tr, tw = os.pipe()

        def child() -> None:  # an error ends it: the parent computes whatever is missing
            _die_with_parent()
            os.close(r)
            os.close(tw)
            agenda(Worker(w, tr))

        try:
            pid = fork_child(child, ignore_sigint=True, quiet=(0, 1, 2))
        except OSError:
            for fd in (r, w, tr, tw):
                os.close(fd)
            return None
        os.close(w)
        os.close(tr)
        os.set_blocking(tw, False)  # never wait on the child: a key it cannot take now is only done twice
        return cls(pid, r, tw)

    def _take(self, block: bool) -> bool:
        """One message in (waiting for it if ``block``); False when none came."""
        if not self.alive or (not block and not _ready(self.inbox)):
            return False
        try:
            msg = _read(self.inbox)
        except (OSError, pickle.UnpicklingError, EOFError, ValueError):
            msg = None
        if msg is None:
            self.alive = False
            self.doing = None
            return False
        if msg[0] == "doing":
            self.doing = msg[1]
        elif msg[0] == "done":
            self.done[msg[1]] = msg[2]
            self.doing = None
        elif msg[0] == "mark":
            self.marks.add(msg[1])
        return True

    def lookup(self, key: Hashable, until: str | None = None) -> tuple[bool, Any]:
        """(True, the child's answer) for ``key``, waiting for it while the child does it (or,
        with ``until``, while it has not marked that stage over); (False, None) else, and the
        child is told that this process computes it."""
        while self._take(False):
            pass
        while key not in self.done and self.alive and (self.doing == key or (until is not None and until not in self.marks)):
            self._take(True)
        if key in self.done:
            self.used += 1
            return True, self.done.pop(key)
        self.tell(key)
        return False, None

    def tell(self, key: Hashable) -> None:
        """Tell the child that this process computes ``key`` (or does without it): it skips it."""
        if self.alive:
            data = pickle.dumps(key, protocol=pickle.HIGHEST_PROTOCOL)
            if len(data) + _HEADER.size <= select.PIPE_BUF:  # written whole or not at all
                with contextlib.suppress(OSError):
                    os.write(self.taken_fd, _HEADER.pack(len(data)) + data)

    def close(self) -> None:
        """Stop the child (by its pid: done by now, or not needed) and reap it."""
        for fd in (self.inbox, self.taken_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError, ChildProcessError):
            os.waitpid(self.pid, 0)
        self.alive = False


__all__ = ["Ahead", "Worker", "usable", "MIN_NODES", "ENV"]
