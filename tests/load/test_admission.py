"""The pods a workload creates get what the LimitRanger and RuntimeClass admission plugins give them
(planner.load.admission): check, simulate and capacity count those requests, that overhead and
that nodeSelector; LimitRanges and RuntimeClasses are validated as the API server does."""

from __future__ import annotations

import json

import pytest

from planner.load import load_snapshot
from tests.conftest import run_cli

HEAD = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
"""

WEB = """\
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: %s}
  spec:
    replicas: 0
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        %s
        containers: [%s]
"""

LIMIT_RANGE = """\
- apiVersion: v1
  kind: LimitRange
  metadata: {name: %s, namespace: default}
  spec:
    limits:
    - %s
"""

KATA = """\
- apiVersion: node.k8s.io/v1
  kind: RuntimeClass
  metadata: {name: kata}
  handler: kata
  overhead: {podFixed: {cpu: 500m, memory: 160Mi}}
  scheduling: {nodeSelector: {sandbox: kata}, tolerations: [{key: kata, operator: Exists, effect: NoSchedule}]}
"""


def _write(tmp_path, *parts: str):
    f = tmp_path / "in.yaml"
    f.write_text(HEAD + "".join(parts))
    return f


def _web(ns: str = "default", containers: str = "{name: c, image: web:1}", extra: str = "") -> str:
    return WEB % (ns, extra or "dnsPolicy: ClusterFirst", containers)


def test_limit_range_default_requests_are_the_new_pods(tmp_path):
    f = _write(tmp_path, LIMIT_RANGE % ("defaults", "{type: Container, defaultRequest: {cpu: '1'}, default: {cpu: '1'}}"), _web())
    spec = load_snapshot([str(f)]).deployments["default/web"].template.spec
    assert spec.requests == {"cpu": 1000}
    r = run_cli(["check", str(f), "-w", "deployment/web", "--replicas", "3", "-o", "json"])
    assert r.code == 1 and json.loads(r.out)["schedulable"] is False  # 3 x 1 cpu on 2 cpus
    assert run_cli(["check", str(f), "-w", "deployment/web", "--replicas", "2"]).code == 0


@pytest.mark.parametrize(
    ("item", "containers", "want"),
    [
        # a container's own request, or its limit (defaulting comes before admission), wins
        ("{type: Container, defaultRequest: {cpu: 500m}}", "{name: c, image: x, resources: {requests: {cpu: 100m}}}", {"cpu": 100}),
        ("{type: Container, defaultRequest: {cpu: 500m}}", "{name: c, image: x, resources: {limits: {cpu: 200m}}}", {"cpu": 200}),
        # SetDefaults_LimitRangeItem: default request from the default limit, else from max, else from min
        ("{type: Container, default: {memory: 1Gi}}", "{name: c, image: x}", {"memory": 1 << 30}),
        ("{type: Container, max: {cpu: '2'}}", "{name: c, image: x}", {"cpu": 2000}),
        ("{type: Container, min: {cpu: 50m}}", "{name: c, image: x}", {"cpu": 50}),
        # every container and init container gets it; a Pod item gives nothing
        ("{type: Container, defaultRequest: {cpu: 300m}}", "{name: a, image: x}, {name: b, image: x}", {"cpu": 600}),
        ("{type: Pod, max: {cpu: '2'}}", "{name: c, image: x}", {}),
    ],
)
def test_limit_range_rules(tmp_path, item, containers, want):
    f = _write(tmp_path, LIMIT_RANGE % ("defaults", item), _web(containers=containers))
    assert dict(load_snapshot([str(f)]).deployments["default/web"].template.spec.requests) == want


def test_only_the_namespace_of_the_limit_range_and_the_first_by_name(tmp_path):
    f = _write(
        tmp_path,
        LIMIT_RANGE % ("b-second", "{type: Container, defaultRequest: {cpu: 700m, memory: 1Gi}}"),
        LIMIT_RANGE % ("a-first", "{type: Container, defaultRequest: {cpu: 300m}}"),
        _web(),
        _web(ns="other").replace("name: web,", "name: api,"),
        "- {apiVersion: v1, kind: Namespace, metadata: {name: other}}\n",
    )
    snap = load_snapshot([str(f)])
    assert dict(snap.deployments["default/web"].template.spec.requests) == {"cpu": 300, "memory": 1 << 30}
    assert dict(snap.deployments["other/api"].template.spec.requests) == {}


def test_runtime_class_overhead_and_scheduling(tmp_path):
    f = _write(tmp_path, KATA, _web(containers="{name: c, image: x, resources: {requests: {cpu: '1'}}}", extra="runtimeClassName: kata"))
    spec = load_snapshot([str(f)]).deployments["default/web"].template.spec
    assert spec.requests == {"cpu": 1500, "memory": 160 * (1 << 20)}
    assert spec.node_selector == {"sandbox": "kata"}
    assert [t.key for t in spec.tolerations] == ["kata"]
    r = run_cli(["check", str(f), "-w", "deployment/web", "--replicas", "1", "-o", "json"])
    assert r.code == 1  # no node has sandbox=kata


def test_a_runtime_class_not_read_is_noted(tmp_path):
    f = _write(tmp_path, _web(extra="runtimeClassName: gvisor"))
    snap = load_snapshot([str(f)])
    assert any("RuntimeClass gvisor" in n for n in snap.notes)
    assert snap.deployments["default/web"].template.spec.requests == {}


def test_existing_pods_are_read_as_they_are(tmp_path):
    pod = """\
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default}
  spec: {nodeName: n1, containers: [{name: c, image: x}]}
  status: {phase: Running}
