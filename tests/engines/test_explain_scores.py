"""planner explain --scores (planner.engines.explain with ``scores=True``): each score plugin's
normalised score and weight per feasible node and the weighted total, from the score phase the
replay uses (planner.scheduler.scoring).

One hand-checked case per plugin family, transcribed from upstream's score tests (the same
clusters as tests/scheduler/plugins/<plugin>/test_scoring.py, which cite the upstream file and
case): here they go through explain, with every other default score plugin running too, so the
case's plugin must show upstream's numbers, the other plugins what the cluster gives them, and
the total must be sum(score * weight).  Then: the node explain ranks first is one the replay may
bind the pod to, and a pod without feasible nodes gets no scores.
"""

from __future__ import annotations

import random

import pytest

from planner.domain import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    Affinity,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
    WeightedPodAffinityTerm,
)
from planner.engines.explain import explain
from planner.engines.replay import Simulator
from planner.scheduler import scoring
from planner.scheduler.runtime import feasible_nodes
from planner.snapshot import Snapshot
from tests.builders import node, node_selector, pod, sel, spread, term
from tests.scheduler.plugins.interpodaffinity.test_scoring import AFFINITY3, RG_CHINA, RG_INDIA, S1, S2, STAY_S1_REGION
from tests.scheduler.plugins.interpodaffinity.test_scoring import AZ1 as IPA_AZ1
from tests.scheduler.plugins.interpodaffinity.test_scoring import existing as ipa_existing
from tests.scheduler.plugins.nodeaffinity.test_scoring import AFFINITY2, LABEL1, LABEL2, LABEL5, LN
from tests.scheduler.plugins.podtopologyspread.test_scoring import FOO, HN, SC, SP, foo_pods
from tests.scheduler.plugins.scores import ZERO, K, N, P
from tests.scheduler.plugins.tainttoleration.test_scoring import PNS, TN, TP
from tests.scheduler.plugins.volumebinding.test_filtering import TVB_CLASSES, local_pvs, make_pvc

WEIGHTS = scoring.PLUGIN_WEIGHTS


def snapshot(nodes, pods=(), *, pvcs=(), pvs=(), storage_classes=()) -> Snapshot:
    return Snapshot(
        nodes={n.name: n for n in nodes},
        pods={p.key: p for p in pods},
        pvs={v.name: v for v in pvs},
        pvcs={c.key: c for c in pvcs},
        storage_classes={s.name: s for s in storage_classes},
    )


def scored(incoming, nodes, existing=(), **kw) -> dict:
    """explain --scores of ``incoming`` (pending) on a snapshot of ``nodes`` and ``existing``."""
    return explain(snapshot(nodes, existing, **kw), incoming, scores=True)


def plugin_column(r: dict, plugin: str) -> dict[str, int]:
    """node -> ``plugin``'s normalised score, for the scored nodes."""
    out = {}
    for n in r["nodes"]:
        for s in n.get("scores", []):
            if s["plugin"] == plugin:
                out[n["name"]] = s["score"]
    return out


def check_shape(r: dict) -> None:
    """The invariants of every --scores answer: feasible nodes (only) scored, the plugins that ran
    in profile order with their default weights, skipped ones absent, totals = sum(score * weight),
    nodes ranked by total (stable), infeasible nodes last."""
    feasible = set(r["feasible_nodes"])
    ran = [p.name for p in scoring.PLUGINS if p.name not in r.get("skipped_score_plugins", [])]
    totals = []
    for n in r["nodes"]:
        if n["name"] not in feasible:
            assert "scores" not in n and "total_score" not in n
            continue
        assert [s["plugin"] for s in n["scores"]] == ran
        assert all(s["weight"] == WEIGHTS[s["plugin"]] and 0 <= s["score"] <= 100 for s in n["scores"])
        assert n["total_score"] == sum(s["score"] * s["weight"] for s in n["scores"])
        totals.append(n["total_score"])
    assert [n["name"] for n in r["nodes"][: len(feasible)]] == [n["name"] for n in r["nodes"] if n["name"] in feasible]
    assert totals == sorted(totals, reverse=True)


def ranking(r: dict) -> list[tuple[str, int]]:
    return [(n["name"], n["total_score"]) for n in r["nodes"] if "total_score" in n]


# --------------------------------------------------------------------------- per plugin family


