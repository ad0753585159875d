"""`planner explain` of several pods: -A / -n (every Pending pod, grouped by what blocks it) and
several --pod (each explained)."""

from __future__ import annotations

import json

import jsonschema

from tests.commands.test_output_schemas import SCHEMAS
from tests.conftest import SCENARIOS, run_cli

SEED2 = SCENARIOS / "zone-spread-scale-up.yaml"
SEED3 = SCENARIOS / "zone-anti-affinity-six-replicas.yaml"
SEED1_REPLAY = SCENARIOS / "hpa-scale-down-up-replay.yaml"
BLOCKED = "default/my-app-6f95748f5b-bls7t"  # seed-002's Pending pod
RUNNING = "batch/batch-worker-67876b4f55-rkf8h"


def _json(args: list) -> tuple[int, dict]:
    r = run_cli(args + ["-o", "json"])
    assert r.code in (0, 1), r.err
    return r.code, json.loads(r.out)


def test_every_pending_pod_grouped_by_reason():
    code, data = _json(["explain", SEED3, "-A"])
    jsonschema.validate(data, SCHEMAS["explain-list"])
    assert code == 1 and data["scope"] == "all namespaces" and data["count"] == 3 and data["unschedulable"] == 3
    (g,) = data["groups"]
    assert g["count"] == 3 and not g["schedulable"]
    assert g["reason"] == "node(s) didn't match Pod's node affinity/selector; node(s) didn't match pod anti-affinity rules"
    assert sorted(g["pods"]) == sorted(e["pod"] for e in data["pods"])
    for e in data["pods"]:
        # each entry is the single-pod explanation, less what is listed per node
        assert e["summary"] == "0/5 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 4 node(s) didn't match pod anti-affinity rules."
        assert "nodes" not in e and "spread" not in e and e["reason"] == g["reason"]
        assert e["reasons"] == [
            {"plugin": "InterPodAffinity", "reason": "node(s) didn't match pod anti-affinity rules", "nodes": 4},
            {"plugin": "NodeAffinity", "reason": "node(s) didn't match Pod's node affinity/selector", "nodes": 1},
        ]
    r = run_cli(["explain", SEED3, "-A"])
    assert r.code == 1
    assert r.out.splitlines()[0] == "3 Pending pods in all namespaces: 3 cannot be placed, 0 can be placed now"
    assert "default/az-spread-test-anti-cddf88f46-{5922t,j69vj,spnhp}" in r.out  # one controller's pods, abbreviated


def test_wide_shows_kube_schedulers_message_per_pod():
    r = run_cli(["explain", SEED3, "-A", "-o", "wide"])
    assert r.code == 1
    rows = [line for line in r.out.splitlines() if "0/5 nodes are available" in line]
    assert len(rows) == 3 and all(line.strip().startswith("default/az-spread-test-anti-") for line in rows)


def test_namespace_scope_and_none_pending():
    code, data = _json(["explain", SEED2, "-n", "default"])
    assert code == 1 and data["scope"] == "namespace default" and [e["pod"] for e in data["pods"]] == [BLOCKED]
    code, data = _json(["explain", SEED2, "-n", "batch"])
    assert code == 0 and data["count"] == 0 and data["schedulable"] and data["groups"] == []
    r = run_cli(["explain", SEED1_REPLAY])  # neither --pod nor -A: namespace default, as kubectl
    assert r.code == 0 and r.out.startswith("no Pending pods in namespace default")


def test_several_pods_each_explained():
    """A second --pod used to be dropped silently."""
    code, data = _json(["explain", SEED2, "--pod", BLOCKED, "--pod", RUNNING])
    jsonschema.validate(data, SCHEMAS["explain-list"])
    assert code == 1 and data["scope"] == "pods" and [e["pod"] for e in data["pods"]] == [BLOCKED, RUNNING]
    single = {k: _json(["explain", SEED2, "--pod", k])[1] for k in (BLOCKED, RUNNING)}
    for e in data["pods"]:
        jsonschema.validate(e, SCHEMAS["explain"])
        assert e == single[e["pod"]]  # each pod in full, as --pod alone gives it
    assert [(g["reason"], g["schedulable"]) for g in data["groups"]] == [
        ("Insufficient cpu; node(s) didn't match pod topology spread constraints", False),
        ("can be placed now", True),
    ]
    r = run_cli(["explain", SEED2, "--pod", BLOCKED, "--pod", RUNNING])
    assert r.code == 1
    assert f"Pod {BLOCKED}: UNSCHEDULABLE" in r.out and f"Pod {RUNNING}: schedulable" in r.out
    assert r.out.rstrip().splitlines()[-1] == "2 pods: 1 cannot be placed, 1 can be placed now"
    # every pod asked can be placed: exit 0
    code, data = _json(["explain", SEED2, "--pod", RUNNING, "--pod", "batch/" + RUNNING.split("/")[1]])
    assert code == 0 and data["count"] == 1


def test_single_pod_shape_is_unchanged_but_for_added_fields():
    code, data = _json(["explain", SEED2, "--pod", BLOCKED])
    jsonschema.validate(data, SCHEMAS["explain"])
    assert code == 1 and "groups" not in data and data["pod"] == BLOCKED and data["nodes"]
    assert data["reason"] == "Insufficient cpu; node(s) didn't match pod topology spread constraints"
    assert sum(x["nodes"] for x in data["reasons"]) == 8


def test_bad_input_exits_2():
    for args, words in [
        (["-A", "--pod", BLOCKED], "-A explains every Pending pod"),
        (["-A", "-n", "default"], "not both"),
        (["-A", "--scores"], "--scores"),
        (["--pod", BLOCKED, "--pod-file", SEED2], "not both"),
        (["--pod", BLOCKED, "--pod", "default/nope"], "pod default/nope not found"),
    ]:
        r = run_cli(["explain", SEED2, *args])
        assert r.code == 2 and words in r.err, (args, r.err)
        assert "Traceback" not in r.err
