"""InterPodAffinity, Filter half: required pod affinity and anti-affinity.

A port of kube-scheduler v1.37:
* pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (preFilterState,
  getExistingAntiAffinityCounts, getIncomingAffinityAntiAffinityCounts, PreFilter, satisfyPodAffinity,
  satisfyPodAntiAffinity, satisfyExistingPodsAntiAffinity, Filter, reason strings);
* pkg/scheduler/framework/plugins/interpodaffinity/plugin.go (mergeAffinityTermNamespacesIfNotEmpty,
  GetNamespaceLabelsSnapshot);
* pkg/scheduler/framework/types.go (newAffinityTerm, getNamespacesFromPodAffinityTerm) and
  staging/src/k8s.io/kube-scheduler/framework (AffinityTerm.Matches);
* pkg/registry/core/pod/strategy.go (applyMatchLabelKeysAndMismatchLabelKeys) for matchLabelKeys.

PreFilter walks the cluster once (every pod for the incoming pod's terms, only the pods with required
anti-affinity for the existing pods' terms) and counts matches per (topology key, value); Filter
looks up the node's values, O(terms) per node.

Semantics, as upstream has them
-------------------------------
* Three checks, in this order, the first failure decides:
  1. the incoming pod's required affinity -- every term's topology key must be on the node and, for
     every term, some pod matching *all* the terms must run in the node's domain of that term
     (``affinity_counts``).  Failure: ``ERR_REASON_AFFINITY_RULES_NOT_MATCH``,
     UnschedulableAndUnresolvable.
  2. the incoming pod's required anti-affinity -- no term may have a matching pod in the node's
     domain; a node without the term's topology key passes that term.  Failure:
     ``ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH``, Unschedulable.
  3. existing pods' required anti-affinity against the incoming pod (symmetry) -- no existing pod's
     term matching the incoming pod may sit in the node's domain of that term.  Failure:
     ``ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH``, Unschedulable.
* First-pod rule (satisfyPodAffinity): when some term has no matching pod in the node's domain, the
  node still passes if ``affinity_counts`` is empty -- no pod anywhere matches all the terms on a
  node carrying one of the terms' topology keys -- and the incoming pod matches all its own terms
  (namespaces included).  The node must still carry every term's topology key.
* Namespaces (getNamespacesFromPodAffinityTerm, AffinityTerm.Matches): empty ``namespaces`` and a
  null ``namespaceSelector`` mean the term owner's namespace; otherwise the listed namespaces OR the
  namespaces whose labels match the selector.  An empty selector (``LabelSelector()``) matches every
  namespace, a null one none.  For the incoming pod upstream unrolls a non-empty selector into the
  namespaces that exist (mergeAffinityTermNamespacesIfNotEmpty); here the selector is evaluated on
  ``cluster.namespace_labels_of(ns)`` of each candidate pod's namespace, which is the same set as
  every running pod's namespace exists.  Existing pods' terms are matched against the incoming pod's
  namespace labels (GetNamespaceLabelsSnapshot).
* matchLabelKeys / mismatchLabelKeys: the scheduler does not read them (newAffinityTerm uses
  labelSelector only); since MatchLabelKeysInPodAffinity (GA in v1.33) the API server merges them
  into labelSelector when the pod is created: ``key In (value)`` / ``key NotIn (value)`` for every key
  present in the *term owner's* labels, nothing when labelSelector is null.  planner keeps the keys
  beside the raw selector, so this module applies that merge once (``effective_selector``), with the
  owner's labels -- the incoming pod's for its terms, each existing pod's for its own.  On an
  API-server-merged selector the requirement is the same and re-applying it is idempotent (unless
  the owner's labels changed after creation, which planner cannot see).
* Terminating pods (deletionTimestamp set) are counted like any other pod on the node: upstream
  iterates ``nodeInfo.GetPods()`` without the terminating check PodTopologySpread has.
* Skip: no existing pod's anti-affinity matches the incoming pod and the incoming pod has no required
  affinity or anti-affinity terms.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from planner.domain import LabelSelector, Node, Pod, PodAffinityTerm, selector_matches
from planner.matching import with_label_keys
from planner.scheduler.framework import SKIP, UNRESOLVABLE, UNSCHEDULABLE, ClusterState, NodeInfo, Status

NAME = "InterPodAffinity"

# filtering.go
ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

_AFFINITY_FAILED = Status(NAME, (ERR_REASON_AFFINITY_RULES_NOT_MATCH,), UNRESOLVABLE)
_ANTI_AFFINITY_FAILED = Status(NAME, (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,), UNSCHEDULABLE)
_EXISTING_ANTI_AFFINITY_FAILED = Status(NAME, (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,), UNSCHEDULABLE)

TopologyPair = tuple[str, str]  # (topology key, value)


def effective_selector(term: PodAffinityTerm, owner_labels: Mapping[str, str]) -> LabelSelector | None:
    """strategy.go applyMatchLabelKeysAndMismatchLabelKeys: the selector the scheduler sees."""
    sel = term.label_selector
    if sel is None or (not term.match_label_keys and not term.mismatch_label_keys):
        return sel
    return with_label_keys(sel, term.match_label_keys, owner_labels, term.mismatch_label_keys)


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """framework.AffinityTerm: a PodAffinityTerm resolved against the pod that owns it."""

    namespaces: frozenset[str]
    selector: LabelSelector | None
    topology_key: str
    namespace_selector: LabelSelector | None
    term: PodAffinityTerm  # as written in the owner's spec

    @classmethod
    def of(cls, owner: Pod, term: PodAffinityTerm) -> AffinityTerm:
        """types.go newAffinityTerm + getNamespacesFromPodAffinityTerm."""
        if not term.namespaces and term.namespace_selector is None:
            namespaces = frozenset((owner.namespace,))
        else:
            namespaces = frozenset(term.namespaces)
        return cls(namespaces, effective_selector(term, owner.labels), term.topology_key, term.namespace_selector, term)

    def matches(self, pod: Pod, ns_labels: Mapping[str, str]) -> bool:
        """AffinityTerm.Matches: namespace (listed, or labels matching the namespace selector), then labels."""
        if pod.namespace in self.namespaces or selector_matches(self.namespace_selector, ns_labels):
            return selector_matches(self.selector, pod.labels)
        return False


class _IncomingTerm:
    """An incoming pod's term after mergeAffinityTermNamespacesIfNotEmpty, with a namespace cache."""

    __slots__ = ("term", "cluster", "_ns_ok")

    def __init__(self, term: AffinityTerm, cluster: ClusterState) -> None:
        self.term = term
        self.cluster = cluster
        self._ns_ok: dict[str, bool] = {}

    def matches(self, pod: Pod) -> bool:
        t = self.term
        ok = self._ns_ok.get(pod.namespace)
        if ok is None:
            nss = t.namespace_selector
            if pod.namespace in t.namespaces or (nss is not None and nss.empty):
                ok = True
            elif nss is None:
                ok = False
            else:
                ok = nss.matches(self.cluster.namespace_labels_of(pod.namespace))
            self._ns_ok[pod.namespace] = ok
        return ok and selector_matches(t.selector, pod.labels)


