"""The scenario document: identity, top-level fields, every error at once (planner/scenario/document.py)."""

from __future__ import annotations

import pytest

from planner.errors import InputError
from planner.scenario import expand_scenario, is_scenario
from tests.scenario.common import ZONES, deploy, errors_of, scenario


def test_is_scenario() -> None:
    assert is_scenario(scenario())
    assert not is_scenario({"apiVersion": "v1", "kind": "Scenario"})
    assert not is_scenario({"apiVersion": "planner.dev/v1alpha1", "kind": "Pod"})
    assert not is_scenario(["not", "a", "mapping"])


def test_expansion_carries_expect_and_steps() -> None:
    doc = scenario(expect={"validate": {"valid": True}, "check": [{"workload": "deployment/web", "replicas": 2, "pending": "issue 4"}]},
                   steps=[{"scale": "deployment/web", "replicas": 3}])
    exp = expand_scenario(doc, "x.yaml")
    assert exp.name == "t" and exp.description == "test"
    assert exp.expect == doc["expect"] and exp.steps == doc["steps"]


def test_every_problem_is_reported_at_once() -> None:
    doc = scenario(
        zones=ZONES,
        colour="blue",
        nodePools=[
            {"name": "a", "count": "three"},
            {"name": "b", "zones": ["zone-x"]},
            {"name": "c", "taints": [{"key": "k", "effect": "Sometimes"}], "capacity": {"cpu": "-2"}},
            {"name": "a"},
        ],
        storageClasses=[{"name": "gp3", "volumeBindingMode": "Later"}],
        objects=[deploy("web", 1), {"kind": "Pod", "apiVersion": "v1", "metadata": {}}],
        pods=[
            {"workload": "deployment/api", "count": 1},
            {"workload": "deployment/web", "ordinal": 0},
            {"workload": "deployment/web", "count": 1, "phase": "Running"},
            {"workload": "deployment/web", "count": 1, "revision": "old"},
            {"workload": "deployment/web", "node": "nowhere"},
            {"workload": "daemonset/agent"},
        ],
        volumes=[{"claim": "data-x", "zone": "zone-q"}],
    )
    assert errors_of(doc) == [
        "Scenario t: colour: Forbidden: unknown field",
        'Scenario t: nodePools[0].count: Invalid value: "three": must be an integer',
        'Scenario t: nodePools[1].zones[0]: Not found: "zone-x"',
        'Scenario t: nodePools[3].name: Duplicate value: "a"',
        'Scenario t: nodePools[2].capacity.cpu: Invalid value: "-2": must be greater than or equal to 0',
        'Scenario t: nodePools[2].taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        'Scenario t: storageClasses[0].volumeBindingMode: Unsupported value: "Later": supported values: "WaitForFirstConsumer", "Immediate"',
        "Scenario t: objects[1].metadata.name: Required value",
        'Scenario t: volumes[0].zone: Not found: "zone-q"',
        'Scenario t: pods[0].workload: Not found: "deployment/api"',
        "Scenario t: pods[1].ordinal: Forbidden: only StatefulSet pods have ordinals; use count",
        "Scenario t: pods[2].node: Required value: a Running pod is bound to a node: give node, nodes, zone or zones",
        'Scenario t: pods[3].revision: Unsupported value: "old": supported values: "current"',
        'Scenario t: pods[4].node: Not found: "nowhere"',
        'Scenario t: pods[5].workload: Unsupported value: "daemonset/agent": supported values: "statefulset/<name>", "deployment/<name>"',
    ]


def test_errors_name_the_source_when_the_scenario_has_no_name() -> None:
    doc = scenario(metadata={}, nodePools=[{"count": 1}])
    with pytest.raises(InputError) as ei:
        expand_scenario(doc, "dir/s.yaml")
    assert ei.value.messages == [
        "Scenario dir/s.yaml: metadata.name: Required value",
        "Scenario dir/s.yaml: nodePools[0].name: Required value",
    ]
