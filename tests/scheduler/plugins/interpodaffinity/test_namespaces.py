"""Which existing pods' terms can match an incoming pod: only those of its own namespace unless a
term names namespaces or a namespace selector (NodeInfo.foreign_affinity).

InterPodAffinity's PreFilter (existing pods' required anti-affinity) and PreScore (existing pods'
scored terms) look at a node's pods of the incoming pod's namespace alone while none of the node's
pods has such a term.  These tests hold both to the plain definition -- every existing pod with
affinity, term by term (AffinityTerm.matches) -- on random clusters of several namespaces whose
terms name namespaces, namespace selectors or neither, as the cluster gains, loses and clones pods.
"""

from __future__ import annotations

import random

import pytest

from planner.domain import LABEL_HOSTNAME, LABEL_ZONE, Affinity, Pod, WeightedPodAffinityTerm
from planner.scheduler.framework import SKIP, ClusterState, reaches_other_namespaces
from planner.scheduler.plugins.interpodaffinity import filtering, scoring
from planner.scheduler.plugins.interpodaffinity.filtering import AffinityTerm
from tests.builders import cluster, node, pod, sel, term

NAMESPACES = ("a", "b", "c")
NS_LABELS = {"a": {"team": "x"}, "b": {"team": "y"}, "c": {"team": "x"}}
APPS = ("web", "db")


def _term(rng: random.Random) -> object:
    key = rng.choice((LABEL_ZONE, LABEL_HOSTNAME))
    selector = sel({"app": rng.choice(APPS)})
    kind = rng.random()
    if kind < 0.5:
        return term(selector, key)  # its owner's namespace alone
    if kind < 0.75:
        return term(selector, key, namespaces=rng.sample(NAMESPACES, rng.randint(1, 2)))
    return term(selector, key, ns_selector=sel({"team": rng.choice(("x", "y"))}) if rng.random() < 0.8 else sel())


def _affinity(rng: random.Random) -> Affinity | None:
    if rng.random() < 0.3:
        return None
    return Affinity(
        pod_affinity_required=tuple(_term(rng) for _ in range(rng.random() < 0.2)),
        pod_anti_affinity_required=tuple(_term(rng) for _ in range(rng.random() < 0.5)),
        pod_affinity_preferred=tuple(WeightedPodAffinityTerm(rng.randint(1, 9), _term(rng)) for _ in range(rng.random() < 0.4)),
        pod_anti_affinity_preferred=tuple(WeightedPodAffinityTerm(rng.randint(1, 9), _term(rng)) for _ in range(rng.random() < 0.4)),
    )


def _pod(rng: random.Random, i: int, node_name: str = "") -> Pod:
    return pod(f"p{i}", {"app": rng.choice(APPS)}, namespace=rng.choice(NAMESPACES), node_name=node_name, affinity=_affinity(rng))


def _existing_anti_counts(cs: ClusterState, incoming: Pod) -> dict:
    """getExistingAntiAffinityCounts as written: every pod with required anti-affinity."""
    ns_labels = cs.namespace_labels_of(incoming.namespace)
    out: dict = {}
    for ni in cs.node_infos:
        for ep in ni.pods_with_required_anti_affinity:
            for raw in ep.spec.affinity.pod_anti_affinity_required:
                if AffinityTerm.of(ep, raw).matches(incoming, ns_labels):
                    value = ni.node.labels.get(raw.topology_key)
                    if value is not None:
                        out[(raw.topology_key, value)] = out.get((raw.topology_key, value), 0) + 1
    return out


def _topology(cs: ClusterState, incoming: Pod) -> dict:
    """PreScore's map as written (an incoming pod without preferred terms): every pod with
    affinity, its scored terms that match the incoming pod; the values left at 0 dropped."""
    ns_labels = cs.namespace_labels_of(incoming.namespace)
    out: dict = {}
    for ni in cs.node_infos:
        for ep in ni.pods_with_affinity:
            for key, delta in scoring._existing_contributions(ep, incoming, ns_labels):
                value = ni.node.labels.get(key)
                if value is not None:
                    out.setdefault(key, {})
                    out[key][value] = out[key].get(value, 0) + delta
    return {k: {v: d for v, d in vals.items() if d} for k, vals in out.items() if any(vals.values())}


def _scored(cs: ClusterState, incoming: Pod) -> dict:
    got = scoring.pre_score(incoming, cs, [])
    if got is SKIP:
        return {}
    assert isinstance(got, dict)
    return {k: {v: d for v, d in vals.items() if d} for k, vals in got.items() if any(vals.values())}


def _check(cs: ClusterState, incoming: Pod) -> None:
    for ni in cs.node_infos:
        assert ni.foreign_affinity == sum(1 for p in ni.pods_with_affinity if reaches_other_namespaces(p.spec.affinity))
    state, status = filtering.pre_filter(incoming, cs)
    want = _existing_anti_counts(cs, incoming)
    assert status is None
    if state is SKIP:
        assert not want
    else:
        assert state.existing_anti_affinity_counts == want
    assert _scored(cs, incoming) == _topology(cs, incoming)


@pytest.mark.parametrize("seed", range(60))
def test_existing_terms_found_by_namespace_as_by_walking_every_pod(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [node(f"n{i}", zone=f"z{i % 3}") for i in range(6)]
    pods = [_pod(rng, i, f"n{rng.randrange(6)}") for i in range(30)]
    cs = cluster(nodes, pods, namespaces=NS_LABELS)
    incoming = [pod(f"in-{ns}-{app}", {"app": app}, namespace=ns) for ns in NAMESPACES for app in APPS]
    for p in incoming:
        _check(cs, p)
    # the cluster changes: pods bound and removed, on a clone (copy-on-write node infos), each
    # change followed by the questions again (PreScore's kept shares are brought up to date)
    cs = cs.clone()
    placed = list(pods)
    for step in range(12):
        if rng.random() < 0.5 and placed:
            gone = placed.pop(rng.randrange(len(placed)))
            cs.remove_pod(gone)
        else:
            new = _pod(rng, 100 + step, f"n{rng.randrange(6)}")
            cs.own(new.spec.node_name).add_pod(new)
            placed.append(new)
        for p in rng.sample(incoming, 2):
            _check(cs, p)


def test_a_term_naming_another_namespace_is_found_beside_pods_of_other_namespaces() -> None:
    """The node holds pods of namespace "b" only: one whose anti-affinity names namespace "a", one
    whose term is its own namespace's.  A pod of "a" is kept off the node by the first alone."""
    foreign = pod("f", {"app": "db"}, namespace="b", node_name="n0",
                  affinity=Affinity(pod_anti_affinity_required=(term(sel({"app": "web"}), LABEL_HOSTNAME, namespaces=["a"]),)))
    local = pod("l", {"app": "db"}, namespace="b", node_name="n0",
                affinity=Affinity(pod_anti_affinity_required=(term(sel({"app": "web"}), LABEL_HOSTNAME),)))
    cs = cluster([node("n0"), node("n1")], [foreign, local], namespaces=NS_LABELS)
    incoming = pod("in", {"app": "web"}, namespace="a")
    state, _ = filtering.pre_filter(incoming, cs)
    assert state.existing_anti_affinity_counts == {(LABEL_HOSTNAME, "n0"): 1}
    assert cs.by_name["n0"].foreign_affinity == 1
    cs.remove_pod(foreign)
    assert cs.by_name["n0"].foreign_affinity == 0
    assert filtering.pre_filter(incoming, cs)[0] is SKIP
