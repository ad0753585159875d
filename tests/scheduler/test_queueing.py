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
    assert pod_add_may_help(plain, listed, [])


def test_the_pods_bound_since() -> None:
    """Given the pods bound since, a DoNotSchedule constraint counts only for a bound pod of the
    pod's namespace that its selector matches (podtopologyspread isSchedulableAfterPodChange);
    the other reasons stand whatever was bound."""
    hard = pod("p", {"app": "a"}, spread=[spread(selector=sel({"app": "a"})), spread(when="ScheduleAnyway", selector=sel({"app": "b"}))])
    assert not pod_add_may_help(hard, DEFAULT_PROFILE, [])
    assert not pod_add_may_help(hard, DEFAULT_PROFILE, [pod("x", {"app": "b"}, node_name="n1")])  # the soft one's selector
    assert not pod_add_may_help(hard, DEFAULT_PROFILE, [pod("x", {"app": "a"}, node_name="n1", namespace="other")])
    assert not pod_add_may_help(hard, DEFAULT_PROFILE, [pod("x", {"app": "a"})])  # not bound
    assert pod_add_may_help(hard, DEFAULT_PROFILE, [pod("y", {"app": "c"}, node_name="n1"), pod("x", {"app": "a"}, node_name="n2")])
    vol = replace(hard, spec=replace(hard.spec, volumes=(PodVolume("data", "data-p"),)))
    assert pod_add_may_help(vol, DEFAULT_PROFILE, [])
    aff = replace(hard, spec=replace(hard.spec, affinity=Affinity(pod_affinity_required=(PodAffinityTerm(sel({"app": "b"}), "kubernetes.io/hostname"),))))
    assert pod_add_may_help(aff, DEFAULT_PROFILE, [])


def _tries(monkeypatch) -> list[str]:
    """The pods the replay's fast filter is asked about, in order."""
    tried: list[str] = []
    orig = fastfilter.FastFilter.feasible_positions

    def spy(self, p):
        tried.append(p.key)
        return orig(self, p)

    monkeypatch.setattr(fastfilter.FastFilter, "feasible_positions", spy)
    return tried


def _scale_db(path: str, incremental: bool) -> dict:
    """The scenario's StatefulSet scaled to six pods, replayed."""
    ref = parse_workload("statefulset/db", None)
    return Simulator(load_snapshot([path]), seed=1, incremental=incremental).run([Step("scale", {"ref": ref, "workload": str(ref), "replicas": 6})], [ref])


@pytest.mark.parametrize("incremental", [True, False])
def test_a_pod_no_bind_can_help_is_filtered_once(tmp_path, monkeypatch, incremental: bool) -> None:
    """A StatefulSet scaled by one pod at a time (OrderedReady: a pass per pod) beside a Pending
    pod no node can take: the incremental replay filters that pod once, the full replay in every
    pass."""
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO)
    tried = _tries(monkeypatch)
    out = _scale_db(str(f), incremental)
    assert out["placements"] == 6  # db-0 as the scenario places it, then db-1..db-5
    assert [p["pod"] for p in out["pending_elsewhere"]] == ["batch/huge"]
    if incremental:
        assert tried.count("batch/huge") == 1, tried
    else:  # once in every pass: the set's pods come one per pass
        assert tried.count("batch/huge") > 6, tried


@pytest.mark.parametrize("selects, once", [("huge", True), ("db", False)])
def test_a_spread_pod_is_tried_again_only_for_pods_its_selector_matches(tmp_path, monkeypatch, selects: str, once: bool) -> None:
    """The Pending pod has a DoNotSchedule zone spread: the set's pods, bound one per pass, are
    tried again for it only when its constraint's selector matches them; the replay's events are
    the full replay's either way."""
    huge = (
        "- apiVersion: v1\n  kind: Pod\n  metadata: {name: huge, labels: {app: huge}}\n  spec:\n"
        "    containers: [{name: c, image: job, resources: {requests: {cpu: \"64\"}}}]\n"
        f"    topologySpreadConstraints: [{{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{app: {selects}}}}}}}]\n"
        "  status: {phase: Pending}\n"
    )
    text = SCENARIO.replace(SCENARIO[SCENARIO.index("- apiVersion: v1\n  kind: Pod"):SCENARIO.index("- {apiVersion: v1, kind: Namespace")], huge)
    f = tmp_path / "s.yaml"
    f.write_text(text)
    tried = _tries(monkeypatch)
    runs = {}
    for incremental in (True, False):
        tried.clear()
        out = _scale_db(str(f), incremental)
        assert [p["pod"] for p in out["pending_elsewhere"]] == ["default/huge"]
        runs[incremental] = ([r["events"] for r in out["steps"]], tried.count("default/huge"))
    assert runs[True][0] == runs[False][0]
    assert runs[False][1] > 6
    # the first try, then (db) once after each of the five pods bound
    assert (runs[True][1] == 1) if once else (runs[True][1] >= 6)
