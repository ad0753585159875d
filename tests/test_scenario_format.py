"""The scenario format (planner/scenario.py) and the controllers' hashes (planner/revision.py)."""

from __future__ import annotations

import copy
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.errors import InputError
from planner.revision import (
    controller_revision_hash,
    controller_revision_name,
    fnv32,
    fnv32a,
    go_json,
    pod_template_hash,
    safe_encode_string,
    statefulset_revision_patch,
)
from planner.scenario import MAX_NODES, MAX_PODS, expand_scenario, is_scenario

SCENARIOS = sorted(Path(__file__).resolve().parent.parent.joinpath("scenarios").glob("*.yaml"))


# --------------------------------------------------------------------------- builders


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


# --------------------------------------------------------------------------- revision.py


def test_fnv_test_vectors() -> None:
    # the FNV reference values for "" and "a"
    assert fnv32(b"") == 0x811C9DC5
    assert fnv32a(b"") == 0x811C9DC5
    assert fnv32(b"a") == 0x050C5D7E
    assert fnv32a(b"a") == 0xE40C292C
    assert fnv32a(b"foobar") == 0xBF9CF968


def test_safe_encode_string_maps_digits_like_upstream() -> None:
    # '0'..'9' are 48..57; 48 % 27 = 21 -> '4', ..., 54 % 27 = 0 -> 'b'
    assert safe_encode_string("0123456789") == "456789bcdf"


def test_go_json_is_sorted_compact_and_escapes_like_go() -> None:
    assert go_json({"b": 1, "a": [True, None, 0.5, 2.0], "c": "<&>"}) == '{"a":[true,null,0.5,2],"b":1,"c":"\\u003c\\u0026\\u003e"}'
    assert go_json({"x": "é"}) == '{"x":"é"}'


def test_pod_template_hash_is_stable_and_sensitive() -> None:
    tpl = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx:1.16"}]}}
    h = pod_template_hash(tpl)
    assert h == pod_template_hash(copy.deepcopy(tpl))
    assert set(h) <= set("456789bcdf") and 1 <= len(h) <= 10
    # key order does not matter, content does
    reordered = {"spec": tpl["spec"], "metadata": tpl["metadata"]}
    assert pod_template_hash(reordered) == h
    changed = copy.deepcopy(tpl)
    changed["spec"]["containers"][0]["image"] = "nginx:1.17"
    assert pod_template_hash(changed) != h
    # the collision count is hashed in (as 8 little-endian bytes) only when given
    assert pod_template_hash(tpl, 0) != h
    assert pod_template_hash(tpl, 1) != pod_template_hash(tpl, 0)
    expected = fnv32a((1).to_bytes(4, "little") + bytes(4), fnv32a(go_json(tpl).encode()))
    assert pod_template_hash(tpl, 1) == safe_encode_string(str(expected))


def test_controller_revision_hash_hashes_upstream_patch_bytes() -> None:
    tpl = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    patch = statefulset_revision_patch(tpl)
    assert patch == b'{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"image":"i","name":"c"}]}}}}'
    # FNV-32 (not 32a) of the patch, then the probe (collisionCount) in decimal
    assert controller_revision_hash(tpl) == safe_encode_string(str(fnv32(b"0", fnv32(patch))))
    assert controller_revision_hash(tpl, None) == safe_encode_string(str(fnv32(patch)))
    assert controller_revision_name("search", tpl) == "search-" + controller_revision_hash(tpl)
    assert "$patch" not in tpl  # the caller's template is left alone


# --------------------------------------------------------------------------- nodes


