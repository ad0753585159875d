"""The command line's own surface: --version, the package metadata it reads, and how a command
ends its process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

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


SCENARIO = str(Path(__file__).resolve().parents[1] / "scenarios" / "hpa-scale-up-retained-volume.yaml")


def test_a_command_as_a_process_ends_with_its_output_code_and_exit_handlers():
    """Run from its own command line, a command ends the process at once after it (without the
    interpreter's teardown): its output whole, its exit code, and the exit handlers run first."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('exit handler ran'))  # no newline: still in the buffer\n"
        "from planner.cli import main\n"
        f"sys.argv = ['planner', 'check', {SCENARIO!r}, '-w', 'statefulset/search', '--replicas', '3', '-o', 'json']\n"
        "main()\n"
        "print('not reached', file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as by default
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 1, r.stderr  # unschedulable: the demo's answer
    assert json.loads(r.stdout)["schedulable"] is False
    assert r.stderr.endswith("exit handler ran"), r.stderr
    assert "not reached" not in r.stderr


def test_output_into_a_closed_pipe_ends_quietly():
    """planner ... | head: the reader gone, the process ends with no message about the pipe."""
    p = subprocess.Popen(
        [sys.executable, "-m", "planner", "explain", SCENARIO, "--pod", "default/search-2", "-o", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert p.stdout is not None and p.stderr is not None
    p.stdout.read(10)
    p.stdout.close()  # as head does once it has its lines
    err = p.stderr.read().decode()
    p.wait(timeout=120)
    assert "Exception" not in err and "Traceback" not in err, err
    assert p.returncode in (0, 1), err
