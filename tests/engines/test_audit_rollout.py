"""The audit's rollout rule agrees with planner simulate --rollout.

* a rollout that sticks on room alone (CPU, memory, the pod count) is found, with kube-scheduler's
  summary line and remediate's plan as the fix;
* agreement: on every bundled scenario and on one-change variants, audit reports
  ``rollout-deadlock`` for a workload exactly when ``simulate --workload W --rollout`` says STUCK
  (paused Deployments and OnDelete StatefulSets aside: no controller rolls them; audit notes it);
* the pre-check (planner/engines/audit/precheck.py) is held to the replay on random clusters:
  whenever it says a rollout cannot stick, the audit's replay and simulate's both complete.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from planner.engines.audit import audit, workloads_of
from planner.engines.audit.model import Context
from planner.engines.audit.precheck import rollout_cannot_stick
from planner.engines.replay import Simulator, Step
from planner.load import load_snapshot
from tests.conftest import SCENARIOS, run_cli

# Seed 004's story with room instead of anti-affinity: two nodes with room for exactly one
# replica each, two replicas, the default 25%/25% strategy (maxSurge 1, maxUnavailable 0).
CPU = """apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {{name: rollout-on-room}}
nodePools:
- name: dev
  count: {nodes}
  capacity: {{cpu: "2", memory: 4Gi, pods: "{pods}"}}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web}}
  spec:
    replicas: 2
{strategy}    selector: {{matchLabels: {{app: web}}}}
    template:
      metadata: {{labels: {{app: web}}}}
      spec:
        containers: [{{name: c, image: "nginx:1.17", resources: {{requests: {{cpu: {cpu}, memory: {memory}}}}}}}]
pods:
- {{workload: deployment/web, count: 2, nodes: [dev-0, dev-1]}}
"""


def cpu_scenario(tmp_path: Path, name: str = "room", nodes: int = 2, pods: int = 110, strategy: str = "", cpu: str = "1500m",
                 memory: str = "1Gi") -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text(CPU.format(nodes=nodes, pods=pods, strategy=strategy, cpu=cpu, memory=memory))
    return p


# one change each to the room scenario, and whether the rollout sticks
VARIANTS = {
    "cpu": ({}, True),
    "memory": ({"cpu": "100m", "memory": "3Gi"}, True),
    "pod-count": ({"cpu": "100m", "pods": 1}, True),
    "max-unavailable-1": ({"strategy": "    strategy: {rollingUpdate: {maxUnavailable: 1}}\n"}, False),
    "recreate": ({"strategy": "    strategy: {type: Recreate}\n"}, False),
    "room-for-the-surge": ({"cpu": "1000m"}, False),
    "third-node": ({"nodes": 3}, False),
    "paused": ({"strategy": "    paused: true\n"}, None),  # no controller rolls it: audit notes it
}


def test_cpu_only_stuck_rollout_is_found(tmp_path):
    path = cpu_scenario(tmp_path)
    sim = run_cli(["simulate", path, "--workload", "deployment/web", "--rollout", "-o", "json"])
    assert sim.code == 1
    stuck = json.loads(sim.out)["stuck"][0]
    r = run_cli(["audit", path, "-o", "json"])
    assert r.code == 1, r.err
    f = next(f for f in json.loads(r.out)["findings"] if f["rule"] == "rollout-deadlock")
    assert f["objects"][0] == "deployment/default/web" and f["severity"] == "error"
    assert f["details"]["summary"] == "0/2 nodes are available: 2 Insufficient cpu." == stuck["reasons"][0]
    assert f["details"]["stuck_pods"] == [stuck["pod"]] and f["details"]["reasons"] == stuck["reasons"]
    assert "2 Insufficient cpu" in f["message"] and "maxUnavailable 0 of 2" in f["message"]
    assert f["fix"] is not None and f["fix"]["verified"] and f["fix"]["goal"]["type"] == "rollout"


def _stuck(snap, w) -> bool:
    res = Simulator(snap, seed=0).run([Step("rollout", {"ref": w.ref, "workload": str(w.ref), "image": None})], [w.ref])
    return not res["completed"]


def _agreement(path: Path) -> list[str]:
    snap = load_snapshot([str(path)])
    res = audit(snap, fixes=False)
    found = {f.objects[0] for f in res.findings if f.rule == "rollout-deadlock"}
    out = []
    for w in workloads_of(snap, None):
        stuck = _stuck(snap, w)
        if any(n.startswith(f"{w.name}: rollout not replayed") for n in res.notes):
            assert stuck and w.name not in found, w.name  # paused / OnDelete: simulate's STUCK is "nothing rolls"
            out.append(f"{w.name}: not rolled")
            continue
        assert (w.name in found) == stuck, f"{path.name}: {w.name}: simulate {'STUCK' if stuck else 'COMPLETED'}, audit {found}"
        out.append(f"{w.name}: {'STUCK' if stuck else 'COMPLETED'}")
    return out


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
def test_audit_agrees_with_simulate_on_bundled_scenarios(path):
    _agreement(path)


@pytest.mark.parametrize("name", VARIANTS)
def test_audit_agrees_with_simulate_on_variants(tmp_path, name):
    change, sticks = VARIANTS[name]
    got = _agreement(cpu_scenario(tmp_path, name, **change))
    want = "not rolled" if sticks is None else ("STUCK" if sticks else "COMPLETED")
    assert got == [f"deployment/default/web: {want}"]


def test_audit_agrees_with_simulate_on_variants_of_the_seeds(tmp_path):
    """One change to seed scenarios: seed 004's fix without its maxUnavailable, and with a third node."""
    fixed = (SCENARIOS / "rollout-hostname-anti-affinity-fixed.yaml").read_text()
    assert "maxUnavailable: 50%" in fixed
    undone = tmp_path / "undone.yaml"
    undone.write_text(fixed.replace("maxUnavailable: 50%", "maxUnavailable: 0"))
    assert _agreement(undone) == ["deployment/default/web: STUCK"]
    seed = (SCENARIOS / "rollout-hostname-anti-affinity.yaml").read_text()
    assert "count: 2\n  names: [node0, node1]" in seed
    third = tmp_path / "third.yaml"
    third.write_text(seed.replace("count: 2\n  names: [node0, node1]", "count: 3\n  names: [node0, node1, node2]"))
    assert _agreement(third) == ["deployment/default/web: COMPLETED"]


