"""SchedulingGates: a pod with scheduling gates is not scheduled until every gate is removed.

Port of pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go (v1.37): a PreEnqueue
plugin.  kube-scheduler keeps such a pod out of its active queue (the pod's PodScheduled condition
says SchedulingGated): no filter runs for it, no node is tried, nothing is preempted for it.  The
controller that added a gate removes it (spec.schedulingGates may only shrink after creation).
"""

from __future__ import annotations

from planner.domain import Pod
from planner.scheduler.framework import UNRESOLVABLE, Status

NAME = "SchedulingGates"

# The PodScheduled condition's reason and message of a gated pod (pkg/apis/core: PodReasonSchedulingGated;
# schedule_one.go / the scheduling queue set it).
REASON_SCHEDULING_GATED = "SchedulingGated"
MESSAGE_SCHEDULING_GATED = "Scheduling is blocked due to non-empty scheduling gates"


def pre_enqueue(pod: Pod) -> Status | None:
    """None when the pod may enter the scheduling queue; else UnschedulableAndUnresolvable with
    "waiting for scheduling gates: [a b]" (Go's %v of the gates' names)."""
    gates = pod.spec.scheduling_gates
    if not gates:
        return None
    return Status(NAME, (f"waiting for scheduling gates: [{' '.join(gates)}]",), UNRESOLVABLE)
