"""check and capacity as a user runs them: verdicts, explanations in objects and numbers, extras."""

from __future__ import annotations

import json

from tests.conftest import SCENARIOS, run_cli

S000 = SCENARIOS / "blue-green-shared-selector.yaml"
S001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"
S003 = SCENARIOS / "zone-anti-affinity-six-replicas.yaml"


def _json(args):
    r = run_cli(args + ["-o", "json"])
    assert r.code in (0, 1), r.err
    return r.code, json.loads(r.out)


def test_seed_001_three_replicas_explained_in_objects_and_numbers():
    code, data = _json(["check", S001, "--workload", "statefulset/search", "--replicas", "3"])
    assert code == 1 and not data["schedulable"]
    text = "\n".join(e["message"] for e in data["explanation"])
    assert "search-2 must run in zone-a" in text
    assert "PVC default/data-search-2 -> PV pv-data-search-2" in text
    assert "zone-a would then hold 2 pod(s) matching app=search while zone-c holds 0: skew 2 > maxSkew 1" in text
    constraints = [e["constraint"] for e in data["explanation"]]
    assert constraints == ["replicas", "VolumeBinding", "PodTopologySpread"]


def test_seed_001_four_replicas_witness_places_search_3_first():
    code, data = _json(["check", S001, "--workload", "statefulset/search", "--replicas", "4"])
    assert code == 0
    order = list(data["placement"])
    assert order.index("default/search-3") < order.index("default/search-2")
    assert data["placement"]["default/search-2"].startswith("general-zone-a")
    assert data["placement"]["default/search-3"].startswith("general-zone-c")


def test_runs_are_deterministic():
    a = run_cli(["check", S001, "--workload", "statefulset/search", "--replicas", "6", "-o", "json"])
    b = run_cli(["check", S001, "--workload", "statefulset/search", "--replicas", "6", "-o", "json"])
    assert a.out == b.out


def test_capacity_flags_non_monotonic_hpa_range():
    code, data = _json(["capacity", S001, "--workload", "statefulset/search"])
    assert code == 1
    assert data["range"] == {"min": 2, "max": 6, "source": "HorizontalPodAutoscaler default/search"}
    assert [r["replicas"] for r in data["replicas"] if not r["schedulable"]] == [3]
    assert data["non_monotonic"] == [3]
    assert data["max_replicas"] == 6


def test_capacity_required_zone_anti_affinity_max_is_zone_count():
    code, data = _json(["capacity", S003, "--workload", "deployment/az-spread-test-anti", "--range", "1..6"])
    assert data["max_replicas"] == 3


def test_zone_failure_lists_lost_pods_and_pinned_volumes():
    code, data = _json(["capacity", S001, "--workload", "statefulset/search", "--range", "2..2", "--zone-failure"])
    by_zone = {z["zone"]: z for z in data["zone_failure"]}
    lost_a = by_zone["zone-a"]["lost_pods"]
    assert [p["pod"] for p in lost_a] == ["default/search-0"]
    assert lost_a[0]["volumes"][0]["pinned"] is True
    # search-0's volume lives in zone-a: without zone-a it can never come back
    assert by_zone["zone-a"]["schedulable"] is False
    assert "search-0" in by_zone["zone-a"]["reason"] or "zone-a" in by_zone["zone-a"]["reason"]


def test_add_nodes_for_first_failing_count():
    code, data = _json(["capacity", S003, "--workload", "deployment/az-spread-test-anti", "--range", "3..4", "--add-nodes"])
    an = data["add_nodes"]
    assert an["replicas"] == 4
    # required zone anti-affinity: a node in an existing zone never helps
    assert an["found"] is False


def test_plot_is_written(tmp_path):
    png = tmp_path / "cap.png"
    r = run_cli(["capacity", S001, "--workload", "statefulset/search", "--plot", png])
    assert r.code == 1
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_workload_is_an_input_error():
    r = run_cli(["check", S001, "--workload", "statefulset/nope"])
    assert r.code == 2 and "StatefulSet default/nope not found" in r.err and "search" in r.err


def test_bad_workload_kind_is_a_usage_error():
    r = run_cli(["check", S001, "--workload", "daemonset/x"])
    assert r.code == 2 and "KIND must be deployment or statefulset" in r.err


def test_seed_000_second_green_replica_cannot_come_back():
    code, data = _json(["check", S000, "--workload", "statefulset/green", "--replicas", "2"])
    assert code == 1
    text = "\n".join(e["message"] for e in data["explanation"])
    assert "zone-c would then hold 2 pod(s) matching app=my_app" in text


