"""Progress (planner.progress, planner.tty): tasks reported by the loader and the engines, shown by
rich on a terminal after a delay, never on a pipe; colours only on a terminal and never with
NO_COLOR."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from planner import progress
from planner.tty import TtyReporter
from tests.conftest import ROOT, SCENARIOS

S001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"
SGR = re.compile(rb"\x1b\[[0-9;]*m")


class Recorder:
    """A reporter that keeps every call: (event, description, done, total, unit)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, float, float | None, str]] = []
        self.closed = 0

    def _log(self, what: str, t: progress.Task) -> None:
        self.events.append((what, t.description, t.done, t.total, t.unit))

    def started(self, t: progress.Task) -> None:
        self._log("start", t)

    def changed(self, t: progress.Task) -> None:
        self._log("change", t)

    def finished(self, t: progress.Task) -> None:
        self._log("finish", t)

    def close(self) -> None:
        self.closed += 1

    def tasks(self) -> list[tuple[str, float | None, str]]:
        return [(d, total, unit) for what, d, _done, total, unit in self.events if what == "start"]

    def finals(self) -> list[tuple[str, float, float | None]]:
        return [(d, done, total) for what, d, done, total, _u in self.events if what == "finish"]


# --------------------------------------------------------------------------- the API


def test_nobody_watching_costs_a_shared_no_op():
    assert progress.current() is None
    t = progress.task("x", total=3)
    assert t is progress.NULL_TASK
    with t:
        t.advance()
        t.update(done=2, description="y")
    progress.status("nothing")  # no reporter: nothing happens


def test_tasks_reach_the_reporter_throttled(monkeypatch):
    rec = Recorder()
    with progress.reporting(rec):
        with progress.task("counting", total=1000, unit="pods") as t:
            for _ in range(1000):
                t.advance()
    assert rec.closed == 1 and progress.current() is None
    assert rec.events[0] == ("start", "counting", 0, 1000, "pods")
    assert rec.events[-1] == ("finish", "counting", 1000, 1000, "pods")
    assert len(rec.events) < 20  # changes reach the reporter at most every MIN_INTERVAL


def test_callback_adapter_turns_stages_into_tasks():
    rec = Recorder()
    with progress.reporting(rec):
        cb = progress.callback()
        cb("candidates", 0, 3)
        cb("candidates", 3, 3)  # done: finished
        cb("verifying", 1, 10)
        cb("ranking", 0, 2)  # a new stage finishes the previous one
        cb("verifying uncordon node-1")  # one argument: a status line
        cb.close()
    assert [d for d, _t, _u in rec.tasks()] == ["candidates", "verifying", "ranking", "verifying uncordon node-1"]
    assert ("candidates", 3, 3) in rec.finals() and ("verifying", 1, 10) in rec.finals()


def test_callback_stage_with_a_detail_is_one_task():
    """"stage: detail": the detail changes the task's description, not the task (its count and
    time left run on); another stage is another task."""
    rec = Recorder()
    with progress.reporting(rec):
        cb = progress.callback()
        cb("verifying plans: uncordon", 0, 3)
        cb("verifying plans: add-toleration", 1, 3)
        cb("verifying plans: scale-node-group", 2, 3)
        cb("verifying each change alone: uncordon", 0, 5)
        cb.close()
    assert [d for d, _t, _u in rec.tasks()] == ["verifying plans: uncordon", "verifying each change alone: uncordon"]
    assert ("verifying plans: scale-node-group", 2, 3) in rec.finals()
    assert ("change", "verifying plans: add-toleration", 1, 3, "") in rec.events


# --------------------------------------------------------------------------- who reports what


def _recorded(fn) -> Recorder:
    rec = Recorder()
    with progress.reporting(rec):
        fn()
    return rec


def test_loader_reports_bytes_read_of_the_total():
    from planner.load import load_snapshot

    rec = _recorded(lambda: load_snapshot([S001]))
    size = os.path.getsize(S001)
    assert ("reading", size, "bytes") in rec.tasks()
    assert (f"reading {S001}", size, size) in rec.finals()
    assert any(d.startswith("indexing 6 nodes") for d, _t, _u in rec.tasks())


def _processes(monkeypatch: pytest.MonkeyPatch, two: bool | None) -> list[bool]:
    """Two processes for a large read or one (planner.load.parallel.usable); the list gets an entry
    each time the read is split in two."""
    from planner.load import parallel

    monkeypatch.setattr(parallel, "usable", lambda size: bool(two))
    halves = parallel.halves
    split: list[bool] = []
    monkeypatch.setattr(parallel, "halves", lambda *a, **k: split.append(True) or halves(*a, **k))
    return split


def _assert_read_part_way(rec: Any, path: Path) -> None:
    """The bytes read of ``path`` were reported part way, more than once, never going back."""
    size = path.stat().st_size
    done = [done for what, d, done, total, _u in rec.events if what == "change" and d == f"reading {path}" and total == size]
    assert len([x for x in done if 0 < x < size]) >= 2, done
    assert done == sorted(done)


