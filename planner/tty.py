"""The progress display of a run on a terminal (rich), installed by the command line when stderr is
one.

Nothing shows for work that ends within ``PLANNER_PROGRESS_DELAY`` seconds (default 1): the
display comes up once a task has run that long, with what is being done, how much of how much,
the time left and the time spent, and goes away (erased) before results are printed.  rich is
imported only then, so a short command on a terminal costs no more than one on a pipe.  Colour
follows rich's rules, which honour ``NO_COLOR`` (https://no-color.org).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import IO, Any

from planner.progress import Task

DELAY = 1.0  # seconds a task runs before the display shows


def delay_from_env() -> float:
    """PLANNER_PROGRESS_DELAY (seconds, >= 0), else DELAY."""
    raw = os.environ.get("PLANNER_PROGRESS_DELAY", "")
    try:
        v = float(raw)
    except ValueError:
        return DELAY
    return v if v >= 0 else DELAY


def wanted(stream: IO[str] | None = None) -> bool:
    """A display is for a person: stderr is a terminal (never a pipe or a file), and not TERM=dumb."""
    stream = stream if stream is not None else sys.stderr
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return bool(tty) and os.environ.get("TERM") != "dumb"


class TtyReporter:
    """planner.progress.Reporter drawing rich's progress bars on ``stream`` (stderr)."""

    def __init__(self, stream: IO[str] | None = None, delay: float | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.delay = delay_from_env() if delay is None else delay
        self.tasks: dict[int, Task] = {}
        self.progress: Any = None  # rich.progress.Progress while shown
        self.timer: threading.Timer | None = None
        self.lock = threading.RLock()

    # ------------------------------------------------------------------ Reporter

    def started(self, t: Task) -> None:
        with self.lock:
            self.tasks[id(t)] = t
            if self.progress is not None:
                self._add(t)
            elif self.delay <= 0:
                self._show()
            elif self.timer is None:
                self.timer = threading.Timer(self.delay, self._due)
                self.timer.daemon = True
                self.timer.start()

    def changed(self, t: Task) -> None:
        with self.lock:
            if id(t) not in self.tasks:
                return
            if self.progress is None:
                # the timer may not have run (a thread holding the interpreter): show from here
                if time.monotonic() - min(x.started_at for x in self.tasks.values()) >= self.delay:
                    self._show()
                return
            if t.handle is not None:
                self.progress.update(t.handle, completed=t.done, total=t.total, description=t.description)

    def finished(self, t: Task) -> None:
        with self.lock:
            self.tasks.pop(id(t), None)
            if self.progress is not None and t.handle is not None:
                self.progress.remove_task(t.handle)
            t.handle = None

    def close(self) -> None:
        """Take the display down (erased); tasks still running are forgotten."""
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if self.progress is not None:
                try:
                    self.progress.stop()
                finally:
                    self.progress = None
            for t in self.tasks.values():
                t.handle = None
            self.tasks.clear()

    # ------------------------------------------------------------------ display

    def _due(self) -> None:
        with self.lock:
            self.timer = None
            if self.tasks and self.progress is None:
                self._show()

    def _show(self) -> None:
        from rich.console import Console

        self.progress = _progress(Console(file=self.stream, stderr=True))
        self.progress.start()
        for t in self.tasks.values():
            self._add(t)

    def _add(self, t: Task) -> None:
        t.handle = self.progress.add_task(t.description, total=t.total, completed=t.done, unit=t.unit, started=t.started_at)


def _progress(console: Any) -> Any:
    """The display: rich's Progress with our columns on ``console``, not started."""
    from rich.progress import Progress

    return Progress(
        *_columns(),
        console=console,
        expand=True,  # the terminal's width: the description and the bar share what the rest leaves
        transient=True,
        redirect_stdout=False,  # results go to stdout after the display is down
        redirect_stderr=True,  # notes printed meanwhile go above the bars
    )


def _count(v: float, unit: str) -> str:
    if unit == "bytes":
        for div, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
            if v >= div:
                return f"{v / div:.1f} {name}"
        return f"{int(v)} B"
    return f"{int(v):,}"


def _columns() -> list[Any]:
    """rich's columns, and two of ours: done/total in the task's unit ("12/40 pods",
    "120.5 MiB/300.0 MiB"; done alone when the total is unknown), and the time since the task
    started (before the display showed too).  One line per task at any width: the counts and
    times are never wrapped, a long description ends in an ellipsis and the bar shrinks (rich
    wraps a table's cells otherwise: on 80 columns a long description left no room for the rest)."""
    from rich.progress import BarColumn, ProgressColumn, SpinnerColumn, TextColumn, TimeRemainingColumn
    from rich.table import Column
    from rich.text import Text

    class CountColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            unit = task.fields.get("unit", "")
            if task.total is None and not unit:
                return Text("")
            done = _count(task.completed, unit)
            text = done if task.total is None else f"{done}/{_count(task.total, unit)}"
            if unit and unit != "bytes":
                text += f" {unit}"
            return Text(text, style="progress.download")

    class ElapsedColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            started = task.fields.get("started")
            s = int(time.monotonic() - started) if started is not None else int(task.elapsed or 0)
            return Text(f"{s // 60}:{s % 60:02d} elapsed", style="progress.elapsed")

    def fixed() -> Column:
        return Column(no_wrap=True)

    return [
        SpinnerColumn(table_column=fixed()),
        TextColumn("{task.description}", table_column=Column(no_wrap=True, overflow="ellipsis", min_width=12, ratio=3)),
        BarColumn(bar_width=None, table_column=Column(no_wrap=True, min_width=10, max_width=40, ratio=1)),
        CountColumn(table_column=fixed()),
        TextColumn("[progress.remaining]ETA", table_column=fixed()),
        TimeRemainingColumn(table_column=fixed()),
        ElapsedColumn(table_column=fixed()),
    ]
