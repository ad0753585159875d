"""Whether a second process pays: one rule for the loader's and remediate's second core."""

from __future__ import annotations

import os


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
