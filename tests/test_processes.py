"""planner/processes.py: one rule for a second process (the loader's, remediate's), and forking one."""

from __future__ import annotations

import os
import signal

import pytest

from planner.engines.remediation import ahead
from planner.load import parallel
from planner.processes import fork_child, second_process


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


@pytest.mark.parametrize("ignore", [True, False])
def test_a_ctrl_c_as_the_child_starts_stays_in_the_child(monkeypatch: pytest.MonkeyPatch, tmp_path, ignore: bool) -> None:
    """A Ctrl-C that reaches the child as it starts (before its own code: the process group's
    SIGINT, a moment after the fork) is held back until the child is in ``body``'s frame: ignored
    there, or a KeyboardInterrupt that ends the child with 1; never raised in the caller's frames
    (which would run the command's own handler in the child: "interrupted" twice, two exits)."""
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid == 0:
            os.kill(os.getpid(), signal.SIGINT)  # lands in the child before it leaves fork()
        return pid

    monkeypatch.setattr(os, "fork", fork)
    ran = tmp_path / "ran"
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, whatever a test before set
    try:
        pid = fork_child(lambda: ran.write_text("yes"), ignore_sigint=ignore)
    finally:
        signal.signal(signal.SIGINT, before)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == (0 if ignore else 1)
    assert ran.exists() == ignore


def test_a_failing_child_exits_1_and_the_fork_s_error_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    pid = fork_child(lambda: 1 / 0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 1

    def no_fork() -> int:
        raise OSError("no fork")

    monkeypatch.setattr(os, "fork", no_fork)
    with pytest.raises(OSError, match="no fork"):
        fork_child(lambda: None)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # unmasked again

    def refused() -> int:
        raise RuntimeError("fork not supported for subinterpreters")

    monkeypatch.setattr(os, "fork", refused)
    with pytest.raises(RuntimeError):
        fork_child(lambda: None)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # whatever the fork raised
