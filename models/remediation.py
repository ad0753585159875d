"""The remediation action layer: one CP-SAT model that chooses the actions of a plan.

A remediation (planner.engines.remediation) has candidate actions; here each is an ``Option``
(one literal), and the effect of each is encoded exactly where it can be, with the per-plugin
encoders of this package (models.placement, models.noderesources, models.podtopologyspread,
models.interpodaffinity, models.volumebinding, models.nodevolumelimits) rather than rules of its
own:

* a ``World`` is a placement problem (models.problem.Problem) of the pods to place: the pods of
  the workload that stay where they run plus the new ones (the first world), or every pod of the
  workload recreated from its changed template (a world an option with ``world`` set chooses: a
  template change rolls every pod).  Exactly one world is active: its pods must all be placed;
  the others place none;
* a template change is a ``Variant``: the same world's problem with that change made (same node
  classes, groups aligned one to one with the world's).  Its constraint families (a static
  exclusion of one group by one plugin, the capacity of every class, a spread constraint, an
  anti-affinity or affinity relation, the static claims, a CSI driver's volume limit) are compared
  with the world's: a family the variant does not have holds only while the option is off, a
  family only the variant has only while it is on (``families``).  Options that change different
  families combine exactly (a spread constraint, an anti-affinity term, the tolerations, the
  requests are different families); two options that change the same family are never combined;
* a node group (``NodeGroupOption``) has an integer count of new nodes: its potential nodes are
  one class (identical nodes: the group's template, its allocatable already less its DaemonSet
  pods) whose number of nodes is that count (Built.sizes: every encoder reads a class's size
  through models.placement.size_of), with no pod and no topology domain while it is 0
  (Built.optional);
* ``gated`` classes are existing nodes the pods may use only with an option (a cordoned node,
  uncordoned); ``unpins`` are static exclusions an option removes (a claim deleted: its volume's
  pin goes, an upper bound of the action: the new claim is provisioned where the pod goes);
* options with no placement effect (``Option`` listed in no world: a rollout strategy, the pod
  management policy) cost what they cost and change nothing here: the model proposes them only
  with a set that the check model admits and whose verification failed before.

The objective is the plan's cost, field by field (lexicographic, as a weighted sum whose weights
keep every field above the sum of all those after it), so the optimum is the cheapest plan and
the next ones come, cheapest first, from ``block_supersets`` (a verified plan: neither it nor any
plan that contains it again) and ``block_exact`` (a plan that failed its verification).  The
builder never solves: models.solve.solve_actions does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from models import build
from models.cpsat import cp_model
from models.interpodaffinity import add_affinity, add_anti, add_anti_families
from models.noderesources import add_capacity
from models.nodevolumelimits import add_volume_limits
from models.placement import Built, Guard, add_exclusion
from models.podtopologyspread import add_spread
from models.problem import Problem
from models.volumebinding import add_static_claims

MAX_WEIGHT = 1 << 62  # CP-SAT objective coefficients are 64-bit


@dataclass
class Option:
    """One candidate action: a literal.  ``cost``: one value per objective field (the caller's
    order, most important first); ``conflict``: at most one option of a conflict group (they edit
    the same field); ``world``: the world the option puts the pods in (a template change: every
    pod recreated), "" for none."""

    id: str
    cost: tuple[int, ...]
    conflict: str = ""
    world: str = ""
    family: str = ""  # variants of one change (maxSkew +1, +2, +3): a plan found with one ends the others ("" : its own)


@dataclass
class NodeGroupOption:
    """New nodes of one node group: a count of them, at most ``limit``.  ``classes``: per world,
    the class that holds the group's ``limit`` potential nodes (their number is the count)."""

    id: str
    per_node: tuple[int, ...]  # cost of each node
    once: tuple[int, ...]  # cost of the action itself (counted once when any node is added)
    limit: int
    classes: dict[str, int] = field(default_factory=dict)


@dataclass
class Variant:
    option: str
    problem: Problem  # the world's problem with the option's change made


@dataclass
class World:
    name: str
    problem: Problem
    variants: list[Variant] = field(default_factory=list)
    gated: dict[int, str] = field(default_factory=dict)  # class -> the option without which no pod goes there
    unpins: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # option -> (group, plugin) exclusions it removes


