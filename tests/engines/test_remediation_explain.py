"""The reasons of the candidates the action model proves useless alone (choose.ExplainBudget): check
explains one variant of each family, none once a core search runs out of its budget; every other
one is given the model's proof, which must be true (the change alone leaves the goal unschedulable).
And diagnose reuses the check is_ok_now asked (the same question, the same answer)."""

from __future__ import annotations

import pytest

import models.solve
from bench import generate
from models.solve import SolveOptions
from planner.engines.remediation import Goal, remediate
from planner.engines.remediation.search import Search, diagnose
from planner.engines.remediation.verify import apply_plan, evaluate, is_ok_now
from planner.engines.workloads import cluster_after_plans, find_workload, parse_workload, plan_workload
from planner.load import load_snapshot
from planner.scheduler import runtime
from tests.engines.test_remediation import CASES, _goal, _snap

OPTS = SolveOptions()
PROOF = "model: no placement of the"


@pytest.fixture(scope="module")
def bench_6z(tmp_path_factory):
    """The 50-node 6-zone bench cluster and bench's remediate goal (one replica more than the
    feasible nodes allow: bench/run.py's remediate phase)."""
    out = generate.generate(50, 6, 1, ["json"], tmp_path_factory.mktemp("bench"))
    snap = load_snapshot([str(out["json"])])
    ref = parse_workload("statefulset/bench/bench-sts", None)
    spec = find_workload(snap, ref).replicas
    plan = plan_workload(snap, ref, spec + 1)
    ev = runtime.evaluate(plan.new[0], cluster_after_plans(snap, [plan]))
    return snap, Goal(ref, "replicas", spec + sum(1 for n in ev.nodes if n.feasible) + 1)


def _template_rejections(out) -> list[dict]:
    return [r for r in out.rejected if r["actions"][0].split()[0] in ("set-requests", "add-toleration", "add-match-label-keys")]


def _proof_holds(snap, goal: Goal, out, label: str) -> bool:
    """The change alone, as verification applies it: check on every pod recreated from the
    changed template does not place the goal's replicas."""
    cands = {a.label(): a for p in out.plans for a in p.actions}
    search = Search(snap, goal, OPTS, 0)
    from planner.engines.remediation.candidates import Context
    from planner.engines.remediation.candidates import generate as candidates

    ctx = Context(snap, goal, diagnose(snap, goal, OPTS, 0, search.memo))
    cands.update({a.label(): a for a in candidates(ctx)})
    a = cands[label]
    trial, g = apply_plan(snap, goal, a.patches)
    return not evaluate(trial, g, OPTS, template_changed=a.rolls_template, replay=False, explain=False).ok


def test_a_ladder_is_explained_once_and_its_next_variant_by_the_true_proof(bench_6z):
    snap, goal = bench_6z
    out = remediate(snap, goal, top=3, opts=OPTS, seed=1)
    ladder = [r for r in out.rejected if r["actions"][0].startswith("set-requests")]
    assert len(ladder) == 2, out.rejected
    first, second = ladder
    assert first["reason"].startswith("check: still unschedulable:"), first
    assert second["reason"].startswith(PROOF), second
    assert _proof_holds(snap, goal, out, second["actions"][0])
    # another family is still explained by check
    assert any(r["reason"].startswith("check:") for r in out.rejected if r["actions"][0].startswith("add-toleration"))


def test_no_explanation_after_a_core_search_runs_out(bench_6z, monkeypatch):
    snap, goal = bench_6z
    calls = []

    def out_of_time(built, opts=None, dtime=models.solve.QUICK_CORE_DTIME):
        calls.append(dtime)
        return None  # as a search that reaches its deterministic time

    monkeypatch.setattr(models.solve, "quick_core", out_of_time)
    out = remediate(snap, goal, top=3, opts=OPTS, seed=1)
    rejected = _template_rejections(out)
    assert len(rejected) >= 3 and len(calls) == 1
    assert all(r["reason"].startswith(PROOF) for r in rejected), rejected
    for r in rejected:
        assert _proof_holds(snap, goal, out, r["actions"][0]), r


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][2] == "replicas"])
def test_diagnose_with_is_ok_nows_check_is_diagnose_alone(case):
    snap, goal = _snap(case), _goal(case)
    now = is_ok_now(snap, goal, OPTS, 0)
    assert not now.ok and now.checked is not None
    assert diagnose(snap, goal, OPTS, 0, checked=now.checked) == diagnose(snap, goal, OPTS, 0)
