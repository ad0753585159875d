"""Helpers of the basic filter plugins' table tests (tests/scheduler/plugins/<plugin>/)."""

from __future__ import annotations

from collections.abc import Mapping

from planner.domain import (
    Node,
    Pod,
    PodSpec,
    Taint,
)
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo, Status


def mk_node(
    name: str = "",
    labels: Mapping[str, str] | None = None,
    *,
    taints: tuple[Taint, ...] = (),
    unschedulable: bool = False,
    allocatable: Mapping[str, int] | None = None,
) -> Node:
    return Node(name=name, labels=dict(labels or {}), taints=taints, unschedulable=unschedulable, allocatable=dict(allocatable or {}))


def mk_pod(name: str = "p", **spec: object) -> Pod:
    return Pod(namespace="default", name=name, labels={}, spec=PodSpec(**spec))  # type: ignore[arg-type]


def run(mod, pod: Pod, ni: NodeInfo) -> tuple[object, Status | None, Status | None]:
    """PreFilter then (unless skipped or rejected) Filter, as the framework does."""
    state, pre = mod.pre_filter(pod, ClusterState([ni]))
    if pre is not None or state is SKIP:
        return state, pre, None
    return state, pre, mod.filter(state, pod, ni)


def reasons(st: Status | None) -> tuple[str, ...] | None:
    return None if st is None else st.reasons
