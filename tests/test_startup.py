"""Start-up: the CP-SAT import leaves pandas out (see models/cpsat.py), and still works with it."""

from __future__ import annotations

import subprocess
import sys

SOLVE = (
    "from models.cpsat import cp_model; m = cp_model.CpModel(); x = m.new_int_var(0, 3, 'x'); "
    "m.add(x >= 2); s = cp_model.CpSolver(); assert s.solve(m) == cp_model.OPTIMAL and s.value(x) >= 2"
)


def _run(code: str) -> None:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_commands_import_without_pandas():
    _run("import sys, planner.cli, planner.engines.check, planner.engines.capacity, models; " + SOLVE
         + "; assert 'pandas' not in sys.modules, 'pandas was imported'")


def test_cp_model_works_when_pandas_is_already_imported():
    _run("import pandas, sys; " + SOLVE + "; from ortools.sat.python import cp_model as real; "
         "from models.cpsat import cp_model as ours; assert ours is real and ours.pd is pandas")
