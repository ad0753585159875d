"""What the CP-SAT problem (planner.engines.problem) takes from NodeResourcesFit: per node, how
many more pods like a given one fit (pkg/scheduler/framework/plugins/noderesources/fit.go
fitsRequest, repeated); the packing itself is
models/noderesources.py's."""

from __future__ import annotations

from planner.domain import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Pod
from planner.scheduler.framework import NodeInfo
from planner.scheduler.plugins.noderesources import fit

NAME = fit.NAME


def capacities(pod: Pod, nodes: list[NodeInfo], limit: int) -> list[int]:
    """Per node: how many more pods like ``pod`` fit (NodeResourcesFit, repeated), at most ``limit``."""
    state, _ = fit.pre_filter(pod, None)  # type: ignore[arg-type]
    flt = fit.filter
    reqs = [(name, q) for name, q in pod.spec.requests.items() if q > 0 and (name in (CPU, MEMORY, EPHEMERAL_STORAGE) or fit.is_scalar_resource_name(name))]
    out = []
    for ni in nodes:
        if flt(state, pod, ni) is not None:
            out.append(0)
            continue
        alloc = ni.node.allocatable
        used = ni.requested
        k = alloc.get(PODS, 0) - len(ni.pods)
        for name, q in reqs:
            k = min(k, (alloc.get(name, 0) - used.get(name, 0)) // q)
        out.append(max(0, min(k, limit)))
    return out
