"""remediate's first fixes an SRE reaches for, on an ordinary cluster (scenarios/cordoned-node-hpa-helm.yaml):
uncordon a node, tolerate a taint, lower requests; the ranking (the goal as asked before any plan
that changes it); an HPA-managed workload's count changed through its HPA; Helm-managed objects
named with their release.  Every patch is also applied with ``kubectl patch --local`` and the goal
verified again on kubectl's result in tests/engines/test_remediation.py (cases ``ordinary`` and
``node-groups``).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path

import pytest
import yaml

from models.solve import SolveOptions
from planner.domain import Node, Taint
from planner.engines.remediation import Goal, apply_patches, evaluate, remediate
from planner.engines.remediation.actions import ACTION_TYPES, Cost, ObjectPatch, Plan
from planner.engines.remediation.candidates import (
    Context,
    Failure,
    set_requests_candidates,
    tolerable,
    uncordon_blocker,
    uncordon_candidates,
)
from planner.engines.remediation.helm import helm_release
from planner.engines.workloads import parse_workload
from planner.load import load_snapshot
from tests.conftest import SCENARIOS, run_cli

SCEN = SCENARIOS / "cordoned-node-hpa-helm.yaml"
NODE_GROUPS = SCENARIOS / "daemonsets-node-groups.yaml"
API = parse_workload("statefulset/api", "shop")
OPTS = SolveOptions()
GOAL = Goal(API, "replicas", 6)


@cache
def _snap(path: Path = SCEN):
    return load_snapshot([str(path)])


@cache
def _outcome(forbid: tuple[str, ...] = ()):
    return remediate(_snap(), GOAL, forbid, top=10, opts=OPTS)


def _types(plans: list[Plan]) -> list[list[str]]:
    return [[a.type for a in p.actions] for p in plans]


def _variant(tmp_path: Path, edit) -> Path:
    """The scenario with ``edit(doc)`` applied to its YAML (expectations dropped)."""
    d = yaml.safe_load(SCEN.read_text())
    d.pop("expect", None)
    edit(d)
    p = tmp_path / "variant.yaml"
    p.write_text(yaml.safe_dump(d, sort_keys=False))
    return p


# --------------------------------------------------------------------------- ranking


def test_the_plan_an_sre_picks_comes_first():
    """uncordon (nothing paid, nothing rolled) before a new node (money) before tolerating a
    tainted pool (a policy decision); capping the HPA (another goal) only among the alternatives."""
    out = _outcome()
    assert _types(out.plans)[:3] == [["uncordon"], ["scale-node-group"], ["add-toleration"]]
    first = out.plans[0].actions[0]
    assert first.target == "node/general-zone-b-1" and first.params == {"node": "general-zone-b-1", "zone": "zone-b"}
    assert first.cost == Cost(label_changes=1) and not first.helm and not first.advisory
    assert first.assumes and "cannot see why" in first.assumes[0]
    assert all(p.verified.get("check") and p.verified.get("replay") for p in out.plans)
    # nothing that changes the goal is a plan; the alternative is verified too
    assert not any(p.changes_goal for p in out.plans)
    assert _types(out.alternatives) == [["scale-to"]] and out.alternatives[0].changes_goal and out.alternatives[0].verified


def test_a_plan_that_reaches_the_goal_ranks_before_one_that_changes_it_whatever_the_cost():
    from planner.engines.remediation.actions import Action

    scale = Action("scale-to", "statefulset/shop/api", "s", [], [], Cost(label_changes=1), replicas=5)
    dpvc = Action("delete-pvc", "persistentvolumeclaim/shop/x", "d", [], [], Cost(data_loss=1))
    cheap_but_other_goal = Plan([scale], scale.cost)
    destructive_as_asked = Plan([dpvc], dpvc.cost)
    for allow in (False, True):
        assert destructive_as_asked.rank_key(allow) < cheap_but_other_goal.rank_key(allow)
    assert cheap_but_other_goal.to_dict()["changes_goal"] is True and destructive_as_asked.to_dict()["changes_goal"] is False


def test_forbid_lists_the_new_actions_and_leaves_them_out():
    out = _outcome(("uncordon",))
    assert _types(out.plans)[0] == ["scale-node-group"]
    assert not any(a.type == "uncordon" for p in out.plans for a in p.actions)
    for t in ("uncordon", "add-toleration", "set-requests"):
        assert t in ACTION_TYPES
    r = run_cli(["remediate", SCEN, "-w", "statefulset/api", "-n", "shop", "--replicas", "6", "--forbid", "cordon"])
    assert r.code == 2 and "uncordon, add-toleration, set-requests" in r.err


def test_only_alternatives_exit_1_and_are_printed_apart():
    """No plan reaches 6 when uncordon, nodes and tolerations are forbidden: exit 1, and the
    HPA cap (5 replicas) is printed in its own section."""
    args = ["remediate", SCEN, "-w", "statefulset/api", "-n", "shop", "--replicas", "6"]
    for t in ("uncordon", "scale-node-group", "add-toleration"):
        args += ["--forbid", t]
    j = run_cli([*args, "-o", "json"])
    data = json.loads(j.out)
    assert j.code == 1 and data["plans"] == [] and [p["changes_goal"] for p in data["alternatives"]] == [True]
    t = run_cli(args)
    assert t.code == 1
    assert "0 verified plan(s) that reach it as asked, cheapest first; 1 alternative(s) that change the goal" in t.out
    assert t.out.index("alternatives (they change the goal") < t.out.index("alternative 1  CHANGES THE GOAL")


# --------------------------------------------------------------------------- HPA


def test_an_hpa_managed_workload_gets_hpa_patches_never_kubectl_scale():
    out = _outcome()
    a = out.alternatives[0].actions[0]
    assert a.params == {"replicas": 5, "hpa": "shop/api", "minReplicas": 4, "maxReplicas": 5}
    [p] = a.patches
    assert (p.kind, p.namespace, p.name, p.type) == ("HorizontalPodAutoscaler", "shop", "api", "json")
    assert p.body == [
        {"op": "test", "path": "/spec/scaleTargetRef", "value": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "api"}},
        {"op": "test", "path": "/spec/minReplicas", "value": 4},
        {"op": "test", "path": "/spec/maxReplicas", "value": 10},
        {"op": "replace", "path": "/spec/maxReplicas", "value": 5},
    ]
    assert a.commands == [p.kubectl()] and not any("kubectl scale" in c for c in a.commands)
    assert any("`kubectl scale` would be undone" in e for e in a.side_effects)
    # the HPA after the patch: the bounds the replay and check read
    after = apply_patches(_snap(), a.patches)
    assert (after.hpas["shop/api"].min_replicas, after.hpas["shop/api"].max_replicas) == (4, 5)


def test_without_an_hpa_scale_to_is_kubectl_scale(tmp_path):
    path = _variant(tmp_path, lambda d: d.update(objects=[o for o in d["objects"] if o["kind"] != "HorizontalPodAutoscaler"]))
    out = remediate(load_snapshot([str(path)]), GOAL, ("uncordon", "scale-node-group", "add-toleration"), top=5, opts=OPTS)
    a = out.alternatives[0].actions[0]
    assert a.commands == ["kubectl scale statefulset api -n shop --current-replicas=6 --replicas=5"]
    assert [(p.kind, p.body[-1]) for p in a.patches] == [("StatefulSet", {"op": "replace", "path": "/spec/replicas", "value": 5})]


# --------------------------------------------------------------------------- uncordon


def test_uncordon_patch_and_the_controllers_taint():
    """The patch drops spec.unschedulable (as kubectl uncordon), guarded on the node's uid and the
    cordon; the node lifecycle controller's node.kubernetes.io/unschedulable taint goes with it."""
    snap = _snap()
    a = _outcome().plans[0].actions[0]
    node = snap.nodes["general-zone-b-1"]
    assert a.patches[0].body == [
        {"op": "test", "path": "/metadata/uid", "value": node.uid},
        {"op": "test", "path": "/spec/unschedulable", "value": True},
        {"op": "remove", "path": "/spec/unschedulable"},
    ]
    assert any(t.key == "node.kubernetes.io/unschedulable" for t in node.taints)
    after = apply_patches(snap, a.patches)
    n = after.nodes["general-zone-b-1"]
    assert not n.unschedulable and not any(t.key == "node.kubernetes.io/unschedulable" for t in n.taints)
    assert evaluate(after, GOAL, OPTS).ok
    # a stale snapshot: the node was uncordoned (or replaced) since: the guard refuses
    from planner.engines.remediation.jsonpatch import PatchError, apply_json_patch

    raw = copy.deepcopy(snap.raw[("Node", "general-zone-b-1")])
    raw["metadata"]["uid"] = "another-node-of-the-same-name"
    with pytest.raises(PatchError):
        apply_json_patch(raw, a.patches[0].body)


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda n: n["status"].update(conditions=[{"type": "Ready", "status": "False"}]), "NotReady"),
        (lambda n: n["metadata"].update(deletionTimestamp="2025-01-01T00:00:00Z"), "being deleted"),
        (lambda n: n["spec"]["taints"].append({"key": "ToBeDeletedByClusterAutoscaler", "value": "1", "effect": "NoSchedule"}), "ToBeDeletedByClusterAutoscaler"),
        (lambda n: n["spec"]["taints"].append({"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}), "karpenter.sh/disrupted"),
        (lambda n: n["spec"]["taints"].append({"key": "node.kubernetes.io/out-of-service", "value": "nodeshutdown", "effect": "NoExecute"}), "out-of-service"),
    ],
)
def test_uncordon_never_for_a_node_that_is_unready_or_on_its_way_out(edit, why):
    """The cordoned node in each state a drain, a scale-down, a disruption or a fault leaves it:
    no uncordon candidate (the same node as read is one)."""
    from planner.convert import node as convert_node

    snap = _snap().copy()
    ctx = Context(snap, GOAL, Failure(plugins={"NodeResourcesFit"}))
    assert [a.target for a in uncordon_candidates(ctx)] == ["node/general-zone-b-1"]
    raw = copy.deepcopy(snap.raw[("Node", "general-zone-b-1")])
    edit(raw)
    snap.raw[("Node", "general-zone-b-1")] = raw
    snap.nodes["general-zone-b-1"] = convert_node(raw, [])
    assert why in str(uncordon_blocker(snap.nodes["general-zone-b-1"], raw))
    assert uncordon_candidates(ctx) == []


def test_uncordon_blocker_reasons():
    ok = Node("n", unschedulable=True, taints=(Taint("node.kubernetes.io/unschedulable", "", "NoSchedule"),), ready=True)
    assert uncordon_blocker(ok, {}) is None
    assert uncordon_blocker(Node("n", unschedulable=False), {}) == "not cordoned"
    assert uncordon_blocker(Node("n", unschedulable=True, ready=False), {}) == "NotReady"
    assert uncordon_blocker(ok, {"metadata": {"deletionTimestamp": "x"}}) == "being deleted"
    gone = Node("n", unschedulable=True, taints=(Taint("DeletionCandidateOfClusterAutoscaler", "1", "PreferNoSchedule"),))
    assert "scale-down or disruption" in str(uncordon_blocker(gone, {}))
    unreachable = Node("n", unschedulable=True, taints=(Taint("node.kubernetes.io/unreachable", "", "NoExecute"),))
    assert uncordon_blocker(unreachable, {}) == "tainted node.kubernetes.io/unreachable"


def test_uncordon_not_proposed_for_a_node_the_pods_could_not_use(tmp_path):
    """A cordoned node without room for one pod, or whose other taint the pods do not tolerate."""

    def full(d):
        d["pods"].append({"workload": "deployment/web", "namespace": "shop", "count": 3, "nodes": ["general-zone-b-1"]})
        for o in d["objects"]:
            if o["metadata"]["name"] == "web":
                o["spec"]["replicas"] = 13

    snap = load_snapshot([str(_variant(tmp_path, full))])
    assert uncordon_candidates(Context(snap, GOAL, Failure(plugins={"NodeResourcesFit"}))) == []

    def tainted(d):
        for pool in d["nodePools"]:
            if pool["name"] == "general-cordoned":
                pool["taints"] = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]

    snap = load_snapshot([str(_variant(tmp_path, tainted))])
    assert uncordon_candidates(Context(snap, GOAL, Failure(plugins={"NodeResourcesFit"}))) == []


