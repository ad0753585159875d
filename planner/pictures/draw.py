"""matplotlib, imported only when a picture is drawn, without a display (the Agg backend), and
files written the same way every time for the same picture (no date or software version in them)."""

from __future__ import annotations

from typing import Any

from planner.errors import UsageError
from planner.files import write_with

# one palette for every picture, the HTML pages' too (planner.pictures.page)
RUNNING = "#2e7d32"  # running, schedulable: green
PLACED = "#1565c0"  # placed by the answer (a new pod): blue
PENDING = "#c62828"  # Pending, unschedulable: red
GONE = "#e0e0e0"  # no such pod at that step
PINNED = "#ef6c00"  # a volume pins the pod to a zone: orange
UNUSABLE = "#9e9e9e"  # a node the pod may not use (cordoned, tainted, another affinity)
ROOM = "#90caf9"  # free room for more pods
INK = "#212121"
MUTED = "#616161"


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "planner"  # the same element ids every time
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text (searchable, smaller)
    return plt


def save(fig: Any, path: str, fmt: str) -> None:
    """Write ``fig`` to ``path`` in ``fmt`` (png, svg, or another format matplotlib knows), through a
    fresh file renamed over ``path`` (a symlink there is replaced, not followed)."""
    plt = pyplot()
    metadata: dict[str, Any] | None
    if fmt == "png":
        metadata = {"Software": None}
    elif fmt == "svg":
        metadata = {"Date": None, "Creator": None}
    elif fmt == "pdf":
        metadata = {"CreationDate": None, "Producer": None, "Creator": None}
    else:
        metadata = None
    try:
        write_with(path, lambda f: fig.savefig(f, format=fmt, dpi=100, metadata=metadata))
    except ValueError as e:  # a format matplotlib does not know
        raise UsageError(f"--plot {path}: {e}") from None
    finally:
        plt.close(fig)


def short(text: str, n: int) -> str:
    """``text`` cut to ``n`` characters with an ellipsis."""
    return text if len(text) <= n else text[: max(1, n - 1)] + "\u2026"
