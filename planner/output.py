"""Output: tables for people, stable JSON and YAML for scripts. Data goes to stdout only.

Tables are coloured (green yes, red no) when stdout is a terminal and ``NO_COLOR`` is not set
(https://no-color.org): render functions mark verdicts with :func:`good`, :func:`bad` and
:func:`warn`, which return the text unchanged unless :func:`emit` is writing a table to a
terminal; JSON, YAML and anything written to a pipe or a file are never coloured.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import IO, Any

from planner import progress as _progress

FORMATS = ("table", "json", "yaml")

_colour: ContextVar[bool] = ContextVar("planner_output_colour", default=False)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
GREEN, RED, YELLOW, RESET = "\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[0m"


def colour_wanted(stream: IO[str] | None = None) -> bool:
    """Colour for a person: ``stream`` (stdout) is a terminal, NO_COLOR is unset or empty, TERM is not dumb."""
    stream = stream if stream is not None else sys.stdout
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _paint(text: str, code: str) -> str:
    return f"{code}{text}{RESET}" if _colour.get() and text else text


def good(text: str) -> str:
    """A yes (schedulable, completed, survives): green on a terminal."""
    return _paint(text, GREEN)


def bad(text: str) -> str:
    """A no (unschedulable, stuck, an error): red on a terminal."""
    return _paint(text, RED)


def warn(text: str) -> str:
    """A warning: yellow on a terminal."""
    return _paint(text, YELLOW)


def plain(text: str) -> str:
    """``text`` without colour codes."""
    return _ANSI.sub("", text)


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def to_yaml(data: Any) -> str:
    import yaml  # only for -o yaml: not imported at start-up

    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1 << 16)


def emit(data: Any, fmt: str, table: Callable[[Any], str] | None = None) -> None:
    """Print ``data`` on stdout as JSON, YAML or (``table``) the table; the progress display, if
    any, is taken down first."""
    _progress.stop()
    if fmt == "json":
        text = to_json(data) + "\n"
    elif fmt == "yaml":
        text = to_yaml(data)
    else:
        token = _colour.set(table is not None and colour_wanted(sys.stdout))
        try:
            text = table(data) if table is not None else to_yaml(data)
        finally:
            _colour.reset(token)
        if text and not text.endswith("\n"):
            text += "\n"
    sys.stdout.write(text)
    sys.stdout.flush()


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "") -> str:
    """A kubectl-style table: upper-case headers, columns separated by three spaces."""
    cells = [[str(h).upper() for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(_width(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for r in cells:
        parts = [c + " " * (widths[i] - _width(c)) if i < len(r) - 1 else c for i, c in enumerate(r)]
        lines.append(indent + "   ".join(parts).rstrip())
    return "\n".join(lines)


def _width(cell: str) -> int:
    """The printed width of a cell (colour codes take none)."""
    return len(_ANSI.sub("", cell)) if "\x1b" in cell else len(cell)


def note(msg: str) -> None:
    """A message for people: stderr."""
    sys.stderr.write(msg.rstrip("\n") + "\n")
    sys.stderr.flush()


def progress(msg: str) -> None:
    """Progress of a long run as one status line (planner.progress.status): shown by the
    progress display when a person watches (stderr a terminal), nowhere else."""
    _progress.status(msg)
