"""PodTopologySpread, Score half: ScheduleAnyway constraints and the system default constraints.

A port of kube-scheduler v1.37:
* pkg/scheduler/framework/plugins/podtopologyspread/scoring.go (preScoreState, initPreScoreState,
  PreScore, Score, NormalizeScore, topologyNormalizingWeight, scoreForCount);
* pkg/scheduler/framework/plugins/podtopologyspread/common.go (filterTopologySpreadConstraints with
  ScheduleAnyway, buildDefaultConstraints, matchNodeInclusionPolicies,
  nodeLabelsMatchSpreadConstraints, countPodsMatchSelector);
* pkg/scheduler/framework/plugins/podtopologyspread/plugin.go (systemDefaultConstraints: hostname
  maxSkew 3 and zone maxSkew 5, both ScheduleAnyway; the default profile uses System defaulting);
* pkg/scheduler/framework/plugins/helper/spread.go (DefaultSelector).
The selector merge of matchLabelKeys and the node inclusion policies are in common.py, shared
with the filter.

Semantics
---------
* Constraints: the pod's ScheduleAnyway constraints; a pod without any constraint gets the system
  defaults (hostname maxSkew 3, then zone maxSkew 5) with the selector of its workload, and none
  when that selector is empty.  Skip (0 everywhere) when there is no constraint.
* ``requireAllTopologies`` is true only for the pod's own constraints: then feasible nodes missing
  a topology key are *ignored* (score 0 after normalisation) and not counted.  With the defaults a
  node without a zone label still gets hostname spreading, and its zone value is "" (Go's map
  lookup), which counts as a domain for the normalising weight.
* Counting (countPodsMatchSelector): pods in the incoming pod's namespace, not terminating,
  matching the selector; an empty selector (labels.Everything()) and a null one count nothing
  (the empty case is v1.37's; kubernetes#141340 changes it in v1.38, see filtering.py).
  Non-hostname keys are counted over *all* nodes that pass the constraint's inclusion policies
  (nodeAffinityPolicy Honor by default, nodeTaintsPolicy Ignore), but only for the values some
  feasible non-ignored node has; hostname counts are the node's own pods, taken in Score.
* Score = round_half_away(sum over constraints with the key on the node of
  ``count * log(size + 2) + (maxSkew - 1)``) where size is the number of distinct values among the
  feasible non-ignored nodes (for hostname: their number).  NormalizeScore: ignored nodes 0; when
  the largest score is 0 every other node gets 100; else ``100 * (max + min - s) // max``.

Approximation (DefaultSelector): upstream merges the selectors of the Services selecting the pod and
of its controlling ReplicationController, ReplicaSet or StatefulSet, looked up by name through the
informers.  planner's ClusterState has neither Services nor workload objects, so a pod whose
controller owner is a ReplicaSet, StatefulSet or ReplicationController gets a selector on its own
labels minus the per-pod ones (``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index``,
``controller-revision-hash``); any other pod (no owner, Job, DaemonSet, bare pod behind a Service)
gets no default constraint.  Pods of one ReplicaSet share their template labels and
pod-template-hash, which is what the ReplicaSet selector (Deployment selector + pod-template-hash)
selects in practice; a StatefulSet's pods of every revision share the template labels.

Speed: per (namespace, selector) the matching-pod count of each node is cached and revalidated by the
node's pod count and last pod, so PreScore is one pass of dictionary look-ups over the nodes and the
hostname counts of Score are look-ups too.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

from planner.domain import (
    LABEL_CONTROLLER_REVISION_HASH,
    LABEL_HOSTNAME,
    LABEL_ZONE,
    POD_IDENTITY_LABELS,
    LabelSelector,
    Pod,
)
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo
from planner.scheduler.plugins.podtopologyspread import common
from planner.scheduler.plugins.podtopologyspread.common import (
    HONOR,
    IGNORE,
    SCHEDULE_ANYWAY,
    effective_selector,
    match_node_inclusion_policies,
    node_has_keys,
)

NAME = common.NAME
MAX_NODE_SCORE = 100

# plugin.go systemDefaultConstraints, in upstream order (hostname first).
SYSTEM_DEFAULT_CONSTRAINTS = ((LABEL_HOSTNAME, 3), (LABEL_ZONE, 5))

# helper.DefaultSelector looks these workload kinds up (rcKind, rsKind, ssKind).
DEFAULT_SELECTOR_KINDS = ("ReplicaSet", "StatefulSet", "ReplicationController")
# Labels a controller puts on its pods that the workload's selector does not select on: the
# per-pod identity and the StatefulSet's revision hash (a ReplicaSet's selector does include its
# pod-template-hash, so that one stays).
PER_POD_LABELS = frozenset((*POD_IDENTITY_LABELS, LABEL_CONTROLLER_REVISION_HASH))


def default_selector(pod: Pod) -> LabelSelector | None:
    """helper.DefaultSelector, approximated (see the module docstring); None when empty."""
    owner = pod.owner
    if owner is None or not owner.controller or owner.kind not in DEFAULT_SELECTOR_KINDS:
        return None
    labels = tuple(sorted((k, v) for k, v in pod.labels.items() if k not in PER_POD_LABELS))
    if not labels:
        return None
    return LabelSelector(labels)


class Constraint:
    """common.go topologySpreadConstraint as scoring uses it."""

    __slots__ = ("key", "max_skew", "selector", "affinity_policy", "taints_policy", "is_hostname")

    def __init__(
        self, key: str, max_skew: int, selector: LabelSelector | None, affinity_policy: str, taints_policy: str
    ) -> None:
        self.key = key
        self.max_skew = max_skew
        self.selector = selector
        self.affinity_policy = affinity_policy
        self.taints_policy = taints_policy
        self.is_hostname = key == LABEL_HOSTNAME


def get_constraints(pod: Pod) -> tuple[list[Constraint], bool]:
    """initPreScoreState's constraint list and requireAllTopologies (systemDefaulted is true)."""
    own = pod.spec.topology_spread_constraints
    if own:
        out = [
            Constraint(
                c.topology_key,
                c.max_skew,
                effective_selector(c, pod.labels),
                c.node_affinity_policy,
                c.node_taints_policy,
            )
            for c in own
            if c.when_unsatisfiable == SCHEDULE_ANYWAY
        ]
        return out, True
    sel = default_selector(pod)
    if sel is None:
        return [], False
    # filterTopologySpreadConstraints defaults nil policies to Honor / Ignore.
    return [Constraint(key, skew, sel, HONOR, IGNORE) for key, skew in SYSTEM_DEFAULT_CONSTRAINTS], False


