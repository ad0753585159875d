"""remediate's action model (planner.engines.remediation.choose, models/remediation.py) and the
verification that shares the unchanged cluster (Snapshot.derive).

* the patched snapshots a verification builds derive their scheduler cache and the controllers'
  index from the snapshot they came from: equal, node by node and pod by pod, to those built
  afresh, and the replay on them gives the very same result;
* a node group's count is an integer of the model: a plan that needs nodes in several zones (the
  6-zone bench's shape) is found and verified, in one plan;
* progress is reported with counts;
* pods that may preempt: the model has no victims, so the candidates are verified one by one as
  check (which preempts) answers for each;
* differential (slow): on small random clusters the model's first plan costs no more than the
  first plan of the enumeration it replaced, and is verified again here.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.solve import SolveOptions
from planner.controllers.informers import TrackedIndex, tracked_index
from planner.engines.remediation import Goal, apply_patches, evaluate, remediate
from planner.engines.remediation.candidates import Context, generate
from planner.engines.remediation.helm import annotate_helm
from planner.engines.remediation.search import Search, diagnose, enumerate_plans
from planner.engines.remediation.verify import apply_plan, rolled
from planner.engines.replay import Simulator, Step
from planner.engines.workloads import parse_workload
from planner.load import load_snapshot
from planner.scheduler.framework import ClusterState
from tests.conftest import SCENARIOS

OPTS = SolveOptions()
NODE_GROUPS = SCENARIOS / "daemonsets-node-groups.yaml"


def _cluster_facts(cs: ClusterState) -> list:
    return [
        (ni.name, ni.node, [p.key for p in ni.pods], dict(ni.requested), ni.nonzero_cpu, ni.nonzero_mem, [p.key for p in ni.pods_with_affinity])
        for ni in cs.node_infos
    ] + [sorted(cs.pvcs), sorted(cs.pvs), sorted(cs.storage_classes), cs.namespace_labels, sorted(cs.csinodes)]


def _index_facts(ix: TrackedIndex) -> list:
    ix.begin_pass()
    return [
        {k: list(v) for k, v in ix.pods.items() if v},
        {k: list(v) for k, v in ix.replicasets.items() if v},
        ix.latest,
        {k: {u: c for u, c in v.items() if c} for k, v in ix._active.items() if any(v.values())},
    ]


def test_derived_snapshots_equal_fresh_ones():
    """A plan's patched snapshot (a new node with its DaemonSet pod, a node uncordoned) and the
    rolled state of a template change: their scheduler cache and controllers' index, derived from
    the snapshot's, equal those built from every pod again; the replay gives the same result."""
    from planner.controllers.informers import _kept

    snap = load_snapshot([str(NODE_GROUPS)])
    goal = Goal(parse_workload("deployment/web", None), "replicas", 16)
    out = remediate(snap, goal, top=10, opts=OPTS)
    plans = {p.actions[0].type: p for p in out.plans}
    assert {"uncordon", "scale-node-group", "set-requests"} <= set(plans)
    for kind in ("uncordon", "scale-node-group", "set-requests"):
        patches = [pt for a in plans[kind].actions for pt in a.patches]
        trial = apply_patches(snap, patches)
        assert trial.derivation() is not None
        variants = [trial, rolled(trial, goal.ref)]
        if kind == "set-requests":
            # a template change keeps every pod: the patched snapshot shares the snapshot's index,
            # its rolled state is derived from the snapshot's rolled state (made once)
            assert not trial.derivation()[1] and not trial.derivation()[2]
            assert _kept(trial) is _kept(snap)
            assert variants[1].derivation()[0] is rolled(apply_patches(snap, patches), goal.ref).derivation()[0]
            assert variants[1].derivation()[0] is not trial and _kept(variants[1]) is _kept(variants[1].derivation()[0])
        for derived in variants:
            fresh = ClusterState.from_snapshot(derived)
            assert _cluster_facts(derived.base_cluster()) == _cluster_facts(fresh), kind
            assert _index_facts(tracked_index(derived)) == _index_facts(TrackedIndex(derived)), kind
        step = [Step("scale", {"ref": goal.ref, "workload": str(goal.ref), "replicas": 16})]
        shared = Simulator(trial, seed=2).run(step, [goal.ref])
        alone = apply_patches(load_snapshot([str(NODE_GROUPS)]), patches)
        alone.__dict__.pop("_derived")  # built afresh: no parent to share with
        assert Simulator(alone, seed=2).run(step, [goal.ref]) == shared, kind


