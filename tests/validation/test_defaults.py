"""planner.validation.defaults: the API server's defaulting (pkg/apis/*/v1/defaults.go)."""

from __future__ import annotations

from typing import Any

import pytest

from planner.validation import apply_defaults, validate_object
from tests.validation.objects import (
    pod,
)

# --------------------------------------------------------------------------- defaults


def test_deployment_defaults() -> None:
    d = {
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}]}}},
    }
    apply_defaults(d)
    spec = d["spec"]
    assert d["metadata"]["namespace"] == "default"
    assert spec["replicas"] == 1
    assert spec["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600
    tspec = spec["template"]["spec"]
    assert tspec["schedulerName"] == "default-scheduler"
    assert tspec["restartPolicy"] == "Always"
    assert tspec["containers"][0]["ports"][0]["protocol"] == "TCP"
    assert "requests" not in tspec["containers"][0].get("resources", {})  # SetDefaults_Pod is for pods only


def test_deployment_recreate_gets_no_rolling_update() -> None:
    d = {"kind": "Deployment", "metadata": {"name": "web"}, "spec": {"strategy": {"type": "Recreate"}}}
    apply_defaults(d)
    assert d["spec"]["strategy"] == {"type": "Recreate"}


def test_statefulset_defaults() -> None:
    s = {
        "kind": "StatefulSet",
        "metadata": {"name": "db"},
        "spec": {"volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {}}]},
    }
    apply_defaults(s)
    spec = s["spec"]
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}}
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert spec["replicas"] == 1
    assert spec["revisionHistoryLimit"] == 10
    assert spec["volumeClaimTemplates"][0]["spec"]["volumeMode"] == "Filesystem"


@pytest.mark.parametrize(
    "gate, given, want",
    [
        # defaults_test.go TestSetDefaultStatefulSet, MaxUnavailableStatefulSet on (the v1.37 default)
        (True, None, {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}}),
        (True, {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}, {"type": "RollingUpdate", "rollingUpdate": {"partition": 2, "maxUnavailable": 1}}),
        (True, {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "50%"}}, {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": "50%"}}),
        (True, {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 3}}, {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 3}}),
        # a RollingUpdate type without rollingUpdate gets none (the controller reads nil as 1)
        (True, {"type": "RollingUpdate"}, {"type": "RollingUpdate"}),
        (True, {"type": "OnDelete"}, {"type": "OnDelete"}),
        # gate off (v1.36): partition only
        (False, None, {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}),
        (False, {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}, {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}}),
    ],
)
def test_statefulset_max_unavailable_default(monkeypatch: pytest.MonkeyPatch, gate: bool, given: Any, want: Any) -> None:
    """pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet: with the MaxUnavailableStatefulSet gate
    (on by default from v1.37, kubernetes#139466) a RollingUpdate's rollingUpdate gets
    maxUnavailable 1 when unset; a given value is kept."""
    from planner.validation import defaults

    monkeypatch.setattr(defaults, "MAX_UNAVAILABLE_STATEFULSET", gate)
    s: dict[str, Any] = {"kind": "StatefulSet", "metadata": {"name": "db"}, "spec": {}}
    if given is not None:
        s["spec"]["updateStrategy"] = given
    apply_defaults(s)
    assert s["spec"]["updateStrategy"] == want


def test_statefulset_max_unavailable_gates_agree() -> None:
    """The API server's defaulting and the controller follow the same feature gate."""
    from planner.controllers import statefulset
    from planner.validation import defaults

    assert defaults.MAX_UNAVAILABLE_STATEFULSET is statefulset.MAX_UNAVAILABLE_STATEFULSET is True


def test_statefulset_ondelete_keeps_no_rolling_update() -> None:
    s = {"kind": "StatefulSet", "metadata": {"name": "db"}, "spec": {"updateStrategy": {"type": "OnDelete"}}}
    apply_defaults(s)
    assert s["spec"]["updateStrategy"] == {"type": "OnDelete"}


