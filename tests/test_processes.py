"""planner/processes.py: one rule for a second process (the loader's, remediate's)."""

from __future__ import annotations

import os

import pytest

from planner.engines.remediation import ahead
from planner.load import parallel
from planner.processes import second_process


@pytest.fixture
def two_cpus(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setenv("X_PROCESSES", "")
    monkeypatch.setenv(ahead.ENV, "")
    monkeypatch.setenv("PLANNER_LOAD_PROCESSES", "")
    return monkeypatch


def test_a_second_cpu_busy_or_not(two_cpus: pytest.MonkeyPatch) -> None:
    """The load average is no gate (it still counts processes that have just ended, and a second
    process gets its share of busy CPUs too): two CPUs are enough, one is not."""
    for load in (0.5, 1.0, 3.5):
        two_cpus.setattr(os, "getloadavg", lambda load=load: (load, 1.0, 1.0))
        assert second_process("X_PROCESSES", True)
        assert ahead.usable(ahead.MIN_NODES) and parallel.usable(parallel.MIN_BYTES)
    two_cpus.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert not second_process("X_PROCESSES", True)
    assert not ahead.usable(5000) and not parallel.usable(1 << 40)


def test_too_small_and_what_the_variable_asks(two_cpus: pytest.MonkeyPatch) -> None:
    two_cpus.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    assert not second_process("X_PROCESSES", False)
    assert not ahead.usable(ahead.MIN_NODES - 1) and not parallel.usable(parallel.MIN_BYTES - 1)
    two_cpus.setenv("X_PROCESSES", "1")
    assert not second_process("X_PROCESSES", True)
    two_cpus.setenv("X_PROCESSES", "2")
    two_cpus.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    assert second_process("X_PROCESSES", True) and not second_process("X_PROCESSES", False)
    assert second_process("X_PROCESSES", False, forced_at_any_size=True)
    # remediate's 2 forces it at any size; the loader's only for a file large enough
    two_cpus.setenv(ahead.ENV, "2")
    two_cpus.setenv("PLANNER_LOAD_PROCESSES", "2")
    assert ahead.usable(3) and not parallel.usable(1 << 20)
