"""check and capacity with DefaultPreemption: the workload's pods may evict running pods of a
strictly lower priority (plugins/defaultpreemption; models/defaultpreemption.py).

* against a brute force on small random clusters: for every set of candidate victims (on nodes
  that then receive a new pod), the victims removed first and the new pods bound one at a time
  through every filter plugin; check's verdict must equal "some set works", a schedulable
  answer's placement must replay through the filters with its victims gone, and its victims must
  be as few as the brute force's fewest (PodDisruptionBudget violations first);
* against the replay (simulate): a count check proves unschedulable never completes there, and
  a replay that completes is one check accepts.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from planner.controllers.disruption import preemption_pdbs
from planner.domain import (
    LABEL_HOSTNAME,
    Affinity,
    HostPort,
    OwnerRef,
    Pod,
    PodAffinityTerm,
    PodDisruptionBudget,
    PodSpec,
)
from planner.engines.check import check_replicas
from planner.engines.replay import Simulator, Step
from planner.engines.workloads import owned_by
from planner.errors import UnknownResult
from planner.scheduler.binding import bind_pod
from planner.scheduler.plugins.defaultpreemption.preemption import victims_of
from planner.scheduler.runtime import feasible_nodes
from tests.builders import sel
from tests.randomcluster import SEL_APP, Scenario, scenarios

SLOW = pytest.mark.slow  # differential: checked against a brute force / the replay

HIGH = 1000
UNKNOWN: list[str] = []


@st.composite
def preemption_scenarios(draw) -> Scenario:
    """A random Deployment scenario whose template has priority 1000, with 1-4 batch pods of
    priority 0, 500 or 2000 (some holding the workload's host port, some counted by its spread
    selector, some under a budget); the cache pods (priority 0) may be evicted too."""
    sc = draw(scenarios(kinds=("Deployment",)))
    snap = sc.snapshot.copy()
    ports = draw(st.booleans()) and _rare(draw)
    for key, dep in list(snap.deployments.items()):
        spec = replace(dep.template.spec, priority=HIGH, priority_set=True, preemption_policy="PreemptLowerPriority",
                       host_ports=(HostPort(8080),) if ports else ())
        snap.deployments[key] = replace(dep, template=replace(dep.template, spec=spec))
    for key, rs in list(snap.replicasets.items()):
        spec = replace(rs.template.spec, priority=HIGH, priority_set=True, preemption_policy="PreemptLowerPriority",
                       host_ports=(HostPort(8080),) if ports else ())
        snap.replicasets[key] = replace(rs, template=replace(rs.template, spec=spec))
    for key, p in list(snap.pods.items()):
        if p.labels.get("app") == "web":
            snap.pods[key] = replace(p, spec=replace(p.spec, priority=HIGH, priority_set=True,
                                                     host_ports=(HostPort(8080),) if ports else ()))
    nodes = list(snap.nodes)
    for i in range(draw(st.integers(1, 4))):
        node = draw(st.sampled_from(nodes))
        cpu = draw(st.sampled_from((0, 500, 1000, 2000)))
        prio = draw(st.sampled_from((0, 0, 500, 2000)))
        labels = {"app": draw(st.sampled_from(("batch", "batch", "web"))), "tier": "batch"}
        aff = Affinity(pod_anti_affinity_required=(PodAffinityTerm(SEL_APP, LABEL_HOSTNAME),)) if _rare(draw) else None
        spec = PodSpec(node_name=node, requests={"cpu": cpu} if cpu else {}, priority=prio, priority_set=True, affinity=aff,
                       host_ports=(HostPort(8080),) if ports and draw(st.booleans()) else ())
        p = Pod("default", f"batch-{i}", labels, spec, phase="Running", owner=OwnerRef("ReplicaSet", "batch-rs"),
                start_time=f"2024-01-01T00:0{i}:00Z")
        snap.pods[p.key] = p
    if draw(st.booleans()):
        b = PodDisruptionBudget("default", "batch", sel({"tier": "batch"}), min_available=draw(st.integers(0, 3)))
        snap.pdbs[b.key] = b
    return Scenario(snap, sc.ref, sc.replicas)


def _rare(draw) -> bool:
    return draw(st.integers(0, 2)) == 2


def _brute(sc: Scenario) -> tuple[bool, tuple[int, int] | None]:
    """(feasible, the fewest (budget violations, victims)) over every set of candidate victims."""
    cluster, pods, _ = sc.problem()
    assume(len(pods) <= 4 and len(cluster.node_infos) <= 4)
    keep = {p.key for p in sc.plan().keep}
    cands = [q for ni in cluster.node_infos for q in victims_of(pods[0].spec, ni.pods) if q.key not in keep]
    assume(len(cands) <= 6)
    pdbs = preemption_pdbs(sc.snapshot)
    best: tuple[int, int] | None = None
    for k in range(len(cands) + 1):
        for vs in itertools.combinations(cands, k):
            viol = 0
            for b in pdbs:
                n = sum(1 for v in vs if v.namespace == b.namespace and b.selector is not None and not b.selector.empty and b.selector.matches(v.labels))
                viol += max(0, n - max(b.disruptions_allowed, 0))
            cost = (viol, k)
            if best is not None and cost >= best:
                continue
            base = cluster.clone()
            for v in vs:
                base.own(v.spec.node_name).remove_pod(v)
            if _dfs(base, pods, 0, {v.spec.node_name for v in vs}, set()):
                best = cost
    return best is not None, best


def _dfs(cluster, pods: list[Pod], i: int, need: set[str], used: set[str]) -> bool:
    if i == len(pods):
        return need <= used
    for n in feasible_nodes(pods[i], cluster):
        c = cluster.clone()
        bind_pod(c, pods[i], n)
        if _dfs(c, pods, i + 1, need, used | {n}):
            return True
    return False


@SLOW
@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(preemption_scenarios())
def test_preempting_check_agrees_with_brute_force(sc):
    feasible, best = _brute(sc)
    try:
        out = check_replicas(sc.snapshot, [sc.ref], sc.replicas)
    except UnknownResult:
        UNKNOWN.append(repr(sc))
        return
    assert out.schedulable == feasible, (out.explanation, best)
    if not out.schedulable:
        assert out.explanation
        return
    cluster, pods, _ = sc.problem()
    gone = {f"{v['namespace']}/{v['name']}" for v in out.preempted}
    for ni in cluster.node_infos:
        for q in list(ni.pods):
            if q.key in gone:
                assert q.spec.priority < HIGH  # a victim has a strictly lower priority
                cluster.own(ni.name).remove_pod(q)
    by_key = {p.key: p for p in pods}
    assert sorted(out.placement) == sorted(by_key)
    used = set()
    for k, n in out.placement.items():  # the witness: every filter, pod by pod, victims gone
        assert n in feasible_nodes(by_key[k], cluster), (k, n)
        bind_pod(cluster, by_key[k], n)
        used.add(n)
    assert {v["node"] for v in out.preempted} <= used  # victims only where a preemptor lands
    pdbs = preemption_pdbs(sc.snapshot)
    viol = 0
    for b in pdbs:
        n = sum(1 for v in out.preempted if b.selector is not None and not b.selector.empty
                and b.selector.matches(sc.snapshot.pods[f"{v['namespace']}/{v['name']}"].labels))
        viol += max(0, n - max(b.disruptions_allowed, 0))
    if out.stats.get("fewest_victims_proven", True):
        assert (viol, len(out.preempted)) == best, (out.preempted, best, repr(sc), out.placement)


@SLOW
def test_unknowns_are_rare():
    assert len(UNKNOWN) <= 5, UNKNOWN


@SLOW
@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(preemption_scenarios())
def test_replay_never_beats_a_preempting_proof(sc):
    answered = sc.verdict_and_replay()
    if answered is None:  # check answered unknown
        return
    verdict, sim, result = answered
    if not verdict.schedulable:
        assert not result["completed"], (verdict.explanation, result["steps"][-1])
    if result["completed"]:
        assert verdict.schedulable, result["steps"][-1]
    # preempted pods recreated by their controllers may wait (the replay is then not "completed"):
    # whether the workload itself reached N is what check answers
    mine = [p for p in sim.snap.pods.values() if owned_by(sim.snap, p, sc.ref)]
    reached = sum(1 for p in mine if p.spec.node_name) == sc.replicas and not any(s["pod"] in {p.key for p in mine} for s in result["stuck"])
    if not verdict.schedulable:
        assert not reached
    if reached:
        assert verdict.schedulable


SCENARIO_QUESTIONS = [
    ("preemption.yaml", "deployment/web", 1),
    ("preemption.yaml", "deployment/web", 2),
    ("preemption.yaml", "deployment/web", 3),
    ("preemption-never.yaml", "deployment/web", 1),
    ("production-cluster.yaml", "deployment/shop/web", 7),
    ("production-cluster.yaml", "deployment/shop/web", 12),
    ("production-cluster.yaml", "deployment/shop/web", 18),
    ("production-cluster.yaml", "deployment/shop/web", 19),
    ("production-cluster.yaml", "deployment/batch/report", 7),
]


@pytest.mark.parametrize("name,workload,n", SCENARIO_QUESTIONS)
def test_check_preempts_iff_the_replay_reaches_n(name: str, workload: str, n: int):
    """The preemption scenarios: check says schedulable (with victims where it needs them) iff the
    replay brings the workload to N pods, preempting iff check does."""
    from planner.engines.workloads import parse_workload
    from planner.load import load_snapshot
    from tests.conftest import SCENARIOS

    path = str(SCENARIOS / name)
    ref = parse_workload(workload, None)
    out = check_replicas(load_snapshot([path]), [ref], n)
    sim = Simulator(load_snapshot([path]), seed=0)
    res = sim.run([Step("scale", {"ref": ref, "workload": str(ref), "replicas": n})], [ref])
    mine = [p for p in sim.snap.pods.values() if owned_by(sim.snap, p, ref)]
    reached = sum(1 for p in mine if p.spec.node_name) == n and not any(s["pod"] in {p.key for p in mine} for s in res["stuck"])
    assert out.schedulable == reached, (out.explanation, res["stuck"])
    if out.schedulable:
        replay_preempted = sum(1 for st in res["steps"] for e in st["events"] if e["type"] == "preempted")
        assert bool(out.preempted) == (replay_preempted > 0)
        assert out.preemption_exact is not False


@pytest.mark.parametrize("name,workload,n", [q for q in SCENARIO_QUESTIONS if q[0] != "preemption-never.yaml"])
def test_verdict_alone_skips_the_preempting_explanation(name: str, workload: str, n: int, monkeypatch):
    """explain=False (remediate's search for the nearest count): the same verdict, and an
    unschedulable one with preemption considered is not explained (no core is minimised)."""
    import planner.engines.check as check
    from planner.engines.workloads import parse_workload
    from planner.load import load_snapshot
    from tests.conftest import SCENARIOS

    ref = parse_workload(workload, None)
    full = check_replicas(load_snapshot([str(SCENARIOS / name)]), [ref], n)

    def refuse(*a, **k):
        raise AssertionError("minimise_core called for a verdict alone")

    monkeypatch.setattr(check, "minimise_core", refuse)
    alone = check_replicas(load_snapshot([str(SCENARIOS / name)]), [ref], n, explain=False)
    assert alone.schedulable == full.schedulable
    assert not alone.explanation
    if not full.schedulable:
        assert full.explanation