# --------------------------------------------------------------------------- add-toleration


def test_add_toleration_is_a_policy_decision_patching_the_template():
    out = _outcome()
    a = next(a for p in out.plans for a in p.actions if a.type == "add-toleration")
    assert a.policy_decision and a.rolls_template and a.cost.assumptions == 1
    assert a.params == {"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}], "nodes": 2}
    ops = a.patches[0].body
    assert ops[0]["op"] == "test" and ops[-1] == {
        "op": "add",
        "path": "/spec/template/spec/tolerations",
        "value": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}],
    }
    assert any(e.startswith("a policy decision: the taint dedicated=batch:NoSchedule") for e in a.side_effects)
    assert a.assumes and "owners of the nodes tainted dedicated=batch:NoSchedule" in a.assumes[0]


def test_tolerable_never_the_clusters_own_taints():
    for key in (
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
        "node.kubernetes.io/unschedulable",
        "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/anything-else",
        "node.cloudprovider.kubernetes.io/uninitialized",
        "ToBeDeletedByClusterAutoscaler",
        "karpenter.sh/disrupted",
        "node-role.kubernetes.io/control-plane",
        "startup-taint.cluster-autoscaler.kubernetes.io/cni",
    ):
        assert not tolerable(Taint(key, "", "NoSchedule")), key
    assert tolerable(Taint("dedicated", "batch", "NoSchedule")) and tolerable(Taint("nvidia.com/gpu", "true", "NoSchedule"))


