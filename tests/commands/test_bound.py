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
        # a suite started in the background of a non-interactive shell inherits SIGINT ignored:
        # the child gets the default handler back, as a command typed at a terminal has
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(2.0)
    if p.poll() is not None:
        pytest.skip("the capacity run ended before the signal")
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert err == "interrupted\n"


def test_capacity_collapses_just_past_the_bound_too(tmp_path: Path) -> None:
    """No margin in capacity: every count past the bound is one NO row, never walked count by
    count (each would be a full unschedulable check; docs/semantics.md, bench/bound_margin.py).
    Was: a range ending within 1,000 past the bound was walked in full."""
    import json

    from tests.conftest import run_cli

    r = run_cli(["capacity", _write(tmp_path, "Deployment", replicas=3, hpa_max=5), "-w", "deployment/web", "--range", "78..900", "-o", "json"])
    assert r.code == 1, r.err
    data = json.loads(r.out)
    assert [x["replicas"] for x in data["replicas"]] == [78, 79, 80] and all(x["schedulable"] for x in data["replicas"])
    assert data["bound"]["past"] == {"min": 81, "max": 900}


SCALE_THEN_ADD = """- {scale: deployment/web, replicas: 30}
- {addNodes: {zone: a, count: 1}}
"""


@pytest.mark.parametrize("add", [False, True])
def test_a_capped_scale_grows_when_a_later_step_makes_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, add: bool) -> None:
    """A scale past the cluster's bound is replayed with one replica more than the bound; a later
    step that makes room (here a node added) lets it grow to the count asked, and the replay
    completes as the full replay (every replica, no cap) would. Was: the workload stayed capped to
    the end ("the scale never completes")."""
    import json

    from planner.engines import replay
    from tests.conftest import run_cli

    small = NODES.replace('cpu: "4"', 'cpu: "1"')  # room for 10 pods of 100m per node: bound 20
    f = tmp_path / "c.yaml"
    f.write_text(small + WORKLOAD.format(kind="Deployment", replicas=2, hpa_max=5, extra=""))
    steps = tmp_path / "steps.yaml"
    steps.write_text(SCALE_THEN_ADD if add else SCALE_THEN_ADD.splitlines()[0] + "\n")
    results = {}
    for slack in (0, 10**9):  # the replay's margin (none), and one no count reaches: the full replay
        monkeypatch.setattr(replay, "STEP_SLACK", slack)
        r = run_cli(["simulate", str(f), "-w", "deployment/web", "--steps", str(steps), "-o", "json"])
        results[slack] = json.loads(r.out)
        assert r.code == (0 if add else 1), r.out + r.err
    capped, full = results[0], results[10**9]
    events = [e["type"] for s in capped["steps"] for e in s["events"]]
    assert "capped" in events
    assert ("uncapped" in events) is add
    assert capped["completed"] == full["completed"] == add
    assert capped["final"]["zones"] == full["final"]["zones"]


def test_the_margin_of_each_command_just_past_the_bound(tmp_path: Path) -> None:
    """100 replicas where the bound is 80 (docs/semantics.md): check plans them (within 1,000 of
    the bound: the why of a full check, which names what runs out where); simulate replays 81, one
    more than the bound (no margin: the same answer for less work); capacity collapses 81..100."""
    import json

    from tests.conftest import run_cli

    f = _write(tmp_path, "Deployment", replicas=3, hpa_max=5)
    r = run_cli(["check", f, "-w", "deployment/web", "--replicas", "100", "-o", "json"])
    out = json.loads(r.out)
    assert r.code == 1 and out["stats"]["model"] != "bound" and out["stats"]["pods_to_place"] == 100, r.out
    r = run_cli(["simulate", f, "-w", "deployment/web", "--scale", "100", "-o", "json"])
    out = json.loads(r.out)
    assert r.code == 1 and any("replayed with 81 replicas" in n for n in out["notes"]), r.out
    assert len(out["final"]["pods"]) == 81
    r = run_cli(["capacity", f, "-w", "deployment/web", "--range", "79..100", "-o", "json"])
    out = json.loads(r.out)
    assert [x["replicas"] for x in out["replicas"]] == [79, 80] and out["bound"]["past"] == {"min": 81, "max": 100}


def test_an_hpa_range_within_the_bound_is_walked_501_counts_at_most(tmp_path: Path) -> None:
    """An HPA of 1..900 where the bound is 1,280 (two nodes of 1,000 pods and 64 CPUs): 900
    counts, each a check; refused like a --range of as many counts. Was: walked count by count
    whatever its length (an HPA's range was limited only when it went past the bound)."""
    from tests.conftest import run_cli

    big = NODES.replace('cpu: "4", memory: 8Gi, pods: "110"', 'cpu: "64", memory: 256Gi, pods: "1000"')
    f = tmp_path / "c.yaml"
    f.write_text(big + WORKLOAD.format(kind="Deployment", replicas=3, hpa_max=900, extra=""))
    r = run_cli(["capacity", str(f), "-w", "deployment/web"])
    assert r.code == 2, r.out + r.err
    assert "HorizontalPodAutoscaler default/web: spec.minReplicas..spec.maxReplicas 1..900: 900 counts" in r.err
    assert "at most 501 counts at once (give --range A..B)" in r.err
