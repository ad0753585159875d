"""InterPodAffinity (required terms) between the pods being placed, as CP-SAT constraints.

pkg/scheduler/framework/plugins/interpodaffinity/filtering.go.  What existing pods impose (their
anti-affinity against the new pods, the new pods' anti-affinity against them) does not change as
pods are added, so the problem builder turns it into static exclusions.  Here:

* anti-affinity between new pods is order-free (a violation, once made, stays):
  zone-like domains: pods of a and b never share a domain (a == b: at most one per domain);
  per-node domains: the nodes used by a and by b in a class are disjoint;
  a node without the term's topology key is in no domain: the term does not restrict it.
* affinity: a pod needs a matching pod in its domain placed before it, or (first-pod rule) no
  matching pod anywhere and a match with itself.  Hence every domain a carrier uses holds an
  existing matching pod, or a pod of a supporting group, or is the single seed domain of the
  first-pod rule.  Necessary in unordered mode; exact with prefix sums in ordered mode.
"""

from __future__ import annotations

from models.cpsat import cp_model
from models.placement import Built, at_least_one, size_of
from models.problem import Affinity, AntiAffinity


def _values(b: Built, key: str) -> list[str]:
    return sorted({c.domains[key] for c in b.problem.classes if key in c.domains})


def _presence(b: Built, g: int, key: str, value: str) -> cp_model.IntVar:
    cache_key = ("present", g, key, value)
    hit = b.aux.get(cache_key)
    if hit is None:
        cls = b.problem.classes_in(key, value)
        expr = sum(b.x[g, c] for c in cls)
        hit = at_least_one(b, expr, b.problem.groups[g].count, f"present[{g},{key}={value}]")
        b.aux[cache_key] = hit
    return hit


def _nodes_used(b: Built, g: int, c: int) -> cp_model.IntVar:
    """u[g, c]: nodes of class c hosting at least one pod of g (pods of g spread over them).

    Some node is used when a pod is placed; that a node holds at most cap[g] pods of g (so at
    least x / cap[g] nodes are used) is capacity, under the class's capacity guard."""
    cache_key = ("used", g, c)
    hit = b.aux.get(cache_key)
    if hit is None:
        m = b.model
        cls = b.problem.classes[c]
        count = b.problem.groups[g].count
        hit = m.new_int_var(0, cls.size, f"used[{g},{c}]")
        if c in b.sizes:
            m.add(hit <= b.sizes[c])
        x = b.x[g, c]
        m.add(hit <= x)
        m.add(hit * count >= x)
        cap = cls.cap[g]
        lit = b.capacity_lits.get(cls.zone)
        if lit is not None and 0 < cap < count:
            m.add(hit * cap >= x).only_enforce_if(lit)
        b.aux[cache_key] = hit
    return hit


def add_anti(b: Built, a: AntiAffinity) -> None:
    m = b.model
    lit = b.guard("anti", a, f"anti[{a.index}]", a.a)
    p = b.problem
    if a.per_node:
        for c in p.classes:
            if a.topology_key not in c.node_keys:
                continue  # filtering.go satisfyPodAntiAffinity: a node without the key is in no domain
            if a.a == a.b:
                # one pod of the group per node
                m.add(b.x[a.a, c.index] <= size_of(b, c)).only_enforce_if(lit)
                m.add(_nodes_used(b, a.a, c.index) == b.x[a.a, c.index]).only_enforce_if(lit)
            else:
                m.add(_nodes_used(b, a.a, c.index) + _nodes_used(b, a.b, c.index) <= size_of(b, c)).only_enforce_if(lit)
        return
    for v in _values(b, a.topology_key):
        cls = p.classes_in(a.topology_key, v)
        if a.a == a.b:
            m.add(sum(b.x[a.a, c] for c in cls) <= 1).only_enforce_if(lit)
        else:
            m.add(_presence(b, a.a, a.topology_key, v) + _presence(b, a.b, a.topology_key, v) <= 1).only_enforce_if(lit)


