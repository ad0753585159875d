"""Where an object is written in the input files, for SARIF locations: best effort, by reading
the files' text again (the loader does not keep positions).

An object is found at the line of its ``name`` inside the ``metadata`` that follows a
``kind: <Kind>`` line (YAML, flow YAML and kubectl's JSON alike); an ownerReference, whose
``kind`` is followed by ``name`` without ``metadata``, does not count.  Not found: None.
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_BYTES = 64 * 1024 * 1024
LOOKAHEAD = 12  # lines between the kind and its metadata
NAME_LOOKAHEAD = 80  # lines between metadata and its name (kubectl -o yaml sorts labels and annotations first)


def _kind_re(kind: str) -> re.Pattern[str]:
    return re.compile(r'^\s*(?:-\s+)?"?kind"?\s*:\s*"?' + re.escape(kind) + r'"?\s*,?\s*$')


def _name_re(name: str) -> re.Pattern[str]:
    return re.compile(r'(?:^|[\s{,])"?name"?\s*:\s*["\']?' + re.escape(name) + r'["\']?\s*(?:[,}]|$)')


_META = re.compile(r'^\s*(?:-\s+)?"?metadata"?\s*:')


class Locator:
    def __init__(self, paths: list[str]) -> None:
        self.files: list[tuple[str, list[str]]] = []
        for p in paths:
            if p == "-":
                continue
            try:
                path = Path(p)
                if path.stat().st_size > MAX_BYTES:
                    continue
                self.files.append((p, path.read_text(encoding="utf-8", errors="replace").splitlines()))
            except OSError:
                continue

    def find(self, kind: str, name: str) -> tuple[str, int] | None:
        """(path, 1-based line) of the object's name."""
        kre, nre = _kind_re(kind), _name_re(name)
        for path, lines in self.files:
            for i, line in enumerate(lines):
                if not kre.match(line):
                    continue
                for j in range(i + 1, min(len(lines), i + 1 + LOOKAHEAD)):
                    if _META.match(lines[j]):
                        if nre.search(lines[j]):
                            return path, j + 1
                        for k in range(j + 1, min(len(lines), j + 1 + NAME_LOOKAHEAD)):
                            if nre.search(lines[k]):
                                return path, k + 1
                            if kre.match(lines[k]) or lines[k].strip() == "---":
                                break
                        break
        return None
