"""kube-scheduler's score phase: PreScore, Score and NormalizeScore of the default score plugins,
weighted and summed, and the host selection.

Ports of kube-scheduler v1.36 (kubernetes/kubernetes):
* pkg/scheduler/apis/config/v1/default_plugins.go: the default profile's score plugins and weights,
  in profile order -- TaintToleration 3, NodeAffinity 2, NodeResourcesFit 1 (LeastAllocated on
  cpu and memory, weight 1 each), PodTopologySpread 2, InterPodAffinity 2,
  NodeResourcesBalancedAllocation 1, ImageLocality 1 (DefaultPreemption, the volume plugins and the
  others have no Score);
* pkg/scheduler/framework/runtime/framework.go RunPreScorePlugins (a plugin whose PreScore returns
  Skip is left out of Score: it adds nothing) and RunScorePlugins (Score on every node, then
  NormalizeScore, then a range check of [0, MaxNodeScore] and the weight);
* pkg/scheduler/schedule_one.go prioritizeNodes and selectHost: the node with the highest total,
  ties broken uniformly by reservoir sampling (``rand.Intn(cntOfMaxScore) == 0`` replaces the
  candidate).  Upstream skips scoring altogether when a single node is feasible; select_host then
  returns it without drawing a random number either.

The plugins live in planner/plugins/score_*.py, each with ``pre_score(pod, cluster, nodes)``
(state, or ``SKIP``), ``score(state, pod, nodes)`` (one raw score per node, in order) and, for the
plugins with a ScoreExtension, ``normalize(state, scores[, nodes])``.  PreScore work is done once
per pod; Score is a loop over the feasible nodes with no per-node state allocation.

API (what the replay simulator calls)::

    score_nodes(pod, cluster, feasible) -> {node: total weighted score}
    select_host(scores, rng) -> node                # rng: random.Random(seed)
    explain_scores(pod, cluster, feasible) -> {node: {plugin: weighted score}}

Scores are integers; a node's total is at most 1200 (100 * the sum of the weights).
"""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

from planner.domain import Pod
from planner.framework import SKIP, ClusterState, NodeInfo
from planner.plugins import (
    score_imagelocality,
    score_interpodaffinity,
    score_nodeaffinity,
    score_noderesources,
    score_podtopologyspread,
    score_tainttoleration,
)
from planner.plugins.score_nodeaffinity import ScoreError

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


class _Plugin:
    __slots__ = ("name", "weight", "pre_score", "score", "normalize", "normalize_takes_nodes")

    def __init__(self, name: str, weight: int, pre_score: Any, score: Any, normalize: Any = None, normalize_takes_nodes: bool = False) -> None:
        self.name = name
        self.weight = weight
        self.pre_score = pre_score
        self.score = score
        self.normalize = normalize
        self.normalize_takes_nodes = normalize_takes_nodes


def _mod(m: ModuleType, name: str, weight: int, takes_nodes: bool = False) -> _Plugin:
    return _Plugin(name, weight, m.pre_score, m.score, getattr(m, "normalize", None), takes_nodes)


# default_plugins.go, in profile (MultiPoint) order.
PLUGINS: tuple[_Plugin, ...] = (
    _mod(score_tainttoleration, score_tainttoleration.NAME, 3),
    _mod(score_nodeaffinity, score_nodeaffinity.NAME, 2),
    _Plugin(score_noderesources.FIT_NAME, 1, score_noderesources.fit_pre_score, score_noderesources.fit_score),
    _mod(score_podtopologyspread, score_podtopologyspread.NAME, 2, takes_nodes=True),
    _mod(score_interpodaffinity, score_interpodaffinity.NAME, 2),
    _Plugin(score_noderesources.BALANCED_NAME, 1, score_noderesources.balanced_pre_score, score_noderesources.balanced_score),
    _mod(score_imagelocality, score_imagelocality.NAME, 1),
)

PLUGIN_WEIGHTS: dict[str, int] = {p.name: p.weight for p in PLUGINS}

__all__ = ["PLUGINS", "PLUGIN_WEIGHTS", "ScoreError", "explain_scores", "plugin_scores", "run_score_plugins", "score_nodes", "select_host"]


def _node_infos(cluster: ClusterState, feasible: list[str]) -> list[NodeInfo]:
    by_name = cluster.by_name
    try:
        return [by_name[n] for n in feasible]
    except KeyError as e:
        raise ValueError(f"feasible node {e.args[0]!r} is not in the cluster") from None


def run_score_plugins(pod: Pod, cluster: ClusterState, feasible: list[str]) -> list[tuple[str, list[int] | None]]:
    """RunPreScorePlugins + RunScorePlugins: (plugin, weighted scores in ``feasible`` order), or
    (plugin, None) for a plugin whose PreScore returned Skip."""
    nodes = _node_infos(cluster, feasible)
    out: list[tuple[str, list[int] | None]] = []
    if not nodes:
        return [(p.name, []) for p in PLUGINS]
    for p in PLUGINS:
        state = p.pre_score(pod, cluster, nodes)
        if state is SKIP:
            out.append((p.name, None))
            continue
        scores = p.score(state, pod, nodes)
        if p.normalize is not None:
            scores = p.normalize(state, scores, nodes) if p.normalize_takes_nodes else p.normalize(state, scores)
        w = p.weight
        for s in scores:
            if s > MAX_NODE_SCORE or s < MIN_NODE_SCORE:
                raise ScoreError(
                    f"plugin {p.name!r} returns an invalid score {s}, it should in the range of "
                    f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                )
        out.append((p.name, [s * w for s in scores] if w != 1 else scores))
    return out


def score_nodes(pod: Pod, cluster: ClusterState, feasible: list[str]) -> dict[str, int]:
    """Total weighted score of every feasible node (prioritizeNodes' NodePluginScores.TotalScore)."""
    totals = [0] * len(feasible)
    for _name, scores in run_score_plugins(pod, cluster, feasible):
        if scores is None:
            continue
        totals = [a + b for a, b in zip(totals, scores)]
    return dict(zip(feasible, totals))


def explain_scores(pod: Pod, cluster: ClusterState, feasible: list[str]) -> dict[str, dict[str, int]]:
    """Per node, each default score plugin's weighted score (0 for a plugin that skipped)."""
    per_plugin = run_score_plugins(pod, cluster, feasible)
    out: dict[str, dict[str, int]] = {n: {} for n in feasible}
    for name, scores in per_plugin:
        if scores is None:
            for n in feasible:
                out[n][name] = 0
        else:
            for n, s in zip(feasible, scores):
                out[n][name] = s
    return out


def select_host(scores: dict[str, int], rng: random.Random) -> str:
    """schedule_one.go selectHost: the highest total; ties by reservoir sampling with ``rng``.

    The candidates with the highest score are visited in ``scores`` order (upstream visits them in
    its heap's pop order, which is as arbitrary); the k-th one replaces the pick with probability
    1/k, so every tied node is equally likely and the choice is a function of the seed.
    """
    if not scores:
        raise ValueError("empty priority list")
    best = max(scores.values())
    selected = ""
    cnt = 0
    for name, s in scores.items():
        if s != best:
            continue
        cnt += 1
        if cnt == 1:
            selected = name
        elif rng.randrange(cnt) == 0:
            selected = name
    return selected


def plugin_scores(name: str, pod: Pod, cluster: ClusterState, feasible: list[str]) -> list[int] | None:
    """One plugin's normalised, *unweighted* scores in ``feasible`` order; None when its PreScore
    returned Skip (upstream's plugin table tests look at exactly this)."""
    p = next((p for p in PLUGINS if p.name == name), None)
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
