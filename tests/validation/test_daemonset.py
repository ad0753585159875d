"""DaemonSets read (apps/v1): SetDefaults_DaemonSet and ValidateDaemonSet with upstream's wording
(pkg/apis/apps/v1/defaults.go, pkg/apis/apps/validation/validation.go), the conversion, and
their pods recognised."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from planner.domain import DaemonSet, is_daemonset_pod, is_mirror_pod
from planner.load import load_snapshot
from planner.validation import apply_defaults, validate_object

H = "DaemonSet kube-system/agent: "


def daemonset() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "kube-system"},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {"containers": [{"name": "a", "image": "agent:1", "resources": {"requests": {"cpu": "100m"}}}]},
            },
        },
    }


def errors(obj: dict[str, Any]) -> list[str]:
    obj = copy.deepcopy(obj)
    apply_defaults(obj)
    return validate_object(obj)


def test_defaults() -> None:
    obj = daemonset()
    apply_defaults(obj)
    spec = obj["spec"]
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert spec["revisionHistoryLimit"] == 10
    assert spec["template"]["spec"]["restartPolicy"] == "Always"
    ondelete = daemonset()
    ondelete["spec"]["updateStrategy"] = {"type": "OnDelete"}
    apply_defaults(ondelete)
    assert ondelete["spec"]["updateStrategy"] == {"type": "OnDelete"}
    assert validate_object(ondelete) == []


def test_valid() -> None:
    assert errors(daemonset()) == []


def _with(path: list[str], value: Any) -> dict[str, Any]:
    obj = daemonset()
    d = obj
    for k in path[:-1]:
        d = d.setdefault(k, {})
    d[path[-1]] = value
    return obj


@pytest.mark.parametrize(
    "path,value,expected",
    [
        (
            ["spec", "template", "metadata", "labels"],
            {"app": "other"},
            'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`',
        ),
        (["spec", "selector"], {}, "spec.selector: Invalid value: {}: empty selector is invalid for daemonset"),
        (
            ["spec", "template", "spec", "restartPolicy"],
            "OnFailure",
            'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
        ),
        (
            ["spec", "template", "spec", "activeDeadlineSeconds"],
            5,
            "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported",
        ),
        (["spec", "minReadySeconds"], -1, "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"),
        (
            ["spec", "updateStrategy"],
            {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 1}},
            "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero",
        ),
        (
            ["spec", "updateStrategy"],
            {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}},
            "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0",
        ),
        (
            ["spec", "updateStrategy"],
            {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "120%", "maxSurge": 0}},
            'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not be greater than 100%',
        ),
        (
            ["spec", "updateStrategy"],
            {"type": "Sometimes"},
            'spec.updateStrategy: Unsupported value: {"Type":"Sometimes","RollingUpdate":null}: supported values: "RollingUpdate", "OnDelete"',
        ),
        (["metadata", "name"], "Agent", None),
    ],
)
def test_rules(path: list[str], value: Any, expected: str | None) -> None:
    errs = errors(_with(path, value))
    if expected is None:  # a DNS-subdomain name: the message is the shared one
        assert errs and all("metadata.name" in e for e in errs)
    else:
        assert errs == [H.replace("agent", str(value)) + expected if path == ["metadata", "name"] else H + expected]


def test_selector_null_matches_nothing() -> None:
    obj = daemonset()
    del obj["spec"]["selector"]
    assert errors(obj) == [H + 'spec.template.metadata.labels: Invalid value: {"app":"agent"}: `selector` does not match template `labels`']


def _pod(name: str, owner: str | None = None, mirror: bool = False) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name, "namespace": "kube-system"}
    if owner:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": owner, "uid": "u1", "controller": True}]
    if mirror:
        md["annotations"] = {"kubernetes.io/config.mirror": "abc"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": md,
        "spec": {"nodeName": "n1", "containers": [{"name": "a", "image": "a"}]},
        "status": {"phase": "Running"},
    }


def test_loaded_and_pods_recognised(tmp_path) -> None:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}, "conditions": [{"type": "Ready", "status": "False"}]},
    }
    items = [node, daemonset(), _pod("agent-x1", owner="agent"), _pod("kube-proxy-n1", mirror=True)]
    f = tmp_path / "in.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    snap = load_snapshot([str(f)])
    ds = snap.daemonsets["kube-system/agent"]
    assert isinstance(ds, DaemonSet)
    assert ds.update_strategy_type == "RollingUpdate" and ds.max_unavailable == 1 and ds.max_surge == 0
    assert ds.template.spec.requests["cpu"] == 100
    assert snap.nodes["n1"].ready is False
    agent, proxy = snap.pods["kube-system/agent-x1"], snap.pods["kube-system/kube-proxy-n1"]
    assert is_daemonset_pod(agent) and not is_daemonset_pod(proxy)
    assert is_mirror_pod(proxy) and not is_mirror_pod(agent)
    assert snap.owned_pods("DaemonSet", "kube-system/agent") == [agent]
    assert snap.copy().daemonsets == snap.daemonsets
