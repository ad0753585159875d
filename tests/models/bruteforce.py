"""A tiny cluster in upstream terms, its translation into a models.problem.Problem, and a brute force.

Nothing here imports planner: the encoders in models/ are tested on their own.

* ``Instance`` describes nodes (zone, allocatable, existing pods) and groups of new pods (labels,
  namespace, requests, node affinity, volume pins, topology spread constraints, required
  (anti-)affinity terms, a claim that only static PVs can serve on some nodes) in the words of the
  Kubernetes API.
* ``to_problem`` writes the Problem the planner's builder would write for it (one class per node,
  or identical nodes aggregated into one class with ``aggregate=True``), together with the naming
  of every guard (``fact_of``) in the brute force's own vocabulary.
* ``search`` is the ground truth: a depth-first search over every way to bind the pods ONE AT A
  TIME (any order, or a fixed one), each bind checked by the filters as upstream states them
  (pkg/scheduler/framework/plugins: NodeAffinity, VolumeBinding, NodeResourcesFit, NodePorts,
  PodTopologySpread filtering.go, InterPodAffinity filtering.go), against the existing pods plus
  the pods bound before it.  Each check is tagged with the fact it belongs to, so a subset of the
  facts (an infeasibility core) can be checked on its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from models.placement import Guard
from models.problem import (
    Affinity,
    AntiAffinity,
    Exclusion,
    Group,
    NodeClass,
    Problem,
    Spread,
    StaticClaim,
)

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"

Fact = tuple  # ("place", g) | ("static", g, plugin) | ("capacity", zone) | ("spread", i) | ("anti", i) | ("affinity", i) | ("volumes",)


# --------------------------------------------------------------------------------------------
# The instance, in upstream terms


@dataclass(frozen=True)
class PodMeta:
    """An existing (bound, running) pod: what selectors read and what it requests."""

    labels: tuple[tuple[str, str], ...] = ()
    namespace: str = "default"
    cpu: int = 0
    memory: int = 0

    @staticmethod
    def of(labels: dict[str, str] | None = None, namespace: str = "default", cpu: int = 0, memory: int = 0) -> PodMeta:
        return PodMeta(tuple(sorted((labels or {}).items())), namespace, cpu, memory)


@dataclass
class Node:
    name: str
    zone: str | None = None
    cpu: int = 100
    memory: int = 100
    pods: int = 110  # allocatable pods
    existing: list[PodMeta] = field(default_factory=list)

    def labels(self) -> dict[str, str]:
        out = {HOST: self.name}
        if self.zone is not None:
            out[ZONE] = self.zone
        return out


@dataclass(frozen=True)
class SpreadC:
    """topologySpreadConstraints[i] with whenUnsatisfiable: DoNotSchedule; labelSelector is
    matchLabels ``match`` (non-empty), counted in the pod's namespace; nodeAffinityPolicy Honor
    (default) and nodeTaintsPolicy Ignore (default)."""

    key: str
    max_skew: int
    match: tuple[tuple[str, str], ...]
    min_domains: int = 1

    @staticmethod
    def of(key: str, max_skew: int, match: dict[str, str], min_domains: int = 1) -> SpreadC:
        return SpreadC(key, max_skew, tuple(sorted(match.items())), min_domains)


@dataclass(frozen=True)
class Term:
    """A required pod (anti-)affinity term: labelSelector matchLabels ``match``, ``namespaces``
    (None: the pod's own namespace), topologyKey ``key``."""

    key: str
    match: tuple[tuple[str, str], ...]
    namespaces: tuple[str, ...] | None = None

    @staticmethod
    def of(key: str, match: dict[str, str], namespaces: Iterable[str] | None = None) -> Term:
        return Term(key, tuple(sorted(match.items())), tuple(sorted(namespaces)) if namespaces is not None else None)


@dataclass
class GroupSpec:
    """``count`` identical new pods."""

    count: int
    labels: dict[str, str] = field(default_factory=dict)
    namespace: str = "default"
    cpu: int = 0
    memory: int = 0
    node_affinity: frozenset[str] | None = None  # required node affinity: the nodes it selects
    volume_pin: frozenset[str] | None = None  # a bound claim's PV node affinity: the nodes it allows
    spreads: list[SpreadC] = field(default_factory=list)
    anti: list[Term] = field(default_factory=list)
    affinity: list[Term] = field(default_factory=list)  # at most one term (see to_problem)
    host_ports: bool = False
    # an unbound WaitForFirstConsumer claim: provisioned dynamically on ``provisionable`` nodes,
    # elsewhere only an available PV of ``pvs`` (name -> nodes its node affinity allows) serves it
    pvs: dict[str, frozenset[str]] | None = None
    provisionable: frozenset[str] = frozenset()

    def requests(self) -> dict[str, int]:
        return {r: q for r, q in (("cpu", self.cpu), ("memory", self.memory)) if q > 0}


@dataclass
class Instance:
    nodes: list[Node]
    groups: list[GroupSpec]
    ordered: bool = False  # every group one pod, bound in group order (StatefulSet OrderedReady)


def matches(match: Iterable[tuple[str, str]], labels: dict[str, str] | Iterable[tuple[str, str]]) -> bool:
    lab = dict(labels)
    return all(lab.get(k) == v for k, v in match)


def term_matches(term: Term, owner_ns: str, labels: dict[str, str] | Iterable[tuple[str, str]], ns: str) -> bool:
    namespaces = term.namespaces if term.namespaces is not None else (owner_ns,)
    return ns in namespaces and matches(term.match, labels)


def spread_counts_pod(g: GroupSpec, c: SpreadC, labels: Any, ns: str) -> bool:
    return ns == g.namespace and matches(c.match, labels)


def eligible_nodes(inst: Instance, g: GroupSpec) -> list[int]:
    """Nodes a spread constraint of ``g`` counts (node inclusion policies): every topology key of
    g's constraints present, and g's required node affinity matched (nodeAffinityPolicy Honor)."""
    keys = {c.key for c in g.spreads}
    out = []
    for j, n in enumerate(inst.nodes):
        lab = n.labels()
        if not all(k in lab for k in keys):
            continue
        if g.node_affinity is not None and n.name not in g.node_affinity:
            continue
        out.append(j)
    return out


# --------------------------------------------------------------------------------------------
# The translation into a Problem


@dataclass
class Translation:
    problem: Problem
    node_class: list[int]  # node index -> class index
    spread_key: dict[tuple, int]  # (group, constraint index) -> Spread index
    anti_key: dict[tuple, int]  # (min g, max g, topology key) -> AntiAffinity index
    affinity_key: dict[tuple, int]  # (group, term index) -> Affinity index

    def fact_of(self, guard: Guard) -> Fact:
        k = guard.kind
        if k == "place":
            return ("place", guard.ref.index)
        if k == "static":
            return ("static", guard.group, guard.ref.plugin)
        if k == "capacity":
            return ("capacity", guard.ref)
        if k in ("spread", "anti", "affinity"):
            return (k, guard.ref.index)
        if k == "volumes":
            return ("volumes",)
        return (k,)

    def facts(self, guards: Iterable[Guard]) -> set[Fact]:
        return {self.fact_of(g) for g in guards}


def _node_signature(inst: Instance, j: int) -> tuple:
    n = inst.nodes[j]
    return (
        n.zone,
        n.cpu,
        n.memory,
        n.pods,
        tuple(sorted(n.existing, key=repr)),
        tuple(g.node_affinity is None or n.name in g.node_affinity for g in inst.groups),
        tuple(g.volume_pin is None or n.name in g.volume_pin for g in inst.groups),
        tuple(n.name in g.provisionable for g in inst.groups),
        tuple(n.name in nodes for g in inst.groups for nodes in (g.pvs or {}).values()),
    )


def _spread_signature(inst: Instance, gi: int, c: SpreadC) -> tuple:
    g = inst.groups[gi]
    return (g.namespace, c.key, c.match, c.max_skew, c.min_domains, tuple(eligible_nodes(inst, g)))


def _static(inst: Instance, gi: int, j: int) -> list[tuple[str, str]]:
    """The static filters' verdicts for group gi on node j: [(plugin, reason)]."""
    g = inst.groups[gi]
    n = inst.nodes[j]
    lab = n.labels()
    out = []
    if g.node_affinity is not None and n.name not in g.node_affinity:
        out.append(("NodeAffinity", "node(s) didn't match Pod's node affinity/selector"))
    if g.volume_pin is not None and n.name not in g.volume_pin:
        out.append(("VolumeBinding", "node(s) had volume node affinity conflict"))
    if any(c.key not in lab for c in g.spreads):
        out.append(("PodTopologySpread", "node(s) didn't match pod topology spread constraints (missing required label)"))
    ipa = False
    for t in g.affinity:
        if t.key not in lab:
            ipa = True
    for t in g.anti:
        if t.key not in lab:
            continue
        for m in inst.nodes:
            if m.labels().get(t.key) == lab[t.key] and any(term_matches(t, g.namespace, p.labels, p.namespace) for p in m.existing):
                ipa = True
    if ipa:
        out.append(("InterPodAffinity", "node(s) didn't match pod affinity/anti-affinity rules"))
    return out


def _cap(g: GroupSpec, n: Node) -> int:
    k = n.pods - len(n.existing)
    for r, q in g.requests().items():
        used = sum(getattr(p, r) for p in n.existing)
        k = min(k, (getattr(n, r) - used) // q)
    return max(0, min(k, g.count))


def to_problem(inst: Instance, aggregate: bool = False) -> Translation:
    groups_in = inst.groups
    if inst.ordered:
        assert all(g.count == 1 for g in groups_in), "ordered mode: one pod per group"
    for g in groups_in:
        assert len(g.affinity) <= 1, "one required affinity term per group"
    # classes
    node_class: list[int] = []
    sig_to_class: dict[tuple, int] = {}
    members: list[list[int]] = []
    for j in range(len(inst.nodes)):
        key = _node_signature(inst, j) if aggregate else (j,)
        ci = sig_to_class.get(key)
        if ci is None:
            ci = sig_to_class[key] = len(members)
            members.append([])
        members[ci].append(j)
        node_class.append(ci)
    resources = sorted({r for g in groups_in for r in g.requests()})
    classes = []
    for ci, js in enumerate(members):
        n = inst.nodes[js[0]]
        free = {r: getattr(n, r) - sum(getattr(p, r) for p in n.existing) for r in resources}
        free["pods"] = n.pods - len(n.existing)
        classes.append(
            NodeClass(
                index=ci,
                nodes=[inst.nodes[j].name for j in js],
                zone=n.zone or "",
                domains={ZONE: n.zone} if n.zone is not None else {},
                cap=[_cap(g, n) for g in groups_in],
                free=free,
                node_keys=frozenset({HOST}),  # every node carries its hostname label
            )
        )
    groups = []
    for gi, g in enumerate(groups_in):
        grp = Group(
            index=gi,
            pods=[f"{g.namespace}/g{gi}-{k}" for k in range(g.count)],
            workload=f"deployment/{g.namespace}/g{gi}",
            labels=dict(g.labels),
            requests=g.requests(),
            host_ports=g.host_ports,
        )
        by_plugin: dict[str, tuple[str, list[int]]] = {}
        for ci, js in enumerate(members):
            for plugin, reason in _static(inst, gi, js[0]):
                by_plugin.setdefault(plugin, (reason, []))[1].append(ci)
        for plugin, (reason, cls) in by_plugin.items():
            grp.exclusions.append(Exclusion(plugin, reason, cls))
        groups.append(grp)
    problem = Problem(classes=classes, groups=groups, ordered=inst.ordered)
    tr = Translation(problem, node_class, {}, {}, {})
    # spreads: one per signature, shared by the groups that carry it
    by_sig: dict[tuple, Spread] = {}
    for gi, g in enumerate(groups_in):
        elig = eligible_nodes(inst, g)
        for k, c in enumerate(g.spreads):
            sig = _spread_signature(inst, gi, c)
            s = by_sig.get(sig)
            if s is None:
                per_node = c.key == HOST
                existing: dict[str, int] = {}
                existing_per_node: dict[int, int] = {}
                for j in elig:
                    n = inst.nodes[j]
                    cnt = sum(1 for p in n.existing if spread_counts_pod(g, c, p.labels, p.namespace))
                    if per_node:
                        existing_per_node[node_class[j]] = cnt
                    else:
                        existing[n.labels()[c.key]] = existing.get(n.labels()[c.key], 0) + cnt
                s = Spread(
                    index=len(problem.spreads),
                    topology_key=c.key,
                    max_skew=c.max_skew,
                    min_domains=c.min_domains,
                    selector=",".join(f"{a}={b}" for a, b in c.match),
                    namespace=g.namespace,
                    per_node=per_node,
                    carriers={},
                    matchers=[h for h, hg in enumerate(groups_in) if spread_counts_pod(g, c, hg.labels, hg.namespace)],
                    eligible=sorted({node_class[j] for j in elig}),
                    existing={} if per_node else existing,
                    existing_per_node=existing_per_node,
                    domains=[] if per_node else sorted(existing),
                    eligible_nodes=len(elig),
                    source=f"g{gi} spread[{k}]",
                )
                by_sig[sig] = s
                problem.spreads.append(s)
            s.carriers[gi] = 1 if spread_counts_pod(g, c, g.labels, g.namespace) else 0
            tr.spread_key[gi, k] = s.index
    # anti-affinity among the new pods
    for gi, g in enumerate(groups_in):
        for t in g.anti:
            for h, hg in enumerate(groups_in):
                if not term_matches(t, g.namespace, hg.labels, hg.namespace):
                    continue
                key = (min(gi, h), max(gi, h), t.key)
                if key in tr.anti_key:
                    continue
                tr.anti_key[key] = len(problem.anti)
                problem.anti.append(AntiAffinity(len(problem.anti), t.key, t.key == HOST, key[0], key[1], f"g{gi} anti {t.key}"))
    # affinity
    for gi, g in enumerate(groups_in):
        for k, t in enumerate(g.affinity):
            flagged = [j for j, n in enumerate(inst.nodes) if any(term_matches(t, g.namespace, p.labels, p.namespace) for p in n.existing)]
            existing_domains = sorted({inst.nodes[j].labels()[t.key] for j in flagged if t.key in inst.nodes[j].labels()})
            tr.affinity_key[gi, k] = len(problem.affinity)
            problem.affinity.append(
                Affinity(
                    index=len(problem.affinity),
                    topology_key=t.key,
                    per_node=t.key == HOST,
                    carrier=gi,
                    supporters=[h for h, hg in enumerate(groups_in) if h != gi and term_matches(t, g.namespace, hg.labels, hg.namespace)],
                    self_match=term_matches(t, g.namespace, g.labels, g.namespace),
                    existing_domains=existing_domains,
                    existing_classes=sorted({node_class[j] for j in flagged}),
                    any_existing=bool(existing_domains),
                    source=f"g{gi} affinity {t.key}",
                )
            )
    # static claims
    for gi, g in enumerate(groups_in):
        if g.pvs is None:
            continue
        options = {}
        for ci, js in enumerate(members):
            n = inst.nodes[js[0]]
            if n.name in g.provisionable:
                continue
            options[ci] = sorted(v for v, nodes in g.pvs.items() if any(inst.nodes[j].name in nodes for j in js))
        if options:
            problem.static_claims.append(StaticClaim(len(problem.static_claims), gi, "data", options, f"g{gi} claim"))
    return tr


# --------------------------------------------------------------------------------------------
# The brute force


ALL = None  # every fact enforced


class _Checker:
    def __init__(self, inst: Instance, tr: Translation, enabled: set[Fact] | None):
        self.inst = inst
        self.tr = tr
        self.enabled = enabled
        self.labels = [n.labels() for n in inst.nodes]
        self.elig = [set(eligible_nodes(inst, g)) for g in inst.groups]

    def on(self, fact: Fact) -> bool:
        return self.enabled is None or fact in self.enabled

    def _pods_in(self, counts, key: str, value: str | None, j_only: int | None = None):
        """(labels, namespace, how many) of every pod, existing and new, on nodes with key=value."""
        for j, n in enumerate(self.inst.nodes):
            if j_only is not None and j != j_only:
                continue
            if value is None or self.labels[j].get(key) != value:
                continue
            for p in n.existing:
                yield p.labels, p.namespace, 1, None
            for h, hg in enumerate(self.inst.groups):
                if counts[h][j]:
                    yield hg.labels, hg.namespace, counts[h][j], h

    def fits(self, counts, used_pvs: frozenset[str], gi: int, j: int) -> list[frozenset[str]]:
        """Can a pod of gi bind node j now?  Returns the PV sets after binding (one per PV choice),
        empty when some filter rejects it."""
        inst = self.inst
        g = inst.groups[gi]
        n = inst.nodes[j]
        lab = self.labels[j]
        for plugin, _ in _static(inst, gi, j):
            if self.on(("static", gi, plugin)):
                return []
        # NodeResourcesFit (and NodePorts, under the same per-zone guard as the model's)
        if self.on(("capacity", n.zone or "")):
            new_here = [(h, counts[h][j]) for h in range(len(inst.groups)) if counts[h][j]]
            if len(n.existing) + sum(k for _, k in new_here) + 1 > n.pods:
                return []
            for r, q in g.requests().items():
                used = sum(getattr(p, r) for p in n.existing) + sum(getattr(inst.groups[h], r) * k for h, k in new_here)
                if used + q > getattr(n, r):
                    return []
            if g.host_ports and counts[gi][j]:
                return []
        # PodTopologySpread: 'existing matching num' + 'self-match' - 'global minimum' <= 'maxSkew'
        for k, c in enumerate(g.spreads):
            if not self.on(("spread", self.tr.spread_key[gi, k])) or c.key not in lab:
                continue
            dom_count: dict[str, int] = {}
            for e in self.elig[gi]:
                v = self.labels[e][c.key]
                dom_count.setdefault(v, 0)
                for pl, pns, mult, _ in self._pods_in(counts, c.key, v, j_only=e):
                    if spread_counts_pod(g, c, pl, pns):
                        dom_count[v] += mult
            if len(dom_count) < c.min_domains:
                gmin = 0
            else:
                gmin = min(dom_count.values()) if dom_count else 0
            self_match = 1 if spread_counts_pod(g, c, g.labels, g.namespace) else 0
            if dom_count.get(lab[c.key], 0) + self_match - gmin > c.max_skew:
                return []
        # InterPodAffinity between new pods: the incoming pod's anti terms, and the bound pods'
        for t in g.anti:
            if t.key not in lab:
                continue
            for pl, pns, _, h in self._pods_in(counts, t.key, lab[t.key]):
                if h is not None and term_matches(t, g.namespace, pl, pns) and self.on(("anti", self.tr.anti_key[min(gi, h), max(gi, h), t.key])):
                    return []
        for h, hg in enumerate(inst.groups):
            for t in hg.anti:
                if t.key not in lab or not term_matches(t, hg.namespace, g.labels, g.namespace):
                    continue
                if not self.on(("anti", self.tr.anti_key[min(gi, h), max(gi, h), t.key])):
                    continue
                if any(h2 == h for *_, h2 in self._pods_in(counts, t.key, lab[t.key])):
                    return []
        # required affinity, with the first-pod rule
        for k, t in enumerate(g.affinity):
            if t.key not in lab or not self.on(("affinity", self.tr.affinity_key[gi, k])):
                continue
            here = any(term_matches(t, g.namespace, pl, pns) for pl, pns, _, _ in self._pods_in(counts, t.key, lab[t.key]))
            if here:
                continue
            anywhere = any(
                term_matches(t, g.namespace, pl, pns)
                for j2 in range(len(inst.nodes))
                if t.key in self.labels[j2]
                for pl, pns, _, _ in self._pods_in(counts, t.key, self.labels[j2][t.key], j_only=j2)
            )
            if anywhere or not term_matches(t, g.namespace, g.labels, g.namespace):
                return []
        # VolumeBinding with static PVs only
        if g.pvs is not None and n.name not in g.provisionable and self.on(("volumes",)):
            return [used_pvs | {v} for v, nodes in sorted(g.pvs.items()) if n.name in nodes and v not in used_pvs]
        return [used_pvs]


@dataclass
class SearchResult:
    feasible: bool
    sequence: list[tuple[int, int]]  # (group, node) per bind, in order
    states: int


def search(
    inst: Instance,
    tr: Translation | None = None,
    enabled: set[Fact] | None = ALL,
    target: dict[tuple[int, int], int] | None = None,
) -> SearchResult:
    """Is there a sequence of binds placing every pod (of every group whose ("place", g) fact is
    enabled; the others may place fewer) each passing every enabled fact's filter?  In
    ``inst.ordered`` mode the pods bind in group order (a pod whose placement is not required may be
    skipped).  ``target``: (group, class) -> the exact number of pods the final placement has there
    (is a solver's placement realisable?)."""
    tr = tr or to_problem(inst)
    chk = _Checker(inst, tr, enabled)
    groups = inst.groups
    G, N = len(groups), len(inst.nodes)
    must = [enabled is None or ("place", gi) in enabled for gi in range(G)]
    dead: set = set()
    states = 0

    def class_count(counts, gi, ci):
        return sum(counts[gi][j] for j in range(N) if tr.node_class[j] == ci)

    def done(counts) -> bool:
        if target is not None:
            return all(class_count(counts, gi, ci) == target.get((gi, ci), 0) for gi in range(G) for ci in range(len(tr.problem.classes)))
        return all(sum(counts[gi]) == groups[gi].count for gi in range(G) if must[gi])

    def moves(counts, pos):
        if inst.ordered:
            cand = [pos] if pos < G else []
        else:
            cand = [gi for gi in range(G) if sum(counts[gi]) < groups[gi].count]
        for gi in cand:
            for j in range(N):
                if target is not None and class_count(counts, gi, tr.node_class[j]) >= target.get((gi, tr.node_class[j]), 0):
                    continue
                yield gi, j

    def dfs(counts, pvs, pos, seq) -> list | None:
        nonlocal states
        if done(counts):
            return list(seq)
        key = (counts, pvs, pos)
        if key in dead:
            return None
        states += 1
        for gi, j in moves(counts, pos):
            for pvs2 in chk.fits(counts, pvs, gi, j):
                row = list(counts[gi])
                row[j] += 1
                counts2 = counts[:gi] + (tuple(row),) + counts[gi + 1:]
                seq.append((gi, j))
                got = dfs(counts2, pvs2, pos + 1, seq)
                seq.pop()
                if got is not None:
                    return got
        if inst.ordered and pos < G and not must[pos] and target is None:
            got = dfs(counts, pvs, pos + 1, seq)  # a pod whose placement is not required
            if got is not None:
                return got
        dead.add(key)
        return None

    start = tuple(tuple(0 for _ in range(N)) for _ in range(G))
    got = dfs(start, frozenset(), 0, [])
    return SearchResult(got is not None, got or [], states)


def replay(inst: Instance, sequence: list[tuple[int, int]], tr: Translation | None = None, enabled: set[Fact] | None = ALL) -> str | None:
    """Bind ``sequence`` [(group, node)] in this order (any free choice of static PVs); None when
    every bind passes and every required pod is bound, else why not."""
    tr = tr or to_problem(inst)
    chk = _Checker(inst, tr, enabled)
    G, N = len(inst.groups), len(inst.nodes)
    worst = [0, ""]

    def go(step, counts, pvs) -> bool:
        if step == len(sequence):
            for gi, g in enumerate(inst.groups):
                if (enabled is None or ("place", gi) in enabled) and sum(counts[gi]) != g.count:
                    worst[1] = f"group {gi}: {sum(counts[gi])} of {g.count} pods bound"
                    return False
            return True
        gi, j = sequence[step]
        row = list(counts[gi])
        row[j] += 1
        counts2 = counts[:gi] + (tuple(row),) + counts[gi + 1:]
        for pvs2 in chk.fits(counts, pvs, gi, j):
            if go(step + 1, counts2, pvs2):
                return True
        if step >= worst[0]:
            worst[0], worst[1] = step, f"step {step}: a pod of group {gi} does not fit node {inst.nodes[j].name}"
        return False

    start = tuple(tuple(0 for _ in range(N)) for _ in range(G))
    return None if go(0, start, frozenset()) else worst[1]


def realisable(inst: Instance, tr: Translation, x: dict[tuple[int, int], int], enabled: set[Fact] | None = ALL) -> SearchResult:
    """Can the solver's final placement x[g, c] be reached one bind at a time?"""
    return search(inst, tr, enabled, target={k: v for k, v in x.items() if v})


def all_facts(tr: Translation, built_guards: Iterable[Guard]) -> set[Fact]:
    return tr.facts(built_guards)
