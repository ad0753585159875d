"""Pod objects: StatefulSet and Deployment pods, tolerations, QoS (planner/scenario/pod_objects.py)."""

from __future__ import annotations

from planner.revision import controller_revision_name
from tests.scenario.common import by_name, deploy, expand, of_kind, scenario, search_scenario


def test_statefulset_pods_carry_controller_labels_and_owner() -> None:
    objs = expand(search_scenario())
    the_sts = by_name(objs, "StatefulSet")["search"]
    pods = by_name(objs, "Pod")
    assert list(pods) == ["search-0", "search-1", "search-2"]
    p0 = pods["search-0"]
    rev = controller_revision_name("search", the_sts["spec"]["template"])
    assert p0["metadata"]["labels"] == {
        "app": "search",
        "apps.kubernetes.io/pod-index": "0",
        "controller-revision-hash": rev,
        "statefulset.kubernetes.io/pod-name": "search-0",
    }
    assert p0["metadata"]["namespace"] == "default"
    assert p0["metadata"]["ownerReferences"] == [{
        "apiVersion": "apps/v1", "kind": "StatefulSet", "name": "search", "uid": the_sts["metadata"]["uid"],
        "controller": True, "blockOwnerDeletion": True,
    }]
    assert p0["spec"]["nodeName"] == "general-zone-a-0"
    assert p0["spec"]["hostname"] == "search-0" and p0["spec"]["subdomain"] == "search"
    assert p0["spec"]["volumes"] == [{"name": "data", "persistentVolumeClaim": {"claimName": "data-search-0"}}]
    assert p0["status"]["phase"] == "Running"
    assert pods["search-1"]["spec"]["nodeName"] == "general-zone-b-1"
    p2 = pods["search-2"]
    assert "nodeName" not in p2["spec"] and p2["status"]["phase"] == "Pending"
    assert p2["status"]["conditions"][0]["reason"] == "Unschedulable"
    assert the_sts["status"]["currentRevision"] == rev == the_sts["status"]["updateRevision"]
    assert the_sts["status"]["replicas"] == 3 and the_sts["status"]["readyReplicas"] == 2


def test_pods_get_default_tolerations_and_qos() -> None:
    doc = scenario(nodePools=[{"name": "n", "count": 1}], objects=[deploy("web", 1)], pods=[{"workload": "deployment/web", "node": "n-0"}])
    pod = of_kind(expand(doc), "Pod")[0]
    assert [t["key"] for t in pod["spec"]["tolerations"]] == ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]
    assert pod["status"]["qosClass"] == "BestEffort"
