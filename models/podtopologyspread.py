"""PodTopologySpread (DoNotSchedule) as CP-SAT constraints.

The filter (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go) admits a pod into
domain d when

    count[d] + selfMatch - globalMin <= maxSkew

where count[d] is the matching pods already in d and globalMin the smallest count over eligible
domains (0 when there are fewer eligible domains than minDomains).  Pods arrive one at a time.

Unordered mode (any order may be chosen: Deployments, Parallel StatefulSets).  Counts only grow,
so the minimum when a pod arrives is at most the final minimum.  Look at the last self-matching
carrier that enters d: it saw at least E[d] + A[d] - 1 matching pods there, so

    A[d] >= 1  =>  E[d] + A[d] <= maxSkew + min_e C[e]           (C = final counts)

is necessary.  For one group it is also sufficient: placing pods into the lowest domain first
always succeeds (if the minimum domain still needs pods, the pod makes a skew of 1; otherwise the
minimum is already final).  With several groups the condition stays necessary, and the witness
found is then ordered and re-verified by the filter plugins, never trusted blindly.

Per-node domains (hostname) are aggregated over a class of identical nodes: pods spread evenly
inside a class, so a class with T new matching pods has nodes at E + floor(T/size) and
E + ceil(T/size); the same condition is written on those.

Ordered mode (StatefulSet OrderedReady): the order is fixed, so the counts each pod sees are
prefix sums and the filter's formula is written exactly for every pod (per-node domains: the pod
takes the least loaded node of its class).

Preemption (models/defaultpreemption.py): a victim the selector counts lowers the count of its own
domain, never the minimum (E less the preempted victims of d is a lower bound on d's count when a
carrier arrives, whenever they are evicted; E + A an upper bound on any domain's count, so the
minimum is left as without preemption): a relaxation of every order of evictions and bindings,
and the witness, replayed with the victims gone, checks it.

Nodes that may not exist (Built.optional: the nodes a remediation may add) are domains only while
they exist: a domain made only of such nodes takes part in the global minimum (and in the number
of domains minDomains compares) only when one of them is there, as PreFilter only counts the
domains of the nodes it lists.
"""

from __future__ import annotations

from models.cpsat import cp_model
from models.placement import Built, at_least_one, divisor_of, present
from models.problem import Spread


def _zone_counts(b: Built, s: Spread, groups_before: list[int] | None = None) -> dict[str, cp_model.LinearExpr]:
    """C[d] = E[d] + new matching pods on eligible classes of d (optionally only ``groups_before``)."""
    p = b.problem
    out: dict[str, cp_model.LinearExpr] = {}
    elig = set(s.eligible)
    matchers = s.matchers if groups_before is None else [g for g in s.matchers if g in groups_before]
    for d in s.domains:
        cls = [c.index for c in p.classes if c.index in elig and c.domains.get(s.topology_key) == d]
        out[d] = s.existing.get(d, 0) + sum((b.x[g, c] for g in matchers for c in cls), cp_model.LinearExpr.sum([]))  # type: ignore[arg-type]
    return out


def _classes_of_domain(b: Built, s: Spread, d: str) -> list[int]:
    return [c.index for c in b.problem.classes if c.domains.get(s.topology_key) == d]


def add_spread(b: Built, s: Spread) -> None:
    lit = b.guard("spread", s, f"spread[{s.index}]")
    if b.problem.ordered:
        _add_ordered(b, s, lit)
    elif s.per_node:
        _add_per_node(b, s, lit)
    else:
        _add_zone(b, s, lit)


def _add_zone(b: Built, s: Spread, lit: cp_model.IntVar) -> None:
    m = b.model
    p = b.problem
    counts = _zone_counts(b, s)
    total_new = sum(p.groups[g].count for g in s.matchers)
    ub = max([s.existing.get(d, 0) for d in s.domains] + [0]) + total_new
    # gmin: the global minimum over eligible domains at the end
    elig = set(s.eligible)
    presence = {d: present(b, [c for c in _classes_of_domain(b, s, d) if c in elig], f"spread[{s.index}].present[{d}]") for d in s.domains}
    if s.forced_zero_min or not s.domains:
        gmin: cp_model.LinearExprT = 0
    else:
        gmin = m.new_int_var(0, ub, f"spread[{s.index}].min")
        cvars = []
        for d in s.domains:
            cv = m.new_int_var(0, ub, f"spread[{s.index}].count[{d}]")
            m.add(cv == counts[d])
            b.aux[("spread_count", s.index, d)] = cv
            cvars.append(_counted(b, cv, presence[d], ub, f"spread[{s.index}].counted[{d}]"))
        _min_with_domains(b, s, gmin, cvars, [presence[d] for d in s.domains], ub)
    b.aux[("spread_min", s.index)] = gmin
    matching_carriers = [g for g, sm in s.carriers.items() if sm]
    other_carriers = [g for g, sm in s.carriers.items() if not sm]
    domain_values = sorted({c.domains[s.topology_key] for c in p.classes if s.topology_key in c.domains})
    for d in domain_values:
        cls = _classes_of_domain(b, s, d)
        e = s.existing.get(d, 0)
        if matching_carriers:
            a_d = sum(b.x[g, c] for g in matching_carriers for c in cls)
            has = at_least_one(b, a_d, total_new, f"spread[{s.index}].has[{d}]")
            # last self-matching carrier into d: E[d] + A[d] <= maxSkew + min (E less the
            # victims preempted in d: its count at the carrier's arrival is at least that)
            m.add(e - b.freed(s.victims.get(d, [])) + a_d <= s.max_skew + gmin).only_enforce_if([has, lit])
        if other_carriers:
            o_d = sum(b.x[g, c] for g in other_carriers for c in cls)
            has_o = at_least_one(b, o_d, total_new, f"spread[{s.index}].hasx[{d}]")
            # a carrier that does not match itself still sees count[d] >= E[d]
            m.add(e - b.freed(s.victims.get(d, [])) <= s.max_skew + gmin).only_enforce_if([has_o, lit])


