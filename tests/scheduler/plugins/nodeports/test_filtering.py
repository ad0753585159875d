"""Upstream table tests of NodePorts, transcribed case by case.

Source (kubernetes/kubernetes, pkg/scheduler/framework/plugins/, v1.34/v1.35):
  nodeports/node_ports_test.go TestNodePorts

Each pytest id is the upstream case name.  Pods carry their effective requests (what the loader
computes from containers, init/sidecar containers, pod-level resources and overhead); the comment
on a case shows how upstream's containers add up when that is not obvious.
"""

from __future__ import annotations

import pytest

from planner.domain import (
    HostPort,
    Pod,
)
from planner.scheduler.framework import SKIP, UNSCHEDULABLE, NodeInfo
from planner.scheduler.plugins.nodeports import filtering as nodeports
from tests.scheduler.plugins.basic import mk_node, mk_pod, reasons, run

# --------------------------------------------------------------------------- NodePorts


def ports_pod(node_name: str, *infos: str) -> Pod:
    """upstream newPod(host, "PROTOCOL/IP/PORT"...)."""
    hps = []
    for info in infos:
        proto, ip, port = info.split("/")
        hps.append(HostPort(port=int(port), protocol=proto, host_ip=ip))
    return mk_pod(node_name=node_name, host_ports=tuple(hps))


ERR_PORTS = nodeports.ERR_REASON


@pytest.mark.parametrize(
    "pod,existing,want",
    [
        pytest.param(mk_pod(), None, "skip", id="skip filter"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8080"), ports_pod("m1", "UDP/127.0.0.1/9090"), None, id="other port"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8080"), ports_pod("m1", "UDP/127.0.0.1/8080"), ERR_PORTS, id="same udp port"),
        pytest.param(ports_pod("m1", "TCP/127.0.0.1/8080"), ports_pod("m1", "TCP/127.0.0.1/8080"), ERR_PORTS, id="same tcp port"),
        pytest.param(ports_pod("m1", "TCP/127.0.0.1/8080"), ports_pod("m1", "TCP/127.0.0.2/8080"), None, id="different host ip"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8080"), ports_pod("m1", "TCP/127.0.0.1/8080"), None, id="different protocol"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), ports_pod("m1", "UDP/127.0.0.1/8080"), ERR_PORTS,
                     id="second udp port conflict"),
        pytest.param(ports_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"), ports_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"),
                     ERR_PORTS, id="first tcp port conflict"),
        pytest.param(ports_pod("m1", "TCP/0.0.0.0/8001"), ports_pod("m1", "TCP/127.0.0.1/8001"), ERR_PORTS,
                     id="first tcp port conflict due to 0.0.0.0 hostIP"),
        pytest.param(ports_pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"), ports_pod("m1", "TCP/127.0.0.1/8001"), ERR_PORTS,
                     id="TCP hostPort conflict due to 0.0.0.0 hostIP"),
        pytest.param(ports_pod("m1", "TCP/127.0.0.1/8001"), ports_pod("m1", "TCP/0.0.0.0/8001"), ERR_PORTS,
                     id="second tcp port conflict to 0.0.0.0 hostIP"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8001"), ports_pod("m1", "TCP/0.0.0.0/8001"), None, id="second different protocol"),
        pytest.param(ports_pod("m1", "UDP/127.0.0.1/8001"), ports_pod("m1", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"), ERR_PORTS,
                     id="UDP hostPort conflict due to 0.0.0.0 hostIP"),
    ],
)
def test_node_ports(pod: Pod, existing: Pod | None, want: str | None) -> None:
    ni = NodeInfo(mk_node("m1"), [existing] if existing is not None else [])
    state, pre, st = run(nodeports, pod, ni)
    assert pre is None
    if want == "skip":
        assert state is SKIP
        return
    assert reasons(st) == (None if want is None else (want,))
    if st is not None:
        assert st.code == UNSCHEDULABLE
