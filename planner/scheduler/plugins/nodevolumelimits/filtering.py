"""NodeVolumeLimits: a port of kube-scheduler's CSI volume limits filter (v1.37).

Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi.go -- ``PreFilter`` (Skip unless
the pod has a persistentVolumeClaim, ephemeral or migratable in-line volume) and ``Filter``:

1. the pod's CSI volumes (common.attachable_volumes, new pod: a missing claim is
   UnschedulableAndUnresolvable); none -> success;
2. the node's limits, ``getVolumeLimits``: per driver of the node's CSINode (same name as the
   node) its spec.drivers[].allocatable.count; no CSINode or no count -> success;
3. the unique CSI volumes of the pods already on the node (a missing claim is skipped); a volume
   the pod shares with them is not new ("Don't count single volume used in multiple pods more
   than once");
4. for each driver of the new volumes with a limit: attached + new > limit -> Unschedulable,
   "node(s) exceed max volume count".

What the verdict depends on: the node's pods and CSINode; it changes as pods land on the node,
so the CP-SAT problem takes it as a capacity, volumes per driver per node
(plugins/nodevolumelimits/problem.py, models/nodevolumelimits.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.domain import Pod
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo, Status
from planner.scheduler.plugins.nodevolumelimits.common import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    NAME,
    attachable_volumes,
    volume_limits,
)

__all__ = ["ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED", "NAME", "NodeVolumeLimitsState", "attached_counts", "filter", "pre_filter"]


@dataclass(frozen=True, slots=True)
class NodeVolumeLimitsState:
    """No upstream state (Filter reads the listers): the cluster whose claims, PVs, classes and
    CSINodes Filter reads."""

    cluster: ClusterState


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[object, Status | None]:
    # every PodVolume is a persistentVolumeClaim or ephemeral volume; in-line volumes are not read
    if not pod.spec.volumes:
        return SKIP, None
    return NodeVolumeLimitsState(cluster), None


def attached_counts(node_info: NodeInfo, cluster: ClusterState) -> tuple[dict[str, str], Status | None]:
    """The unique CSI volumes of the node's pods ("<driver>/<handle>" -> driver)."""
    csi_node = cluster.csinodes.get(node_info.name)
    attached: dict[str, str] = {}
    for ep in node_info.pods:
        st = attachable_volumes(ep, csi_node, cluster, False, attached)
        if st is not None:
            return attached, st
    return attached, None


def filter(state: NodeVolumeLimitsState, pod: Pod, node_info: NodeInfo) -> Status | None:
    cluster = state.cluster
    csi_node = cluster.csinodes.get(node_info.name)
    new: dict[str, str] = {}
    st = attachable_volumes(pod, csi_node, cluster, True, new)
    if st is not None:
        return st
    if not new:
        return None
    limits = volume_limits(csi_node)
    if not limits:
        return None
    attached, st = attached_counts(node_info, cluster)
    if st is not None:
        return st
    attached_count: dict[str, int] = {}
    for unique, driver in attached.items():
        new.pop(unique, None)
        attached_count[driver] = attached_count.get(driver, 0) + 1
    new_count: dict[str, int] = {}
    for driver in new.values():
        new_count[driver] = new_count.get(driver, 0) + 1
    for driver, count in new_count.items():
        limit = limits.get(driver)
        if limit is not None and attached_count.get(driver, 0) + count > limit:
            return Status(NAME, (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))
    return None