def _add_per_node(b: Built, s: Spread, lit: cp_model.IntVar) -> None:
    m = b.model
    p = b.problem
    elig = set(s.eligible)
    total_new = sum(p.groups[g].count for g in s.matchers) + 1
    maxe = max(list(s.existing_per_node.values()) + [0])
    # lo[c]: the least loaded node of class c at the end: E[c] + floor(T[c] / size)
    lows = []
    presence = []
    nodes: list = []  # per class: its number of nodes (domains)
    for c in p.classes:
        if c.index not in elig:
            continue
        t = sum(b.x[g, c.index] for g in s.matchers) if s.matchers else 0
        fl = m.new_int_var(0, total_new, f"spread[{s.index}].floor[{c.index}]")
        tv = m.new_int_var(0, total_new, f"spread[{s.index}].T[{c.index}]")
        m.add(tv == t)
        m.add_division_equality(fl, tv, divisor_of(b, c))
        lows.append(s.existing_per_node.get(c.index, 0) + fl)
        presence.append(b.optional.get(c.index))
        nodes.append(b.sizes.get(c.index, c.size))
    if s.forced_zero_min or not lows:
        gmin: cp_model.LinearExprT = 0
    else:
        ub = maxe + total_new
        gmin = m.new_int_var(0, ub, f"spread[{s.index}].min")
        lvars = []
        for i, lo in enumerate(lows):
            v = m.new_int_var(0, ub, f"spread[{s.index}].low[{i}]")
            m.add(v == lo)
            lvars.append(_counted(b, v, presence[i], ub, f"spread[{s.index}].counted[{i}]"))
        _min_with_domains(b, s, gmin, lvars, presence, ub, nodes)
    b.aux[("spread_min", s.index)] = gmin
    matching_carriers = [g for g, sm in s.carriers.items() if sm]
    other_carriers = [g for g, sm in s.carriers.items() if not sm]
    for c in p.classes:
        e = s.existing_per_node.get(c.index, 0)
        if matching_carriers:
            a = sum(b.x[g, c.index] for g in matching_carriers)
            av = m.new_int_var(0, total_new, f"spread[{s.index}].A[{c.index}]")
            m.add(av == a)
            ce = m.new_int_var(0, total_new, f"spread[{s.index}].ceil[{c.index}]")
            # ceil(A / size) = floor((A + size - 1) / size)
            shifted = m.new_int_var(0, total_new + c.size, f"spread[{s.index}].As[{c.index}]")
            m.add(shifted == av + divisor_of(b, c) - 1)
            m.add_division_equality(ce, shifted, divisor_of(b, c))
            has = at_least_one(b, av, total_new, f"spread[{s.index}].has[{c.index}]")
            m.add(e - b.freed(s.victims.get(c.index, [])) + ce <= s.max_skew + gmin).only_enforce_if([has, lit])
        if other_carriers:
            o = sum(b.x[g, c.index] for g in other_carriers)
            has_o = at_least_one(b, o, total_new, f"spread[{s.index}].hasx[{c.index}]")
            m.add(e - b.freed(s.victims.get(c.index, [])) <= s.max_skew + gmin).only_enforce_if([has_o, lit])


