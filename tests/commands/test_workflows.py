"""The everyday workflows on the command line, on bundled files and on a realistic snapshot
(kubectl's List of a generated 24-node cluster: managedFields, several namespaces, DaemonSet
pods, old ReplicaSets, a Pending pod):

* every Pending pod at once (`explain -A`, `-n`);
* how many more of a pod fit (`capacity --pod-file`, cluster-capacity's --podspec);
* a chart checked against the cluster (`helm template ... | planner check snapshot -`).
"""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest
import yaml

from bench import generate
from tests.commands.test_output_schemas import SCHEMAS
from tests.conftest import ROOT, SCENARIOS, run_cli

WORKER = ROOT / "examples" / "pods" / "worker.yaml"
CHART = ROOT / "examples" / "helm" / "web-chart.yaml"
SEED1 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"


@pytest.fixture(scope="module")
def realistic(tmp_path_factory):
    out = tmp_path_factory.mktemp("realistic")
    return generate.generate(24, 3, 7, ["json"], out, managed_fields="all")["json"]


def _json(r):
    assert r.code in (0, 1), r.err
    return json.loads(r.out)


# --------------------------------------------------------------------------- capacity --pod-file


def test_capacity_pod_file_from_a_file_and_stdin():
    r = run_cli(["capacity", SEED1, "--pod-file", WORKER, "-o", "json"])
    data = _json(r)
    jsonschema.validate(data, SCHEMAS["capacity-pod"])
    assert r.code == 0 and data["count"] == 46 and data["source"] == f"Pod default/worker from {WORKER}"
    assert sum(z["count"] for z in data["per_zone"]) == sum(n["count"] for n in data["per_node"]) == 46
    assert data["limit"]["scheduler"] == "0/6 nodes are available: 6 Insufficient cpu."
    r2 = run_cli(["capacity", SEED1, "--pod-file", "-", "-o", "json"], stdin=WORKER.read_bytes())
    assert _json(r2)["count"] == 46 and _json(r2)["source"] == "Pod default/worker from <stdin>"
    r = run_cli(["capacity", SEED1, "--pod-file", WORKER])
    assert r.code == 0 and "the cluster can take 46 more pod(s) like it" in r.out and "ZONE" in r.out


def test_capacity_pod_file_of_a_deployment_manifest(tmp_path):
    doc = yaml.safe_load(CHART.read_text().split("# Source: web/templates/deployment.yaml\n", 1)[1].split("\n---", 1)[0])
    f = tmp_path / "web.yaml"
    f.write_text(yaml.safe_dump(doc))
    data = _json(run_cli(["capacity", SCENARIOS / "rollout-hostname-anti-affinity.yaml", "--pod-file", f, "-o", "json"]))
    # a Deployment web exists: the copies are those of a new one
    assert data["pod"] == "default/web-copy" and any("web-copy" in n for n in data["notes"])
    # room for them, but the running web pods' required anti-affinity repels every pod labelled app=web-store
    assert data["bound"]["max"] > 0 and data["count"] == 0
    assert "existing pods anti-affinity" in data["limit"]["scheduler"]
    assert any(e["constraint"] == "InterPodAffinity" for e in data["limit"]["explanation"])


