"""Output: tables for people, stable JSON and YAML for scripts. Data goes to stdout only."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

FORMATS = ("table", "json", "yaml")


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def to_yaml(data: Any) -> str:
    import yaml  # only for -o yaml: not imported at start-up

    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True, width=1 << 16)


def emit(data: Any, fmt: str, table: Callable[[Any], str] | None = None) -> None:
    if fmt == "json":
        text = to_json(data) + "\n"
    elif fmt == "yaml":
        text = to_yaml(data)
    else:
        text = table(data) if table is not None else to_yaml(data)
        if text and not text.endswith("\n"):
            text += "\n"
    sys.stdout.write(text)
    sys.stdout.flush()


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "") -> str:
    """A kubectl-style table: upper-case headers, columns separated by three spaces."""
    cells = [[str(h).upper() for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for r in cells:
        parts = [c.ljust(widths[i]) if i < len(r) - 1 else c for i, c in enumerate(r)]
        lines.append(indent + "   ".join(parts).rstrip())
    return "\n".join(lines)


def note(msg: str) -> None:
    """A message for people: stderr."""
    sys.stderr.write(msg.rstrip("\n") + "\n")
    sys.stderr.flush()


def progress(msg: str) -> None:
    """Progress of a long run, on stderr, only when a person watches (a terminal)."""
    if sys.stderr.isatty():
        sys.stderr.write("\r" + msg[:70].ljust(72))
        sys.stderr.flush()
