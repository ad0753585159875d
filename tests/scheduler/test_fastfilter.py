"""The replay's array filter equals the filter plugins, pod by pod, as pods are bound and deleted."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from planner.scheduler.binding import bind_pod
from planner.scheduler.fastfilter import FastFilter, supports
from planner.scheduler.runtime import feasible_nodes
from tests.randomcluster import scenarios


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_fast_filter_equals_plugins(sc):
    cluster, pods, _ = sc.problem()
    fast = FastFilter(cluster)
    placed = []
    for pod in pods:
        want = feasible_nodes(pod, cluster)
        if supports(pod):
            assert fast.feasible(pod) == want, pod.key
        if want:
            bound = bind_pod(cluster, pod, want[-1])
            fast.on_bind(bound)
            placed.append(bound)
    # deleting pods again: the arrays follow
    for bound in placed[::2]:
        fast.on_delete(bound)
        cluster.remove_pod(bound)
    for pod in pods:
        if supports(pod) and not pod.spec.node_name:
            assert fast.feasible(pod) == feasible_nodes(pod, cluster), pod.key


def test_replays_agree_with_and_without_arrays():
    """Every bundled scenario replays the same way on the array filter and on the plugins."""
    from planner.engines.replay import Simulator, parse_steps
    from planner.engines.workloads import parse_workload
    from planner.load import load_snapshot
    from tests.conftest import SCENARIOS

    for path in sorted(SCENARIOS.glob("*.yaml")):
        snap = load_snapshot([str(path)])
        steps_raw = (snap.scenario or {}).get("steps") or []
        refs = [parse_workload(f"deployment/{k}", None) for k in snap.deployments]
        refs += [parse_workload(f"statefulset/{k}", None) for k in snap.statefulsets]
        results = []
        for fast in (True, False):
            steps = parse_steps(steps_raw, snap, None, path.name)
            results.append(Simulator(snap, seed=3, fast=fast).run(steps, refs))
        a, b = results
        assert a["completed"] == b["completed"], path.name
        assert [s["events"] for s in a["steps"]] == [s["events"] for s in b["steps"]], path.name


def test_statefulset_pods_share_entries_unless_a_term_reads_their_identity():
    """A StatefulSet's pods differ by their identity labels alone, so the arrays' caches of which
    terms and counts match a pod are shared between them, until a term or a counted selector reads
    one of those labels: then each pod is its own entry.  Either way the answers are the plugins'."""
    from planner.domain import Affinity
    from tests.builders import cluster, node, pod, sel, spread, term

    nodes = [node(f"n{i}", zone=f"z{i % 2}") for i in range(4)]
    guard = pod("guard", {"app": "guard"}, node_name="n0",
                affinity=Affinity(pod_anti_affinity_required=(term(sel({"statefulset.kubernetes.io/pod-name": "web-2"}), "kubernetes.io/hostname"),)))
    c = cluster(nodes, [])
    fast = FastFilter(c)

    def web(i: int, **kw):
        labels = {"app": "web", "statefulset.kubernetes.io/pod-name": f"web-{i}", "apps.kubernetes.io/pod-index": str(i)}
        return pod(f"web-{i}", labels, **kw)

    for i in range(2):
        assert fast.feasible(web(i)) == feasible_nodes(web(i), c)
    assert not fast.anti_identity and len(fast.anti_cache) <= 1  # web-0 and web-1 shared an entry
    bound = bind_pod(c, guard, "n0")
    fast.on_bind(bound)
    assert fast.anti_identity  # guard's term reads the pod name
    for i in range(4):
        want = feasible_nodes(web(i), c)
        assert fast.feasible(web(i)) == want
        assert ("n0" in want) == (i != 2)
    # a counted selector that reads the pod index (a spread over the first two ordinals)
    picky = spread("kubernetes.io/hostname", 1, sel(None, ("apps.kubernetes.io/pod-index", "In", ["0", "1"])))
    for i in range(4):
        p = web(i, spread=[picky])
        want = feasible_nodes(p, c)
        assert fast.feasible(p) == want, i
        if want:
            b = bind_pod(c, p, want[0])
            fast.on_bind(b)
    assert fast.count_identity


def test_volume_classes_follow_the_journal_of_the_volumes():
    """The nodes VolumeBinding and VolumeZone tell apart depend on the label keys the PVs' node
    affinity names: on the replay's journaled volumes, a PV written since the last call that names
    a new key makes the classes again, even when another PV went and the dict kept its length."""
    from planner.domain import Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PersistentVolume
    from planner.scheduler.framework import ClusterState, JournaledDict, NodeInfo
    from planner.scheduler.plugins.volumebinding.problem import volume_classes

    def pv(name: str, key: str, value: str) -> PersistentVolume:
        term = NodeSelectorTerm((NodeSelectorRequirement(key, "In", (value,)),))
        return PersistentVolume(name, capacity=1, storage_class="local", node_affinity=NodeSelector((term,)))

    zone = "topology.kubernetes.io/zone"
    nodes = [Node(f"n-{i}", {zone: "a", "rack": rack, "pool": pool}) for i, (rack, pool) in enumerate((("r1", "p1"), ("r1", "p2"), ("r2", "p2")))]
    for journaled in (True, False):
        pvs: dict = {"pv-a": pv("pv-a", zone, "a")}
        cluster = ClusterState([NodeInfo(n) for n in nodes], pvs=JournaledDict(pvs) if journaled else pvs)
        ff = FastFilter(cluster)
        classes, ids = ff._volume_class_ids()
        assert classes == volume_classes(cluster) == [[0, 1, 2]]
        cluster.pvs["pv-b"] = pv("pv-b", "rack", "r2")  # appended: read in both cases
        classes, ids = ff._volume_class_ids()
        assert classes == volume_classes(cluster) == [[0, 1], [2]] and list(ids) == [0, 0, 1]
        if journaled:
            del cluster.pvs["pv-a"]
            cluster.pvs["pv-c"] = pv("pv-c", "pool", "p1")  # one gone, one new: the same length
            classes, _ = ff._volume_class_ids()
            assert classes == volume_classes(cluster) == [[0], [1], [2]]
            assert ff._volume_class_ids()[0] is classes  # nothing written since: kept


def test_blocked_domains_is_the_nodes_sharing_a_value_with_a_counted_node():
    """FastFilter.blocked_domains against its definition, on random label layouts: nodes without
    the label, shared values (zones), a value per node (hostnames: the shortcut)."""
    import types

    import numpy as np

    from planner.scheduler.fastfilter import FastFilter

    rng = np.random.default_rng(1)
    for trial in range(1500):
        n = int(rng.integers(1, 30))
        nv = int(rng.integers(1, n + 2))
        labels = [str(i) for i in range(n)] if trial % 3 == 0 else [None if rng.random() < 0.2 else str(int(rng.integers(0, nv))) for _ in range(n)]
        per = rng.integers(0, 3, n)
        ff = types.SimpleNamespace(n=n, domains={}, domain_index={})
        values: dict[str, int] = {}
        codes = np.full(n, -1, dtype=np.int64)
        for i, v in enumerate(labels):
            if v is not None:
                codes[i] = values.setdefault(v, len(values))
        ff.domains["k"] = (codes, list(values))
        ff._domain = ff.domains.__getitem__
        got = FastFilter.blocked_domains(ff, "k", per)
        want = [labels[i] is not None and any(per[j] > 0 and labels[j] == labels[i] for j in range(n)) for i in range(n)]
        assert got.tolist() == want, (labels, per.tolist())
