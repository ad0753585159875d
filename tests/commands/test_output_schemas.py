"""JSON output validates against the schemas published in docs/output.md."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from tests.conftest import ROOT, SCENARIOS, run_cli


def _schemas() -> dict[str, dict]:
    text = (ROOT / "docs" / "output.md").read_text()
    out = {}
    for m in re.finditer(r"<!-- schema: ([a-z-]+) -->\s*```json\n(.*?)```", text, re.S):
        out[m.group(1)] = json.loads(m.group(2))
    return out


SCHEMAS = _schemas()


def test_schemas_are_valid():
    assert {"validate", "explain", "explain-list", "check", "capacity", "capacity-pod", "simulate"} <= set(SCHEMAS)
    for s in SCHEMAS.values():
        jsonschema.Draft202012Validator.check_schema(s)


S001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"


@pytest.mark.parametrize(
    "name,args",
    [
        ("validate", ["validate", S001]),
        ("validate", ["validate", "/nonexistent.yaml"]),
        ("explain", ["explain", S001, "--pod", "default/search-2"]),
        ("explain", ["explain", S001, "--pod", "default/search-2", "--scores"]),
        ("explain", ["explain", SCENARIOS / "zone-spread-scale-up.yaml", "--pod", "batch/batch-worker-67876b4f55-rkf8h", "--scores"]),
        ("explain", ["explain", SCENARIOS / "zone-and-hostname-spread.yaml", "--pod", "default/my-app-7999fc7486-2dl2r", "--scores"]),
        ("check", ["check", S001, "--workload", "statefulset/search", "--replicas", "3"]),
        ("check", ["check", S001, "--workload", "statefulset/search", "--replicas", "4"]),
        ("capacity", ["capacity", S001, "--workload", "statefulset/search", "--zone-failure", "--add-nodes"]),
        ("capacity-pod", ["capacity", S001, "--pod-file", ROOT / "examples" / "pods" / "worker.yaml"]),
        ("explain-list", ["explain", SCENARIOS / "zone-anti-affinity-six-replicas.yaml", "-A"]),
        ("explain-list", ["explain", SCENARIOS / "zone-spread-scale-up.yaml", "--pod", "default/my-app-6f95748f5b-bls7t", "--pod", "batch/batch-worker-67876b4f55-rkf8h"]),
        ("remediate", ["remediate", S001, "--workload", "statefulset/search", "--replicas", "3"]),
        ("remediate", ["remediate", S001, "--workload", "statefulset/search", "--replicas", "4"]),
        ("remediate", ["remediate", SCENARIOS / "cordoned-node-hpa-helm.yaml", "--workload", "statefulset/api", "-n", "shop", "--replicas", "6", "--context", "prod"]),
        ("remediate", ["remediate", SCENARIOS / "rollout-hostname-anti-affinity.yaml", "--workload", "deployment/web", "--rollout"]),
        (
            "remediate",
            ["remediate", SCENARIOS / "hpa-scale-down-up-replay.yaml", "--workload", "statefulset/search", "--steps", SCENARIOS / "hpa-scale-down-up-replay.yaml"],
        ),
        ("audit", ["audit", S001]),
        ("audit", ["audit", SCENARIOS / "rollout-hostname-anti-affinity.yaml"]),
        ("audit", ["audit", SCENARIOS / "rollout-hostname-anti-affinity-fixed.yaml"]),
        ("simulate", ["simulate", SCENARIOS / "blue-green-shared-selector-replay.yaml", "--workload", "statefulset/blue"]),
        ("simulate", ["simulate", SCENARIOS / "rollout-hostname-anti-affinity.yaml", "--workload", "deployment/web", "--rollout"]),
        ("simulate", ["simulate", S001, "--workload", "statefulset/search", "--scale", "4"]),
    ],
)
def test_output_matches_schema(name, args):
    r = run_cli(args + ["-o", "json"])
    assert r.code in (0, 1, 2), r.err
    data = json.loads(r.out)
    jsonschema.validate(data, SCHEMAS[name])


def test_explain_scores_schema_rejects_scores_on_infeasible_nodes():
    """The schema holds what --scores promises: scores only on feasible nodes, integers 0..100."""
    r = run_cli(["explain", SCENARIOS / "zone-spread-scale-up.yaml", "--pod", "batch/batch-worker-67876b4f55-rkf8h", "--scores", "-o", "json"])
    data = json.loads(r.out)
    scored = next(n for n in data["nodes"] if "scores" in n)
    assert scored["scores"] and "total_score" in scored
    jsonschema.validate(data, SCHEMAS["explain"])
    bad = json.loads(r.out)
    bad["nodes"].append({"name": "x", "feasible": False, "failures": [], "scores": [], "total_score": 0})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMAS["explain"])
    bad = json.loads(r.out)
    bad["nodes"][0]["scores"][0]["score"] = 101
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMAS["explain"])


def test_yaml_output_is_the_same_data():
    import yaml

    j = run_cli(["check", S001, "--workload", "statefulset/search", "--replicas", "4", "-o", "json"])
    y = run_cli(["check", S001, "--workload", "statefulset/search", "--replicas", "4", "-o", "yaml"])
    assert json.loads(j.out) == yaml.safe_load(y.out)
