"""models/podtopologyspread.py: DoNotSchedule spread, checked against the brute force.

Upstream filtering.go admits a pod into domain d when
'existing matching num' + 'self-match' - 'global minimum' <= 'maxSkew', the minimum taken over the
domains of eligible nodes (0 when there are fewer than minDomains of them).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from models import build
from models.solve import solve

from .bruteforce import HOST, ZONE, GroupSpec, Instance, Node, PodMeta, SpreadC, to_problem
from .strategies import instances
from .support import OPTS, check_agrees

APP = {"app": "s"}
OTHER = {"app": "other"}
PROPS = settings(max_examples=50, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


def zones(*spec: str, **kw) -> list[Node]:
    """One node per zone letter: zones("a", "b") -> n-a, n-b (a repeated letter: n-a, n-a2, ...)."""
    out: list[Node] = []
    for z in spec:
        k = sum(1 for n in out if n.zone == z)
        out.append(Node(f"n-{z}{k + 1 if k else ''}", z, **kw))
    return out


def pods(k: int, labels=APP) -> list[PodMeta]:
    return [PodMeta.of(labels) for _ in range(k)]


def spread(key=ZONE, skew=1, min_domains=1, match=APP) -> SpreadC:
    return SpreadC.of(key, skew, match, min_domains)


# ---- maxSkew over zones


@pytest.mark.parametrize("count, ok", [(3, True), (4, True), (5, True)])
def test_zone_max_skew_fills_evenly(count, ok):
    inst = Instance(zones("a", "b", "c"), [GroupSpec(count, APP, spreads=[spread()])])
    d = check_agrees(inst, ok)
    per_zone = sorted(d.res.x[0, c] for c in range(3))
    assert per_zone[-1] - per_zone[0] <= 1


@pytest.mark.parametrize("skew, ok", [(1, False), (2, True)])
def test_zone_max_skew_with_a_pin(skew, ok):
    # every pod pinned (VolumeBinding) to zone a, zone b empty: the second pod makes skew 2
    inst = Instance(zones("a", "b"), [GroupSpec(2, APP, volume_pin=frozenset({"n-a"}), spreads=[spread(skew=skew)])])
    check_agrees(inst, ok)


def test_seed_001_zone_a_full_zone_c_empty():
    # zone-a holds search-0, zone-b search-1, zone-c nothing; search-2 pinned to zone-a
    nodes = [Node("n-a", "a", existing=pods(1)), Node("n-b", "b", existing=pods(1)), Node("n-c", "c")]
    pinned = GroupSpec(1, APP, volume_pin=frozenset({"n-a"}), spreads=[spread()])
    d = check_agrees(Instance(nodes, [pinned]), False)
    assert {d.tr.fact_of(g) for g in d.res.core} >= {("place", 0), ("spread", 0), ("static", 0, "VolumeBinding")}
    # with search-3 (unpinned) it works: search-3 goes to zone-c first
    check_agrees(Instance(nodes, [pinned, GroupSpec(1, APP, spreads=[spread()])]), True, sequenced=True)


# ---- maxSkew over hostnames


@pytest.mark.parametrize("count, ok", [(3, True), (6, True)])
def test_hostname_max_skew(count, ok):
    inst = Instance(zones("a", "a", "b"), [GroupSpec(count, APP, spreads=[spread(HOST)])])
    check_agrees(inst, ok)


def test_hostname_existing_pods_counted():
    nodes = [Node("n1", "a", existing=pods(2)), Node("n2", "a"), Node("n3", "b")]
    # one new pod pinned to n1: 2 + 1 - 0 > 1
    check_agrees(Instance(nodes, [GroupSpec(1, APP, volume_pin=frozenset({"n1"}), spreads=[spread(HOST)])]), False)
    # maxSkew 3 admits it
    check_agrees(Instance(nodes, [GroupSpec(1, APP, volume_pin=frozenset({"n1"}), spreads=[spread(HOST, skew=3)])]), True)
    # three new pods to anywhere: n2, n3 first, then n1 is still too high (2 + 1 - 1 > 1) so n2/n3 again
    check_agrees(Instance(nodes, [GroupSpec(4, APP, spreads=[spread(HOST)])]), True)


def test_hostname_aggregated_class_matches_the_nodes():
    # three identical nodes form one class; pods spread evenly inside it
    nodes = [Node("n1", "a"), Node("n2", "a"), Node("n3", "a"), Node("n4", "b", existing=pods(1))]
    for count in range(1, 6):
        inst = Instance(nodes, [GroupSpec(count, APP, spreads=[spread(HOST)])])
        assert max(c.size for c in to_problem(inst, aggregate=True).problem.classes) == 3
        check_agrees(inst, aggregate=True)
    pinned = GroupSpec(3, APP, volume_pin=frozenset({"n1", "n2", "n3"}), spreads=[spread(HOST)])
    check_agrees(Instance(nodes, [pinned]), True, aggregate=True)  # n4 holds 1: each of n1..n3 gets 1
    pinned = GroupSpec(4, APP, volume_pin=frozenset({"n1", "n2", "n3"}), spreads=[spread(HOST)])
    check_agrees(Instance(nodes, [pinned]), True, aggregate=True)  # 2 + 1 - 1 on the fourth
    pinned = GroupSpec(5, APP, volume_pin=frozenset({"n1", "n2", "n3"}), spreads=[spread(HOST)])
    check_agrees(Instance(nodes, [pinned]), True, aggregate=True)


# ---- minDomains


@pytest.mark.parametrize(
    "min_domains, count, ok",
    [
        (1, 4, True),  # 2 + 2
        (2, 4, True),
        (3, 2, True),  # fewer domains than minDomains: the global minimum is 0, one pod per zone
        (3, 3, False),
    ],
)
def test_min_domains_zones(min_domains, count, ok):
    inst = Instance(zones("a", "b"), [GroupSpec(count, APP, spreads=[spread(min_domains=min_domains)])])
    check_agrees(inst, ok)


@pytest.mark.parametrize("min_domains, ok", [(3, True), (4, False)])
def test_min_domains_hostnames(min_domains, ok):
    # 3 nodes, 7 pods, maxSkew 2: 3 + 2 + 2 is fine while the minimum is real; with minDomains 4
    # (more than the 3 nodes) the minimum is 0, each node takes at most 2, and 6 < 7
    inst = Instance(zones("a", "a", "b"), [GroupSpec(7, APP, spreads=[spread(HOST, skew=2, min_domains=min_domains)])])
    check_agrees(inst, ok)


# ---- which pods are counted


def test_existing_pods_counted_only_when_they_match_in_the_namespace():
    def nodes(labels, ns="default"):
        return [Node("n-a", "a", existing=[PodMeta.of(labels, ns)] * 2), Node("n-b", "b")]

    pinned = GroupSpec(1, APP, volume_pin=frozenset({"n-a"}), spreads=[spread()])
    check_agrees(Instance(nodes(APP), [pinned]), False)  # 2 + 1 - 0 > 1
    check_agrees(Instance(nodes(OTHER), [pinned]), True)  # other labels: not counted
    check_agrees(Instance(nodes(APP, "elsewhere"), [pinned]), True)  # other namespace: not counted


def test_non_self_matching_carrier_sees_existing_counts():
    # the pod's own labels do not match its selector (self-match 0): 3 + 0 - 0 > 1 in zone a
    nodes = [Node("n-a", "a", existing=pods(3)), Node("n-b", "b")]
    carrier = GroupSpec(2, OTHER, volume_pin=frozenset({"n-a"}), spreads=[spread()])
    check_agrees(Instance(nodes, [carrier]), False)
    free = GroupSpec(2, OTHER, spreads=[spread()])
    d = check_agrees(Instance(nodes, [free]), True)
    assert d.res.x[0, 1] == 2  # both in zone b, which it does not raise


# ---- node inclusion: only eligible nodes are domains


def test_ineligible_nodes_are_not_domains():
    # zone c's node is outside the pods' node affinity (nodeAffinityPolicy Honor): it is no domain,
    # so the global minimum is taken over zones a and b only
    nodes = zones("a", "b", "c")
    aff = frozenset({"n-a", "n-b"})
    check_agrees(Instance(nodes, [GroupSpec(4, APP, node_affinity=aff, spreads=[spread()])]), True)
    # the same nodes excluded by a volume pin instead: node affinity does not exclude zone c, so it
    # is a domain with 0 pods and the minimum stays 0
    check_agrees(Instance(nodes, [GroupSpec(4, APP, volume_pin=aff, spreads=[spread()])]), False)


def test_pods_on_ineligible_nodes_are_not_counted():
    # another workload's matching pods land on zone c's node, which the carrier's node affinity
    # leaves out: they count nowhere, and do not lift zone a
    nodes = [Node("n-a1", "a"), Node("n-a2", "a"), Node("n-b", "b")]
    carrier = GroupSpec(2, APP, node_affinity=frozenset({"n-a1", "n-b"}), spreads=[spread()])
    other = GroupSpec(3, APP, volume_pin=frozenset({"n-a2"}))
    d = check_agrees(Instance(nodes, [carrier, other]), True, sequenced=True)
    assert d.tr.problem.spreads[0].eligible == [0, 2]


def test_nodes_without_the_zone_label():
    # a node without the topology key is no domain, and the carrier may not use it
    nodes = [Node("n-a", "a"), Node("n-b", "b"), Node("bare", None)]
    d = check_agrees(Instance(nodes, [GroupSpec(4, APP, spreads=[spread()])]), True)
    assert d.res.x[0, 2] == 0


# ---- the global minimum


def test_skew_is_against_the_global_minimum():
    nodes = [Node("n-a", "a", existing=pods(3)), Node("n-b", "b", existing=pods(1)), Node("n-c", "c", existing=pods(1))]
    # into b: 1 + 1 - 1 = 1 (the minimum is c's 1, not b's own count)
    check_agrees(Instance(nodes, [GroupSpec(1, APP, volume_pin=frozenset({"n-b"}), spreads=[spread()])]), True)
    # into a: 3 + 1 - 1 = 3
    check_agrees(Instance(nodes, [GroupSpec(1, APP, volume_pin=frozenset({"n-a"}), spreads=[spread()])]), False)
    # two pods into b: the second sees b at 2 while c stays at 1
    check_agrees(Instance(nodes, [GroupSpec(2, APP, volume_pin=frozenset({"n-b"}), spreads=[spread()])]), False)


def test_minimum_read_back():
    nodes = [Node("n-a", "a", existing=pods(2)), Node("n-b", "b")]
    inst = Instance(nodes, [GroupSpec(3, APP, spreads=[spread()])])
    d = check_agrees(inst, True)
    assert d.res.values[("spread_count", 0, "a")] == 2 + d.res.x[0, 0]
    assert d.res.values[("spread_count", 0, "b")] == d.res.x[0, 1]
    assert d.res.values[("spread_min", 0)] == min(2 + d.res.x[0, 0], d.res.x[0, 1])


# ---- ordered mode (StatefulSet OrderedReady): prefix counts


def test_ordered_prefix_counts():
    a, b = frozenset({"n-a"}), frozenset({"n-b"})
    order = [GroupSpec(1, APP, volume_pin=p, spreads=[spread()]) for p in (a, a, b)]
    # any order works (b, a, a), but in this order the second pod makes a:2 b:0
    check_agrees(Instance(zones("a", "b"), order), True, sequenced=True)
    check_agrees(Instance(zones("a", "b"), order, ordered=True), False)
    check_agrees(Instance(zones("a", "b"), [order[0], order[2], order[1]], ordered=True), True)


def test_ordered_hostname_prefix_counts():
    one, two = frozenset({"n1"}), frozenset({"n2"})
    order = [GroupSpec(1, APP, volume_pin=p, spreads=[spread(HOST)]) for p in (one, one, two)]
    check_agrees(Instance([Node("n1", "a"), Node("n2", "b")], order, ordered=True), False)
    order = [GroupSpec(1, APP, volume_pin=p, spreads=[spread(HOST)]) for p in (one, two, one)]
    inst = Instance([Node("n1", "a"), Node("n2", "b")], order, ordered=True)
    check_agrees(inst, True)


def test_ordered_min_domains():
    order = [GroupSpec(1, APP, spreads=[spread(min_domains=3)]) for _ in range(3)]
    check_agrees(Instance(zones("a", "b"), order[:2], ordered=True), True)
    check_agrees(Instance(zones("a", "b"), order, ordered=True), False)


def test_builder_never_solves():
    inst = Instance(zones("a", "b"), [GroupSpec(2, APP, spreads=[spread()])])
    b = build(to_problem(inst).problem)
    assert [g.kind for g in b.guards].count("spread") == 1
    assert solve(b, OPTS).status == "feasible"


# ---- properties


@PROPS
@given(instances(max_groups=1, anti=False, affinity=False))
def test_one_group_spread_is_exact(inst):
    """One group: the final-state condition is necessary and sufficient (docs/semantics.md)."""
    check_agrees(inst)


@PROPS
@given(instances(max_groups=1, anti=False, affinity=False, pins=False, existing=False))
def test_one_group_spread_is_exact_on_aggregated_classes(inst):
    check_agrees(inst, aggregate=True)


@PROPS
@given(instances(ordered=True, anti=False, affinity=False))
def test_ordered_spread_is_exact(inst):
    check_agrees(inst)
