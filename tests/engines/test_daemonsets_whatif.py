"""What-ifs with DaemonSets and node groups (scenarios/daemonsets-node-groups.yaml):

* capacity --add-nodes takes each node group's template as cluster-autoscaler does (a ready,
  uncordoned node; not the largest node of the zone, which was a cordoned or GPU-tainted one)
  and counts the DaemonSet pods each new node runs;
* simulate --drain skips DaemonSet-managed and mirror pods (kubectl drain --ignore-daemonsets);
* a replay's addNodes gives each new node its DaemonSet pods.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from models.solve import SolveOptions
from planner.domain import Pod, PodSpec, is_daemonset_pod
from planner.engines.capacity import nodes_to_add
from planner.engines.replay import Simulator, Step
from planner.engines.workloads import parse_workload
from planner.load import load_snapshot

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "daemonsets-node-groups.yaml"
WEB = parse_workload("deployment/web", None)


def _snap():
    return load_snapshot([str(SCENARIO)])


def test_add_nodes_uses_a_good_template_and_counts_daemonset_pods() -> None:
    snap = _snap()
    r = nodes_to_add(snap, WEB, 16, SolveOptions())
    assert r["found"] and r["total"] == 2, r
    (g,) = r["node_groups"]
    assert g["label"] == "eks.amazonaws.com/nodegroup" and g["group"] in ("general-zone-a", "general-zone-b")
    assert g["template"] not in ("general-zone-b-2", "gpu-zone-a-0")  # neither the cordoned nor the GPU node
    assert g["daemonset_pods"] == ["kube-system/log-agent"]  # the GPU plugin selects the GPU pool only
    assert g["daemonset_requests"] == {"cpu": 1000, "memory": 256 * 1024**2}
    assert r["message"] == f"add 2 nodes to node group {g['group']} (eks.amazonaws.com/nodegroup)"
    assert [s["group"] for s in r["skipped_groups"]] == ["gpu"]
    # without the log agent's 1 CPU a new 4-CPU node takes 4 web pods: one node would do
    bare = snap.copy()
    bare.daemonsets = {}
    assert nodes_to_add(bare, WEB, 16, SolveOptions())["total"] == 1


def test_drain_skips_daemonset_and_mirror_pods() -> None:
    snap = _snap().copy()
    mirror = Pod(
        "kube-system",
        "kube-proxy-general-zone-a-1",
        {"component": "kube-proxy"},
        PodSpec(node_name="general-zone-a-1"),
        phase="Running",
        annotations={"kubernetes.io/config.mirror": "c0ffee"},
    )
    snap.pods[mirror.key] = mirror
    sim = Simulator(snap)
    res = sim.run([Step("drain", {"node": "general-zone-a-1"})], [WEB])
    events = res["steps"][1]["events"]
    skipped = {e["pod"]: e["reason"] for e in events if e["type"] == "drain-skipped"}
    assert set(skipped) == {"kube-system/log-agent-general-zone-a-1", mirror.key}
    assert skipped["kube-system/log-agent-general-zone-a-1"] == "ignoring DaemonSet-managed Pods"
    deleted = [e["pod"] for e in events if e["type"] == "deleted"]
    assert len(deleted) == 3 and all(k.startswith("default/web-") for k in deleted)
    assert "kube-system/log-agent-general-zone-a-1" in sim.snap.pods and mirror.key in sim.snap.pods
    assert not res["drain_blocked"]


def test_replay_add_nodes_runs_the_daemonsets_of_the_new_node() -> None:
    snap = _snap()
    sim = Simulator(snap)
    res = sim.run([Step("add-nodes", {"zone": "zone-a", "count": 2, "pool": "gpu"})], [WEB])
    added = [e["node"] for e in res["steps"][1]["events"] if e["type"] == "node-added"]
    assert len(added) == 2
    for name in added:
        node = sim.snap.nodes[name]
        assert node.labels["eks.amazonaws.com/nodegroup"] == "gpu" and [t.key for t in node.taints] == ["nvidia.com/gpu"]
        owners = sorted(p.owner.name for p in sim.snap.pods.values() if p.spec.node_name == name and is_daemonset_pod(p) and p.owner)
        assert owners == ["gpu-device-plugin", "log-agent"]
        ni = sim.cluster.by_name[name]
        assert sum(p.spec.requests.get("cpu", 0) for p in ni.pods) == 1100
    # the zone-b group's template is never the cordoned node
    res = Simulator(snap).run([Step("add-nodes", {"zone": "zone-b", "count": 1, "pool": "general-zone-b"})], [WEB])
    (ev,) = [e for e in res["steps"][1]["events"] if e["type"] == "node-added"]
    assert ev["group"] == "general-zone-b"
    sim2 = Simulator(snap)
    sim2.run([Step("add-nodes", {"zone": "zone-b", "count": 1, "pool": "general-zone-b"})], [WEB])
    new = sim2.snap.nodes[ev["node"]]
    assert not new.unschedulable and new.allocatable["cpu"] == 4000 and new.taints == ()
    assert replace(new, name="x").labels["eks.amazonaws.com/nodegroup"] == "general-zone-b"
