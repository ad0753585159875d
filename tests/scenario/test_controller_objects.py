"""Revisions, ReplicaSets and controller status (planner/scenario/controller_objects.py, workloads.py)."""

from __future__ import annotations

import copy

from planner.revision import pod_template_hash
from tests.scenario.common import ZONES, by_name, deploy, expand, of_kind, scenario, search_scenario


def test_statefulset_old_revision_pods() -> None:
    doc = search_scenario(
        revisions=[{"workload": "statefulset/search", "name": "old", "template": {"spec": {"containers": [{"name": "c", "image": "img:0"}]}}}],
        volumes=[],
    )
    doc["pods"][0]["revision"] = "old"
    objs = expand(doc)
    pods = by_name(objs, "Pod")
    the_sts = by_name(objs, "StatefulSet")["search"]
    old = pods["search-0"]["metadata"]["labels"]["controller-revision-hash"]
    new = pods["search-1"]["metadata"]["labels"]["controller-revision-hash"]
    assert old != new and old.startswith("search-") and new.startswith("search-")
    assert pods["search-0"]["spec"]["containers"][0]["image"] == "img:0"
    assert the_sts["status"]["currentRevision"] == old and the_sts["status"]["updateRevision"] == new


def test_deployment_pods_replicasets_and_hashes() -> None:
    d = deploy("web", 3)
    doc = scenario(
        zones=ZONES,
        nodePools=[{"name": "n", "count": 1}],
        objects=[d],
        revisions=[{"workload": "deployment/web", "name": "old", "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.16"}]}}}],
        pods=[
            {"workload": "deployment/web", "revision": "old", "count": 2, "zones": ["zone-a", "zone-b"]},
            {"workload": "deployment/web", "count": 1, "phase": "Pending"},
            {"workload": "deployment/web", "count": 1, "node": "n-zone-c-0", "terminating": True, "revision": "old"},
        ],
    )
    objs = expand(doc)
    dep = by_name(objs, "Deployment")["web"]
    rss = of_kind(objs, "ReplicaSet")
    cur_hash = pod_template_hash(d["spec"]["template"])
    old_tpl = copy.deepcopy(d["spec"]["template"])
    old_tpl["spec"]["containers"][0]["image"] = "nginx:1.16"
    old_hash = pod_template_hash(old_tpl)
    assert [r["metadata"]["name"] for r in rss] == [f"web-{old_hash}", f"web-{cur_hash}"]
    old_rs, new_rs = rss
    assert old_rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    assert new_rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert new_rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] == "4"  # 3 + ceil(25% of 3)
    assert dep["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"
    assert old_rs["spec"]["replicas"] == 2 and new_rs["spec"]["replicas"] == 1  # the terminating pod is not counted
    assert new_rs["spec"]["selector"] == {"matchLabels": {"app": "web", "pod-template-hash": cur_hash}}
    assert new_rs["spec"]["template"]["metadata"]["labels"] == {"app": "web", "pod-template-hash": cur_hash}
    assert new_rs["metadata"]["ownerReferences"][0]["uid"] == dep["metadata"]["uid"]
    pods = of_kind(objs, "Pod")
    assert len(pods) == 4
    for p in pods:
        rs = old_rs if p["metadata"]["labels"]["pod-template-hash"] == old_hash else new_rs
        assert p["metadata"]["name"].startswith(rs["metadata"]["name"] + "-")
        assert len(p["metadata"]["name"]) == len(rs["metadata"]["name"]) + 6
        assert p["metadata"]["generateName"] == rs["metadata"]["name"] + "-"
        assert p["metadata"]["ownerReferences"] == [{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs["metadata"]["name"], "uid": rs["metadata"]["uid"],
            "controller": True, "blockOwnerDeletion": True,
        }]
    assert [p["spec"].get("nodeName") for p in pods] == ["n-zone-a-0", "n-zone-b-0", None, "n-zone-c-0"]
    assert [p["spec"]["containers"][0]["image"] for p in pods] == ["nginx:1.16", "nginx:1.16", "nginx:1.17", "nginx:1.16"]
    assert "deletionTimestamp" in pods[3]["metadata"] and "deletionTimestamp" not in pods[0]["metadata"]
    assert len({p["metadata"]["name"] for p in pods}) == 4