def test_capacity_pod_file_when_nothing_fits(tmp_path):
    f = tmp_path / "big.yaml"
    big = yaml.safe_load(WORKER.read_text())
    big["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "64"
    f.write_text(yaml.safe_dump(big))
    r = run_cli(["capacity", SEED1, "--pod-file", f])
    assert r.code == 1 and "the cluster can take 0 more pod(s)" in r.out and "Insufficient cpu" in r.out


def test_capacity_usage_errors():
    for args, words in [
        ([], "exactly one of --workload"),
        (["-w", "statefulset/search", "--pod-file", WORKER], "exactly one of --workload"),
        (["--pod-file", WORKER, "--zone-failure"], "--zone-failure goes with --workload"),
        (["-w", "statefulset/search", "--max-limit", "3"], "--max-limit goes with --pod-file"),
        (["--pod-file", SEED1], "needs exactly one Pod or Deployment or StatefulSet or ReplicaSet"),
    ]:
        r = run_cli(["capacity", SEED1, *args])
        assert r.code == 2 and words in r.err, (args, r.err)
    r = run_cli(["capacity", "-", "--pod-file", "-"], stdin=b"")
    assert r.code == 2 and "standard input can be read once" in r.err


# --------------------------------------------------------------------------- a realistic snapshot


def test_realistic_every_pending_pod(realistic):
    r = run_cli(["explain", realistic, "-A", "-o", "json"])
    data = _json(r)
    jsonschema.validate(data, SCHEMAS["explain-list"])
    assert r.code == 1 and "bench/bench-pending" in [e["pod"] for e in data["pods"]]
    g = next(g for g in data["groups"] if "bench/bench-pending" in g["pods"])
    assert "Insufficient cpu" in g["reason"] and not g["schedulable"]
    r = run_cli(["explain", realistic, "-n", "bench"])
    assert r.code == 1 and r.out.startswith("1 Pending pod in namespace bench: 1 cannot be placed")
    assert "bench-pending" in r.out


def test_realistic_capacity_pod_file(realistic):
    data = _json(run_cli(["capacity", realistic, "--pod-file", WORKER, "-n", "bench", "-o", "json"]))
    assert data["pod"] == "bench/worker" and data["count"] > 0 and data["witness"]["verified"]
    zones = {z["zone"] for z in data["per_zone"]}
    assert len(zones) == 3  # the zone spread, honoured


def test_realistic_chart_overlay(realistic):
    """A chart rendered for bench-web (namespace-less, no replicas, a new image), from stdin with -n."""
    items = json.loads(realistic.read_text())["items"]
    live = next(o for o in items if o["kind"] == "Deployment" and o["metadata"]["name"] == "bench-web")
    m = copy.deepcopy(live)
    m.pop("status")
    m["metadata"] = {"name": "bench-web", "labels": {"app.kubernetes.io/managed-by": "Helm"}}
    m["spec"].pop("replicas")
    m["spec"]["template"]["spec"]["containers"][0]["image"] = "bench-web:v2"
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "bench-web-new"},
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "bench-web"}, "minReplicas": 3, "maxReplicas": 20}}
    chart = ""
    for o in (m, hpa):
        chart += f"---\n# Source: bench/templates/{o['kind'].lower()}.yaml\n" + yaml.safe_dump(o)
    r = run_cli(["check", realistic, "-", "-w", "deployment/bench-web", "-n", "bench", "-o", "json"], stdin=chart.encode())
    data = _json(r)
    assert "overlaid 1 object(s) from <stdin>: Deployment bench/bench-web" in r.err
    assert "the cluster's 12 are kept" in r.err and "pod template changed" in r.err
    assert data["replicas"] == 12 and data["schedulable"] == (r.code == 0)
    # the running pods are the previous revision: all 12 planned anew from the chart's template
    assert len(data["placement"]) == 12 or not data["schedulable"]
    assert any("older revisions" in n for n in data["notes"])


# --------------------------------------------------------------------------- audit reads inputs as the others do


SEED4 = SCENARIOS / "rollout-hostname-anti-affinity.yaml"


def test_audit_overlays_later_inputs_and_no_overlay_refuses_them():
    r = run_cli(["audit", SEED4, CHART, "-o", "json"])
    assert r.code in (0, 1), r.err
    assert "overlaid 1 object(s) from" in r.err and "Deployment default/web" in r.err
    r = run_cli(["audit", SEED4, CHART, "--no-overlay"])
    assert r.code == 2 and "Deployment default/web" in r.err and "overlaid" not in r.err


def test_audit_namespace_fills_namespace_less_manifests(realistic):
    """One -n NS is the namespace of namespace-less objects, as with check (kubectl apply -n): the
    chart's Deployment replaces bench/bench-web instead of landing in default."""
    items = json.loads(realistic.read_text())["items"]
    live = next(o for o in items if o["kind"] == "Deployment" and o["metadata"]["name"] == "bench-web")
    m = copy.deepcopy(live)
    m.pop("status")
    m["metadata"] = {"name": "bench-web"}
    chart = "---\n" + yaml.safe_dump(m)
    r = run_cli(["audit", realistic, "-", "-n", "bench", "-o", "json"], stdin=chart.encode())
    data = _json(r)
    assert "overlaid 1 object(s) from <stdin>: Deployment bench/bench-web" in r.err
    assert data["namespaces"] == ["bench"]
    # a pattern names no one namespace: namespace-less objects go to default, as kubectl's
    r = run_cli(["audit", realistic, "-", "-n", "ben*", "-o", "json"], stdin=chart.encode())
    assert r.code in (0, 1) and "added 1 new object(s) from <stdin>: Deployment default/bench-web" in r.err
