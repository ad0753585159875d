"""CP-SAT encodings of kube-scheduler's filters, one module per concern (mirroring the plugins).

``build(problem)`` assembles a model from models.placement (variables, static exclusions),
models.noderesources (capacity), models.podtopologyspread and models.interpodaffinity; it never
solves.  ``models.solve.solve`` is the only solve entry.
"""

from __future__ import annotations

from models.interpodaffinity import add_affinity, add_anti
from models.noderesources import add_capacity
from models.placement import Built, build_placement
from models.podtopologyspread import add_spread
from models.problem import Problem


def build(problem: Problem) -> Built:
    b = build_placement(problem)
    add_capacity(b)
    for s in problem.spreads:
        add_spread(b, s)
    for a in problem.anti:
        add_anti(b, a)
    for f in problem.affinity:
        add_affinity(b, f)
    return b


__all__ = ["Built", "Problem", "build"]
