"""check and capacity under --scheduler-config: the profile's filters decide feasibility.

A filter plugin the profile disables drops its constraints from the CP-SAT problem and from the
witness replay; PodTopologySpread's List default constraints with whenUnsatisfiable
DoNotSchedule are the constraints of pods without their own (plugin.go buildDefaultConstraints).
Every verdict is held equal to the replay (simulate) under the same configuration."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from models.solve import SolveOptions
from planner.engines.capacity import capacity
from planner.engines.check import check_replicas
from planner.engines.replay import Simulator, Step
from planner.engines.workloads import parse_workload
from planner.load import load_snapshot
from planner.scheduler.config import SchedulerConfig, parse_config


def _cfg(profile: dict) -> SchedulerConfig:
    return parse_config({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                         "profiles": [profile]}, "sched.yaml")


DISABLE_SPREAD = _cfg({"plugins": {"filter": {"disabled": [{"name": "PodTopologySpread"}]}}})
DISABLE_AFFINITY = _cfg({"plugins": {"filter": {"disabled": [{"name": "InterPodAffinity"}]}}})
DISABLE_FIT = _cfg({"plugins": {"filter": {"disabled": [{"name": "NodeResourcesFit"}]}}})
HOSTNAME_DEFAULT = _cfg({"pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": [
    {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule"}]}}]})
HOSTNAME_DEFAULT_SOFT = _cfg({"pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": [
    {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}]}}]})


def _scenario(tmp_path: Path, name: str, pools: list, template_extra: dict, pods: list) -> Path:
    doc = {
        "apiVersion": "planner.dev/v1alpha1", "kind": "Scenario", "metadata": {"name": name},
        "zones": ["zone-a", "zone-b"], "nodePools": pools,
        "objects": [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
            "replicas": len(pods), "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                "containers": [{"name": "web", "image": "web:1", "resources": {"requests": {"cpu": "1"}}}], **template_extra}}}}],
        "pods": pods,
    }
    p = tmp_path / f"{name}.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


SPREAD = {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                         "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]}
ANTI = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}}}]}}}


def _spread_cluster(tmp_path: Path) -> Path:
    # zone-a has room for 8 more pods, zone-b's node is full: a 4th replica makes zone-a 3, zone-b 1
    return _scenario(tmp_path, "spread", [
        {"name": "a", "zones": ["zone-a"], "capacity": {"cpu": "10", "memory": "16Gi", "pods": "110"}},
        {"name": "b", "zones": ["zone-b"], "capacity": {"cpu": "1", "memory": "16Gi", "pods": "110"}},
    ], SPREAD, [{"workload": "deployment/web", "zone": "zone-a"}, {"workload": "deployment/web", "zone": "zone-b"}])


def _anti_cluster(tmp_path: Path) -> Path:
    return _scenario(tmp_path, "anti", [{"name": "n", "zones": ["zone-a"], "count": 2, "capacity": {"cpu": "8", "memory": "16Gi", "pods": "110"}}],
                     ANTI, [{"workload": "deployment/web", "zone": "zone-a"}])


def _packed_cluster(tmp_path: Path) -> Path:
    # no constraints of its own; node a-0 has room for 3, b-0 for 1
    return _scenario(tmp_path, "packed", [
        {"name": "a", "zones": ["zone-a"], "capacity": {"cpu": "3", "memory": "16Gi", "pods": "110"}},
        {"name": "b", "zones": ["zone-b"], "capacity": {"cpu": "1", "memory": "16Gi", "pods": "110"}},
    ], {}, [])


def _replay_reaches(path: Path, n: int, config: SchedulerConfig | None) -> bool:
    snap = load_snapshot([str(path)])
    ref = parse_workload("deployment/web", None)
    sim = Simulator(snap, seed=1, scheduler_config=config)
    return bool(sim.run([Step("scale", {"ref": ref, "workload": str(ref), "replicas": n})], [ref])["completed"])


def _check(path: Path, n: int, config: SchedulerConfig | None):
    snap = load_snapshot([str(path)])
    return check_replicas(snap, [parse_workload("deployment/web", None)], n, None, None if config is None else config.main)


@pytest.mark.parametrize(
    "cluster, n, config, default_verdict, verdict",
    [
        # PodTopologySpread disabled: the zone skew no longer binds (4 replicas: 3 in zone-a, 1 in zone-b)
        (_spread_cluster, 4, DISABLE_SPREAD, False, True),
        # InterPodAffinity disabled: hostname anti-affinity no longer keeps a 3rd pod off 2 nodes
        (_anti_cluster, 3, DISABLE_AFFINITY, False, True),
        # NodeResourcesFit disabled: no room is counted at all
        (_packed_cluster, 6, DISABLE_FIT, False, True),
        # a List DoNotSchedule hostname default: 4 pods on nodes with room 3 and 1 would skew 3 - 1 = 2
        (_packed_cluster, 4, HOSTNAME_DEFAULT, True, False),
        (_packed_cluster, 3, HOSTNAME_DEFAULT, True, True),
        # the same default as ScheduleAnyway only scores: feasibility is the default profile's
        (_packed_cluster, 4, HOSTNAME_DEFAULT_SOFT, True, True),
    ],
)
def test_profile_filters_decide_and_agree_with_the_replay(tmp_path, cluster, n, config, default_verdict, verdict):
    path = cluster(tmp_path)
    plain = _check(path, n, None)
    assert plain.schedulable is default_verdict, plain.explanation
    assert _replay_reaches(path, n, None) is default_verdict
    out = _check(path, n, config)
    assert out.schedulable is verdict, out.explanation
    assert _replay_reaches(path, n, config) is verdict
    if not verdict:
        assert any(e["constraint"] == "PodTopologySpread" for e in out.explanation), out.explanation


def test_capacity_follows_the_profile(tmp_path):
    path = _spread_cluster(tmp_path)
    snap = load_snapshot([str(path)])
    ref = parse_workload("deployment/web", None)
    plain = capacity(snap, ref, (2, 6), False, False, SolveOptions())
    assert plain["max_replicas"] == 3
    relaxed = capacity(snap, ref, (2, 6), False, False, SolveOptions(), profile=DISABLE_SPREAD.main)
    assert relaxed["max_replicas"] == 6 and all(r["schedulable"] for r in relaxed["replicas"])