@dataclass
class ActionProblem:
    worlds: list[World]  # the first is the world of no template change
    options: list[Option]
    node_groups: list[NodeGroupOption] = field(default_factory=list)
    fields: tuple[str, ...] = ()  # names of the cost fields, for messages


@dataclass
class ActionModel:
    problem: ActionProblem
    model: cp_model.CpModel
    lits: dict[str, cp_model.IntVar]  # option id -> literal
    counts: dict[str, cp_model.IntVar]  # node group id -> number of new nodes
    some: dict[str, cp_model.IntVar]  # node group id -> "at least one new node"
    worlds: dict[str, cp_model.IntVar]  # world name -> active
    builts: dict[str, Built]  # world name -> its placement model (x, guards)
    weights: list[int]
    objective: cp_model.LinearExpr
    conflicts: list[tuple[str, str]] = field(default_factory=list)  # option pairs never combined (same family)
    families: dict[str, Any] = field(default_factory=dict)  # option family -> "one of its options is chosen"
    _family: dict[str, str] = field(default_factory=dict)  # option id -> its family
    _cache: dict[tuple, Any] = field(default_factory=dict)
    # world name -> a lower bound of the objective of every solution in that world (float("inf"):
    # none), proven by earlier solves (models.solve.solve_actions).  The model only ever gains
    # constraints (blocks; a cut holds only while assumed), so a bound stays true
    bounds: dict[str, float] = field(default_factory=dict)

    def possible_worlds(self, assumptions: list[Any]) -> set[str]:
        """The worlds a solution may be in while ``assumptions`` hold, by the world rules alone
        (build_actions: a world other than the first is active exactly when one of its options
        is chosen; exactly one world is active): another world needs one of its options not
        assumed off; the first world, none of another world's options assumed on."""
        on = {a.index for a in assumptions if a.index >= 0}
        off = {-a.index - 1 for a in assumptions if a.index < 0}
        ap = self.problem
        out: set[str] = set()
        chosen_elsewhere = False
        for w in ap.worlds[1:]:
            mine = [self.lits[o.id].index for o in ap.options if o.world == w.name]
            if any(i in on for i in mine):
                chosen_elsewhere = True
            if any(i not in off for i in mine):
                out.add(w.name)
        if not chosen_elsewhere:
            out.add(ap.worlds[0].name)
        # a world's own literal assumed: off rules it out, on rules the others out
        return {w for w in out if self.worlds[w].index not in off and not any(self.worlds[v].index in on for v in self.worlds if v != w)}

    def block_supersets(self, chosen: dict[str, int]) -> None:
        """Neither this plan nor any plan that contains it, nor another variant of it: an option of
        the same family as each of its options and new nodes in the same node groups (any number:
        a plan's variants are the cheapest that work, as a ladder of variants stops at the first
        that works)."""
        terms: list[Any] = []
        for oid, v in chosen.items():
            if oid in self.lits and v:
                terms.append(self.families[self._family[oid]])
            elif oid in self.counts and v:
                terms.append(self.some[oid])
        self.model.add_bool_or([t.negated() for t in terms])

    def block_exact(self, chosen: dict[str, int]) -> None:
        """Not exactly this plan (a superset may still be proposed)."""
        lits: list[Any] = []
        for oid, lit in self.lits.items():
            lits.append(lit.negated() if chosen.get(oid) else lit)
        for gid in self.counts:
            lits.append(self._exactly(gid, chosen.get(gid, 0)).negated())
        self.model.add_bool_or(lits)

    def only(self, chosen: dict[str, int]) -> list[Any]:
        """Assumptions that fix every option to ``chosen`` (node groups: exactly that count; none
        by the group's own "no new node" literal, so that the model gains no variable: a solve
        of an option alone, which the search may ask for ahead of time, leaves it as it was)."""
        out: list[Any] = []
        for oid, lit in self.lits.items():
            out.append(lit if chosen.get(oid) else lit.negated())
        for gid in self.counts:
            k = chosen.get(gid, 0)
            out.append(self.some[gid].negated() if k == 0 else self._exactly(gid, k))
        return out

    def at_most(self, chosen: dict[str, int]) -> list[Any]:
        """Assumptions that allow only ``chosen``'s options and at most its node counts."""
        out: list[Any] = []
        for oid, lit in self.lits.items():
            if not chosen.get(oid):
                out.append(lit.negated())
        for gid in self.counts:
            k = chosen.get(gid, 0)
            out.append(self._at_least(gid, k + 1).negated())
        return out

    def _at_least(self, gid: str, k: int) -> Any:
        return self._literal(gid, ">=", k)

    def _exactly(self, gid: str, k: int) -> Any:
        return self._literal(gid, "==", k)

    def _literal(self, gid: str, op: str, k: int) -> Any:
        key = (gid, op, k)
        hit = self._cache.get(key)
        if hit is None:
            n = self.counts[gid]
            hit = self.model.new_bool_var(f"count[{gid}]{op}{k}")
            if op == ">=":
                self.model.add(n >= k).only_enforce_if(hit)
                self.model.add(n <= k - 1).only_enforce_if(hit.negated())
            else:
                self.model.add(n == k).only_enforce_if(hit)
                self.model.add(n != k).only_enforce_if(hit.negated())
            self._cache[key] = hit
        return hit