def test_least_allocated_and_balanced_allocation():
    """least_allocated_test.go / balanced_allocation_test.go 'nothing scheduled, resources
    requested, differently sized nodes'.  NodeResourcesFit (LeastAllocated, cpu and memory weight
    1 each): node1 cpu (4000-3000)/4000 = 25, memory (10000-5000)/10000 = 50 -> 37; node2 50 and
    50 -> 50.  BalancedAllocation (v1.36 formula, 50 + (50 + with - without) // 2): node1 with the
    pod cpu 0.75, memory 0.5: std 0.125 -> 87, empty 100 -> 68; node2 0.5 / 0.5 -> 100 -> 75.
    TaintToleration 100 (no taints), ImageLocality 0; NodeAffinity, VolumeBinding,
    PodTopologySpread and InterPodAffinity skip (nothing to prefer)."""
    r = scored(P(requests={"cpu": 3000 * K, "memory": 5000}), [N("node1", 4000 * K, 10000), N("node2", 6000 * K, 10000)])
    check_shape(r)
    assert r["skipped_score_plugins"] == ["NodeAffinity", "VolumeBinding", "PodTopologySpread", "InterPodAffinity"]
    by = {n["name"]: n for n in r["nodes"]}
    assert by["node1"]["scores"] == [
        {"plugin": "TaintToleration", "score": 100, "weight": 3},
        {"plugin": "NodeResourcesFit", "score": 37, "weight": 1},
        {"plugin": "NodeResourcesBalancedAllocation", "score": 68, "weight": 1},
        {"plugin": "ImageLocality", "score": 0, "weight": 1},
    ]
    assert plugin_column(r, "NodeResourcesFit") == {"node1": 37, "node2": 50}
    assert plugin_column(r, "NodeResourcesBalancedAllocation") == {"node1": 68, "node2": 75}
    assert ranking(r) == [("node2", 300 + 50 + 75), ("node1", 300 + 37 + 68)]


def test_balanced_allocation_pods_scheduled():
    """balanced_allocation_test.go 'resources requested, pods scheduled with resources' under the
    v1.36 formula: without the pod node1 is cpu 0.3 / memory 0 (85), node2 0.3 / 0.25 (97); with it
    82 and 95 -> 50 + 47 // 2 = 73 and 50 + 48 // 2 = 74."""
    cpu_mem, cpu_only = {"cpu": 3000, "memory": 5000}, {"cpu": 3000, "memory": 0}
    r = scored(
        P(requests=cpu_mem),
        [N("node1", 10000, 20000), N("node2", 10000, 20000)],
        [P("e1", "node1", requests=cpu_only), P("e2", "node2", requests=cpu_mem)],
    )
    check_shape(r)
    assert plugin_column(r, "NodeResourcesBalancedAllocation") == {"node1": 73, "node2": 74}


def test_balanced_allocation_skips_a_pod_without_requests():
    """'nothing scheduled, nothing requested, skip in PreScore': left out of scores, listed skipped."""
    r = scored(P(requests=ZERO), [N("node1", 4000, 10000), N("node2", 4000, 10000)])
    check_shape(r)
    assert "NodeResourcesBalancedAllocation" in r["skipped_score_plugins"]
    assert plugin_column(r, "NodeResourcesBalancedAllocation") == {}
    assert plugin_column(r, "NodeResourcesFit") == {"node1": 100, "node2": 100}


