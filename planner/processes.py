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
    available, a second CPU, and that CPU idle (the 1-minute load average, this process included,
    below the CPUs less one half: on a busy machine a second process only competes with the first).
    The variable ``env``: 1 never, 2 always (when large enough, or at any size if
    ``forced_at_any_size``)."""
    if not hasattr(os, "fork"):
        return False
    asked = os.environ.get(env, "").strip()
    if asked == "1":
        return False
    if asked == "2":
        return large_enough or forced_at_any_size
    if not large_enough:
        return False
    n = cpus()
    if n < 2:
        return False
    try:
        return os.getloadavg()[0] < n - 0.5
    except OSError:
        return True
