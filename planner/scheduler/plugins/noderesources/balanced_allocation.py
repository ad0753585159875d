"""NodeResourcesBalancedAllocation, Score.

A port of kube-scheduler v1.37 pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go
(PreScore with the best-effort Skip of kubernetes#129138, balancedResourceScorer); the formulas
and the approximation are described in resource_allocation.py.
"""

from __future__ import annotations

import math

from planner.domain import CPU, MEMORY, Pod
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo
from planner.scheduler.plugins.noderesources.resource_allocation import MAX_NODE_SCORE

NAME = "NodeResourcesBalancedAllocation"

# "v1.36" (since v1.36, still v1.37's: balance change with and without the pod) or "v1.35" (balance with it).
BALANCED_FORMULA = "v1.36"


def balance(requested: list[int], allocatable: list[int]) -> int:
    """int64((1 - std) * MaxNodeScore) over the fractions of resources with allocatable > 0."""
    fractions: list[float] = []
    total = 0.0
    for r, a in zip(requested, allocatable):
        if a == 0:
            continue
        f = r / a
        if f > 1:
            f = 1.0
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        s = 0.0
        for f in fractions:
            s = s + (f - mean) * (f - mean)
        std = math.sqrt(s / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


def balanced_resource_scorer(
    requested: list[int], allocated: list[int], allocatable: list[int], formula: str | None = None
) -> int:
    """balanced_allocation.go balancedResourceScorer (see the module docstring for the two formulas)."""
    with_pod = balance(requested, allocatable)
    if (formula or BALANCED_FORMULA) == "v1.35":
        return with_pod
    without_pod = balance(allocated, allocatable)
    return MAX_NODE_SCORE // 2 + (MAX_NODE_SCORE // 2 + with_pod - without_pod) // 2


class BalancedState:
    __slots__ = ("cpu", "mem", "formula")

    def __init__(self, cpu: int, mem: int, formula: str) -> None:
        self.cpu = cpu
        self.mem = mem
        self.formula = formula


def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> BalancedState | object:
    """balanced_allocation.go PreScore: actual requests; Skip for a best-effort pod."""
    req = pod.spec.requests
    cpu = req.get(CPU, 0)
    mem = req.get(MEMORY, 0)
    if cpu == 0 and mem == 0:
        return SKIP
    return BalancedState(cpu, mem, BALANCED_FORMULA)


def score(state: BalancedState, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    """balanced_allocation.go Score for every node (cpu and memory)."""
    pcpu, pmem = state.cpu, state.mem
    v135 = state.formula == "v1.35"
    half = MAX_NODE_SCORE // 2
    out: list[int] = []
    append = out.append
    for ni in nodes:
        alloc = ni.node.allocatable
        used = ni.requested
        ac = alloc.get(CPU, 0)
        am = alloc.get(MEMORY, 0)
        if ac and am:
            ucpu = used.get(CPU, 0)
            umem = used.get(MEMORY, 0)
            fc = (ucpu + pcpu) / ac
            fm = (umem + pmem) / am
            if fc > 1:
                fc = 1.0
            if fm > 1:
                fm = 1.0
            with_pod = int((1 - abs((fc - fm) / 2)) * MAX_NODE_SCORE)
            if v135:
                append(with_pod)
                continue
            fc = ucpu / ac
            fm = umem / am
            if fc > 1:
                fc = 1.0
            if fm > 1:
                fm = 1.0
            without_pod = int((1 - abs((fc - fm) / 2)) * MAX_NODE_SCORE)
            append(half + (half + with_pod - without_pod) // 2)
        else:
            # At most one resource has allocatable: std 0 on both sides.
            append(MAX_NODE_SCORE if v135 else half + (half + MAX_NODE_SCORE - MAX_NODE_SCORE) // 2)
    return out