@pytest.mark.parametrize("two", [False, True])
def test_streamed_list_reports_bytes_as_it_goes(tmp_path, monkeypatch, two):
    """A large kubectl List is read item by item; the bytes read so far are reported on the way,
    by one process or by two (the second part in a child: this process's share of its own part
    stands for both). Was: with two processes the display stayed at 0 bytes to the end."""
    import json

    from planner.load import Limits, load_snapshot

    split = _processes(monkeypatch, two)
    items = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {"topology.kubernetes.io/zone": "a"}},
              "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}} for i in range(6000)]
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4))
    from planner.load import stream

    monkeypatch.setattr(progress, "MIN_INTERVAL", 0.0)
    opened = stream.JsonList.open
    monkeypatch.setattr(stream.JsonList, "open", lambda path, size, chunk=64 << 10: opened(path, size, chunk))  # small reads
    rec = _recorded(lambda: load_snapshot([path], Limits(json_strict_bytes=1024)))
    _assert_read_part_way(rec, path)
    assert split == ([True] if two else [])


@pytest.mark.parametrize("two", [False, True, None])
def test_yaml_reports_how_far_it_is_read(tmp_path, monkeypatch, two):
    """A multi-document YAML file is parsed document by document after it is read: the display
    follows the parse (by one process, or two: see the List's test; None: validate's read of
    every document first). Was: 0 bytes until the end (37 s at 5,000 nodes)."""
    from planner.load import load_snapshot, read_objects

    split = _processes(monkeypatch, two)
    docs = [f"apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n  labels:\n    topology.kubernetes.io/zone: a\n"
            f"status:\n  allocatable:\n    cpu: '4'\n    memory: 8Gi\n    pods: '110'\n" for i in range(3000)]
    path = tmp_path / "big.yaml"
    path.write_text("---\n".join(docs))
    monkeypatch.setattr(progress, "MIN_INTERVAL", 0.0)
    rec = _recorded(lambda: load_snapshot([path]) if two is not None else read_objects([path]))
    _assert_read_part_way(rec, path)
    assert split == ([True] if two else [])


def test_capacity_reports_counts():
    from models.solve import SolveOptions
    from planner.commands.capacity import capacity_command
    from planner.load import Limits

    rec = _recorded(lambda: capacity_command([S001], "statefulset/search", None, None, False, False, None, SolveOptions(), Limits()))
    assert ("checking replica counts of statefulset/default/search", 5, "counts") in rec.tasks()
    assert any(d.startswith("checking") and done == 5 and total == 5 for d, done, total in rec.finals())


def test_check_simulate_audit_and_explain_report():
    from models.solve import SolveOptions
    from planner.commands.audit import audit_command
    from planner.commands.check import check_command
    from planner.commands.explain import explain_command
    from planner.commands.simulate import simulate_command
    from planner.load import Limits

    rec = _recorded(lambda: check_command([S001], ["statefulset/search"], 3, None, SolveOptions(), Limits()))
    assert ("checking statefulset/default/search x3", None, "") in rec.tasks()
    rec = _recorded(lambda: simulate_command([SCENARIOS / "hpa-scale-down-up-replay.yaml"], ["statefulset/search"], None, {}, None, 0, Limits()))
    assert ("replaying", 4, "steps") in rec.tasks()
    assert ("step 3: scale statefulset/search to 4", 4, 4) in rec.finals()
    rec = _recorded(lambda: audit_command([S001], None, False, Limits()))
    assert ("auditing workloads", 1, "workloads") in rec.tasks()
    rec = _recorded(lambda: explain_command([SCENARIOS / "zone-anti-affinity-six-replicas.yaml"], pods=[], pod_file=None, namespace=None,
                                            all_namespaces=True, limits=Limits()))
    assert ("explaining Pending pods", 3, "pods") in rec.tasks()
    assert ("explaining Pending pods", 3, 3) in rec.finals()


