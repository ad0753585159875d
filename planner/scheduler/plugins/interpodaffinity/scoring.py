"""InterPodAffinity, Score half: preferred pod (anti-)affinity, both ways, and hard affinity symmetry.

A port of kube-scheduler v1.37 pkg/scheduler/framework/plugins/interpodaffinity/scoring.go
(scoreMap.processTerm/processTerms, processExistingPod, PreScore, Score, NormalizeScore) with the
default InterPodAffinityArgs (hardPodAffinityWeight 1, ignorePreferredTermsOfExistingPods false),
plugin.go (mergeAffinityTermNamespacesIfNotEmpty, GetNamespaceLabelsSnapshot) and
staging/src/k8s.io/kube-scheduler/framework (AffinityTerm.Matches), reusing the term resolution of
filtering.py (AffinityTerm.of, matchLabelKeys merge).

PreScore walks every node when the incoming pod has preferred (anti-)affinity terms, otherwise only
the nodes hosting pods with affinity (HavePodsWithAffinityList), and for each existing pod on a node
with labels adds, to the (topologyKey, node's value of it) of the term:
* +weight for each preferred affinity term of the incoming pod the existing pod matches;
* -weight for each preferred anti-affinity term of the incoming pod the existing pod matches;
* +1 (hardPodAffinityWeight) for each *required affinity* term of the existing pod the incoming
  pod matches (namespace labels: the incoming pod's namespace);
* +weight / -weight for each preferred affinity / anti-affinity term of the existing pod the
  incoming pod matches.
Skip when nothing was added.  Score sums, over the topology keys, the entry of the node's value;
NormalizeScore maps [min, max] to [0, 100] (``int(100 * (s - min) / (max - min))``; all 0 when
max == min).

The incoming pod's namespaceSelector is resolved per candidate pod namespace with
``cluster.namespace_labels_of`` (upstream unrolls it into the existing namespaces), as the filter
half does.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter, is_
from typing import Any

from planner.domain import POD_IDENTITY_LABELS, Pod, PodAffinityTerm, WeightedPodAffinityTerm, terms_read_pod_identity
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo, reaches_other_namespaces
from planner.scheduler.plugins.interpodaffinity.filtering import AffinityTerm

NAME = "InterPodAffinity"
MAX_NODE_SCORE = 100
HARD_POD_AFFINITY_WEIGHT = 1  # InterPodAffinityArgs default
_with_affinity = attrgetter("pods_with_affinity")


class _Incoming:
    """An incoming pod's preferred term after mergeAffinityTermNamespacesIfNotEmpty."""

    __slots__ = ("term", "weight", "key", "cluster", "_ns")

    def __init__(self, term: AffinityTerm, weight: int, cluster: ClusterState) -> None:
        self.term = term
        self.weight = weight
        self.key = term.topology_key
        self.cluster = cluster
        self._ns: dict[str, bool] = {}

    def matches(self, pod: Pod) -> bool:
        ok = self._ns.get(pod.namespace)
        if ok is None:
            t = self.term
            nss = t.namespace_selector
            if pod.namespace in t.namespaces:
                ok = True
            elif nss is None:
                ok = False
            elif nss.empty:
                ok = True  # labels.Everything() is kept by the merge
            else:
                ok = nss.matches(self.cluster.namespace_labels_of(pod.namespace))
            self._ns[pod.namespace] = ok
        sel = self.term.selector
        return ok and sel is not None and sel.matches(pod.labels)


def _weighted(pod: Pod, terms: tuple[WeightedPodAffinityTerm, ...]) -> list[tuple[AffinityTerm, int]]:
    return [(AffinityTerm.of(pod, w.term), w.weight) for w in terms]


def _required(pod: Pod, terms: tuple[PodAffinityTerm, ...]) -> list[AffinityTerm]:
    return [AffinityTerm.of(pod, t) for t in terms]


