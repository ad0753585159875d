"""models/remediation.py: the action layer on hand-made problems, checked against brute force."""

from __future__ import annotations

import itertools
from typing import Any

from models.problem import AntiAffinity, Exclusion, Group, NodeClass, Problem, Spread
from models.remediation import (
    ActionProblem,
    NodeGroupOption,
    Option,
    Variant,
    World,
    build_actions,
    families,
    view,
    without_classes,
)
from models.solve import solve_actions

FIELDS = ("spread", "money", "labels", "order")


def _cls(i: int, zone: str, size: int = 1, cap: int = 1, pods: int = 110) -> NodeClass:
    return NodeClass(i, [f"{zone}-n{i}-{k}" for k in range(size)], zone, {"zone": zone}, [cap], {"pods": pods}, frozenset({"hostname"}))


def _zone_spread(classes: list[NodeClass], skew: int, existing: dict[str, int]) -> Spread:
    zones = sorted({c.zone for c in classes})
    return Spread(0, "zone", skew, 1, "app=web", "default", False, {0: 1}, [0], [c.index for c in classes], dict(existing), {}, zones, 0, "web spread")


def _one_pod_per_node(classes: list[NodeClass], count: int, spread: Spread | None) -> Problem:
    group = Group(0, [f"default/web-{i}" for i in range(count)], "statefulset/default/web", {"app": "web"}, {"cpu": 100})
    anti = [AntiAffinity(0, "hostname", True, 0, 0, "web anti")]
    return Problem(classes=classes, groups=[group], spreads=[spread] if spread else [], anti=anti)


def _brute_nodes(existing: dict[str, int], room: dict[str, int], new_zones: list[str], count: int, skew: int, limit: int) -> int | None:
    """The fewest new nodes (one pod each, per zone) that place ``count`` pods with zone skew <=
    ``skew``: every split of the pods over the zones, each zone's new pods at most its free room
    plus its new nodes (unordered placement: the last pod into each zone sees the final counts)."""
    zones = sorted(existing)
    best = None
    for split in itertools.product(range(count + 1), repeat=len(zones)):
        if sum(split) != count:
            continue
        final = {z: existing[z] + a for z, a in zip(zones, split)}
        lo = min(final.values())
        if any(a and final[z] > skew + lo for z, a in zip(zones, split)):
            continue
        need = 0
        for z, a in zip(zones, split):
            extra = max(0, a - room[z])
            if extra and z not in new_zones:
                need = None
                break
            if extra > limit:
                need = None
                break
            need += extra
        if need is not None and (best is None or need < best):
            best = need
    return best


def _node_problem(existing: dict[str, int], room: dict[str, int], count: int, skew: int, limit: int) -> tuple[ActionProblem, list[str]]:
    classes = []
    for z in sorted(existing):
        classes.append(_cls(len(classes), z, cap=0))  # a full node: the zone is a domain
        if room[z]:
            classes.append(_cls(len(classes), z, size=room[z]))
    groups = []
    for z in sorted(existing):
        classes.append(_cls(len(classes), z, size=limit))
        groups.append(NodeGroupOption(f"group-{z}", (0, 1, 0, 0), (0, 0, 0, len(groups)), limit, {"stay": len(classes) - 1}))
    p = _one_pod_per_node(classes, count, _zone_spread(classes, skew, existing))
    return ActionProblem([World("stay", p)], [], groups, FIELDS), sorted(existing)


def test_node_groups_cheapest_count_against_brute_force():
    """The optimum adds the fewest nodes, each zone's new nodes the class of its group (sized by
    the count), whatever the skew and the room already there."""
    cases = [
        ({"a": 3, "b": 1, "c": 1}, {"a": 0, "b": 1, "c": 2}, 4, 1),
        ({"a": 0, "b": 0, "c": 0}, {"a": 2, "b": 0, "c": 1}, 6, 1),
        ({"a": 2, "b": 0}, {"a": 0, "b": 1}, 5, 2),
        ({"a": 1, "b": 1, "c": 0}, {"a": 1, "b": 1, "c": 1}, 3, 1),
    ]
    for existing, room, count, skew in cases:
        ap, zones = _node_problem(existing, room, count, skew, limit=count)
        am = build_actions(ap)
        res = solve_actions(am)
        want = _brute_nodes(existing, room, zones, count, skew, count)
        assert res.status == "optimal", (existing, room)
        assert sum(res.chosen.values()) == want, (existing, room, res.chosen)