# --------------------------------------------------------------------------- families


def guard_family(g: Guard) -> tuple | None:
    """The constraint family a guard of models.build belongs to (None: the pods to place)."""
    if g.kind == "place":
        return None
    if g.kind == "static":
        return ("static", g.group, g.ref.plugin, tuple(g.ref.classes))
    if g.kind == "capacity":
        return ("capacity",)
    if g.kind == "volumes":
        return ("claims",)
    return (g.kind, _content(g.ref))


def _content(ref: Any) -> tuple:
    """A family's content, for comparing a variant's with its world's (indices left out)."""
    from models.problem import Affinity, AntiAffinity, Spread, VolumeLimit

    if isinstance(ref, Spread):
        return (
            ref.topology_key, ref.max_skew, ref.min_domains, ref.per_node, tuple(sorted(ref.carriers.items())), tuple(sorted(ref.matchers)),
            tuple(ref.eligible), tuple(sorted(ref.existing.items())), tuple(sorted(ref.existing_per_node.items())), tuple(ref.domains),
            ref.eligible_nodes,
        )
    if isinstance(ref, AntiAffinity):
        return (ref.topology_key, ref.per_node, ref.a, ref.b)
    if isinstance(ref, Affinity):
        return (
            ref.topology_key, ref.per_node, ref.carrier, tuple(ref.supporters), ref.self_match, tuple(ref.existing_domains),
            tuple(ref.existing_classes), ref.any_existing,
        )
    if isinstance(ref, VolumeLimit):
        return (ref.driver, tuple(sorted(ref.limit.items())), tuple(sorted(ref.attached.items())), tuple(sorted(ref.need.items())))
    raise TypeError(f"no family for {type(ref).__name__}")


def families(p: Problem) -> dict[tuple, tuple[str, Any]]:
    """Every constraint family of ``p``: key -> (kind, object) (kind: what encodes it)."""
    out: dict[tuple, tuple[str, Any]] = {}
    for g in p.groups:
        for e in g.exclusions:
            out[("static", g.index, e.plugin, tuple(e.classes))] = ("static", (g.index, e))
    out[("capacity",)] = ("capacity", _capacity_content(p))
    for s in p.spreads:
        out[("spread", _content(s))] = ("spread", s)
    for a in p.anti:
        out[("anti", _content(a))] = ("anti", a)
    for f in p.affinity:
        out[("affinity", _content(f))] = ("affinity", f)
    if p.static_claims:
        out[("claims",)] = ("claims", _claims_content(p))
    for vl in p.volume_limits:
        out[("volumelimits", _content(vl))] = ("volumelimits", vl)
    return out


def _capacity_content(p: Problem) -> tuple:
    return (
        tuple((c.index, tuple(c.cap), tuple(sorted(c.free.items()))) for c in p.classes),
        tuple((tuple(sorted(g.requests.items())), g.host_ports, g.count) for g in p.groups),
    )


def _claims_content(p: Problem) -> tuple:
    return tuple((sc.group, sc.claim, tuple(sorted((c, tuple(v)) for c, v in sc.options.items()))) for sc in p.static_claims)


def _family_key(kind: str, key: tuple, p: Problem) -> tuple:
    """Capacity and claims compare by content (their keys name no content)."""
    if kind == "capacity":
        return ("capacity", _capacity_content(p))
    if kind == "claims":
        return ("claims", _claims_content(p))
    return key


# --------------------------------------------------------------------------- views


