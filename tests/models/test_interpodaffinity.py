"""models/interpodaffinity.py: required (anti-)affinity among the new pods, against the brute force.

Upstream filtering.go: a pod is rejected where a pod it repels (or that repels it) shares the
term's topology domain; a pod with a required affinity term needs a matching pod in its domain,
unless no pod in the cluster matches the term and the pod matches it itself (the first-pod rule).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from models.solve import minimise_core

from .bruteforce import HOST, ZONE, GroupSpec, Instance, Node, PodMeta, Term, search
from .strategies import instances
from .support import OPTS, check_agrees, decide

APP = {"app": "s"}
WEB = {"app": "web"}
PROPS = settings(max_examples=50, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


def cluster(*zones: str, pods: int = 110) -> list[Node]:
    return [Node(f"n{j + 1}", z, pods=pods) for j, z in enumerate(zones)]


# ---- anti-affinity


@pytest.mark.parametrize("count, ok", [(3, True), (4, False)])
def test_anti_hostname_one_per_node(count, ok):
    inst = Instance(cluster("a", "a", "b"), [GroupSpec(count, APP, anti=[Term.of(HOST, APP)])])
    d = check_agrees(inst, ok)
    if ok:
        assert all(v <= 1 for v in d.res.x.values())


@pytest.mark.parametrize("count, ok", [(2, True), (3, False)])
def test_anti_zone_one_per_zone(count, ok):
    # seed 003: required zone anti-affinity allows as many replicas as zones
    inst = Instance(cluster("a", "a", "b", "b"), [GroupSpec(count, APP, anti=[Term.of(ZONE, APP)])])
    check_agrees(inst, ok)


def test_anti_aggregated_class():
    nodes = cluster("a", "a", "a")
    for count, ok in ((3, True), (4, False)):
        check_agrees(Instance(nodes, [GroupSpec(count, APP, anti=[Term.of(HOST, APP)])]), ok, aggregate=True)


def test_anti_between_two_groups():
    # web repels app=s in its zone; app=s is pinned to zone a, so web must use zone b
    nodes = cluster("a", "b")
    s = GroupSpec(2, APP, volume_pin=frozenset({"n1"}))
    web = GroupSpec(2, WEB, anti=[Term.of(ZONE, APP)])
    d = check_agrees(Instance(nodes, [s, web]), True, sequenced=True)
    assert d.res.x[1, 1] == 2
    web_pinned = GroupSpec(1, WEB, volume_pin=frozenset({"n1"}), anti=[Term.of(ZONE, APP)])
    d = check_agrees(Instance(nodes, [s, web_pinned]), False)
    assert {d.tr.fact_of(g)[0] for g in d.res.core} >= {"anti"}


def test_anti_symmetry_the_other_pod_has_the_term():
    # only app=s carries the term, but web may still not join it on its node
    nodes = cluster("a", "a")
    s = GroupSpec(1, APP, volume_pin=frozenset({"n1"}), anti=[Term.of(HOST, WEB)])
    web = GroupSpec(2, WEB, cpu=1)
    check_agrees(Instance(nodes, [s, web]), True, sequenced=True)
    web_pinned = GroupSpec(1, WEB, volume_pin=frozenset({"n1"}))
    check_agrees(Instance(nodes, [s, web_pinned]), False)


def test_anti_namespaces():
    # same labels, other namespace: the term (own namespace) does not see it; listing it does
    nodes = cluster("a")
    s = GroupSpec(1, APP, anti=[Term.of(HOST, APP)])
    twin = GroupSpec(1, APP, namespace="other")
    check_agrees(Instance(nodes, [s, twin]), True, sequenced=True)
    s_all = GroupSpec(1, APP, anti=[Term.of(HOST, APP, namespaces=("default", "other"))])
    check_agrees(Instance(nodes, [s_all, twin]), False)


def test_anti_against_existing_pods_is_a_static_exclusion():
    nodes = [Node("n1", "a", existing=[PodMeta.of(APP)]), Node("n2", "a"), Node("n3", "b")]
    d = check_agrees(Instance(nodes, [GroupSpec(1, APP, anti=[Term.of(ZONE, APP)])]), True)
    assert d.res.x[0, 2] == 1
    d = check_agrees(Instance(nodes[:2], [GroupSpec(1, APP, anti=[Term.of(ZONE, APP)])]), False)
    assert ("static", 0, "InterPodAffinity") in {d.tr.fact_of(g) for g in d.res.core}


def test_anti_families_in_ordered_mode():
    # an OrderedReady StatefulSet: one group per pod, each repelling all the others per node
    pods = [GroupSpec(1, APP, anti=[Term.of(HOST, APP)]) for _ in range(3)]
    d = check_agrees(Instance(cluster("a", "b", "b"), pods, ordered=True), True)
    assert len(d.tr.problem.anti) == 6  # (0,0) (0,1) (0,2) (1,1) (1,2) (2,2)
    check_agrees(Instance(cluster("a", "b"), pods, ordered=True), False)


# ---- affinity


def test_affinity_with_existing_pods():
    nodes = [Node("n1", "a"), Node("n2", "b", existing=[PodMeta.of(WEB)])]
    d = check_agrees(Instance(nodes, [GroupSpec(2, APP, affinity=[Term.of(ZONE, WEB)])]), True)
    assert d.res.x[0, 1] == 2
    check_agrees(Instance(nodes, [GroupSpec(1, APP, volume_pin=frozenset({"n1"}), affinity=[Term.of(ZONE, WEB)])]), False)


def test_affinity_with_new_supporting_pods():
    # the supporter is pinned to zone a; the carrier (which does not match itself) follows it there
    nodes = cluster("a", "b")
    web = GroupSpec(1, WEB, volume_pin=frozenset({"n1"}))
    s = GroupSpec(2, APP, affinity=[Term.of(ZONE, WEB)])
    d = check_agrees(Instance(nodes, [web, s]), True, sequenced=True)
    assert d.res.x[1, 0] == 2
    d = check_agrees(Instance(nodes, [web, s]), True)
    s_b = GroupSpec(1, APP, volume_pin=frozenset({"n2"}), affinity=[Term.of(ZONE, WEB)])
    check_agrees(Instance(nodes, [web, s_b]), False)


def test_affinity_hostname_with_new_supporting_pods():
    nodes = cluster("a", "a")
    web = GroupSpec(1, WEB, volume_pin=frozenset({"n2"}))
    s = GroupSpec(2, APP, affinity=[Term.of(HOST, WEB)])
    d = check_agrees(Instance(nodes, [web, s]), True, sequenced=True)
    assert d.res.x[1, 1] == 2


def test_no_matching_pod_and_no_self_match_is_infeasible():
    check_agrees(Instance(cluster("a", "b"), [GroupSpec(1, APP, affinity=[Term.of(ZONE, WEB)])]), False)


@pytest.mark.parametrize("key", [ZONE, HOST])
def test_first_pod_rule(key):
    # no pod matches yet and the pod matches its own term: the first one may go anywhere, the others
    # must join it
    inst = Instance(cluster("a", "b"), [GroupSpec(3, APP, affinity=[Term.of(key, APP)])])
    d = check_agrees(inst, True)
    assert sorted(d.res.x.values()) == [0, 3]


@pytest.mark.parametrize("key", [ZONE, HOST])
def test_first_pod_rule_seeds_one_domain_only(key):
    # room for one pod per node: the second pod would need its own seed
    inst = Instance(cluster("a", "b", pods=1), [GroupSpec(2, APP, affinity=[Term.of(key, APP)])])
    check_agrees(inst, False)
    inst = Instance(cluster("a", "b", pods=2), [GroupSpec(2, APP, affinity=[Term.of(key, APP)])])
    check_agrees(inst, True)


def test_first_pod_rule_off_when_an_existing_pod_matches_anywhere():
    # a matching pod in zone b (where the carrier may not go) switches the first-pod rule off
    pinned = GroupSpec(1, APP, volume_pin=frozenset({"n1"}), affinity=[Term.of(ZONE, APP)])
    check_agrees(Instance([Node("n1", "a"), Node("n2", "b")], [pinned]), True)
    d = check_agrees(Instance([Node("n1", "a"), Node("n2", "b", existing=[PodMeta.of(APP)])], [pinned]), False)
    assert d.tr.problem.affinity[0].any_existing


def test_affinity_namespaces():
    # the matching existing pod lives in another namespace: the term counts it only when it lists it
    nodes = [Node("n1", "a"), Node("n2", "b", existing=[PodMeta.of(WEB, "other")])]
    own = GroupSpec(1, APP, affinity=[Term.of(ZONE, WEB)])
    check_agrees(Instance(nodes, [own]), False)
    listed = GroupSpec(1, APP, affinity=[Term.of(ZONE, WEB, namespaces=("other",))])
    d = check_agrees(Instance(nodes, [listed]), True)
    assert d.res.x[0, 1] == 1
    # and a self-matching term over another namespace: the existing pod there turns the first-pod rule off
    nodes = [Node("n1", "a"), Node("n2", "b", existing=[PodMeta.of(APP, "other")])]
    self_term = GroupSpec(1, APP, volume_pin=frozenset({"n1"}), affinity=[Term.of(ZONE, APP, namespaces=("default", "other"))])
    check_agrees(Instance(nodes, [self_term]), False)
    self_term = GroupSpec(1, APP, volume_pin=frozenset({"n1"}), affinity=[Term.of(ZONE, APP)])
    check_agrees(Instance(nodes, [self_term]), True)


def test_ordered_affinity_needs_the_supporter_first():
    nodes = cluster("a", "b")
    s = GroupSpec(1, APP, affinity=[Term.of(ZONE, WEB)])
    web = GroupSpec(1, WEB)
    check_agrees(Instance(nodes, [web, s], ordered=True), True)
    check_agrees(Instance(nodes, [s, web], ordered=True), False)
    check_agrees(Instance(nodes, [s, web]), True, sequenced=True)  # unordered: web goes first


def test_ordered_first_pod_rule():
    pods = [GroupSpec(1, APP, affinity=[Term.of(HOST, APP)]) for _ in range(3)]
    check_agrees(Instance(cluster("a", "b", pods=3), pods, ordered=True), True)
    check_agrees(Instance(cluster("a", "b", pods=2), pods, ordered=True), False)


# ---- properties


@PROPS
@given(instances(max_groups=1, spread=False, affinity=False))
def test_one_group_anti_affinity_is_exact(inst):
    check_agrees(inst)


@PROPS
@given(instances(max_groups=3, spread=False))
def test_unschedulable_is_a_proof(inst):
    """Unordered, several groups: the model's conditions are necessary, so "infeasible" must be
    confirmed by the brute force (a "feasible" may be a relaxation: the witness replay decides)."""
    d = decide(inst)
    assert d.status in ("feasible", "infeasible")
    if d.status == "infeasible":
        assert not search(inst, d.tr).feasible


@pytest.mark.slow
@PROPS
@given(instances(ordered=True, spread=False))
def test_ordered_affinity_is_exact(inst):
    check_agrees(inst)


@PROPS
@given(instances(max_groups=1, spread=False, pins=False, existing=False))
def test_aggregated_affinity_unschedulable_is_a_proof(inst):
    """Per-node terms over classes of identical nodes: the model counts nodes used per class, a
    necessary condition only.  (It can say feasible where the brute force cannot bind the pods: two
    pods with a host port and a self-matching hostname affinity term on two identical nodes; the
    witness replay is what refuses that placement.)"""
    d = decide(inst, aggregate=True)
    if d.status == "infeasible":
        assert not search(inst, d.tr).feasible


def test_nodes_used_leaves_the_room_per_node_to_the_capacity_guard():
    """u[g, c] >= x[g, c] / cap[g] (nodes used by a group's pods) is capacity: it sits under the
    capacity guard.  Outside it, 2 self-affine pods on one node with room for 1 gave the minimised
    core {place, static[VolumeBinding]} (n2 is out of reach), which alone is feasible: both on n1."""
    inst = Instance(cluster("a", "b", pods=1), [GroupSpec(2, APP, volume_pin=frozenset({"n1"}), affinity=[Term.of(HOST, APP)])])
    d = check_agrees(inst, False)
    core = minimise_core(d.built, d.res.core, OPTS)
    assert not search(inst, d.tr, enabled=d.tr.facts(core)).feasible
    assert d.tr.facts(core) == {("place", 0), ("static", 0, "VolumeBinding"), ("capacity", "a")}
