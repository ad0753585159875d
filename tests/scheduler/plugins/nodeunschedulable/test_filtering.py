"""Upstream table tests of NodeUnschedulable, transcribed case by case.

Source (kubernetes/kubernetes, pkg/scheduler/framework/plugins/, v1.34/v1.35):
  nodeunschedulable/node_unschedulable_test.go TestNodeUnschedulable

Each pytest id is the upstream case name.  Pods carry their effective requests (what the loader
computes from containers, init/sidecar containers, pod-level resources and overhead); the comment
on a case shows how upstream's containers add up when that is not obvious.
"""

from __future__ import annotations

import pytest

from planner.domain import (
    Node,
    Pod,
    Toleration,
)
from planner.scheduler.framework import UNRESOLVABLE, NodeInfo
from planner.scheduler.plugins.nodeunschedulable import filtering as nodeunschedulable
from tests.scheduler.plugins.basic import mk_node, mk_pod, reasons, run

# --------------------------------------------------------------------------- NodeUnschedulable

UNSCHEDULABLE_TOLERATION = Toleration(key="node.kubernetes.io/unschedulable", operator="", effect="NoSchedule")


@pytest.mark.parametrize(
    "pod,node,want",
    [
        pytest.param(mk_pod(), mk_node(unschedulable=True), nodeunschedulable.ERR_REASON_UNSCHEDULABLE,
                     id="Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)"),
        pytest.param(mk_pod(), mk_node(unschedulable=False), None, id="Schedule pod to normal node"),
        pytest.param(mk_pod(tolerations=(UNSCHEDULABLE_TOLERATION,)), mk_node(unschedulable=True), None,
                     id="Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)"),
    ],
)
def test_node_unschedulable(pod: Pod, node: Node, want: str | None) -> None:
    _, pre, st = run(nodeunschedulable, pod, NodeInfo(node))
    assert pre is None
    assert reasons(st) == (None if want is None else (want,))
    if st is not None:
        assert st.code == UNRESOLVABLE and st.plugin == "NodeUnschedulable"