def view(union: Problem, groups: list[int]) -> Problem:
    """The part of ``union`` (several problems' groups on shared node classes) that concerns
    ``groups`` (union indices), renumbered 0.. in that order: what a problem of those groups
    alone on the same classes would be."""
    local = {u: i for i, u in enumerate(groups)}
    classes = [replace(c, cap=[c.cap[u] for u in groups]) for c in union.classes]
    gs = [replace(union.groups[u], index=i, exclusions=list(union.groups[u].exclusions)) for i, u in enumerate(groups)]
    spreads: list[Any] = []
    for s in union.spreads:
        carriers = {local[g]: sm for g, sm in s.carriers.items() if g in local}
        if not carriers:
            continue
        spreads.append(replace(s, index=len(spreads), carriers=carriers, matchers=[local[g] for g in s.matchers if g in local]))
    anti = [replace(a, index=i, a=local[a.a], b=local[a.b]) for i, a in enumerate(x for x in union.anti if x.a in local and x.b in local)]
    for i, a in enumerate(anti):
        anti[i] = replace(a, index=i)
    affinity: list[Any] = []
    for f in union.affinity:
        if f.carrier in local:
            affinity.append(replace(f, index=len(affinity), carrier=local[f.carrier], supporters=[local[h] for h in f.supporters if h in local]))
    claims = [replace(sc, index=i, group=local[sc.group]) for i, sc in enumerate(x for x in union.static_claims if x.group in local)]
    for i, sc in enumerate(claims):
        claims[i] = replace(sc, index=i)
    limits: list[Any] = []
    for vl in union.volume_limits:
        need = {(local[g], c): k for (g, c), k in vl.need.items() if g in local}
        if need:
            limits.append(replace(vl, index=len(limits), need=need))
    return Problem(
        classes=classes,
        groups=gs,
        spreads=spreads,
        anti=anti,
        affinity=affinity,
        static_claims=claims,
        volume_limits=limits,
        ordered=False,
        exact_packing=union.exact_packing,
        notes=list(union.notes),
    )


def without_classes(p: Problem, drop: set[int]) -> Problem:
    """``p`` without the classes ``drop`` (the nodes a remediation may add or uncordon: the
    problem as it is without any option), the others renumbered."""
    keep = [c for c in p.classes if c.index not in drop]
    new = {c.index: i for i, c in enumerate(keep)}
    classes = [replace(c, index=new[c.index]) for c in keep]

    def cls(xs: list[int]) -> list[int]:
        return [new[c] for c in xs if c in new]

    groups = [replace(g, exclusions=[replace(e, classes=cls(e.classes)) for e in g.exclusions]) for g in p.groups]
    spreads = [
        replace(
            s,
            eligible=cls(s.eligible),
            existing_per_node={new[c]: v for c, v in s.existing_per_node.items() if c in new},
            eligible_nodes=s.eligible_nodes - sum(p.classes[c].size for c in s.eligible if c in drop) if s.per_node else s.eligible_nodes,
        )
        for s in p.spreads
    ]
    affinity = [replace(f, existing_classes=cls(f.existing_classes)) for f in p.affinity]
    claims = [replace(sc, options={new[c]: v for c, v in sc.options.items() if c in new}) for sc in p.static_claims]
    limits = [
        replace(
            vl,
            limit={new[c]: v for c, v in vl.limit.items() if c in new},
            attached={new[c]: v for c, v in vl.attached.items() if c in new},
            need={(g, new[c]): v for (g, c), v in vl.need.items() if c in new},
        )
        for vl in p.volume_limits
    ]
    return replace(p, classes=classes, groups=groups, spreads=spreads, affinity=affinity, static_claims=claims, volume_limits=limits)


# --------------------------------------------------------------------------- the model


def _weights(bounds: list[int]) -> list[int] | None:
    """Lexicographic weights: each field outweighs the largest possible sum of the fields after it."""
    weights = [0] * len(bounds)
    w = 1
    for i in range(len(bounds) - 1, -1, -1):
        weights[i] = w
        w *= bounds[i] + 1
        if w > MAX_WEIGHT:
            return None
    return weights


