"""PreFilterExtensions.AddPod for PodTopologySpread and InterPodAffinity: a state kept current pod by
pod equals the state PreFilter computes from scratch (the witness replay relies on it)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from planner.scheduler.binding import bind_pod
from planner.scheduler.plugins.interpodaffinity import filtering as ipa
from planner.scheduler.plugins.podtopologyspread import filtering as pts
from planner.scheduler.runtime import feasible_nodes
from tests.randomcluster import scenarios


def _pts_view(st):
    if not isinstance(st, pts.PreFilterState):
        return None
    return [(dict(c.counts), c.global_min) for c in st.constraints]


def _ipa_view(st):
    if not isinstance(st, ipa.PreFilterState):
        return None
    return (dict(st.affinity_counts), dict(st.anti_affinity_counts), dict(st.existing_anti_affinity_counts))


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_add_pod_equals_prefilter_from_scratch(sc):
    cluster, pods, _ = sc.problem()
    if not pods:
        return
    probe = pods[-1]
    s_pts, _ = pts.pre_filter(probe, cluster)
    s_ipa, _ = ipa.pre_filter(probe, cluster)
    for pod in pods[:-1]:
        nodes = feasible_nodes(pod, cluster) or [ni.name for ni in cluster.node_infos]
        bound = bind_pod(cluster, pod, nodes[0])
        node = cluster.by_name[nodes[0]].node
        pts.add_pod(s_pts, bound, probe, node)
        if ipa.add_pod_needs_prefilter(s_ipa, bound):
            s_ipa, _ = ipa.pre_filter(probe, cluster)
        else:
            ipa.add_pod(s_ipa, bound, probe, node, cluster)
        fresh_pts, _ = pts.pre_filter(probe, cluster)
        fresh_ipa, _ = ipa.pre_filter(probe, cluster)
        assert _pts_view(s_pts) == _pts_view(fresh_pts)
        assert _ipa_view(s_ipa) == _ipa_view(fresh_ipa)
