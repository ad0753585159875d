"""TaintToleration, Score half: prefer nodes with fewer untolerated PreferNoSchedule taints.

A port of kube-scheduler v1.37 pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go
(getAllTolerationPreferNoSchedule, PreScore, countIntolerableTaintsPreferNoSchedule, Score,
NormalizeScore) and pkg/scheduler/framework/plugins/helper/normalize_score.go
(DefaultNormalizeScore).

* PreScore keeps the tolerations whose effect is empty or PreferNoSchedule; it never skips.
* Score: the number of the node's PreferNoSchedule taints that none of those tolerations
  tolerates (v1.Toleration.ToleratesTaint, planner.matching.tolerates).
* NormalizeScore: DefaultNormalizeScore(100, reverse=true): ``100 - 100 * count // max`` and 100
  everywhere when no node has such a taint.
The alpha Lt/Gt toleration operators (TaintTolerationComparisonOperators) are off by default and
not modelled.
"""

from __future__ import annotations

from planner.domain import Pod, Toleration
from planner.matching import tolerates
from planner.scheduler.framework import ClusterState, NodeInfo

NAME = "TaintToleration"
MAX_NODE_SCORE = 100
PREFER_NO_SCHEDULE = "PreferNoSchedule"


def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> tuple[Toleration, ...]:
    """getAllTolerationPreferNoSchedule: an empty effect means every effect, PreferNoSchedule included."""
    return tuple(t for t in pod.spec.tolerations if not t.effect or t.effect == PREFER_NO_SCHEDULE)


def count_intolerable(taints, tolerations: tuple[Toleration, ...]) -> int:
    n = 0
    for taint in taints:
        if taint.effect != PREFER_NO_SCHEDULE:
            continue
        for t in tolerations:
            if tolerates(t, taint):
                break
        else:
            n += 1
    return n


def score(state: tuple[Toleration, ...], pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    out = []
    for ni in nodes:
        taints = ni.node.taints
        out.append(count_intolerable(taints, state) if taints else 0)
    return out


def default_normalize_score(max_priority: int, reverse: bool, scores: list[int]) -> list[int]:
    """helper.DefaultNormalizeScore."""
    max_count = 0
    for s in scores:
        if s > max_count:
            max_count = s
    if max_count == 0:
        if reverse:
            return [max_priority] * len(scores)
        return scores
    out = []
    for s in scores:
        s = max_priority * s // max_count
        if reverse:
            s = max_priority - s
        out.append(s)
    return out


def normalize(state: object, scores: list[int]) -> list[int]:
    return default_normalize_score(MAX_NODE_SCORE, True, scores)