"""
    f = _write(tmp_path, LIMIT_RANGE % ("defaults", "{type: Container, defaultRequest: {cpu: '1'}}"), pod)
    assert load_snapshot([str(f)]).pods["default/p"].spec.requests == {}


@pytest.mark.parametrize(
    ("part", "message"),
    [
        (LIMIT_RANGE % ("lr", "{type: Container, min: {cpu: '2'}, max: {cpu: '1'}}"), "min value 2 is greater than max value 1"),
        (LIMIT_RANGE % ("lr", "{type: Container, defaultRequest: {cpu: '2'}, default: {cpu: '1'}}"), "default request value 2 is greater than default limit value 1"),
        (LIMIT_RANGE % ("lr", "{type: Pod, default: {cpu: '1'}}"), "may not be specified when `type` is 'Pod'"),
        (KATA.replace("handler: kata", "handler: Kata_1"), "handler: Invalid value"),
        (KATA.replace("cpu: 500m", "cpu: -1"), "must be greater than or equal to 0"),
    ],
)
def test_validation(tmp_path, part, message):
    f = _write(tmp_path, part)
    r = run_cli(["validate", str(f)])
    assert r.code == 2 and message in r.out + r.err, r.out + r.err


@pytest.mark.parametrize("manifest", [
    "apiVersion: v1\nkind: Pod\nmetadata: {name: extra}\nspec: {containers: [{name: c, image: x}]}\n",
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: extra}\nspec:\n  selector: {matchLabels: {app: extra}}\n"
    "  template:\n    metadata: {labels: {app: extra}}\n    spec: {containers: [{name: c, image: x}]}\n",
])
def test_capacity_pod_file_copies_are_admitted_by_the_snapshots_limit_ranges(tmp_path, manifest):
    f = _write(tmp_path, LIMIT_RANGE % ("defaults", "{type: Container, defaultRequest: {cpu: 500m}}"))
    m = tmp_path / "extra.yaml"
    m.write_text(manifest)
    r = run_cli(["capacity", str(f), "--pod-file", str(m), "-o", "json"])
    assert r.code == 0, r.out + r.err
    data = json.loads(r.out)
    assert data["count"] == 4 and data["requests"] == {"cpu": 500}  # 2 cpus / 500m each


@pytest.mark.parametrize("runtime_class", [False, True])
@pytest.mark.parametrize(("workload", "scale"), [("statefulset/db", "3"), ("deployment/web", "3")])
def test_admitted_templates_are_still_the_ones_read(tmp_path, workload, scale, runtime_class):
    """A template the loader admitted (LimitRange defaults, a RuntimeClass) is still the template
    read: its revision hash is the cluster's, so a scale-up creates one pod and rolls nothing.
    Was: the StatefulSet's pods were all replaced at once for an update revision of planner's own."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "data" / "limitrange-statefulset-and-deployment.yaml").read_text()
    if runtime_class:
        text = text.replace("      spec:\n        containers: [{name: db", "      spec:\n        runtimeClassName: kata\n        containers: [{name: db")
        text = text.replace("objects:\n", "objects:\n- {apiVersion: node.k8s.io/v1, kind: RuntimeClass, metadata: {name: kata}, handler: kata, overhead: {podFixed: {cpu: 100m}}}\n")
    f = tmp_path / "s.yaml"
    f.write_text(text)
    r = run_cli(["simulate", str(f), "-w", workload, "--scale", scale, "-o", "json"])
    assert r.code == 0, r.out + r.err
    data = json.loads(r.out)
    step = data["steps"][1]["events"]
    assert [e["type"] for e in step if e["type"] in ("created", "deleted")] == ["created"]
    assert not any(e["type"] == "deleted" for s in data["steps"] for e in s["events"])