@dataclass
class PreFilterState:
    """filtering.go preFilterState, with the resolved terms kept for explain."""

    affinity_terms: list[AffinityTerm]  # the incoming pod's required affinity terms
    anti_affinity_terms: list[AffinityTerm]  # the incoming pod's required anti-affinity terms
    # (key, value) -> existing pods matching all affinity terms, once per term with that key
    affinity_counts: dict[TopologyPair, int] = field(default_factory=dict)
    # (key, value) -> existing pods matching an anti-affinity term with that key
    anti_affinity_counts: dict[TopologyPair, int] = field(default_factory=dict)
    # (key, value) -> existing pods' anti-affinity terms with that key matching the incoming pod
    existing_anti_affinity_counts: dict[TopologyPair, int] = field(default_factory=dict)
    # podMatchesAllAffinityTerms(incoming terms, incoming pod), for the first-pod rule
    pod_matches_own_affinity: bool = False
    namespace_labels: Mapping[str, str] = field(default_factory=dict)  # the incoming pod's namespace


def _required_terms(pod: Pod) -> tuple[tuple[PodAffinityTerm, ...], tuple[PodAffinityTerm, ...]]:
    aff = pod.spec.affinity
    if aff is None:
        return (), ()
    return aff.pod_affinity_required, aff.pod_anti_affinity_required


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[PreFilterState | object, Status | None]:
    """filtering.go PreFilter."""
    aff_raw, anti_raw = _required_terms(pod)
    affinity_terms = [AffinityTerm.of(pod, t) for t in aff_raw]
    anti_terms = [AffinityTerm.of(pod, t) for t in anti_raw]
    ns_labels = cluster.namespace_labels_of(pod.namespace)
    state = PreFilterState(affinity_terms, anti_terms, namespace_labels=ns_labels)

    # getExistingAntiAffinityCounts: existing pods' required anti-affinity terms matching the pod.
    # A term's verdict on the incoming pod depends on the term as written, its owner's namespace
    # and (matchLabelKeys / mismatchLabelKeys) the owner's values of those keys: pods of one
    # template share their term objects, so it is worked out once per template, not per pod.
    existing = state.existing_anti_affinity_counts
    verdicts: dict[tuple, bool] = {}
    pod_ns = pod.namespace
    for ni in cluster.node_infos:
        anti: Iterable[Pod] = ni.pods_with_required_anti_affinity
        if not anti:
            continue
        if not ni.foreign_affinity:
            # no term of the node's pods names a namespace (NodeInfo.foreign_affinity): only
            # those in the pod's own namespace can match it (the others have no term here)
            anti = ni.by_namespace.get(pod_ns, ())
        labels = ni.node.labels
        for ep in anti:
            for raw in _required_terms(ep)[1]:
                keys = raw.match_label_keys + raw.mismatch_label_keys
                vk = (id(raw), ep.namespace, tuple(ep.labels.get(k) for k in keys) if keys else ())
                hit = verdicts.get(vk)
                if hit is None:
                    hit = verdicts[vk] = AffinityTerm.of(ep, raw).matches(pod, ns_labels)
                if hit:
                    value = labels.get(raw.topology_key)
                    if value is not None:
                        pair = (raw.topology_key, value)
                        existing[pair] = existing.get(pair, 0) + 1

    # getIncomingAffinityAntiAffinityCounts: existing pods matching the incoming pod's terms.
    if affinity_terms or anti_terms:
        inc_aff = [_IncomingTerm(t, cluster) for t in affinity_terms]
        inc_anti = [_IncomingTerm(t, cluster) for t in anti_terms]
        aff_counts = state.affinity_counts
        anti_counts = state.anti_affinity_counts
        # Only pods in the namespaces the terms name can match (unless a term has a namespace
        # selector): look at those namespaces' pods alone.
        terms_all = affinity_terms + anti_terms
        nss: list[str] | None = None
        if all(t.namespace_selector is None for t in terms_all):
            nss = sorted({ns for t in terms_all for ns in t.namespaces})
        for ni in cluster.node_infos:
            if not ni.pods:
                continue
            labels = ni.node.labels
            if nss is None:
                candidates: list[Pod] = ni.pods
            elif len(nss) == 1:
                candidates = ni.by_namespace.get(nss[0], [])
            else:
                candidates = [p for ns in nss for p in ni.by_namespace.get(ns, ())]
            for ep in candidates:
                # updateWithAffinityTerms: only a pod matching ALL terms counts, once per term.
                if inc_aff:
                    for it in inc_aff:
                        if not it.matches(ep):
                            break
                    else:
                        for it in inc_aff:
                            value = labels.get(it.term.topology_key)
                            if value is not None:
                                pair = (it.term.topology_key, value)
                                aff_counts[pair] = aff_counts.get(pair, 0) + 1
                for it in inc_anti:
                    if it.matches(ep):
                        value = labels.get(it.term.topology_key)
                        if value is not None:
                            pair = (it.term.topology_key, value)
                            anti_counts[pair] = anti_counts.get(pair, 0) + 1
        # podMatchesAllAffinityTerms(terms, pod): false for no terms.
        state.pod_matches_own_affinity = bool(inc_aff) and all(it.matches(pod) for it in inc_aff)

    if not existing and not affinity_terms and not anti_terms:
        return SKIP, None
    return state, None


