"""Pictures of what the commands found, for people who would rather look than read.

Each picture is built from a command's answer (and the snapshot it was computed on) into a small
scene, which is drawn twice: by matplotlib (``--plot FILE``: PNG or SVG by the file's extension,
PNG without one; any other format matplotlib writes, such as PDF, by its extension) and as one
self-contained HTML page (``--html FILE``: inline SVG and CSS, no script, nothing fetched).

* :mod:`planner.pictures.zonemap`: each zone's nodes, the workload's pods on them with their
  volumes, the Pending pods (those a volume pins to one zone drawn in it), and each spread
  constraint's counts and skew (``explain``, ``check``);
* :mod:`planner.pictures.timeline`: a replay as pods x steps, Pending, Running (with the zone) or
  gone, with each step's zone counts and skew (``simulate``);
* :mod:`planner.pictures.capacity`: the replica counts of a range, schedulable or not with the
  constraint that limits each failing one, and each zone's headroom on the nodes the pods may use
  (``capacity``).

This package sits between the commands and the engines: it reads answers and snapshots, decides
nothing, and writes files only through :func:`write`.
"""

from __future__ import annotations

import os
from typing import Protocol

from planner.errors import UsageError
from planner.files import write_file

__all__ = ["Picture", "check_targets", "write"]


class Picture(Protocol):
    def figure(self) -> object:
        """A matplotlib Figure of the scene."""
        ...

    def html(self) -> str:
        """The scene as a whole HTML document."""
        ...


HTML_EXTENSIONS = (".html", ".htm")


def plot_format(path: str) -> str:
    """The format --plot writes: the file's extension (png when it has none)."""
    return os.path.splitext(path)[1].lstrip(".").lower() or "png"


def check_targets(plot: str | None, html: str | None) -> None:
    """Refuse, before any work is done, a --plot or --html that could not be written as asked."""
    if plot is not None:
        fmt = plot_format(plot)
        if fmt in ("html", "htm"):
            raise UsageError(f"--plot {plot}: an HTML page is written by --html FILE; --plot writes PNG or SVG")
        if os.path.isdir(plot):
            raise UsageError(f"{plot}: is a directory")
    if html is not None:
        if os.path.isdir(html):
            raise UsageError(f"{html}: is a directory")
    if plot is not None and html is not None and os.path.abspath(plot) == os.path.abspath(html):
        raise UsageError(f"--plot and --html name the same file {plot}")


def write(picture: Picture, plot: str | None, html: str | None) -> list[str]:
    """Draw ``picture`` into the files asked for; returns the files written."""
    written = []
    if plot is not None:
        from planner.pictures.draw import save

        save(picture.figure(), plot, plot_format(plot))
        written.append(plot)
    if html is not None:
        text = picture.html()
        write_file(html, text)
        written.append(html)
    return written

