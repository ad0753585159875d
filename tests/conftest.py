"""Shared fixtures: run the CLI in-process and capture exit code, stdout and stderr."""

from __future__ import annotations

import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"

# The snapshot cache (planner.load.cache) stays off in tests, in-process and in the commands they
# start, so that no test reads or writes the user's cache folder: tests/load/test_cache.py turns
# it on, in a folder of its own.
os.environ["PLANNER_CACHE"] = "off"


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_cli(args: list[str], stdin: bytes | None = None) -> Result:
    from planner.cli import main

    old_in, old_out, old_err = sys.stdin, sys.stdout, sys.stderr
    out, err = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = out, err
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as e:
            code = int(e.code or 0)
    finally:
        sys.stdin, sys.stdout, sys.stderr = old_in, old_out, old_err
    return Result(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli():
    return run_cli
