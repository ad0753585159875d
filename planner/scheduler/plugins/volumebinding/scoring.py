"""VolumeBinding, Score half: storage capacity scoring (KEP-4049, StorageCapacityScoring).

A port of kube-scheduler v1.37 (kubernetes/kubernetes):

* pkg/scheduler/framework/plugins/volumebinding/volume_binding.go -- ``PreScore`` (Skip without a
  scorer, else Success when the pod has a static binding on some node *or* StorageCapacityScoring
  is on) and ``Score`` (per node, the volumes Filter would bind there: with a static binding, per
  storage class the claims' requests against the chosen PVs' capacities; without one, per class the
  dynamically provisioned claims' requests against the node's CSIStorageCapacity; no
  ScoreExtensions);
* pkg/scheduler/framework/plugins/volumebinding/scorer.go -- ``buildScorerFunction``: a class
  scores ``shape(requested * 100 / capacity)`` (``shape(100)`` when the capacity is 0 or smaller
  than the request), the node the rounded mean over its classes (``math.Round``), 0 without a class;
* pkg/scheduler/framework/plugins/helper/shape_score.go -- ``BuildBrokenLinearFunction`` (Go's
  integer division, truncating towards zero);
* pkg/scheduler/apis/config/v1/defaults.go ``SetDefaults_VolumeBindingArgs`` -- with the
  StorageCapacityScoring gate on, the default shape is ``{utilization 0: score 10, utilization
  100: score 0}`` (each point's score times MaxNodeScore / MaxCustomPriorityScore = 10 in New):
  ``score = 100 - utilization``, the node whose volumes would be least utilised wins (the
  "prefer most free capacity" default of kubernetes#128184);
* pkg/features (StorageCapacityScoring: alpha v1.33, beta and on by default in v1.37,
  kubernetes/enhancements#6026) and apis/config/v1/default_plugins.go (VolumeBinding is in the
  MultiPoint list without a weight: the framework's default weight, 1).

What planner computes
---------------------
* A pod whose unbound WaitForFirstConsumer claims bind static PVs on a node: per storage class of
  the chosen PVs, the claims' requests and the PVs' capacities summed (BindingInfo.StorageResource;
  the PV is the one Filter's findMatchingVolumes picks, the smallest fit), scored by the default
  shape.  Two nodes with local PVs of 10Gi and 100Gi for a 5Gi claim score 50 and 95.
* Dynamic provisioning: upstream reads the node's capacity from CSIStorageCapacity objects
  (PodVolumes.DynamicProvisions[].NodeCapacity); planner does not read them, so NodeCapacity is
  unknown, and upstream skips such a provision (``if provision.NodeCapacity == nil { continue }``):
  a node without static bindings has no class and scores 0, as upstream does for a driver that
  publishes no capacity.
* A node Filter rejects has no PodVolumes upstream and scores 0 (only reachable when a caller
  scores infeasible nodes).

Where upstream's PreScore returns Success but every node would score 0 (no PVC, only bound
claims, only selected-node or provisioned claims, or no static PV candidate at all), ``pre_score``
returns SKIP: the plugin adds 0 either way, and the replay does not look for volumes per node.
There is no vectorised kernel: the score phase runs this reference implementation (it only does
per-node work for pods with static PV candidates).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from planner.domain import Pod
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo
from planner.scheduler.plugins.helper import shape_score
from planner.scheduler.plugins.volumebinding import filtering as volumebinding
from planner.scheduler.plugins.volumebinding.filtering import VolumeBindingState, find_pod_volumes

NAME = volumebinding.NAME

# volume_binding.go maxUtilization, framework.MaxNodeScore, config.MaxCustomPriorityScore
MAX_UTILIZATION = shape_score.MAX_UTILIZATION
MAX_NODE_SCORE = shape_score.MAX_NODE_SCORE
MAX_CUSTOM_PRIORITY_SCORE = shape_score.MAX_CUSTOM_PRIORITY_SCORE
# helper.BuildBrokenLinearFunction and the Go arithmetic, shared with NodeResourcesFit
function_shape = shape_score.function_shape
broken_linear = shape_score.broken_linear
_go_div = shape_score.go_div
_go_round = shape_score.go_round

# defaults.go SetDefaults_VolumeBindingArgs (StorageCapacityScoring on): (utilization, score) points
# in the config's 0..10 score range.
DEFAULT_SHAPE_POINTS: tuple[tuple[int, int], ...] = ((0, MAX_CUSTOM_PRIORITY_SCORE), (MAX_UTILIZATION, 0))

# (requested bytes, capacity bytes) per storage class (scorer.go classResourceMap)
ClassResources = Mapping[str, tuple[int, int]]


def build_scorer(shape: Sequence[tuple[int, int]]) -> Callable[[ClassResources], int]:
    """scorer.go buildScorerFunction (``shape`` already scaled, see function_shape)."""
    raw = broken_linear(shape)

    def class_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(_go_div(requested * MAX_UTILIZATION, capacity))

    def scorer(classes: ClassResources) -> int:
        if not classes:
            return 0
        total = sum(class_score(r, c) for r, c in classes.values())
        return _go_round(total / len(classes))

    return scorer


DEFAULT_SCORER = build_scorer(function_shape(DEFAULT_SHAPE_POINTS))


@dataclass(frozen=True, slots=True)
class ScoreState:
    volumes: VolumeBindingState  # the PreFilter state Score's FindPodVolumes runs on
    scorer: Callable[[ClassResources], int]


def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> object:
    """PreScore with the default args: the pod's VolumeBinding PreFilter state, or SKIP when no
    node can score above 0."""
    return pre_score_with_shape(pod, cluster, None)


def pre_score_with_shape(pod: Pod, cluster: ClusterState, shape: Sequence[tuple[int, int]] | None) -> object:
    """PreScore with VolumeBindingArgs.shape ``shape`` (points with 0..10 scores; None: default)."""
    state, status = volumebinding.pre_filter(pod, cluster)
    if status is not None or not isinstance(state, VolumeBindingState):
        return SKIP
    if not any(u.prebound or u.candidates for u in state.to_match):
        return SKIP  # no static binding anywhere: every node scores 0 (see the module docstring)
    scorer = DEFAULT_SCORER if shape is None else build_scorer(function_shape(shape))
    return ScoreState(state, scorer)


def class_resources(state: VolumeBindingState, node_info: NodeInfo) -> dict[str, tuple[int, int]] | None:
    """Score's classResourceMap for one node; None when Filter rejects the node (no PodVolumes)."""
    vols, reasons = find_pod_volumes(state, node_info.node)
    if reasons:
        return None
    classes: dict[str, tuple[int, int]] = {}
    # static bindings (StorageClassName is the PV's class, StorageResource the claim's request and
    # the PV's capacity); without any, dynamic provisions, whose NodeCapacity planner never knows.
    for pvc, pv in vols.static_bindings:
        r, c = classes.get(pv.storage_class, (0, 0))
        classes[pv.storage_class] = (r + pvc.request, c + pv.capacity)
    return classes


def score(state: ScoreState, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    out = []
    for ni in nodes:
        classes = class_resources(state.volumes, ni)
        out.append(0 if classes is None else state.scorer(classes))
    return out


__all__ = [
    "DEFAULT_SCORER",
    "DEFAULT_SHAPE_POINTS",
    "NAME",
    "ScoreState",
    "broken_linear",
    "build_scorer",
    "class_resources",
    "function_shape",
    "pre_score",
    "pre_score_with_shape",
    "score",
]
