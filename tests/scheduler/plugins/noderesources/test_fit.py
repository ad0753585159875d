"""Upstream table tests of NodeResourcesFit's Filter, transcribed case by case.

Source (kubernetes/kubernetes, pkg/scheduler/framework/plugins/, v1.34/v1.35):
  noderesources/fit_test.go TestEnoughRequests, TestNotEnoughRequests,
  TestStorageRequests, TestRestartableInitContainers

Each pytest id is the upstream case name.  Pods carry their effective requests (what the loader
computes from containers, init/sidecar containers, pod-level resources and overhead); the comment
on a case shows how upstream's containers add up when that is not obvious.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from planner.scheduler.framework import SKIP, UNRESOLVABLE, UNSCHEDULABLE, NodeInfo, Status
from planner.scheduler.plugins.noderesources import fit as noderesourcesfit
from tests.scheduler.plugins.basic import mk_node, mk_pod, reasons, run

# --------------------------------------------------------------------------- NodeResourcesFit

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"
EXT_DRA = "extended.resource.dra.io/something"


def alloc(cpu: int, memory: int, pods: int, ext_a: int, storage: int, huge_a: int) -> dict[str, int]:
    """upstream makeAllocatableResources(milliCPU, memory, pods, extendedA, storage, hugePageA)."""
    return {"cpu": cpu, "memory": memory, "pods": pods, EXT_A: ext_a, "ephemeral-storage": storage, HUGE_A: huge_a}


def res(cpu: int = 0, memory: int = 0, storage: int = 0, **_: int) -> dict[str, int]:
    return {"cpu": cpu, "memory": memory, "ephemeral-storage": storage}


def rq(cpu: int = 0, memory: int = 0, storage: int = 0, scalars: Mapping[str, int] | None = None) -> dict[str, int]:
    """Effective requests as upstream's framework.Resource{MilliCPU, Memory, EphemeralStorage, ScalarResources}."""
    return {**res(cpu, memory, storage), **(scalars or {})}


def insufficient(name: str) -> str:
    return f"Insufficient {name}"


CPU_, MEM_, EPH_ = insufficient("cpu"), insufficient("memory"), insufficient("ephemeral-storage")
DEFAULT_ALLOC = alloc(10, 20, 32, 5, 20, 5)

