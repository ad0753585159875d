"""planner.scheduler.queueing: which pods binding other pods can help, and the replay keeping a
pod it cannot help aside (the incremental replay; the full replay, which tries every Pending pod
in every pass, is the reference tests/engines/test_replay_incremental.py holds it equal to)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from planner.domain import Affinity, PodAffinityTerm, PodVolume, TopologySpreadConstraint
from planner.engines.replay import Simulator, Step
from planner.engines.workloads import parse_workload
from planner.load import load_snapshot
from planner.scheduler import fastfilter
from planner.scheduler.queueing import pod_add_may_help
from planner.scheduler.registry import DEFAULT_PROFILE
from tests.builders import pod, sel, spread

SCENARIO = """\
apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {name: pending-aside}
nodePools:
- {name: pool, count: 4, capacity: {cpu: "2", memory: 8Gi, pods: "110"}}
objects:
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db}
  spec:
    replicas: 1
    serviceName: db
    selector: {matchLabels: {app: db}}
    template:
      metadata: {labels: {app: db}}
      spec:
        containers: [{name: c, image: "db:1", resources: {requests: {cpu: 100m}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: huge, namespace: batch}
  spec:
    containers: [{name: c, image: job, resources: {requests: {cpu: "64"}}}]
  status: {phase: Pending}
- {apiVersion: v1, kind: Namespace, metadata: {name: batch}}
pods:
- {workload: statefulset/db, ordinals: [0]}
"""


def test_the_rule() -> None:
    plain = pod("p", {"app": "a"}, cpu=100)
    assert not pod_add_may_help(plain, DEFAULT_PROFILE)
    soft = pod("p", {"app": "a"}, spread=[spread(when="ScheduleAnyway", selector=sel({"app": "a"}))])
    assert not pod_add_may_help(soft, DEFAULT_PROFILE)
    hard = pod("p", {"app": "a"}, spread=[spread(selector=sel({"app": "a"}))])
    assert pod_add_may_help(hard, DEFAULT_PROFILE)
    anti = replace(plain, spec=replace(plain.spec, affinity=Affinity(pod_anti_affinity_required=(PodAffinityTerm(sel({"app": "a"}), "kubernetes.io/hostname"),))))
    assert not pod_add_may_help(anti, DEFAULT_PROFILE)
    aff = replace(plain, spec=replace(plain.spec, affinity=Affinity(pod_affinity_required=(PodAffinityTerm(sel({"app": "b"}), "kubernetes.io/hostname"),))))
    assert pod_add_may_help(aff, DEFAULT_PROFILE)
    vol = replace(plain, spec=replace(plain.spec, volumes=(PodVolume("data", "data-p"),)))
    assert pod_add_may_help(vol, DEFAULT_PROFILE)
    listed = replace(DEFAULT_PROFILE, spread_defaulting="List", spread_defaults=(TopologySpreadConstraint(1, "topology.kubernetes.io/zone", "DoNotSchedule", None),))
    assert pod_add_may_help(plain, listed)


@pytest.mark.parametrize("incremental", [True, False])
def test_a_pod_no_bind_can_help_is_filtered_once(tmp_path, monkeypatch, incremental: bool) -> None:
    """A StatefulSet scaled by one pod at a time (OrderedReady: a pass per pod) beside a Pending
    pod no node can take: the incremental replay filters that pod once, the full replay in every
    pass."""
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO)
    snap = load_snapshot([str(f)])
    tried: list[str] = []
    orig = fastfilter.FastFilter.feasible_positions

    def spy(self, p):
        tried.append(p.key)
        return orig(self, p)

    monkeypatch.setattr(fastfilter.FastFilter, "feasible_positions", spy)
    ref = parse_workload("statefulset/db", None)
    out = Simulator(snap, seed=1, incremental=incremental).run([Step("scale", {"ref": ref, "workload": str(ref), "replicas": 6})], [ref])
    assert out["placements"] == 6  # db-0 as the scenario places it, then db-1..db-5
    assert [p["pod"] for p in out["pending_elsewhere"]] == ["batch/huge"]
    if incremental:
        assert tried.count("batch/huge") == 1, tried
    else:  # once in every pass: the set's pods come one per pass
        assert tried.count("batch/huge") > 6, tried