def satisfy_pod_affinity(state: PreFilterState, node: Node) -> bool:
    """filtering.go satisfyPodAffinity, including the first-pod rule."""
    labels = node.labels
    pods_exist = True
    for t in state.affinity_terms:
        value = labels.get(t.topology_key)
        if value is None:
            # All topology labels must exist on the node.
            return False
        if state.affinity_counts.get((t.topology_key, value), 0) <= 0:
            pods_exist = False
    if not pods_exist:
        # The first pod of a group with affinity to itself: no pod matches anywhere, the pod
        # matches its own terms, and the node has every topology key.
        return not state.affinity_counts and state.pod_matches_own_affinity
    return True


def satisfy_pod_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """filtering.go satisfyPodAntiAffinity: a node without a term's topology key passes that term."""
    if state.anti_affinity_counts:
        labels = node.labels
        for t in state.anti_affinity_terms:
            value = labels.get(t.topology_key)
            if value is not None and state.anti_affinity_counts.get((t.topology_key, value), 0) > 0:
                return False
    return True


def satisfy_existing_pods_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """filtering.go satisfyExistingPodsAntiAffinity: any (label, value) of the node with a count."""
    counts = state.existing_anti_affinity_counts
    if counts:
        for key, value in node.labels.items():
            if counts.get((key, value), 0) > 0:
                return False
    return True