# (name, pod effective requests, existing pod requests or None for an empty NodeInfo, want code, want reasons)
ENOUGH_REQUESTS_CASES = [
    ("no resources requested always fits", {}, rq(10, 20), None, None),
    ("too many resources fails", rq(1, 1), rq(10, 20), UNSCHEDULABLE, (CPU_, MEM_)),
    # containers 1/1, init 3/1 -> max(1, 3), max(1, 1)
    ("too many resources fails due to init container cpu", rq(3, 1), rq(8, 19), UNSCHEDULABLE, (CPU_,)),
    # init 3/1 and 2/1
    ("too many resources fails due to highest init container cpu", rq(3, 1), rq(8, 19), UNSCHEDULABLE, (CPU_,)),
    # containers 1/1, init 1/3
    ("too many resources fails due to init container memory", rq(1, 3), rq(9, 19), UNSCHEDULABLE, (MEM_,)),
    ("too many resources fails due to highest init container memory", rq(1, 3), rq(9, 19), UNSCHEDULABLE, (MEM_,)),
    ("init container fits because it's the max, not sum, of containers and init containers", rq(1, 1), rq(9, 19), None, None),
    ("multiple init containers fit because it's the max, not sum, of containers and init containers", rq(1, 1), rq(9, 19), None, None),
    ("both resources fit", rq(1, 1), rq(5, 5), None, None),
    ("one resource memory fits", rq(2, 1), rq(9, 5), UNSCHEDULABLE, (CPU_,)),
    ("one resource cpu fits", rq(1, 2), rq(5, 19), UNSCHEDULABLE, (MEM_,)),
    ("equal edge case", rq(5, 1), rq(5, 19), None, None),
    # containers 4/1, init 5/1
    ("equal edge case for init container", rq(5, 1), rq(5, 19), None, None),
    ("extended resource fits", rq(scalars={EXT_A: 1}), rq(), None, None),
    ("extended resource fits for init container", rq(scalars={EXT_A: 1}), rq(), None, None),
    ("extended resource capacity enforced", rq(1, 1, scalars={EXT_A: 10}), rq(scalars={EXT_A: 0}), UNRESOLVABLE, (insufficient(EXT_A),)),
    ("extended resource capacity enforced for init container", rq(1, 1, scalars={EXT_A: 10}), rq(scalars={EXT_A: 0}),
     UNRESOLVABLE, (insufficient(EXT_A),)),
    ("extended resource allocatable enforced", rq(1, 1, scalars={EXT_A: 1}), rq(scalars={EXT_A: 5}), UNSCHEDULABLE, (insufficient(EXT_A),)),
    ("extended resource allocatable enforced for init container", rq(1, 1, scalars={EXT_A: 1}), rq(scalars={EXT_A: 5}),
     UNSCHEDULABLE, (insufficient(EXT_A),)),
    # two containers 1/1/3 each
    ("extended resource allocatable enforced for multiple containers", rq(2, 2, scalars={EXT_A: 6}), rq(scalars={EXT_A: 2}),
     UNRESOLVABLE, (insufficient(EXT_A),)),
    # two init containers 1/1/3 each -> max
    ("extended resource allocatable admits multiple init containers", rq(1, 1, scalars={EXT_A: 3}), rq(scalars={EXT_A: 2}), None, None),
    # init containers 1/1/6 and 1/1/3
    ("extended resource allocatable enforced for multiple init containers", rq(1, 1, scalars={EXT_A: 6}), rq(scalars={EXT_A: 2}),
     UNRESOLVABLE, (insufficient(EXT_A),)),
    ("extended resource allocatable enforced for unknown resource", rq(1, 1, scalars={EXT_B: 1}), rq(), UNRESOLVABLE, (insufficient(EXT_B),)),
    ("extended resource allocatable enforced for unknown resource for init container", rq(1, 1, scalars={EXT_B: 1}), rq(),
     UNRESOLVABLE, (insufficient(EXT_B),)),
    ("kubernetes.io resource capacity enforced", rq(1, 1, scalars={K8S_IO_A: 10}), rq(), UNRESOLVABLE, (insufficient(K8S_IO_A),)),
    ("kubernetes.io resource capacity enforced for init container", rq(1, 1, scalars={K8S_IO_B: 10}), rq(),
     UNRESOLVABLE, (insufficient(K8S_IO_B),)),
    ("hugepages resource capacity enforced", rq(1, 1, scalars={HUGE_A: 10}), rq(scalars={HUGE_A: 0}), UNRESOLVABLE, (insufficient(HUGE_A),)),
    ("hugepages resource capacity enforced for init container", rq(1, 1, scalars={HUGE_A: 10}), rq(scalars={HUGE_A: 0}),
     UNRESOLVABLE, (insufficient(HUGE_A),)),
    ("hugepages resource allocatable enforced for multiple containers", rq(2, 2, scalars={HUGE_A: 6}), rq(scalars={HUGE_A: 2}),
     UNRESOLVABLE, (insufficient(HUGE_A),)),
    # Left out: "skip checking ignored extended resource" (NodeResourcesFitArgs.ignoredResources not modelled).
    # requests 1m/1 + overhead 3m/13
    ("resources + pod overhead fits", rq(4, 14), rq(5, 5), None, None),
    # requests 1m/1 + overhead 1m/15
    ("requests + overhead does not fit for memory", rq(2, 16), rq(5, 5), UNSCHEDULABLE, (MEM_,)),
    # Left out: "skip checking ignored extended resource via resource groups" (ignoredResourceGroups not modelled).
    ("skip checking extended resource request with quantity zero via resource groups", rq(1, 1, scalars={EXT_A: 0}),
     rq(scalars={EXT_A: 6}), None, None),
    ("skip checking resource request with quantity zero", rq(scalars={EXT_A: 1}), rq(20, 30, scalars={EXT_A: 1}), None, None),
    # Pod-level resources (the loader's effective requests): pod-level cpu/memory/hugepages replace the containers' sums.
    ("both pod-level and container-level resources fit", rq(1, 2), rq(5, 5), None, None),
    ("pod-level cpu resource not fit", rq(7, 2), rq(5, 5), UNSCHEDULABLE, (CPU_,)),
    ("pod-level memory resource not fit", rq(3, 2), rq(5, 19), UNSCHEDULABLE, (MEM_,)),
    ("pod-level hugepages resource fit", rq(3, 2, scalars={HUGE_A: 5}), None, None, None),
    ("both pod-level and container-level hugepages resource fit", rq(3, 2, scalars={HUGE_A: 5}), None, None, None),
    ("pod-level hugepages resource not fit", rq(3, 2, scalars={HUGE_A: 10}), None, UNRESOLVABLE, (insufficient(HUGE_A),)),
    ("one pod-level cpu resource fits and all init and non-init containers resources fit", rq(3, 2), rq(5, 19), UNSCHEDULABLE, (MEM_,)),
    # DRAExtendedResource: planner has no DeviceClasses, so only the cases where upstream delegates nothing.
    ("extended resource backed by device plugin", rq(scalars={EXT_A: 1}), rq(), None, None),
    # Left out: "extended resource backed by DRA", "extended resource backed by DRA, nil draManager",
    # "extended resource was backed by Device Plugin (Allocatable: 0)" and "... global cache" (DeviceClass delegation).
    ("extended resource backed by DRA not enabled", rq(1, 1, scalars={EXT_DRA: 1}), rq(), UNRESOLVABLE, (insufficient(EXT_DRA),)),
    ("extended resource NOT backed by DRA", rq(1, 1, scalars={EXT_B: 1}), rq(), UNRESOLVABLE, (insufficient(EXT_B),)),
]

