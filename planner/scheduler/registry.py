"""The default profile's plugins, in upstream's order, and the typed interfaces they satisfy.

Upstream: pkg/scheduler/apis/config/v1/default_plugins.go (getDefaultPlugins: the MultiPoint list
and the score weights) and pkg/scheduler/framework/interface.go (PreFilterPlugin, FilterPlugin,
PreScorePlugin, ScorePlugin, ScoreExtensions).

Kubernetes v1.37: the MultiPoint list, then ``applyFeatureGates`` (NodeDeclaredFeatures appended,
its gate on by default since v1.36 and locked on in v1.37; DynamicResources before
DefaultPreemption, not modelled).

* ``FILTER_PLUGINS``: the filter plugins in the default profile's filter order -- NodeUnschedulable,
  NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, VolumeRestrictions,
  NodeVolumeLimits (its CSI limits), VolumeBinding, VolumeZone, PodTopologySpread,
  InterPodAffinity, (DynamicResources: not modelled), NodeDeclaredFeatures.  Each is a module
  satisfying ``FilterPlugin`` (mypy checks it).
* ``SCORE_PLUGINS``: the score plugins in profile order with their weights -- TaintToleration 3,
  NodeAffinity 2, NodeResourcesFit 1, VolumeBinding 1 (no weight in the list: the framework's
  default, 1; it scores since StorageCapacityScoring went on by default in v1.37),
  PodTopologySpread 2, InterPodAffinity 2, NodeResourcesBalancedAllocation 1, ImageLocality 1 --
  each a ``ScorePlugin`` with the reference PreScore/Score/NormalizeScore and, for the hot ones,
  the vectorised kernel (planner/scheduler/plugins/<plugin>/kernels.py) that
  planner.scheduler.scoring runs instead.
* ``POST_FILTER_PLUGINS``: DefaultPreemption (plugins/defaultpreemption/), a ``PostFilterPlugin``.
* ``Profile`` / ``DEFAULT_PROFILE``: a scheduling profile (filters, score plugins with weights,
  NodeResourcesFit's strategy, PodTopologySpread's defaults); the default one is the lists above,
  the others come from --scheduler-config (planner.scheduler.config).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from planner.domain import Pod
from planner.scheduler.framework import ClusterState, NodeInfo, Status
from planner.scheduler.plugins.defaultpreemption import preemption as defaultpreemption
from planner.scheduler.plugins.imagelocality import scoring as imagelocality_scoring
from planner.scheduler.plugins.interpodaffinity import filtering as interpodaffinity
from planner.scheduler.plugins.interpodaffinity import scoring as interpodaffinity_scoring
from planner.scheduler.plugins.nodeaffinity import filtering as nodeaffinity
from planner.scheduler.plugins.nodeaffinity import scoring as nodeaffinity_scoring
from planner.scheduler.plugins.nodedeclaredfeatures import filtering as nodedeclaredfeatures
from planner.scheduler.plugins.nodename import filtering as nodename
from planner.scheduler.plugins.nodeports import filtering as nodeports
from planner.scheduler.plugins.noderesources import balanced_allocation, fit
from planner.scheduler.plugins.nodeunschedulable import filtering as nodeunschedulable
from planner.scheduler.plugins.nodevolumelimits import filtering as nodevolumelimits
from planner.scheduler.plugins.podtopologyspread import filtering as podtopologyspread
from planner.scheduler.plugins.podtopologyspread import scoring as podtopologyspread_scoring
from planner.scheduler.plugins.tainttoleration import filtering as tainttoleration
from planner.scheduler.plugins.tainttoleration import scoring as tainttoleration_scoring
from planner.scheduler.plugins.volumebinding import filtering as volumebinding
from planner.scheduler.plugins.volumebinding import scoring as volumebinding_scoring
from planner.scheduler.plugins.volumerestrictions import filtering as volumerestrictions
from planner.scheduler.plugins.volumezone import filtering as volumezone

if TYPE_CHECKING:
    import numpy as np

    from planner.scheduler.arrays import ClusterArrays


class FilterPlugin(Protocol):
    """PreFilterPlugin + FilterPlugin (interface.go).

    ``pre_filter`` returns ``(state, None)``, ``(SKIP, None)`` when Filter has nothing to check for
    this pod, or ``(anything, status)`` when the pod is rejected on every node; ``filter`` returns
    None for success or the node's failing Status."""

    NAME: str

    def pre_filter(self, pod: Pod, cluster: ClusterState) -> tuple[Any, Status | None]: ...

    def filter(self, state: Any, pod: Pod, node_info: NodeInfo) -> Status | None: ...


