"""The plugin registry: the default profile's plugins in upstream's order, each satisfying its
interface (pkg/scheduler/apis/config/v1/default_plugins.go, framework/interface.go)."""

from __future__ import annotations

import inspect

from planner.scheduler import registry, runtime, scoring

# default_plugins.go getDefaultPlugins (v1.37), MultiPoint order then applyFeatureGates
# (NodeDeclaredFeatures appended: its gate is on by default since v1.36, GA in v1.37), without the
# plugins planner does not model (SchedulingGates, PrioritySort, VolumeRestrictions,
# NodeVolumeLimits, DynamicResources, DefaultPreemption, DefaultBinder): their Filter order ...
UPSTREAM_FILTERS = (
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
    "NodeDeclaredFeatures",
)
# ... and the score plugins with their weights (VolumeBinding has none in the list: the
# framework's default, 1; it scores since StorageCapacityScoring is on by default, v1.37).
UPSTREAM_SCORES = (
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodeResourcesFit", 1),
    ("VolumeBinding", 1),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
)


def test_filter_order_is_the_default_profile():
    assert tuple(p.NAME for p in registry.FILTER_PLUGINS) == UPSTREAM_FILTERS
    assert [p.NAME for p in runtime.filter_plugins()] == list(UPSTREAM_FILTERS)


def test_score_plugins_and_weights_are_the_default_profile():
    assert tuple((p.name, p.weight) for p in registry.SCORE_PLUGINS) == UPSTREAM_SCORES
    assert scoring.PLUGIN_WEIGHTS == dict(UPSTREAM_SCORES)


def test_filter_plugins_satisfy_the_protocol():
    for p in registry.FILTER_PLUGINS:
        assert isinstance(p.NAME, str)
        assert list(inspect.signature(p.pre_filter).parameters) == ["pod", "cluster"], p.NAME
        assert list(inspect.signature(p.filter).parameters) == ["state", "pod", "node_info"], p.NAME


def test_score_plugins_satisfy_the_protocol():
    for p in registry.SCORE_PLUGINS:
        assert list(inspect.signature(p.pre_score).parameters) == ["pod", "cluster", "nodes"], p.name
        assert list(inspect.signature(p.score).parameters) == ["state", "pod", "nodes"], p.name
        if p.normalize is not None:
            n = len(inspect.signature(p.normalize).parameters)
            assert n == (3 if p.normalize_takes_nodes else 2), p.name
        if p.kernel is not None:
            assert list(inspect.signature(p.kernel).parameters) == ["arr", "idx", "pod"], p.name
