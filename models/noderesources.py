"""NodeResourcesFit as capacity: what a class of identical nodes can still hold.

Mirrors pkg/scheduler/framework/plugins/noderesources/fit.go: a pod fits a node while, for every
resource it requests, requested + request <= allocatable, and the pod count stays within
allocatable pods.  Placing k pods of one group on a node is k such steps, so per node
``cap[g]`` (computed by the problem builder with the same rule) bounds the group, and the sums
per resource bound the groups sharing a node.  Guarded per zone so that a core can say where
room ran out.
"""

from __future__ import annotations

from models.cpsat import cp_model
from models.placement import Built, at_least_one
from models.problem import NodeClass


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
        for g in p.groups:
            # one node holds at most cap[g] pods of g: size * cap bounds the class (the only bound
            # on x[g, c] but its count, which x's domain already has)
            room = c.size * max(c.cap[g.index], 0)
            if room < g.count:
                m.add(b.x[g.index, c.index] <= room).only_enforce_if(lit)
        if len(p.groups) > 1:
            # groups sharing the class share its free resources and pod slots
            for r, free in c.free.items():
                terms = [(g.requests.get(r, 0), b.x[g.index, c.index]) for g in p.groups if g.requests.get(r, 0) > 0]
                if terms:
                    m.add(sum(q * v for q, v in terms) <= c.size * max(free, 0)).only_enforce_if(lit)
            if "pods" in c.free:
                m.add(sum(b.x[g.index, c.index] for g in p.groups) <= c.size * max(c.free["pods"], 0)).only_enforce_if(lit)
        for g in p.groups:
            if g.host_ports and c.size < min(g.count, c.cap[g.index] * c.size):
                # NodePorts: two pods asking for the same host port never share a node
                m.add(b.x[g.index, c.index] <= c.size).only_enforce_if(lit)


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
