"""Start-up: what `import planner.cli` (every command) and the check and explain commands import.

The CP-SAT import leaves pandas out (see models/cpsat.py) and still works with it; OR-Tools, numpy,
networkx, matplotlib and pandas are imported only when a command uses them (an import-graph
assertion: the time itself is measured in bench/, docs/performance.md).
"""

from __future__ import annotations

import subprocess
import sys

SOLVE = (
    "from models.cpsat import cp_model; m = cp_model.CpModel(); x = m.new_int_var(0, 3, 'x'); "
    "m.add(x >= 2); s = cp_model.CpSolver(); assert s.solve(m) == cp_model.OPTIMAL and s.value(x) >= 2"
)
HEAVY = ("ortools", "numpy", "networkx", "matplotlib", "pandas", "rich", "scipy", "yaml")  # yaml: for YAML input or -o yaml only


def _run(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _heavy_after(imports: str) -> list[str]:
    out = _run(f"import sys, {imports}; print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))")
    return eval(out)  # noqa: S307 - our own child's repr of a list of names


def test_cli_and_commands_import_no_heavy_module():
    # what every command pays before reading its input, and what check / explain add to it
    assert _heavy_after("planner.cli") == []
    assert _heavy_after("planner.cli, planner.commands.check, planner.commands.explain, planner.commands.validate") == []


def test_heavy_modules_come_when_used():
    # a model built: OR-Tools (and the numpy it needs); a replay's arrays: numpy
    assert {"ortools", "numpy"} <= set(_heavy_after("planner.cli, models.solve; from models.cpsat import cp_model; cp_model.CpModel()"))
    assert "numpy" in _heavy_after("planner.engines.replay")


def test_commands_import_without_pandas():
    _run("import sys, planner.cli, planner.engines.check, planner.engines.capacity, models; " + SOLVE
         + "; assert 'pandas' not in sys.modules, 'pandas was imported'")


def test_cp_model_works_when_pandas_is_already_imported():
    _run("import pandas, sys; " + SOLVE + "; from ortools.sat.python import cp_model as real; "
         "from models.cpsat import cp_model as ours; assert ours.CpModel is real.CpModel and ours.pd is pandas")


def test_lazy_kernels_are_the_kernels():
    # the registry's scorers call the plugins' vectorised kernels, imported on first call
    _run(
        "import sys; from planner.scheduler.registry import SCORE_PLUGINS; assert 'numpy' not in sys.modules; "
        "from planner.scheduler.plugins.noderesources import kernels; "
        "k = next(s.kernel for s in SCORE_PLUGINS if s.name == 'NodeResourcesFit'); "
        "assert k.module == kernels.__name__ and getattr(kernels, k.attr) is kernels.fit_score"
    )