# --------------------------------------------------------------------------- counting cache


def _counting(selector: LabelSelector | None) -> bool:
    """countPodsMatchSelector counts nothing for an empty or a null selector."""
    return selector is not None and not selector.empty


class _Counts:
    """Matching pods per node info for one (namespace, selector), revalidated per node."""

    __slots__ = ("ns", "selector", "entries")

    def __init__(self, ns: str, selector: LabelSelector) -> None:
        self.ns = ns
        self.selector = selector
        self.entries: dict[int, tuple[Any, int, Any, int]] = {}

    def get(self, ni: NodeInfo) -> int:
        pods = ni.pods
        n = len(pods)
        e = self.entries.get(id(ni))
        if e is not None and e[1] == n and e[0] is ni and (n == 0 or e[2] is pods[-1]):
            return e[3]
        c = 0
        if n:
            ns = self.ns
            m = self.selector.matches
            for p in pods:
                # Bypass terminating pods (#87621) and other namespaces.
                if not p.terminating and p.namespace == ns and m(p.labels):
                    c += 1
        self.entries[id(ni)] = (ni, n, pods[-1] if n else None, c)
        return c


_MAX_SELECTORS = 64


def _counts(cluster: ClusterState, ns: str, selector: LabelSelector) -> _Counts:
    lru: OrderedDict | None = cluster.__dict__.get("_planner_spread_counts")
    if lru is None:
        lru = OrderedDict()
        cluster.__dict__["_planner_spread_counts"] = lru
    key = (ns, selector)
    c = lru.get(key)
    if c is None:
        c = _Counts(ns, selector)
        lru[key] = c
        if len(lru) > _MAX_SELECTORS:
            lru.popitem(last=False)
    else:
        lru.move_to_end(key)
    return c


def count_pods_match_selector(pods: list[Pod], selector: LabelSelector | None, ns: str) -> int:
    """common.go countPodsMatchSelector (uncached)."""
    if selector is None or selector.empty:
        return 0
    return sum(1 for p in pods if not p.terminating and p.namespace == ns and selector.matches(p.labels))


