"""Hypothesis strategies for tiny instances: <= 4 nodes, <= 5 new pods, 2 zones."""

from __future__ import annotations

from hypothesis import strategies as st

from .bruteforce import HOST, ZONE, GroupSpec, Instance, Node, PodMeta, SpreadC, Term

APPS = ("x", "y")
ZONES = ("a", "b")


@st.composite
def nodes(draw, min_nodes: int = 2, max_nodes: int = 4, existing: bool = True) -> list[Node]:
    n = draw(st.integers(min_nodes, max_nodes))
    out = []
    for j in range(n):
        ex = []
        if existing:
            for _ in range(draw(st.integers(0, 2))):
                ex.append(
                    PodMeta.of(
                        {"app": draw(st.sampled_from(APPS))},
                        namespace=draw(st.sampled_from(("default", "default", "other"))),
                        cpu=draw(st.integers(0, 1)),
                    )
                )
        out.append(
            Node(
                f"n{j}",
                zone=draw(st.sampled_from(ZONES)),
                cpu=draw(st.integers(1, 4)),
                pods=draw(st.integers(len(ex) + 1, len(ex) + 4)),
                existing=ex,
            )
        )
    return out


@st.composite
def group(
    draw,
    node_names: list[str],
    max_count: int,
    spread: bool = True,
    anti: bool = True,
    affinity: bool = True,
    resources: bool = True,
    pins: bool = True,
) -> GroupSpec:
    app = draw(st.sampled_from(APPS))
    g = GroupSpec(count=draw(st.integers(1, max_count)), labels={"app": app})
    if resources:
        g.cpu = draw(st.integers(0, 2))
        g.host_ports = draw(st.booleans()) and draw(st.booleans())
    subset = st.frozensets(st.sampled_from(node_names), min_size=1)
    if pins:
        if draw(st.integers(0, 3)) == 0:
            g.node_affinity = draw(subset)
        if draw(st.integers(0, 3)) == 0:
            g.volume_pin = draw(subset)
    if spread:
        for _ in range(draw(st.integers(0, 2))):
            g.spreads.append(
                SpreadC.of(
                    draw(st.sampled_from((ZONE, HOST))),
                    draw(st.integers(1, 2)),
                    {"app": draw(st.sampled_from((app, app, "x", "y")))},
                    min_domains=draw(st.sampled_from((1, 1, 2, 3))),
                )
            )
        # one constraint per topology key (the API forbids two with the same key and whenUnsatisfiable)
        seen: set[str] = set()
        g.spreads = [c for c in g.spreads if not (c.key in seen or seen.add(c.key))]
    if anti and draw(st.integers(0, 2)) == 0:
        g.anti.append(Term.of(draw(st.sampled_from((ZONE, HOST))), {"app": draw(st.sampled_from(APPS))}))
    if affinity and draw(st.integers(0, 2)) == 0:
        ns = draw(st.sampled_from((None, None, ("default", "other"))))
        g.affinity.append(Term.of(draw(st.sampled_from((ZONE, HOST))), {"app": draw(st.sampled_from(APPS))}, ns))
    return g


@st.composite
def instances(draw, max_groups: int = 1, max_pods: int = 5, ordered: bool = False, **kinds) -> Instance:
    ns = draw(nodes(existing=kinds.pop("existing", True)))
    names = [n.name for n in ns]
    groups = []
    left = max_pods
    n_groups = max_pods if ordered else draw(st.integers(1, max_groups))
    n_groups = draw(st.integers(1, n_groups)) if ordered else n_groups
    for _ in range(n_groups):
        if left <= 0:
            break
        g = draw(group(names, 1 if ordered else min(left, 4), **kinds))
        groups.append(g)
        left -= g.count
    return Instance(ns, groups, ordered=ordered)
