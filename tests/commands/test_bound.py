"""Counts past the most pods the cluster could ever hold (RoomBound) are answered at once, by every
command, within a wall-clock and a memory bound (the CLI in a subprocess); Ctrl-C exits 130."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HUGE = 2147483647
ROOT = Path(__file__).resolve().parents[2]

NODES = """apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: a, kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {topology.kubernetes.io/zone: b, kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""

WORKLOAD = """---
apiVersion: apps/v1
kind: {kind}
metadata: {{name: web, namespace: default, uid: u1}}
spec:
  replicas: {replicas}
{extra}  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 100m, memory: 128Mi}}}}}}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {{name: web, namespace: default}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: {kind}, name: web}}
  minReplicas: 1
  maxReplicas: {hpa_max}
  metrics: [{{type: Resource, resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 50}}}}}}]
"""

LIMIT = """import resource, sys, runpy
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
sys.argv = ["planner"] + sys.argv[1:]
runpy.run_module("planner", run_name="__main__")
"""


def _write(tmp_path: Path, kind: str, replicas: int = HUGE, hpa_max: int = HUGE, extra: str = "") -> str:
    if kind == "StatefulSet" and not extra:
        extra = "  serviceName: web\n"
    f = tmp_path / f"{kind}.yaml"
    f.write_text(NODES + WORKLOAD.format(kind=kind, replicas=replicas, hpa_max=hpa_max, extra=extra))
    return str(f)


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """The CLI in a child limited to 2 GiB of address space, killed past ``timeout`` seconds."""
    return subprocess.run([sys.executable, "-c", LIMIT, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


KINDS = [("StatefulSet", "statefulset/web"), ("Deployment", "deployment/web")]


@pytest.mark.parametrize(("kind", "ref"), KINDS)
def test_check_past_the_bound_is_unschedulable_by_arithmetic(tmp_path: Path, kind: str, ref: str) -> None:
    r = _run("check", _write(tmp_path, kind), "-w", ref)
    assert r.returncode == 1, r.stderr
    assert "UNSCHEDULABLE" in r.stdout
    assert "the cluster has room for at most 80 more pod(s)" in r.stdout
    assert "cpu 80" in r.stdout and "at most 80 replicas; 2,147,483,647 asked" in r.stdout
    r = _run("check", _write(tmp_path, kind, replicas=3), "-w", ref, "--replicas", str(HUGE))
    assert r.returncode == 1 and "2,147,483,647 asked" in r.stdout, r.stderr


@pytest.mark.parametrize(("kind", "ref"), KINDS)
def test_capacity_collapses_the_counts_past_the_bound(tmp_path: Path, kind: str, ref: str) -> None:
    import json

    r = _run("capacity", _write(tmp_path, kind), "-w", ref, "-o", "json")  # the HPA's 1..2147483647
    assert r.returncode == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["range"] == {"min": 1, "max": HUGE, "source": "HorizontalPodAutoscaler default/web"}
    assert len(data["replicas"]) == 80 and all(x["schedulable"] for x in data["replicas"])
    assert data["max_replicas"] == 80
    assert data["bound"]["max_replicas"] == 80 and data["bound"]["past"] == {"min": 81, "max": HUGE}
    r = _run("capacity", _write(tmp_path, kind, replicas=3, hpa_max=5), "-w", ref, "--range", f"75..{HUGE}")
    assert r.returncode == 1, r.stderr
    assert f"81..{HUGE}" in r.stdout and "NO" in r.stdout and "past the cluster's bound 80" in r.stdout


@pytest.mark.parametrize(("kind", "ref"), KINDS)
def test_simulate_scale_past_the_bound_is_stuck_with_the_pods_capped(tmp_path: Path, kind: str, ref: str) -> None:
    f = _write(tmp_path, kind, replicas=3)
    r = _run("simulate", f, "-w", ref, "--scale", str(HUGE))
    assert r.returncode == 1, r.stderr
    assert "STUCK" in r.stdout
    assert "replayed with 81 replicas" in r.stdout and "2,147,483,647 asked" in r.stdout
    r = _run("simulate", _write(tmp_path, kind), "-w", ref, "--rollout")  # spec.replicas as read
    assert r.returncode == 1 and "spec.replicas 2,147,483,647 as read" in r.stdout, r.stderr


@pytest.mark.parametrize(("kind", "ref"), KINDS)
@pytest.mark.parametrize("goal", ["--replicas", "--scale"])
def test_remediate_refuses_a_goal_past_any_plan(tmp_path: Path, kind: str, ref: str, goal: str) -> None:
    r = _run("remediate", _write(tmp_path, kind, replicas=3), "-w", ref, goal, str(HUGE))
    assert r.returncode == 1, r.stderr
    assert "2,147,483,647 replicas are past any plan" in r.stdout
    assert "0 verified plan(s)" in r.stdout


def test_huge_ordinals_start_and_max_surge_answer(tmp_path: Path) -> None:
    f = _write(tmp_path, "StatefulSet", replicas=2, extra=f"  serviceName: web\n  ordinals: {{start: {HUGE - 5}}}\n")
    r = _run("check", f, "-w", "statefulset/web")
    assert r.returncode in (0, 1, 2) and "Traceback" not in r.stderr
    f = _write(tmp_path, "Deployment", replicas=2, extra=f"  strategy: {{type: RollingUpdate, rollingUpdate: {{maxSurge: {HUGE}, maxUnavailable: 0}}}}\n")
    r = _run("simulate", f, "-w", "deployment/web", "--rollout")
    assert r.returncode in (0, 1, 2) and "Traceback" not in r.stderr


def test_ctrl_c_exits_130_with_one_line(tmp_path: Path) -> None:
    nodes = "\n---\n".join(
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{topology.kubernetes.io/zone: z{i % 3}, kubernetes.io/hostname: n{i}}}}}\n"
        'status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}'
        for i in range(60)
    )
    dep = """apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: default, uid: u2}
spec:
  replicas: 10
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: api}}}]}}
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 300m, memory: 1Gi}}}]"""
    f = tmp_path / "slow.yaml"
    f.write_text(nodes + "\n---\n" + dep)
    # counts 61..450 are each a full unschedulable check: several seconds in all
    p = subprocess.Popen(
        [sys.executable, "-m", "planner", "capacity", str(f), "-w", "deployment/api", "--range", "50..450"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    time.sleep(2.0)
    if p.poll() is not None:
        pytest.skip("the capacity run ended before the signal")
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert err == "interrupted\n"
