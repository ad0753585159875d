"""The brute force itself, on cases whose answers are known by hand (the oracle must be right
before anything is checked against it)."""

from __future__ import annotations

from .bruteforce import (
    HOST,
    ZONE,
    GroupSpec,
    Instance,
    Node,
    PodMeta,
    SpreadC,
    Term,
    replay,
    search,
    to_problem,
)

APP = {"app": "s"}


def test_spread_sequence_by_hand():
    inst = Instance([Node("n1", "a"), Node("n2", "b")], [GroupSpec(3, APP, spreads=[SpreadC.of(ZONE, 1, APP)])])
    assert replay(inst, [(0, 0), (0, 1), (0, 0)]) is None
    assert replay(inst, [(0, 0), (0, 0), (0, 1)]) == "step 1: a pod of group 0 does not fit node n1"
    assert search(inst).feasible


def test_capacity_counts_existing_usage():
    node = Node("n1", "a", cpu=4, pods=10, existing=[PodMeta.of(cpu=3)])
    assert search(Instance([node], [GroupSpec(1, APP, cpu=1)])).feasible
    assert not search(Instance([node], [GroupSpec(2, APP, cpu=1)])).feasible


def test_first_pod_rule_by_hand():
    term = Term.of(ZONE, APP)
    inst = Instance([Node("n1", "a", pods=1), Node("n2", "b", pods=1)], [GroupSpec(2, APP, affinity=[term])])
    # the first pod seeds zone a; the second has no room there and no matching pod in zone b
    assert replay(inst, [(0, 0)], enabled={("affinity", 0)}) is None
    assert not search(inst).feasible


def test_only_enabled_facts_are_checked():
    inst = Instance([Node("n1", "a")], [GroupSpec(2, APP, anti=[Term.of(HOST, APP)])])
    tr = to_problem(inst)
    assert not search(inst, tr).feasible
    assert search(inst, tr, enabled={("place", 0)}).feasible  # without the anti-affinity fact
    assert search(inst, tr, enabled={("anti", 0)}).feasible  # nothing has to be placed