def filter(state: PreFilterState, pod: Pod, node_info: NodeInfo) -> Status | None:
    """filtering.go Filter."""
    node = node_info.node
    # every term's key on the node and (some pod matching all terms in each term's domain, or first pod)
    if not satisfy_pod_affinity(state, node):
        return _AFFINITY_FAILED
    # no anti-affinity term has a matching pod in the node's domain of that term
    if not satisfy_pod_anti_affinity(state, node):
        return _ANTI_AFFINITY_FAILED
    # no existing pod's anti-affinity term matching this pod has its domain on the node
    if not satisfy_existing_pods_anti_affinity(state, node):
        return _EXISTING_ANTI_AFFINITY_FAILED
    return None


def add_pod(state: PreFilterState | object, pod_to_add: Pod, pod: Pod, node: Node, cluster: ClusterState) -> None:
    """filtering.go PreFilterExtensions.AddPod (preFilterState.updateWithPod with multiplier 1):
    the state of ``pod`` after ``pod_to_add`` was bound to ``node``.  A pod that skipped
    PreFilter (no terms, no existing anti-affinity against it) may need the full PreFilter again
    once a pod with anti-affinity lands: callers then recompute (see add_pod_needs_prefilter)."""
    if not isinstance(state, PreFilterState):
        return
    labels = node.labels
    # existing pods' anti-affinity: the added pod's required anti-affinity terms matching the pod
    for raw in _required_terms(pod_to_add)[1]:
        t = AffinityTerm.of(pod_to_add, raw)
        if t.matches(pod, state.namespace_labels):
            value = labels.get(t.topology_key)
            if value is not None:
                pair = (t.topology_key, value)
                state.existing_anti_affinity_counts[pair] = state.existing_anti_affinity_counts.get(pair, 0) + 1
    # the pod's own terms matching the added pod
    if state.affinity_terms:
        inc = [_IncomingTerm(t, cluster) for t in state.affinity_terms]
        if all(it.matches(pod_to_add) for it in inc):
            for it in inc:
                value = labels.get(it.term.topology_key)
                if value is not None:
                    pair = (it.term.topology_key, value)
                    state.affinity_counts[pair] = state.affinity_counts.get(pair, 0) + 1
    for t in state.anti_affinity_terms:
        if _IncomingTerm(t, cluster).matches(pod_to_add):
            value = labels.get(t.topology_key)
            if value is not None:
                pair = (t.topology_key, value)
                state.anti_affinity_counts[pair] = state.anti_affinity_counts.get(pair, 0) + 1


def add_pod_needs_prefilter(state: PreFilterState | object, pod_to_add: Pod) -> bool:
    """A skipped PreFilter (SKIP) stays valid unless the added pod brings required anti-affinity."""
    return not isinstance(state, PreFilterState) and bool(_required_terms(pod_to_add)[1])