# --------------------------------------------------------------------------- PreScore / Score


class State:
    """scoring.go preScoreState."""

    __slots__ = ("constraints", "ignored", "counts", "weights", "counters")

    def __init__(self) -> None:
        self.constraints: list[Constraint] = []
        self.ignored: set[str] = set()
        self.counts: list[dict[str, int]] = []  # TopologyValueToPodCounts (non-hostname keys)
        self.weights: list[float] = []  # TopologyNormalizingWeight
        self.counters: list[_Counts | None] = []


def topology_normalizing_weight(size: int) -> float:
    return math.log(size + 2)


def score_for_count(cnt: int, max_skew: int, tp_weight: float) -> float:
    return float(cnt) * tp_weight + float(max_skew - 1)


def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> State | object:
    all_nodes = cluster.node_infos
    if not all_nodes:
        return SKIP
    constraints, require_all = get_constraints(pod)
    if not constraints:
        return SKIP
    s = State()
    s.constraints = constraints
    keys = [c.key for c in constraints]
    s.counts = [{} for _ in constraints]
    topo_size = [0] * len(constraints)
    ignored = s.ignored
    # initPreScoreState
    for ni in nodes:
        labels = ni.node.labels
        if require_all and any(k not in labels for k in keys):
            ignored.add(ni.node.name)
            continue
        for i, c in enumerate(constraints):
            if c.is_hostname:
                continue  # per-node counts are taken in Score
            value = labels.get(c.key, "")
            if value not in s.counts[i]:
                s.counts[i][value] = 0
                topo_size[i] += 1
    for i, c in enumerate(constraints):
        size = len(nodes) - len(ignored) if c.is_hostname else topo_size[i]
        s.weights.append(topology_normalizing_weight(size))
    s.counters = [
        _counts(cluster, pod.namespace, c.selector) if c.selector is not None and not c.selector.empty else None
        for c in constraints
    ]

    # PreScore over all nodes: counts of the non-hostname constraints.
    work = [(i, c, s.counts[i], s.counters[i]) for i, c in enumerate(constraints) if not c.is_hostname and s.counts[i]]
    if not work:
        return s
    spec = pod.spec
    policies = {(c.affinity_policy, c.taints_policy) for _, c, _, _ in work}
    for ni in all_nodes:
        node = ni.node
        labels = node.labels
        if require_all and not node_has_keys(node, keys):
            continue
        included = {p: match_node_inclusion_policies(p[0], p[1], spec, node) for p in policies}
        for _i, c, counts, counter in work:
            if not included[(c.affinity_policy, c.taints_policy)]:  # matchNodeInclusionPolicies
                continue
            value = labels.get(c.key, "")
            if value in counts and counter is not None:
                counts[value] += counter.get(ni)
    return s


def score(state: State, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    ignored = state.ignored
    cons = list(zip(state.constraints, state.counts, state.weights, state.counters))
    out: list[int] = []
    append = out.append
    floor = math.floor
    for ni in nodes:
        node = ni.node
        if ignored and node.name in ignored:
            append(0)
            continue
        labels = node.labels
        total = 0.0
        for c, counts, w, counter in cons:
            value = labels.get(c.key)
            if value is None:
                continue
            if c.is_hostname:
                cnt = counter.get(ni) if counter is not None else 0
            else:
                cnt = counts[value]
            total += float(cnt) * w + float(c.max_skew - 1)
        # math.Round: half away from zero (total >= 0)
        r = floor(total)
        if total - r >= 0.5:
            r += 1
        append(int(r))
    return out


def normalize(state: State, scores: list[int], nodes: list[NodeInfo]) -> list[int]:
    ignored = state.ignored
    valid = [not (ignored and ni.node.name in ignored) for ni in nodes]
    lo = None
    hi = 0
    for ok, sc in zip(valid, scores):
        if not ok:
            continue
        if lo is None or sc < lo:
            lo = sc
        if sc > hi:
            hi = sc
    out = []
    for ok, sc in zip(valid, scores):
        if not ok:
            out.append(0)
        elif hi == 0:
            out.append(MAX_NODE_SCORE)
        else:
            out.append(MAX_NODE_SCORE * (hi + lo - sc) // hi)  # type: ignore[operator]
    return out