def test_taint_toleration():
    """taint_toleration_test.go 'the more intolerable taints a node has, the lower score it gets.':
    [100, 50, 0], weight 3; PreferNoSchedule taints never fail a filter."""
    r = scored(
        TP(("foo", "Equal", "bar", PNS)),
        [TN("nodeA"), TN("nodeB", ("cpu-type", "arm64", PNS)), TN("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS))],
    )
    check_shape(r)
    assert plugin_column(r, "TaintToleration") == {"nodeA": 100, "nodeB": 50, "nodeC": 0}
    assert [name for name, _ in ranking(r)] == ["nodeA", "nodeB", "nodeC"]
    a, b, c = (t for _, t in ranking(r))
    assert a - b == b - c == 50 * 3  # the nodes are alike otherwise


def test_node_affinity_preferred():
    """node_affinity_test.go 'all nodes matches the preferred scheduling requirements of pod but
    with different priorities': weights 2, 4 (+2 on node5) and 5 on node5 -> raw 2, 11, 4 ->
    normalised by the highest: [18, 100, 36], weight 2."""
    r = scored(P(affinity=AFFINITY2), [LN("node1", LABEL1), LN("node5", LABEL5), LN("node2", LABEL2)])
    check_shape(r)
    assert plugin_column(r, "NodeAffinity") == {"node1": 18, "node5": 100, "node2": 36}
    assert [name for name, _ in ranking(r)] == ["node5", "node2", "node1"]


def test_pod_topology_spread_schedule_anyway():
    """scoring_test.go 'one constraint on node, all 4 nodes are candidates': 2, 1, 0, 3 matching
    pods -> [20, 60, 100, 0], weight 2."""
    r = scored(
        SP(SC(1, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), HN("node-b"), HN("node-c"), HN("node-d")],
        foo_pods("node-a", "node-a", "node-b", "node-d", "node-d", "node-d"),
    )
    check_shape(r)
    assert plugin_column(r, "PodTopologySpread") == {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}
    assert ranking(r)[0][0] == "node-c"


@pytest.mark.parametrize(
    "incoming,want",
    [
        pytest.param(P(labels=S1, affinity=STAY_S1_REGION), {"node1": 100, "node2": 0, "node3": 0}, id="pod that matches topology key"),
        pytest.param(P(labels=S1, affinity=AFFINITY3), {"node1": 20, "node2": 100, "node3": 0}, id="different Label operators"),
    ],
)
def test_inter_pod_affinity_preferred(incoming, want):
    """scoring_test.go TestPreferredAffinity 'Affinity: pod that matches topology key & pods in
    nodes will get high score ...' and 'Affinity: different Label operators and values for pod
    affinity scheduling preference, including some match failures', weight 2."""
    r = scored(
        incoming,
        [LN("node1", RG_CHINA), LN("node2", RG_INDIA), LN("node3", IPA_AZ1)],
        ipa_existing(("node1", S1), ("node2", S2), ("node3", S1)),
    )
    check_shape(r)
    assert plugin_column(r, "InterPodAffinity") == want


def test_volume_binding():
    """volume_binding_test.go 'local volumes with close capacity are preferred' with v1.37's
    default shape (score = 100 - utilisation): the 50Gi claim takes 25% of node-a's 200Gi PV
    -> 75, half of node-b's 100Gi PV -> 50; node-c has no PV and fails VolumeBinding's filter,
    so it gets no scores (upstream's table scores it 0 without filtering)."""
    r = scored(
        pod("pod-a", claims=["pvc-a"]),
        [node("node-a"), node("node-b"), node("node-c")],
        pvcs=[make_pvc("pvc-a", "wait-sc", request=50 * 1024**3)],
        pvs=local_pvs(False),
        storage_classes=TVB_CLASSES,
    )
    check_shape(r)
    assert r["feasible_nodes"] == ["node-a", "node-b"]
    assert plugin_column(r, "VolumeBinding") == {"node-a": 75, "node-b": 50}
    assert [n["name"] for n in r["nodes"]] == ["node-a", "node-b", "node-c"]
    assert "VolumeBinding" not in r["skipped_score_plugins"]


# --------------------------------------------------------------------------- against the replay


def _random_case(rng: random.Random) -> tuple[Snapshot, object]:
    zones = ["z1", "z2", "z3"]
    nodes = []
    for i in range(rng.randint(2, 9)):
        taints = [Taint("dedicated", rng.choice(["a", "b"]), PNS)] if rng.random() < 0.3 else []
        labels = {"disk": rng.choice(["ssd", "hdd"]), "tier": rng.choice(["1", "2"])}
        nodes.append(node(f"n{i}", labels, zone=rng.choice(zones), cpu=rng.choice([2000, 4000, 8000]), memory=rng.choice([4, 8, 16]) * 1024**3, taints=taints))
    existing = []
    for j in range(rng.randint(0, 14)):
        app = rng.choice(["web", "db", "cache"])
        existing.append(pod(f"e{j}", {"app": app}, node_name=rng.choice(nodes).name, cpu=rng.choice([None, 100, 500, 1000]), memory=rng.choice([None, 256 * 1024**2, 1024**3])))
    aff = Affinity(
        node_preferred=tuple(
            PreferredSchedulingTerm(rng.randint(1, 100), node_selector([(k, "In", [v])]).terms[0])
            for k, v in rng.sample([("disk", "ssd"), ("tier", "1"), ("disk", "hdd")], rng.randint(0, 2))
        ),
        pod_affinity_preferred=tuple(
            WeightedPodAffinityTerm(rng.randint(1, 100), term(sel({"app": rng.choice(["web", "db"])}), rng.choice([LABEL_ZONE, LABEL_HOSTNAME])))
            for _ in range(rng.randint(0, 1))
        ),
    )
    constraints = [spread(rng.choice([LABEL_ZONE, LABEL_HOSTNAME]), 1, sel({"app": "web"}), when="ScheduleAnyway")] if rng.random() < 0.6 else []
    tolerations = [Toleration(key="dedicated", operator="Equal", value="a", effect=PNS)] if rng.random() < 0.5 else []
    target = pod("target", {"app": "web"}, cpu=rng.choice([None, 200, 1000]), memory=rng.choice([None, 512 * 1024**2]), affinity=aff, spread=constraints, tolerations=tolerations)
    return snapshot(nodes, [*existing, target]), target


@pytest.mark.parametrize("case_seed", range(25))
def test_first_ranked_node_is_one_the_replay_may_choose(case_seed):
    """The replay (planner simulate's Simulator) binds the pod to a node with the highest total
    explain --scores shows, whatever its seed; and explain's first node has that total."""
    snap, target = _random_case(random.Random(case_seed))
    r = explain(snap, target, scores=True)  # type: ignore[arg-type]
    check_shape(r)
    if not r["feasible_nodes"]:
        return
    totals = dict(ranking(r))
    best = max(totals.values())
    assert r["nodes"][0]["total_score"] == best
    top = {n for n, t in totals.items() if t == best}
    for seed in range(4):
        sim = Simulator(snap, seed=seed)
        sim.settle()
        host = sim.snap.pods[target.key].spec.node_name  # type: ignore[attr-defined]
        assert host in top, (host, totals)


def test_scores_equal_the_score_phase():
    """score_breakdown is the score phase: its weighted sum is score_nodes' total, node by node."""
    snap, target = _random_case(random.Random(3))
    cluster = snap.base_cluster().clone()
    f = feasible_nodes(target, cluster)  # type: ignore[arg-type]
    totals = scoring.score_nodes(target, cluster, f)  # type: ignore[arg-type]
    for i, n in enumerate(f):
        assert totals[n] == sum(w * s[i] for _p, w, s in scoring.score_breakdown(target, cluster, f) if s is not None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- no feasible node


def test_no_feasible_node_no_scores():
    r = scored(
        P(requests={"cpu": 9000 * K, "memory": 5000}), [N("node1", 4000 * K, 10000), N("node2", 6000 * K, 10000)]
    )
    assert not r["schedulable"] and r["feasible_nodes"] == []
    assert all("scores" not in n and "total_score" not in n for n in r["nodes"])
    assert "skipped_score_plugins" not in r
    assert [n["name"] for n in r["nodes"]] == ["node1", "node2"]


def test_without_scores_nothing_changes():
    s = snapshot([N("node1", 4000 * K, 10000), N("node2", 6000 * K, 10000)])
    r = explain(s, P(requests={"cpu": 3000 * K, "memory": 5000}))
    assert "skipped_score_plugins" not in r and all("scores" not in n for n in r["nodes"])


def test_tied_nodes_keep_the_snapshot_order_and_the_replay_draws_among_them():
    """Alike nodes tie: explain lists them in the snapshot's order; the replay picks any of them
    (selectHost's random choice), never the lower node."""
    nodes = [N("a", 4000, 8 * 1024**3), N("b", 4000, 8 * 1024**3), N("c", 2000, 8 * 1024**3)]
    target = P("t", requests={"cpu": 500, "memory": 1024**3})
    snap = snapshot(nodes, [target])
    r = explain(snap, target, scores=True)
    check_shape(r)
    (first, t1), (second, t2), (third, t3) = ranking(r)
    assert (first, second, third) == ("a", "b", "c") and t1 == t2 > t3
    hosts = set()
    for seed in range(12):
        sim = Simulator(snap, seed=seed)
        sim.settle()
        hosts.add(sim.snap.pods[target.key].spec.node_name)
    assert hosts == {"a", "b"}


def test_notes_where_kube_scheduler_scores_otherwise():
    """One feasible node: kube-scheduler binds it unscored; over 100: it may score only some."""
    one = scored(P(requests={"cpu": 3000, "memory": 5000}), [N("node1", 4000, 10000), N("node2", 2000, 10000)])
    assert one["feasible_nodes"] == ["node1"] and one["nodes"][0]["total_score"] > 0
    assert any("binds it without scoring" in n for n in one["notes"])
    many = scored(P(requests={"cpu": 100, "memory": 100}), [N(f"n{i}", 4000, 10000) for i in range(101)])
    assert len(many["feasible_nodes"]) == 101
    assert any("numFeasibleNodesToFind" in n for n in many["notes"])
    assert not any("numFeasibleNodesToFind" in n or "without scoring" in n for n in scored(P(requests={"cpu": 100, "memory": 100}), [N("a", 4000, 10000), N("b", 4000, 10000)])["notes"])
