"""models/sequence.py: the exact sequenced model (one bind per step, prefix counts), against the
brute force; its step order is a witness replayed bind by bind."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from models import build
from models.sequence import add_sequence
from models.solve import solve

from .bruteforce import HOST, ZONE, GroupSpec, Instance, Node, SpreadC, Term, replay, search, to_problem
from .strategies import instances
from .support import OPTS, check_agrees, decide, sequence_nodes

APP = {"app": "s"}
PROPS = settings(max_examples=50, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


def two_constraints() -> Instance:
    """Zone a has room for one pod; two groups of one selector, maxSkew 1 and 2, four pods in zone
    b.  Whatever binds last in zone b sees b at 3 and a at 1 at most: too much for either
    constraint.  Each group's final-state condition holds on its own (1 <= 1 + 1, 3 <= 2 + 1)."""
    nodes = [Node("na", "a", pods=1), Node("nb", "b")]
    a = GroupSpec(2, APP, spreads=[SpreadC.of(ZONE, 1, APP)])
    b = GroupSpec(3, APP, volume_pin=frozenset({"nb"}), spreads=[SpreadC.of(ZONE, 2, APP)])
    return Instance(nodes, [a, b])


def test_final_state_model_is_only_necessary_with_several_groups():
    inst = two_constraints()
    assert not search(inst).feasible
    assert decide(inst).status == "feasible"  # the relaxation: the witness replay would refuse it
    d = check_agrees(inst, False, sequenced=True)
    assert d.status == "infeasible"


def test_sequence_witness_is_the_bind_order():
    # drop the second group's pin: a b b a b works (and only orders like it)
    inst = two_constraints()
    inst.groups[1].volume_pin = None
    inst.nodes[0].pods = 2
    d = check_agrees(inst, True, sequenced=True)
    steps = sequence_nodes(d)
    assert len(steps) == 5 and replay(inst, steps) is None
    assert replay(inst, sorted(steps, key=lambda s: s[1], reverse=True)) is not None  # zone b first fails


def test_sequence_affinity_prefix():
    # the carrier must come after its supporter in the same zone; the first-pod rule for a self-matcher
    nodes = [Node("n1", "a"), Node("n2", "b")]
    web = GroupSpec(1, {"app": "web"}, volume_pin=frozenset({"n2"}))
    s = GroupSpec(2, APP, affinity=[Term.of(ZONE, {"app": "web"})])
    d = check_agrees(Instance(nodes, [s, web]), True, sequenced=True)
    assert d.res.sequence[0][0] == 1  # web binds first
    seeded = GroupSpec(2, APP, affinity=[Term.of(HOST, APP)], host_ports=True)
    check_agrees(Instance(nodes, [seeded]), False, sequenced=True)


def test_sequence_guard_and_steps():
    inst = Instance([Node("n1", "a"), Node("n2", "b")], [GroupSpec(2, APP), GroupSpec(1, {"app": "w"})])
    b = build(to_problem(inst).problem)
    s = add_sequence(b)
    assert len(s) == 3 * 2 * 2  # steps x groups x classes
    assert [g.kind for g in b.guards].count("sequence") == 1
    res = solve(b, OPTS)
    assert len(res.sequence) == 3
    assert sorted(g for g, _ in res.sequence) == [0, 0, 1]


@PROPS
@given(instances(max_groups=3))
def test_sequenced_model_is_exact(inst):
    """Several groups, every kind of constraint, one node per class: the sequenced model decides
    exactly, and its steps replay."""
    check_agrees(inst, sequenced=True)
