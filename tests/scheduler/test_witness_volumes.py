"""binding.WitnessFilters keeps the claims, volumes and classes of the cluster it places pods
into journaled (framework.JournaledDict), so that VolumeBinding's PreFilter follows the claims
and volumes each placement binds from the journals instead of comparing every PV again: the
answers are those of plain dicts, and a volume bound by one pod is never offered to the next."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

import planner.scheduler.binding as binding
from planner.engines.check import check_replicas
from planner.engines.workloads import cluster_after_plans, parse_workload, plan_workload
from planner.errors import UnknownResult
from planner.load import load_snapshot
from planner.scheduler.binding import WitnessFilters
from planner.scheduler.framework import JournaledDict
from tests.randomcluster import scenarios


def _static_volumes(tmp_path, pvs: int, replicas: int):
    """Two nodes, a StorageClass without a provisioner (WaitForFirstConsumer), ``pvs`` static
    PVs of it and a StatefulSet of ``replicas`` with one claim each, none created yet."""
    items: list[dict] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}]
    for n in ("n-0", "n-1"):
        items.append({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": n, "uid": f"uid-{n}", "labels": {"kubernetes.io/hostname": n, "topology.kubernetes.io/zone": "zone-a"}},
            "spec": {},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}, "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]},
        })
    items.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
                  "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"})
    for i in range(pvs):
        items.append({
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"pv-{i}", "uid": f"uid-pv-{i}"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                     "persistentVolumeReclaimPolicy": "Retain", "hostPath": {"path": f"/data/{i}"}},
            "status": {"phase": "Available"},
        })
    rev = "db-5d4b9c7f8"
    items.append({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default", "uid": "uid-sts-db", "generation": 1},
        "spec": {"replicas": replicas, "serviceName": "db", "podManagementPolicy": "Parallel", "selector": {"matchLabels": {"app": "db"}},
                 "template": {"metadata": {"labels": {"app": "db"}},
                              "spec": {"containers": [{"name": "db", "image": "db:1", "resources": {"requests": {"cpu": "100m"}}}]}},
                 "volumeClaimTemplates": [{"metadata": {"name": "data"},
                                           "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                                                    "resources": {"requests": {"storage": "1Gi"}}}}]},
        "status": {"observedGeneration": 1, "replicas": 0, "currentRevision": rev, "updateRevision": rev},
    })
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return load_snapshot([str(path)])


def _walk(snap) -> list:
    """Each new pod of db tried on n-0 then n-1 and bound where it first fits: the failures seen
    and the volume each bound claim got."""
    ref = parse_workload("statefulset/db", None)
    plan = plan_workload(snap, ref, 3)
    cluster = cluster_after_plans(snap, [plan])
    wf = WitnessFilters(cluster)
    out: list = [type(cluster.pvs) is JournaledDict]
    for pod in plan.new:
        for node in ("n-0", "n-1"):
            fails = wf.fits(pod, node)
            out.append((pod.name, node, [f.plugin for f in fails]))
            if not fails:
                wf.bind(pod, node)
                break
    out.append(sorted((k, c.volume_name) for k, c in cluster.pvcs.items()))
    return out


def test_a_volume_bound_by_one_pod_is_not_offered_to_the_next(tmp_path, monkeypatch):
    snap = _static_volumes(tmp_path, pvs=2, replicas=0)
    journaled = _walk(snap)
    assert journaled[0] is True
    # two PVs for three pods: the first two bind one each, the third finds none on either node
    placed = [x for x in journaled[1:-1] if not x[2]]
    assert [x[0] for x in placed] == ["db-0", "db-1"]
    assert journaled[-2] == ("db-2", "n-1", ["VolumeBinding"])
    assert {v for _, v in journaled[-1]} == {"pv-0", "pv-1", ""}
    # the same walk on plain dicts (the journals off): the same answers
    monkeypatch.setattr(binding, "JournaledDict", dict)
    plain = _walk(_static_volumes(tmp_path, pvs=2, replicas=0))
    assert plain[0] is False and plain[1:] == journaled[1:]


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_check_answers_the_same_with_the_volumes_journaled(sc):
    """check's witness (order_witness, the known order's replay) on random clusters with static,
    retained and provisioned volumes: the same verdict and placement as on plain dicts."""
    try:
        journaled = check_replicas(sc.snapshot, [sc.ref], sc.replicas)
    except UnknownResult:
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(binding, "JournaledDict", dict)
        plain = check_replicas(sc.snapshot, [sc.ref], sc.replicas)
    assert (journaled.schedulable, journaled.placement) == (plain.schedulable, plain.placement)
