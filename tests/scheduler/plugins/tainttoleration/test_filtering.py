"""Upstream table tests of TaintToleration's Filter, transcribed case by case.

Source (kubernetes/kubernetes, pkg/scheduler/framework/plugins/, v1.34/v1.35):
  tainttoleration/taint_toleration_test.go TestTaintTolerationFilter

Each pytest id is the upstream case name.  Pods carry their effective requests (what the loader
computes from containers, init/sidecar containers, pod-level resources and overhead); the comment
on a case shows how upstream's containers add up when that is not obvious.
"""

from __future__ import annotations

import pytest

from planner.domain import (
    Taint,
    Toleration,
)
from planner.scheduler.framework import SKIP, UNRESOLVABLE, NodeInfo
from planner.scheduler.plugins.tainttoleration import filtering as tainttoleration
from tests.scheduler.plugins.basic import mk_node, mk_pod, reasons, run

# --------------------------------------------------------------------------- TaintToleration


def taint(key: str, value: str, effect: str) -> Taint:
    return Taint(key=key, value=value, effect=effect)


def tol(key: str = "", operator: str = "", value: str = "", effect: str = "") -> Toleration:
    return Toleration(key=key, operator=operator, value=value, effect=effect)


UNTOLERATED = tainttoleration.ERR_REASON_UNTOLERATED


@pytest.mark.parametrize(
    "tolerations,taints,want,legacy",
    [
        pytest.param((), (taint("dedicated", "user1", "NoSchedule"),), UNTOLERATED, "node(s) had untolerated taint {dedicated: user1}",
                     id="A pod having no tolerations can't be scheduled onto a node with nonempty taints"),
        pytest.param((tol("dedicated", "", "user1", "NoSchedule"),), (taint("dedicated", "user1", "NoSchedule"),), None, None,
                     id="A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule"),
        pytest.param((tol("dedicated", "Equal", "user2", "NoSchedule"),), (taint("dedicated", "user1", "NoSchedule"),),
                     UNTOLERATED, "node(s) had untolerated taint {dedicated: user1}",
                     id="A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule"),
        pytest.param((tol("foo", "Exists", "", "NoSchedule"),), (taint("foo", "bar", "NoSchedule"),), None, None,
                     id="A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node"),
        pytest.param((tol("dedicated", "Equal", "user2", "NoSchedule"), tol("foo", "Exists", "", "NoSchedule")),
                     (taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")), None, None,
                     id="A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node"),
        pytest.param((tol("foo", "Equal", "bar", "PreferNoSchedule"),), (taint("foo", "bar", "NoSchedule"),),
                     UNTOLERATED, "node(s) had untolerated taint {foo: bar}",
                     id="A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, "
                        "can't be scheduled onto the node"),
        pytest.param((tol("foo", "Equal", "bar"),), (taint("foo", "bar", "NoSchedule"),), None, None,
                     id="The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, "
                        "and the effect of taint is NoSchedule. Pod can be scheduled onto the node"),
        pytest.param((tol("dedicated", "Equal", "user2", "NoSchedule"),), (taint("dedicated", "user1", "PreferNoSchedule"),), None, None,
                     id="The pod has a toleration that key and value don't match the taint on the node, "
                        "but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node"),
        pytest.param((), (taint("dedicated", "user1", "PreferNoSchedule"),), None, None,
                     id="The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node"),
    ],
)
def test_taint_toleration_filter(tolerations: tuple[Toleration, ...], taints: tuple[Taint, ...], want: str | None, legacy: str | None) -> None:
    # Upstream's table says "node(s) had untolerated taint {k: v}" up to kubernetes#134740; since then
    # (v1.35, v1.34 patch releases) the reason is the generic one, and `legacy` is the old text.
    pod = mk_pod(tolerations=tolerations)
    node = mk_node("nodeA", taints=taints)
    state, pre, st = run(tainttoleration, pod, NodeInfo(node))
    assert pre is None
    assert reasons(st) == (None if want is None else (want,))
    if st is not None:
        assert st.code == UNRESOLVABLE
        t = tainttoleration.untolerated_taint(state, node)  # type: ignore[arg-type]
        assert t is not None
        assert tainttoleration.LEGACY_REASON_FORMAT.format(key=t.key, value=t.value) == legacy


def test_taint_toleration_tolerate_everything_skips() -> None:
    # Not an upstream case: the PreFilter shortcut for an Exists toleration with no key and no effect.
    state, pre, _ = run(tainttoleration, mk_pod(tolerations=(tol(operator="Exists"),)), NodeInfo(mk_node("n", taints=(taint("a", "b", "NoExecute"),))))
    assert state is SKIP and pre is None
