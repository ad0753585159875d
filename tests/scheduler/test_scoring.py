"""The score phase (planner.scheduler.scoring): the default weights, the weighted sum, the caches
following the cluster, selectHost, and the vectorised kernels held equal to the reference Scores on
random clusters.  Each plugin's own score table tests are in tests/scheduler/plugins/<plugin>/.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from planner.domain import (
    LABEL_HOSTNAME,
    OwnerRef,
    Taint,
    Toleration,
)
from planner.scheduler import arrays as score_arrays
from planner.scheduler import scoring
from planner.scheduler.framework import ClusterState, NodeInfo
from planner.scheduler.runtime import feasible_nodes
from tests.builders import cluster, node, pod, sel, spread
from tests.scheduler.plugins.interpodaffinity.test_scoring import (
    AWAY_S1_AZ,
    HARD_AFFINITY,
    STAY_S1_REGION,
    STAY_S1_REGION_AWAY_S2_AZ,
)
from tests.scheduler.plugins.nodeaffinity.test_scoring import AFFINITY1
from tests.scheduler.plugins.tainttoleration.test_scoring import PNS

# --------------------------------------------------------------------------- framework


def test_default_weights():
    assert scoring.PLUGIN_WEIGHTS == {
        "TaintToleration": 3,
        "NodeAffinity": 2,
        "NodeResourcesFit": 1,
        "VolumeBinding": 1,
        "PodTopologySpread": 2,
        "InterPodAffinity": 2,
        "NodeResourcesBalancedAllocation": 1,
        "ImageLocality": 1,
    }


def test_score_nodes_is_weighted_sum_of_explain():
    nodes = [node(f"n{i}", zone=f"z{i % 3}", taints=[Taint("t", "v", PNS)] if i == 1 else []) for i in range(6)]
    rs = OwnerRef("ReplicaSet", "rs")
    pods = [pod(f"e{i}", {"app": "web"}, node_name=f"n{i % 4}", cpu=500, memory=2**30, owner=rs) for i in range(8)]
    c = cluster(nodes, pods)
    p = pod("x", {"app": "web"}, cpu=100, memory=2**28, owner=rs, affinity=AFFINITY1)
    f = feasible_nodes(p, c)
    totals = scoring.score_nodes(p, c, f)
    explain = scoring.explain_scores(p, c, f)
    assert list(totals) == f
    for n in f:
        assert set(explain[n]) == set(scoring.PLUGIN_WEIGHTS)
        assert sum(explain[n].values()) == totals[n]
        assert explain[n]["ImageLocality"] == 0
        for name, w in scoring.PLUGIN_WEIGHTS.items():
            assert explain[n][name] % w == 0 and 0 <= explain[n][name] <= 100 * w
    assert explain["n1"]["TaintToleration"] == 0 and explain["n0"]["TaintToleration"] == 300


def _snapshot_copy(c: ClusterState) -> ClusterState:
    return ClusterState(
        [NodeInfo(ni.node, list(ni.pods)) for ni in c.node_infos], namespace_labels=dict(c.namespace_labels)
    )


def test_caches_follow_add_and_remove():
    """Cached non-zero requests and spread counts equal a fresh computation after every change."""
    rng = random.Random(7)
    nodes = [node(f"n{i}", zone=f"z{i % 3}") for i in range(9)]
    rs = OwnerRef("ReplicaSet", "rs")
    c = cluster(nodes)
    placed = []
    for step in range(60):
        p = pod(f"w{step}", {"app": "w"}, owner=rs, cpu=rng.choice([None, 100, 250]), memory=rng.choice([None, 2**27]))
        f = [n.name for n in nodes]
        fresh = _snapshot_copy(c)
        assert scoring.score_nodes(p, c, f) == scoring.score_nodes(p, fresh, f)
        host = scoring.select_host(scoring.score_nodes(p, c, f), rng)
        bound = pod(p.name, dict(p.labels), owner=rs, node_name=host, requests=dict(p.spec.requests))
        c.add_pod(bound)
        placed.append(bound)
        if step % 7 == 6:
            victim = placed.pop(rng.randrange(len(placed)))
            c.remove_pod(victim)


# --------------------------------------------------------------------------- select_host


def test_select_host_highest_wins():
    assert scoring.select_host({"a": 10, "b": 30, "c": 20}, random.Random(0)) == "b"


def test_select_host_deterministic_per_seed():
    scores = {f"n{i}": 500 for i in range(10)}
    picks = [scoring.select_host(scores, random.Random(42)) for _ in range(5)]
    assert len(set(picks)) == 1
    rng1, rng2 = random.Random(3), random.Random(3)
    assert [scoring.select_host(scores, rng1) for _ in range(50)] == [
        scoring.select_host(scores, rng2) for _ in range(50)
    ]


def test_select_host_uniform_over_ties():
    scores = {"a": 7, "b": 9, "c": 9, "d": 9, "e": 9}
    rng = random.Random(1)
    counts = Counter(scoring.select_host(scores, rng) for _ in range(8000))
    assert set(counts) == {"b", "c", "d", "e"}
    for n in "bcde":
        assert 1800 < counts[n] < 2200


def test_select_host_single_candidate_draws_nothing():
    rng = random.Random(5)
    state = rng.getstate()
    assert scoring.select_host({"only": 3, "low": 1}, rng) == "only"
    assert rng.getstate() == state


def test_select_host_empty():
    with pytest.raises(ValueError):
        scoring.select_host({}, random.Random(0))


# --------------------------------------------------------------------------- fast path == reference


def _random_cluster(rng: random.Random):
    zones = ["z0", "z1", "z2"]
    nodes = []
    for i in range(rng.randint(2, 14)):
        labels = {}
        if rng.random() < 0.85:
            labels[LABEL_HOSTNAME] = f"n{i}"
        if rng.random() < 0.8:
            labels["topology.kubernetes.io/zone"] = rng.choice(zones)
        if rng.random() < 0.3:
            labels["disk"] = rng.choice(["ssd", "hdd"])
        taints = []
        if rng.random() < 0.3:
            taints.append(Taint(rng.choice(["a", "b"]), "x", rng.choice([PNS, "NoSchedule"])))
        nodes.append(
            node(
                f"n{i}",
                labels,
                cpu=rng.choice([0, 2000, 4000]),
                memory=rng.choice([0, 2**32, 2**33]),
                taints=taints,
                hostname_label=False,
            )
        )
    rs = OwnerRef("ReplicaSet", "rs")
    apps = ["a", "b"]
    pods = []
    for j in range(rng.randint(0, 40)):
        n = rng.choice(nodes).name
        req = {}
        if rng.random() < 0.7:
            req["cpu"] = rng.choice([0, 100, 500, 1500])
        if rng.random() < 0.7:
            req["memory"] = rng.choice([0, 2**28, 2**30])
        aff = None
        if rng.random() < 0.15:
            aff = rng.choice([STAY_S1_REGION, AWAY_S1_AZ, HARD_AFFINITY])
        pods.append(
            pod(
                f"e{j}",
                {"app": rng.choice(apps), "security": rng.choice(["S1", "S2"])},
                node_name=n,
                requests=req,
                owner=rs,
                terminating=rng.random() < 0.05,
                namespace=rng.choice(["default", "default", "other"]),
                affinity=aff,
            )
        )
    return nodes, pods


def _random_pod(rng: random.Random):
    rs = OwnerRef("ReplicaSet", "rs")
    req = {}
    if rng.random() < 0.7:
        req["cpu"] = rng.choice([0, 100, 700])
    if rng.random() < 0.7:
        req["memory"] = rng.choice([0, 2**29])
    cons = []
    for _ in range(rng.choice([0, 0, 1, 2])):
        cons.append(
            spread(
                rng.choice([LABEL_HOSTNAME, "topology.kubernetes.io/zone", "disk"]),
                rng.randint(1, 3),
                rng.choice([sel({"app": "a"}), sel(), None]),
                when=rng.choice(["ScheduleAnyway", "DoNotSchedule"]),
                node_affinity_policy=rng.choice(["Honor", "Ignore"]),
                node_taints_policy=rng.choice(["Honor", "Ignore"]),
            )
        )
    return pod(
        "new",
        {"app": rng.choice(["a", "b"])},
        requests=req,
        owner=rs if rng.random() < 0.7 else None,
        spread=cons,
        node_selector={"disk": "ssd"} if rng.random() < 0.2 else None,
        tolerations=[Toleration(key="a", operator="Exists")] if rng.random() < 0.3 else (),
        affinity=rng.choice([None, None, AFFINITY1, STAY_S1_REGION_AWAY_S2_AZ]),
    )


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_equals_reference(seed):
    rng = random.Random(seed)
    nodes, pods = _random_cluster(rng)
    c = cluster(nodes, pods)
    for _ in range(4):
        p = _random_pod(rng)
        feasible = [n.name for n in nodes if rng.random() < 0.8] or [nodes[0].name]
        explain = scoring.explain_scores(p, c, feasible)
        for name, w in scoring.PLUGIN_WEIGHTS.items():
            ref = scoring.plugin_scores(name, p, c, feasible)
            want = [0] * len(feasible) if ref is None else [s * w for s in ref]
            assert [explain[n][name] for n in feasible] == want, name
        # mutate the cluster between pods: the caches must follow
        c.add_pod(pod(f"x{_}", {"app": "a"}, node_name=rng.choice(nodes).name, cpu=rng.choice([None, 300])))
        if c.node_infos[0].pods:
            c.remove_pod(c.node_infos[0].pods[0])


def _random_volume_cluster(rng: random.Random):  # type: ignore[no-untyped-def]
    """Nodes in zones with local and zonal static PVs of several sizes and classes, WFFC claims
    (some with a static candidate, some only provisionable), bound claims and pods without any."""
    from tests.builders import node_selector, pv, pvc, storage_class

    classes = [storage_class("local", provisioner="kubernetes.io/no-provisioner"), storage_class("gp3"), storage_class("fast", provisioner="")]
    nodes = [node(f"n{i}", zone=f"z{i % 3}") for i in range(rng.randint(3, 8))]
    pvs = []
    for i in range(rng.randint(2, 12)):
        n = rng.choice(nodes)
        local = rng.random() < 0.6
        aff = node_selector([(LABEL_HOSTNAME, "In", [n.name])]) if local else node_selector([("topology.kubernetes.io/zone", "In", [n.labels["topology.kubernetes.io/zone"]])])
        pvs.append(pv(f"pv{i}", storage_class=rng.choice(["local", "fast", "gp3"]), capacity=rng.choice([5, 10, 20, 100, 333]) * 2**30, node_affinity=aff))
    pvcs = [pvc(f"c{i}", storage_class=rng.choice(["local", "fast", "gp3"]), request=rng.choice([1, 5, 10, 50]) * 2**30) for i in range(6)]
    pvcs.append(pvc("bound", storage_class="gp3", volume_name="pv0", annotations={"pv.kubernetes.io/bind-completed": "yes"}))
    return nodes, pvs, pvcs, classes


@pytest.mark.parametrize("seed", range(30))
def test_fast_path_equals_reference_with_claims(seed):
    """The score phase (explain_scores / score_nodes, the replay's path) equals every plugin's
    reference Score for pods with unbound WaitForFirstConsumer claims, VolumeBinding's included."""
    from tests.builders import cluster as build

    rng = random.Random(seed)
    nodes, pvs, pvcs, classes = _random_volume_cluster(rng)
    c = build(nodes, pvcs=pvcs, pvs=pvs, storage_classes=classes)
    scored = 0
    for k in range(6):
        claims = rng.sample([x.name for x in pvcs], rng.choice([0, 1, 1, 2, 3]))
        p = pod(f"p{k}", {"app": "a"}, cpu=rng.choice([None, 100]), claims=claims)
        feasible = feasible_nodes(p, c)
        if not feasible:
            continue
        explain = scoring.explain_scores(p, c, feasible)
        totals = scoring.score_nodes(p, c, feasible)
        for name, w in scoring.PLUGIN_WEIGHTS.items():
            ref = scoring.plugin_scores(name, p, c, feasible)
            want = [0] * len(feasible) if ref is None else [s * w for s in ref]
            assert [explain[n][name] for n in feasible] == want, name
        assert all(sum(explain[n].values()) == totals[n] for n in feasible)
        # the replay's entry (simulate): the same totals from the nodes' positions
        positions = np.array([c.node_infos.index(c.by_name[n]) for n in feasible], dtype=np.int64)
        assert score_arrays.score_positions(p, c, feasible, positions).tolist() == [totals[n] for n in feasible]
        scored += any(explain[n]["VolumeBinding"] for n in feasible)
    if seed == 0:
        assert scored  # the cases do reach a non-zero VolumeBinding score


I64 = 2**63 - 1


@pytest.mark.parametrize("seed", range(12))
def test_fast_path_equals_reference_past_int64(seed):
    """Nodes of exabytes and pods that request them (quantities saturate to int64 and a node's
    requests sum past it): the vectorised scores equal the reference, in range, never an int64
    overflow. Was: NodeResourcesFit scored -1 on such a node (ScoreError, an internal error)."""
    rng = random.Random(seed)
    big = [I64, I64 // 2, 2**62, 10**17]
    nodes = [node(f"n{i}", zone=f"z{i % 3}", cpu=rng.choice([4000, *big]), memory=rng.choice([16 * 2**30, *big])) for i in range(rng.randint(2, 40))]
    existing = [pod(f"e{j}", {"app": "a"}, node_name=rng.choice(nodes).name,
                    **({} if rng.random() < 0.3 else {"cpu": rng.choice([100, *big]), "memory": rng.choice([2**20, *big])}))
                for j in range(rng.randint(0, 60))]
    c = cluster(nodes, existing)
    for k in range(4):
        p = pod(f"in{k}", {"app": "a"}, **({} if rng.random() < 0.3 else {"cpu": rng.choice([100, *big]), "memory": rng.choice([2**20, *big])}))
        feasible = [n.name for n in nodes if rng.random() < 0.8] or [nodes[0].name]
        explain = scoring.explain_scores(p, c, feasible)
        for name, w in scoring.PLUGIN_WEIGHTS.items():
            ref = scoring.plugin_scores(name, p, c, feasible)
            want = [0] * len(feasible) if ref is None else [s * w for s in ref]
            assert [explain[n][name] for n in feasible] == want, name
        positions = np.array([c.node_infos.index(c.by_name[n]) for n in feasible], dtype=np.int64)
        totals = scoring.score_nodes(p, c, feasible)
        assert score_arrays.score_positions(p, c, feasible, positions).tolist() == [totals[n] for n in feasible]
        c.add_pod(pod(f"x{k}", {"app": "a"}, node_name=rng.choice(nodes).name, cpu=rng.choice([None, I64])))


def _weighted_reference(name: str, scores: list[int], weight: int) -> list[int]:
    """framework.go RunScorePlugins' range check and weight, score by score."""
    for s in scores:
        if s > scoring.MAX_NODE_SCORE or s < scoring.MIN_NODE_SCORE:
            raise scoring.ScoreError(f"plugin {name!r} returns an invalid score {s}")
    return [s * weight for s in scores]


@pytest.mark.parametrize("seed", range(60))
def test_weighted_checks_the_range_as_framework_go(seed: int) -> None:
    """The one-pass range check (scores read as unsigned) lets through exactly the scores in
    [0, 100] and names the score framework.go names (the highest above 100, else the lowest
    below 0), at every int64 extreme."""
    rng = random.Random(seed)
    n = rng.randint(1, 30)
    pool = [0, 1, 50, 99, 100] + rng.choice(([], [101, 2**62, 2**63 - 1], [-1, -(2**63), -100], [101, -1]))
    scores = [rng.choice(pool) for _ in range(n)]
    weight = rng.choice((1, 2, 3))
    try:
        want: list[int] | str = _weighted_reference("P", scores, weight)
    except scoring.ScoreError:
        hi = max(scores)
        bad = hi if hi > scoring.MAX_NODE_SCORE else min(scores)
        want = f"invalid score {bad},"
    try:
        got: list[int] | str = scoring._weighted("P", np.array(scores, dtype=np.int64), weight).tolist()
    except scoring.ScoreError as e:
        got = str(e)
        assert isinstance(want, str), (scores, got)
        assert want in got, (scores, got)
        return
    assert got == want, scores