# --------------------------------------------------------------------------- the pre-check


def _random_cluster(rng: random.Random) -> str:
    n = rng.randint(1, 4)
    cap = rng.choice([2, 3, 4])
    pods_cap = rng.choice([3, 4, 110])
    pools = [f"- name: p{i}\n  count: 1\n  capacity: {{cpu: \"{cap}\", memory: 8Gi, pods: \"{pods_cap}\"}}\n" for i in range(n)]
    tainted = rng.random() < 0.2
    if tainted:
        pools[0] += "  taints: [{key: dedicated, value: x, effect: NoSchedule}]\n"
    if rng.random() < 0.15:
        pools[-1] += "  unschedulable: true\n"
    nodes = [f"p{i}-0" for i in range(n)]
    kind = rng.choice(["Deployment", "Deployment", "StatefulSet"])
    replicas = rng.randint(0, 4)
    cpu = rng.choice(["500m", "1", "1500m", "2"])
    spec = ""
    if kind == "Deployment":
        strat = rng.choice(["default", "ru", "ru", "recreate"])
        if strat == "ru":
            surge, unav = rng.choice([0, 1, 2, "50%"]), rng.choice([0, 1, "25%", "50%"])
            if surge == 0 and unav == 0:
                unav = 1
            spec = f"    strategy: {{rollingUpdate: {{maxSurge: {json.dumps(surge)}, maxUnavailable: {json.dumps(unav)}}}}}\n"
        elif strat == "recreate":
            spec = "    strategy: {type: Recreate}\n"
    else:
        spec = f"    serviceName: app\n    podManagementPolicy: {rng.choice(['OrderedReady', 'Parallel'])}\n"
        if rng.random() < 0.5:
            spec += f"    updateStrategy: {{rollingUpdate: {{maxUnavailable: {rng.choice([1, 2, '50%'])}}}}}\n"
    extra = ""
    if tainted and rng.random() < 0.5:
        extra += "        tolerations: [{key: dedicated, operator: Exists}]\n"
    if rng.random() < 0.15:
        extra += ("        topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, "
                  "whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: app}}}]\n")
    short = "deployment/app" if kind == "Deployment" else "statefulset/app"
    placed = [rng.choice(nodes) for _ in range(replicas)]
    pods = [f"- {{workload: {short}, {'count: ' + str(replicas) if kind == 'Deployment' else 'ordinals: ' + str(list(range(replicas)))}, "
            f"nodes: [{', '.join(placed)}]}}\n"] if replicas else []
    filler = rng.randint(0, 3)
    if filler:
        pods.append(f"- {{workload: deployment/filler, count: {filler}, nodes: [{', '.join(rng.choice(nodes) for _ in range(filler))}]}}\n")
    return f"""apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {{name: random}}
nodePools:
{''.join(pools)}objects:
- apiVersion: apps/v1
  kind: {kind}
  metadata: {{name: app}}
  spec:
    replicas: {replicas}
{spec}    selector: {{matchLabels: {{app: app}}}}
    template:
      metadata: {{labels: {{app: app}}}}
      spec:
        containers: [{{name: c, image: "img:1", resources: {{requests: {{cpu: "{cpu}"}}}}}}]
{extra}- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: filler}}
  spec:
    replicas: {filler}
    selector: {{matchLabels: {{app: filler}}}}
    template:
      metadata: {{labels: {{app: filler}}}}
      spec:
        containers: [{{name: c, image: "img:1", resources: {{requests: {{cpu: "1"}}}}}}]
pods:{chr(10) + ''.join(pods) if pods else ' []'}
"""


