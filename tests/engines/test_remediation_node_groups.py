"""remediate's new nodes come from the node groups `capacity --add-nodes` uses (scale-node-group).

scenarios/daemonsets-node-groups.yaml: two EKS managed node groups of 4-CPU nodes, a tainted GPU
pool (the largest node of zone-a), a cordoned 8-CPU node (the largest of zone-b), and a log agent
DaemonSet taking 1 CPU of every node.  capacity --add-nodes says 16 web replicas need 2 new nodes
of one general group (3 web pods per new node, next to its log agent); remediate must agree: the
group's template (cluster-autoscaler's: ready, uncordoned, transient taints dropped), the new
nodes verified with their DaemonSet pods.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from models.solve import SolveOptions
from planner.controllers.nodegroups import node_groups
from planner.engines.capacity import nodes_to_add
from planner.engines.remediation import Goal, apply_patches, evaluate, remediate
from planner.engines.remediation.candidates import _scale_instructions
from planner.engines.workloads import parse_workload
from planner.load import load_snapshot
from tests.conftest import SCENARIOS, run_cli

SCEN = SCENARIOS / "daemonsets-node-groups.yaml"
WEB = parse_workload("deployment/web", "default")
OPTS = SolveOptions()


def _node_plans(out):
    return [p for p in out.plans if any(a.type == "scale-node-group" for a in p.actions)]


def test_remediate_adds_as_many_nodes_as_capacity_and_names_the_group() -> None:
    snap = load_snapshot([str(SCEN)])
    cap = nodes_to_add(snap, WEB, 16, OPTS)
    assert cap["found"] and cap["total"] == 2
    out = remediate(snap, Goal(WEB, "replicas", 16), top=10, opts=OPTS)
    plans = _node_plans(out)
    assert plans and all(a.type != "add-nodes" for p in out.plans for a in p.actions)
    cheapest = plans[0].actions
    assert sum(a.params["count"] for a in cheapest) == cap["total"]
    a = cheapest[0]
    assert a.params["group"] in ("general-zone-a", "general-zone-b")
    assert a.summary == f"add 2 node(s) to node group {a.params['group']} (eks.amazonaws.com/nodegroup)"
    assert a.params["label"] == "eks.amazonaws.com/nodegroup" and a.params["daemonset_pods"] == ["kube-system/log-agent"]
    assert a.target == f"nodegroup/{a.params['group']}" and a.advisory
    # capacity's own choice is one of remediate's plans, with the same count
    row = cap["node_groups"][0]
    assert any(
        [(x.params["group"], x.params["count"], x.params["template"]) for x in p.actions] == [(row["group"], row["count"], row["template"])]
        for p in plans
    )
    # the GPU pool (untolerated taint) is never offered
    assert all(x.params["group"] != "gpu" for p in plans for x in p.actions)
    # the commands say how to scale an EKS managed node group, and never run kubectl
    assert all(c.startswith("#") for c in a.commands)
    assert any("EKS managed node group" in c and a.params["group"] in c for c in a.commands)


def test_verification_counts_the_daemonset_pods_of_the_new_nodes() -> None:
    snap = load_snapshot([str(SCEN)])
    out = remediate(snap, Goal(WEB, "replicas", 16), top=10, opts=OPTS)
    a = _node_plans(out)[0].actions[0]
    after = apply_patches(snap, a.patches)
    for p in a.patches:
        on = [q for q in after.pods.values() if q.spec.node_name == p.name]
        assert [(q.namespace, q.owner.name if q.owner else None) for q in on] == [("kube-system", "log-agent")]
    assert evaluate(after, Goal(WEB, "replicas", 16), OPTS).ok
    # one node of the group is not enough: its log agent leaves room for 3 web pods, not 4
    one = apply_patches(snap, a.patches[:1])
    assert not evaluate(one, Goal(WEB, "replicas", 16), OPTS).ok


def _with_deleting_giant(tmp_path: Path) -> Path:
    """The scenario with a 16-CPU node of general-zone-a that cluster-autoscaler is deleting
    (ToBeDeletedByClusterAutoscaler), which web tolerates: the largest node web may use in zone-a."""
    d = yaml.safe_load(SCEN.read_text())
    d["nodePools"].append(
        {
            "name": "general-a-deleting",
            "zones": {"zone-a": 1},
            "names": ["general-zone-a-2"],
            "capacity": {"cpu": "16", "memory": "64Gi"},
            "instanceType": "m6i.4xlarge",
            "labels": {"eks.amazonaws.com/nodegroup": "general-zone-a"},
            "taints": [{"key": "ToBeDeletedByClusterAutoscaler", "value": "1700000000", "effect": "NoSchedule"}],
        }
    )
    d["nodePools"].insert(0, d["nodePools"].pop())  # listed first: the template only if it were a good candidate
    web = next(o for o in d["objects"] if o["kind"] == "Deployment")
    web["spec"]["template"]["spec"]["tolerations"] = [{"key": "ToBeDeletedByClusterAutoscaler", "operator": "Exists"}]
    d.pop("expect", None)
    d.pop("steps", None)
    p = tmp_path / "deleting.yaml"
    p.write_text(yaml.safe_dump(d, sort_keys=False))
    return p


def test_a_cordoned_or_tainted_largest_node_is_never_the_template(tmp_path: Path) -> None:
    # the giant has room for 16 web pods: 28 fit, 32 need 2 new nodes
    for path, replicas in ((SCEN, 16), (_with_deleting_giant(tmp_path), 32)):
        snap = load_snapshot([str(path)])
        assert not evaluate(snap, Goal(WEB, "replicas", replicas), OPTS, replay=False).ok
        out = remediate(snap, Goal(WEB, "replicas", replicas), top=10, opts=OPTS)
        acts = [a for p in out.plans for a in p.actions if a.type == "scale-node-group"]
        assert acts
        for a in acts:
            assert a.params["template"] not in ("general-zone-b-2", "gpu-zone-a-0", "general-zone-a-2"), a.params
            for p in a.patches:
                body = p.body
                assert body["metadata"]["labels"]["kubernetes.io/hostname"] == p.name
                assert body["status"]["allocatable"]["cpu"] == "4"
                assert not body["spec"].get("unschedulable") and not body["spec"].get("taints")


def test_emitted_runbook_only_comments_for_node_groups(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    r = run_cli(["remediate", str(SCEN), "-w", "deployment/web", "--replicas", "16", "--emit", str(out_dir), "-o", "json"])
    assert r.code == 0, r.err
    data = json.loads((out_dir / "remediate.json").read_text())
    # the cordoned node with room ranks first (uncordon: no money); the node groups come next
    assert data["plans"][0]["actions"][0]["type"] == "uncordon"
    i = next(i for i, p in enumerate(data["plans"]) if p["actions"][0]["type"] == "scale-node-group")
    first = data["plans"][i]["actions"][0]
    assert first["type"] == "scale-node-group" and set(first["params"]) == {"group", "label", "zone", "count", "template", "daemonset_pods"}
    runbook = (out_dir / f"plan-{i + 1}" / "runbook.sh").read_text()
    assert "scale-node-group nodegroup/" in runbook and "EKS managed node group" in runbook
    body = [ln for ln in runbook.splitlines() if ln and not ln.startswith(("#", "set ", "cd ", "confirm", "echo", "}", "  ", "if ", "fi"))]
    assert not any(ln.startswith("kubectl") for ln in body), body


def test_forbid_add_nodes_is_the_retired_name_of_scale_node_group() -> None:
    snap = load_snapshot([str(SCEN)])
    out = remediate(snap, Goal(WEB, "replicas", 16), forbid=["add-nodes"], top=10, opts=OPTS)
    assert not _node_plans(out)


def test_instructions_follow_the_group_label() -> None:
    snap = load_snapshot([str(SCEN)])
    g = next(x for x in node_groups(snap.nodes.values()) if x.name == "general-zone-b")
    from dataclasses import replace
    from types import SimpleNamespace

    for label, words in (
        ("eks.amazonaws.com/nodegroup", "EKS managed node group"),
        ("cloud.google.com/gke-nodepool", "GKE node pool"),
        ("karpenter.sh/nodepool", "Karpenter NodePool"),
        ("kubernetes.azure.com/agentpool", "AKS agent pool"),
    ):
        t = replace(g.template, labels={**g.template.labels, label: "pool-1"})
        lines = _scale_instructions(SimpleNamespace(snap=snap), replace(g, label=label, template=t), 2)  # type: ignore[arg-type]
        assert all(ln.startswith("#") for ln in lines)
        assert words in lines[0] and "pool-1" in lines[0]
        assert "spans" not in lines[0]  # no other node is labelled pool-1


def test_a_group_in_several_zones_is_sized_as_a_whole() -> None:
    """An EKS managed node group (an AKS agent pool) labelled alike in several zones is one Auto
    Scaling group (scale set): its desired size counts every zone's nodes, and it picks the zone of
    the node it adds; a GKE pool's manual resize sets the count in every zone. The instructions say
    so, with the numbers, instead of a per-zone size the provider does not have."""
    from dataclasses import replace
    from types import SimpleNamespace

    snap = load_snapshot([str(SCEN)])
    g = next(x for x in node_groups(snap.nodes.values()) if x.name == "general-zone-b")
    for label, words in (("eks.amazonaws.com/nodegroup", "desiredSize="), ("kubernetes.azure.com/agentpool", "--node-count "),
                         ("cloud.google.com/gke-nodepool", "every zone of the pool")):
        # every general node, whatever its zone, in one group pool-1
        nodes = {k: (replace(n, labels={**n.labels, label: "pool-1"}) if n.name.startswith("general-") else n) for k, n in snap.nodes.items()}
        members = [n for n in nodes.values() if n.name.startswith("general-")]
        zones = sorted({n.zone for n in members if n.zone})
        assert len(zones) > 1
        t = replace(g.template, labels={**g.template.labels, label: "pool-1"})
        lines = _scale_instructions(SimpleNamespace(snap=SimpleNamespace(nodes=nodes)), replace(g, label=label, template=t), 2)  # type: ignore[arg-type]
        assert f"pool-1 spans {', '.join(zones)}" in lines[0], lines[0]
        if label != "cloud.google.com/gke-nodepool":
            # relative to now (a plan may scale several zones' parts of one group): never a size to set
            assert f"({len(members)} node(s) now); raise it by 2" in lines[0] and f"{words}N (N: its nodes now plus every node" in lines[0], lines[0]
            assert f"must be in {g.zone}" in lines[0]
        else:
            assert words in lines[0] and f"not in {g.zone} alone" in lines[0]
    # a group with nodes without a zone label besides zoned ones spans them too
    label = "eks.amazonaws.com/nodegroup"
    nodes = {k: (replace(n, labels={**n.labels, label: "pool-1"}) if n.name.startswith("general-") else n) for k, n in snap.nodes.items()}
    first = next(k for k, n in nodes.items() if n.name.startswith("general-"))
    nodes[first] = replace(nodes[first], labels={k: v for k, v in nodes[first].labels.items() if k != "topology.kubernetes.io/zone"})
    t = replace(g.template, labels={**g.template.labels, label: "pool-1"})
    lines = _scale_instructions(SimpleNamespace(snap=SimpleNamespace(nodes=nodes)), replace(g, label=label, template=t), 1)  # type: ignore[arg-type]
    members = [n for n in nodes.values() if n.name.startswith("general-")]
    assert "(no zone)" in lines[0] and f"({len(members)} node(s) now); raise it by 1" in lines[0], lines[0]
