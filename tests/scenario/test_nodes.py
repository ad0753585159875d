"""zones and nodePools -> Node objects (planner/scenario/nodes.py)."""

from __future__ import annotations

from planner.scenario import MAX_NODES
from tests.scenario.common import ZONES, by_name, errors_of, expand, of_kind, scenario


def test_nodes_per_zone_names_labels_and_resources() -> None:
    objs = expand(scenario(region="eu-west-1", zones=ZONES, nodePools=[{"name": "general", "count": 2, "capacity": {"cpu": 8, "memory": "32Gi"}}]))
    nodes = of_kind(objs, "Node")
    assert [n["metadata"]["name"] for n in nodes] == [f"general-{z}-{i}" for z in ZONES for i in range(2)]
    n = nodes[2]
    labels = n["metadata"]["labels"]
    assert labels["kubernetes.io/hostname"] == "general-zone-b-0"
    assert labels["topology.kubernetes.io/zone"] == "zone-b"
    assert labels["topology.kubernetes.io/region"] == "eu-west-1"
    assert n["status"]["capacity"] == {"cpu": "8", "memory": "32Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    assert n["status"]["allocatable"] == n["status"]["capacity"]
    assert n["apiVersion"] == "v1" and n["metadata"]["uid"] and n["metadata"]["creationTimestamp"].endswith("Z")


def test_uneven_pools_explicit_names_allocatable_taints_and_cordon() -> None:
    objs = expand(scenario(zones=ZONES, nodePools=[
        {"name": "default", "zones": {"zone-a": 2, "zone-c": 1}},
        {"name": "gpu", "zones": ["zone-b"], "count": 1, "labels": {"workload": "gpu"},
         "taints": [{"key": "workload", "value": "gpu", "effect": "NoSchedule"}],
         "allocatable": {"cpu": "3900m"}},
        {"name": "old", "zones": {"zone-c": 2}, "names": ["legacy-1", "legacy-2"], "unschedulable": True},
    ]))
    nodes = by_name(objs, "Node")
    assert list(nodes) == ["default-zone-a-0", "default-zone-a-1", "default-zone-c-0", "gpu-zone-b-0", "legacy-1", "legacy-2"]
    gpu = nodes["gpu-zone-b-0"]
    assert gpu["spec"]["taints"] == [{"effect": "NoSchedule", "key": "workload", "value": "gpu"}]
    assert gpu["metadata"]["labels"]["workload"] == "gpu"
    assert gpu["status"]["allocatable"]["cpu"] == "3900m" and gpu["status"]["capacity"]["cpu"] == "4"
    legacy = nodes["legacy-2"]
    assert legacy["spec"]["unschedulable"] is True
    assert [t["key"] for t in legacy["spec"]["taints"]] == ["node.kubernetes.io/unschedulable"]
    assert legacy["metadata"]["labels"]["kubernetes.io/hostname"] == "legacy-2"


def test_no_zones_gives_zoneless_nodes() -> None:
    objs = expand(scenario(nodePools=[{"name": "dev", "count": 2}]))
    nodes = of_kind(objs, "Node")
    assert [n["metadata"]["name"] for n in nodes] == ["dev-0", "dev-1"]
    assert "topology.kubernetes.io/zone" not in nodes[0]["metadata"]["labels"]
    assert "topology.kubernetes.io/region" not in nodes[0]["metadata"]["labels"]


def test_huge_pool_is_an_error_not_an_allocation() -> None:
    doc = scenario(zones=ZONES, nodePools=[{"name": "big", "count": 10**9}])
    assert errors_of(doc) == ["Scenario t: nodePools[0].count: Invalid value: 1000000000: must be less than or equal to 10000"]


def test_total_nodes_are_bounded() -> None:
    doc = scenario(zones=ZONES, nodePools=[{"name": "a", "count": 4000}, {"name": "b", "count": 1}])
    assert errors_of(doc) == [f"Scenario t: nodePools: Too many: 12003: must have at most {MAX_NODES} items"]


def test_negative_count_message() -> None:
    doc = scenario(metadata={"name": "hpa-scale-up-retained-volume"}, zones=ZONES, nodePools=[{"name": "general", "count": -1}])
    assert errors_of(doc) == ["Scenario hpa-scale-up-retained-volume: nodePools[0].count: Invalid value: -1: must be greater than or equal to 0"]
