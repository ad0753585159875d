"""The one place a model is solved: time limit, seed and workers are set here.

Determinism: a fixed random seed and interleaved search (``interleave_search``: the workers take
turns in a fixed order, so runs repeat exactly; CP-SAT's free-running parallel portfolio would not).
Two workers by default: on the bench clusters a lone default worker took up to 9 s on models two
interleaved workers solve in 15 ms.  ``workers=1`` is a single plain search.
A time-out is reported as ``unknown``, never as an answer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from models.cpsat import cp_model
from models.placement import Built, Guard

if TYPE_CHECKING:
    from models.remediation import ActionModel

DEFAULT_TIME_LIMIT = 30.0
DEFAULT_SEED = 0
DEFAULT_WORKERS = 2


@dataclass
class SolveOptions:
    time_limit: float = DEFAULT_TIME_LIMIT
    seed: int = DEFAULT_SEED
    workers: int = DEFAULT_WORKERS
    dtime: float | None = None  # a bound in deterministic seconds as well (repeatable, unlike wall time)
    # CP-SAT's probing in presolve and search: off for a search that wants any solution fast (an
    # explanation's counter-example: 0.05-0.06 s instead of 0.13-0.16 s on bench's 500-node models)
    probing: bool = True


@dataclass
class SolveResult:
    status: str  # feasible | infeasible | unknown
    x: dict[tuple[int, int], int] = field(default_factory=dict)  # x[g, c] in the solution
    core: list[Guard] = field(default_factory=list)  # guards in the infeasibility core
    wall_time: float = 0.0
    reason: str = ""  # for unknown
    values: dict[Any, int] = field(default_factory=dict)  # aux variables read back
    sequence: list[tuple[int, int]] = field(default_factory=list)  # sequenced model: (group, class) per step
    victims: list[int] = field(default_factory=list)  # preempted victims (Problem.victims indexes)
    optimal: bool = False  # the objective (if any) was proven optimal


def _solver(opts: SolveOptions) -> cp_model.CpSolver:
    s = cp_model.CpSolver()
    p = s.parameters
    p.max_time_in_seconds = opts.time_limit
    p.random_seed = opts.seed
    p.num_workers = max(1, opts.workers)
    if opts.dtime is not None:
        p.max_deterministic_time = opts.dtime
    if not opts.probing:
        p.cp_model_probing_level = 0
    if opts.workers > 1:
        p.interleave_search = True
    p.log_search_progress = False
    # Ctrl-C is planner's (cli.py: "interrupted", exit 130): CP-SAT's own SIGINT handler would
    # swallow it, stop only the current solve and let the command go on
    p.catch_sigint_signal = False
    return s


IGNORED_ASSUMPTIONS = (
    "the installed OR-Tools ignored the solve's assumptions (OR-Tools 9.13 and 9.14 do with two "
    "interleaved workers); install the version in requirements.lock"
)


def assumptions_held(solver: Any, guards: list[Guard]) -> bool:
    """Does the solution keep every assumed guard true?  A solver that answers feasible with an
    assumed literal false has dropped the assumptions (OR-Tools 9.13/9.14 with interleave_search):
    its answer proves nothing, so it is reported unknown rather than read back."""
    return all(solver.boolean_value(g.lit) for g in guards)


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
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) and not assumptions_held(solver, guards):
        res.reason = IGNORED_ASSUMPTIONS
    elif status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        res.status = "feasible"
        res.x = {k: int(solver.value(v)) for k, v in built.x.items()}
        res.victims = [i for i, lit in built.v.items() if solver.value(lit)]
        res.optimal = status == cp_model.OPTIMAL
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


@dataclass
class ActionResult:
    status: str  # optimal | feasible | infeasible | unknown
    chosen: dict[str, int] = field(default_factory=dict)  # option id -> 1, node group id -> count (chosen only)
    objective: int = 0
    wall_time: float = 0.0
    reason: str = ""
    # each world's own answer, in the order solved (solve_actions' ``recorded``: the same solve
    # again without the solver, the model changed as the solve changed it)
    runs: list[ActionResult] = field(default_factory=list, repr=False, compare=False)


def solve_actions(
    am: ActionModel, opts: SolveOptions | None = None, assumptions: list[Any] | None = None, recorded: list[ActionResult] | None = None,
    worlds: int | None = None, resume: bool = False,
) -> ActionResult:
    """The cheapest plan of a remediation action model (models.remediation): the options chosen and
    the node counts.  ``assumptions``: literals held true for this solve only (ActionModel.only).
    "feasible" is a plan found before the time limit that is not proven the cheapest.

    The model's worlds (the pods kept, or every pod recreated from a changed template) are
    exclusive: each is solved in turn, assumed active, and a later one only for a plan cheaper
    than the best so far (a cut on the objective): the cheapest of them is the optimum.  On the
    bench clusters this proves the optimum several times faster than one search over both.

    ``recorded``: the ``runs`` of this very solve (the same model, changed by the same calls, and
    the same options: done by a forked copy of this process) stand for the solver's answers; the
    model is changed as the solve changes it (its cuts), so that it is what it would be, and the
    answer is the same.

    A world is not solved when its answer is known without the solver (its status is then
    "infeasible", which the solver would answer): the assumptions rule it out by the world rules
    alone (ActionModel.possible_worlds: a plan fixed to a template change is in the world of
    template changes), or, with no assumptions, earlier solves proved that nothing in it costs
    less than the best plan found in a world before it (ActionModel.bounds).  The model is
    changed as the solve would have changed it (its cut), so later solves see the same model.

    ``worlds``: the first so many worlds only (the rest of the solve is then ``recorded`` with
    those runs and ``resume``: the worlds after the recorded ones solved as usual), so that the
    caller can act on the first world's answer before the others are solved."""
    opts = opts or SolveOptions()
    best: ActionResult | None = None
    wall = 0.0
    runs: list[ActionResult] = []
    free = not assumptions  # the model's own optimum: what its solves prove bounds later ones
    possible = am.possible_worlds(list(assumptions or []))
    for i, w in enumerate(am.problem.worlds):  # the world of no template change first: its plans cost least
        if worlds is not None and i >= worlds:
            break
        extra = list(assumptions or []) + [am.worlds[w.name]]
        cut_at: int | None = None
        if best is not None and best.status in ("optimal", "feasible"):
            cut = am.model.new_bool_var("cut")
            am.model.add(am.objective <= best.objective - 1).only_enforce_if(cut)
            extra.append(cut)
            cut_at = best.objective
        if recorded is not None and (i < len(recorded) or not resume):
            if i >= len(recorded):
                raise ValueError("a recorded solve has fewer worlds than the model")
            res = replace(recorded[i], chosen=dict(recorded[i].chosen), runs=[])
        elif w.name not in possible or (free and cut_at is not None and am.bounds.get(w.name, float("-inf")) >= cut_at):
            res = ActionResult(status="infeasible", reason="known without a solve")
        else:
            res = _solve_actions_once(am, opts, extra)
        if free:
            _bound(am, w.name, res, cut_at)
        runs.append(replace(res, chosen=dict(res.chosen), runs=[]))
        wall += res.wall_time
        if res.status in ("optimal", "feasible"):
            if best is not None and best.status == "feasible":
                res.status = "feasible"
            best = res
        elif res.status == "unknown":
            if best is None or best.status == "infeasible":
                best = res
            elif best.status == "optimal":
                best.status = "feasible"  # a cheaper plan in this world was not ruled out
        elif best is None:
            best = res
    assert best is not None
    if recorded is not None and len(recorded) > len(runs):
        raise ValueError("a recorded solve has more worlds than the model")
    best.wall_time = wall
    best.runs = runs
    return best