def _add(scores: dict[str, dict[str, int]], key: str, value: str, delta: int) -> None:
    m = scores.get(key)
    if m is None:
        m = scores[key] = {}
    m[value] = m.get(value, 0) + delta


_SUMMARIES = "_ipa_score_summaries"


def _summary(cluster: ClusterState, ni: NodeInfo, all_pods: bool) -> list[tuple[Pod, int, tuple]]:
    """The node's pods (or pods with affinity) grouped by what scoring reads of them; one
    representative, a count and the key of its own terms per group.  With ``all_pods`` the
    incoming pod's terms match against namespace and labels, so those group; otherwise only the
    existing pods' own terms matter (their labels only through matchLabelKeys).  Cached on the
    cluster per node and revalidated by pod count and last pod, as planner.scheduler.arrays does."""
    cache = cluster.__dict__.setdefault(_SUMMARIES, {})
    pods = ni.pods if all_pods else ni.pods_with_affinity
    sig = (len(pods), id(pods[-1]) if pods else 0)
    key = (ni.name, all_pods)
    hit = cache.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]
    groups: dict[tuple, list] = {}
    for ep in pods:
        if all_pods:
            labels: tuple | None = tuple(sorted(ep.labels.items()))
            term_key = (id(ep.spec.affinity), ep.namespace, labels if _uses_label_keys(ep) else None)
            gk: tuple = (ep.namespace, labels, term_key)
        else:
            labels = tuple(sorted(ep.labels.items())) if _uses_label_keys(ep) else None
            gk = term_key = (id(ep.spec.affinity), ep.namespace, labels)
        g = groups.get(gk)
        if g is None:
            groups[gk] = [ep, 1, term_key]
        else:
            g[1] += 1
    summary = [(g[0], g[1], g[2]) for g in groups.values()]
    cache[key] = (sig, summary)
    return summary


def _existing_contributions(ep: Pod, pod: Pod, ns_labels: dict[str, str]) -> list[tuple[str, int]]:
    """processExistingPod's terms of ``ep`` that the incoming pod matches: (topologyKey, delta)."""
    eaff = ep.spec.affinity
    out: list[tuple[str, int]] = []
    if eaff is None:
        return out
    if HARD_POD_AFFINITY_WEIGHT > 0:
        for t in _required(ep, eaff.pod_affinity_required):
            if t.matches(pod, ns_labels):
                out.append((t.topology_key, HARD_POD_AFFINITY_WEIGHT))
    for t, w in _weighted(ep, eaff.pod_affinity_preferred):
        if t.matches(pod, ns_labels):
            out.append((t.topology_key, w))
    for t, w in _weighted(ep, eaff.pod_anti_affinity_preferred):
        if t.matches(pod, ns_labels):
            out.append((t.topology_key, -w))
    return out


def _uses_label_keys(ep: Pod) -> bool:
    aff = ep.spec.affinity
    if aff is None:
        return False
    for t in aff.pod_affinity_required:
        if t.match_label_keys or t.mismatch_label_keys:
            return True
    for w in aff.pod_affinity_preferred:
        if w.term.match_label_keys or w.term.mismatch_label_keys:
            return True
    for w in aff.pod_anti_affinity_preferred:
        if w.term.match_label_keys or w.term.mismatch_label_keys:
            return True
    return False


_TOPOLOGY = "_ipa_score_topology"
_MAX_ENTRIES = 256


class _ReadsIdentity(Exception):
    """An existing pod's scored term reads a pod identity label: the incoming pods of one
    template score differently there, and the share computed for one is not the others'."""


def _scored_terms(aff: Any) -> tuple:
    return ((aff.pod_affinity_required if HARD_POD_AFFINITY_WEIGHT > 0 else ())
            + tuple(w.term for w in aff.pod_affinity_preferred) + tuple(w.term for w in aff.pod_anti_affinity_preferred))