NOT_ENOUGH_ALLOC = alloc(10, 20, 1, 0, 0, 0)
NOT_ENOUGH_REQUESTS_CASES = [
    ("even without specified resources, predicate fails when there's no space for additional pod", {}, rq(10, 20)),
    ("even if both resources fit, predicate fails when there's no space for additional pod", rq(1, 1), rq(5, 5)),
    ("even for equal edge case, predicate fails when there's no space for additional pod", rq(5, 1), rq(5, 19)),
    # containers 5/1, init 5/1
    ("even for equal edge case, predicate fails when there's no space for additional pod due to init container", rq(5, 1), rq(5, 19)),
]

STORAGE_REQUESTS_CASES = [
    ("empty storage requested, and pod fits", rq(1, 1), rq(2, 10), None, None),
    ("storage ephemeral local storage request exceeds allocatable", rq(storage=25), rq(2, 2), UNRESOLVABLE, (EPH_,)),
    ("ephemeral local storage is sufficient", rq(storage=5), rq(2, 2, 10), None, None),
    ("pod fits", rq(storage=10), rq(2, 2), None, None),
]

RESTARTABLE_ALLOC = alloc(2, 0, 1, 0, 0, 0)
RESTARTABLE_INIT_CASES = [
    # Left out: the two "... if sidecar containers is disabled" cases (SidecarContainers is GA and locked on).
    ("allow pod without restartable init containers if sidecar containers is enabled", {}, None, None),
    ("allow pod with restartable init containers if sidecar containers is enabled", {}, None, None),
    # regular 1m + sidecar 1m
    ("allow pod if the total requested resources do not exceed the node's allocatable resources", rq(2), None, None),
    # regular 1m + sidecar 2m
    ("not allow pod if the total requested resources do exceed the node's allocatable resources", rq(3), UNRESOLVABLE, (CPU_,)),
]


def _fit(pod_requests: dict[str, int], existing: dict[str, int] | None, allocatable: dict[str, int]) -> Status | None:
    pods = [] if existing is None else [mk_pod("existing", node_name="n", requests=existing)]
    ni = NodeInfo(mk_node("n", allocatable=allocatable), pods)
    state, pre, st = run(noderesourcesfit, mk_pod(requests=pod_requests), ni)
    assert pre is None and state is not SKIP
    return st


def _check(st: Status | None, code: str | None, want: tuple[str, ...] | None) -> None:
    assert reasons(st) == want
    if st is not None:
        assert st.code == code and st.plugin == "NodeResourcesFit"


@pytest.mark.parametrize("pod_requests,existing,code,want", [pytest.param(*c[1:], id=c[0]) for c in ENOUGH_REQUESTS_CASES])
def test_enough_requests(pod_requests: dict[str, int], existing: dict[str, int] | None, code: str | None, want: tuple[str, ...] | None) -> None:
    _check(_fit(pod_requests, existing, DEFAULT_ALLOC), code, want)


@pytest.mark.parametrize("pod_requests,existing", [pytest.param(*c[1:], id=c[0]) for c in NOT_ENOUGH_REQUESTS_CASES])
def test_not_enough_requests(pod_requests: dict[str, int], existing: dict[str, int]) -> None:
    _check(_fit(pod_requests, existing, NOT_ENOUGH_ALLOC), UNSCHEDULABLE, (noderesourcesfit.ERR_REASON_TOO_MANY_PODS,))


@pytest.mark.parametrize("pod_requests,existing,code,want", [pytest.param(*c[1:], id=c[0]) for c in STORAGE_REQUESTS_CASES])
def test_storage_requests(pod_requests: dict[str, int], existing: dict[str, int], code: str | None, want: tuple[str, ...] | None) -> None:
    _check(_fit(pod_requests, existing, DEFAULT_ALLOC), code, want)


@pytest.mark.parametrize("pod_requests,code,want", [pytest.param(*c[1:], id=c[0]) for c in RESTARTABLE_INIT_CASES])
def test_restartable_init_containers(pod_requests: dict[str, int], code: str | None, want: tuple[str, ...] | None) -> None:
    # upstream: an empty NodeInfo on a node with allocatable cpu 2m, memory 0, pods 1.
    _check(_fit(pod_requests, None, RESTARTABLE_ALLOC), code, want)


def test_fit_reason_order_and_ignored_names() -> None:
    # Not an upstream case: reasons in fitsRequest order (pods, cpu, memory, ephemeral-storage, scalars
    # by name), and names that are not scalar resources ("storage", unprefixed names) are never checked.
    pod_requests = {"cpu": 11, "memory": 21, "ephemeral-storage": 21, EXT_B: 1, EXT_A: 6, "storage": 10**9, "foo": 1}
    st = _fit(pod_requests, rq(), alloc(10, 20, 1, 5, 20, 5))
    _check(st, UNRESOLVABLE, ("Too many pods", CPU_, MEM_, EPH_, insufficient(EXT_A), insufficient(EXT_B)))
