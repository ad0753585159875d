"""Claims and their volumes (planner/scenario/volumes.py)."""

from __future__ import annotations

from tests.scenario.common import by_name, expand, search_scenario, sts


def test_statefulset_claims_bind_to_zonal_volumes() -> None:
    objs = expand(search_scenario())
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
    doc = search_scenario(volumes=[])
    pvcs = by_name(expand(doc), "PersistentVolumeClaim")
    assert pvcs["data-search-2"]["status"] == {"phase": "Pending"}
    assert "volumeName" not in pvcs["data-search-2"]["spec"]


def test_claim_retention_delete_sets_owner_references() -> None:
    doc = search_scenario(objects=[sts(replicas=1, retention={"whenDeleted": "Delete", "whenScaled": "Delete"})])
    objs = expand(doc)
    pvcs = by_name(objs, "PersistentVolumeClaim")
    pods = by_name(objs, "Pod")
    kinds = [r["kind"] for r in pvcs["data-search-2"]["metadata"]["ownerReferences"]]
    assert kinds == ["StatefulSet", "Pod"]  # ordinal 2 >= replicas 1: condemned, owned by its pod
    assert pvcs["data-search-2"]["metadata"]["ownerReferences"][1]["uid"] == pods["search-2"]["metadata"]["uid"]
    assert [r["kind"] for r in pvcs["data-search-0"]["metadata"]["ownerReferences"]] == ["StatefulSet"]
