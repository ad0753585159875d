"""The expansion's output: kubectl-shaped, deterministic (planner/scenario/emit.py, stamps.py)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from planner.scenario import expand_scenario
from tests.scenario.common import SCENARIOS, load, search_scenario


def test_expanding_twice_gives_identical_output() -> None:
    doc = search_scenario()
    a = expand_scenario(copy.deepcopy(doc), "a.yaml")
    b = expand_scenario(copy.deepcopy(doc), "b.yaml")
    assert yaml.safe_dump(a.objects) == yaml.safe_dump(b.objects)
    uids = [o["metadata"]["uid"] for o in a.objects]
    assert len(set(uids)) == len(uids)
    other = copy.deepcopy(doc)
    other["metadata"]["name"] = "other"
    assert expand_scenario(other, "a.yaml").objects[0]["metadata"]["uid"] != a.objects[0]["metadata"]["uid"]


KUBECTL_SHAPE = {
    # kind: the top-level keys kubectl get -o yaml prints for it (besides apiVersion, kind, metadata)
    "Namespace": {"spec", "status"},
    "Node": {"spec", "status"},
    "StorageClass": {"provisioner", "reclaimPolicy", "volumeBindingMode"},
    "Pod": {"spec", "status"},
    "PersistentVolumeClaim": {"spec", "status"},
    "PersistentVolume": {"spec", "status"},
    "ReplicaSet": {"spec", "status"},
    "Deployment": {"spec", "status"},
    "StatefulSet": {"spec", "status"},
}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_bundled_scenario_expands_to_kubectl_shaped_objects(path: Path) -> None:
    doc = load(path)
    exp = expand_scenario(doc, str(path))
    assert exp.name == path.stem == doc["metadata"]["name"]
    assert exp.description
    given = {(o["kind"], o["metadata"]["name"]) for o in doc.get("objects", []) if o["kind"] not in ("Deployment", "StatefulSet")}
    seen = set()
    for o in exp.objects:
        assert isinstance(o["apiVersion"], str) and isinstance(o["kind"], str)
        md = o["metadata"]
        assert md["name"] and md["uid"] and md["creationTimestamp"]
        key = (o["kind"], md.get("namespace", ""), md["name"])
        assert key not in seen, key
        seen.add(key)
        shape = KUBECTL_SHAPE.get(o["kind"])
        if shape is not None and (o["kind"], md["name"]) not in given:  # other objects pass through as written
            assert shape <= set(o), (o["kind"], md["name"])
    # again: identical
    assert yaml.safe_dump(expand_scenario(load(path), str(path)).objects) == yaml.safe_dump(exp.objects)
