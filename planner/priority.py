"""A pod's priority as the Priority admission plugin sets it when the pod is created.

Upstream: plugin/pkg/admission/priority/admission.go (admitPod, getDefaultPriority: the global
default class with the lowest value, else priority 0 and PreemptLowerPriority) and
pkg/apis/scheduling/types.go (the system classes every cluster has: system-cluster-critical
2000000000, system-node-critical 2000001000).  planner.load.priority applies it to what is read.
"""

from __future__ import annotations

from dataclasses import replace

from planner.domain import PodSpec, PriorityClass

SYSTEM_PRIORITY_CLASSES = {
    "system-cluster-critical": PriorityClass("system-cluster-critical", 2_000_000_000),
    "system-node-critical": PriorityClass("system-node-critical", 2_000_001_000),
}
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"


def default_priority_class(classes: dict[str, PriorityClass]) -> PriorityClass | None:
    """getDefaultPriorityClass: of the globalDefault classes, the one with the lowest value."""
    defaults = [c for c in classes.values() if c.global_default]
    return min(defaults, key=lambda c: (c.value, c.name)) if defaults else None


def resolve_spec(spec: PodSpec, classes: dict[str, PriorityClass], missing: set[str] | None = None) -> PodSpec:
    """admitPod on a pod (template) spec: priority, priorityClassName and preemptionPolicy set."""
    if spec.priority_set and spec.preemption_policy:
        return spec
    name = spec.priority_class_name
    if name:
        pc = classes.get(name) or SYSTEM_PRIORITY_CLASSES.get(name)
        if pc is None:
            if missing is not None:
                missing.add(name)
            return spec  # admission would refuse the pod; planner counts spec.priority (0 when absent)
    else:
        pc = default_priority_class(classes)
    if pc is None and not name:
        return spec  # priority as given (0 when absent), PreemptLowerPriority ("")
    value = pc.value if pc is not None else 0
    policy = pc.preemption_policy if pc is not None else PREEMPT_LOWER_PRIORITY
    return replace(
        spec,
        priority=spec.priority if spec.priority_set else value,
        priority_class_name=name or (pc.name if pc is not None else ""),
        preemption_policy=spec.preemption_policy or policy,
        priority_set=True,
    )
