"""`planner audit` as a CI gate people keep on: --rules / --skip-rules, which namespaces, the ignore
annotation (table, JSON, SARIF suppressions), the outage under way (pods-pending, with explain's
reason), each rule's documentation (docs/audit.md anchors, SARIF helpUri and help), users' words,
and a healthy cluster that audits quiet while the incident scenarios still fail."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planner.engines.audit.rules import IGNORE_ANNOTATION, RULES
from tests.conftest import ROOT, SCENARIOS, run_cli
from tests.engines.test_audit import audit_json, rules_of, sarif, validate_sarif

HEAD = """apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {name: gate}
region: region-1
zones: [zone-a, zone-b]
nodePools:
- name: general
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
objects:
"""


def deployment(name: str, ns: str, replicas: int, cpu: str = "500m", extra: str = "", annotations: str = "",
               template_annotations: str = "") -> str:
    meta = f"{{name: {name}, namespace: {ns}" + (f", annotations: {annotations}" if annotations else "") + "}"
    tmeta = "{labels: {app: " + name + "}" + (f", annotations: {template_annotations}" if template_annotations else "") + "}"
    return f"""- apiVersion: apps/v1
  kind: Deployment
  metadata: {meta}
  spec:
    replicas: {replicas}
    strategy: {{rollingUpdate: {{maxUnavailable: 1}}}}
    selector: {{matchLabels: {{app: {name}}}}}
    template:
      metadata: {tmeta}
      spec:
        containers: [{{name: c, image: "img:1", resources: {{requests: {{cpu: "{cpu}"}}}}}}]
{extra}"""


ANTI = """        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - {labelSelector: {matchLabels: {app: dns}}, topologyKey: kubernetes.io/hostname}
"""


def write(tmp_path: Path, text: str, name: str = "gate") -> str:
    p = tmp_path / f"{name}.yaml"
    p.write_text(text)
    return str(p)


def cluster(tmp_path: Path, annotations: str = "", template_annotations: str = "", name: str = "gate") -> str:
    """shop/big: 4 replicas of 6 CPUs on two 8-CPU nodes, 2 Pending (the outage); kube-system/dns:
    3 replicas with hostname anti-affinity on 2 nodes (a hazard of the cluster's own add-ons) and
    its third pod Pending; jobs/report: one more Pending pod."""
    text = (HEAD
            + deployment("big", "shop", 4, cpu="6", annotations=annotations, template_annotations=template_annotations)
            + deployment("dns", "kube-system", 3, cpu="100m", extra=ANTI)
            + deployment("report", "jobs", 1, cpu="6")
            + """pods:
- {workload: deployment/big, namespace: shop, count: 2, zones: [zone-a, zone-b]}
- {workload: deployment/big, namespace: shop, count: 2, phase: Pending}
- {workload: deployment/dns, namespace: kube-system, count: 2, zones: [zone-a, zone-b]}
- {workload: deployment/dns, namespace: kube-system, count: 1, phase: Pending}
- {workload: deployment/report, namespace: jobs, count: 1, phase: Pending}
""")
    return write(tmp_path, text, name)


# --------------------------------------------------------------------------- the outage under way


def test_pending_pods_are_errors_grouped_by_owner_with_explains_reason(tmp_path):
    path = cluster(tmp_path)
    code, data = audit_json(path, "--fail-on", "error")
    assert code == 1
    pending = [f for f in data["findings"] if f["rule"] == "pods-pending"]
    # one finding per owner, not one per pod
    assert sorted(f["objects"][0] for f in pending) == [
        "deployment/jobs/report", "deployment/kube-system/dns", "deployment/shop/big"]
    big = next(f for f in pending if f["objects"][0] == "deployment/shop/big")
    assert big["severity"] == "error" and big["details"]["pending"] == 2 and len(big["details"]["pods"]) == 2
    assert all(o.startswith("pod/shop/big-") for o in big["objects"][1:]) and len(big["objects"]) == 3
    # the reason is explain's, word for word
    pod = big["details"]["pods"][0]
    r = run_cli(["explain", path, "-n", "shop", "--pod", pod.split("/", 1)[1], "-o", "json"])
    summary = json.loads(r.out)["summary"]
    assert big["details"]["reasons"] == [{"summary": summary, "pods": 2, "example": pod, "preemption_helps": False}]
    assert summary.rstrip(".") in big["message"] and "Insufficient cpu" in summary
    # a Deployment's outage gets remediate's plan for its replicas
    assert big["fix"] is not None and big["fix"]["goal"]["workload"] == "deployment/shop/big"


def test_an_outage_fails_the_error_gate_and_a_pod_that_fits_is_no_finding(tmp_path):
    text = HEAD + deployment("web", "default", 2) + """pods:
- {workload: deployment/web, count: 1, zones: [zone-a]}
- {workload: deployment/web, count: 1, phase: Pending}
"""
    code, data = audit_json(write(tmp_path, text), "--fail-on", "error")
    assert code == 0 and "pods-pending" not in {f["rule"] for f in data["findings"]}
    assert any("Pending pod(s) pass every scheduler filter" in n for n in data["notes"])


def test_preemption_makes_a_pending_pod_a_warning(tmp_path):
    text = HEAD.replace("zones: [zone-a, zone-b]", "zones: [zone-a]") + """- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: high}
  value: 1000