def _encode_family(b: Built, kind: str, obj: Any) -> None:
    if kind == "static":
        g, e = obj
        add_exclusion(b, g, e)
    elif kind == "capacity":
        add_capacity(b)
    elif kind == "spread":
        add_spread(b, obj)
    elif kind == "anti":
        add_anti(b, obj)
    elif kind == "affinity":
        add_affinity(b, obj)
    elif kind == "claims":
        add_static_claims(b)
    elif kind == "volumelimits":
        add_volume_limits(replace(b, problem=replace(b.problem, volume_limits=[obj])))
    else:
        raise ValueError(kind)


def build_actions(ap: ActionProblem) -> ActionModel:
    """The model (never solved here)."""
    m = cp_model.CpModel()
    lits = {o.id: m.new_bool_var(f"option[{o.id}]") for o in ap.options}
    # conflict groups: at most one option each
    by_conflict: dict[str, list[Any]] = {}
    for o in ap.options:
        if o.conflict:
            by_conflict.setdefault(o.conflict, []).append(lits[o.id])
    for members in by_conflict.values():
        if len(members) > 1:
            m.add_at_most_one(members)
    # node groups: a count of new nodes each, and whether there is one
    counts: dict[str, Any] = {}
    some: dict[str, Any] = {}
    for ng in ap.node_groups:
        count = counts[ng.id] = m.new_int_var(0, ng.limit, f"count[{ng.id}]")
        one = some[ng.id] = m.new_bool_var(f"some[{ng.id}]")
        m.add(count >= 1).only_enforce_if(one)
        m.add(count == 0).only_enforce_if(one.negated())
    # worlds: one active; a world other than the first is active when one of its options is chosen
    world_lits: dict[str, Any] = {}
    rest = []
    for w in ap.worlds[1:]:
        mine = [lits[o.id] for o in ap.options if o.world == w.name]
        wl = m.new_bool_var(f"world[{w.name}]")
        if mine:
            m.add_max_equality(wl, mine)
        else:
            m.add(wl == 0)
        world_lits[w.name] = wl
        rest.append(wl)
    first = m.new_bool_var(f"world[{ap.worlds[0].name}]")
    m.add(first + sum(rest) == 1)
    world_lits[ap.worlds[0].name] = first
    conflicts: list[tuple[str, str]] = []
    builts: dict[str, Built] = {}
    for w in ap.worlds:
        builts[w.name] = _encode_world(m, ap, w, lits, counts, some, world_lits[w.name], conflicts)
    for x, y in conflicts:
        m.add_bool_or([lits[x].negated(), lits[y].negated()])
    weights, objective = _objective(m, ap, lits, counts, some)
    family_of = {o.id: o.family or o.id for o in ap.options}
    fams: dict[str, Any] = {}
    for fam in dict.fromkeys(family_of.values()):
        members = [lits[o] for o, f in family_of.items() if f == fam]
        if len(members) == 1:
            fams[fam] = members[0]
        else:
            fams[fam] = m.new_bool_var(f"family[{fam}]")
            m.add_max_equality(fams[fam], members)
    return ActionModel(ap, m, lits, counts, some, world_lits, builts, weights, objective, conflicts, fams, family_of)


