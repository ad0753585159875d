"""Smoke test of the benchmark generator: a 50-node cluster is valid input and check answers on it.

No timing assertions: the timings live in docs/performance.md (make bench).
"""

from __future__ import annotations

import json

import pytest

from bench import generate


@pytest.fixture(scope="module")
def cluster_50(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    return generate.generate(50, 3, 1, ["json"], out)


def test_generated_cluster_is_valid(cli, cluster_50):
    r = cli(["validate", cluster_50["json"], "-o", "json"])
    assert r.code == 0, r.out + r.err
    doc = json.loads(r.out)
    assert doc["valid"] and not doc["errors"]
    objects = doc["objects"]
    assert objects["Node"] == 50
    assert objects["Pod"] >= 1400
    for kind in ("Deployment", "ReplicaSet", "StatefulSet", "PersistentVolume", "PersistentVolumeClaim", "StorageClass",
                 "HorizontalPodAutoscaler", "PodDisruptionBudget", "Namespace"):
        assert objects.get(kind, 0) > 0, kind
    assert doc["skipped"] == {}


def test_yaml_holds_the_same_objects(tmp_path):
    from planner.load import read_objects

    small = generate.generate(6, 6, 3, ["json", "yaml"], tmp_path)  # 6 uneven zones, another seed
    assert read_objects([str(small["json"])]).objects == read_objects([str(small["yaml"])]).objects


def test_kubectl_shape(cluster_50):
    text = cluster_50["json"].read_text()
    assert text.startswith('{\n    "apiVersion": "v1",\n    "items": [\n        {\n')
    doc = json.loads(text)
    assert doc["kind"] == "List" and doc["metadata"] == {"resourceVersion": ""}
    kinds = [o["kind"] for o in doc["items"]]
    order = ["Node", "Pod", "PersistentVolume", "PersistentVolumeClaim", "StorageClass", "Deployment", "ReplicaSet",
             "StatefulSet", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Namespace"]
    assert [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k] == order  # kubectl's order, grouped
    pods = {f"{o['metadata']['namespace']}/{o['metadata']['name']}": o for o in doc["items"] if o["kind"] == "Pod"}
    pending = pods["bench/bench-pending"]
    assert pending["status"]["phase"] == "Pending" and "nodeName" not in pending["spec"]
    web = [p for k, p in pods.items() if k.startswith("bench/bench-web-")]
    assert len(web) == 12 and all("pod-template-hash" in p["metadata"]["labels"] for p in web)
    assert all(p["metadata"]["ownerReferences"][0]["kind"] == "ReplicaSet" for p in web)


def test_same_seed_same_bytes(tmp_path):
    a = generate.generate(10, 3, 7, ["json"], tmp_path / "a")
    b = generate.generate(10, 3, 7, ["json"], tmp_path / "b")
    assert a["json"].read_bytes() == b["json"].read_bytes()


def test_check_answers_for_bench_sts(cli, cluster_50):
    # spec.replicas + 10, as bench/run.py times it: 10 pods to place, not a trivial "nothing to do"
    r = cli(["check", cluster_50["json"], "--workload", "statefulset/bench/bench-sts", "--replicas", "16", "-o", "json"])
    assert r.code in (0, 1), r.err  # an answer (yes or no), not an error or "unknown" (exit 2)
    out = json.loads(r.out)
    assert out["workload"] == "statefulset/bench/bench-sts" and out["stats"]["pods_to_place"] == 10


def test_explain_answers_for_bench_pending(cli, cluster_50):
    r = cli(["explain", cluster_50["json"], "--pod", "bench/bench-pending", "-o", "json"])
    assert r.code == 1, r.err  # unschedulable by construction (bench/generate.py docstring)
    assert json.loads(r.out)["schedulable"] is False


def test_only_keeps_the_latest_time_of_phases_measured_again():
    from bench.run import merged_when

    first = merged_when("2026-11-28 09:14 UTC", {"remediate"}, "2026-11-28 09:22 UTC")
    assert first == "2026-11-28 09:14 UTC; remediate at 2026-11-28 09:22 UTC"
    again = merged_when(first, {"remediate"}, "2026-11-28 09:30 UTC")
    assert again == "2026-11-28 09:14 UTC; remediate at 2026-11-28 09:30 UTC"
    other = merged_when(again, {"simulate"}, "2026-11-28 09:40 UTC")
    assert other == "2026-11-28 09:14 UTC; remediate at 2026-11-28 09:30 UTC; simulate at 2026-11-28 09:40 UTC"
    both = merged_when("T0", {"e2e-sts", "e2e-sts-cached"}, "T1")
    assert merged_when(both, {"e2e-sts"}, "T2") == "T0; e2e-sts-cached at T1; e2e-sts at T2"
