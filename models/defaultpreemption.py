"""DefaultPreemption as CP-SAT: the lower-priority pods evicted so that the new pods fit.

Upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
(SelectVictimsOnNode: the potential victims are the node's pods of a strictly lower priority;
filterPodsWithPDBViolation) and pkg/scheduler/framework/preemption/preemption.go
(pickOneNodeForPreemption: fewest PodDisruptionBudget violations first).

v[i] (models.placement.Built.v): victim i is preempted, deleted before the new pods are placed
("preempt first").  What it frees, each encoder adds where it counts pods:
* its requests and pod slot on its node (models/noderesources.py, a one-node class per victim node);
* the static rejections its presence causes on its node -- a host port it holds, its
  anti-affinity against the new pods or theirs against it (Exclusion.unless, models/placement.py);
* its count in the spread domains whose selector counts it, for its own domain
  (models/podtopologyspread.py).

Preemption evicts pods from the node the preemptor goes to, so a victim is preempted only where
a pod of a group that outranks it is placed (``add_victims``).  Not freed: a victim's
affinity support (existing pods that satisfy a new pod's required affinity are counted present: a
relaxation) and its CSI volumes (NodeVolumeLimits counts them still).

``add_victim_objective``: fewest budget violations (per budget, victims past its
disruptionsAllowed), then fewest victims, then the lowest priorities; set only for the witness's solve (an infeasibility core
needs none), cleared by ``clear_victim_objective``.
"""

from __future__ import annotations

from models.cpsat import cp_model
from models.placement import Built


def add_victims(b: Built) -> None:
    """A victim is preempted only on a node where a pod of a group that outranks it lands."""
    p = b.problem
    m = b.model
    for vic in p.victims:
        placed = sum(b.x[g, vic.node_class] for g in vic.preemptors)
        m.add(placed >= 1).only_enforce_if(b.v[vic.index])


def add_victim_objective(b: Built) -> None:
    p = b.problem
    m = b.model
    if not p.victims:
        return
    overflow = []
    for budget in p.budgets:
        members = [v.index for v in p.victims if budget.index in v.budgets]
        if len(members) <= max(budget.allowed, 0):
            continue
        # the budget's violations: victims past its disruptionsAllowed
        o = m.new_int_var(0, len(members), f"pdb_violations[{budget.index}]")
        m.add(o >= sum(b.v[i] for i in members) - max(budget.allowed, 0))
        overflow.append(o)
    # lexicographic: violations, then victims, then the victims' priorities (by rank: lower
    # priorities go first, as pickOneNodeForPreemption prefers the lowest-priority victims)
    prios = sorted({v.priority for v in p.victims})
    rank = {pr: i for i, pr in enumerate(prios)}
    w_count = len(p.victims) * max(len(prios) - 1, 0) + 1
    w_viol = w_count * (len(p.victims) + 1)
    m.minimize(
        w_viol * sum(overflow)  # type: ignore[operator]
        + w_count * sum(b.v.values())
        + sum(rank[v.priority] * b.v[v.index] for v in p.victims if rank[v.priority])
    )


def clear_victim_objective(b: Built) -> None:
    b.model.clear_objective()


def hint(b: Built, x: dict[tuple[int, int], int], victims: list[int]) -> None:
    """Start the optimisation from a known solution."""
    m = b.model
    m.clear_hints()
    for k, var in b.x.items():
        m.add_hint(var, int(x.get(k, 0)))
    chosen = set(victims)
    for i, lit in b.v.items():
        m.add_hint(lit, int(i in chosen))  # an int: older OR-Tools refuse a bool here


__all__ = ["add_victim_objective", "add_victims", "clear_victim_objective", "cp_model", "hint"]
