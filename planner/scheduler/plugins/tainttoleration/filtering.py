"""TaintToleration: a node's NoSchedule/NoExecute taints must all be tolerated by the pod.

Port of the Filter of pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go
(v1.37; so since v1.35, and v1.34 from the patch release that took kubernetes#135023): the first untolerated
taint (v1helper.FindMatchingUntoleratedTaint with helper.DoNotScheduleTaintsFilterFunc) rejects
the node as UnschedulableAndUnresolvable.

Since kubernetes#134740 (v1.35, cherry-picked to v1.34) the reason no longer names the taint:
it is the constant ``ERR_REASON_UNTOLERATED``.  Earlier releases said
``LEGACY_REASON_FORMAT.format(key=..., value=...)`` ("node(s) had untolerated taint {k: v}");
``untolerated_taint`` gives the taint for explanations.  The alpha Lt/Gt toleration operators
(TaintTolerationComparisonOperators) are off by default and not modelled.

Upstream has no PreFilter; this one only keeps the tolerations that can tolerate a NoSchedule or
NoExecute taint and skips the plugin when one of them tolerates every taint (key "" Exists, no
effect).
"""

from __future__ import annotations

from typing import Any

from planner.domain import Node, Pod, Taint, Toleration
from planner.matching import tolerates
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, NodeInfo, Status

NAME = "TaintToleration"

ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"
LEGACY_REASON_FORMAT = "node(s) had untolerated taint {{{key}: {value}}}"

# helper.DoNotScheduleTaintsFilterFunc
DO_NOT_SCHEDULE_EFFECTS = ("NoSchedule", "NoExecute")

_STATUS = Status(NAME, (ERR_REASON_UNTOLERATED,), UNRESOLVABLE)


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[Any, Status | None]:
    tols: list[Toleration] = []
    for t in pod.spec.tolerations:
        if t.effect and t.effect not in DO_NOT_SCHEDULE_EFFECTS:
            continue  # a PreferNoSchedule toleration never tolerates a filtered taint
        if not t.key and t.operator == "Exists" and not t.effect:
            return SKIP, None  # tolerates every taint
        tols.append(t)
    return tuple(tols), None


def untolerated_taint(state: tuple[Toleration, ...], node: Node) -> Taint | None:
    """The first NoSchedule/NoExecute taint of ``node`` that no toleration in ``state`` tolerates."""
    for taint in node.taints:
        if taint.effect not in DO_NOT_SCHEDULE_EFFECTS:
            continue
        for t in state:
            if tolerates(t, taint):
                break
        else:
            return taint
    return None


def filter(state: Any, pod: Pod, node_info: NodeInfo) -> Status | None:
    # fails  <=>  exists taint in node.taints with effect in {NoSchedule, NoExecute}
    #             such that no toleration in pod.tolerations tolerates it
    node = node_info.node
    if node.taints and untolerated_taint(state, node) is not None:
        return _STATUS
    return None
