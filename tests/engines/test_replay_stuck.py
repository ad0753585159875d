"""What counts against a replayed transition: Pending pods of the watched workloads, and pods that
became Pending during the replay; a pod of another workload that was Pending before the first step
is listed apart (pending_elsewhere) and does not make the transition STUCK."""

from __future__ import annotations

import json

from tests.conftest import run_cli

SCENARIO = """\
apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {name: unrelated-pending}
nodePools:
- {name: pool, count: 2, capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: c, image: "nginx:1.27", resources: {requests: {cpu: 100m}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: gpu-job, namespace: batch}
  spec:
    nodeSelector: {accelerator: h100}
    containers: [{name: c, image: trainer}]
  status: {phase: Pending}
- {apiVersion: v1, kind: Namespace, metadata: {name: batch}}
pods:
- {workload: deployment/web, count: 2}
"""


def _run(tmp_path, *args):
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO)
    return run_cli(["simulate", str(f), "-w", "deployment/web", *args])


def test_a_rollout_completes_while_an_unrelated_pod_stays_pending(tmp_path):
    r = _run(tmp_path, "--rollout", "-o", "json")
    assert r.code == 0, r.out + r.err
    data = json.loads(r.out)
    assert data["completed"] is True
    assert data["stuck"] == []
    assert [p["pod"] for p in data["pending_elsewhere"]] == ["batch/gpu-job"]
    assert "node affinity/selector" in data["pending_elsewhere"][0]["reasons"][0]
    table = _run(tmp_path, "--rollout")
    assert table.code == 0
    assert "COMPLETED" in table.out and "batch/gpu-job" in table.out


def test_a_pod_the_transition_leaves_pending_still_counts(tmp_path):
    # scaled beyond the 2 nodes' cpu: 40 x 100m > 2 x 2 cpu, so web's own pods stay Pending
    r = _run(tmp_path, "--scale", "41", "-o", "json")
    assert r.code == 1, r.out + r.err
    data = json.loads(r.out)
    assert data["completed"] is False
    assert data["stuck"] and all(s["pod"].startswith("default/web-") for s in data["stuck"])
    assert [p["pod"] for p in data["pending_elsewhere"]] == ["batch/gpu-job"]


def test_a_drained_node_is_tainted_as_the_node_lifecycle_controller_does():
    """kubectl drain cordons; the node lifecycle controller then taints the node
    node.kubernetes.io/unschedulable:NoSchedule, so a hostname spread with nodeTaintsPolicy: Honor
    stops counting it and the evicted pod lands on another node.  Was: cordoned without the taint,
    the drained node counted as a domain with no pod and the pod stayed Pending."""
    from pathlib import Path

    f = Path(__file__).resolve().parents[1] / "data" / "drain-spread-honor-taints.yaml"
    r = run_cli(["simulate", str(f), "-w", "deployment/web", "--drain", "g-za-0", "-o", "json"])
    assert r.code == 0, r.out + r.err
    data = json.loads(r.out)
    assert data["completed"] is True and data["stuck"] == []
    assert {p["node"] for p in data["steps"][-1]["pods"].values()} == {"g-za-1", "g-za-2"}


HPA_SCENARIO = """\
apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {name: hpa-bounds}
nodePools:
- {name: pool, count: 3, capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: c, image: "nginx:1.27", resources: {requests: {cpu: 100m}}}]
- apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata: {name: web}
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    minReplicas: 2
    maxReplicas: 4
pods:
- {workload: deployment/web, count: 3}
steps:
- {hpa: deployment/web, replicas: [6, 0]}
"""


def test_an_hpa_step_stays_within_the_hpas_bounds(tmp_path):
    """horizontal.go normalizeDesiredReplicas: counts past minReplicas..maxReplicas are clamped
    (was: the replay scaled to 6, then to 0)."""
    f = tmp_path / "s.yaml"
    f.write_text(HPA_SCENARIO)
    r = run_cli(["simulate", str(f), "-w", "deployment/web", "-o", "json"])
    assert r.code == 0, r.out + r.err
    data = json.loads(r.out)
    running = [sum(1 for p in s["pods"].values() if p["phase"] == "Running") for s in data["steps"]]
    assert running == [3, 4, 2]
    assert any("maxReplicas 4: scaled to 4" in n for n in data["notes"])
    assert any("minReplicas 2 and maxReplicas 4: scaled to 2" in n for n in data["notes"])


def test_without_explaining_elsewhere_only_those_reasons_are_left_out(tmp_path):
    """Simulator.run(explain_elsewhere=False), as a remediation's verification runs it: the same
    replay, the pods Pending elsewhere listed without their reasons (never evaluated)."""
    from planner.engines.replay import Simulator, Step
    from planner.engines.workloads import parse_workload
    from planner.load import Limits, load_snapshot

    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO)
    snap = load_snapshot([str(f)], Limits())
    ref = parse_workload("deployment/web", None)
    steps = [Step("scale", {"ref": ref, "workload": str(ref), "replicas": 60})]
    full = Simulator(snap, seed=1).run(steps, [ref])
    lean = Simulator(snap, seed=1).run(steps, [ref], explain_elsewhere=False)
    assert full["stuck"] and full["stuck"] == lean["stuck"]  # the workload's own Pending pods: explained
    assert [p["reasons"] for p in lean["pending_elsewhere"]] == [[]]
    assert full["pending_elsewhere"][0]["reasons"]
    full.pop("pending_elsewhere")
    lean.pop("pending_elsewhere")
    assert full == lean