def test_seed_001_orderedready_four_replicas_unschedulable():
    """Under OrderedReady search-2 must be placed before search-3 exists: 4 is unschedulable too."""
    from dataclasses import replace

    from planner.engines.check import check_replicas
    from planner.engines.workloads import parse_workload
    from planner.load import load_snapshot

    snap = load_snapshot([str(S001)])
    key = "default/search"
    snap.statefulsets[key] = replace(snap.statefulsets[key], pod_management_policy="OrderedReady")
    ref = parse_workload("statefulset/search", None)
    out = check_replicas(snap, [ref], 4)
    assert not out.schedulable
    assert out.stats["ordered"] is True
    text = "\n".join(e["message"] for e in out.explanation)
    assert "search-2 must run in zone-a" in text and "skew 2 > maxSkew 1" in text
    assert check_replicas(snap, [ref], 2).schedulable


ANTI_ZONE_UNLABELLED_NODE = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node-0, labels: {kubernetes.io/hostname: node-0}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1, topology.kubernetes.io/zone: zone-a}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: default}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: c, image: i}]
        affinity:
          podAntiAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
            - {labelSelector: {matchLabels: {app: web}}, topologyKey: topology.kubernetes.io/zone}
- {apiVersion: v1, kind: Pod, metadata: {name: other, namespace: default, labels: {app: web}},
   spec: {nodeName: node-1, containers: [{name: c, image: i}]}, status: {phase: Running}}
"""


def test_zone_anti_affinity_does_not_restrict_a_node_without_the_zone_label(tmp_path):
    """filtering.go satisfyPodAntiAffinity: a node without the term's topology key is in no
    domain, so replicas that repel each other by zone may share it. Once only one node carried
    the zone label, the model took the key for a per-node one and kept them on distinct nodes."""
    f = tmp_path / "c.yaml"
    f.write_text(ANTI_ZONE_UNLABELLED_NODE)
    r = run_cli(["check", str(f), "-w", "deployment/web", "--replicas", "3", "-o", "json"])
    assert r.code == 0, r.out + r.err
    placement = json.loads(r.out)["placement"]
    assert sorted(placement.values()) == ["node-0"] * 3, placement


IDENTITY_GUARD = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "2"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "1"}}
---
apiVersion: v1
kind: Pod
metadata: {name: guard, namespace: default, labels: {app: guard}}
spec:
  nodeName: n1
  containers: [{name: c, image: x}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector: {matchLabels: {statefulset.kubernetes.io/pod-name: web-0}}
status: {phase: Running}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  podManagementPolicy: Parallel
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x}]
"""


def test_existing_anti_affinity_on_a_pod_name_rejects_that_pod_only(tmp_path):
    """An existing pod's required anti-affinity selecting statefulset.kubernetes.io/pod-name=web-0
    keeps web-0 off n1, not web-1 (filtering.go satisfyExistingPodsAntiAffinity reads each incoming
    pod's own labels).  The problem shared web-0's verdicts with web-1 (pods of a template were
    told apart without their identity labels even when a selector reads them, which the witness
    filters already did) and proved 2 replicas impossible; web-1 on n1 and web-0 on n2 fit."""
    f = tmp_path / "c.yaml"
    f.write_text(IDENTITY_GUARD)
    code, data = _json(["check", str(f), "--workload", "statefulset/web", "--replicas", "2"])
    assert code == 0 and data["schedulable"]
    assert data["placement"] == {"default/web-1": "n1", "default/web-0": "n2"}


def _sts_cluster(nodes: str) -> str:
    """A StatefulSet web (Parallel, 1 cpu and 1Gi per pod) on the given Node items."""
    return f"""\
apiVersion: v1
kind: List
items:
{nodes}- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {{name: web, namespace: default}}
  spec:
    replicas: 1
    podManagementPolicy: Parallel
    serviceName: web
    selector: {{matchLabels: {{app: web}}}}
    template:
      metadata: {{labels: {{app: web}}}}
      spec:
        containers: [{{name: c, image: i, resources: {{requests: {{cpu: "1", memory: 1Gi}}}}}}]
"""


def _node(name: str, cpu: str, pods: str, spec: str = "") -> str:
    labels = f"{{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: zone-a}}"
    return f"- {{apiVersion: v1, kind: Node, metadata: {{name: {name}, labels: {labels}}},{spec} status: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '{pods}'}}}}}}\n"


def test_why_names_the_nodes_and_numbers_of_the_capacity_that_runs_out(tmp_path):
    """n1 takes 2 more pods (cpu), n2 1 (its pod slots): 4 replicas do not fit.  The why named only
    "web-0, ..., web-3 must be placed": the model bounded each class by its room outside the
    capacity guard, so the core could not name it."""
    f = tmp_path / "c.yaml"
    f.write_text(_sts_cluster(_node("n1", "2", "110") + _node("n2", "4", "1")))
    code, data = _json(["check", str(f), "--workload", "statefulset/web", "--replicas", "4"])
    assert code == 1 and not data["schedulable"]
    assert [e["constraint"] for e in data["explanation"]] == ["replicas", "NodeResourcesFit"]
    fit = data["explanation"][1]
    assert fit["message"] == "zone-a has room for only 3 more pod(s) like web-0: n1 2 (cpu), n2 1 (pods)"
    assert fit["objects"] == ["Node n1", "Node n2"]
    assert run_cli(["check", str(f), "--workload", "statefulset/web", "--replicas", "3"]).code == 0