def test_derived_indexes_are_made_once_and_never_shared_for_writing():
    """The controllers' index of a derived snapshot is made once, from its parent's (itself made
    once), whichever asks first: planner.engines.workloads' read-only lookups (index_of) or a
    replay (tracked_index, a copy of its own).  Each equals the index built from every pod, and
    changing a replay's copy changes neither the kept index nor the next copy."""
    from planner.controllers.informers import _TRACKED_ATTR, index_of

    snap = load_snapshot([str(NODE_GROUPS)])
    goal = Goal(parse_workload("deployment/web", None), "replicas", 16)
    out = remediate(snap, goal, top=10, opts=OPTS)
    patches = [pt for p in out.plans for a in p.actions for pt in a.patches if a.type == "scale-node-group"]
    for read_first in (True, False):
        base = load_snapshot([str(NODE_GROUPS)])
        trial = apply_patches(base, patches)
        again = rolled(trial, goal.ref)  # derived from a derived snapshot
        for derived in (again, trial) if read_first else (trial, again):
            if read_first:
                assert index_of(derived) is derived.__dict__[_TRACKED_ATTR]
            mine = tracked_index(derived)
            kept = derived.__dict__[_TRACKED_ATTR]
            assert mine is not kept and _index_facts(mine) == _index_facts(TrackedIndex(derived))
            for p in list(derived.pods.values())[:5]:
                mine.remove_pod(p)
            assert _index_facts(kept) == _index_facts(TrackedIndex(derived))
            assert _index_facts(tracked_index(derived)) == _index_facts(TrackedIndex(derived))
            assert index_of(derived) is kept
        assert base.__dict__[_TRACKED_ATTR] is not trial.__dict__[_TRACKED_ATTR]
        assert _index_facts(base.__dict__[_TRACKED_ATTR]) == _index_facts(TrackedIndex(base))


def test_scale_node_groups_in_several_zones_in_one_plan(tmp_path):
    """Zone spread (maxSkew 1) over three zones of two nodes, one pod per node (hostname
    anti-affinity): 9 replicas spread 3/3/3, so each zone needs a node more.  The enumeration of
    one node group at a time could not reach it; the model's counts per group do, in one verified
    plan of 3 nodes."""
    objs = _cluster(zones=3, per_zone=2, replicas=9, running=0, spread=True, anti=True)
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    snap = load_snapshot([str(path)])
    goal = Goal(parse_workload("statefulset/web", None), "replicas", 9)
    seen: list[tuple[str, int, int]] = []
    out = remediate(snap, goal, top=3, opts=OPTS, progress=lambda what, done, total: seen.append((what, done, total)))
    first = out.plans[0]
    assert [a.type for a in first.actions] == ["scale-node-group"] * 3
    assert sorted(a.params["zone"] for a in first.actions) == ["zone-a", "zone-b", "zone-c"]
    assert first.cost.money == 3 and first.verified == {"check": True, "replay": True}
    trial, g = apply_plan(snap, goal, [p for a in first.actions for p in a.patches])
    assert evaluate(trial, g, OPTS).ok
    assert out.stats["model"]["proposed"] >= 1
    # progress: what is being done, with the plans found of those wanted
    assert seen and all(isinstance(w, str) and 0 <= d <= t for w, d, t in seen if t)
    assert any(w.startswith("verifying plans: scale-node-group") for w, _, _ in seen)


def test_pods_that_may_preempt_get_the_plan_check_accepts_with_preemption(tmp_path):
    """The preemption scenario with a second node, cordoned, and web asking 2 pods of 3 CPUs: web
    preempts the batch pod for one, the other waits for the cordoned node.  uncordon reaches the
    goal only with the preemption (alone, the uncordoned node holds one pod): it is the plan, and
    the model of the candidate actions (no victims) is not what decides."""
    import yaml

    d = yaml.safe_load((SCENARIOS / "preemption.yaml").read_text())
    d["metadata"]["name"] = "preemption-cordoned"
    d.pop("expect", None)
    d["nodePools"].append({"name": "spare", "count": 1, "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"}, "unschedulable": True})
    web = next(o for o in d["objects"] if o["kind"] == "Deployment" and o["metadata"]["name"] == "web")
    web["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3"
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(d))
    snap = load_snapshot([str(path)])
    goal = Goal(parse_workload("deployment/web", None), "replicas", 2)
    out = remediate(snap, goal, top=3, opts=OPTS)
    assert not out.schedulable_now and out.plans
    assert [a.type for a in out.plans[0].actions] == ["uncordon"]
    assert any("preempt" in n for n in out.notes)
    trial, g = apply_plan(snap, goal, [p for a in out.plans[0].actions for p in a.patches])
    assert evaluate(trial, g, OPTS).ok


