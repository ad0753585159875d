"""NodeResourcesFit as capacity: what a class of identical nodes can still hold.

Mirrors pkg/scheduler/framework/plugins/noderesources/fit.go: a pod fits a node while, for every
resource it requests, requested + request <= allocatable, and the pod count stays within
allocatable pods.  Placing k pods of one group on a node is k such steps, so per node
``cap[g]`` (computed by the problem builder with the same rule) bounds the group, and the sums
per resource bound the groups sharing a node.  Guarded per zone so that a core can say where
room ran out.
"""

from __future__ import annotations

from models.placement import Built, size_of


def add_capacity(b: Built) -> None:
    p = b.problem
    m = b.model
    zones = sorted({c.zone for c in p.classes})
    lits = b.capacity_lits = {z: b.guard("capacity", z, f"capacity[{z or '-'}]") for z in zones}
    for c in p.classes:
        lit = lits[c.zone]
        size = size_of(b, c)
        fixed = isinstance(size, int)
        for g in p.groups:
            # one node holds at most cap[g] pods of g: size * cap bounds the class (the only bound
            # on x[g, c] but its count, which x's domain already has)
            room = size * max(c.cap[g.index], 0)
            if not fixed or room < g.count:
                m.add(b.x[g.index, c.index] <= room).only_enforce_if(lit)
        if len(p.groups) > 1:
            # groups sharing the class share its free resources and pod slots
            for r, free in c.free.items():
                terms = [(g.requests.get(r, 0), b.x[g.index, c.index]) for g in p.groups if g.requests.get(r, 0) > 0]
                if terms:
                    m.add(sum(q * v for q, v in terms) <= size * max(free, 0)).only_enforce_if(lit)
            if "pods" in c.free:
                m.add(sum(b.x[g.index, c.index] for g in p.groups) <= size * max(c.free["pods"], 0)).only_enforce_if(lit)
        for g in p.groups:
            if g.host_ports and (not fixed or c.size < min(g.count, c.cap[g.index] * c.size)):
                # NodePorts: two pods asking for the same host port never share a node
                m.add(b.x[g.index, c.index] <= size).only_enforce_if(lit)
