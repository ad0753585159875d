"""The incremental replay (controllers synced only where something changed, the queue kept as pods
come and go, node changes journalled) gives exactly the answers of the full passes.

``Simulator(incremental=False)`` runs every controller over every object in every round and
rebuilds the queue from all pods: the reference.  Both run the same steps on the bundled
scenarios, on generated bench clusters (many workloads, claims, PDBs, a Pending pod) and on random
clusters, and must return equal results: every event of every step, the zones, the stuck pods
with their reasons, the final placement.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

from planner.engines.replay import Simulator, Step, parse_steps
from planner.engines.workloads import WorkloadRef, parse_workload
from tests.conftest import SCENARIOS
from tests.randomcluster import scenarios


def _both(snap, steps_for, refs, seed=3, **kw):
    out = []
    for incremental in (True, False):
        out.append(Simulator(snap, seed=seed, incremental=incremental, **kw).run(steps_for(), refs))
    return out


def _refs(snap):
    refs = [parse_workload(f"deployment/{k}", None) for k in sorted(snap.deployments)]
    refs += [parse_workload(f"statefulset/{k}", None) for k in sorted(snap.statefulsets)]
    return refs


def _extra_steps(snap, rng: random.Random) -> list[Step]:
    """A mixed transition over the snapshot's own workloads, pods, nodes and zones."""
    out: list[Step] = []
    refs = _refs(snap)
    for _ in range(6):
        kind = rng.choice(("scale", "scale", "rollout", "evict", "drain", "zone-down", "delete", "add-nodes"))
        if kind in ("scale", "rollout", "delete") and refs:
            ref = rng.choice(refs)
            if kind == "scale":
                out.append(Step("scale", {"ref": ref, "workload": str(ref), "replicas": rng.randint(0, 8)}))
            elif kind == "rollout":
                out.append(Step("rollout", {"ref": ref, "workload": str(ref), "image": rng.choice((None, "img:v9"))}))
            else:
                out.append(Step("delete", {"ref": ref, "workload": str(ref)}))
                refs.remove(ref)
        elif kind == "evict" and snap.pods:
            out.append(Step("evict", {"pod": rng.choice(sorted(snap.pods))}))
        elif kind == "drain" and snap.nodes:
            out.append(Step("drain", {"node": rng.choice(sorted(snap.nodes))}))
        elif kind == "zone-down" and len(snap.zones) > 1:
            out.append(Step("zone-down", {"zone": rng.choice(snap.zones)}))
        elif kind == "add-nodes" and snap.zones:
            out.append(Step("add-nodes", {"zone": rng.choice(snap.zones), "count": 2, "pool": None}))
    return out


def _assert_same(a: dict, b: dict, what: str) -> None:
    assert a["completed"] == b["completed"], what
    for sa, sb in zip(a["steps"], b["steps"], strict=True):
        assert sa == sb, (what, sa["step"], sa["action"])
    assert a == b, what


def _safe_steps(snap, steps: list[Step], seed: int = 0, **kw) -> list[Step]:
    """Drop the steps a reference run (with the seed and options of the runs compared) rejects
    (an evicted pod that no longer exists, ...)."""
    out = []
    for s in steps:
        try:
            Simulator(snap, seed=seed, incremental=False, **kw).run([*out, s], [])
        except Exception:  # noqa: BLE001 - an invalid step for this snapshot: skip it
            continue
        out.append(s)
    return out


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.name)
def test_scenarios_replay_the_same(path):
    from planner.load import load_snapshot

    snap = load_snapshot([str(path)])
    steps_raw = (snap.scenario or {}).get("steps") or []
    refs = _refs(snap)
    a, b = _both(snap, lambda: parse_steps(steps_raw, snap, None, path.name), refs)
    _assert_same(a, b, path.name)
    raw = _extra_steps(snap, random.Random(path.name))
    extra = _safe_steps(snap, raw, seed=5)
    a, b = _both(snap, lambda: list(extra), refs, seed=5)
    _assert_same(a, b, f"{path.name} + {[s.describe() for s in extra]}")
    for policy in ("Parallel", "OrderedScheduled"):
        if snap.statefulsets:
            extra_p = _safe_steps(snap, raw, seed=5, pod_management=policy)
            a, b = _both(snap, lambda extra_p=extra_p: list(extra_p), refs, seed=5, pod_management=policy)
            _assert_same(a, b, f"{path.name} {policy}")


@pytest.fixture(scope="module")
def bench_clusters(tmp_path_factory):
    from bench import generate
    from planner.load import load_snapshot

    out = tmp_path_factory.mktemp("bench-replay")
    snaps = []
    for nodes, zones, seed in ((12, 3, 1), (9, 3, 4), (15, 6, 2)):
        paths = generate.generate(nodes, zones, seed, ["json"], out)
        snaps.append(load_snapshot([str(paths["json"])]))
    return snaps


