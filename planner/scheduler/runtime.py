"""Running the filter plugins: PreFilter once per pod, Filter per node, in the profile's order.

Upstream: pkg/scheduler/framework/runtime/framework.go (RunPreFilterPlugins, RunFilterPlugins)
and pkg/scheduler/schedule_one.go (findNodesThatPassFilters).  The plugins and their order are
planner.scheduler.registry.FILTER_PLUGINS.

kube-scheduler stops at the first failing filter of a node; ``evaluate`` runs every filter on
every node so that ``explain`` can list all of them, and reports the first one as the scheduler's
own reason for the summary line.  ``feasible_nodes`` stops at a node's first failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from planner.domain import Pod
from planner.scheduler.framework import SKIP, ClusterState, Status, fit_error_summary
from planner.scheduler.plugins.nodeaffinity import filtering as nodeaffinity
from planner.scheduler.registry import FILTER_PLUGINS, FilterPlugin


def filter_plugins() -> list[FilterPlugin]:
    """The filter plugins in the default profile's filter order."""
    return list(FILTER_PLUGINS)


@dataclass(slots=True)
class NodeResult:
    name: str
    failures: list[Status] = field(default_factory=list)

    @property
    def feasible(self) -> bool:
        return not self.failures


@dataclass
class Evaluation:
    pod: Pod
    nodes: list[NodeResult]
    prefilter_failures: list[Status]
    states: dict[str, Any]  # plugin NAME -> its PreFilter state (for explain's details)

    @property
    def feasible_nodes(self) -> list[str]:
        return [n.name for n in self.nodes if n.feasible]

    @property
    def schedulable(self) -> bool:
        return any(n.feasible for n in self.nodes)

    def summary(self) -> str:
        """kube-scheduler's FailedScheduling message (first failing plugin per node)."""
        if self.schedulable:
            n = len(self.feasible_nodes)
            return f"{n}/{len(self.nodes)} nodes are available."
        first = self.prefilter_failures[0] if self.prefilter_failures else None
        statuses = {n.name: n.failures[0] for n in self.nodes if n.failures}
        return fit_error_summary(len(self.nodes), first, statuses)


def evaluate(pod: Pod, cluster: ClusterState, plugins: Sequence[FilterPlugin] | None = None) -> Evaluation:
    """Run every PreFilter once and every Filter on every node; keep all failures per node."""
    mods = plugins if plugins is not None else FILTER_PLUGINS
    states: dict[str, Any] = {}
    pre_fail: list[Status] = []
    active: list[tuple[FilterPlugin, Any]] = []
    for mod in mods:
        state, status = mod.pre_filter(pod, cluster)
        states[mod.NAME] = state
        if status is not None:
            pre_fail.append(status)
            continue
        if state is not SKIP:
            active.append((mod, state))
    results: list[NodeResult] = []
    add = results.append
    filters = [(mod.filter, state) for mod, state in active]  # looked up once, not per node
    # a PreFilterResult (NodeAffinity's node names): schedule_one.go findNodesThatFitPod runs no
    # filter on the other nodes, which get only the status NodeAffinity's Filter gives them here
    # (SetAbsentNodesStatus: "node(s) didn't satisfy plugin(s) [NodeAffinity]")
    na = states.get(nodeaffinity.NAME)
    only = getattr(na, "node_names", None) if na is not None and na is not SKIP else None
    na_filter = nodeaffinity.filter
    for ni in cluster.node_infos:
        failures = list(pre_fail)
        if only is not None and ni.node.name not in only and not pre_fail:
            st = na_filter(na, pod, ni)
            if st is not None:
                failures.append(st)
                add(NodeResult(ni.node.name, failures))
                continue
        for flt, state in filters:
            st = flt(state, pod, ni)
            if st is not None:
                failures.append(st)
        add(NodeResult(ni.node.name, failures))
    return Evaluation(pod, results, pre_fail, states)


def feasible_nodes(pod: Pod, cluster: ClusterState, plugins: Sequence[FilterPlugin] | None = None) -> list[str]:
    """Names of the nodes that pass every filter, stopping at a node's first failure (fast path)."""
    mods = plugins if plugins is not None else FILTER_PLUGINS
    active = []
    for mod in mods:
        state, status = mod.pre_filter(pod, cluster)
        if status is not None:
            return []
        if state is not SKIP:
            active.append((mod.filter, state))
    out = []
    for ni in cluster.node_infos:
        for flt, state in active:
            if flt(state, pod, ni) is not None:
                break
        else:
            out.append(ni.name)
    return out
