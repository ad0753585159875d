"""The exact sequenced model: which pod goes where at each step, with the filters' prefix counts.

The final-state model (models/podtopologyspread.py) is exact for one group; with several groups
or several constraints its conditions are necessary only.  When the witness replay cannot order a
final placement, check falls back to this model: step t places one pod, s[t, g, c] says which
group and class, and every spread and affinity rule is written on the counts of the steps before
t, exactly as the filter evaluates them when the pod arrives.  Size is steps x groups x classes,
so it is used for modest numbers of pods (and with one node per class when per-node domains are
involved, so that per-node counts are exact too).
"""

from __future__ import annotations

from models.cpsat import cp_model
from models.placement import Built


def add_sequence(b: Built) -> dict[tuple[int, int, int], cp_model.IntVar]:
    p = b.problem
    m = b.model
    steps = sum(g.count for g in p.groups)
    lit = b.guard("sequence", None, "sequence")
    # s[t, g, c]: step t places a pod of group g on a node of class c
    s: dict[tuple[int, int, int], cp_model.IntVar] = {}
    for t in range(steps):
        for g in p.groups:
            for c in p.classes:
                s[t, g.index, c.index] = m.new_bool_var(f"s[{t},{g.index},{c.index}]")
        m.add_exactly_one(s[t, g.index, c.index] for g in p.groups for c in p.classes)
    for g in p.groups:
        for c in p.classes:
            m.add(sum(s[t, g.index, c.index] for t in range(steps)) == b.x[g.index, c.index]).only_enforce_if(lit)
    guard_of = {id(gd.ref): gd.lit for gd in b.guards if gd.kind in ("spread", "affinity")}
    for sp in p.spreads:
        _spread_prefix(b, s, steps, sp, [lit, guard_of[id(sp)]])
    for f in p.affinity:
        _affinity_prefix(b, s, steps, f, [lit, guard_of[id(f)]])
    b.aux["sequence"] = s
    return s


def _domain_classes(b: Built, key: str, per_node: bool) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for c in b.problem.classes:
        if per_node:
            out[str(c.index)] = [c.index]
        elif key in c.domains:
            out.setdefault(c.domains[key], []).append(c.index)
    return out


def _spread_prefix(b: Built, s: dict, steps: int, sp, lit) -> None:
    m = b.model
    p = b.problem
    elig = set(sp.eligible)
    doms = _domain_classes(b, sp.topology_key, sp.per_node)
    if sp.per_node:
        existing = {d: sp.existing_per_node.get(cls[0], 0) for d, cls in doms.items()}
        eligible_doms = [d for d, cls in doms.items() if cls[0] in elig]
    else:
        existing = {d: sp.existing.get(d, 0) for d in doms}
        eligible_doms = [d for d in sp.domains if d in doms] + [d for d in sp.domains if d not in doms]
    total = sum(p.groups[g].count for g in sp.matchers)
    for t in range(steps):
        counts = {}
        for d in set(eligible_doms) | set(doms):
            cls = [c for c in doms.get(d, []) if c in elig]
            before = sum((s[u, g, c] for u in range(t) for g in sp.matchers for c in cls), cp_model.LinearExpr.sum([]))  # type: ignore[arg-type]
            counts[d] = existing.get(d, 0) + before
        if sp.forced_zero_min or not eligible_doms:
            gmin: cp_model.LinearExprT = 0
        else:
            gmin = m.new_int_var(0, max(list(existing.values()) + [0]) + total, f"seqmin[{sp.index},{t}]")
            m.add_min_equality(gmin, [counts[d] for d in eligible_doms])
        for g, sm in sp.carriers.items():
            for d, cls in doms.items():
                for c in cls:
                    # 'existing matching num' + 'self-match' - 'global minimum' <= 'maxSkew'
                    m.add(counts[d] + sm - gmin <= sp.max_skew).only_enforce_if([s[t, g, c], *lit])


def _affinity_prefix(b: Built, s: dict, steps: int, f, lit) -> None:
    m = b.model
    p = b.problem
    doms = _domain_classes(b, f.topology_key, f.per_node)
    matching = set(f.supporters) | ({f.carrier} if f.self_match else set())
    seed_allowed = f.self_match and not f.any_existing
    for t in range(steps):
        any_before = sum((s[u, g, c.index] for u in range(t) for g in matching for c in p.classes), cp_model.LinearExpr.sum([]))  # type: ignore[arg-type]
        for d, cls in doms.items():
            if f.per_node:
                if cls[0] in f.existing_classes:
                    continue
            elif d in f.existing_domains:
                continue
            support = sum((s[u, g, c] for u in range(t) for g in matching for c in cls), cp_model.LinearExpr.sum([]))  # type: ignore[arg-type]
            for c in cls:
                here = s[t, f.carrier, c]
                if seed_allowed:
                    # supported in its domain, or the first matching pod anywhere (first-pod rule)
                    first = m.new_bool_var(f"first[{f.index},{t},{c}]")
                    m.add(any_before == 0).only_enforce_if(first)
                    m.add(support >= 1).only_enforce_if([here, first.negated(), *lit])
                else:
                    m.add(support >= 1).only_enforce_if([here, *lit])
