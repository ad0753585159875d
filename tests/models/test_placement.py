"""models/placement.py: the placement variables, the 'all pods placed' guards, static exclusions."""

from __future__ import annotations

from models import build
from models.placement import build_placement
from models.solve import minimise_core, solve

from .bruteforce import GroupSpec, Instance, Node, search, to_problem
from .support import OPTS, check_agrees

APP = {"app": "s"}


def test_one_guard_per_group_and_per_excluding_plugin():
    inst = Instance(
        [Node("n1", "a"), Node("n2", "b")],
        [GroupSpec(2, APP, node_affinity=frozenset({"n1", "n2"}), volume_pin=frozenset({"n1"})), GroupSpec(1, {"app": "w"})],
    )
    b = build_placement(to_problem(inst).problem)
    kinds = [(g.kind, g.group) for g in b.guards]
    assert kinds == [("place", 0), ("static", 0), ("place", 1)]  # node affinity excludes nothing here
    assert set(b.x) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert len(b.assumptions) == 3


def test_exclusions_keep_pods_off_classes():
    inst = Instance([Node("n1", "a"), Node("n2", "b"), Node("n3", "b")], [GroupSpec(3, APP, node_affinity=frozenset({"n2", "n3"}))])
    d = check_agrees(inst, True)
    assert d.res.x[0, 0] == 0
    d = check_agrees(Instance([Node("n1", "a"), Node("n2", "b")], [GroupSpec(1, APP, node_affinity=frozenset({"n2"}), volume_pin=frozenset({"n1"}))]), False)
    named = {("place", 0), ("static", 0, "NodeAffinity"), ("static", 0, "VolumeBinding")}
    assert {d.tr.fact_of(g) for g in d.res.core} >= named
    assert {d.tr.fact_of(g) for g in minimise_core(d.built, d.res.core, OPTS)} == named


def test_place_guard_off_lets_pods_stay_unplaced():
    inst = Instance([Node("n1", "a", pods=1)], [GroupSpec(3, APP)])
    tr = to_problem(inst)
    b = build(tr.problem)
    assert solve(b, OPTS).status == "infeasible"
    res = solve(b, OPTS, enabled=[g for g in b.guards if g.kind != "place"])
    assert res.status == "feasible" and res.x[0, 0] <= 1


def test_capacity_bounds_a_class_by_its_size():
    # cap per node 2, class of 3 nodes: at most 6
    nodes = [Node(f"n{j}", "a", cpu=2) for j in range(3)]
    tr = to_problem(Instance(nodes, [GroupSpec(7, APP, cpu=1)]), aggregate=True)
    assert [c.size for c in tr.problem.classes] == [3] and tr.problem.classes[0].cap == [2]
    check_agrees(Instance(nodes, [GroupSpec(6, APP, cpu=1)]), True, aggregate=True)
    check_agrees(Instance(nodes, [GroupSpec(7, APP, cpu=1)]), False, aggregate=True)


def test_core_names_the_capacity_of_a_full_node():
    # x[g, c]'s domain is bounded by the count only: the per-node room is under the capacity guard
    inst = Instance([Node("n1", "a", pods=1)], [GroupSpec(2, APP)])
    tr = to_problem(inst)
    b = build(tr.problem)
    res = solve(b, OPTS)
    assert res.status == "infeasible"
    core = minimise_core(b, res.core, OPTS)
    # the facts named must be infeasible together: "place 2 pods" alone is not
    assert not search(inst, tr, enabled=tr.facts(core)).feasible
    assert tr.facts(core) == {("place", 0), ("capacity", "a")}


def test_core_names_the_capacity_of_a_node_with_no_room():
    # the same shape with cap 0: the capacity guard again
    inst = Instance([Node("n1", "a", pods=0)], [GroupSpec(1, APP)])
    tr = to_problem(inst)
    b = build(tr.problem)
    core = minimise_core(b, solve(b, OPTS).core, OPTS)
    assert tr.facts(core) == {("place", 0), ("capacity", "a")}
    assert not search(inst, tr, enabled=tr.facts(core)).feasible
