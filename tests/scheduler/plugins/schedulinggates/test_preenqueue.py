"""SchedulingGates (PreEnqueue): a gated pod stays out of kube-scheduler's queue; explain says so,
the replay leaves it Pending, check notes it, and the gates are validated as the API server does."""

from __future__ import annotations

import json

from planner.domain import Pod, PodSpec
from planner.scheduler.framework import UNRESOLVABLE
from planner.scheduler.plugins.schedulinggates import preenqueue
from tests.conftest import run_cli

SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: gated, namespace: default}
  spec:
    schedulingGates: [%s]
    containers: [{name: c, image: nginx:1, resources: {requests: {cpu: "1"}}}]
  status: {phase: Pending}
"""

SCENARIO = """\
apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {name: gated-deployment}
nodePools:
- {name: g, count: 1, capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: job}
  spec:
    replicas: 1
    selector: {matchLabels: {app: job}}
    template:
      metadata: {labels: {app: job}}
      spec:
        schedulingGates: [{name: example.com/admission}]
        containers: [{name: c, image: job:1, resources: {requests: {cpu: "1"}}}]
"""


def test_pre_enqueue() -> None:
    assert preenqueue.pre_enqueue(Pod("default", "p", {}, PodSpec())) is None
    st = preenqueue.pre_enqueue(Pod("default", "p", {}, PodSpec(scheduling_gates=("a.io/x", "b"))))
    assert st is not None and st.code == UNRESOLVABLE and st.plugin == "SchedulingGates"
    assert st.message == "waiting for scheduling gates: [a.io/x b]"


def test_explain_says_the_pod_waits_for_its_gates(tmp_path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(SNAPSHOT % "{name: example.com/quota}")
    r = run_cli(["explain", str(f), "--pod", "default/gated", "-o", "json"])
    assert r.code == 1, r.out + r.err
    data = json.loads(r.out)
    assert data["schedulable"] is False
    assert data["reason"] == "waiting for scheduling gates: [example.com/quota]"
    assert data["gated"]["gates"] == ["example.com/quota"]
    assert data["feasible_nodes"] == ["n1"]  # what the filters say once the gate is removed
    assert data["preemption"]["helps"] is False
    table = run_cli(["explain", str(f), "--pod", "default/gated"])
    assert "WAITING FOR SCHEDULING GATES" in table.out


def test_the_replay_leaves_gated_pods_pending_and_check_notes_them(tmp_path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO)
    r = run_cli(["simulate", str(f), "-w", "deployment/job", "--scale", "2", "-o", "json"])
    assert r.code == 1, r.out + r.err
    data = json.loads(r.out)
    assert len(data["stuck"]) == 2
    assert all(s["reasons"][0] == "waiting for scheduling gates: [example.com/admission]" for s in data["stuck"])
    c = run_cli(["check", str(f), "-w", "deployment/job", "--replicas", "2", "-o", "json"])
    assert any("scheduling gates (example.com/admission)" in n for n in json.loads(c.out)["notes"])


def test_gates_are_validated(tmp_path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(SNAPSHOT % '{name: "bad name!"}, {name: a.io/x}, {name: a.io/x}')
    r = run_cli(["validate", str(f)])
    assert r.code == 2
    assert "spec.schedulingGates[0]: Invalid value: \"bad name!\"" in r.out + r.err
    assert "spec.schedulingGates[2]: Duplicate value: \"a.io/x\"" in r.out + r.err
