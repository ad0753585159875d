"""kube-scheduler's score phase: PreScore, Score and NormalizeScore of the default score plugins,
weighted and summed, and the host selection.

Ports of kube-scheduler v1.37 (kubernetes/kubernetes):
* pkg/scheduler/apis/config/v1/default_plugins.go: the default profile's score plugins and weights,
  in profile order -- TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1 (LeastAllocated on
  cpu and memory, weight 1 each), VolumeBinding 1 (listed without a weight: the framework's
  default; it scores since StorageCapacityScoring went beta and on by default in v1.37),
  PodTopologySpread 2, InterPodAffinity 2, NodeResourcesBalancedAllocation 1, ImageLocality 1
  (DefaultPreemption, the other volume plugins, NodeDeclaredFeatures and the others have no Score);
* pkg/scheduler/framework/runtime/framework.go RunPreScorePlugins (a plugin whose PreScore returns
  Skip is left out of Score: it adds nothing) and RunScorePlugins (Score on every node, then
  NormalizeScore, then a range check of [0, MaxNodeScore] and the weight);
* pkg/scheduler/schedule_one.go prioritizeNodes and selectHost: the node with the highest total,
  ties broken uniformly at random (upstream: a reservoir sample, ``rand.Intn(cntOfMaxScore) == 0``
  replaces the candidate; here one seeded draw among the tied nodes, the same distribution).
  Upstream skips scoring altogether when a single node is feasible; select_host then returns it
  without drawing a random number either.

The plugins live in planner/scheduler/plugins/<plugin>/scoring.py (NodeResourcesFit's in
noderesources/fit.py, BalancedAllocation's in noderesources/balanced_allocation.py), listed with
their weights in planner/scheduler/registry.py, each with ``pre_score(pod, cluster, nodes)``
(state, or ``SKIP``), ``score(state, pod, nodes)`` (one raw score per node, in order) and, for the
plugins with a ScoreExtension, ``normalize(state, scores[, nodes])``: the reference
implementations, tested against upstream's tables.  score_nodes and explain_scores run
NodeResourcesFit, NodeResourcesBalancedAllocation, TaintToleration, PodTopologySpread and
InterPodAffinity through their vectorised kernels (planner/scheduler/plugins/<plugin>/kernels.py, on the per-node arrays
of planner/scheduler/arrays.py kept on the
ClusterState and revalidated incrementally, PreScore once per pod), which a randomised test holds
equal to the reference; the others run their reference implementation (cheap when they skip).
VolumeBinding has no kernel: its PreScore skips every pod without a static PV candidate for an
unbound WaitForFirstConsumer claim, and the few that have one are scored by the reference Score
(tests/scheduler/test_scoring.py holds the score phase equal to it on random clusters with such
claims).

API (what the replay simulator calls)::

    score_nodes(pod, cluster, feasible) -> {node: total weighted score}
    select_host(scores, rng) -> node                # rng: random.Random(seed)
    explain_scores(pod, cluster, feasible) -> {node: {plugin: weighted score}}
    score_breakdown(pod, cluster, feasible) -> [(plugin, weight, normalised scores | None)]

Scores are integers; a node's total is at most 1300 (100 * the sum of the weights).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from planner.domain import Pod
from planner.scheduler import arrays as score_arrays
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo
from planner.scheduler.plugins.imagelocality import scoring as score_imagelocality
from planner.scheduler.plugins.nodeaffinity.scoring import ScoreError
from planner.scheduler.registry import SCORE_PLUGINS, ScorePlugin

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0

# default_plugins.go, in profile (MultiPoint) order (planner.scheduler.registry).
PLUGINS: tuple[ScorePlugin, ...] = SCORE_PLUGINS

PLUGIN_WEIGHTS: dict[str, int] = {p.name: p.weight for p in PLUGINS}

__all__ = [
    "PLUGINS",
    "PLUGIN_WEIGHTS",
    "ScoreError",
    "explain_scores",
    "plugin_scores",
    "run_score_plugins",
    "score_breakdown",
    "score_nodes",
    "select_host",
]


def _node_infos(cluster: ClusterState, feasible: list[str]) -> list[NodeInfo]:
    by_name = cluster.by_name
    try:
        return [by_name[n] for n in feasible]
    except KeyError as e:
        raise ValueError(f"feasible node {e.args[0]!r} is not in the cluster") from None


def _weighted(name: str, scores: Any, weight: int) -> np.ndarray:
    a = np.asarray(scores, dtype=np.int64)
    if not a.size:
        return a
    # every score in [0, MAX_NODE_SCORE] <=> none above it read as unsigned (a negative int64 is
    # 2**63 or more as a uint64): one pass; a score out of range is found below, as framework.go
    # reports it
    if int(a.view(np.uint64).max()) <= MAX_NODE_SCORE:
        return a * weight if weight != 1 else a
    hi = int(a.max())
    lo = int(a.min()) if hi <= MAX_NODE_SCORE else MIN_NODE_SCORE
    if hi > MAX_NODE_SCORE or lo < MIN_NODE_SCORE:
        bad = hi if hi > MAX_NODE_SCORE else lo
        raise ScoreError(
            f"plugin {name!r} returns an invalid score {bad}, it should in the range of "
            f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
        )
    return a * weight if weight != 1 else a


def _run(
    pod: Pod, cluster: ClusterState, feasible: list[str] | None, plugins: Sequence[ScorePlugin] | None = None,
    known: tuple[score_arrays.ClusterArrays, np.ndarray] | None = None,
) -> list[tuple[str, np.ndarray | None]]:
    """RunPreScorePlugins + RunScorePlugins: (plugin, weighted scores in ``feasible`` order), or
    (plugin, None) for a plugin whose PreScore returned Skip.  ``plugins``: a profile's score
    plugins (registry.Profile.scorers), the default profile's when None.  ``known``: the
    cluster's arrays, just brought up to date, and the positions of the nodes scored (set with
    ClusterArrays.known_positions: score_positions), which ``feasible`` then need not name (None)."""
    if plugins is None:
        plugins = PLUGINS
    m = len(known[1]) if known is not None else len(feasible or ())
    if not m:
        return [(p.name, np.zeros(0, dtype=np.int64)) for p in plugins]
    if known is not None:
        arr, idx = known
    else:
        assert feasible is not None
        arr = score_arrays.arrays(cluster)
        idx = arr.positions(feasible)
    nodes: list[NodeInfo] | None = None
    out: list[tuple[str, np.ndarray | None]] = []
    for p in plugins:
        fast = p.kernel  # the plugin's vectorised Score (its kernels.py), equal to the reference
        if fast is not None:
            vec = fast(arr, idx, pod)
            out.append((p.name, None if vec is None else _weighted(p.name, vec, p.weight)))
            continue
        # NodeAffinity's, InterPodAffinity's and ImageLocality's PreScore do not look at the node list.
        state = p.pre_score(pod, cluster, nodes if nodes is not None else [])
        if state is None and p.name == score_imagelocality.NAME:
            out.append((p.name, np.zeros(m, dtype=np.int64)))  # no node holds the pod's images: 0
            continue
        if state is SKIP:
            out.append((p.name, None))
            continue
        if nodes is None:
            infos = arr.infos
            nodes = [infos[i] for i in idx.tolist()]  # type: ignore[index]
        scores = p.score(state, pod, nodes)
        if p.normalize is not None:
            scores = p.normalize(state, scores, nodes) if p.normalize_takes_nodes else p.normalize(state, scores)
        out.append((p.name, _weighted(p.name, scores, p.weight)))
    return out


def run_score_plugins(
    pod: Pod, cluster: ClusterState, feasible: list[str], plugins: Sequence[ScorePlugin] | None = None
) -> list[tuple[str, list[int] | None]]:
    """(plugin, weighted scores in ``feasible`` order) per score plugin, None when skipped."""
    return [(name, None if s is None else s.tolist()) for name, s in _run(pod, cluster, feasible, plugins)]


def score_breakdown(
    pod: Pod, cluster: ClusterState, feasible: list[str], plugins: Sequence[ScorePlugin] | None = None
) -> list[tuple[str, int, list[int] | None]]:
    """The score phase plugin by plugin, as planner explain --scores shows it: per default score
    plugin in profile order, (plugin, weight, its normalised scores in [0, 100] before the weight,
    in ``feasible`` order), or (plugin, weight, None) for a plugin whose PreScore returned Skip (it
    is not scored and adds nothing).  The same run as score_nodes (the replay's ``_run``): a node's
    total there is the sum of score * weight over the plugins that were not skipped."""
    weights = PLUGIN_WEIGHTS if plugins is None else {p.name: p.weight for p in plugins}
    out: list[tuple[str, int, list[int] | None]] = []
    for name, weighted in _run(pod, cluster, feasible, plugins):
        w = weights[name]
        out.append((name, w, None if weighted is None else (weighted // w if w > 1 else weighted).tolist()))
    return out


def score_nodes(
    pod: Pod, cluster: ClusterState, feasible: list[str], plugins: Sequence[ScorePlugin] | None = None
) -> dict[str, int]:
    """Total weighted score of every feasible node (prioritizeNodes' NodePluginScores.TotalScore)."""
    total = np.zeros(len(feasible), dtype=np.int64)
    for _name, scores in _run(pod, cluster, feasible, plugins):
        if scores is not None:
            total += scores
    return dict(zip(feasible, total.tolist()))


def explain_scores(
    pod: Pod, cluster: ClusterState, feasible: list[str], plugins: Sequence[ScorePlugin] | None = None
) -> dict[str, dict[str, int]]:
    """Per node, each score plugin's weighted score (0 for a plugin that skipped)."""
    out: dict[str, dict[str, int]] = {n: {} for n in feasible}
    for name, scores in run_score_plugins(pod, cluster, feasible, plugins):
        if scores is None:
            for n in feasible:
                out[n][name] = 0
        else:
            for n, s in zip(feasible, scores):
                out[n][name] = s
    return out


def select_host(scores: dict[str, int], rng: random.Random) -> str:
    """schedule_one.go selectHost: the highest total; ties broken uniformly at random with ``rng``.

    Upstream streams the nodes with the highest score through a size-one reservoir sample (the k-th
    tied node replaces the pick when ``rand.Intn(k) == 0``), which leaves each of the k tied nodes
    picked with probability exactly 1/k.  Here the tied nodes are taken in ``scores`` order and one
    ``rng.randrange(k)`` picks among them: the same distribution with one draw instead of k - 1
    (with thousands of equal nodes the per-tie draws cost more than scoring).  No draw is made when
    a single node has the highest score, so the choice is a function of the seed and the scores.
    """
    if not scores:
        raise ValueError("empty priority list")
    best = max(scores.values())
    tied = [name for name, s in scores.items() if s == best]
    if len(tied) == 1:
        return tied[0]
    return tied[rng.randrange(len(tied))]


def plugin_scores(
    name: str, pod: Pod, cluster: ClusterState, feasible: list[str], plugins: Sequence[ScorePlugin] | None = None
) -> list[int] | None:
    """One plugin's normalised, *unweighted* scores in ``feasible`` order; None when its PreScore
    returned Skip (upstream's plugin table tests look at exactly this)."""
    p = next((p for p in (PLUGINS if plugins is None else plugins) if p.name == name), None)
    if p is None:
        raise KeyError(name)
    nodes = _node_infos(cluster, feasible)
    state = p.pre_score(pod, cluster, nodes)
    if state is SKIP:
        return None
    scores = p.score(state, pod, nodes)
    if p.normalize is not None:
        scores = p.normalize(state, scores, nodes) if p.normalize_takes_nodes else p.normalize(state, scores)
    return scores
