"""Helpers shared by tests/models: build and solve an Instance, re-check what the solver says."""

from __future__ import annotations

from dataclasses import dataclass

from models import build
from models.placement import Built
from models.sequence import add_sequence
from models.solve import SolveOptions, SolveResult, solve

from .bruteforce import Instance, Translation, realisable, replay, search, to_problem

OPTS = SolveOptions(time_limit=10.0)


@dataclass
class Decided:
    inst: Instance
    tr: Translation
    built: Built
    res: SolveResult

    @property
    def status(self) -> str:
        return self.res.status


def decide(inst: Instance, aggregate: bool = False, sequenced: bool = False, opts: SolveOptions | None = None) -> Decided:
    tr = to_problem(inst, aggregate=aggregate)
    b = build(tr.problem)
    if sequenced:
        add_sequence(b)
    return Decided(inst, tr, b, solve(b, opts or OPTS))


def brute(inst: Instance, aggregate: bool = False) -> bool:
    return search(inst, to_problem(inst, aggregate=aggregate)).feasible


def check_agrees(inst: Instance, expected: bool | None = None, aggregate: bool = False, sequenced: bool = False) -> Decided:
    """The solver's verdict equals the brute force's (and ``expected`` when given); a feasible
    verdict's placement is realisable one bind at a time (its sequence replays, when it has one)."""
    d = decide(inst, aggregate=aggregate, sequenced=sequenced)
    truth = search(inst, d.tr)
    assert d.status in ("feasible", "infeasible"), d.res.reason
    assert (d.status == "feasible") == truth.feasible, (d.status, truth)
    if expected is not None:
        assert truth.feasible == expected, ("the brute force disagrees with the test's expectation", truth)
    if d.status == "feasible":
        assert_witness(d, sequenced=sequenced)
    return d


def sequence_nodes(d: Decided) -> list[tuple[int, int]]:
    """The sequenced model's steps as (group, node); classes must be single nodes."""
    out = []
    for g, c in d.res.sequence:
        nodes = d.tr.problem.classes[c].nodes
        assert len(nodes) == 1, "sequence witnesses are replayed on one-node classes"
        out.append((g, [n.name for n in d.inst.nodes].index(nodes[0])))
    return out


def assert_witness(d: Decided, sequenced: bool = False) -> None:
    x = d.res.x
    for g in d.tr.problem.groups:
        assert sum(x[g.index, c.index] for c in d.tr.problem.classes) == g.count
    if sequenced:
        why = replay(d.inst, sequence_nodes(d), d.tr)
        assert why is None, why
    else:
        r = realisable(d.inst, d.tr, x)
        assert r.feasible, ("the solver's placement cannot be bound one pod at a time", x)