# --------------------------------------------------------------------------- random clusters


def _cluster(zones: int, per_zone: int, replicas: int, running: int, spread: bool, anti: bool, cpu: int = 1000,
             request: int = 400, cordoned: int = -1, tainted: int = -1, policy: str = "Parallel") -> list[dict]:
    """kubectl-shaped objects: ``zones`` zones of ``per_zone`` nodes (an EKS node group per zone),
    a StatefulSet ``web`` (spread on zone, hostname anti-affinity as asked) with ``running`` pods
    running on the first nodes in turn."""
    items: list[dict] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}]
    names = []
    for z in range(zones):
        zone = f"zone-{'abc'[z]}"
        for k in range(per_zone):
            name = f"n-{zone}-{k}"
            i = len(names)
            names.append((name, zone))
            spec: dict = {}
            if i == cordoned:
                spec["unschedulable"] = True
                spec["taints"] = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
            if i == tainted:
                spec.setdefault("taints", []).append({"key": "dedicated", "value": "batch", "effect": "NoSchedule"})
            items.append({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "uid": f"uid-{name}", "labels": {
                    "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone,
                    "eks.amazonaws.com/nodegroup": f"general-{zone}", "node.kubernetes.io/instance-type": "m5.large"}},
                "spec": spec,
                "status": {"allocatable": {"cpu": f"{cpu}m", "memory": "8Gi", "pods": "110"},
                           "capacity": {"cpu": f"{cpu}m", "memory": "8Gi", "pods": "110"},
                           "conditions": [{"type": "Ready", "status": "True"}]},
            })
    tpl_spec: dict = {"containers": [{"name": "web", "image": "web:1", "resources": {"requests": {"cpu": f"{request}m"}}}]}
    if spread:
        tpl_spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                   "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]
    if anti:
        tpl_spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}}}]}}
    rev = "web-5d4b9c7f8"
    items.append({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "web", "namespace": "default", "uid": "uid-sts-web", "generation": 1},
        "spec": {"replicas": running, "serviceName": "web", "podManagementPolicy": policy, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": tpl_spec}},
        "status": {"observedGeneration": 1, "replicas": running, "readyReplicas": running, "currentRevision": rev, "updateRevision": rev},
    })
    usable = [(n, z) for i, (n, z) in enumerate(names) if i not in (cordoned, tainted)]
    for o in range(min(running, len(usable))):
        node, _ = usable[o]
        items.append({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"web-{o}", "namespace": "default", "uid": f"uid-web-{o}",
                         "labels": {"app": "web", "controller-revision-hash": rev, "statefulset.kubernetes.io/pod-name": f"web-{o}",
                                    "apps.kubernetes.io/pod-index": str(o)},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "uid-sts-web", "controller": True}]},
            "spec": {**tpl_spec, "nodeName": node},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
        })
    return items


@st.composite
def clusters(draw) -> dict:
    zones = draw(st.integers(2, 3))
    per_zone = draw(st.integers(1, 3))
    anti = draw(st.booleans())
    return {
        "zones": zones,
        "per_zone": per_zone,
        "running": draw(st.integers(0, zones)),
        "spread": draw(st.booleans()) or not anti,
        "anti": anti,
        "cpu": draw(st.sampled_from([1000, 2000])),
        "request": draw(st.sampled_from([300, 600, 900])),
        "cordoned": draw(st.integers(-1, zones * per_zone - 1)),
        "tainted": draw(st.integers(-1, zones * per_zone - 1)),
        "policy": draw(st.sampled_from(["Parallel", "OrderedReady"])),
        "more": draw(st.integers(1, 4)),
    }


