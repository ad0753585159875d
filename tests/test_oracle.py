"""The brute-force placement oracle (tests/oracle.py) on cases with known answers, and properties
on random small clusters (tests/randomcluster.py)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, assume, given, settings

from planner.controllers.statefulset import new_statefulset_pod
from planner.domain import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    Affinity,
    ClaimTemplate,
    Deployment,
    Namespace,
    OwnerRef,
    PodSpec,
    PodTemplate,
    StatefulSet,
)
from planner.engines.workloads import WorkloadRef, apply_plans, plan_workload
from planner.scheduler.framework import ClusterState
from planner.scheduler.runtime import evaluate
from planner.snapshot import Snapshot
from tests.builders import Gi, cluster, node, pod, pv, pvc, sel, spread, storage_class, term
from tests.oracle import copy_cluster, place, replay, sequential_placements, unplace
from tests.randomcluster import scenarios

# --------------------------------------------------------------------------- seed 001


def seed001(policy: str = "Parallel") -> Snapshot:
    """StatefulSet search, zone spread maxSkew 1, zones a/b/c with one node each; search-0 runs in
    a, search-1 in b; the retained claim data-search-2 is pinned to zone a, data-search-3 to c."""
    snap = Snapshot()
    snap.namespaces["default"] = Namespace("default")
    for z in "abc":
        n = node(f"node-{z}", zone=f"zone-{z}")
        snap.nodes[n.name] = n
    sc = storage_class("gp3")
    snap.storage_classes[sc.name] = sc
    spec = PodSpec(topology_spread_constraints=(spread(LABEL_ZONE, 1, sel({"app": "search"})),), requests={"cpu": 500})
    sts = StatefulSet(
        "default", "search", 2, sel({"app": "search"}), PodTemplate({"app": "search"}, spec),
        pod_management_policy=policy,
        volume_claim_templates=(ClaimTemplate("data", storage_class="gp3", request=10 * Gi, access_modes=("ReadWriteOnce",)),),
    )
    snap.statefulsets[sts.key] = sts
    for ordinal, zone in ((0, "a"), (1, "b"), (2, "a"), (3, "c")):
        claim = f"data-search-{ordinal}"
        v = pv(f"pv-{ordinal}", zone=f"zone-{zone}", storage_class="gp3", claim=("default", claim))
        c = pvc(claim, volume_name=v.name, storage_class="gp3")
        snap.pvs[v.name] = v
        snap.pvcs[c.key] = c
        if ordinal < 2:
            p = new_statefulset_pod(sts, ordinal)
            p = replace(p, spec=replace(p.spec, node_name=f"node-{zone}"), phase="Running")
            snap.pods[p.key] = p
    return snap


def problem(snap: Snapshot, ref: WorkloadRef, replicas: int):
    plan = plan_workload(snap, ref, replicas)
    return ClusterState.from_snapshot(apply_plans(snap, [plan])), plan.new, plan.ordered


SEARCH = WorkloadRef("StatefulSet", "default", "search")


def test_seed001_three_replicas_infeasible():
    c, pods, ordered = problem(seed001(), SEARCH, 3)
    assert [p.name for p in pods] == ["search-2"] and not ordered
    res = sequential_placements(c, pods, ordered)
    assert res.exhausted and res.feasible is False and res.witness is None


def test_seed001_four_replicas_parallel_needs_pod3_first():
    c, pods, ordered = problem(seed001(), SEARCH, 4)
    assert [p.name for p in pods] == ["search-2", "search-3"] and not ordered
    res = sequential_placements(c, pods, ordered)
    assert res.exhausted and res.feasible is True
    assert res.witness == [("default/search-3", "node-c"), ("default/search-2", "node-a")]


def test_seed001_four_replicas_ordered_infeasible():
    c, pods, ordered = problem(seed001("OrderedReady"), SEARCH, 4)
    assert ordered
    res = sequential_placements(c, pods, ordered)
    assert res.exhausted and res.feasible is False
    # the same pods in any order fit
    assert sequential_placements(c, pods, False).feasible is True


def test_oracle_does_not_change_its_input():
    c, pods, ordered = problem(seed001(), SEARCH, 4)
    before = ([list(ni.pods) for ni in c.node_infos], dict(c.pvcs), dict(c.pvs))
    sequential_placements(c, pods, ordered)
    assert ([list(ni.pods) for ni in c.node_infos], dict(c.pvcs), dict(c.pvs)) == before


# --------------------------------------------------------------------------- seed 004 and anti-affinity


def web_pod(name: str, node_name: str = "", key: str = LABEL_HOSTNAME):
    aff = Affinity(pod_anti_affinity_required=(term(sel({"app": "web"}), key),))
    return pod(name, {"app": "web"}, node_name=node_name, affinity=aff, cpu=100)


def test_seed004_hostname_anti_affinity_third_pod_infeasible():
    c = cluster([node("n1", zone="a"), node("n2", zone="b")], [web_pod("web-0", "n1"), web_pod("web-1", "n2")])
    res = sequential_placements(c, [web_pod("web-2")], ordered=False)
    assert res.exhausted and res.feasible is False
    # without the running pods two fit, a third does not
    empty = cluster([node("n1", zone="a"), node("n2", zone="b")])
    assert sequential_placements(empty, [web_pod(f"web-{i}") for i in range(2)], False).feasible is True
    assert sequential_placements(empty, [web_pod(f"web-{i}") for i in range(3)], False).feasible is False


def test_zone_anti_affinity_three_of_six_replicas():
    nodes = [node(f"n{i}", zone=f"zone-{'abc'[i % 3]}") for i in range(6)]
    c = cluster(nodes)
    pods = [web_pod(f"web-{i}", key=LABEL_ZONE) for i in range(6)]
    three = sequential_placements(c, pods[:3], ordered=True)
    assert three.feasible is True
    assert sorted(c.by_name[n].node.zone for _, n in three.witness) == ["zone-a", "zone-b", "zone-c"]
    for k in (4, 6):
        for ordered in (True, False):
            res = sequential_placements(c, pods[:k], ordered)
            assert res.exhausted and res.feasible is False, (k, ordered)


def test_zone_anti_affinity_through_a_deployment():
    snap = Snapshot()
    for i in range(6):
        n = node(f"n{i}", zone=f"zone-{'abc'[i % 3]}")
        snap.nodes[n.name] = n
    aff = Affinity(pod_anti_affinity_required=(term(sel({"app": "web"}), LABEL_ZONE),))
    dep = Deployment("default", "web", 6, sel({"app": "web"}), PodTemplate({"app": "web"}, PodSpec(affinity=aff)))
    snap.deployments[dep.key] = dep
    ref = WorkloadRef("Deployment", "default", "web")
    for n, expect in ((3, True), (4, False), (6, False)):
        c, pods, ordered = problem(snap, ref, n)
        assert len(pods) == n and not ordered
        assert sequential_placements(c, pods, ordered).feasible is expect, n


# --------------------------------------------------------------------------- volumes, limits, symmetry


def test_static_local_pv_is_consumed():
    """kubernetes.io/no-provisioner: one static PV serves only one of two claims."""
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner")
    nodes = [node("n1", zone="a"), node("n2", zone="a")]
    claims = [pvc("c1", storage_class="local"), pvc("c2", storage_class="local")]
    pods = [pod("p1", claims=["c1"]), pod("p2", claims=["c2"])]
    one = cluster(nodes, pvcs=claims, pvs=[pv("local-1", zone="a", storage_class="local")], storage_classes=[sc])
    res = sequential_placements(one, pods[:1], False)
    assert res.feasible is True
    assert sequential_placements(one, pods, False).feasible is False
    two = cluster(
        nodes, pvcs=claims, storage_classes=[sc],
        pvs=[pv("local-1", zone="a", storage_class="local"), pv("local-2", zone="a", storage_class="local")],
    )
    res = sequential_placements(two, pods, False)
    assert res.feasible is True
    after = replay(two, pods, res.witness)
    assert {after.pvcs["default/c1"].volume_name, after.pvcs["default/c2"].volume_name} == {"local-1", "local-2"}


def test_dynamic_provisioning_pins_the_claim_to_the_zone():
    sc = storage_class("gp3")
    c = cluster([node("n1", zone="a"), node("n2", zone="b")], pvcs=[pvc("c1", storage_class="gp3")], storage_classes=[sc])
    work = copy_cluster(c)
    place(work, pod("p1", claims=["c1"]), "n2")
    claim = work.pvcs["default/c1"]
    assert claim.volume_name == "pv-c1" and claim.phase == "Bound"
    vol = work.pvs["pv-c1"]
    assert vol.claim_ref == ("default", "c1")
    assert vol.node_affinity.terms[0].match_expressions[0].key == LABEL_ZONE
    assert vol.node_affinity.terms[0].match_expressions[0].values == ("b",)
    # the pod, re-evaluated, now fits only in zone b
    again = pod("p1", claims=["c1"])
    assert evaluate(again, work).feasible_nodes == ["n2"]
    assert "default/c1" not in c.pvcs or c.pvcs["default/c1"].volume_name == ""


def test_limit_reached_is_unknown():
    nodes = [node(f"n{i}", zone=f"zone-{'abc'[i % 3]}") for i in range(6)]
    pods = [web_pod(f"web-{i}", key=LABEL_ZONE) for i in range(4)]
    res = sequential_placements(cluster(nodes), pods, False, limit_states=2)
    assert res.feasible is None and res.witness is None and not res.exhausted


def test_symmetry_merges_interchangeable_pods_and_nodes():
    nodes = [node(f"n{i}", zone=f"zone-{'ab'[i % 2]}", cpu=1000) for i in range(6)]
    pods = [pod(f"p{i}", {"app": "x"}, cpu=600) for i in range(7)]  # one per node fits, 7 do not
    c = cluster(nodes)
    fast = sequential_placements(c, pods, False)
    slow = sequential_placements(c, pods[:5], False, symmetry=False)
    assert fast.feasible is False and fast.exhausted
    assert slow.feasible is True
    assert fast.explored < 50, fast.explored


def test_empty_and_owner_details():
    c = cluster([node("n1")])
    assert sequential_placements(c, [], True) == (True, [], 0, True)
    p = pod("p", owner=OwnerRef("ReplicaSet", "rs"), cpu=5000)
    assert sequential_placements(c, [p], True).feasible is False


# --------------------------------------------------------------------------- properties


def _check_feasible(pod_, work, node_name):
    ev = evaluate(pod_, work)
    assert node_name in ev.feasible_nodes, (pod_.key, node_name, ev.summary())


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_witness_replays_and_ordered_implies_unordered(sc):
    c, pods, ordered = sc.problem()
    res_any = sequential_placements(c, pods, False, limit_states=20_000)
    res_ord = sequential_placements(c, pods, True, limit_states=20_000)
    assume(res_any.exhausted and res_ord.exhausted)
    for res, in_order in ((res_any, False), (res_ord, True)):
        if res.feasible:
            assert len(res.witness) == len(pods)
            assert sorted(k for k, _ in res.witness) == sorted(p.key for p in pods)
            if in_order:
                assert [k for k, _ in res.witness] == [p.key for p in pods]
            replay(c, pods, res.witness, check=_check_feasible)
    if res_ord.feasible:
        assert res_any.feasible
    if pods and not res_any.feasible:
        # no witness: every first pod's every feasible node leads nowhere, in particular the
        # pods cannot all be placed greedily in the given order
        greedy = copy_cluster(c)
        ok = True
        for p in pods:
            ev = evaluate(p, greedy)
            if not ev.feasible_nodes:
                ok = False
                break
            place(greedy, p, ev.feasible_nodes[0])
        assert not ok


def naive(cluster, pods, ordered) -> bool:
    """No memo, no symmetry: every order (or the given one) times every feasible node, with evaluate."""
    work = copy_cluster(cluster)

    def go(rest):
        if not rest:
            return True
        for i in [0] if ordered else range(len(rest)):
            for n in evaluate(rest[i], work).feasible_nodes:
                rec = place(work, rest[i], n)
                ok = go(rest[:i] + rest[i + 1:])
                unplace(work, rec)
                if ok:
                    return True
        return False

    return go(list(pods))


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_symmetry_reduction_does_not_change_the_verdict(sc):
    c, pods, ordered = sc.problem()
    fast = sequential_placements(c, pods, ordered, limit_states=20_000)
    slow = sequential_placements(c, pods, ordered, limit_states=3_000, symmetry=False)
    assume(fast.exhausted and slow.exhausted)
    assert fast.feasible == slow.feasible
    assert fast.explored <= slow.explored
    if len(pods) <= 3:
        assert naive(c, pods, ordered) == fast.feasible
