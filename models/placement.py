"""The core placement variables and the guarded constraint groups (assumption literals).

Follows the OR-Tools sample style: variables live in dicts keyed by tuples, each with a comment
giving its meaning.  Builders add constraints and never solve (models.solve does).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from models.cpsat import cp_model
from models.problem import Problem


@dataclass
class Guard:
    """One assumption literal: a hard constraint group that an infeasibility core can name."""

    kind: str  # place | static | capacity | spread | anti | affinity | volumes | volumelimits
    ref: Any  # the problem object (Group, Exclusion, Spread, ...) or a (group, zone) pair
    lit: cp_model.IntVar
    group: int | None = None


@dataclass
class Built:
    problem: Problem
    model: cp_model.CpModel
    # x[g, c]: how many pods of group g are placed on nodes of class c
    x: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)
    guards: list[Guard] = field(default_factory=list)
    # aux[name]: variables the explanations read back (domain counts, minima)
    aux: dict[Any, Any] = field(default_factory=dict)
    # capacity_lits[zone]: the capacity guard of the classes in that zone (models.noderesources)
    capacity_lits: dict[str, cp_model.IntVar] = field(default_factory=dict)
    # v[i]: victim i (Problem.victims) is preempted, evicted before the new pods are placed
    # (models.defaultpreemption)
    v: dict[int, cp_model.IntVar] = field(default_factory=dict)
    # optional[c]: class c is a node that exists only when this literal is true (a node a
    # remediation may add, models.remediation): no pod on it otherwise, and no topology domain of
    # its own (models.podtopologyspread counts a domain only while one of its nodes exists)
    optional: dict[int, cp_model.IntVar] = field(default_factory=dict)
    # sizes[c]: the number of nodes of class c when it is a variable (the new nodes of one node
    # group a remediation may add, models.remediation): 0 .. its NodeClass.size; optional[c] is
    # then the literal "at least one".  Every encoder reads a class's size through size_of.
    sizes: dict[int, cp_model.IntVar] = field(default_factory=dict)

    def freed(self, victims: list[int], weights: dict[int, int] | None = None) -> cp_model.LinearExpr:
        """What the preempted ones of ``victims`` free: their count (or sum of ``weights``)."""
        if weights is None:
            return cp_model.LinearExpr.sum([self.v[i] for i in victims])
        chosen = [i for i in victims if weights.get(i)]
        return cp_model.LinearExpr.weighted_sum([self.v[i] for i in chosen], [weights[i] for i in chosen])

    def guard(self, kind: str, ref: Any, name: str, group: int | None = None) -> cp_model.IntVar:
        lit = self.model.new_bool_var(name)
        self.guards.append(Guard(kind, ref, lit, group))
        return lit

    @property
    def assumptions(self) -> list[cp_model.IntVar]:
        return [g.lit for g in self.guards]


def build_placement(
    problem: Problem,
    model: cp_model.CpModel | None = None,
    optional: dict[int, cp_model.IntVar] | None = None,
    sizes: dict[int, cp_model.IntVar] | None = None,
) -> Built:
    """x[g, c] (bounded by the group's count), each group's 'all pods placed' guard and its static
    exclusions.  Capacity is left to models.noderesources.add_capacity, under its guards.
    ``model``: build into this model (models.remediation puts several in one); ``optional``: the
    classes that are nodes only while a literal holds (Built.optional): no pod on them otherwise;
    ``sizes``: classes whose number of nodes is a variable (Built.sizes)."""
    m = model if model is not None else cp_model.CpModel()
    b = Built(problem, m)
    for vic in problem.victims:
        # v[i]: the lower-priority pod vic.pod is preempted (deleted before the new pods are placed)
        b.v[vic.index] = m.new_bool_var(f"v[{vic.index}]")
    b.optional = dict(optional or {})
    b.sizes = dict(sizes or {})
    for g in problem.groups:
        for c in problem.classes:
            # x[g, c]: pods of group g on class c.  Its domain is bounded by the group's count only
            # (implied by 'total <= count' anyway); what a class can hold is a guarded constraint
            # (models/noderesources.py), so that an infeasibility core can name the room that ran out.
            b.x[g.index, c.index] = m.new_int_var(0, g.count, f"x[{g.index},{c.index}]")
        for ci, lit in b.optional.items():
            m.add(b.x[g.index, ci] == 0).only_enforce_if(lit.negated())
        total = sum(b.x[g.index, c.index] for c in problem.classes)
        m.add(total <= g.count)
        place = b.guard("place", g, f"place[{g.index}]", g.index)
        m.add(total == g.count).only_enforce_if(place)
        for e in g.exclusions:
            add_exclusion(b, g.index, e)
    return b


def add_exclusion(b: Built, g: int, e: Any) -> cp_model.IntVar:
    """One static filter's verdict (models.problem.Exclusion) for group ``g``, under its guard:
    no pod of the group on the classes it rejects (where pods preemption may evict cause the
    rejection, Exclusion.unless: while any one of them stays)."""
    lit = b.guard("static", e, f"static[{g},{e.plugin}]", g)
    for ci in e.classes:
        lifted_by = e.unless.get(ci)
        if not lifted_by:
            b.model.add(b.x[g, ci] == 0).only_enforce_if(lit)
            continue
        for i in lifted_by:
            b.model.add(b.x[g, ci] == 0).only_enforce_if([lit, b.v[i].Not()])
    return lit


def present(b: Built, classes: list[int], name: str) -> cp_model.IntVar | None:
    """A literal true when some node of ``classes`` exists (Built.optional), or None when one of
    them always does (the usual case: no optional class among them)."""
    if not classes:
        return None
    lits = []
    for c in classes:
        lit = b.optional.get(c)
        if lit is None:
            return None
        lits.append(lit)
    key = ("present-domain", tuple(sorted(classes)))
    hit = b.aux.get(key)
    if hit is None:
        hit = b.model.new_bool_var(name)
        b.model.add_bool_or(lits).only_enforce_if(hit)
        for lit in lits:
            b.model.add_implication(lit, hit)
        b.aux[key] = hit
    return hit


def size_of(b: Built, c: Any) -> Any:
    """The number of nodes of class ``c`` (a NodeClass): its size, or the variable of Built.sizes."""
    return b.sizes.get(c.index, c.size)


def divisor_of(b: Built, c: Any) -> Any:
    """size_of, never 0 (a divisor): the variable size clamped to at least 1 (a class with no node
    holds no pod, so what is divided is 0 then)."""
    v = b.sizes.get(c.index)
    if v is None:
        return c.size
    key = ("divisor", c.index)
    hit = b.aux.get(key)
    if hit is None:
        hit = b.model.new_int_var(1, max(1, c.size), f"divisor[{c.index}]")
        b.model.add_max_equality(hit, [v, 1])
        b.aux[key] = hit
    return hit


def domain_sum(b: Built, groups: list[int], classes: list[int]) -> cp_model.LinearExpr:
    return sum((b.x[g, c] for g in groups for c in classes), cp_model.LinearExpr.sum([]))  # type: ignore[arg-type]


def at_least_one(b: Built, expr: Any, ub: int, name: str) -> cp_model.IntVar:
    """A boolean equal to (expr >= 1) for a non-negative integer expression bounded by ub."""
    m = b.model
    p = m.new_bool_var(name)
    m.add(expr >= 1).only_enforce_if(p)
    m.add(expr == 0).only_enforce_if(p.negated())
    return p
