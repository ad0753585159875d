"""Helpers of the VolumeBinding and VolumeZone table tests."""

from __future__ import annotations

from planner.scheduler.framework import SKIP, UNRESOLVABLE, Status
from planner.scheduler.plugins.volumebinding import filtering as volumebinding
from planner.scheduler.plugins.volumezone import filtering as volumezone

G = 10**9  # resource.MustParse("1G")


def vb_status(*reasons: str) -> Status:
    return Status(volumebinding.NAME, reasons, UNRESOLVABLE)


def vz_status(msg: str) -> Status:
    return Status(volumezone.NAME, (msg,), UNRESOLVABLE)


def run(plugin, p, cl):  # type: ignore[no-untyped-def]
    """(PreFilter status or "skip", [Filter status per node]) -- Filter only after a successful PreFilter."""
    state, st = plugin.pre_filter(p, cl)
    if st is not None:
        return st, None
    if state is SKIP:
        return "skip", None
    return None, [plugin.filter(state, p, ni) for ni in cl.node_infos]