def test_no_toleration_for_a_not_ready_taint(tmp_path):
    """A node whose only untolerated taint is the node lifecycle controller's not-ready one gets
    no add-toleration candidate (tolerating it sends pods to a failing node)."""

    def notready(d):
        for pool in d["nodePools"]:
            if pool["name"] == "batch":
                pool["taints"] = [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]

    snap = load_snapshot([str(_variant(tmp_path, notready))])
    out = remediate(snap, GOAL, ("uncordon",), top=10, opts=OPTS)
    assert not any(a.type == "add-toleration" for p in out.plans for a in p.actions)
    assert not any(r["actions"][0].startswith("add-toleration") for r in out.rejected)


# --------------------------------------------------------------------------- set-requests


def test_set_requests_is_advisory_and_names_what_it_assumes():
    out = remediate(_snap(NODE_GROUPS), Goal(parse_workload("deployment/web", None), "replicas", 16), top=10, opts=OPTS)
    a = next(a for p in out.plans for a in p.actions if a.type == "set-requests")
    assert a.advisory and a.params == {"requests": {"web": {"cpu": "750m"}}, "factor": "75%"}
    assert a.patches[0].body == [
        {"op": "test", "path": "/spec/template/spec/containers/0/name", "value": "web"},
        {"op": "test", "path": "/spec/template/spec/containers/0/resources/requests/cpu", "value": "1"},
        {"op": "replace", "path": "/spec/template/spec/containers/0/resources/requests/cpu", "value": "750m"},
    ]
    assert "planner has no usage metrics" in a.assumes[0] and "use less than the new requests" in a.assumes[0]
    # ranked after the node group (money): an assumption planner cannot check weighs more
    types = [p.actions[0].type for p in out.plans]
    assert types.index("scale-node-group") < types.index("set-requests")


