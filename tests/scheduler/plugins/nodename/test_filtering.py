"""Upstream table tests of NodeName, transcribed case by case.

Source (kubernetes/kubernetes, pkg/scheduler/framework/plugins/, v1.34/v1.35):
  nodename/node_name_test.go TestNodeName

Each pytest id is the upstream case name.  Pods carry their effective requests (what the loader
computes from containers, init/sidecar containers, pod-level resources and overhead); the comment
on a case shows how upstream's containers add up when that is not obvious.
"""

from __future__ import annotations

import pytest

from planner.domain import (
    Node,
    Pod,
)
from planner.scheduler.framework import UNRESOLVABLE, NodeInfo
from planner.scheduler.plugins.nodename import filtering as nodename
from tests.scheduler.plugins.basic import mk_node, mk_pod, reasons, run

# --------------------------------------------------------------------------- NodeName


@pytest.mark.parametrize(
    "pod,node,want",
    [
        pytest.param(mk_pod(), mk_node(""), None, id="no host specified"),
        pytest.param(mk_pod(node_name="foo"), mk_node("foo"), None, id="host matches"),
        pytest.param(mk_pod(node_name="bar"), mk_node("foo"), nodename.ERR_REASON, id="host doesn't match"),
    ],
)
def test_node_name(pod: Pod, node: Node, want: str | None) -> None:
    _, pre, st = run(nodename, pod, NodeInfo(node))
    assert pre is None
    assert reasons(st) == (None if want is None else (want,))
    if st is not None:
        assert st.code == UNRESOLVABLE