def _old_first(snap, goal: Goal):
    """The first plan of the enumeration the model replaced: every family alone, cheapest first,
    then pairs of those that failed (planner.engines.remediation.search.enumerate_plans), ranked."""
    ctx = Context(snap, goal, diagnose(snap, goal, OPTS, 0))
    cands = [a for a in generate(ctx)]
    annotate_helm(snap, cands)
    plans, _, _ = enumerate_plans(Search(snap, goal, OPTS, 0), cands, 5)
    plans = sorted((p for p in plans if not p.changes_goal), key=lambda p: p.rank_key(False))
    return plans[0] if plans else None


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(clusters())
def test_model_first_plan_costs_no_more_than_the_enumeration(case):
    more = case.pop("more")
    room = case["zones"] * case["per_zone"]
    replicas = min(room + more, 2 * room)
    objs = _cluster(replicas=replicas, **case)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "c.json"
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
        snap = load_snapshot([str(path)])
    goal = Goal(parse_workload("statefulset/web", None), "replicas", replicas)
    out = remediate(snap, goal, top=1, opts=OPTS)
    if out.schedulable_now:
        return
    old = _old_first(snap, goal)
    if old is None:
        return  # nothing to compare with (the model may still find a plan: several node groups)
    assert out.plans, (case, [a.label() for a in old.actions])
    new = out.plans[0]
    assert new.rank_key(False)[:3] <= old.rank_key(False)[:3], ([a.label() for a in new.actions], [a.label() for a in old.actions])
    trial, g = apply_plan(snap, goal, [p for a in new.actions for p in a.patches])
    n = next((a.replicas for a in new.actions if a.replicas is not None), None)
    assert evaluate(trial, g, OPTS, replicas=n, template_changed=any(a.rolls_template for a in new.actions)).ok


def test_a_goal_only_the_order_defeats_falls_back_to_the_enumeration():
    """seed 001 as OrderedReady at 4 replicas: the model (check's unordered relaxation) places the
    pods with no change, while check in ordinal order does not. The model cannot tell the
    candidates apart, so they are tried one by one and in pairs, as before: the Parallel policy
    (the order goes) is among the plans, every one verified."""
    from tests.engines.test_remediation import _ordered

    snap = load_snapshot([str(_ordered())])
    goal = Goal(parse_workload("statefulset/search", None), "replicas", 4)
    out = remediate(snap, goal, top=5, opts=OPTS)
    assert any("order the pods are created in" in n for n in out.notes)
    assert out.stats["model"]["proposed"] == 0
    assert any(a.type == "set-pod-management-policy" for p in out.plans for a in p.actions)
    assert all(p.verified == {"check": True, "replay": True} for p in out.plans)


def test_rolled_state_of_a_statefulset_template_change_takes_the_parents_pods():
    """rolled() of a snapshot derived by a template change (the same pod objects as its parent)
    takes the set's pods from its parent's rolled state instead of walking every pod: the same
    pods gone, the same snapshot, as the walk finds on the derived snapshot itself."""
    from planner.engines.remediation.actions import ObjectPatch

    snap = load_snapshot([str(SCENARIOS / "hpa-scale-up-retained-volume.yaml")])
    ref = parse_workload("statefulset/search", None)
    patch = ObjectPatch("StatefulSet", ref.namespace, ref.name, "merge", {"spec": {"template": {"metadata": {"labels": {"tier": "x"}}}}})
    trial = apply_patches(snap, [patch])
    d = trial.derivation()
    assert d is not None and not d[1] and not d[2] and not d[3]
    owned = [p.key for p in trial.owned_pods(ref.kind, ref.key)]
    assert owned  # the set has pods: the shortcut has something to find
    out = rolled(trial, ref)
    assert list(out.pods) == [k for k in trial.pods if k not in owned]
    assert out.statefulsets[ref.key].template.labels["tier"] == "x"
    assert _cluster_facts(out.base_cluster()) == _cluster_facts(ClusterState.from_snapshot(out))


def test_renamed_plan_pods_equal_dataclass_replace():
    """The action model's variant plans name their pods ``<name>@<option>`` by one call of the
    class: equal, field for field and key, to dataclasses.replace."""
    from dataclasses import replace

    from planner.engines.remediation.choose import _renamed
    from planner.engines.workloads import plan_workload

    snap = load_snapshot([str(SCENARIOS / "hpa-scale-up-retained-volume.yaml")])
    plan = plan_workload(snap, parse_workload("statefulset/search", None), 5)
    assert plan.new
    out = _renamed(plan, "3:relax")
    assert out.new == [replace(p, name=f"{p.name}@3:relax") for p in plan.new]
    assert [p.key for p in out.new] == [f"{p.namespace}/{p.name}@3:relax" for p in plan.new]
