"""models/noderesources.py: NodeResourcesFit (cpu, memory, pod count; existing usage) and NodePorts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from .bruteforce import GroupSpec, Instance, Node, PodMeta
from .strategies import instances
from .support import check_agrees

APP = {"app": "s"}
WEB = {"app": "web"}
PROPS = settings(max_examples=50, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("count, ok", [(3, True), (4, False)])
def test_cpu_with_existing_usage(count, ok):
    node = Node("n1", "a", cpu=4, existing=[PodMeta.of(cpu=1)])
    d = check_agrees(Instance([node], [GroupSpec(count, APP, cpu=1)]), ok)
    if not ok:
        assert ("capacity", "a") in {d.tr.fact_of(g) for g in d.res.core}


@pytest.mark.parametrize("count, ok", [(2, True), (3, False)])
def test_memory(count, ok):
    node = Node("n1", "a", memory=10, existing=[PodMeta.of(memory=3)])
    check_agrees(Instance([node], [GroupSpec(count, APP, memory=3)]), ok)


@pytest.mark.parametrize("count, ok", [(1, True), (2, False)])
def test_pod_count_with_existing_pods(count, ok):
    node = Node("n1", "a", pods=3, existing=[PodMeta.of(), PodMeta.of()])
    check_agrees(Instance([node], [GroupSpec(count, APP)]), ok)


def test_the_scarcest_resource_binds():
    node = Node("n1", "a", cpu=10, memory=4, pods=5)
    check_agrees(Instance([node], [GroupSpec(2, APP, cpu=1, memory=2)]), True)
    check_agrees(Instance([node], [GroupSpec(3, APP, cpu=1, memory=2)]), False)


def test_groups_share_a_node():
    # 2 + 1 cpu fit in 3; a second web pod does not
    node = [Node("n1", "a", cpu=3)]
    check_agrees(Instance(node, [GroupSpec(1, APP, cpu=2), GroupSpec(1, WEB, cpu=1)]), True, sequenced=True)
    check_agrees(Instance(node, [GroupSpec(1, APP, cpu=2), GroupSpec(2, WEB, cpu=1)]), False)
    # and share the pod slots
    node = [Node("n1", "a", pods=3, existing=[PodMeta.of()])]
    check_agrees(Instance(node, [GroupSpec(1, APP), GroupSpec(1, WEB)]), True, sequenced=True)
    check_agrees(Instance(node, [GroupSpec(2, APP), GroupSpec(1, WEB)]), False)


def test_capacity_across_nodes_and_zones():
    nodes = [Node("n1", "a", cpu=2), Node("n2", "b", cpu=1)]
    check_agrees(Instance(nodes, [GroupSpec(3, APP, cpu=1)]), True)
    d = check_agrees(Instance(nodes, [GroupSpec(4, APP, cpu=1)]), False)
    assert {("capacity", "a"), ("capacity", "b")} <= {d.tr.fact_of(g) for g in d.res.core}


def test_aggregated_class_capacity():
    nodes = [Node(f"n{j}", "a", cpu=3, existing=[PodMeta.of(cpu=1)]) for j in range(3)]
    for count, ok in ((6, True), (7, False)):
        check_agrees(Instance(nodes, [GroupSpec(count, APP, cpu=1)]), ok, aggregate=True)


@pytest.mark.parametrize("count, ok", [(2, True), (3, False)])
def test_host_ports_one_per_node(count, ok):
    nodes = [Node("n1", "a"), Node("n2", "a")]
    check_agrees(Instance(nodes, [GroupSpec(count, APP, host_ports=True)]), ok)
    check_agrees(Instance(nodes, [GroupSpec(count, APP, host_ports=True)]), ok, aggregate=True)


@PROPS
@given(instances(max_groups=3, spread=False, anti=False, affinity=False))
def test_capacity_is_exact_on_one_node_classes(inst):
    """Capacity is order-free: with one node per class the model is exact, several groups too."""
    check_agrees(inst)