def test_nodes_per_zone_names_labels_and_resources() -> None:
    objs = expand(scenario(region="eu-west-1", zones=ZONES, nodePools=[{"name": "general", "count": 2, "capacity": {"cpu": 8, "memory": "32Gi"}}]))
    nodes = of_kind(objs, "Node")
    assert [n["metadata"]["name"] for n in nodes] == [f"general-{z}-{i}" for z in ZONES for i in range(2)]
    n = nodes[2]
    labels = n["metadata"]["labels"]
    assert labels["kubernetes.io/hostname"] == "general-zone-b-0"
    assert labels["topology.kubernetes.io/zone"] == "zone-b"
    assert labels["topology.kubernetes.io/region"] == "eu-west-1"
    assert n["status"]["capacity"] == {"cpu": "8", "memory": "32Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    assert n["status"]["allocatable"] == n["status"]["capacity"]
    assert n["apiVersion"] == "v1" and n["metadata"]["uid"] and n["metadata"]["creationTimestamp"].endswith("Z")


def test_uneven_pools_explicit_names_allocatable_taints_and_cordon() -> None:
    objs = expand(scenario(zones=ZONES, nodePools=[
        {"name": "default", "zones": {"zone-a": 2, "zone-c": 1}},
        {"name": "gpu", "zones": ["zone-b"], "count": 1, "labels": {"workload": "gpu"},
         "taints": [{"key": "workload", "value": "gpu", "effect": "NoSchedule"}],
         "allocatable": {"cpu": "3900m"}},
        {"name": "old", "zones": {"zone-c": 2}, "names": ["legacy-1", "legacy-2"], "unschedulable": True},
    ]))
    nodes = by_name(objs, "Node")
    assert list(nodes) == ["default-zone-a-0", "default-zone-a-1", "default-zone-c-0", "gpu-zone-b-0", "legacy-1", "legacy-2"]
    gpu = nodes["gpu-zone-b-0"]
    assert gpu["spec"]["taints"] == [{"effect": "NoSchedule", "key": "workload", "value": "gpu"}]
    assert gpu["metadata"]["labels"]["workload"] == "gpu"
    assert gpu["status"]["allocatable"]["cpu"] == "3900m" and gpu["status"]["capacity"]["cpu"] == "4"
    legacy = nodes["legacy-2"]
    assert legacy["spec"]["unschedulable"] is True
    assert [t["key"] for t in legacy["spec"]["taints"]] == ["node.kubernetes.io/unschedulable"]
    assert legacy["metadata"]["labels"]["kubernetes.io/hostname"] == "legacy-2"


def test_no_zones_gives_zoneless_nodes() -> None:
    objs = expand(scenario(nodePools=[{"name": "dev", "count": 2}]))
    nodes = of_kind(objs, "Node")
    assert [n["metadata"]["name"] for n in nodes] == ["dev-0", "dev-1"]
    assert "topology.kubernetes.io/zone" not in nodes[0]["metadata"]["labels"]
    assert "topology.kubernetes.io/region" not in nodes[0]["metadata"]["labels"]


# --------------------------------------------------------------------------- StatefulSets


def _search_scenario(**extra: Any) -> dict:
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


def test_statefulset_pods_carry_controller_labels_and_owner() -> None:
    objs = expand(_search_scenario())
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


def test_statefulset_claims_bind_to_zonal_volumes() -> None:
    objs = expand(_search_scenario())
    pvcs = by_name(objs, "PersistentVolumeClaim")
    pvs = by_name(objs, "PersistentVolume")
    assert sorted(pvcs) == ["data-search-0", "data-search-1", "data-search-2", "data-search-3"]
    c0 = pvcs["data-search-0"]
    assert c0["metadata"]["labels"] == {"tier": "db", "app": "search"}  # template labels + selector
    assert c0["spec"]["storageClassName"] == "gp3"  # the default class, as admission sets it
    assert c0["spec"]["resources"] == {"requests": {"storage": "10Gi"}}
    assert c0["spec"]["volumeName"] == "pv-data-search-0"
    assert c0["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"}}
    assert c0["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] == "general-zone-a-0"
    assert "ownerReferences" not in c0["metadata"]  # Retain/Retain
    pv0 = pvs["pv-data-search-0"]
    assert pv0["spec"]["claimRef"] == {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": "data-search-0", "namespace": "default", "uid": c0["metadata"]["uid"]}
    assert pv0["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] == [
        {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]}]}
    ]
    assert pv0["spec"]["capacity"] == {"storage": "10Gi"} and pv0["spec"]["storageClassName"] == "gp3"
    assert pv0["spec"]["csi"]["driver"] == "ebs.csi.aws.com"
    assert pv0["status"]["phase"] == "Bound"
    # the Pending pod's claim was kept from earlier: bound in zone-a; the retained claim has no pod
    zone_of = {n: pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"][0] for n, pv in pvs.items()}
    assert zone_of == {"pv-data-search-0": "zone-a", "pv-data-search-1": "zone-b", "pv-data-search-2": "zone-a", "pv-data-search-3": "zone-c"}
    assert pvcs["data-search-3"]["metadata"]["labels"] == {"tier": "db", "app": "search"}


def test_pending_statefulset_pod_without_volume_entry_has_pending_claim() -> None:
    doc = _search_scenario(volumes=[])
    pvcs = by_name(expand(doc), "PersistentVolumeClaim")
    assert pvcs["data-search-2"]["status"] == {"phase": "Pending"}
    assert "volumeName" not in pvcs["data-search-2"]["spec"]


def test_claim_retention_delete_sets_owner_references() -> None:
    doc = _search_scenario(objects=[sts(replicas=1, retention={"whenDeleted": "Delete", "whenScaled": "Delete"})])
    objs = expand(doc)
    pvcs = by_name(objs, "PersistentVolumeClaim")
    pods = by_name(objs, "Pod")
    kinds = [r["kind"] for r in pvcs["data-search-2"]["metadata"]["ownerReferences"]]
    assert kinds == ["StatefulSet", "Pod"]  # ordinal 2 >= replicas 1: condemned, owned by its pod
    assert pvcs["data-search-2"]["metadata"]["ownerReferences"][1]["uid"] == pods["search-2"]["metadata"]["uid"]
    assert [r["kind"] for r in pvcs["data-search-0"]["metadata"]["ownerReferences"]] == ["StatefulSet"]


def test_statefulset_old_revision_pods() -> None:
    doc = _search_scenario(
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


# --------------------------------------------------------------------------- Deployments


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


def test_pods_get_default_tolerations_and_qos() -> None:
    doc = scenario(nodePools=[{"name": "n", "count": 1}], objects=[deploy("web", 1)], pods=[{"workload": "deployment/web", "node": "n-0"}])
    pod = of_kind(expand(doc), "Pod")[0]
    assert [t["key"] for t in pod["spec"]["tolerations"]] == ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]
    assert pod["status"]["qosClass"] == "BestEffort"


# --------------------------------------------------------------------------- pass-through, namespaces


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


# --------------------------------------------------------------------------- determinism and bounds


def test_expanding_twice_gives_identical_output() -> None:
    doc = _search_scenario()
    a = expand_scenario(copy.deepcopy(doc), "a.yaml")
    b = expand_scenario(copy.deepcopy(doc), "b.yaml")
    assert yaml.safe_dump(a.objects) == yaml.safe_dump(b.objects)
    uids = [o["metadata"]["uid"] for o in a.objects]
    assert len(set(uids)) == len(uids)
    other = copy.deepcopy(doc)
    other["metadata"]["name"] = "other"
    assert expand_scenario(other, "a.yaml").objects[0]["metadata"]["uid"] != a.objects[0]["metadata"]["uid"]


def test_huge_pool_is_an_error_not_an_allocation() -> None:
    doc = scenario(zones=ZONES, nodePools=[{"name": "big", "count": 10**9}])
    assert errors_of(doc) == ["Scenario t: nodePools[0].count: Invalid value: 1000000000: must be less than or equal to 10000"]


def test_total_nodes_are_bounded() -> None:
    doc = scenario(zones=ZONES, nodePools=[{"name": "a", "count": 4000}, {"name": "b", "count": 1}])
    assert errors_of(doc) == [f"Scenario t: nodePools: Too many: 12003: must have at most {MAX_NODES} items"]


def test_total_pods_are_bounded() -> None:
    doc = scenario(nodePools=[{"name": "n", "count": 1}], objects=[deploy("web", 1)],
                   pods=[{"workload": "deployment/web", "count": MAX_PODS}, {"workload": "deployment/web", "count": 1}])
    assert errors_of(doc) == [f"Scenario t: pods: Too many: {MAX_PODS + 1}: must have at most {MAX_PODS} items"]


# --------------------------------------------------------------------------- errors


def test_negative_count_message() -> None:
    doc = scenario(metadata={"name": "seed-001"}, zones=ZONES, nodePools=[{"name": "general", "count": -1}])
    assert errors_of(doc) == ["Scenario seed-001: nodePools[0].count: Invalid value: -1: must be greater than or equal to 0"]


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


def test_statefulset_pod_errors() -> None:
    doc = _search_scenario(
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


def test_errors_name_the_source_when_the_scenario_has_no_name() -> None:
    doc = scenario(metadata={}, nodePools=[{"count": 1}])
    with pytest.raises(InputError) as ei:
        expand_scenario(doc, "dir/s.yaml")
    assert ei.value.messages == [
        "Scenario dir/s.yaml: metadata.name: Required value",
        "Scenario dir/s.yaml: nodePools[0].name: Required value",
    ]


# --------------------------------------------------------------------------- the bundled scenarios

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

PENDING_ISSUES = {"check": "issue 4", "capacity": "issue 4", "simulate": "issue 5", "remediate": "issue 6", "audit": "issue 7"}


def _load(path: Path) -> dict:
    with open(path) as f:
        doc = yaml.safe_load(f)
    assert is_scenario(doc), path
    return doc


def test_there_is_a_scenario_and_a_fix_for_every_seed() -> None:
    names = {p.stem for p in SCENARIOS}
    for seed in ("seed-000-blue-green", "seed-001-hpa-parallel", "seed-002-spread-semantics",
                 "seed-003-anti-affinity-zones", "seed-004-rollout-anti-affinity"):
        assert seed in names
    for fixed in ("seed-000-blue-green-fixed", "seed-003-anti-affinity-zones-fixed", "seed-004-rollout-anti-affinity-fixed"):
        assert fixed in names


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_bundled_scenario_expands_to_kubectl_shaped_objects(path: Path) -> None:
    doc = _load(path)
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
    assert yaml.safe_dump(expand_scenario(_load(path), str(path)).objects) == yaml.safe_dump(exp.objects)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_bundled_expectations_are_well_formed(path: Path) -> None:
    exp = expand_scenario(_load(path), str(path))
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
