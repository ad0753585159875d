"""NodeVolumeLimits as capacity: volumes per CSI driver per node.

Mirrors pkg/scheduler/framework/plugins/nodevolumelimits/csi.go Filter: a pod fits a node while,
for each CSI driver of its new volumes, attached + new <= the CSINode's allocatable.count.  With
pods placed one at a time the last pod bringing a volume of the driver sees all the others, so a
placement is valid exactly when per node and driver ``sum_g need[g] * pods of g <= room``
(room = max(limit - attached, 0)).  On a class of ``size`` identical nodes: each group alone
``x[g, c] <= size * (room // need[g])`` (a pod never splits its volumes across nodes), and
together ``sum_g need[g] * x[g, c] <= size * room`` (exact when the class is one node or holds
one group: the problem builder makes classes single nodes when groups differ).  One guard per
driver, so that a core names the driver whose attach limit ran out.
"""

from __future__ import annotations

from models.placement import Built, size_of


def add_volume_limits(b: Built) -> None:
    p = b.problem
    m = b.model
    for vl in p.volume_limits:
        lit = b.guard("volumelimits", vl, f"volumelimits[{vl.driver}]")
        by_class: dict[int, list[tuple[int, int]]] = {}
        for (g, c), k in vl.need.items():
            if k > 0:
                by_class.setdefault(c, []).append((g, k))
        for c, terms in sorted(by_class.items()):
            size = size_of(b, p.classes[c])
            room = vl.room(c)
            for g, k in terms:
                # x[g, c]: one node takes at most room // k pods of g
                m.add(b.x[g, c] <= size * (room // k)).only_enforce_if(lit)
            if len(terms) > 1:
                m.add(sum(k * b.x[g, c] for g, k in terms) <= size * room).only_enforce_if(lit)