def _bound(am: ActionModel, world: str, res: ActionResult, cut_at: int | None) -> None:
    """What a solve of ``world`` with no assumptions but its own (and the cut below ``cut_at``,
    if any) proves of every solution in that world, kept in ActionModel.bounds: optimal, its
    objective (below the cut it is the world's own optimum); infeasible, nothing below the cut
    (nothing at all without one)."""
    if res.status == "optimal":
        b = float(res.objective)
    elif res.status == "infeasible":
        b = float("inf") if cut_at is None else float(cut_at)
    else:
        return
    am.bounds[world] = max(am.bounds.get(world, float("-inf")), b)


def _solve_actions_once(am: ActionModel, opts: SolveOptions, assumptions: list[Any]) -> ActionResult:
    model = am.model
    model.clear_assumptions()
    if assumptions:
        model.add_assumptions(assumptions)
    # one plain worker with the full linear relaxation (the enforced constraints of the spread and
    # capacity rules linearised too): on the bench clusters it proves the optimum in 0.1-0.3 s
    # where the default relaxation climbs the bound one node at a time (2-3 s) and two
    # interleaved workers wait for each other's batches; a single worker is deterministic too
    solver = _solver(replace(opts, workers=1))
    solver.parameters.linearization_level = 2
    status = solver.solve(model)
    res = ActionResult(status="unknown", wall_time=solver.wall_time)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        res.status = "optimal" if status == cp_model.OPTIMAL else "feasible"
        res.objective = int(round(solver.objective_value))
        for oid, lit in am.lits.items():
            if solver.boolean_value(lit):
                res.chosen[oid] = 1
        for gid, var in am.counts.items():
            k = int(solver.value(var))
            if k:
                res.chosen[gid] = k
    elif status == cp_model.INFEASIBLE:
        res.status = "infeasible"
    else:
        res.reason = f"the solver reached its {opts.time_limit:g} s time limit without an answer"
    model.clear_assumptions()
    return res


