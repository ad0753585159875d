"""Builders and readers shared by the scenario format's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.errors import InputError
from planner.scenario import expand_scenario, is_scenario

SCENARIOS = sorted(Path(__file__).resolve().parents[2].joinpath("scenarios").glob("*.yaml"))


def scenario(**fields: Any) -> dict:
    doc: dict[str, Any] = {
        "apiVersion": "planner.dev/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "t"},
        "description": "test",
    }
    doc.update(fields)
    return doc


def sts(name: str = "search", replicas: int = 3, *, claims: bool = True, retention: dict | None = None, service: str | None = "search") -> dict:
    spec: dict[str, Any] = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app": name}},
        "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "c", "image": "img:1", "resources": {"requests": {"cpu": "100m"}}}]},
        },
    }
    if service:
        spec["serviceName"] = service
    if claims:
        spec["volumeClaimTemplates"] = [
            {"metadata": {"name": "data", "labels": {"tier": "db"}}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}}
        ]
    if retention:
        spec["persistentVolumeClaimRetentionPolicy"] = retention
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name}, "spec": spec}


def deploy(name: str = "web", replicas: int = 2, *, image: str = "nginx:1.17", extra_spec: dict | None = None) -> dict:
    pod_spec: dict[str, Any] = {"containers": [{"name": "web", "image": image}]}
    pod_spec.update(extra_spec or {})
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec},
        },
    }


ZONES = ["zone-a", "zone-b", "zone-c"]


GP3 = {"name": "gp3", "default": True}


def expand(doc: dict) -> list[dict]:
    return expand_scenario(doc, "test.yaml").objects


def of_kind(objs: list[dict], kind: str) -> list[dict]:
    return [o for o in objs if o["kind"] == kind]


def by_name(objs: list[dict], kind: str) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in of_kind(objs, kind)}


def errors_of(doc: dict) -> list[str]:
    with pytest.raises(InputError) as ei:
        expand_scenario(doc, "test.yaml")
    return ei.value.messages


def search_scenario(**extra: Any) -> dict:
    doc = scenario(
        zones=ZONES,
        nodePools=[{"name": "general", "count": 2}],
        storageClasses=[GP3],
        objects=[sts(retention={"whenDeleted": "Retain", "whenScaled": "Retain"})],
        pods=[
            {"workload": "statefulset/search", "ordinal": 0, "zone": "zone-a"},
            {"workload": "statefulset/search", "ordinal": 1, "node": "general-zone-b-1"},
            {"workload": "statefulset/search", "ordinal": 2, "phase": "Pending"},
        ],
        volumes=[{"claim": "data-search-2", "zone": "zone-a"}, {"claim": "data-search-3", "zone": "zone-c"}],
    )
    doc.update(extra)
    return doc


def load(path: Path) -> dict:
    with open(path) as f:
        doc = yaml.safe_load(f)
    assert is_scenario(doc), path
    return doc
