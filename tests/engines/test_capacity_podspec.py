"""capacity --pod-file: how many more copies of a pod spec fit (cluster-capacity's --podspec), proven.

The count n is checked against the brute-force oracle on small random clusters: n copies can be
placed one at a time through every filter, n + 1 cannot (exhaustive search); the per-node
distribution is a placement the filters accept, replayed here again.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from models.solve import SolveOptions
from planner.domain import LABEL_HOSTNAME, Deployment, PodTemplate, StatefulSet
from planner.engines.capacity import make_probe, spec_capacity
from planner.engines.workloads import apply_plans
from planner.scheduler.framework import ClusterState
from planner.scheduler.runtime import feasible_nodes
from planner.snapshot import Snapshot
from tests.builders import node, pod, sel, term
from tests.oracle import replay, sequential_placements
from tests.randomcluster import scenarios

OPTS = SolveOptions(time_limit=20, workers=1)


def _snap(nodes, pods=()) -> Snapshot:
    s = Snapshot()
    for n in nodes:
        s.nodes[n.name] = n
    for p in pods:
        s.pods[p.key] = p
    return s


def _verify(probe, result) -> None:
    """The reported distribution is a placement of ``count`` copies the filters accept, and the
    oracle finds none for count + 1."""
    n = result["count"]
    for k in (n, n + 1):
        plans = probe.plans(k)
        cluster = ClusterState.from_snapshot(apply_plans(probe.snap, plans))
        pods = [p for plan in plans for p in plan.new]
        oracle = sequential_placements(cluster, pods, any(plan.ordered for plan in plans))
        if k == n:
            assert oracle.feasible, result
        elif oracle.exhausted and not result["limited"]:
            assert not oracle.feasible, (result, oracle.witness)


def test_resources_alone_bound_the_count():
    nodes = [node("a", zone="z1", cpu=2000), node("b", zone="z2", cpu=1000, pods=3), node("c", zone="z2", cpu=4000)]
    running = pod("busy", node_name="c", cpu=3500)
    snap = _snap(nodes, [running])
    probe = make_probe(snap, pod("small", {"app": "s"}, cpu=500), "Pod default/small")
    r = spec_capacity(probe, OPTS)
    assert r["count"] == 4 + 2 + 1 and not r["limited"]
    assert {n["node"]: n["count"] for n in r["per_node"]} == {"a": 4, "b": 2, "c": 1}
    assert r["per_zone"] == [{"zone": "z1", "count": 4}, {"zone": "z2", "count": 3}]
    assert r["limit"]["scheduler"] == "0/3 nodes are available: 3 Insufficient cpu."
    assert r["bound"]["max"] == 7 and r["witness"]["verified"]
    _verify(probe, r)


def test_anti_affinity_limits_below_the_bound():
    nodes = [node(f"n{i}", zone=f"z{i % 2}") for i in range(3)]
    anti = pod("web", {"app": "web"}, cpu=100)
    aff = replace(anti.spec, affinity=_anti())
    probe = make_probe(_snap(nodes), replace(anti, spec=aff), "Pod default/web")
    r = spec_capacity(probe, OPTS)
    assert r["count"] == 3 and r["bound"]["max"] > 3
    assert any(e["constraint"] == "InterPodAffinity" for e in r["limit"]["explanation"])
    assert "didn't match pod anti-affinity rules" in r["limit"]["scheduler"]
    _verify(probe, r)


def _anti():
    from planner.domain import Affinity

    return Affinity(pod_anti_affinity_required=(term(sel({"app": "web"}), LABEL_HOSTNAME),))


def test_nothing_fits_and_the_limit_stops_early():
    nodes = [node("a", cpu=1000), node("b", cpu=1000)]
    probe = make_probe(_snap(nodes), pod("huge", cpu=2000), "Pod default/huge")
    r = spec_capacity(probe, OPTS)
    assert r["count"] == 0 and r["per_node"] == [] and r["limit"]["reason"]
    probe = make_probe(_snap(nodes), pod("tiny", cpu=10), "Pod default/tiny")
    r = spec_capacity(probe, OPTS, max_limit=5)
    assert r["count"] == 5 and r["limited"] and r["limit"] is None
    r = spec_capacity(probe, OPTS, max_limit=150)
    assert r["count"] == 150 and r["limited"]
    # 100 per node by cpu: at the bound the answer is exact, whatever the limit
    for limit in (200, 250):
        r = spec_capacity(probe, OPTS, max_limit=limit)
        assert r["count"] == 200 and not r["limited"] and r["limit"] and r["bound"]["max"] == 200


def test_workload_probes_are_new_workloads():
    nodes = [node("a", zone="z1"), node("b", zone="z2")]
    tpl = PodTemplate({"app": "api"}, pod("x", cpu=1000).spec)
    dep = Deployment("default", "api", 5, sel({"app": "api"}), tpl)
    snap = _snap(nodes)
    snap.deployments[dep.key] = dep  # a Deployment of that name exists: the probe is another
    probe = make_probe(snap, dep, "Deployment default/api")
    assert probe.ref.name == "api-copy" and "api-copy" in probe.notes[0] and "default/api-copy" in probe.snap.deployments
    assert "default/api-copy" not in snap.deployments
    r = spec_capacity(probe, OPTS)
    assert r["count"] == 8 and r["pod"] == "default/api-copy"
    sts = StatefulSet("default", "db", 3, sel({"app": "db"}), PodTemplate({"app": "db"}, pod("x", cpu=1000).spec), pod_management_policy="Parallel")
    probe = make_probe(_snap(nodes), sts, "StatefulSet default/db")
    assert any("Parallel" in n for n in probe.notes)
    r = spec_capacity(probe, OPTS)
    assert r["count"] == 8 and {p.name for p in probe.plans(2)[0].new} == {"db-0", "db-1"}


def test_a_pod_bound_by_name_is_placed_by_the_scheduler():
    nodes = [node("a", cpu=1000), node("b", cpu=1000)]
    p = pod("pinned", node_name="a", cpu=600, phase="Pending")
    probe = make_probe(_snap(nodes), p, "Pod default/pinned")
    assert any("spec.nodeName" in n for n in probe.notes)
    assert spec_capacity(probe, OPTS)["count"] == 2


@pytest.mark.slow
@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios(kinds=("Deployment",)), st.integers(1, 3), st.booleans())
def test_count_agrees_with_brute_force(sc, room, as_pod):
    """Copies of a random workload's template (as a bare Pod or a new Deployment), on its random
    cluster with each node's pod slots cut to its pods + ``room``: count fits, count + 1 does not."""
    snap = sc.snapshot.copy()
    per_node: dict[str, int] = {}
    for p in snap.pods.values():
        if p.spec.node_name:
            per_node[p.spec.node_name] = per_node.get(p.spec.node_name, 0) + 1
    for name, n in list(snap.nodes.items()):
        snap.nodes[name] = replace(n, allocatable={**n.allocatable, "pods": per_node.get(name, 0) + room})
    d = snap.deployments[sc.ref.key]
    obj = pod("probe", dict(d.template.labels)) if as_pod else replace(d, name="probe", uid="")
    if as_pod:
        obj = replace(obj, spec=d.template.spec)
    probe = make_probe(snap, obj, "probe")
    result = spec_capacity(probe, OPTS)
    assume(result["count"] <= 8)
    # the distribution is a placement the filters accept (replayed again, pod by pod)
    plans = probe.plans(result["count"])
    cluster = ClusterState.from_snapshot(apply_plans(probe.snap, plans))
    pods = [p for plan in plans for p in plan.new]
    assert sum(n["count"] for n in result["per_node"]) == result["count"] == len(pods)
    by_key = {p.key: p for p in pods}
    order = _order(probe, result)
    assert sorted(order) == sorted(by_key)
    replay(cluster, pods, [(k, order[k]) for k in order], check=_fits)
    _verify(probe, result)


def _fits(pod, cluster, node_name):
    assert node_name in feasible_nodes(pod, cluster), (pod.key, node_name)


def _order(probe, result) -> dict[str, str]:
    """The witness behind the result (per_node is its summary): the check of that count."""
    from planner.engines.check import check_plans

    out = check_plans(probe.snap, probe.plans(result["count"]), OPTS)
    assert out.schedulable
    return out.placement
