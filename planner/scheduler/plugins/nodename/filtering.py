"""NodeName: a pod with spec.nodeName fits only the node of that name.

Port of pkg/scheduler/framework/plugins/nodename/node_name.go (v1.37), which has no
PreFilter; the plugin is skipped here for a pod without spec.nodeName (Fits is then always true).
"""

from __future__ import annotations

from typing import Any

from planner.domain import Pod
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, NodeInfo, Status

NAME = "NodeName"

# ErrReason
ERR_REASON = "node(s) didn't match the requested node name"

_STATUS = Status(NAME, (ERR_REASON,), UNRESOLVABLE)


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[Any, Status | None]:
    if not pod.spec.node_name:
        return SKIP, None
    return pod.spec.node_name, None


def filter(state: Any, pod: Pod, node_info: NodeInfo) -> Status | None:
    # fits  <=>  len(pod.spec.nodeName) == 0  or  pod.spec.nodeName == node.name
    if node_info.node.name != state:
        return _STATUS
    return None