# --------------------------------------------------------------------------- the display


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_display_shows_after_the_delay_and_is_erased(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    term = FakeTerminal()
    rep = TtyReporter(term, delay=0.2)
    with progress.reporting(rep):
        with progress.task("quick one", total=2) as t:
            t.advance(2)
        assert term.getvalue() == ""  # ended before the delay: nothing shown
        with progress.task("slow one", total=4, unit="steps") as t:
            t.advance()
            time.sleep(0.5)
            t.advance()
    text = term.getvalue()
    assert "slow one" in text and "steps" in text and "quick one" not in text
    assert rep.progress is None  # closed


def test_no_reporter_without_a_terminal(monkeypatch):
    from planner import tty

    assert not tty.wanted(io.StringIO())
    assert tty.wanted(FakeTerminal())
    monkeypatch.setenv("TERM", "dumb")
    assert not tty.wanted(FakeTerminal())


def test_delay_from_the_environment(monkeypatch):
    from planner.tty import DELAY, delay_from_env

    monkeypatch.setenv("PLANNER_PROGRESS_DELAY", "0")
    assert delay_from_env() == 0
    monkeypatch.setenv("PLANNER_PROGRESS_DELAY", "soon")
    assert delay_from_env() == DELAY


# --------------------------------------------------------------------------- a real terminal


def _run(argv: list[str], *, stdout_tty: bool, stderr_tty: bool, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run planner with stdout and/or stderr on a pseudo-terminal; returns (code, stdout, stderr)."""
    master, slave = pty.openpty()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "planner", *argv], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=slave if stdout_tty else out_w, stderr=slave if stderr_tty else err_w, close_fds=True)
    for fd in (slave, out_w, err_w):
        os.close(fd)
    got = {master: b"", out_r: b"", err_r: b""}
    open_fds = set(got)
    deadline = time.monotonic() + 120
    while open_fds and time.monotonic() < deadline:
        ready, _, _ = select.select(list(open_fds), [], [], 1)
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # the terminal's other end closed
                data = b""
            if data:
                got[fd] += data
            else:
                open_fds.discard(fd)
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=60)
    for fd in got:
        os.close(fd)
    term = got[master]
    return proc.returncode, term if stdout_tty else got[out_r], term if stderr_tty else got[err_r]


@pytest.fixture
def env():
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM", "PLANNER_PROGRESS_DELAY")}
    e.update(PLANNER_PROGRESS_DELAY="0", TERM="xterm-256color", PYTHONPATH=str(ROOT))
    return e


CAPACITY = ["capacity", str(S001), "-w", "statefulset/search"]


def test_on_a_terminal_progress_shows_and_results_are_coloured(env):
    code, out, err = _run(CAPACITY, stdout_tty=True, stderr_tty=True, env=env)
    assert code == 1
    assert b"checking" in err and b"counts" in err and b"ETA" in err  # the display: what, how many, time left
    assert b"\x1b[32myes\x1b[0m" in out and b"\x1b[31mNO\x1b[0m" in out


def test_no_color_removes_every_colour(env):
    env["NO_COLOR"] = "1"
    code, out, err = _run(CAPACITY, stdout_tty=True, stderr_tty=True, env=env)
    assert code == 1 and b"checking" in err  # progress still shows, without colour
    assert not SGR.findall(out) and b"yes" in out


def test_nothing_on_a_pipe(env):
    code, out, err = _run(CAPACITY, stdout_tty=True, stderr_tty=False, env=env)
    assert code == 1
    assert b"checking" not in err and b"ETA" not in err and b"\r" not in err  # stderr a pipe: no progress
    assert b"\x1b[32myes" in out  # stdout still a terminal: coloured
    code, out, err = _run(CAPACITY, stdout_tty=False, stderr_tty=True, env=env)
    assert code == 1 and b"checking" in err  # progress on the terminal
    assert not SGR.findall(out)  # results to a pipe: never coloured
    plain = subprocess.run([sys.executable, "-m", "planner", *CAPACITY], cwd=ROOT, env=env, capture_output=True)
    assert plain.stdout == out and not SGR.findall(plain.stderr) and b"\r" not in plain.stderr


def test_rich_is_not_imported_without_a_terminal():
    code = ("import sys, io; from planner.cli import main\n"
            f"try:\n    main(['capacity', {str(S001)!r}, '-w', 'statefulset/search'])\nexcept SystemExit:\n    pass\n"
            "assert not [m for m in sys.modules if m == 'rich' or m.startswith('rich.')], 'rich imported'\n"
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("width", [60, 80, 120])
def test_each_task_keeps_one_line_with_its_counts_and_times(width):
    """A long description (a plan's actions, a file's path) is cut with an ellipsis and the bar
    shrinks: the counts, the ETA and the elapsed time stay whole, one line per task, at any width.
    Was: on 80 columns rich wrapped the cells and the counts and times were lost."""
    import time

    from rich.console import Console

    from planner.tty import _progress

    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=False, color_system=None)
    bar = _progress(console)  # the display as planner makes it, not started
    now = time.monotonic()
    bar.add_task("reading snapshots/a-rather-long-name-for-a-cluster-snapshot.json", total=170 << 20, completed=42 << 20, unit="bytes", started=now - 3)
    bar.add_task("verifying plans: scale-node-group + scale-node-group + scale-node-group", total=3, completed=1, unit="", started=now - 65)
    bar.add_task("replaying", total=4, completed=2, unit="steps", started=now - 1)
    console.print(bar.make_tasks_table(bar.tasks))
    lines = buf.getvalue().rstrip("\n").split("\n")
    assert len(lines) == 3, lines
    assert all(len(line) <= width for line in lines)
    assert "42.0 MiB/170.0 MiB" in lines[0] and lines[0].rstrip().endswith("0:03 elapsed")
    assert "1/3" in lines[1] and lines[1].rstrip().endswith("1:05 elapsed")
    assert "2/4 steps" in lines[2] and "ETA" in lines[2]
    assert "…" in lines[1]  # the long description cut, not wrapped