def test_room_does_not_count_cordoned_or_tainted_nodes(tmp_path):
    """n2 is cordoned and n3 tainted: the pods can use only n1 (room for 2), and the room line says
    so, naming the nodes it leaves out and why, beside the two static facts that keep pods off them."""
    nodes = _node("n1", "2", "110") + _node("n2", "4", "110", " spec: {unschedulable: true},")
    nodes += _node("n3", "4", "110", " spec: {taints: [{key: dedicated, value: db, effect: NoSchedule}]},")
    f = tmp_path / "c.yaml"
    f.write_text(_sts_cluster(nodes))
    code, data = _json(["check", str(f), "--workload", "statefulset/web", "--replicas", "3"])
    assert code == 1
    by = {e["constraint"]: e for e in data["explanation"]}
    assert sorted(by) == ["NodeResourcesFit", "NodeUnschedulable", "TaintToleration", "replicas"]
    fit = by["NodeResourcesFit"]
    assert fit["message"] == "zone-a has room for only 2 more pod(s) like web-0: n1 2 (cpu), not counting n2, n3 (NodeUnschedulable, TaintToleration)"
    assert fit["objects"] == ["Node n1"]


def test_zone_failure_reason_agrees_in_number():
    """Two pods pinned to the lost zone 'fit no node', one 'fits no node'."""
    code, data = _json(["capacity", S001, "--workload", "statefulset/search", "--range", "4..4", "--zone-failure"])
    by_zone = {z["zone"]: z for z in data["zone_failure"]}
    assert "search-0, search-2 fit no node:" in by_zone["zone-a"]["reason"], by_zone["zone-a"]["reason"]
    assert "search-1 fits no node:" in by_zone["zone-b"]["reason"], by_zone["zone-b"]["reason"]


def test_room_is_only_when_it_is_short(tmp_path):
    """A zone's capacity fact in a why-not says "room for only N" when N is fewer than the pods
    to place, plain "room for N" when the zone has room for them all (a core holds it beside
    another fact, e.g. one pod per node). Was: "room for only 2312" for 439 pods."""
    from planner.engines.check import _capacity_message
    from planner.engines.problem import build_problem
    from planner.engines.workloads import cluster_after_plans, parse_workload, plan_workload
    from planner.load import load_snapshot

    f = tmp_path / "c.yaml"
    f.write_text(_sts_cluster(_node("n1", "8", "110") + _node("n2", "8", "110")))
    snap = load_snapshot([str(f)])
    ref = parse_workload("statefulset/web", None)
    for n, only in ((4, False), (40, True)):
        plan = plan_workload(snap, ref, n)
        prob, _ = build_problem(cluster_after_plans(snap, [plan]), [plan])
        msg = _capacity_message(prob, "zone-a")["message"]
        assert msg.startswith("zone-a has room for only 16 more pod(s)" if only else "zone-a has room for "), (n, msg)
        assert ("only" in msg) == only, (n, msg)


def test_a_check_without_witness_answers_as_its_model_does():
    """check_replicas(witness=False), remediate's check part before its replay: schedulable with no
    placement (stats.witness "not ordered") where check orders a witness; an unschedulable answer
    is the same, explanation included."""
    from models.solve import SolveOptions
    from planner.engines.check import check_replicas
    from planner.engines.workloads import parse_workload
    from planner.load import load_snapshot

    snap = load_snapshot([str(SCENARIOS / "zone-and-hostname-spread.yaml")])
    ref = parse_workload("deployment/my-app", None)
    fits = check_replicas(snap, [ref], 8, SolveOptions())
    quick = check_replicas(snap, [ref], 8, SolveOptions(), witness=False)
    assert fits.schedulable and len(fits.placement) == 2 and "witness" not in fits.stats
    assert quick.schedulable and not quick.placement and quick.stats["witness"] == "not ordered"
    snap = load_snapshot([str(SCENARIOS / "zone-anti-affinity-six-replicas.yaml")])
    ref = parse_workload("deployment/az-spread-test-anti", None)
    full = check_replicas(snap, [ref], 6, SolveOptions())
    model = check_replicas(snap, [ref], 6, SolveOptions(), witness=False)
    assert not full.schedulable and not model.schedulable
    assert model.explanation == full.explanation and model.explanation
