"""Python's cyclic garbage collector, paused around a large computation.

A collection of the oldest generation walks every container object not frozen
(``gc.freeze()``, which the loader does for the snapshot it read).  The engines build
hundreds of thousands of such objects on a large cluster (plans of thousands of pods, their
problems, derived snapshots and clusters), and the collector's rule for a full collection
(the objects that survived the young generations reach a quarter of the old ones) starts one
again and again while they are built: at 5,000 nodes, about 2.5 s of a remediation's 15 s.
Their objects hold few cycles, and those are collected once the collector resumes (and the
collector stays paused in a child forked meanwhile, which lives a few seconds)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector paused for the duration (nested uses are fine: the outermost resumes it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


__all__ = ["paused"]