class PostFilterPlugin(Protocol):
    """PostFilterPlugin (interface.go): run when no node passed the filters, with each node's
    filter status; returns the nominated node and what must go for the pod to fit there
    (planner/scheduler/plugins/defaultpreemption/preemption.py PostFilterResult)."""

    NAME: str

    def post_filter(
        self, pod: Pod, cluster: ClusterState, statuses: dict[str, Status], pdbs: Any, offset: int = 0, plugins: Any = None
    ) -> Any: ...


class ScoreModule(Protocol):
    """PreScorePlugin + ScorePlugin (interface.go) as a module: ``pre_score`` returns the state or
    SKIP, ``score`` one raw score per node (in order)."""

    NAME: str

    def pre_score(self, pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> Any: ...

    def score(self, state: Any, pod: Pod, nodes: list[NodeInfo]) -> list[int]: ...


# A vectorised Score: (the cluster's arrays, the feasible nodes' positions, pod) -> normalised
# scores in feasible order, or None for PreScore's Skip.
Kernel = Callable[["ClusterArrays", "np.ndarray", Pod], "np.ndarray | None"]


class ScorePlugin(Protocol):
    """One score plugin of the profile: its name, weight and phases."""

    @property
    def name(self) -> str: ...

    @property
    def weight(self) -> int: ...

    @property
    def pre_score(self) -> Callable[[Pod, ClusterState, list[NodeInfo]], Any]: ...

    @property
    def score(self) -> Callable[[Any, Pod, list[NodeInfo]], list[int]]: ...

    @property
    def normalize(self) -> Callable[..., list[int]] | None: ...

    @property
    def normalize_takes_nodes(self) -> bool: ...

    @property
    def kernel(self) -> Kernel | None: ...


@dataclass(frozen=True, slots=True)
class Scorer:
    """A ScorePlugin entry: ``normalize(state, scores)`` or, with ``normalize_takes_nodes``,
    ``normalize(state, scores, nodes)`` (ScoreExtensions.NormalizeScore), None without one."""

    name: str
    weight: int
    pre_score: Callable[[Pod, ClusterState, list[NodeInfo]], Any]
    score: Callable[[Any, Pod, list[NodeInfo]], list[int]]
    normalize: Callable[..., list[int]] | None = None
    normalize_takes_nodes: bool = False
    kernel: Kernel | None = None


class LazyKernel:
    """A plugin's vectorised Score (its kernels.py), imported on its first call: the kernels need
    numpy, which only the commands that score nodes in bulk (the replay) should pay for at
    start-up (tests/test_imports.py holds `import planner.cli` free of numpy)."""

    __slots__ = ("module", "attr", "_fn")

    def __init__(self, module: str, attr: str) -> None:
        self.module = module
        self.attr = attr
        self._fn: Kernel | None = None

    def __call__(self, arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray | None:
        fn = self._fn
        if fn is None:
            fn = self._fn = getattr(importlib.import_module(self.module), self.attr)
        return fn(arr, idx, pod)

    def __repr__(self) -> str:
        return f"<kernel {self.module}.{self.attr}>"


_KERNELS = "planner.scheduler.plugins.{}.kernels"


def _scorer(mod: ScoreModule, weight: int, takes_nodes: bool = False, kernel: Kernel | None = None) -> Scorer:
    return Scorer(mod.NAME, weight, mod.pre_score, mod.score, getattr(mod, "normalize", None), takes_nodes, kernel)


FILTER_PLUGINS: tuple[FilterPlugin, ...] = (
    nodeunschedulable,
    nodename,
    tainttoleration,
    nodeaffinity,
    nodeports,
    fit,
    volumerestrictions,
    nodevolumelimits,
    volumebinding,
    volumezone,
    podtopologyspread,
    interpodaffinity,
    nodedeclaredfeatures,
)

# The default profile's PostFilter plugins: DefaultPreemption alone.
POST_FILTER_PLUGINS: tuple[PostFilterPlugin, ...] = (defaultpreemption,)

SCORE_PLUGINS: tuple[ScorePlugin, ...] = (
    _scorer(tainttoleration_scoring, 3, kernel=LazyKernel(_KERNELS.format("tainttoleration"), "score")),
    _scorer(nodeaffinity_scoring, 2),
    Scorer(fit.NAME, 1, fit.pre_score, fit.score, kernel=LazyKernel(_KERNELS.format("noderesources"), "fit_score")),
    _scorer(volumebinding_scoring, 1),  # no kernel: the reference Score (see its module docstring)
    _scorer(podtopologyspread_scoring, 2, takes_nodes=True, kernel=LazyKernel(_KERNELS.format("podtopologyspread"), "score")),
    _scorer(interpodaffinity_scoring, 2, kernel=LazyKernel(_KERNELS.format("interpodaffinity"), "score")),
    Scorer(
        balanced_allocation.NAME,
        1,
        balanced_allocation.pre_score,
        balanced_allocation.score,
        kernel=LazyKernel(_KERNELS.format("noderesources"), "balanced_score"),
    ),
    _scorer(imagelocality_scoring, 1),
)

DEFAULT_SCHEDULER_NAME = "default-scheduler"


@dataclass(frozen=True)
class Profile:
    """One scheduling profile (a KubeSchedulerProfile as planner runs it): its filter plugins in
    order, its score plugins with their weights, NodeResourcesFit's scoring strategy,
    PodTopologySpread's default constraints, percentageOfNodesToScore, and notes on the parts of
    the configuration planner does not model.  ``DEFAULT_PROFILE`` is the default profile (today's
    behaviour); planner.scheduler.config builds the others from a KubeSchedulerConfiguration."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    filters: tuple[FilterPlugin, ...] = FILTER_PLUGINS
    scorers: tuple[ScorePlugin, ...] = SCORE_PLUGINS
    fit_strategy: Any = fit.DEFAULT_STRATEGY
    spread_defaulting: str = "System"  # PodTopologySpreadArgs.defaultingType: System | List
    spread_defaults: tuple[Any, ...] = ()  # the List's TopologySpreadConstraints (no selector)
    percentage_of_nodes_to_score: int = 0  # 0: adaptive
    notes: tuple[str, ...] = ()

    @property
    def weights(self) -> dict[str, int]:
        return {p.name: p.weight for p in self.scorers}

    @property
    def filter_names(self) -> tuple[str, ...]:
        return tuple(m.NAME for m in self.filters)

    @property
    def default_filters(self) -> bool:
        """The default profile's filters, with no DoNotSchedule default spread constraint: the
        replay's array filter (fastfilter.py) computes exactly these."""
        return self.filters == FILTER_PLUGINS and not self.spread_defaults_do_not_schedule

    @property
    def spread_defaults_do_not_schedule(self) -> bool:
        return self.spread_defaulting == "List" and any(
            c.when_unsatisfiable == "DoNotSchedule" for c in self.spread_defaults
        )


DEFAULT_PROFILE = Profile()

__all__ = [
    "DEFAULT_PROFILE",
    "DEFAULT_SCHEDULER_NAME",
    "FILTER_PLUGINS",
    "POST_FILTER_PLUGINS",
    "SCORE_PLUGINS",
    "FilterPlugin",
    "Kernel",
    "PostFilterPlugin",
    "Profile",
    "ScoreModule",
    "ScorePlugin",
    "Scorer",
]
