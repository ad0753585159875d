"""The command line's own surface: --version, and the package metadata it reads."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata

import planner


def test_version_prints_planner_version_and_kubernetes_baseline(cli):
    r = cli(["--version"])
    assert r.code == 0, r
    assert f"planner {planner.__version__}" in r.out
    assert planner.KUBERNETES_BASELINE in r.out
    assert re.fullmatch(r"v1\.\d+", planner.KUBERNETES_BASELINE)


def test_one_version_string():
    # pyproject.toml reads the version from planner.__version__ (no second copy to drift)
    assert metadata.version("planner") == planner.__version__


def test_version_as_a_process():
    r = subprocess.run([sys.executable, "-m", "planner", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("planner ")
    assert "Traceback" not in r.stderr
