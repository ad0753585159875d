"""A pod's priority as the Priority admission plugin sets it when the pod is created.

Upstream: plugin/pkg/admission/priority/admission.go (admitPod, getDefaultPriority: the global
default class with the lowest value, else priority 0 and PreemptLowerPriority) and
pkg/apis/scheduling/types.go (the system classes every cluster has: system-cluster-critical
2000000000, system-node-critical 2000001000).

A pod read with spec.priority set was admitted already: its value stands (it is what the API
server stored); its preemptionPolicy, when absent, is its class's.  A pod without spec.priority
(a manifest, a scenario) and every workload's pod template get what admission would give the
pods created from them: spec.priorityClassName's value, else the global default's, else 0.  A
class named but not read is noted (admission would refuse such a pod: "no PriorityClass with
name X was found") and counts as priority 0.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from planner.domain import PodSpec, PriorityClass
from planner.priority import resolve_spec
from planner.snapshot import Snapshot


def resolve_priorities(snap: Snapshot, classes: dict[str, PriorityClass] | None = None) -> None:
    """Every pod's and every workload template's priority resolved, in place (classes: the
    snapshot's own by default); a note for each class named but not read."""
    pcs = snap.priority_classes if classes is None else classes
    missing: set[str] = set()
    memo: dict[int, PodSpec] = {}

    def res(spec: PodSpec) -> PodSpec:
        hit = memo.get(id(spec))
        if hit is None:
            hit = memo[id(spec)] = resolve_spec(spec, pcs, missing)
        return hit

    for key, pod in snap.pods.items():
        new = res(pod.spec)
        if new is not pod.spec:
            snap.pods[key] = replace(pod, spec=new)
    # a StatefulSet's ControllerRevisions: the templates of the pods it recreates below a partition
    tables: tuple[dict[str, Any], ...] = (snap.deployments, snap.replicasets, snap.statefulsets, snap.controller_revisions)
    for table in tables:
        for key, obj in table.items():
            tpl = obj.template
            if tpl is None:  # a ControllerRevision whose data holds no template planner reads
                continue
            new = res(tpl.spec)
            if new is not tpl.spec:
                table[key] = replace(obj, template=replace(tpl, spec=new))
    for name in sorted(missing):
        snap.notes.append(f'no PriorityClass with name {name} was found: pods naming it count as priority 0')