# The order in which minimise_core tries to drop whole kinds of guards: what an explanation can most
# easily do without first, the pods that must be placed never (they are what is asked).
_DROP_KINDS = ("anti", "affinity", "spread", "capacity", "volumelimits", "static")


QUICK_CORE_DTIME = 0.1  # deterministic seconds for a trial's plain search (see _quick_trial)
TRIAL_DTIME = 0.25  # and for its ordinary solve: a subset hard to prove infeasible keeps its guard


def _quick_trial(built: Built, enabled: list[Guard], opts: SolveOptions, limit: float, dtime: float = QUICK_CORE_DTIME) -> tuple[str, list[Guard]]:
    """A minimisation trial by a plain single search without presolve, bounded in deterministic
    time (so that runs repeat): when presolve proves infeasibility CP-SAT can only name every
    assumption as the core, while the search's conflict analysis names a small subset (on the
    bench clusters 54 of 101 guards, in 15-30 ms).  "unknown" when it runs out of time (models of
    hundreds of pods on hundreds of classes).  Returns (status, core in ``enabled``'s order)."""
    model = built.model
    model.clear_assumptions()
    model.add_assumptions([g.lit for g in enabled])
    s = cp_model.CpSolver()
    p = s.parameters
    p.max_time_in_seconds = max(0.001, limit)
    p.max_deterministic_time = dtime
    p.random_seed = opts.seed
    p.num_workers = 1
    p.catch_sigint_signal = False
    p.cp_model_presolve = False
    p.cp_model_probing_level = 0  # these three cost more than they save on models this small
    p.symmetry_level = 0
    p.linearization_level = 0
    p.log_search_progress = False
    status = s.solve(model)
    if status == cp_model.INFEASIBLE:
        idx = set(s.sufficient_assumptions_for_infeasibility())
        return "infeasible", [g for g in enabled if g.lit.index in idx] or list(enabled)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return "feasible", []
    return "unknown", []


def quick_core(built: Built, opts: SolveOptions | None = None, dtime: float = QUICK_CORE_DTIME) -> list[Guard] | None:
    """A small infeasible set of guards (not minimised) by one plain search bounded in
    deterministic time (_quick_trial; ``dtime`` deterministic seconds), with every guard assumed;
    None when that search does not prove infeasibility (feasible, or out of time).  For an
    explanation that must be cheap (remediate's candidates the action model proves useless alone)."""
    opts = opts or SolveOptions()
    status, core = _quick_trial(built, list(built.guards), opts, opts.time_limit, dtime)
    return core if status == "infeasible" else None


def _ordinary_trial(built: Built, enabled: list[Guard], opts: SolveOptions, limit: float) -> tuple[str, list[Guard]]:
    """A minimisation trial by the ordinary solve (presolve, the configured workers), bounded in
    deterministic time too: a subset hard to prove infeasible keeps its guard.  Its core is
    usually every assumption it was given."""
    r = solve(built, SolveOptions(time_limit=max(0.001, limit), seed=opts.seed, workers=opts.workers, dtime=TRIAL_DTIME), enabled=enabled)
    return r.status, (r.core or list(enabled)) if r.status == "infeasible" else []


def minimise_core(built: Built, core: list[Guard], opts: SolveOptions | None = None) -> list[Guard]:
    """A subset-minimal infeasible set of guards, found from ``core`` (itself infeasible).

    Deletion-based: drop a guard (first whole kinds of them, see _DROP_KINDS, then one at a time)
    and keep it dropped if what is left is still infeasible, shrinking further to the core the
    solver names for that trial.  Every set kept was proven infeasible, so the answer is always a
    valid core; a trial that reaches the time limit keeps its guard (the core may then be larger
    than minimal, never wrong)."""
    opts = opts or SolveOptions()
    deadline = time.monotonic() + opts.time_limit
    current = list(core)

    quick = True  # until a plain search runs out of time; then only ordinary solves

    def still_infeasible(trial: list[Guard]) -> list[Guard] | None:
        nonlocal quick
        status = "unknown"
        if quick:
            status, c = _quick_trial(built, trial, opts, deadline - time.monotonic())
            quick = status != "unknown"
        if status == "unknown" and deadline > time.monotonic():
            status, c = _ordinary_trial(built, trial, opts, deadline - time.monotonic())
        return c if status == "infeasible" else None

    first = still_infeasible(current)
    if first is not None:
        current = first
    for kind in _DROP_KINDS:
        trial = [g for g in current if g.kind != kind]
        if len(trial) < len(current) and trial:
            c = still_infeasible(trial)
            if c is not None:
                current = c
    i = 0
    while i < len(current):
        trial = current[:i] + current[i + 1:]
        c = still_infeasible(trial) if trial else None
        if c is not None:
            i = 0 if len(c) < len(trial) else i
            current = c
        else:
            i += 1
    return current
