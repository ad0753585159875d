"""On a cluster built like an ordinary production one (scenarios/production-cluster.yaml: several
namespaces, a cordoned node, a tainted GPU pool, a DaemonSet, a crash-looping replica,
PriorityClasses, PodDisruptionBudgets, an HPA-managed StatefulSet), the commands give the same
answer to the same question:

* "can workload W run N replicas?": check's verdict, capacity's row for N, whether simulate
  --scale N brings W to N, and remediate's schedulable_now; and preemption where check preempts
  is preemption where simulate does;
* "does one more pod of W fit now?": explain (a node passes every filter, or DefaultPreemption
  would make room) and check at the current count + 1;
* "does a rollout of W stick?": simulate --rollout and audit's rollout-deadlock finding.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
import yaml

from .conftest import SCENARIOS, run_cli

PATH = SCENARIOS / "production-cluster.yaml"
WORKLOADS = ["deployment/shop/web", "deployment/shop/api", "statefulset/data/db", "deployment/batch/report", "deployment/ml/trainer"]
QUESTIONS = [
    ("deployment/shop/web", 9),  # fits by preempting report pods
    ("deployment/shop/web", 18),
    ("deployment/shop/web", 19),
    ("deployment/shop/api", 6),
    ("statefulset/data/db", 6),
    ("deployment/batch/report", 7),  # nothing report may preempt
    ("deployment/ml/trainer", 4),
    ("deployment/ml/trainer", 5),  # past the GPU pool's 4 GPUs
]


def _json(args: list) -> dict:
    r = run_cli([*args, "-o", "json"])
    assert r.code in (0, 1), r.err
    return json.loads(r.out)


@cache
def _doc() -> dict:
    return yaml.safe_load(PATH.read_text())


def _current(workload: str) -> int:
    kind, ns, name = workload.split("/")
    for o in _doc()["objects"]:
        if o["kind"].lower() == kind and o["metadata"]["name"] == name and o["metadata"].get("namespace") == ns:
            return int(o["spec"]["replicas"])
    raise AssertionError(workload)


def _template_pod(workload: str, tmp_path: Path) -> Path:
    kind, ns, name = workload.split("/")
    obj = next(o for o in _doc()["objects"] if o["kind"].lower() == kind and o["metadata"]["name"] == name)
    tpl = obj["spec"]["template"]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"{name}-next", "namespace": ns, "labels": tpl["metadata"]["labels"]},
           "spec": tpl["spec"]}
    p = tmp_path / f"{name}.yaml"
    p.write_text(yaml.safe_dump(pod))
    return p


def _reached(workload: str, n: int) -> tuple[bool, int]:
    """simulate --scale N: whether W ends with N pods bound and none of its pods stuck (a
    crash-looping replica is placed: readiness is not what check answers), and how many pods
    were preempted on the way."""
    d = _json(["simulate", PATH, "--workload", workload, "--scale", n])
    pods = {k: v for k, v in d["final"]["pods"].items() if v["workload"] == workload}
    stuck = [s for s in d["stuck"] if s["pod"] in pods]
    bound = [k for k, v in pods.items() if v["node"]]
    preempted = sum(1 for st in d["steps"] for e in st["events"] if e["type"] == "preempted")
    return len(bound) == n and not stuck, preempted


@pytest.mark.parametrize("workload,n", QUESTIONS, ids=[f"{w.split('/')[-1]}-{n}" for w, n in QUESTIONS])
def test_check_capacity_simulate_remediate_agree(workload: str, n: int):
    check = _json(["check", PATH, "--workload", workload, "--replicas", n])
    cap = _json(["capacity", PATH, "--workload", workload, "--range", f"{n}..{n}"])
    # a count past the cluster's bound gets no row: the bound answers it (NO), in `bound.past`
    past = cap["bound"]["past"]
    (row,) = cap["replicas"] or [{"replicas": n, "schedulable": False, "preempted": []}]
    assert bool(cap["replicas"]) != bool(past and past["min"] <= n <= past["max"]), cap["bound"]
    reached, preempted = _reached(workload, n)
    rem = _json(["remediate", PATH, "--workload", workload, "--replicas", n, "--top", 1])
    verdicts = {"check": check["schedulable"], "capacity": row["schedulable"], "simulate": reached, "remediate": rem["schedulable_now"]}
    assert len(set(verdicts.values())) == 1, verdicts
    # a count that fits: check preempts where the replay preempts (one that does not fit is
    # unschedulable however many pods the replay evicts trying)
    if check["schedulable"]:
        assert bool(check["preempted"]) == (preempted > 0), (check["preempted"], preempted)
    assert len(row.get("preempted", [])) == len(check["preempted"])


@pytest.mark.parametrize("workload", WORKLOADS, ids=[w.split("/")[-1] for w in WORKLOADS])
def test_explain_agrees_with_check_on_one_more_pod(workload: str, tmp_path: Path):
    ex = _json(["explain", PATH, "--pod-file", _template_pod(workload, tmp_path)])
    fits = ex["schedulable"] or bool((ex.get("preemption") or {}).get("helps"))
    check = _json(["check", PATH, "--workload", workload, "--replicas", _current(workload) + 1])
    assert fits == check["schedulable"], (ex["summary"], ex.get("preemption"), check["explanation"])
    if not ex["schedulable"] and fits:
        assert check["preempted"]  # both say: only by preemption


@pytest.mark.parametrize("workload", WORKLOADS, ids=[w.split("/")[-1] for w in WORKLOADS])
def test_audit_rollout_agrees_with_simulate(workload: str):
    sim = _json(["simulate", PATH, "--workload", workload, "--rollout"])
    audit = _audit()
    stuck = any(f["rule"] == "rollout-deadlock" and workload in f["objects"] for f in audit["findings"])
    assert stuck == (not sim["completed"]), (sim["stuck"], sim["incomplete"])


@cache
def _audit() -> dict:
    return _json(["audit", PATH])