""" + deployment("filler", "default", 1, cpu="7") + deployment("web", "default", 1, cpu="4").replace(
        '        containers:', '        priorityClassName: high\n        containers:') + """pods:
- {workload: deployment/filler, count: 1, zones: [zone-a]}
- {workload: deployment/web, count: 1, phase: Pending}
"""
    code, data = audit_json(write(tmp_path, text))
    f = next(f for f in data["findings"] if f["rule"] == "pods-pending")
    assert f["severity"] == "warning" and f["details"]["reasons"][0]["preemption_helps"]
    assert "Preemption would place it" in f["message"]
    assert run_cli(["audit", write(tmp_path, text), "--fail-on", "error", "--rules", "pods-pending"]).code == 0


def test_a_pod_without_owner_is_its_own_group(tmp_path):
    text = HEAD + """- apiVersion: v1
  kind: Pod
  metadata: {name: lonely, namespace: default}
  spec:
    containers: [{name: c, image: "img:1", resources: {requests: {cpu: "20"}}}]
"""
    code, data = audit_json(write(tmp_path, text))
    f = next(f for f in data["findings"] if f["rule"] == "pods-pending")
    assert f["objects"] == ["pod/default/lonely"] and f["fix"] is None and code == 1


# --------------------------------------------------------------------------- --rules, --skip-rules


def test_rules_and_skip_rules(tmp_path):
    path = cluster(tmp_path)
    code, data = audit_json(path, "--rules", "pods-pending")
    assert {f["rule"] for f in data["findings"]} == {"pods-pending"} and data["rules"] == ["pods-pending"]
    _, data = audit_json(path, "--skip-rules", "pods-pending,rollout-deadlock")
    assert not {"pods-pending", "rollout-deadlock"} & {f["rule"] for f in data["findings"]}
    assert "pods-pending" not in data["rules"] and "selector-counts-other-revisions" in data["rules"]
    # repeatable and comma-separated alike
    _, d2 = audit_json(path, "--rules", "pods-pending", "--rules", "rollout-deadlock,spread-skew-exceeded")
    assert d2["rules"] == ["pods-pending", "rollout-deadlock", "spread-skew-exceeded"]


@pytest.mark.parametrize("scenario,rule", [
    ("blue-green-shared-selector.yaml", "volumes-concentrated-in-one-domain"),  # depends on the HPA range rule
    ("rollout-hostname-anti-affinity.yaml", "selector-counts-other-revisions"),  # its severity on the rollout replay
])
def test_a_rule_alone_reports_what_it_reports_among_all(scenario, rule):
    _, full = audit_json(str(SCENARIOS / scenario))
    _, alone = audit_json(str(SCENARIOS / scenario), "--rules", rule)
    strip = [{k: v for k, v in f.items() if k != "fix"} for f in full["findings"] if f["rule"] == rule]
    assert strip and strip == [{k: v for k, v in f.items() if k != "fix"} for f in alone["findings"]]


def test_unknown_rules_are_usage_errors():
    path = SCENARIOS / "blue-green-shared-selector.yaml"
    for flag in ("--rules", "--skip-rules"):
        r = run_cli(["audit", path, flag, "pods-pending,no-such-rule"])
        assert r.code == 2 and r.out == ""
        assert r.err.strip().splitlines() == [
            f"error: audit: unknown rule 'no-such-rule' in {flag} (the rules: {', '.join(RULES)})"]
    r = run_cli(["audit", path, "--rules", "pods-pending", "--skip-rules", "pods-pending"])
    assert r.code == 2 and "no rule to run" in r.err


# --------------------------------------------------------------------------- namespaces


def test_system_namespaces_report_outages_only_unless_asked(tmp_path):
    path = cluster(tmp_path)
    _, data = audit_json(path)
    got = rules_of(data)
    assert ("pods-pending", "deployment/kube-system/dns") in got  # an outage there is everyone's outage
    assert not any(o == "deployment/kube-system/dns" and r != "pods-pending" for r, o in got)
    assert any("kube-system" in n and "-A" in n for n in data["notes"])
    assert data["scope"] == {"namespaces": "all", "exclude": [], "system_namespaces": "pods-pending only"}
    assert data["summary"]["workloads"] == 2  # shop/big and jobs/report: dns is not audited for hazards
    for extra in (["-A"], ["-n", "kube-system"], ["-n", "kube-*"]):
        _, d = audit_json(path, *extra)
        assert ("anti-affinity-replicas-exceed-domains", "deployment/kube-system/dns") in rules_of(d), extra
    _, d = audit_json(path, "--exclude-namespace", "kube-*")
    assert not any("kube-system" in o for _, o in rules_of(d))
    _, d = audit_json(path, "-A", "--exclude-namespace", "kube-system", "--exclude-namespace", "jobs")
    assert {o for _, o in rules_of(d)} == {"deployment/shop/big"} and d["scope"]["exclude"] == ["kube-system", "jobs"]
    _, d = audit_json(path, "-n", "shop", "-n", "jobs")
    assert {o for _, o in rules_of(d)} == {"deployment/shop/big", "deployment/jobs/report"}
    assert d["namespaces"] == ["shop", "jobs"] and d["summary"]["workloads"] == 2


# --------------------------------------------------------------------------- the ignore annotation


@pytest.mark.parametrize("where", ["metadata", "template"])
def test_ignore_annotation(tmp_path, where):
    value = '"pods-pending: batch capacity comes from a nightly node pool"'
    path = cluster(tmp_path, **{("annotations" if where == "metadata" else "template_annotations"): f"{{{IGNORE_ANNOTATION}: {value}}}"})
    args = ["--exclude-namespace", "kube-system", "--exclude-namespace", "jobs", "--rules", "pods-pending"]
    code, data = audit_json(path, *args)
    assert code == 0 and data["findings"] == []
    assert data["summary"]["suppressed"] == 1
    (s,) = data["suppressed"]
    assert s["rule"] == "pods-pending" and s["objects"][0] == "deployment/shop/big" and s["severity"] == "error"
    field = "metadata.annotations" if where == "metadata" else "spec.template.metadata.annotations"
    assert s["suppressed"] == {"kind": "annotation", "annotation": IGNORE_ANNOTATION, "object": "deployment/shop/big", "field": field,
                               "reason": "batch capacity comes from a nightly node pool"}
    r = run_cli(["audit", path, *args])
    assert r.code == 0 and "1 finding(s) ignored by annotation:" in r.out
    assert "ignored: batch capacity comes from a nightly node pool" in r.out
    # SARIF: a result with an inSource suppression and the reason as its justification
    doc = sarif(path, *args)
    validate_sarif(doc)
    (res,) = doc["runs"][0]["results"]
    (sup,) = res["suppressions"]
    assert sup["kind"] == "inSource" and sup["status"] == "accepted"
    assert sup["justification"] == "batch capacity comes from a nightly node pool"
    # the other findings are not ignored
    code, data = audit_json(path, "--exclude-namespace", "kube-system")
    assert code == 1 and ("pods-pending", "deployment/jobs/report") in rules_of(data)


def test_ignore_annotation_one_line_per_reason(tmp_path):
    value = '"rollout-deadlock: rolled by hand\\npods-pending,spread-skew-exceeded: waits for the batch pool"'
    path = cluster(tmp_path, annotations=f"{{{IGNORE_ANNOTATION}: {value}}}")
    _, data = audit_json(path, "-n", "shop")
    reasons = {s["rule"]: s["suppressed"]["reason"] for s in data["suppressed"]}
    assert reasons.get("pods-pending") == "waits for the batch pool"
    assert not any(f["objects"][0] == "deployment/shop/big" and f["rule"] in reasons for f in data["findings"])


@pytest.mark.parametrize("value,message", [
    ('"pods-pending"', "gives no reason"),
    ('"pods-pending:   "', "gives no reason"),
    ('"pods-pendin: typo"', "unknown rule 'pods-pendin'"),
])
def test_a_malformed_ignore_annotation_is_bad_input(tmp_path, value, message):
    path = cluster(tmp_path, annotations=f"{{{IGNORE_ANNOTATION}: {value}}}")
    r = run_cli(["audit", path])
    assert r.code == 2 and r.out == ""
    (line,) = r.err.strip().splitlines()
    assert line.startswith(f"error: deployment/shop/big: metadata.annotations[{IGNORE_ANNOTATION}]: ") and message in line


# --------------------------------------------------------------------------- rule documentation


def _github_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings: lower case, punctuation but - and _ dropped, spaces to -."""
    out = set()
    for m in re.finditer(r"^#{1,6} (.+)$", markdown, re.M):
        text = m.group(1).strip().lower()
        out.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return out


