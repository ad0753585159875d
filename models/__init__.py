"""CP-SAT encodings of kube-scheduler's filters, one module per concern (mirroring the plugins).

``build(problem)`` assembles a model from models.placement (variables, static exclusions),
models.defaultpreemption (the victims preemption may evict), models.noderesources (capacity), models.nodevolumelimits (volumes per CSI driver per node), models.podtopologyspread and models.interpodaffinity; it never
solves.  ``models.solve.solve`` is the only solve entry.
"""

from __future__ import annotations

from typing import Any

from models.cpsat import cp_model
from models.defaultpreemption import add_victims
from models.interpodaffinity import add_affinity, add_anti, add_anti_families
from models.noderesources import add_capacity
from models.nodevolumelimits import add_volume_limits
from models.placement import Built, build_placement
from models.podtopologyspread import add_spread
from models.problem import Problem
from models.volumebinding import add_static_claims


def build(
    problem: Problem, model: cp_model.CpModel | None = None, optional: dict[int, Any] | None = None, sizes: dict[int, Any] | None = None
) -> Built:
    """The whole model of ``problem``; ``model``, ``optional``, ``sizes``: see models.placement.build_placement."""
    b = build_placement(problem, model, optional, sizes)
    add_victims(b)
    add_capacity(b)
    for s in problem.spreads:
        add_spread(b, s)
    for a in problem.anti:
        add_anti(b, a)
    add_anti_families(b)
    for f in problem.affinity:
        add_affinity(b, f)
    add_static_claims(b)
    add_volume_limits(b)
    return b


__all__ = ["Built", "Problem", "build"]