def _encode_world(
    m: cp_model.CpModel,
    ap: ActionProblem,
    w: World,
    lits: dict[str, Any],
    counts: dict[str, Any],
    some: dict[str, Any],
    active: Any,
    conflicts: list[tuple[str, str]],
) -> Built:
    """One world: its problem by models.build (the node groups' classes sized by their counts), its
    variants' families in place of the world's while chosen, gated classes, lifted pins."""
    optional = {ng.classes[w.name]: some[ng.id] for ng in ap.node_groups if w.name in ng.classes}
    sizes = {ng.classes[w.name]: counts[ng.id] for ng in ap.node_groups if w.name in ng.classes}
    for ng in ap.node_groups:
        if w.name in ng.classes and w.problem.classes[ng.classes[w.name]].size != ng.limit:
            raise ValueError(f"node group {ng.id}: its class holds {w.problem.classes[ng.classes[w.name]].size} nodes, not {ng.limit}")
    b = build(w.problem, m, optional, sizes)
    for c, oid in w.gated.items():
        for grp in w.problem.groups:
            m.add(b.x[grp.index, c] == 0).only_enforce_if(lits[oid].negated())
    base = {_family_key(kind, key, w.problem): key for key, (kind, _) in families(w.problem).items()}
    removers: dict[tuple, list[Any]] = {}
    changed_by: dict[tuple, list[str]] = {}
    added: list[tuple[Variant, list[tuple[str, Any]]]] = []
    for v in w.variants:
        keys = {_family_key(kind, key, v.problem): (kind, obj) for key, (kind, obj) in families(v.problem).items()}
        for fk, key in base.items():
            if fk not in keys:
                removers.setdefault(key, []).append(lits[v.option])
                changed_by.setdefault(key, []).append(v.option)
        added.append((v, [ko for fk, ko in keys.items() if fk not in base]))
    for oid, pins in w.unpins.items():
        for gi, plugin in pins:
            for key in families(w.problem):
                if key[0] == "static" and key[1] == gi and key[2] == plugin:
                    removers.setdefault(key, []).append(lits[oid])
    for owners in changed_by.values():
        # two options that change the same family are never combined: their changes would
        # not compose (each variant is the template with one change made)
        for i, x in enumerate(owners):
            for y in owners[i + 1:]:
                if x != y and (x, y) not in conflicts:
                    conflicts.append((x, y))
    for guard in b.guards:
        fam_key = guard_family(guard)
        if fam_key is None:
            m.add(guard.lit == active)  # the pods to place: all of them in the active world, none elsewhere
            continue
        off = removers.get(fam_key, [])
        if off:
            _and_not(m, guard.lit, off)  # the family holds unless an option that changes it is chosen
        else:
            m.add(guard.lit == 1)
    for v, items in added:
        if not items:
            continue
        vb = Built(v.problem, m, x=b.x, aux=b.aux, optional=b.optional, sizes=b.sizes)
        for kind, obj in items:
            if kind != "anti":
                _encode_family(vb, kind, obj)
        antis = [obj for kind, obj in items if kind == "anti"]
        if antis:
            ab = replace(vb, problem=replace(v.problem, anti=antis), guards=[])
            for a in antis:
                add_anti(ab, a)
            add_anti_families(ab)
            vb.guards.extend(ab.guards)
        for guard in vb.guards:
            m.add(guard.lit == lits[v.option])
    return b


def _objective(m: cp_model.CpModel, ap: ActionProblem, lits: dict[str, Any], counts: dict[str, Any], some: dict[str, Any]) -> tuple[list[int], Any]:
    """The plan's cost, field by field: lexicographic weights over the fields' sums."""
    width = len(ap.fields) or (len(ap.options[0].cost) if ap.options else len(ap.node_groups[0].per_node) if ap.node_groups else 0)
    terms: list[list[tuple[int, Any]]] = [[] for _ in range(width)]
    bounds = [0] * width
    for o in ap.options:
        for i, c in enumerate(o.cost):
            if c:
                terms[i].append((c, lits[o.id]))
                bounds[i] += c
    for ng in ap.node_groups:
        for i in range(width):
            if ng.per_node[i]:
                terms[i].append((ng.per_node[i], counts[ng.id]))
                bounds[i] += ng.per_node[i] * ng.limit
            if ng.once[i]:
                terms[i].append((ng.once[i], some[ng.id]))
                bounds[i] += ng.once[i]
    weights = _weights(bounds)
    if weights is None:
        raise OverflowError("the plan costs are too large to weigh in one objective")
    objective = sum((wt * c * v for wt, field_terms in zip(weights, terms) for c, v in field_terms), cp_model.LinearExpr.sum([]))  # type: ignore[arg-type]
    m.minimize(objective)
    return weights, objective


def _and_not(m: cp_model.CpModel, target: Any, off: list[Any]) -> None:
    """target == AND(not x for x in off)."""
    for x in off:
        m.add_implication(x, target.negated())
    m.add_bool_or([target, *off])


def cost_of(am: ActionModel, chosen: dict[str, int]) -> tuple[int, ...]:
    """The cost vector of a solution (the objective's fields)."""
    ap = am.problem
    n = len(am.weights)
    out = [0] * n
    for o in ap.options:
        if chosen.get(o.id):
            for i, c in enumerate(o.cost):
                out[i] += c
    for ng in ap.node_groups:
        k = chosen.get(ng.id, 0)
        if k:
            for i in range(n):
                out[i] += ng.per_node[i] * k + ng.once[i]
    return tuple(out)


__all__ = [
    "ActionModel",
    "ActionProblem",
    "NodeGroupOption",
    "Option",
    "Variant",
    "World",
    "build_actions",
    "cost_of",
    "families",
    "guard_family",
    "view",
    "without_classes",
]
