"""models/defaultpreemption.py on hand-built problems: what a victim frees, where it may be taken,
and the objective (fewest budget violations, then victims, then the lowest priorities).  Each
answer is checked against an enumeration of every victim set (the brute force of this encoder's
arithmetic: capacity per node with the chosen victims gone)."""

from __future__ import annotations

import itertools

import models
from models.defaultpreemption import add_victim_objective
from models.problem import Budget, Exclusion, Group, NodeClass, Problem, Victim
from models.solve import SolveOptions, solve

OPTS = SolveOptions(time_limit=10.0)


def _node(i: int, free_cpu: int, victims: list[int], cap_preempt: int) -> NodeClass:
    return NodeClass(index=i, nodes=[f"n{i}"], zone="z", domains={}, cap=[max(free_cpu, 0) // 1000], free={"cpu": free_cpu, "pods": 100},
                     victims=victims, cap_preempt=[cap_preempt])


def _victim(i: int, node: int, cpu: int, priority: int = 0, budgets: list[int] | None = None) -> Victim:
    return Victim(i, f"ns/v{i}", f"n{node}", node, priority, {"cpu": cpu, "pods": 1}, [0], budgets or [])


def _brute(p: Problem, count: int) -> tuple[int, int, int] | None:
    """The best (violations, victims, priority rank sum) over every victim set and placement."""
    best = None
    prios = sorted({v.priority for v in p.victims})
    for k in range(len(p.victims) + 1):
        for vs in itertools.combinations(p.victims, k):
            chosen = {v.index for v in vs}
            room = {}
            for c in p.classes:
                free = c.free["cpu"] + sum(p.victims[i].requests["cpu"] for i in c.victims if i in chosen)
                lifted = all(all(i in chosen for i in e.unless.get(c.index, [])) for e in p.groups[0].exclusions if c.index in e.classes)
                room[c.index] = max(free, 0) // 1000 if lifted and not any(c.index in e.classes and not e.unless.get(c.index) for e in p.groups[0].exclusions) else 0
            for split in itertools.product(*(range(room[c.index] + 1) for c in p.classes)):
                if sum(split) != count:
                    continue
                if any(split[p.victims[i].node_class] == 0 for i in chosen):
                    continue  # a victim only where a pod lands
                viol = sum(max(0, sum(1 for v in vs if b.index in v.budgets) - b.allowed) for b in p.budgets)
                cost = (viol, k, sum(prios.index(v.priority) for v in vs))
                best = cost if best is None or cost < best else best
    return best


def _solve(p: Problem) -> tuple[str, tuple[int, int, int] | None]:
    b = models.build(p)
    add_victim_objective(b)
    r = solve(b, OPTS)
    if r.status != "feasible":
        return r.status, None
    prios = sorted({v.priority for v in p.victims})
    vs = [p.victims[i] for i in r.victims]
    viol = sum(max(0, sum(1 for v in vs if bd.index in v.budgets) - bd.allowed) for bd in p.budgets)
    return r.status, (viol, len(vs), sum(prios.index(v.priority) for v in vs))


def _problem(count: int, classes: list[NodeClass], victims: list[Victim], exclusions: list[Exclusion] | None = None,
             budgets: list[Budget] | None = None) -> Problem:
    g = Group(0, [f"ns/p{i}" for i in range(count)], "deployment/ns/w", {"app": "w"}, {"cpu": 1000}, exclusions=exclusions or [])
    return Problem(classes=classes, groups=[g], victims=victims, budgets=budgets or [])


def test_fewest_victims_then_lowest_priority():
    # n0: 0 free, victims 1000m (priority 5) and 2000m (priority 1); n1: 500m free, a 1000m victim (priority 1)
    p = _problem(2, [_node(0, 0, [0, 1], 3), _node(1, 500, [2], 1)],
                 [_victim(0, 0, 1000, 5), _victim(1, 0, 2000, 1), _victim(2, 1, 1000, 1)])
    assert _solve(p) == ("feasible", _brute(p, 2)) == ("feasible", (0, 1, 0))  # the 2000m victim frees room for both


def test_budget_violations_come_first():
    # the cheaper victim is under a budget that allows no disruption: two others are taken instead
    budgets = [Budget(0, "ns/b", 0)]
    p = _problem(1, [_node(0, 0, [0], 2), _node(1, 0, [1, 2], 1)],
                 [_victim(0, 0, 1000, budgets=[0]), _victim(1, 1, 500), _victim(2, 1, 500)], budgets=budgets)
    assert _solve(p) == ("feasible", _brute(p, 1)) == ("feasible", (0, 2, 0))


def test_a_rejection_lifts_only_when_its_victims_go():
    # n0 has room but a host port held by victim 0; n1 has no room and no victim
    ex = Exclusion("NodePorts", "node(s) didn't have free ports", [0], unless={0: [0]})
    p = _problem(1, [_node(0, 4000, [0], 4), _node(1, 0, [], 0)], [_victim(0, 0, 0)], [ex])
    assert _solve(p) == ("feasible", _brute(p, 1)) == ("feasible", (0, 1, 0))
    p2 = _problem(1, [_node(0, 4000, [0], 4), _node(1, 0, [], 0)], [_victim(0, 0, 0)], [Exclusion("NodePorts", "x", [0])])
    assert _solve(p2)[0] == "infeasible" and _brute(p2, 1) is None


def test_over_committed_node_without_new_pods_is_no_contradiction():
    # n0 is over its allocatable (-500m free); the pod goes to n1, nothing is preempted
    p = _problem(1, [_node(0, -500, [0], 0), _node(1, 1000, [1], 1)], [_victim(0, 0, 100), _victim(1, 1, 100)])
    assert _solve(p) == ("feasible", _brute(p, 1)) == ("feasible", (0, 0, 0))


def test_infeasible_even_with_every_victim():
    p = _problem(3, [_node(0, 0, [0], 1), _node(1, 0, [1], 1)], [_victim(0, 0, 1000), _victim(1, 1, 1000)])
    assert _solve(p)[0] == "infeasible" and _brute(p, 3) is None