def _check_identity(aff: Any, reads: dict[int, bool] | None) -> None:
    """With ``reads`` (a memo by id(affinity)): raise _ReadsIdentity when a scored term of ``aff``
    reads a pod identity label (terms_read_pod_identity)."""
    if reads is None:
        return
    hit = reads.get(id(aff))
    if hit is None:
        hit = reads[id(aff)] = terms_read_pod_identity(_scored_terms(aff))
    if hit:
        raise _ReadsIdentity


def _own_terms_share(
    ni: NodeInfo, pod: Pod, ns_labels: dict[str, str], memo: dict, label_keys: dict[int, int], identity: dict[int, bool] | None = None,
    start: int = 0,
) -> list[tuple[str, str, int]]:
    """_node_contribution for an incoming pod without preferred terms: the terms of the node's
    pods with affinity that match it, pod by pod (the same sums as by groups).  ``identity``: see
    _check_identity; ``start``: the share of ``pods_with_affinity[start:]`` alone (the pods
    appended since the share of the first ``start`` was computed)."""
    labels = ni.node.labels
    out: list[tuple[str, str, int]] = []
    pwa = ni.pods_with_affinity
    if not labels or len(pwa) <= start:
        return out  # processExistingPod: a node without labels contributes nothing
    kinds_get, memo_get = label_keys.get, memo.get
    pod_ns = pod.namespace
    pods: Iterable[Pod] = pwa[start:] if start else pwa
    if not start and not ni.foreign_affinity:
        # no term of the node's pods names a namespace (NodeInfo.foreign_affinity): only those
        # in the pod's own namespace can match it (the node's other pods are skipped below)
        pods = ni.by_namespace.get(pod_ns, ())
    for ep in pods:
        aff = ep.spec.affinity
        if aff is None:
            continue
        # per affinity object: 0 no term processExistingPod scores (required anti-affinity
        # only), 1 scored terms, 2 scored terms that read the pod's labels (matchLabelKeys);
        # plus _OWN_NAMESPACE when no term names a namespace or a namespace selector
        # (framework.reaches_other_namespaces: then no pod of another namespace matches one)
        a = id(aff)
        kind = kinds_get(a)
        if kind is None:
            kind = label_keys[a] = _kind(ep, aff)
        if not kind:
            continue
        if kind & _OWN_NAMESPACE and ep.namespace != pod_ns:
            continue  # _existing_contributions: no term of ep matches the pod
        if identity is not None:
            _check_identity(aff, identity)
        mk = (a, ep.namespace, tuple(sorted(ep.labels.items())) if kind & 3 == 2 else None)
        contribs = memo_get(mk)
        if contribs is None:
            contribs = memo[mk] = _existing_contributions(ep, pod, ns_labels)
        if contribs:
            for tk, delta in contribs:
                v = labels.get(tk)
                if v is not None:
                    out.append((tk, v, delta))
    return out


_OWN_NAMESPACE = 4  # see _kind


def _kind(ep: Pod, aff: Any) -> int:
    """What _own_terms_share reads of an existing pod's affinity (see there)."""
    if not _scored_terms(aff):
        return 0
    kind = 2 if _uses_label_keys(ep) else 1
    return kind if reaches_other_namespaces(aff) else kind | _OWN_NAMESPACE


def _node_summary(cluster: ClusterState, ni: NodeInfo, has_constraints: bool) -> list[tuple[Pod, int, tuple]] | None:
    """What _node_contribution reads of the node's pods; None when it contributes nothing."""
    if not ni.node.labels:
        return None  # processExistingPod: a node without labels contributes nothing
    if not has_constraints and not ni.pods_with_affinity:
        return None
    return _summary(cluster, ni, has_constraints)


