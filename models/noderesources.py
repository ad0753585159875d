"""NodeResourcesFit as capacity: what a class of identical nodes can still hold.

Mirrors pkg/scheduler/framework/plugins/noderesources/fit.go: a pod fits a node while, for every
resource it requests, requested + request <= allocatable, and the pod count stays within
allocatable pods.  Placing k pods of one group on a node is k such steps, so per node
``cap[g]`` (computed by the problem builder with the same rule) bounds the group, and the sums
per resource bound the groups sharing a node.  Guarded per zone so that a core can say where
room ran out.
"""

from __future__ import annotations

from typing import Any

from models.cpsat import cp_model
from models.placement import Built, at_least_one, size_of
from models.problem import NodeClass

# CP-SAT checks that no linear constraint can overflow int64; amounts of exabytes (valid, if
# absurd, quantities: a node's free room saturates at 2^63-1) times a class's node count would.
SAFE = 1 << 40


def _divisor(big: int) -> int:
    """What numbers up to ``big`` are divided by to stay under SAFE."""
    return 1 if big <= SAFE else -(-big // SAFE)


def at_most(terms: list[tuple[int, Any, int]], rhs: int) -> tuple[list[tuple[int, Any]], int] | None:
    """``sum(q * v) <= rhs`` over ``(q, v, ub)`` with ``0 <= v <= ub``, as CP-SAT can take it: None
    when it always holds (``sum(q * ub) <= rhs``); the terms and the bound as they are while every
    number stays under SAFE; else scaled down by k, ``sum(floor(q / k) * v) <= floor(rhs / k)``,
    which the original implies (the left side is at most ``sum(q * v) / k <= rhs / k`` and an
    integer): a relaxation, still a sound reason for "unschedulable" (a placement found is
    verified by the filters anyway)."""
    rhs = max(rhs, 0)
    total = sum(q * ub for q, _, ub in terms)
    if total <= rhs:
        return None
    k = _divisor(max(total, rhs, *(q for q, _, _ in terms)))
    return [(q // k, v) for q, v, _ in terms if q // k > 0], rhs // k


def at_most_per_node(terms: list[tuple[int, Any, int]], free: int, nodes_ub: int) -> tuple[list[tuple[int, Any]], int] | None:
    """at_most for a class whose number of nodes n is a variable (0..nodes_ub, Built.sizes; no pod
    on it while n is 0): ``sum(q * v) <= free * n`` as ``sum(q' * v) <= f' * n``.  None when one
    node already takes every term at its bound; scaled by k as at_most does, with
    ``f' = ceil(free / k)`` so that the original still implies it."""
    free = max(free, 0)
    total = sum(q * ub for q, _, ub in terms)
    if total <= free:
        return None
    k = _divisor(max(total, free * max(nodes_ub, 1), *(q for q, _, _ in terms)))
    return [(q // k, v) for q, v, _ in terms if q // k > 0], -(-free // k)


def add_capacity(b: Built) -> None:
    p = b.problem
    m = b.model
    zones = sorted({c.zone for c in p.classes})
    lits = b.capacity_lits = {z: b.guard("capacity", z, f"capacity[{z or '-'}]") for z in zones}
    for c in p.classes:
        lit = lits[c.zone]
        if c.victims:
            _add_preempting(b, c, lit)
            continue
        size = size_of(b, c)
        fixed = isinstance(size, int)
        for g in p.groups:
            # one node holds at most cap[g] pods of g: size * cap bounds the class (the only bound
            # on x[g, c] but its count, which x's domain already has; min'd with it so that a
            # variable size's product stays within int64)
            room = size * min(max(c.cap[g.index], 0), g.count)
            if not fixed or room < g.count:
                m.add(b.x[g.index, c.index] <= room).only_enforce_if(lit)
        if len(p.groups) > 1:
            # groups sharing the class share its free resources and pod slots
            shared = [(r, free, [(g.requests.get(r, 0), b.x[g.index, c.index], g.count) for g in p.groups if g.requests.get(r, 0) > 0])
                      for r, free in c.free.items()]
            if "pods" in c.free:
                shared.append(("pods", c.free["pods"], [(1, b.x[g.index, c.index], g.count) for g in p.groups]))
            for _, free, terms in shared:
                if not terms:
                    continue
                if fixed:
                    fit = at_most(terms, c.size * max(free, 0))
                    if fit is not None:
                        m.add(sum(q * v for q, v in fit[0]) <= fit[1]).only_enforce_if(lit)
                    continue
                per = at_most_per_node(terms, free, c.size)
                if per is not None:
                    m.add(sum(q * v for q, v in per[0]) <= per[1] * size).only_enforce_if(lit)
        for g in p.groups:
            if g.host_ports and (not fixed or c.size < min(g.count, c.cap[g.index] * c.size)):
                # NodePorts: two pods asking for the same host port never share a node
                m.add(b.x[g.index, c.index] <= size).only_enforce_if(lit)


def _add_preempting(b: Built, c: NodeClass, lit: cp_model.IntVar) -> None:
    """A one-node class holding victims (models/defaultpreemption.py): per resource and pod
    slots, the new pods' requests fit the free room plus what the preempted victims free
    (fit.go fitsRequest on the node without them); cap_preempt (the room with every victim gone)
    bounds each group."""
    p = b.problem
    m = b.model
    assert c.cap_preempt is not None
    for g in p.groups:
        room = max(c.cap_preempt[g.index], 0)
        if room < g.count:
            m.add(b.x[g.index, c.index] <= room).only_enforce_if(lit)
        if g.host_ports and g.count > 1:
            m.add(b.x[g.index, c.index] <= 1).only_enforce_if(lit)  # NodePorts: one per node
    freed = {i: p.victims[i].requests for i in c.victims}
    # fitsRequest is asked of a pod placed there: a node already over its allocatable (and
    # given no new pod) is no contradiction
    total = sum(b.x[g.index, c.index] for g in p.groups)
    placed = at_least_one(b, total, sum(g.count for g in p.groups), f"placed[{c.index}]")
    for r, free in c.free.items():
        terms = [(g.requests.get(r, 0), b.x[g.index, c.index]) for g in p.groups if g.requests.get(r, 0) > 0]
        if r == "pods":
            terms = [(1, b.x[g.index, c.index]) for g in p.groups]
        if terms:
            gain = b.freed(c.victims, {i: q.get(r, 0) for i, q in freed.items()})
            m.add(sum(q * v for q, v in terms) <= free + gain).only_enforce_if([lit, placed])