def add_anti_families(b: Built) -> None:
    """Per-node anti-affinity among pods that all repel one another (a StatefulSet's pods in
    ordered mode are one group each, as are a rolled StatefulSet's pods pinned to different
    zones): together they use distinct nodes, so at most one per node.  A family is a workload's
    groups that repel one another pairwise on the key (else, those among them with the same
    labels); the constraint holds while every pair's guard does."""
    p = b.problem
    m = b.model
    pairs = {(a.a, a.b, a.topology_key) for a in p.anti if a.per_node}
    selfs = {(a.a, a.topology_key) for a in p.anti if a.per_node and a.a == a.b}
    guards = {(a.a, a.b, a.topology_key): gd.lit for a in p.anti for gd in b.guards if gd.ref is a}

    def clique(members: list[int], key: str) -> bool:
        return all((x, y, key) in pairs and (x, y, key) in guards for i, x in enumerate(members) for y in members[i:])

    by_workload: dict[tuple, list[int]] = {}
    for g, key in sorted(selfs):
        by_workload.setdefault((p.groups[g].workload, key), []).append(g)
    families: list[tuple[str, list[int]]] = []
    for (_, key), members in by_workload.items():
        if clique(members, key):
            families.append((key, members))
            continue
        by_labels: dict[tuple, list[int]] = {}
        for g in members:
            by_labels.setdefault(tuple(sorted(p.groups[g].labels.items())), []).append(g)
        families.extend((key, ms) for ms in by_labels.values() if clique(ms, key))
    for key, members in families:
        if len(members) < 2:
            continue
        lits = [guards[(x, y, key)] for i, x in enumerate(members) for y in members[i:]]
        for c in p.classes:
            if key not in c.node_keys:
                continue
            # pairwise repelling pods: one per node in the class
            m.add(sum(b.x[g, c.index] for g in members) <= size_of(b, c)).only_enforce_if(lits)


def add_affinity(b: Built, f: Affinity) -> None:
    m = b.model
    lit = b.guard("affinity", f, f"affinity[{f.index}]", f.carrier)
    p = b.problem
    seed_allowed = f.self_match and not f.any_existing
    if p.ordered:
        _add_affinity_ordered(b, f, lit, seed_allowed)
        return
    if f.per_node:
        seeds = []
        for c in p.classes:
            if c.index in f.existing_classes:
                continue
            used = _nodes_used(b, f.carrier, c.index)
            support = [_nodes_used(b, h, c.index) for h in f.supporters]
            seed = m.new_bool_var(f"seed[{f.index},{c.index}]") if seed_allowed else None
            if seed is not None:
                seeds.append(seed)
            m.add(used <= sum(support) + (seed if seed is not None else 0)).only_enforce_if(lit)
        if seeds:
            m.add(sum(seeds) <= 1)
        return
    seeds = []
    for v in _values(b, f.topology_key):
        if v in f.existing_domains:
            continue
        here = _presence(b, f.carrier, f.topology_key, v)
        support = [_presence(b, h, f.topology_key, v) for h in f.supporters]
        seed = m.new_bool_var(f"seed[{f.index},{v}]") if seed_allowed else None
        if seed is not None:
            seeds.append(seed)
        m.add(here <= sum(support) + (seed if seed is not None else 0)).only_enforce_if(lit)
    if seeds:
        m.add(sum(seeds) <= 1)


def _add_affinity_ordered(b: Built, f: Affinity, lit: cp_model.IntVar, seed_allowed: bool) -> None:
    m = b.model
    p = b.problem
    t = f.carrier
    matching = set(f.supporters) | ({t} if f.self_match else set())
    before = [g.index for g in p.groups if g.index < t and g.index in matching]
    first = not before
    if f.per_node:
        for c in p.classes:
            if c.index in f.existing_classes:
                continue
            here = b.x[t, c.index]
            support = sum((_nodes_used(b, h, c.index) for h in before), cp_model.LinearExpr.sum([]))  # type: ignore[arg-type]
            m.add(here <= support + (1 if (seed_allowed and first) else 0)).only_enforce_if(lit)
        return
    for v in _values(b, f.topology_key):
        if v in f.existing_domains:
            continue
        cls = p.classes_in(f.topology_key, v)
        placed = sum(b.x[t, c] for c in cls)
        support = sum((b.x[h, c] for h in before for c in cls), cp_model.LinearExpr.sum([]))  # type: ignore[arg-type]
        m.add(placed <= support + (1 if (seed_allowed and first) else 0)).only_enforce_if(lit)
