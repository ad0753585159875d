"""The bundled scenarios' expect blocks: well formed, and the explain answers hold (planner/scenario/expect.py)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.scenario import expand_scenario
from tests.scenario.common import SCENARIOS, load

PENDING_ISSUES = {"check": "issue 4", "capacity": "issue 4", "simulate": "issue 5", "remediate": "issue 6", "audit": "issue 7"}


def test_there_is_a_scenario_and_a_fix_for_every_seed() -> None:
    names = {p.stem for p in SCENARIOS}
    for seed in ("blue-green-shared-selector", "hpa-scale-up-retained-volume", "zone-spread-scale-up",
                 "zone-anti-affinity-six-replicas", "rollout-hostname-anti-affinity"):
        assert seed in names
    for fixed in ("blue-green-shared-selector-fixed", "zone-anti-affinity-six-replicas-fixed", "rollout-hostname-anti-affinity-fixed"):
        assert fixed in names


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_bundled_expectations_are_well_formed(path: Path) -> None:
    exp = expand_scenario(load(path), str(path))
    expect = exp.expect
    assert expect.get("validate") == {"valid": True}
    assert expect.get("explain"), "every scenario explains at least one pod"
    pods = {f'{o["metadata"]["namespace"]}/{o["metadata"]["name"]}' for o in exp.objects if o["kind"] == "Pod"}
    nodes = {o["metadata"]["name"] for o in exp.objects if o["kind"] == "Node"}
    for e in expect["explain"]:
        assert ("pod" in e) != ("pod_file" in e)
        if "pod" in e:
            assert e["pod"] in pods, e["pod"]
        else:
            assert e["pod_file"]["kind"] == "Pod"
        assert isinstance(e["schedulable"], bool)
        assert set(e.get("failures", {})) <= nodes
        assert set(e.get("feasible", [])) <= nodes
        if e["schedulable"]:
            assert e.get("feasible")
        else:
            assert e["summary"].startswith(f"0/{len(nodes)} nodes are available: ") and e["summary"].endswith(".")
            assert set(e["failures"]) == nodes  # an unschedulable pod fails on every node
    for section, issue in PENDING_ISSUES.items():
        for entry in expect.get(section, []):
            if "pending" in entry:  # a command not implemented yet names the issue that brings it
                assert entry["pending"] == issue, (section, entry)


def _evaluate(snap: Any, target: Any) -> Any:
    from planner.scheduler import runtime
    from planner.scheduler.framework import ClusterState

    cluster = ClusterState.from_snapshot(snap)
    existing = snap.pods.get(target.key)
    if existing is not None and existing.assigned:
        cluster.remove_pod(existing)
    return runtime.evaluate(target, cluster)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_bundled_explain_expectations_hold_with_the_filters(path: Path) -> None:
    """The hand-derived explain answers against the filter plugins, through the loader's reading and
    conversion (validation is the loader's own business and is tested there)."""
    from planner.load import build_snapshot, read_objects

    snap = build_snapshot(read_objects([str(path)]))
    for e in snap.scenario["expect"]["explain"]:
        if "pod" in e:
            target = snap.pods[e["pod"]]
        else:
            with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
                yaml.safe_dump(e["pod_file"], f)
            try:
                target = next(iter(build_snapshot(read_objects([f.name])).pods.values()))
            finally:
                os.unlink(f.name)
        ev = _evaluate(snap, target)
        failures = {n.name: [s.plugin for s in n.failures] for n in ev.nodes if n.failures}
        assert ev.schedulable == e["schedulable"], target.key
        assert failures == e.get("failures", {}), target.key
        if "feasible" in e:
            assert sorted(ev.feasible_nodes) == sorted(e["feasible"])
        if "summary" in e:
            assert ev.summary() == e["summary"]