def test_replicaset_defaults() -> None:
    r = {"kind": "ReplicaSet", "metadata": {"name": "web"}, "spec": {}}
    apply_defaults(r)
    assert r["spec"]["replicas"] == 1


def test_pod_defaults() -> None:
    p = {
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "hostNetwork": True,
            "containers": [
                {
                    "name": "c",
                    "image": "i",
                    "ports": [{"containerPort": 9100}],
                    "resources": {"limits": {"cpu": "500m", "memory": "0.5Gi"}},
                }
            ],
            "tolerations": [{"key": "a", "value": "b"}],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
            "volumes": [{"name": "v"}],
        },
    }
    apply_defaults(p)
    spec = p["spec"]
    c = spec["containers"][0]
    assert p["metadata"]["namespace"] == "default"
    assert c["resources"]["requests"] == {"cpu": "500m", "memory": "0.5Gi"}  # requests default to limits
    assert c["ports"][0] == {"containerPort": 9100, "protocol": "TCP", "hostPort": 9100}
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["tolerations"][0] == {"key": "a", "value": "b"}  # no operator default upstream
    assert "nodeAffinityPolicy" not in spec["topologySpreadConstraints"][0]  # nil: the scheduler reads Honor
    assert "nodeTaintsPolicy" not in spec["topologySpreadConstraints"][0]  # nil: the scheduler reads Ignore
    assert spec["volumes"][0] == {"name": "v", "emptyDir": {}}
    assert validate_object(p) == []


def test_resource_lists_round_up_to_milli() -> None:
    p = pod()
    p["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "0.5m", "memory": "1.0001"}}
    apply_defaults(p)
    assert p["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1m", "memory": "1001m"}


def test_requests_compare_after_rounding() -> None:
    """SetDefaults_ResourceList runs before validation: 1.0002m <= 1.0001m once both are 2m."""
    p = pod()
    p["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1.0002m"}, "limits": {"cpu": "1.0001m"}}
    apply_defaults(p)
    assert validate_object(p) == []


def test_hpa_defaults() -> None:
    h = {
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "h"},
        "spec": {"maxReplicas": 3, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}},
    }
    apply_defaults(h)
    spec = h["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}
    ]
    assert spec["behavior"]["scaleDown"] == {
        "stabilizationWindowSeconds": 60,
        "selectPolicy": "Max",
        "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
    }
    assert spec["behavior"]["scaleUp"]["policies"][0] == {"type": "Pods", "value": 4, "periodSeconds": 15}


def test_storage_defaults() -> None:
    sc = {"kind": "StorageClass", "metadata": {"name": "s"}, "provisioner": "p"}
    apply_defaults(sc)
    assert (sc["reclaimPolicy"], sc["volumeBindingMode"]) == ("Delete", "Immediate")
    v = {"kind": "PersistentVolume", "metadata": {"name": "v"}, "spec": {}}
    apply_defaults(v)
    assert (v["spec"]["persistentVolumeReclaimPolicy"], v["spec"]["volumeMode"]) == ("Retain", "Filesystem")
    c = {"kind": "PersistentVolumeClaim", "metadata": {"name": "c"}, "spec": {}}
    apply_defaults(c)
    assert c["spec"]["volumeMode"] == "Filesystem"
    assert c["metadata"]["namespace"] == "default"


def test_node_and_namespace_defaults() -> None:
    n = {"kind": "Node", "metadata": {"name": "n"}, "status": {"capacity": {"cpu": "2", "pods": "110"}}}
    apply_defaults(n)
    assert n["status"]["allocatable"] == {"cpu": "2", "pods": "110"}
    assert "namespace" not in n["metadata"]
    ns = {"kind": "Namespace", "metadata": {"name": "team-a"}}
    apply_defaults(ns)
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team-a"}


def test_pdb_has_no_defaults() -> None:
    d = {"kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "x"}, "spec": {}}
    apply_defaults(d)
    assert d == {"kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "x"}, "spec": {}}