def test_a_group_that_cannot_help_is_proven_so():
    """Zone a full, b lagging: nodes in a never help (skew), only b's do; at_most() proves it."""
    ap, _ = _node_problem({"a": 3, "b": 0}, {"a": 0, "b": 0}, 3, 1, limit=3)
    am = build_actions(ap)
    assert solve_actions(am, assumptions=am.at_most({"group-a": 3})).status == "infeasible"
    res = solve_actions(am)
    assert res.chosen == {"group-b": 3}


def test_a_new_zone_counts_only_once_it_has_a_node():
    """A zone that only new nodes make is a spread domain only while one exists: with it absent the
    minimum is over the zones there are (PreFilter lists the domains of the nodes it sees)."""
    classes = [_cls(0, "a", size=2), _cls(1, "b", size=2), _cls(2, "c", size=4)]
    p = _one_pod_per_node(classes, 4, _zone_spread(classes, 1, {"a": 0, "b": 0, "c": 0}))
    group = NodeGroupOption("group-c", (0, 1, 0, 0), (0, 0, 0, 0), 4, {"stay": 2})
    am = build_actions(ActionProblem([World("stay", p)], [], [group], FIELDS))
    res = solve_actions(am)
    assert res.status == "optimal" and res.chosen == {}  # a and b take 2 each; c is no domain
    # with one node in c (forced), c's domain exists: 4 pods over a, b, c need skew <= 1: 2, 1, 1
    res = solve_actions(am, assumptions=[am.some["group-c"]])
    assert res.status == "optimal" and res.chosen == {"group-c": 1}


def test_variant_replaces_the_families_it_changes():
    """A template change is a variant: its changed spread holds only while chosen, the world's only
    while not; two options that change the same family are never combined."""
    classes = [_cls(0, "a", size=3), _cls(1, "b", size=0 or 1)]
    base = _one_pod_per_node(classes, 4, _zone_spread(classes, 1, {"a": 0, "b": 0}))
    skew3 = view(base, [0])
    skew3.spreads[0].max_skew = 3
    soft = view(base, [0])
    soft.spreads = []
    options = [Option("skew3", (1, 0, 1, 0), "spread", "roll"), Option("soft", (2, 0, 1, 1), "spread", "roll")]
    world = World("roll", base, [Variant("skew3", skew3), Variant("soft", soft)])
    am = build_actions(ActionProblem([World("stay", base), world], options, [], FIELDS))
    res = solve_actions(am)
    assert res.chosen == {"skew3": 1}  # a takes 3, b 1: skew 2 > 1, but <= 3
    assert solve_actions(am, assumptions=am.only({})).status == "infeasible"
    am.block_supersets(res.chosen)
    assert solve_actions(am).chosen == {"soft": 1}
    assert {k[0] for k in families(base)} >= {"spread", "anti", "capacity"}


def test_blocking_and_only():
    ap, _ = _node_problem({"a": 0, "b": 0}, {"a": 1, "b": 0}, 3, 1, limit=3)
    am = build_actions(ap)
    first = solve_actions(am)
    # two plans of one cost (two nodes, one group's action each way): which comes first is the
    # solver's choice (OR-Tools versions differ); blocking it gives the other at the same cost
    tied = [{"group-b": 2}, {"group-a": 1, "group-b": 1}]
    assert first.chosen in tied and first.status == "optimal"
    am.block_exact(first.chosen)
    second = solve_actions(am)
    assert second.chosen in tied and second.chosen != first.chosen and second.status == "optimal"
    assert second.objective == first.objective
    am.block_supersets(second.chosen)
    third = solve_actions(am)
    assert third.status == "infeasible" or not set(second.chosen) <= set(third.chosen)


