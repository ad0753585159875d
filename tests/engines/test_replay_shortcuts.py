"""The replay's shortcuts answer as the plain computations they stand for.

* ``Simulator._lower_priority_runs`` (preemption's shortcut: is a pod of a lower priority on a
  node?) reads each node's lowest priority (NodeInfo.min_priority, kept as pods come and go)
  instead of every pod; it must answer as the lowest priority counted over every pod at the
  first question after a reset and kept since (a bind lowers it, a deletion leaves it), which the
  model below recomputes from the pods themselves.
* ``room_bound(within=n)`` stops counting nodes once the bound holds ``n``: its comparison with
  ``n`` must be the whole bound's, and a bound that does not hold ``n`` must be the whole one.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from planner.engines.replay import Simulator
from planner.engines.workloads import WorkloadRef, room_bound
from planner.scheduler.framework import NO_PRIORITY, NodeInfo
from planner.snapshot import Snapshot
from tests.builders import node, pod
from tests.conftest import SCENARIOS


def _snap(rng: random.Random, n_nodes: int = 6, n_pods: int = 30) -> Snapshot:
    s = Snapshot()
    for i in range(n_nodes):
        nd = node(f"n{i}", zone=f"z{i % 2}")
        s.nodes[nd.name] = nd
    for j in range(n_pods):
        p = pod(f"p{j}", node_name=f"n{rng.randrange(n_nodes)}", cpu=10)
        p = replace(p, spec=replace(p.spec, priority=rng.choice((-5, 0, 0, 3, 10, 100))))
        s.pods[p.key] = p
    return s


class _Model:
    """The lowest running priority as the replay kept it before the shortcut: counted in full at
    the first question after a reset, lowered by binds, left as it is by deletions."""

    def __init__(self) -> None:
        self.low: int | None = None

    def ask(self, sim: Simulator, priority: int) -> bool:
        if self.low is None:
            self.low = min([p.spec.priority for ni in sim.cluster.node_infos for p in ni.pods], default=2**31)
        return self.low < priority

    def bound(self, priority: int) -> None:
        if self.low is not None and priority < self.low:
            self.low = priority


@pytest.mark.parametrize("seed", range(40))
def test_lower_priority_runs_answers_as_the_lowest_priority_kept(seed: int) -> None:
    rng = random.Random(seed)
    sim = Simulator(_snap(rng), seed=seed)
    model = _Model()
    made = 0
    answers = []
    for _ in range(60):
        op = rng.choice(("ask", "ask", "ask", "bind", "delete", "delete", "reset"))
        if op == "ask":
            q = rng.choice((-10, -5, 0, 1, 3, 10, 50, 100, 1000))
            got, want = sim._lower_priority_runs(q), model.ask(sim, q)
            assert got == want, (seed, q)
            answers.append(got)
        elif op == "bind":
            made += 1
            p = pod(f"new{made}", cpu=10)
            p = replace(p, spec=replace(p.spec, priority=rng.choice((-20, -5, 0, 7, 100))))
            sim.snap.pods[p.key] = p
            sim._bind(p, f"n{rng.randrange(len(sim.snap.nodes))}")
            model.bound(p.spec.priority)
        elif op == "delete":
            bound = sorted(k for k, p in sim.snap.pods.items() if p.spec.node_name)
            if bound:
                sim._delete_pod(rng.choice(bound), "test")
        else:  # a preemption or a cluster built afresh
            sim._reset_priority()
            model.low = None
    assert answers  # the sequence asked something


def test_lower_priority_runs_counts_pods_deleted_after_the_first_question() -> None:
    """A deletion leaves the lowest priority kept since the first question as it was."""
    s = Snapshot()
    s.nodes["n0"] = node("n0")
    for name, prio in (("a", 5), ("b", -7), ("c", 9)):
        p = pod(name, node_name="n0", cpu=10)
        s.pods[p.key] = replace(p, spec=replace(p.spec, priority=prio))
    sim = Simulator(s, seed=0)
    assert sim._lower_priority_runs(10)
    sim._delete_pod("default/b", "test")
    assert sim._lower_priority_runs(-1)  # b (-7) ran at the first question
    assert not sim._lower_priority_runs(-7)
    sim._reset_priority()
    assert not sim._lower_priority_runs(-1)  # counted again: a (5) and c (9)


def test_node_info_min_priority_is_the_lowest_of_its_pods() -> None:
    """NodeInfo.min_priority through adds, removes (of the lowest, of others, of a pod not
    there) and clones changed on either side."""
    rng = random.Random(7)
    infos = [NodeInfo(node("n0"))]
    made = 0
    for _ in range(600):
        ni = rng.choice(infos)
        op = rng.random()
        if op < 0.5:
            made += 1
            p = pod(f"p{made}", node_name="n0", cpu=1)
            ni.add_pod(replace(p, spec=replace(p.spec, priority=rng.choice((-3, 0, 0, 2, 2, 1000)))))
        elif op < 0.9:
            if ni.pods and rng.random() < 0.9:
                ni.remove_pod(rng.choice(ni.pods))
            else:
                ni.remove_pod(pod("absent", node_name="n0"))
        elif len(infos) < 6:
            infos.append(ni.clone())
        for x in infos:
            assert x.min_priority == min([q.spec.priority for q in x.pods], default=NO_PRIORITY)


def test_room_bound_within_compares_as_the_whole_bound() -> None:
    checked = 0
    for snap in _scenario_snaps():
        checked += _compare_bounds(snap)
    assert checked


def _compare_bounds(snap: Snapshot) -> int:
    checked = 0
    for d in sorted(snap.deployments):
        ns, name = d.split("/", 1)
        ref = WorkloadRef("Deployment", ns, name)
        whole = room_bound(snap, ref, 10, preemption=True)
        for n in sorted({0, 1, whole.max_replicas - 1, whole.max_replicas, whole.max_replicas + 1, whole.max_replicas + 7}):
            part = room_bound(snap, ref, n, preemption=True, within=n)
            assert (n <= part.max_replicas) == (n <= whole.max_replicas), (d, n)
            if n > whole.max_replicas:
                assert part == replace(whole, asked=n), (d, n)
            checked += 1
    return checked


def _scenario_snaps():
    from planner.load import Limits, load_snapshot

    for path in sorted(SCENARIOS.glob("*.yaml")):
        snap = load_snapshot([str(path)], Limits())
        if snap.deployments and snap.pods:
            yield snap


def _owned_snapshot() -> Snapshot:
    """A Deployment with its ReplicaSet, a ReplicaSet naming it with another uid, pods of each,
    and a pod naming the first ReplicaSet with another uid (every owner a controller: the replay
    reads its index only then)."""
    from tests.controllers.world import deployment, replicaset, rs_pods, snapshot

    d = deployment(4)
    rs = replicaset(d, "v1", 4, 1)
    stray = replace(replicaset(d, "v0", 2, 0), owner=replace(rs.owner, uid="uid-someone-else"))
    pods = rs_pods(rs, 3) + rs_pods(stray, 2, first_node=3)
    first = rs_pods(rs, 1)[0]
    assert first.owner is not None
    pods.append(replace(first, name="impostor", uid="u-imp", owner=replace(first.owner, uid="uid-other-rs")))
    return snapshot(d, rs, stray, pods, nodes=8)


def test_owned_pods_are_those_owned_by_holds_for() -> None:
    """Simulator._owned (owned_by's checks once per ReplicaSet) against owned_by pod by pod, on
    the snapshot, then after a scale and a rollout, incremental or not."""
    from planner.engines.replay import Step
    from planner.engines.workloads import owned_by

    snap = _owned_snapshot()
    ref = WorkloadRef("Deployment", "default", "web")
    results = []
    for incremental in (True, False):
        sim = Simulator(snap, seed=1, incremental=incremental)
        if sim.ctrl is not None:
            sim.ctrl.attach()
        want = sorted(p.key for p in sim.snap.pods.values() if owned_by(sim.snap, p, ref))
        assert sorted(p.key for p in sim._owned(ref)) == want
        assert "default/impostor" not in want and want
        assert sim.ctrl is None or sim._controller_owned  # the index path
        if sim.ctrl is not None:
            sim.ctrl.detach()
        results.append(Simulator(snap, seed=1, incremental=incremental).run(
            [Step("scale", {"ref": ref, "workload": str(ref), "replicas": 6}),
             Step("rollout", {"ref": ref, "workload": str(ref), "image": "v2"})], [ref]))
    assert results[0] == results[1]
    assert results[0]["final"]["pods"]