def _section(markdown: str, rule: str) -> str:
    m = re.search(rf"^### {re.escape(rule)}\n(.*?)(?=^#{{2,3}} )", markdown, re.M | re.S)
    assert m, rule
    return m.group(1)


def test_every_rule_has_a_documented_section():
    docs = (ROOT / "docs" / "audit.md").read_text()
    anchors = _github_anchors(docs)
    for r in RULES.values():
        assert r.id in anchors, r.id
        body = _section(docs, r.id)
        assert f"**Severity**: {r.severity}" in body, r.id
        assert IGNORE_ANNOTATION in docs
        for url in r.links:
            assert url in body, (r.id, url)


def test_sarif_rules_carry_help_and_a_help_uri():
    path = str(SCENARIOS / "rollout-hostname-anti-affinity.yaml")
    rules = sarif(path)["runs"][0]["tool"]["driver"]["rules"]
    assert [x["id"] for x in rules] == list(RULES)
    for x in rules:
        r = RULES[x["id"]]
        assert x["helpUri"] == f"docs/audit.md#{r.id}"
        assert r.full in x["help"]["text"] and r.short in x["help"]["markdown"]
        if r.incident:
            assert r.incident in x["help"]["text"]
    doc = sarif(path, "--docs-url", "https://git.example.com/planner/blob/v1/docs/audit.md")
    validate_sarif(doc)
    for x in doc["runs"][0]["tool"]["driver"]["rules"]:
        assert x["helpUri"] == f"https://git.example.com/planner/blob/v1/docs/audit.md#{x['id']}"