def test_without_classes_renumbers_every_reference():
    classes = [_cls(0, "a"), _cls(1, "b"), _cls(2, "c")]
    p = _one_pod_per_node(classes, 2, _zone_spread(classes, 1, {"a": 0, "b": 0, "c": 0}))
    p.groups[0].exclusions.append(Exclusion("TaintToleration", "taint", [0, 2]))
    q = without_classes(p, {1})
    assert [c.zone for c in q.classes] == ["a", "c"] and [c.index for c in q.classes] == [0, 1]
    assert q.groups[0].exclusions[0].classes == [0, 1] and q.spreads[0].eligible == [0, 1]


def _two_worlds() -> tuple[Any, Any]:
    """Two identical action models of two worlds: nodes (money) in the world of the pods kept,
    a skew relaxation (spread weakened: costlier than any node) in the world of template changes."""
    made = []
    for _ in range(2):
        ap, _ = _node_problem({"a": 0, "b": 0}, {"a": 1, "b": 0}, 3, 1, limit=3)
        base = ap.worlds[0].problem
        skew3 = view(base, [0])
        skew3.spreads[0].max_skew = 3
        for ng in ap.node_groups:
            ng.classes["roll"] = ng.classes["stay"]
        ap.worlds.append(World("roll", base, [Variant("skew3", skew3)]))
        ap.options.append(Option("skew3", (1, 0, 1, 0), "spread", "roll"))
        made.append(build_actions(ap))
    return made[0], made[1]


def test_world_bounds_skip_only_solves_whose_answer_is_known():
    """A world is skipped once earlier solves proved it holds nothing cheaper than the plan found
    before it (ActionModel.bounds): every answer is the one of the same model solved world by
    world without the bounds, blocked the same way, and some world was skipped."""
    am, plain = _two_worlds()
    skipped = 0
    for step in range(6):
        plain.bounds.clear()
        res, want = solve_actions(am), solve_actions(plain)
        assert (res.status, res.objective, res.chosen) == (want.status, want.objective, want.chosen), step
        skipped += sum(r.reason == "known without a solve" for r in res.runs)
        assert not any(r.reason == "known without a solve" for r in want.runs)
        if res.status != "optimal":
            break
        # ties first (a plan alone), then the plan and every superset
        for m in (am, plain):
            (m.block_exact if step % 2 == 0 else m.block_supersets)(res.chosen)
    assert skipped


def test_possible_worlds_against_the_solver():
    """The worlds possible_worlds rules out under a plan's assumptions (ActionModel.only) are the
    ones the solver proves infeasible under them, for every plan of options and node counts."""
    from models.solve import SolveOptions, _solve_actions_once

    am, _ = _two_worlds()
    for skew, a, b in itertools.product((0, 1), range(3), range(3)):
        chosen = {"skew3": skew, "group-a": a, "group-b": b}
        assumptions = am.only(chosen)
        possible = am.possible_worlds(assumptions)
        assert possible == ({"roll"} if skew else {"stay"}), chosen
        for w in am.worlds:
            if w not in possible:
                assert _solve_actions_once(am, SolveOptions(), [*assumptions, am.worlds[w]]).status == "infeasible", (chosen, w)
        assert am.possible_worlds(at := am.at_most(chosen)) == ({"stay", "roll"} if skew else {"stay"}), at
    assert am.possible_worlds([]) == {"stay", "roll"}
    assert am.possible_worlds([am.worlds["roll"]]) == {"roll"}
    assert am.possible_worlds([am.worlds["stay"].negated()]) == {"roll"}


def test_a_solve_with_no_new_node_leaves_the_model_as_it_was():
    """ActionModel.only with no node added assumes each group's own "no new node" literal: a solve
    of an option alone (the remediation search may ask for one ahead of time, while the model's
    next optimum is still to come) adds no variable or constraint, so the optima after it are
    those of a search that never asked (with a count, ``==k`` literals are made, once each)."""
    ap, _ = _node_problem({"a": 0, "b": 0}, {"a": 1, "b": 0}, 3, 1, limit=3)
    am = build_actions(ap)
    proto = am.model.proto
    before = (len(proto.variables), len(proto.constraints))
    assert solve_actions(am, assumptions=am.only({})).status == "infeasible"
    assert (len(proto.variables), len(proto.constraints)) == before
    assert solve_actions(am, assumptions=am.only({"group-b": 2})).status == "optimal"
    assert (len(proto.variables), len(proto.constraints)) != before
