"""models/solve.py: the one solve entry.  Witnesses re-checked by the brute force, infeasibility
cores that name facts really jointly infeasible (and minimal after minimise_core), repeatable
results for a fixed seed, and a time limit that answers "unknown", never a wrong answer."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import models.solve
from models import build
from models.cpsat import cp_model
from models.solve import IGNORED_ASSUMPTIONS, SolveOptions, minimise_core, solve

from .bruteforce import (
    HOST,
    ZONE,
    GroupSpec,
    Instance,
    Node,
    PodMeta,
    SpreadC,
    Term,
    realisable,
    search,
    to_problem,
)
from .strategies import instances
from .support import OPTS, check_agrees, decide

APP = {"app": "s"}
PROPS = settings(max_examples=50, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


def seed_001() -> Instance:
    nodes = [Node("n-a", "a", existing=[PodMeta.of(APP)]), Node("n-b", "b", existing=[PodMeta.of(APP)]), Node("n-c", "c", pods=1)]
    spread = [SpreadC.of(ZONE, 1, APP)]
    return Instance(
        nodes,
        [GroupSpec(1, APP, cpu=1, volume_pin=frozenset({"n-a"}), spreads=spread), GroupSpec(2, {"app": "w"}, cpu=1)],
    )


def hard() -> Instance:
    """24 nodes, 36 pods in 6 groups with zone and hostname spread and hostname anti-affinity:
    CP-SAT does not settle it within 10 s on the bench machine."""
    nodes = [Node(f"n{j}", "abc"[j % 3], cpu=3 + j % 4, pods=5 + j % 3) for j in range(24)]
    groups = []
    for k in range(6):
        app = {"app": f"g{k % 3}"}
        groups.append(
            GroupSpec(
                6,
                app,
                cpu=1 + k % 2,
                spreads=[SpreadC.of(ZONE, 1, app), SpreadC.of(HOST, 1, app)],
                anti=[Term.of(HOST, {"app": f"g{(k + 1) % 3}"})],
            )
        )
    return Instance(nodes, groups)


# ---- feasible: the witness


def test_feasible_result_carries_every_placement_variable():
    inst = seed_001()
    inst.groups.append(GroupSpec(1, APP, spreads=[SpreadC.of(ZONE, 1, APP)]))  # search-3, to zone c first
    d = check_agrees(inst, True, sequenced=True)
    assert set(d.res.x) == set(d.built.x)
    assert d.res.core == [] and d.res.reason == ""
    assert d.res.x[2, 2] == 1


# ---- infeasible: the core


def test_core_names_jointly_infeasible_facts():
    d = decide(seed_001())
    facts = d.tr.facts(d.res.core)
    assert not search(d.inst, d.tr, enabled=facts).feasible
    assert {("place", 0), ("static", 0, "VolumeBinding"), ("spread", 0)} <= facts


def test_minimised_core_is_minimal():
    d = decide(seed_001())
    core = minimise_core(d.built, d.res.core, OPTS)
    facts = d.tr.facts(core)
    assert facts == {("place", 0), ("static", 0, "VolumeBinding"), ("spread", 0)}
    assert not search(d.inst, d.tr, enabled=facts).feasible
    for g in core:
        rest = [h for h in core if h is not g]
        assert solve(d.built, OPTS, enabled=rest).status == "feasible"
        assert search(d.inst, d.tr, enabled=d.tr.facts(rest)).feasible


def test_enabled_guards_only():
    d = decide(seed_001())
    without_spread = [g for g in d.built.guards if g.kind != "spread"]
    res = solve(d.built, OPTS, enabled=without_spread)
    assert res.status == "feasible"
    assert realisable(d.inst, d.tr, res.x, enabled=d.tr.facts(without_spread)).feasible


# ---- determinism


@pytest.mark.parametrize("workers", [1, 2])
def test_fixed_seed_repeats(workers):
    opts = SolveOptions(time_limit=10, seed=7, workers=workers)
    inst = Instance(
        [Node(f"n{j}", "ab"[j % 2], cpu=4) for j in range(4)],
        [GroupSpec(3, APP, cpu=1, spreads=[SpreadC.of(ZONE, 1, APP)]), GroupSpec(2, {"app": "w"}, cpu=2, anti=[Term.of(HOST, {"app": "w"})])],
    )
    runs = []
    for _ in range(3):
        b = build(to_problem(inst).problem)  # a fresh model each time
        r = solve(b, opts)
        runs.append((r.status, r.x, r.values))
    assert runs[0][0] == "feasible" and runs.count(runs[0]) == 3
    inf = seed_001()
    cores = []
    for _ in range(3):
        tr = to_problem(inf)
        b = build(tr.problem)
        r = solve(b, opts)
        cores.append((tr.facts(r.core), tr.facts(minimise_core(b, r.core, opts))))
    assert cores.count(cores[0]) == 3


# ---- the time limit


def test_time_limit_answers_unknown():
    b = build(to_problem(hard()).problem)
    res = solve(b, SolveOptions(time_limit=0.05))
    assert res.status == "unknown"
    assert res.reason == "the solver reached its 0.05 s time limit without an answer"
    assert res.x == {} and res.core == []
    assert solve(b, SolveOptions(time_limit=10, dtime=1e-9)).status == "unknown"  # deterministic bound too


def test_a_solver_that_drops_the_assumptions_answers_unknown(monkeypatch):
    """OR-Tools 9.13/9.14 with interleaved workers answer feasible with every assumed guard false;
    such an answer is reported unknown, never read back as a placement."""
    inf = seed_001()  # unschedulable with every guard assumed

    class Dropping(cp_model.CpSolver):
        def solve(self, model, *args, **kwargs):  # type: ignore[no-untyped-def]
            model.clear_assumptions()
            return super().solve(model, *args, **kwargs)

    b = build(to_problem(inf).problem)
    assert solve(b, OPTS).status == "infeasible"
    monkeypatch.setattr(models.solve, "_solver", lambda opts: Dropping())
    res = solve(b, OPTS)
    assert res.status == "unknown" and res.reason == IGNORED_ASSUMPTIONS and res.x == {}


@pytest.mark.parametrize("inst", [seed_001(), Instance([Node("n1", "a")], [GroupSpec(2, APP)])], ids=["infeasible", "feasible"])
def test_tiny_time_limit_never_gives_a_wrong_answer(inst):
    tr = to_problem(inst)
    truth = search(inst, tr).feasible
    for limit in (1e-9, 1e-6, 1e-3):
        r = solve(build(tr.problem), SolveOptions(time_limit=limit))
        assert r.status in ("unknown", "feasible" if truth else "infeasible")


def test_minimise_core_out_of_time_keeps_a_valid_core():
    d = decide(seed_001())
    core = minimise_core(d.built, d.res.core, SolveOptions(time_limit=1e-9))
    assert not search(d.inst, d.tr, enabled=d.tr.facts(core)).feasible


# ---- properties


@PROPS
@given(instances(max_groups=3))
def test_core_is_jointly_infeasible(inst):
    """Every kind of constraint, several groups: an infeasible answer's core names facts the brute
    force cannot satisfy together, and so does its minimisation, which is minimal for the model."""
    d = decide(inst)
    assert d.status in ("feasible", "infeasible")
    if d.status == "feasible":
        # order-free facts (capacity, static, anti-affinity, volumes) hold in the final placement
        free = {f for f in d.tr.facts(d.built.guards) if f[0] not in ("spread", "affinity")}
        assert realisable(inst, d.tr, d.res.x, enabled=free).feasible
        return
    assert not search(inst, d.tr, enabled=d.tr.facts(d.res.core)).feasible
    core = minimise_core(d.built, d.res.core, OPTS)
    assert not search(inst, d.tr, enabled=d.tr.facts(core)).feasible
    for g in core:
        assert solve(d.built, OPTS, enabled=[h for h in core if h is not g]).status == "feasible"


@PROPS
@given(instances(max_groups=1, affinity=False))
def test_one_group_minimal_core_is_minimal_by_brute_force(inst):
    """Where the model is exact (one group, no affinity), dropping any fact of the minimised core
    makes the brute force succeed too."""
    d = check_agrees(inst)
    if d.status == "infeasible":
        core = minimise_core(d.built, d.res.core, OPTS)
        for g in core:
            assert search(inst, d.tr, enabled=d.tr.facts([h for h in core if h is not g])).feasible


@PROPS
@given(instances(max_groups=1))
def test_every_witness_passes_the_brute_force(inst):
    """One group, every kind of constraint: an infeasible answer is confirmed, and a feasible one's
    placement is bound pod by pod unless the group carries required affinity (the unordered model
    is then only necessary: see test_interpodaffinity)."""
    d = decide(inst)
    truth = search(inst, d.tr)
    if d.status == "infeasible":
        assert not truth.feasible
    elif not inst.groups[0].affinity:
        assert realisable(inst, d.tr, d.res.x).feasible
