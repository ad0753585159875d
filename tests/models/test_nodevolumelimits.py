"""models/nodevolumelimits.py (volumes per CSI driver per node) against a brute force: every way
to bind the pods one at a time, each bind checked as csi.go Filter does (attached + new <= limit
for each driver of the pod's new volumes)."""

from __future__ import annotations

import itertools

import pytest

from models import build
from models.problem import Group, NodeClass, Problem, VolumeLimit
from models.solve import solve


def brute(limits: list[int], attached: list[int], needs: list[tuple[int, int]]) -> bool:
    """needs: (pods, volumes per pod) per group; one class per node."""
    pods = [k for count, k in needs for _ in range(count)]
    for nodes in itertools.product(range(len(limits)), repeat=len(pods)):
        used = list(attached)
        ok = True
        for k, j in zip(pods, nodes):  # one at a time: the Filter of each bind
            if k > 0 and used[j] + k > limits[j]:
                ok = False
                break
            used[j] += k
        if ok:
            return True
    return False


def problem(limits: list[int], attached: list[int], needs: list[tuple[int, int]], size: int = 1) -> Problem:
    classes = [NodeClass(c, [f"n{c}-{i}" for i in range(size)], "", {}, [99] * len(needs), {}) for c in range(len(limits))]
    groups = [Group(g, [f"default/p{g}-{i}" for i in range(count)], "sts", {}, {}) for g, (count, _) in enumerate(needs)]
    vl = VolumeLimit(0, "ebs.csi.aws.com")
    for c in range(len(limits)):
        vl.limit[c] = limits[c]
        vl.attached[c] = attached[c]
        for g, (_, k) in enumerate(needs):
            vl.need[g, c] = k
    return Problem(classes=classes, groups=groups, volume_limits=[vl])


CASES = [
    ([1, 1], [0, 0], [(2, 1)]),
    ([1, 1], [0, 0], [(3, 1)]),
    ([2, 1], [1, 0], [(2, 1)]),
    ([3, 3], [0, 1], [(1, 2), (2, 1)]),
    ([3, 3], [0, 1], [(2, 2), (1, 1)]),
    ([2, 4], [3, 0], [(2, 2)]),  # node 0 over its limit already: takes no pod with a volume
    ([2, 4], [3, 0], [(3, 2)]),
    ([1, 0], [0, 0], [(2, 0), (1, 1)]),  # pods without a volume of the driver are never rejected
]


@pytest.mark.parametrize("limits, attached, needs", CASES)
def test_agrees_with_brute_force(limits, attached, needs):
    res = solve(build(problem(limits, attached, needs)))
    assert (res.status == "feasible") == brute(limits, attached, needs)
    if res.status == "infeasible":
        assert any(g.kind == "volumelimits" for g in res.core)


@pytest.mark.parametrize("count, ok", [(4, True), (5, False)])
def test_aggregated_class(count, ok):
    # two nodes alike, room 2 each, one volume per pod
    res = solve(build(problem([2], [0], [(count, 1)], size=2)))
    assert (res.status == "feasible") == ok
