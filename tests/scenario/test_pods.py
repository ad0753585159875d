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


def test_pod_status_patch_makes_a_crash_looping_replica() -> None:
    """pods[].status: conditions merge by type over the ones the pod gets; the workload's status
    counts only Ready pods; the loader reads the Ready condition (planner.convert)."""
    from planner.convert import Converter
    from tests.scenario.common import by_name, expand, of_kind

    doc = scenario(
        nodePools=[{"name": "n", "count": 2}],
        objects=[deploy("web", 2)],
        pods=[
            {"workload": "deployment/web", "count": 1, "node": "n-0"},
            {"workload": "deployment/web", "count": 1, "node": "n-1",
             "status": {"conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}]}},
        ],
    )
    objs = expand(doc)
    pods = of_kind(objs, "Pod")
    crash = next(p for p in pods if p["spec"]["nodeName"] == "n-1")
    conds = {c["type"]: c for c in crash["status"]["conditions"]}
    assert conds["Ready"]["status"] == "False" and conds["Ready"]["reason"] == "ContainersNotReady"
    assert conds["Ready"]["lastTransitionTime"] == crash["metadata"]["creationTimestamp"]
    assert conds["PodScheduled"]["status"] == "True" and len(conds) == 4
    assert [Converter().pod(p).ready for p in pods] == [True, False]
    assert by_name(objs, "Deployment")["web"]["status"]["readyReplicas"] == 1


def test_pod_status_errors() -> None:
    doc = scenario(nodePools=[{"name": "n", "count": 1}], objects=[deploy("web", 1)],
                   pods=[{"workload": "deployment/web", "node": "n-0", "status": {"phase": "Failed", "conditions": [{"type": "Ready"}]}}])
    assert errors_of(doc) == [
        "Scenario t: pods[0].status.phase: Forbidden: give the pod's phase as pods[].phase",
        'Scenario t: pods[0].status.conditions[0].status: Unsupported value: null: supported values: "True", "False", "Unknown"',
    ]
