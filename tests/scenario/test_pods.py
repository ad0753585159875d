"""pods entries: counts, ordinals, bounds (planner/scenario/pods.py)."""

from __future__ import annotations

from planner.scenario import MAX_PODS
from tests.scenario.common import deploy, errors_of, scenario, search_scenario


def test_total_pods_are_bounded() -> None:
    doc = scenario(nodePools=[{"name": "n", "count": 1}], objects=[deploy("web", 1)],
                   pods=[{"workload": "deployment/web", "count": MAX_PODS}, {"workload": "deployment/web", "count": 1}])
    assert errors_of(doc) == [f"Scenario t: pods: Too many: {MAX_PODS + 1}: must have at most {MAX_PODS} items"]


def test_statefulset_pod_errors() -> None:
    doc = search_scenario(
        pods=[
            {"workload": "statefulset/search", "ordinal": 0, "zone": "zone-a"},
            {"workload": "statefulset/search", "ordinals": [0, 1], "zone": "zone-b"},
            {"workload": "statefulset/search", "count": 2},
            {"workload": "statefulset/search", "ordinal": 2, "node": "general-zone-c-0"},
        ],
    )
    assert errors_of(doc) == [
        "Scenario t: pods[1].ordinals[0]: Duplicate value: 0",
        "Scenario t: pods[2].count: Forbidden: StatefulSet pods are named by ordinal or ordinals",
        'Scenario t: volumes[0].zone: Invalid value: "zone-a": the pod that uses claim data-search-2 runs on general-zone-c-0 in zone zone-c',
    ]
