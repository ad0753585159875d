"""models/volumebinding.py (static PVs, one claim each) and volume pins (a bound claim's PV node
affinity, a static exclusion of models/placement.py), against the brute force."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .bruteforce import GroupSpec, Instance, Node
from .strategies import nodes
from .support import check_agrees

APP = {"app": "s"}
WEB = {"app": "web"}
PROPS = settings(max_examples=50, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


def cluster(n: int = 3) -> list[Node]:
    return [Node(f"n{j + 1}", "ab"[j % 2]) for j in range(n)]


# ---- pins: every pod its own group (StatefulSet pods with retained claims)


def test_each_pod_pinned_to_its_node():
    pins = [frozenset({"n1"}), frozenset({"n2"}), frozenset({"n1", "n3"})]
    d = check_agrees(Instance(cluster(), [GroupSpec(1, APP, volume_pin=p) for p in pins]), True, sequenced=True)
    assert d.res.x[0, 0] == 1 and d.res.x[1, 1] == 1
    # two pods pinned to the same full node
    full = [Node("n1", "a", pods=1), Node("n2", "b")]
    d = check_agrees(Instance(full, [GroupSpec(1, APP, volume_pin=frozenset({"n1"})) for _ in range(2)]), False)
    assert {f[0] for f in d.tr.facts(d.res.core)} >= {"place", "static", "capacity"}


def test_pinned_ordered_pods():
    pins = [frozenset({"n2"}), frozenset({"n1"})]
    check_agrees(Instance(cluster(2), [GroupSpec(1, APP, volume_pin=p) for p in pins], ordered=True), True)


# ---- static PVs: one claim each


@pytest.mark.parametrize("count, ok", [(2, True), (3, False)])
def test_each_pod_needs_its_own_pv(count, ok):
    # no provisioning anywhere; two PVs, one per node
    g = GroupSpec(count, APP, pvs={"pv1": frozenset({"n1"}), "pv2": frozenset({"n2"})})
    d = check_agrees(Instance(cluster(2), [g]), ok)
    if not ok:
        assert ("volumes",) in d.tr.facts(d.res.core)


def test_pv_serves_only_its_nodes():
    g = GroupSpec(2, APP, pvs={"pv1": frozenset({"n1"}), "pv2": frozenset({"n1"})})
    d = check_agrees(Instance(cluster(2), [g]), True)
    assert d.res.x[0, 0] == 2
    g = GroupSpec(2, APP, pvs={"pv1": frozenset({"n1"}), "pv2": frozenset({"n1"})}, volume_pin=frozenset({"n2"}))
    check_agrees(Instance(cluster(2), [g]), False)


def test_provisionable_nodes_need_no_pv():
    g = GroupSpec(3, APP, pvs={"pv1": frozenset({"n1"})}, provisionable=frozenset({"n2"}))
    d = check_agrees(Instance(cluster(2), [g]), True)
    assert d.res.x[0, 0] <= 1
    assert d.tr.problem.static_claims[0].options == {0: ["pv1"]}


def test_groups_compete_for_one_pv():
    pvs = {"pv1": frozenset({"n1", "n2"})}
    check_agrees(Instance(cluster(2), [GroupSpec(1, APP, pvs=pvs), GroupSpec(1, WEB, pvs=pvs)]), False)
    check_agrees(
        Instance(cluster(2), [GroupSpec(1, APP, pvs=pvs), GroupSpec(1, WEB, pvs=pvs, provisionable=frozenset({"n2"}))]),
        True,
        sequenced=True,
    )


@st.composite
def claim_instances(draw):
    ns = draw(nodes(existing=False))
    names = [n.name for n in ns]
    pv_nodes = st.frozensets(st.sampled_from(names), min_size=1, max_size=2)
    pool = {f"pv{k}": draw(pv_nodes) for k in range(draw(st.integers(0, 4)))}
    groups = []
    left = 5
    for gi in range(draw(st.integers(1, 3))):
        if left <= 0:
            break
        count = draw(st.integers(1, min(left, 3)))
        left -= count
        g = GroupSpec(count, {"app": f"g{gi}"})
        if draw(st.booleans()):
            g.volume_pin = draw(st.frozensets(st.sampled_from(names), min_size=1))
        if draw(st.integers(0, 3)):
            chosen = draw(st.frozensets(st.sampled_from(sorted(pool)), max_size=len(pool))) if pool else frozenset()
            g.pvs = {v: pool[v] for v in sorted(chosen)}
            g.provisionable = draw(st.frozensets(st.sampled_from(names), max_size=2))
        groups.append(g)
    return Instance(ns, groups)


@PROPS
@given(claim_instances())
def test_static_pvs_are_exact_on_one_node_classes(inst):
    """Matching claims to PVs is order-free: with one node per class the model is exact."""
    check_agrees(inst)