def _add_ordered(b: Built, s: Spread, lit: cp_model.IntVar) -> None:
    """Exact prefix counts: group index is the creation order, each group one pod."""
    m = b.model
    p = b.problem
    elig = set(s.eligible)
    order = [g.index for g in p.groups]
    for pos, t in enumerate(order):
        if t not in s.carriers:
            continue
        sm = s.carriers[t]
        before = order[:pos]
        if s.per_node:
            matchers = [g for g in s.matchers if g in before]
            lows: dict[int, cp_model.LinearExprT] = {}
            n_before = sum(p.groups[g].count for g in matchers) + 1
            for c in p.classes:
                if c.index not in elig:
                    continue
                tv = m.new_int_var(0, n_before, f"spread[{s.index}].P[{t},{c.index}]")
                m.add(tv == sum((b.x[g, c.index] for g in matchers), cp_model.LinearExpr.sum([])))  # type: ignore[arg-type]
                fl = m.new_int_var(0, n_before, f"spread[{s.index}].fl[{t},{c.index}]")
                m.add_division_equality(fl, tv, divisor_of(b, c))
                lows[c.index] = s.existing_per_node.get(c.index, 0) + fl
            for c in p.classes:
                here = b.x[t, c.index]
                if c.index not in lows:
                    continue  # a node without the key is excluded statically
                mine = lows[c.index] - b.freed(s.victims.get(c.index, []))  # type: ignore[operator]
                on = _as_bool(b, here, f"o[{s.index},{t},{c.index}]")
                if s.forced_zero_min:
                    m.add(mine + sm <= s.max_skew).only_enforce_if([on, lit])
                    continue
                for c2, other in lows.items():
                    if c2 == c.index:
                        continue
                    # 'existing matching num' + 'self-match' - 'global minimum' <= 'maxSkew'
                    # (a node that may not exist bounds the minimum only while it does)
                    there = b.optional.get(c2)
                    m.add(mine + sm - s.max_skew <= other).only_enforce_if([on, lit] + ([there] if there is not None else []))
        else:
            counts = _zone_counts(b, s, before)
            for d in s.domains:
                cls = _classes_of_domain(b, s, d)
                placed = sum(b.x[t, c] for c in cls)
                on = at_least_one(b, placed, 1, f"spread[{s.index}].at[{t},{d}]")
                own = counts[d] - b.freed(s.victims.get(d, []))
                if s.forced_zero_min:
                    m.add(own + sm <= s.max_skew).only_enforce_if([on, lit])
                    continue
                for e2 in s.domains:
                    if e2 != d:
                        there = present(b, [c for c in _classes_of_domain(b, s, e2) if c in elig], f"spread[{s.index}].present[{e2}]")
                        m.add(own + sm - s.max_skew <= counts[e2]).only_enforce_if([on, lit] + ([there] if there is not None else []))


def _counted(b: Built, v: cp_model.IntVar, there: cp_model.IntVar | None, ub: int, name: str) -> cp_model.IntVar:
    """``v`` as the global minimum reads it: the domain's count while its node exists, else the
    upper bound (a domain that is not there never is the minimum)."""
    if there is None:
        return v
    w = b.model.new_int_var(0, ub, name)
    b.model.add(w == v).only_enforce_if(there)
    b.model.add(w == ub).only_enforce_if(there.negated())
    return w


def _min_with_domains(b: Built, s: Spread, gmin: cp_model.IntVar, values: list, presence: list, ub: int, nodes: list | None = None) -> None:
    """gmin = the minimum of ``values``; with domains that may not exist, 0 while fewer domains
    than minDomains exist (filtering.go: the global minimum is 0 below minDomains).  ``nodes``
    (per-node domains): how many domains each value stands for (a class's nodes, maybe a variable)."""
    m = b.model
    if not any(x is not None for x in presence) or s.min_domains <= 1:
        m.add_min_equality(gmin, values)
        return
    if nodes is None:
        nodes = [1] * len(presence)
    fixed = sum(n for x, n in zip(presence, nodes) if x is None)
    optional = [(n if not isinstance(n, int) else n * x) for x, n in zip(presence, nodes) if x is not None]
    if fixed >= s.min_domains:
        m.add_min_equality(gmin, values)
        return
    mn = m.new_int_var(0, ub, f"spread[{s.index}].minall")
    m.add_min_equality(mn, values)
    few = m.new_bool_var(f"spread[{s.index}].fewdomains")
    m.add(fixed + sum(optional) <= s.min_domains - 1).only_enforce_if(few)
    m.add(fixed + sum(optional) >= s.min_domains).only_enforce_if(few.negated())
    m.add(gmin == 0).only_enforce_if(few)
    m.add(gmin == mn).only_enforce_if(few.negated())


def _as_bool(b: Built, var: cp_model.IntVar, name: str) -> cp_model.IntVar:
    """x[t, c] of a single-pod group is 0 or 1: the same value as a literal."""
    key = ("bool", var.index)
    hit = b.aux.get(key)
    if hit is None:
        hit = b.model.new_bool_var(name)
        b.model.add(var == 1).only_enforce_if(hit)
        b.model.add(var == 0).only_enforce_if(hit.negated())
        b.aux[key] = hit
    return hit
