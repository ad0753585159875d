"""The one place a model is solved: time limit, seed and workers are set here.

Determinism: a fixed random seed and interleaved search (``interleave_search``: the workers take
turns in a fixed order, so runs repeat exactly; CP-SAT's free-running parallel portfolio would not).
Two workers by default: on the bench clusters a lone default worker took up to 9 s on models two
interleaved workers solve in 15 ms.  ``workers=1`` is a single plain search.
A time-out is reported as ``unknown``, never as an answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from models.placement import Built, Guard

DEFAULT_TIME_LIMIT = 30.0
DEFAULT_SEED = 0
DEFAULT_WORKERS = 2


@dataclass
class SolveOptions:
    time_limit: float = DEFAULT_TIME_LIMIT
    seed: int = DEFAULT_SEED
    workers: int = DEFAULT_WORKERS


@dataclass
class SolveResult:
    status: str  # feasible | infeasible | unknown
    x: dict[tuple[int, int], int] = field(default_factory=dict)  # x[g, c] in the solution
    core: list[Guard] = field(default_factory=list)  # guards in the infeasibility core
    wall_time: float = 0.0
    reason: str = ""  # for unknown
    values: dict[Any, int] = field(default_factory=dict)  # aux variables read back
    sequence: list[tuple[int, int]] = field(default_factory=list)  # sequenced model: (group, class) per step


def _solver(opts: SolveOptions) -> cp_model.CpSolver:
    s = cp_model.CpSolver()
    p = s.parameters
    p.max_time_in_seconds = opts.time_limit
    p.random_seed = opts.seed
    p.num_workers = max(1, opts.workers)
    if opts.workers > 1:
        p.interleave_search = True
    p.log_search_progress = False
    return s


def solve(built: Built, opts: SolveOptions | None = None, enabled: list[Guard] | None = None) -> SolveResult:
    """Solve with the given guards assumed true (default: all); the others are left free."""
    opts = opts or SolveOptions()
    model = built.model
    guards = built.guards if enabled is None else enabled
    model.clear_assumptions()
    model.add_assumptions([g.lit for g in guards])
    solver = _solver(opts)
    status = solver.solve(model)
    res = SolveResult(status="unknown", wall_time=solver.wall_time)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        res.status = "feasible"
        res.x = {k: int(solver.value(v)) for k, v in built.x.items()}
        for k, v in built.aux.items():
            if isinstance(v, cp_model.IntVar):
                res.values[k] = int(solver.value(v))
        seq = built.aux.get("sequence")
        if seq:
            # the step order of the sequenced model: [(group, class)] for t = 0, 1, ...
            chosen = sorted((t, g, c) for (t, g, c), v in seq.items() if solver.value(v))
            res.sequence = [(g, c) for _, g, c in chosen]
    elif status == cp_model.INFEASIBLE:
        res.status = "infeasible"
        core_idx = set(solver.sufficient_assumptions_for_infeasibility())
        res.core = [g for g in guards if g.lit.index in core_idx]
    else:
        res.reason = f"the solver reached its {opts.time_limit:g} s time limit without an answer"
    return res


def minimise_core(built: Built, core: list[Guard], opts: SolveOptions | None = None) -> list[Guard]:
    """Deletion-based minimisation: drop each guard whose removal keeps the rest infeasible."""
    opts = opts or SolveOptions()
    current = list(core)
    i = 0
    while i < len(current):
        trial = current[:i] + current[i + 1:]
        r = solve(built, opts, enabled=trial)
        if r.status == "infeasible":
            # keep the (possibly smaller) core the solver returned for the trial
            keep = {g.lit.index for g in r.core} if r.core else {g.lit.index for g in trial}
            current = [g for g in trial if g.lit.index in keep]
            i = 0 if len(current) < len(trial) else i
        else:
            i += 1
    return current
