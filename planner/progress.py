"""Progress of long work: what is being done, how much of it, for whoever watches.

Code at any layer (the loader, the engines) reports through :func:`task`; nothing is printed
here.  The command line installs a reporter for the run (planner.tty: a progress bar on stderr,
only when stderr is a terminal); without one, a task is a shared no-op object and reporting costs
a context-variable lookup.  The reporter is context-local (``contextvars``), so a library caller
or a test that installs none sees nothing.

A task is a context manager::

    with progress.task("reading snapshot.json", total=size, unit="bytes") as t:
        for chunk in ...:
            t.advance(len(chunk))

Callers that speak in callbacks get adapters: :func:`callback` turns the
``progress(stage, done, total)`` calls of an engine (the remediation search) into tasks, one per
stage (a "stage: detail" text names the item at work in the same stage's task), and accepts the
older one-argument ``progress(message)`` too (a status line).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

__all__ = ["Reporter", "Task", "callback", "current", "reporting", "status", "task"]


class Reporter(Protocol):
    """What a display implements (planner.tty.TtyReporter)."""

    def started(self, t: Task) -> None: ...

    def changed(self, t: Task) -> None: ...

    def finished(self, t: Task) -> None: ...

    def close(self) -> None: ...


_current: ContextVar[Reporter | None] = ContextVar("planner_progress_reporter", default=None)

# a reporter is told of changes at most this often per task (the last value always reaches it on
# finish); a loop may call advance() for every item
MIN_INTERVAL = 0.1


class Task:
    """One piece of work: a description, how much is done of how much (``total`` None: unknown,
    a spinner and the time elapsed), in ``unit`` ("bytes", "pods", "steps", ...)."""

    __slots__ = ("description", "total", "done", "unit", "started_at", "_reporter", "_told", "_open", "handle")

    def __init__(self, reporter: Reporter | None, description: str, total: float | None, unit: str) -> None:
        self.description = description
        self.total = total
        self.done: float = 0
        self.unit = unit
        self.started_at = time.monotonic()
        self._reporter = reporter
        self._told = 0.0
        self._open = False
        self.handle: Any = None  # the reporter's own state for the task

    def __enter__(self) -> Task:
        if self._reporter is not None and not self._open:
            self._open = True
            self._reporter.started(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._open and self._reporter is not None:
            self._open = False
            self._reporter.finished(self)

    def advance(self, n: float = 1) -> None:
        self.done += n
        self._tell()

    def update(self, done: float | None = None, total: float | None = None, description: str | None = None) -> None:
        if done is not None:
            self.done = done
        if total is not None:
            self.total = total
        if description is not None:
            self.description = description
            self._told = 0.0  # a new description is shown at once
        self._tell()

    def _tell(self) -> None:
        if self._reporter is None or not self._open:
            return
        now = time.monotonic()
        if now - self._told >= MIN_INTERVAL:
            self._told = now
            self._reporter.changed(self)


class _NullTask(Task):
    """The task of a run nobody watches: every call does nothing."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(None, "", None, "")

    def __enter__(self) -> Task:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        return None

    def advance(self, n: float = 1) -> None:
        return None

    def update(self, done: float | None = None, total: float | None = None, description: str | None = None) -> None:
        return None


NULL_TASK: Task = _NullTask()


def current() -> Reporter | None:
    """The reporter of this context (None: nobody watches)."""
    return _current.get()


def task(description: str, total: float | None = None, unit: str = "") -> Task:
    """A task reported to the current reporter (use it as a context manager); the shared no-op
    task when there is none."""
    reporter = _current.get()
    if reporter is None:
        return NULL_TASK
    return Task(reporter, description, total, unit)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[Reporter | None]:
    """Install ``reporter`` for the block (None: none), and close it when the block ends."""
    token = _current.set(reporter)
    try:
        yield reporter
    finally:
        _current.reset(token)
        if reporter is not None:
            reporter.close()


def stop() -> None:
    """Take the display down now (before results are printed on the terminal it shares); the
    reporter stays installed and shows again for tasks that start later."""
    reporter = _current.get()
    if reporter is not None:
        reporter.close()


class _Status:
    """status(): one task whose description is the latest message."""

    def __init__(self) -> None:
        self.task: Task | None = None
        self.reporter: Reporter | None = None


_status: ContextVar[_Status | None] = ContextVar("planner_progress_status", default=None)


def status(message: str) -> None:
    """A one-line status ("verifying uncordon ..."): the description of one running task, kept
    until the reporter closes (the one-argument progress callbacks of the engines)."""
    reporter = _current.get()
    if reporter is None:
        return
    st = _status.get()
    if st is None or st.reporter is not reporter or st.task is None or not st.task._open:
        st = _Status()
        st.reporter = reporter
        st.task = Task(reporter, message, None, "")
        st.task.__enter__()
        _status.set(st)
    else:
        assert st.task is not None
        st.task.update(description=message)


class _StageCallback:
    """progress(stage, done, total) -> one task per stage, finished when the stage changes; a
    single argument is a status message.  A stage written "stage: detail" (e.g. "verifying plans:
    uncordon") is the task of "stage", its description the whole text: a detail that changes from
    call to call (the item at work) keeps one task, so that its count and time left run on."""

    def __init__(self) -> None:
        self.stage: str | None = None
        self.task: Task = NULL_TASK

    def __call__(self, stage: str, done: int | None = None, total: int | None = None) -> None:
        if done is None and total is None:
            status(stage)
            return
        key = stage.partition(": ")[0]
        if key != self.stage:
            self.task.close()
            self.stage = key
            self.task = task(stage, total=total or None)
            self.task.__enter__()
        self.task.update(done=done, total=total or None, description=stage if stage != self.task.description else None)
        if total and done is not None and done >= total:
            self.task.close()
            self.task = NULL_TASK
            self.stage = None

    def close(self) -> None:
        self.task.close()
        self.task = NULL_TASK
        self.stage = None


def callback() -> Callable[..., None]:
    """An engine's progress callback, ``progress(stage, done, total)`` (or ``progress(message)``),
    reported as tasks of the current reporter."""
    return _StageCallback()