def test_rule_links_are_public_kubernetes_documentation():
    for r in RULES.values():
        for url in r.links:
            assert url.startswith("https://kubernetes.io/docs/"), url


# --------------------------------------------------------------------------- users' words

INTERNAL = re.compile(r"(?<!--)seed|issue \d|/work/|/tmp/|helper", re.I)  # --seed: the bench generator's flag


def _public(text: str) -> str:
    """Text without the names of the repository's scenario files (which a reader can open)."""
    for stem in sorted((p.stem for p in SCENARIOS.glob("*.yaml")), key=len, reverse=True):
        text = text.replace(stem, "")
    return text


def test_no_internal_words_in_what_users_read():
    docs = _public((ROOT / "docs" / "audit.md").read_text())
    assert not INTERNAL.search(docs), INTERNAL.search(docs)
    for r in RULES.values():
        for text in (r.help_text(), r.help_markdown(), r.short):
            assert not INTERNAL.search(text), (r.id, INTERNAL.search(text))
    help_text = run_cli(["audit", "--help"]).out
    assert not INTERNAL.search(help_text)
    for scenario in sorted(SCENARIOS.glob("*.yaml")):
        _, data = audit_json(str(scenario))
        for f in data["findings"] + data["suppressed"]:
            assert not INTERNAL.search(f["message"]), (scenario.name, f["message"])


