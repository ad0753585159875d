"""Draws the pictures README.md shows (docs/*.png) from the bundled scenarios: `make pictures`.

Run from the repository's root: `python docs/pictures.py [OUT_DIR]` (default: docs).
tests/test_docs_pictures.py draws them again and checks the checked-in ones are current.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# file name -> the planner command that draws it (with --plot FILE added)
PICTURES: dict[str, list[str]] = {
    # the HPA scale-down and up incident: search-2's volume pins it to zone-a, where it would make the skew 2
    "zone-map.png": ["check", "scenarios/hpa-scale-up-retained-volume.yaml", "--workload", "statefulset/search", "--replicas", "3"],
    # the same incident replayed: 4 -> 2 -> 3 -> 4, search-2 Pending at 3 and running again at 4
    "replay-timeline.png": ["simulate", "scenarios/hpa-scale-down-up-replay.yaml", "--workload", "statefulset/search"],
    # the HPA's range 2..6: 3 fails (its volume and the spread), 4 works
    "capacity-curve.png": ["capacity", "scenarios/hpa-scale-up-retained-volume.yaml", "--workload", "statefulset/search"],
}


def _planner(argv: list[str]) -> tuple[int, str]:
    r = subprocess.run([sys.executable, "-m", "planner", *argv], cwd=ROOT, capture_output=True, text=True)
    return r.returncode, r.stderr


def draw(out_dir: Path, run: Callable[[list[str]], tuple[int, str]] = _planner) -> list[Path]:
    """Draw every picture into ``out_dir``; ``run(argv)`` runs planner from the repository's root
    and returns (exit code, stderr)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, argv in PICTURES.items():
        path = out_dir / name
        code, err = run([*argv, "--plot", str(path)])
        if code not in (0, 1) or not path.is_file():
            raise SystemExit(f"planner {' '.join(argv)}: exit {code}\n{err}")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in draw(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"):
        print(f"wrote {p.relative_to(ROOT) if p.is_relative_to(ROOT) else p}")
