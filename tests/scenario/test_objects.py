"""objects passed through, Namespaces emitted (planner/scenario/objects.py)."""

from __future__ import annotations

from tests.scenario.common import by_name, expand, of_kind, scenario


def test_objects_pass_through_and_namespaces_are_emitted() -> None:
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "team"}, "spec": {"clusterIP": "None"}}
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
           "spec": {"scaleTargetRef": {"kind": "StatefulSet", "name": "search"}, "minReplicas": 2, "maxReplicas": 6}}
    doc = scenario(objects=[svc, hpa])
    objs = expand(doc)
    got_svc = by_name(objs, "Service")["s"]
    assert got_svc["spec"] == svc["spec"] and got_svc["metadata"]["namespace"] == "team"
    assert by_name(objs, "HorizontalPodAutoscaler")["h"]["spec"] == hpa["spec"]
    assert [n["metadata"]["name"] for n in of_kind(objs, "Namespace")] == ["team", "default"]
    assert doc["objects"][0] == svc  # the input is not modified
