"""NodePorts: the pod's host ports must not conflict with the ports in use on the node.

Port of pkg/scheduler/framework/plugins/nodeports/node_ports.go (v1.37) and of
HostPortInfo.CheckConflict (pkg/scheduler/framework/types.go):
* PreFilter takes the pod's host ports (util.GetHostPorts: hostPort > 0, containers and
  restartable init containers; the loader gives them as PodSpec.host_ports) and is skipped when
  there are none;
* a wanted (ip, protocol, port) conflicts when the same (protocol, port) is used on the node with
  the same IP or with 0.0.0.0; a wanted 0.0.0.0 conflicts with that (protocol, port) on any IP.
  An empty IP means 0.0.0.0 and an empty protocol TCP (HostPortInfo.sanitize);
  NodeInfo.used_ports is assumed to be built from sanitized ports (the HostPort defaults).
"""

from __future__ import annotations

from typing import Any

from planner.domain import Pod
from planner.scheduler.framework import SKIP, UNSCHEDULABLE, ClusterState, NodeInfo, Status

NAME = "NodePorts"

# ErrReason
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"

_STATUS = Status(NAME, (ERR_REASON,), UNSCHEDULABLE)


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[Any, Status | None]:
    want = tuple(
        ((hp.protocol or "TCP", hp.port), hp.host_ip or DEFAULT_BIND_ALL_HOST_IP)
        for hp in pod.spec.host_ports
        if hp.port > 0
    )
    if not want:
        return SKIP, None
    return want, None


def filter(state: Any, pod: Pod, node_info: NodeInfo) -> Status | None:
    # fails  <=>  exists wanted (ip, proto, port) and used ips U of (proto, port) on the node with
    #             ip == 0.0.0.0 and U nonempty,  or  ip in U,  or  0.0.0.0 in U
    used = node_info.used_ports
    if not used:
        return None
    for key, ip in state:
        ips = used.get(key)
        if ips and (ip == DEFAULT_BIND_ALL_HOST_IP or ip in ips or DEFAULT_BIND_ALL_HOST_IP in ips):
            return _STATUS
    return None