def _node_contribution(
    ni: NodeInfo,
    summary: list[tuple[Pod, int, tuple]] | None,
    inc_aff: list,
    inc_anti: list,
    pod: Pod,
    ns_labels: dict[str, str],
    memo: dict,
    identity: dict[int, bool] | None = None,
) -> list[tuple[str, str, int]]:
    """processExistingPod for every pod of one node: (topologyKey, value, delta) entries;
    ``summary``: _node_summary's; ``identity``: see _check_identity."""
    labels = ni.node.labels
    out: list[tuple[str, str, int]] = []
    if summary is None:
        return out
    for ep, count, mk in summary:
        for it in inc_aff:
            if it.matches(ep):
                v = labels.get(it.key)
                if v is not None:
                    out.append((it.key, v, it.weight * count))
        for it in inc_anti:
            if it.matches(ep):
                v = labels.get(it.key)
                if v is not None:
                    out.append((it.key, v, -it.weight * count))
        if ep.spec.affinity is None:
            continue
        _check_identity(ep.spec.affinity, identity)
        contribs = memo.get(mk)
        if contribs is None:
            contribs = memo[mk] = _existing_contributions(ep, pod, ns_labels)
        for tk, delta in contribs:
            v = labels.get(tk)
            if v is not None:
                out.append((tk, v, delta * count))
    return out


def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> dict[str, dict[str, int]] | object:
    """scoring.go PreScore: topologyKey -> topology value -> summed weight.

    Pods that scoring cannot tell apart (same namespace, labels and affinity) are processed once
    per node and their contribution multiplied by their number.  Per incoming pod signature the
    map is kept on the cluster with each node's share, and only the nodes whose pods changed
    since (NodeInfo.generation) are processed again (for a pod without preferred terms, a node
    that only gained pods with affinity since has just those added): the sums are those of a full
    pass.

    The pods of a StatefulSet differ by their identity labels (POD_IDENTITY_LABELS) only, which
    no term usually reads: their signature leaves those labels out, so that the map is shared
    from one pod to the next (a replay places thousands of them), for as long as no scored term
    of an existing pod reads one (_check_identity) and the pod's own terms do not; when one does,
    the full labels are the signature again."""
    aff = pod.spec.affinity
    if any(k in pod.labels for k in POD_IDENTITY_LABELS) and not (aff is not None and terms_read_pod_identity(_scored_terms(aff))):
        tainted = cluster.__dict__.setdefault(_TAINTED, set())
        short = (pod.namespace, tuple(sorted((k, v) for k, v in pod.labels.items() if k not in POD_IDENTITY_LABELS)), id(aff), aff, "no-identity")
        if short not in tainted:
            try:
                return _pre_score(pod, cluster, short, {})
            except _ReadsIdentity:
                tainted.add(short)
                cluster.__dict__.get(_TOPOLOGY, {}).pop(short, None)
    return _pre_score(pod, cluster, (pod.namespace, tuple(sorted(pod.labels.items())), id(aff), aff), None)


_TAINTED = "_ipa_score_identity_read"


def _same_prefix(pods: list[Pod], was: list[Pod], n: int) -> bool:
    """Whether the first ``n`` of ``pods`` are the first ``n`` of ``was``, object for object
    (a list of pods with affinity only grows, so ``was``'s first ``n`` are still those it had)."""
    return len(was) >= n and all(map(is_, pods[:n], was[:n]))


