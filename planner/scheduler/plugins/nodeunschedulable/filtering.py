"""NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate it.

Port of pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go (v1.37).
Upstream has no PreFilter; the toleration check does not depend on the node, so it is done once
here and the plugin is skipped for a pod that tolerates the unschedulable taint.
"""

from __future__ import annotations

from typing import Any

from planner.domain import Pod, Taint
from planner.matching import tolerates
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, NodeInfo, Status

NAME = "NodeUnschedulable"

# ErrReasonUnschedulable
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"

# v1.TaintNodeUnschedulable with effect NoSchedule (no value).
TAINT_NODE_UNSCHEDULABLE = Taint(key="node.kubernetes.io/unschedulable", value="", effect="NoSchedule")

_STATUS = Status(NAME, (ERR_REASON_UNSCHEDULABLE,), UNRESOLVABLE)


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[Any, Status | None]:
    # "If pod tolerate unschedulable taint, it's also tolerate `node.Spec.Unschedulable`."
    if any(tolerates(t, TAINT_NODE_UNSCHEDULABLE) for t in pod.spec.tolerations):
        return SKIP, None
    return True, None


def filter(state: Any, pod: Pod, node_info: NodeInfo) -> Status | None:
    # fails  <=>  node.spec.unschedulable  and not pod tolerates node.kubernetes.io/unschedulable:NoSchedule
    if node_info.node.unschedulable:
        return _STATUS
    return None