def test_set_requests_rejected_when_the_ordered_rollout_cannot_start():
    """On the ordinary cluster, halving api's cpu request would fit (check), but the replay shows
    the OrderedReady rolling update replaces api-5 first, which still finds no room: rejected."""
    out = _outcome()
    why = next(r["reason"] for r in out.rejected if r["actions"][0].startswith("set-requests"))
    assert why.startswith("replay: shop/api-5 stays Pending")


def test_set_requests_says_the_hpa_reads_utilization_of_the_request():
    ctx = Context(_snap(), GOAL, Failure(plugins={"NodeResourcesFit"}, text="Insufficient cpu"))
    cands = set_requests_candidates(ctx)
    assert [a.params["requests"] for a in cands] == [{"api": {"cpu": "1200m"}}, {"api": {"cpu": "800m"}}]
    assert all(any("HorizontalPodAutoscaler shop/api scales on cpu utilization" in e for e in a.side_effects) for a in cands)
    mem = set_requests_candidates(Context(_snap(), GOAL, Failure(plugins={"NodeResourcesFit"}, text="Insufficient memory")))
    assert [a.params["requests"] for a in mem] == [{"api": {"memory": "1536Mi"}}, {"api": {"memory": "1Gi"}}]
    assert not any("Guaranteed" in e for e in mem[0].side_effects)  # api has no cpu limit: Burstable already
    # requests equal to cpu and memory limits: lowering them leaves the Guaranteed QoS class
    snap = _snap().copy()
    raw = copy.deepcopy(snap.raw[("StatefulSet", "shop/api")])
    raw["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "1600m", "memory": "2Gi"}
    snap.raw[("StatefulSet", "shop/api")] = raw
    guaranteed = set_requests_candidates(Context(snap, GOAL, Failure(plugins={"NodeResourcesFit"}, text="Insufficient cpu")))
    assert all(any("no longer of the Guaranteed QoS class" in e for e in a.side_effects) for a in guaranteed)


# --------------------------------------------------------------------------- Helm


def test_helm_managed_objects_name_their_release_on_every_step_that_patches_them():
    out = _outcome()
    tol = next(a for p in out.plans for a in p.actions if a.type == "add-toleration")
    assert tol.helm == [
        {
            "kind": "StatefulSet",
            "namespace": "shop",
            "name": "api",
            "release": "shop",
            "release_namespace": "shop",
            "source": "annotation meta.helm.sh/release-name",
        }
    ]
    assert any("managed by Helm release shop (namespace shop)" in e and "chart's values" in e for e in tol.side_effects)
    hpa = out.alternatives[0].actions[0]
    assert [(h["kind"], h["release"]) for h in hpa.helm] == [("HorizontalPodAutoscaler", "shop")]
    # the node changes are not Helm's
    assert all(not a.helm for p in out.plans for a in p.actions if a.type in ("uncordon", "scale-node-group"))
    assert tol.to_dict()["helm"] == tol.helm


def test_helm_release_read_from_the_annotation_or_the_instance_label():
    assert helm_release({"metadata": {"labels": {"app": "x"}}}) is None
    assert helm_release(None) is None
    ann = {"metadata": {"namespace": "a", "annotations": {"meta.helm.sh/release-name": "r"}}}
    assert helm_release(ann) == {"release": "r", "release_namespace": "a", "source": "annotation meta.helm.sh/release-name"}
    label = {"metadata": {"namespace": "a", "labels": {"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/instance": "i"}}}
    assert helm_release(label)["release"] == "i" and "no meta.helm.sh/release-name" in helm_release(label)["source"]
    bare = {"metadata": {"labels": {"app.kubernetes.io/managed-by": "Helm"}}}
    assert helm_release(bare)["release"] is None


# --------------------------------------------------------------------------- runbooks


def test_runbook_flags_policy_helm_and_pins_the_context(tmp_path):
    out_dir = tmp_path / "fix"
    r = run_cli(["remediate", SCEN, "-w", "statefulset/api", "-n", "shop", "--replicas", "6", "--emit", out_dir, "--context", "prod-eu", "-o", "json"])
    assert r.code == 0, r.err
    data = json.loads(r.out)
    i = next(i for i, p in enumerate(data["plans"], 1) if p["actions"][0]["type"] == "add-toleration")
    text = (out_dir / f"plan-{i}" / "runbook.sh").read_text()
    assert "POLICY DECISION" in text and "confirm 'Step 1 is a policy decision" in text
    assert "#   helm: StatefulSet api is managed by Helm, release shop (namespace shop): change the chart's values too" in text
    assert "#   assumes: the owners of the nodes tainted dedicated=batch:NoSchedule" in text
    commands = [ln for ln in text.splitlines() if ln.startswith("kubectl ")]
    assert commands and all(ln.startswith("kubectl --context prod-eu ") for ln in commands)
    uncordon = (out_dir / "plan-1" / "runbook.sh").read_text()
    assert "kubectl --context prod-eu patch node general-zone-b-1 --type json --patch-file 01-1-json-node-general-zone-b-1.json" in uncordon
    assert "KUBE_CONTEXT=prod-eu" in uncordon
    alt = (out_dir / "alternative-1" / "runbook.sh").read_text()
    assert "# planner remediate: alternative 1 of 1" in alt and "patch hpa api -n shop" in alt


def test_object_patch_delete_forms():
    p = ObjectPatch("PersistentVolumeClaim", "ns", "data-a-0", "delete", {"metadata": {"uid": "u-1"}}, wait=False)
    assert p.kubectl() == "kubectl delete pvc data-a-0 -n ns --wait=false"
    assert p.kubectl(file="o.json") == "kubectl delete --raw /api/v1/namespaces/ns/persistentvolumeclaims/data-a-0 -f o.json"
    assert p.delete_options() == {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": "u-1"}}
    orphan = ObjectPatch("StatefulSet", "ns", "a", "delete", {"metadata": {"uid": "u-2"}}, propagation="Orphan")
    assert orphan.kubectl() == "kubectl delete statefulset a -n ns --cascade=orphan"
    assert orphan.delete_options()["propagationPolicy"] == "Orphan"
    bare = ObjectPatch("Pod", "ns", "p", "delete", {"metadata": {"name": "p"}})
    assert bare.uid == "" and bare.kubectl(file="o.json") == "kubectl delete pod p -n ns"  # no uid: no precondition possible
    assert ObjectPatch("PersistentVolume", None, "pv/x", "delete", {}).api_path() == "/api/v1/persistentvolumes/pv%2Fx"