def _pre_score(pod: Pod, cluster: ClusterState, sig: tuple, identity: dict[int, bool] | None) -> dict[str, dict[str, int]] | object:
    aff = pod.spec.affinity
    pref_aff = aff.pod_affinity_preferred if aff is not None else ()
    pref_anti = aff.pod_anti_affinity_preferred if aff is not None else ()
    has_constraints = bool(pref_aff) or bool(pref_anti)
    inc_aff = [_Incoming(t, w, cluster) for t, w in _weighted(pod, pref_aff)]
    inc_anti = [_Incoming(t, w, cluster) for t, w in _weighted(pod, pref_anti)]
    ns_labels = cluster.namespace_labels_of(pod.namespace)

    cache = cluster.__dict__.setdefault(_TOPOLOGY, {})
    infos = cluster.node_infos
    entry = cache.get(sig)
    if entry is None or len(entry["gens"]) != len(infos) or entry["names"] is not infos:
        if len(cache) >= _MAX_ENTRIES:
            cache.clear()
        entry = cache[sig] = {"gens": [-1] * len(infos), "shares": [[] for _ in infos], "topology": {}, "nonempty": 0, "names": infos,
                              "jpos": None, "sources": [None] * len(infos)}
    gens, shares, topology, sources = entry["gens"], entry["shares"], entry["topology"], entry["sources"]
    memo: dict[tuple, list[tuple[str, int]]] = {}
    label_keys: dict[int, int] = {}  # id(affinity) -> what _own_terms_share reads of it, for this call
    # a journalled cluster (ClusterState.track) names the nodes changed since: only those are looked at
    journal = cluster.journal
    jpos = entry["jpos"]
    if journal is not None and jpos is not None:
        todo: Any = sorted({cluster.position(name) for name in journal[jpos:]}) if len(journal) > jpos else ()
    else:
        todo = range(len(infos))
    entry["jpos"] = len(journal) if journal is not None else None
    for i in todo:
        ni = infos[i]
        if gens[i] == ni.generation:
            continue
        src = sources[i]
        if has_constraints:
            # a share is a function of the node object and its summary (for this signature):
            # when both are the very objects it was computed from, it stands
            summary = _node_summary(cluster, ni, has_constraints)
            if src is not None and src[0] is ni.node and src[1] is summary:
                gens[i] = ni.generation
                continue
            sources[i] = (ni.node, summary)
            new = _node_contribution(ni, summary, inc_aff, inc_anti, pod, ns_labels, memo, identity)
        else:
            # only the existing pods' own terms count: a function of the node object and its
            # pods with affinity (add_pod appends to that list, remove_pod makes a new one, and
            # NodeInfo.clone copies it: the share of a list's first pods stands for any list
            # that starts with those very pods)
            pwa = ni.pods_with_affinity
            if src is not None and src[0] is ni.node and src[2] <= len(pwa) and (src[1] is pwa or _same_prefix(pwa, src[1], src[2])):
                done = src[2]
                # pods appended since (a bind): their share is added to the node's, the rest stands
                more = _own_terms_share(ni, pod, ns_labels, memo, label_keys, identity, done) if done < len(pwa) else None
                sources[i] = (ni.node, pwa, len(pwa))
                gens[i] = ni.generation
                if more:
                    for tk, v, d in more:
                        _add(topology, tk, v, d)
                    if not shares[i]:
                        entry["nonempty"] += 1
                    shares[i] = shares[i] + more
                continue
            sources[i] = (ni.node, pwa, len(pwa))
            new = _own_terms_share(ni, pod, ns_labels, memo, label_keys, identity)
        old = shares[i]
        for tk, v, d in old:
            topology[tk][v] -= d
        for tk, v, d in new:
            _add(topology, tk, v, d)
        entry["nonempty"] += (1 if new else 0) - (1 if old else 0)
        shares[i] = new
        gens[i] = ni.generation
    if not entry["nonempty"]:
        return SKIP
    return topology


def score(state: dict[str, dict[str, int]], pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    items = list(state.items())
    out = []
    for ni in nodes:
        labels = ni.node.labels
        s = 0
        for key, values in items:
            v = labels.get(key)
            if v is not None:
                s += values.get(v, 0)
        out.append(s)
    return out


def normalize(state: dict[str, dict[str, int]], scores: list[int]) -> list[int]:
    if not state or not scores:
        return scores
    lo = min(scores)
    hi = max(scores)
    diff = hi - lo
    if diff <= 0:
        return [0] * len(scores)
    return [int(MAX_NODE_SCORE * ((s - lo) / diff)) for s in scores]