# --------------------------------------------------------------------------- quiet on a healthy cluster


@pytest.fixture(scope="module")
def bench_50(tmp_path_factory):
    from bench import generate

    out = tmp_path_factory.mktemp("bench")
    path = generate.generate(50, 3, 1, ["json"], out)["json"]
    doc = json.loads(Path(path).read_text())
    healthy = out / "healthy.json"
    doc["items"] = [o for o in doc["items"] if not (o["kind"] == "Pod" and o["metadata"]["name"] == "bench-pending")]
    healthy.write_text(json.dumps(doc))
    return str(path), str(healthy)


def test_a_healthy_cluster_audits_quiet(bench_50):
    """The benchmark's 50-node cluster (73 workloads, spread constraints, anti-affinity, HPAs, PDBs,
    zone-bound volumes) without its deliberately unschedulable pod passes the default gate; what
    fires on its healthy workloads are notes."""
    full, healthy = bench_50
    r = run_cli(["audit", healthy, "-o", "json"])
    data = json.loads(r.out)
    assert r.code == 0, [(f["rule"], f["objects"][0]) for f in data["findings"] if f["severity"] != "note"]
    assert data["summary"]["workloads"] == 73 and data["summary"]["errors"] == data["summary"]["warnings"] == 0
    assert data["findings"] and {f["severity"] for f in data["findings"]} == {"note"}
    r = run_cli(["audit", healthy])
    assert r.code == 0 and len(r.out.splitlines()) <= 4, r.out  # quiet: a headline and the notes counted
    # the cluster with its unschedulable pod: that pod and nothing else fails the gate
    r = run_cli(["audit", full, "-o", "json"])
    data = json.loads(r.out)
    assert r.code == 1
    assert [(f["rule"], f["objects"][0], f["severity"]) for f in data["findings"] if f["severity"] != "note"] == [
        ("pods-pending", "pod/bench/bench-pending", "error")]


HEALTHY = ("zone-and-hostname-spread", "daemonsets-node-groups", "production-cluster")  # ordinary clusters, nothing stuck
INCIDENTS = sorted(p.name for p in SCENARIOS.glob("*.yaml") if not p.stem.endswith("-fixed") and p.stem not in HEALTHY)


@pytest.mark.parametrize("scenario", INCIDENTS)
def test_incident_scenarios_still_fail_the_default_gate(scenario):
    code, data = audit_json(str(SCENARIOS / scenario))
    assert code == 1, rules_of(data)


@pytest.mark.parametrize("scenario", sorted(p.name for p in SCENARIOS.glob("*-fixed.yaml")) + ["daemonsets-node-groups.yaml", "production-cluster.yaml"])
def test_fixed_and_healthy_scenarios_pass_the_default_gate(scenario):
    code, data = audit_json(str(SCENARIOS / scenario))
    assert code == 0, rules_of(data)
