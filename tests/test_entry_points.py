"""The console scripts pyproject.toml declares: kubectl's plugin (`kubectl planner ...`, tried with
the real kubectl when it is installed), kubectl's plugin completion, and the shell completion
scripts of `planner --show-completion`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import ROOT, SCENARIOS

S001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"


def _scripts() -> dict[str, str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def test_pyproject_declares_the_plugin_and_its_completion():
    scripts = _scripts()
    assert scripts["planner"] == "planner.cli:main"
    assert scripts["kubectl-planner"] == "planner.cli:kubectl_main"
    assert scripts["kubectl_complete-planner"] == "planner.cli:kubectl_complete"


@pytest.fixture
def plugin_path(tmp_path):
    """A bin folder with the console scripts as pip writes them (import the entry point, call it),
    first on PATH; an installed planner's own bin folder holds the same."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, target in _scripts().items():
        module, func = target.split(":")
        script = bin_dir / name
        script.write_text(f"#!{sys.executable}\nimport sys\nfrom {module} import {func}\nsys.exit({func}())\n")
        script.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", PYTHONPATH=str(ROOT))
    env.pop("KUBECONFIG", None)
    return bin_dir, env


def _kubectl() -> str:
    path = shutil.which("kubectl")
    if path is None:
        pytest.skip("kubectl is not installed: the plugin is not tried through it")
    return path


def test_kubectl_runs_the_plugin(plugin_path):
    kubectl = _kubectl()
    bin_dir, env = plugin_path
    r = subprocess.run([kubectl, "planner", "explain", str(S001), "--pod", "search-2"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr  # exit codes pass through kubectl: 1 = cannot be placed
    assert r.stdout.startswith("Pod default/search-2: UNSCHEDULABLE")
    r = subprocess.run([kubectl, "plugin", "list"], env=env, capture_output=True, text=True, timeout=60)
    assert str(bin_dir / "kubectl-planner") in r.stdout
    r = subprocess.run([kubectl, "planner", "--help"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "Usage: kubectl planner" in r.stdout
    r = subprocess.run([kubectl, "planner", "check", str(S001)], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr  # errors as planner reports them


def test_kubectl_completes_the_plugin(plugin_path):
    kubectl = _kubectl()
    _, env = plugin_path
    r = subprocess.run([kubectl, "__complete", "planner", "ex"], env=env, capture_output=True, text=True, timeout=60)
    assert r.stdout.splitlines() == ["explain", ":0"], r.stderr
    r = subprocess.run([kubectl, "__complete", "planner", "explain", "--po"], env=env, capture_output=True, text=True, timeout=60)
    assert r.stdout.splitlines() == ["--pod", "--pod-file", ":0"], r.stderr


def test_show_completion_prints_the_script_of_the_shell_it_runs_in():
    """`planner --show-completion` prints the completion script of the shell it is run from (typer
    detects it); README shows how to install it."""
    markers = {"bash": "complete -o default -F _planner_completion planner", "zsh": "compdef _planner_completion planner",
               "fish": "complete --command planner"}
    shells = [s for s in markers if shutil.which(s)]
    assert "bash" in shells
    for shell in shells:
        r = subprocess.run([shell, "-c", f"'{sys.executable}' -m planner --show-completion"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and markers[shell] in r.stdout, (shell, r.stdout, r.stderr)
        assert "_PLANNER_COMPLETE" in r.stdout


def test_completion_protocol_completes_commands_and_options():
    env = dict(os.environ, _PLANNER_COMPLETE="complete_bash", COMP_WORDS="planner ca", COMP_CWORD="1")
    r = subprocess.run([sys.executable, "-m", "planner"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.split() == ["capacity"]
    env.update(COMP_WORDS="planner simulate --pl", COMP_CWORD="2")
    r = subprocess.run([sys.executable, "-m", "planner"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.stdout.split() == ["--plot"]
