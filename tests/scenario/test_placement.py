"""zone placement: the admitting node with the fewest pods (planner/scenario/placement.py)."""

from __future__ import annotations

from tests.scenario.common import ZONES, deploy, errors_of, expand, of_kind, scenario


def test_zone_placement_round_robins_over_admitting_nodes() -> None:
    doc = scenario(
        zones=ZONES,
        nodePools=[
            {"name": "tainted", "count": 2, "taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]},
            {"name": "plain", "count": 3},
            {"name": "cordoned", "count": 1, "unschedulable": True},
        ],
        objects=[deploy("web", 7)],
        pods=[{"workload": "deployment/web", "count": 7, "zone": "zone-b"}],
    )
    nodes = [p["spec"]["nodeName"] for p in of_kind(expand(doc), "Pod")]
    assert nodes == ["plain-zone-b-0", "plain-zone-b-1", "plain-zone-b-2"] * 2 + ["plain-zone-b-0"]


def test_zone_placement_honours_tolerations_and_node_affinity() -> None:
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "os", "operator": "In", "values": ["windows"]}]}]}}}
    doc = scenario(
        zones=ZONES,
        nodePools=[
            {"name": "linux", "count": 1},
            {"name": "win", "zones": ["zone-a"], "labels": {"os": "windows"}, "taints": [{"key": "os", "value": "windows", "effect": "NoExecute"}]},
        ],
        objects=[deploy("w", 2, extra_spec={"affinity": affinity, "tolerations": [{"key": "os", "operator": "Exists"}]})],
        pods=[{"workload": "deployment/w", "count": 2, "zone": "zone-a"}],
    )
    assert [p["spec"]["nodeName"] for p in of_kind(expand(doc), "Pod")] == ["win-zone-a-0", "win-zone-a-0"]
    doc["pods"] = [{"workload": "deployment/w", "count": 1, "zone": "zone-b"}]
    assert errors_of(doc) == [
        'Scenario t: pods[0].zone: Invalid value: "zone-b": no node in this zone admits the pod (taints, nodeSelector, node affinity, cordoned)'
    ]