@pytest.mark.parametrize("i", range(3))
def test_bench_clusters_replay_the_same(bench_clusters, i):
    snap = bench_clusters[i]
    web = parse_workload("deployment/bench/bench-web", None)
    sts = parse_workload("statefulset/bench/bench-sts", None)
    spec = snap.deployments[web.key].replicas
    refs = [web, sts]
    # the bench's own transition: scale bench-web by a lot (zone spread), pod by pod
    a, b = _both(snap, lambda: [Step("scale", {"ref": web, "workload": str(web), "replicas": spec + 40})], refs, seed=1)
    _assert_same(a, b, "scale bench-web")
    assert a["placements"] > 0
    # and mixed transitions
    for seed in range(3):
        extra = _safe_steps(snap, _extra_steps(snap, random.Random(seed)))
        steps = [Step("scale", {"ref": web, "workload": str(web), "replicas": spec + 10}), *extra]
        a, b = _both(snap, lambda s=steps: list(s), refs, seed=seed)
        _assert_same(a, b, str([s.describe() for s in steps]))


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_random_clusters_replay_the_same(sc):
    ref: WorkloadRef = sc.ref
    steps = [
        Step("scale", {"ref": ref, "workload": str(ref), "replicas": sc.replicas}),
        Step("rollout", {"ref": ref, "workload": str(ref), "image": "img:v2"}),
        Step("scale", {"ref": ref, "workload": str(ref), "replicas": max(sc.replicas - 2, 0)}),
    ]
    a, b = _both(sc.snapshot, lambda: list(steps), [ref], seed=1)
    _assert_same(a, b, repr(sc))


def test_a_waiting_rollout_moves_on_when_its_pod_is_placed():
    """Seed 004: the surge pod waits; evicting an old pod lets it in (a bind, not a controller
    action), and the Deployment, idle since, must take the rollout on."""
    from planner.load import load_snapshot

    snap = load_snapshot([str(SCENARIOS / "rollout-hostname-anti-affinity.yaml")])
    refs = _refs(snap)
    running = sorted(k for k, p in snap.pods.items() if p.spec.node_name)
    for key in running:
        a, b = _both(snap, lambda k=key: [Step("evict", {"pod": k})], refs, seed=2)
        _assert_same(a, b, key)
        assert any(e["type"] == "scaled" for e in a["steps"][-1]["events"]), a["steps"][-1]["events"]



def test_the_replay_index_is_not_left_on_the_snapshot():
    """After run, the snapshot is the caller's: controllers' lookups build a fresh index again."""
    from planner.controllers.deployment import rollout_complete
    from planner.controllers.informers import _INDEX_ATTR
    from planner.load import load_snapshot

    snap = load_snapshot([str(SCENARIOS / "rollout-hostname-anti-affinity-fixed.yaml")])
    ref = _refs(snap)[0]
    sim = Simulator(snap, seed=1)
    sim.run([Step("rollout", {"ref": ref, "workload": str(ref), "image": "x:2"})], [ref])
    assert _INDEX_ATTR not in sim.snap.__dict__
    assert rollout_complete(sim.snap, ref.key)


def test_kept_queue_is_the_scanned_queue(bench_clusters, monkeypatch):
    """Every pass, the queue kept as pods come and go lists the pods a scan of snap.pods finds,
    in the same order (priority, then snap.pods order)."""
    orig = Simulator._queue
    calls = []

    def checked(self):
        got = orig(self)
        if self.ctrl is not None:
            ctrl, self.ctrl = self.ctrl, None
            try:
                want = orig(self)
            finally:
                self.ctrl = ctrl
            assert [p.key for p in got] == [p.key for p in want]
            calls.append(len(got))
        return got

    monkeypatch.setattr(Simulator, "_queue", checked)
    snap = bench_clusters[0]
    web = parse_workload("deployment/bench/bench-web", None)
    for seed in range(3):
        steps = [Step("scale", {"ref": web, "workload": str(web), "replicas": 40}),
                 *_safe_steps(snap, _extra_steps(snap, random.Random(seed)))]
        Simulator(snap, seed=seed).run(steps, [web])
    assert sum(calls) > 0


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml"))[:8], ids=lambda p: p.name)
def test_final_is_the_last_steps_view(path):
    """The result's ``final`` (taken from the last step's record) equals Simulator.final computed
    afresh after the run, and shares no dict with the records."""
    from planner.load import load_snapshot

    snap = load_snapshot([str(path)])
    steps_raw = (snap.scenario or {}).get("steps") or []
    refs = _refs(snap)
    for incremental in (True, False):
        sim = Simulator(snap, seed=3, incremental=incremental)
        r = sim.run(parse_steps(steps_raw, snap, None, path.name), refs)
        assert r["final"] == sim.final(refs), path.name
        last = r["steps"][-1]
        assert r["final"]["pods"] == last["pods"] and r["final"]["zones"] == last["zones"]
        assert r["final"]["pods"] is not last["pods"]
        assert all(v is not last["pods"][k] for k, v in r["final"]["pods"].items())
        assert all(c is not last["zones"][k] for k, c in r["final"]["zones"].items())
        assert all(s["skew"] == {k: sim_skew(c) for k, c in s["zones"].items()} for s in r["steps"])


def sim_skew(counts):
    return (max(counts.values()) - min(counts.values())) if counts else 0
