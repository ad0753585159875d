"""The score caches that follow the cluster (per-node scores updated for the nodes whose pods
changed, the journal of a tracked ClusterState) equal the reference plugins after every change."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from planner.scheduler import scoring
from planner.scheduler.framework import ClusterState
from planner.scheduler.plugins.interpodaffinity import scoring as sip
from tests.builders import cluster, pod

from .test_scoring import _random_cluster, _random_pod


def _check(c, p, feasible):
    explain = scoring.explain_scores(p, c, feasible)
    for name, w in scoring.PLUGIN_WEIGHTS.items():
        ref = scoring.plugin_scores(name, p, c, feasible)
        want = [0] * len(feasible) if ref is None else [s * w for s in ref]
        assert [explain[n][name] for n in feasible] == want, name


@pytest.mark.parametrize("tracked", (False, True))
@pytest.mark.parametrize("seed", range(25))
def test_same_pods_scored_as_the_cluster_changes(seed, tracked):
    rng = random.Random(seed)
    nodes, pods = _random_cluster(rng)
    c = cluster(nodes, pods)
    if tracked:
        c.track()
    incoming = [_random_pod(rng) for _ in range(3)]
    added = []
    made = 0
    for _ in range(60):
        p = rng.choice(incoming)
        feasible = [n.name for n in nodes if rng.random() < 0.8] or [nodes[0].name]
        if rng.random() < 0.3:
            feasible = [n.name for n in nodes]  # all nodes, in order: the caches' slice case
        _check(c, p, feasible)
        # one to a few nodes change (the scalar updates), sometimes many (the vector ones)
        for _ in range(rng.choice((1, 1, 2, 40))):
            if added and rng.random() < 0.3:
                c.remove_pod(added.pop(rng.randrange(len(added))))
            else:
                req = rng.choice((None, 0, 300, 5000))
                made += 1
                q = pod(f"x{made}", {"app": rng.choice(("a", "b"))}, node_name=rng.choice(nodes).name, cpu=req,
                        requests={"memory": rng.choice((2**20, 2**31, 2**34))} if rng.random() < 0.5 else None)
                c.add_pod(q)
                added.append(q)


@pytest.mark.parametrize("seed", range(20))
def test_positions_api_equals_score_nodes_and_select_host(seed):
    """score_arrays.score_positions / select_index (the replay's) against scoring.score_nodes /
    select_host: the same totals, and the same node drawn from the same seed."""
    import numpy as np

    from planner.scheduler import arrays as score_arrays

    rng = random.Random(seed)
    nodes, pods = _random_cluster(rng)
    c = cluster(nodes, pods)
    index = {ni.name: i for i, ni in enumerate(c.node_infos)}
    for _ in range(5):
        p = _random_pod(rng)
        feasible = [n.name for n in nodes if rng.random() < 0.7] or [nodes[-1].name]
        rng.shuffle(feasible)
        want = scoring.score_nodes(p, c, feasible)
        got = score_arrays.score_positions(p, c, feasible, np.array([index[n] for n in feasible]))
        assert dict(zip(feasible, got.tolist())) == want
        for draw in range(3):
            a, b = random.Random(draw), random.Random(draw)
            assert feasible[score_arrays.select_index(got, a)] == scoring.select_host(want, b)
            assert a.random() == b.random()  # as many draws
        ties = np.array([rng.choice((5, 7, 7)) for _ in feasible])
        a, b = random.Random(seed), random.Random(seed)
        assert feasible[score_arrays.select_index(ties, a)] == scoring.select_host(dict(zip(feasible, ties.tolist())), b)


def test_node_info_keeps_nonzero_requested():
    """NodeInfo.nonzero_cpu / nonzero_mem (NonZeroRequested, read by the score arrays) follow
    add_pod, remove_pod and clone, with score_noderesources' defaults."""
    from planner.scheduler import framework
    from planner.scheduler.plugins.noderesources import resource_allocation as nr

    assert (framework.DEFAULT_MILLI_CPU_REQUEST, framework.DEFAULT_MEMORY_REQUEST) == (nr.DEFAULT_MILLI_CPU_REQUEST, nr.DEFAULT_MEMORY_REQUEST)
    rng = random.Random(7)
    nodes, pods = _random_cluster(rng)
    c = cluster(nodes, pods)
    for step in range(200):
        ni = rng.choice(c.node_infos)
        if ni.pods and rng.random() < 0.4:
            c.remove_pod(rng.choice(ni.pods))
        else:
            req = {k: rng.choice((0, 5, 700)) for k in ("cpu", "memory") if rng.random() < 0.6}
            c.add_pod(pod(f"n{step}", node_name=ni.name, requests=req))
        if step % 50 == 0:
            c = c.clone()
        for ni in c.node_infos:
            assert ni.nonzero_cpu == sum(p.spec.requests.get("cpu", nr.DEFAULT_MILLI_CPU_REQUEST) for p in ni.pods)
            assert ni.nonzero_mem == sum(p.spec.requests.get("memory", nr.DEFAULT_MEMORY_REQUEST) for p in ni.pods)


def _affinity_world(rng):
    from planner.domain import Affinity, WeightedPodAffinityTerm
    from tests.builders import node, sel, term

    def w(weight, key, app):
        return WeightedPodAffinityTerm(weight, term(sel({"app": app}), key))

    kinds = [
        Affinity(pod_anti_affinity_preferred=(w(5, "kubernetes.io/hostname", "a"),)),
        Affinity(pod_affinity_preferred=(w(3, "zone", "b"),), pod_anti_affinity_preferred=(w(2, "zone", "a"),)),
        Affinity(pod_affinity_required=(term(sel({"app": "a"}), "zone"),)),
        Affinity(pod_anti_affinity_required=(term(sel({"app": "b"}), "kubernetes.io/hostname"),)),
        None,
    ]
    nodes = [node(f"n{i}", {"zone": f"z{i % 3}"} if i % 5 else {}) for i in range(9)]
    return nodes, kinds, w


@pytest.mark.parametrize("tracked", (False, True))
@pytest.mark.parametrize("seed", range(12))
def test_interpod_prescore_follows_the_cluster(seed, tracked):
    """InterPodAffinity's PreScore, kept per incoming pod signature and updated per node, equals
    a PreScore from scratch (a fresh ClusterState: no caches) as pods with and without (anti-)
    affinity terms that match the incoming pods come and go."""
    from planner.domain import Affinity

    rng = random.Random(seed)
    nodes, kinds, w = _affinity_world(rng)
    c = cluster(nodes, [])
    if tracked:
        c.track()
    incoming = [pod("in-a", {"app": "a"}), pod("in-b", {"app": "b"}),
                pod("in-pref", {"app": "a"}, affinity=Affinity(pod_affinity_preferred=(w(4, "zone", "a"),)))]
    added = []
    made = 0
    for _ in range(40):
        for _ in range(rng.choice((1, 1, 3))):
            if added and rng.random() < 0.3:
                c.remove_pod(added.pop(rng.randrange(len(added))))
            else:
                made += 1
                q = pod(f"e{made}", {"app": rng.choice(("a", "b"))}, node_name=rng.choice(nodes).name,
                        affinity=rng.choice(kinds))
                c.add_pod(q)
                added.append(q)
        p = rng.choice(incoming)
        feasible = [n.name for n in nodes]
        got = scoring.plugin_scores("InterPodAffinity", p, c, feasible)
        # from scratch: the same node infos in a new ClusterState (no caches; not clone(), which
        # would make c copy its node infos on the next change)
        fresh = ClusterState(node_infos=list(c.node_infos), namespace_labels=c.namespace_labels)
        assert got == scoring.plugin_scores("InterPodAffinity", p, fresh, feasible)
        # and the pod-by-pod share of a pod without preferred terms is the grouped one's
        if p.spec.affinity is None:
            ns_labels = c.namespace_labels_of(p.namespace)
            for ni in fresh.node_infos:
                by_pod = sip._own_terms_share(ni, p, ns_labels, {}, {})
                grouped = sip._node_contribution(ni, sip._node_summary(fresh, ni, False), [], [], p, ns_labels, {})
                assert _sums(by_pod) == _sums(grouped), ni.name


def _sums(share):
    out: dict = {}
    for tk, v, d in share:
        out[(tk, v)] = out.get((tk, v), 0) + d
    return {k: d for k, d in out.items() if d}


@pytest.mark.parametrize("tracked", (False, True))
def test_interpod_prescore_shared_by_a_statefulsets_pods(tracked):
    """A StatefulSet's pods differ by their identity labels alone: PreScore's map is shared from
    one to the next (their signature leaves those labels out) while no scored term of an existing
    pod reads one, and equals a PreScore from scratch; once a pod whose preferred anti-affinity
    selects one pod by name (statefulset.kubernetes.io/pod-name) lands, the full labels are the
    signature again, and the scores still equal those from scratch."""
    from planner.domain import Affinity

    rng = random.Random(7)
    nodes, kinds, w = _affinity_world(rng)
    c = cluster(nodes, [])
    if tracked:
        c.track()
    for i, k in enumerate(kinds):
        c.add_pod(pod(f"e{i}", {"app": "a"}, node_name=nodes[i % len(nodes)].name, affinity=k))
    from planner.domain import WeightedPodAffinityTerm
    from tests.builders import sel, term

    reads_name = Affinity(pod_anti_affinity_preferred=(WeightedPodAffinityTerm(50, term(sel({"statefulset.kubernetes.io/pod-name": "web-3"}), "zone")),))

    def web(i: int):
        return pod(f"web-{i}", {"app": "a", "statefulset.kubernetes.io/pod-name": f"web-{i}", "apps.kubernetes.io/pod-index": str(i)})

    feasible = [n.name for n in nodes]
    for i in range(8):
        if i == 4:
            shared = [sig for sig in c.__dict__[sip._TOPOLOGY] if sig[-1] == "no-identity"]
            assert len(shared) == 1  # web-0..web-3 shared one map
            assert not c.__dict__.get(sip._TAINTED)
            c.add_pod(pod("picky", {"app": "b"}, node_name=nodes[0].name, affinity=reads_name))
        p = web(i)
        got = scoring.plugin_scores("InterPodAffinity", p, c, feasible)
        fresh = ClusterState(node_infos=list(c.node_infos), namespace_labels=c.namespace_labels)
        assert got == scoring.plugin_scores("InterPodAffinity", p, fresh, feasible), i
        c.add_pod(replace(p, spec=replace(p.spec, node_name=rng.choice(nodes).name), phase="Running"))
    assert c.__dict__[sip._TAINTED]  # picky's term reads the pod name: full labels again


@pytest.mark.parametrize("tracked", (False, True))
def test_interpod_prescore_adds_only_the_pods_appended_to_a_node(tracked, monkeypatch):
    """A node that gained pods with affinity since the last PreScore (a bind appends to its list)
    has only those pods' share added (``start`` past the pods seen before), and the scores equal
    a PreScore from scratch."""
    rng = random.Random(3)
    nodes, kinds, w = _affinity_world(rng)
    c = cluster(nodes, [])
    if tracked:
        c.track()
    for i in range(30):
        c.add_pod(pod(f"e{i}", {"app": "a"}, node_name=nodes[i % 3].name, affinity=kinds[i % 3]))
    p = pod("in-a", {"app": "a"})
    feasible = [n.name for n in nodes]
    scoring.plugin_scores("InterPodAffinity", p, c, feasible)
    starts: list[int] = []
    real = sip._own_terms_share

    def spy(*a, **k):
        starts.append(a[6] if len(a) > 6 else k.get("start", 0))
        return real(*a, **k)

    monkeypatch.setattr(sip, "_own_terms_share", spy)
    for i in range(6):
        c.add_pod(pod(f"new{i}", {"app": "b"}, node_name=nodes[1].name, affinity=kinds[i % 3]))
        got = scoring.plugin_scores("InterPodAffinity", p, c, feasible)
        fresh = ClusterState(node_infos=list(c.node_infos), namespace_labels=c.namespace_labels)
        monkeypatch.setattr(sip, "_own_terms_share", real)
        assert got == scoring.plugin_scores("InterPodAffinity", p, fresh, feasible), i
        monkeypatch.setattr(sip, "_own_terms_share", spy)
    assert starts and all(s >= 10 for s in starts), starts  # node n1 held 10 pods with affinity before


@pytest.mark.parametrize("seed", range(8))
def test_interpod_prescore_keeps_the_share_of_a_node_copied_on_write(seed, monkeypatch):
    """A replay's cluster is a copy-on-write clone of the snapshot's: the first bind to a node
    copies its NodeInfo (and its list of pods with affinity).  The share of a node whose new list
    starts with the very pods the share was computed from stands (only the pods appended are
    looked at); one whose list changed otherwise (a pod removed, then others added) is computed
    again; either way the scores equal a PreScore from scratch."""
    rng = random.Random(seed)
    nodes, kinds, w = _affinity_world(rng)
    base = cluster(nodes, [])
    for i in range(40):
        base.add_pod(pod(f"e{i}", {"app": rng.choice("ab")}, node_name=rng.choice(nodes).name, affinity=rng.choice(kinds)))
    c = base.clone()
    c.track()
    p = pod("in-a", {"app": "a"})
    feasible = [n.name for n in nodes]
    scoring.plugin_scores("InterPodAffinity", p, c, feasible)
    calls: list[tuple[str, int]] = []
    real = sip._own_terms_share

    def spy(*a, **k):
        calls.append((a[0].name, a[6] if len(a) > 6 else k.get("start", 0)))
        return real(*a, **k)

    made = 0
    for _ in range(20):
        name = rng.choice(nodes).name
        copied = name in c._shared
        before = list(c.by_name[name].pods_with_affinity)
        if rng.random() < 0.3 and c.by_name[name].pods:
            c.remove_pod(rng.choice(c.by_name[name].pods))
        for _ in range(rng.choice((1, 2))):
            made += 1
            c.add_pod(pod(f"new{made}", {"app": "b"}, node_name=name, affinity=rng.choice(kinds)))
        after = c.by_name[name].pods_with_affinity
        kept = after[: len(before)] == before and all(x is y for x, y in zip(after, before))
        calls.clear()
        monkeypatch.setattr(sip, "_own_terms_share", spy)
        got = scoring.plugin_scores("InterPodAffinity", p, c, feasible)
        monkeypatch.setattr(sip, "_own_terms_share", real)
        fresh = ClusterState(node_infos=list(c.node_infos), namespace_labels=c.namespace_labels)
        assert got == scoring.plugin_scores("InterPodAffinity", p, fresh, feasible)
        starts = [s for n, s in calls if n == name]
        if c.by_name[name].node.labels:
            if kept and len(after) > len(before):
                assert starts == [len(before)], (copied, starts)  # only the appended pods
            elif not kept:
                assert starts == [0], starts  # computed again
            else:
                assert starts == [], starts


@pytest.mark.parametrize("tracked", (False, True))
def test_arrays_sum_many_nodes_at_once_as_one_by_one(tracked):
    """ClusterArrays' per-node sums when many nodes change at once (every node after a rebuild,
    70 of 120 later: one pass per sum) equal the NodeInfos' own, saturated to int64 as the
    node-by-node path saturates them."""
    from planner.scheduler import arrays as score_arrays
    from tests.builders import node

    rng = random.Random(5)
    nodes = [node(f"n{i}", cpu=4000, memory=2**34) for i in range(120)]
    pods = []
    for i in range(300):
        req = {"cpu": rng.choice((0, 100, 2**70)), "memory": rng.choice((0, 2**20, 2**80))}
        pods.append(pod(f"p{i}", node_name=f"n{rng.randrange(120)}", requests={k: v for k, v in req.items() if v}))
    c = cluster(nodes, pods)
    if tracked:
        c.track()

    def check():
        a = score_arrays.arrays(c)
        big = (1 << 63) - 1
        for i, ni in enumerate(c.node_infos):
            assert a.nz_cpu[i] == min(ni.nonzero_cpu, big) and a.nz_mem[i] == min(ni.nonzero_mem, big)
            assert a.req_cpu[i] == min(ni.requested.get("cpu", 0), big) and a.req_mem[i] == min(ni.requested.get("memory", 0), big)
        return a

    a = check()
    logged = len(a.changes)
    assert logged == 120  # every node, logged
    for k, i in enumerate(rng.sample(range(120), 70)):
        c.add_pod(pod(f"q{k}", node_name=f"n{i}", cpu=rng.choice((1, 2**70))))
    a = check()
    assert len(a.changes) == logged + 70


def test_a_scored_cluster_is_freed_with_its_last_reference():
    """The score arrays a cluster keeps refer back to it weakly: a cluster a replay is done with
    goes when its last reference does, not at the cyclic collector's next pass (which walks every
    object made since the last one: 0.46 s after a remediation at 5,000 nodes)."""
    import gc
    import weakref

    from planner.scheduler import arrays as score_arrays

    rng = random.Random(3)
    nodes, pods = _random_cluster(rng)
    c = cluster(nodes, pods)
    feasible = [n.name for n in nodes]
    assert scoring.score_nodes(_random_pod(rng), c, feasible)
    assert score_arrays.arrays(c).cluster is c
    gone = weakref.ref(c)
    was = gc.isenabled()
    gc.disable()
    try:
        del c
        assert gone() is None
    finally:
        if was:
            gc.enable()