def test_precheck_cannot_stick_means_the_replay_completes(tmp_path):
    """Random small clusters: whenever the pre-check proves that a rollout cannot stick, the
    audit's replay (the focused copy) and simulate's (the whole snapshot) both complete; and the
    audit agrees with simulate on every one of them."""
    rng = random.Random(20240611)
    proven = replayed = sticking = 0
    for i in range(120):
        text = _random_cluster(rng)
        path = tmp_path / f"random-{i}.yaml"
        path.write_text(text)
        snap = load_snapshot([str(path)])
        ctx = Context(snap)
        for w in workloads_of(snap, None):
            if w.ref.name != "app":
                continue
            step = [Step("rollout", {"ref": w.ref, "workload": str(w.ref), "image": None})]
            why = rollout_cannot_stick(ctx, w)
            full = Simulator(snap, seed=0).run(step, [w.ref])
            if why is not None:
                proven += 1
                focused = Simulator(ctx.focuser.focus([w.ref]), seed=0).run(step, [w.ref])
                assert focused["completed"] and full["completed"], (why, text)
            else:
                replayed += 1
        res = audit(snap, fixes=False)
        found = {f.objects[0] for f in res.findings if f.rule == "rollout-deadlock"}
        for w in workloads_of(snap, None):
            stuck = _stuck(snap, w)
            sticking += stuck
            assert (w.name in found) == stuck, (w.name, text)
    # both sides of the pre-check are exercised, and rollouts that stick are among the clusters
    assert proven >= 30 and replayed >= 30 and sticking >= 15, (proven, replayed, sticking)


def test_a_pod_waiting_elsewhere_takes_the_room_a_rollout_frees(tmp_path):
    """Another workload's Pending pod competes for the room a rollout frees (kube-scheduler retries
    it when a pod is deleted): the ordinary cluster with the HPA-managed StatefulSet's pods at
    1200m, where api-5 waits and takes a web node's room mid-rollout. simulate says web's rollout
    sticks; the audit's focused replay (which once left other workloads' Pending pods out) and its
    pre-check must agree."""
    text = (SCENARIOS / "cordoned-node-hpa-helm.yaml").read_text()
    assert "cpu: 1600m, memory: 2Gi" in text
    path = tmp_path / "waiting.yaml"
    path.write_text(text.replace("cpu: 1600m, memory: 2Gi", "cpu: 1200m, memory: 2Gi"))
    got = _agreement(path)
    assert "deployment/shop/web: STUCK" in got, got
