"""Whether a second process pays: one rule for the loader's and remediate's second core; and
forking one (fork_child: the loader's second half, remediate's child working ahead, the cache's
write behind the command)."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable


def cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def second_process(env: str, large_enough: bool, *, forced_at_any_size: bool = False) -> bool:
    """A second (forked) process for work that is ``large_enough`` to pay for a fork: fork
    available and a second CPU to run on, busy or not.  Other jobs' processes get their fair share
    of the CPUs whatever planner does, and two processes of planner's get more of them than one
    (the loader's measurements: planner/load/parallel.py); a gate on the load average misfires, as
    that average still counts processes that have just ended.  The variable ``env``: 1 never,
    2 always (when large enough, or at any size if ``forced_at_any_size``), even on one CPU."""
    if not hasattr(os, "fork"):
        return False
    asked = os.environ.get(env, "").strip()
    if asked == "1":
        return False
    if asked == "2":
        return large_enough or forced_at_any_size
    return large_enough and cpus() >= 2


def fork_child(body: Callable[[], None], *, ignore_sigint: bool = False, quiet: tuple[int, ...] = ()) -> int:
    """Fork a child that runs ``body()`` and exits (0; 1 when it raised anything), never
    returning into the caller's frames; this process gets its pid (OSError when the fork fails).
    ``quiet``: the child's file descriptors (0, 1, 2) pointed at /dev/null first, so that nothing
    of it reaches the user's streams.

    SIGINT is held back across the fork (``signal.pthread_sigmask``): a Ctrl-C that reaches the
    process group as the child starts would otherwise raise KeyboardInterrupt in the child before
    its own code runs, in the caller's frames, and the command's handler would run in both
    processes ("interrupted" written twice).  The child then ignores SIGINT (``ignore_sigint``) or
    takes it as a KeyboardInterrupt inside ``body`` (an exit with 1)."""
    mask = hasattr(signal, "pthread_sigmask")
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if mask else set()
    pid = -1
    try:
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                if ignore_sigint:
                    signal.signal(signal.SIGINT, signal.SIG_IGN)
                if mask:
                    signal.pthread_sigmask(signal.SIG_SETMASK, held)
                if quiet:
                    with contextlib.suppress(OSError):
                        null = os.open(os.devnull, os.O_RDWR)
                        for fd in quiet:
                            os.dup2(null, fd)
                body()
            except BaseException:  # noqa: BLE001 - the child's end: its exit code says it
                code = 1
            finally:
                os._exit(code)
    finally:
        if mask and pid != 0:  # this process, whatever the fork did
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return pid
