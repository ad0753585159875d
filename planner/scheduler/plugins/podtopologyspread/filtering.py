"""PodTopologySpread, Filter half: whenUnsatisfiable=DoNotSchedule constraints.

A port of kube-scheduler v1.37 (unchanged since v1.34 in what follows):
* pkg/scheduler/framework/plugins/podtopologyspread/filtering.go (preFilterState, calPreFilterState,
  minMatchNum, Filter);
* pkg/scheduler/framework/plugins/podtopologyspread/common.go (filterTopologySpreadConstraints,
  mergeLabelSetWithSelector, matchNodeInclusionPolicies, nodeLabelsMatchSpreadConstraints,
  countPodsMatchSelector; the shared parts in common.py);
* pkg/scheduler/framework/plugins/podtopologyspread/plugin.go (reason strings, getConstraints,
  systemDefaultConstraints).

PreFilter walks ``cluster.node_infos`` once and counts, per constraint, the matching pods in every
eligible domain; Filter is O(constraints) per node.

Semantics, as upstream has them
-------------------------------
* Only DoNotSchedule constraints are checked (``filterTopologySpreadConstraints(..., DoNotSchedule)``);
  ScheduleAnyway constraints are scoring only.  A pod whose constraints are all ScheduleAnyway gets
  Skip.
* Default constraints: when a pod has no constraints at all, upstream calls
  ``buildDefaultConstraints(pod, DoNotSchedule)``.  The default profile uses system defaulting,
  whose ``systemDefaultConstraints`` (hostname maxSkew 3, zone maxSkew 5) are both ScheduleAnyway,
  so for the filter the list is always empty and the plugin returns Skip.  (A cluster admin could
  configure ``PodTopologySpreadArgs.defaultConstraints`` with DoNotSchedule and List defaulting;
  this filter ignores default constraints; a --scheduler-config profile with List defaulting hands
  it pods carrying their defaults, planner.scheduler.config.defaulted_pod.)
* matchLabelKeys: the scheduler (still, in v1.37) merges ``key=<incoming pod's value>`` for
  every key present in the pod's labels into the selector (``mergeLabelSetWithSelector``; a null
  selector stays null).  Since v1.34 the API server also merges them into ``labelSelector`` at pod
  creation (MatchLabelKeysInPodTopologySpreadSelectorMerge, beta, on by default) as
  ``key In (value)``; both merges add the same requirement, so applying the keys once here, on top of
  whatever ``label_selector`` the domain object holds (raw or already merged), equals upstream.
* Counting (``countPodsMatchSelector``): only pods in the incoming pod's namespace, never pods with a
  deletionTimestamp (``Pod.terminating``), and -- since v1.27 (#116607), still in v1.37 -- *no pod
  at all when the effective selector is empty*: upstream short-circuits on ``selector.Empty()``,
  which is true for ``labelSelector: {}`` (labels.Everything()), so such a constraint counts 0
  everywhere while the incoming pod still self-matches, i.e. it never rejects a node.  Reported as
  kubernetes/kubernetes#141339; the fix, #141340 (merged on master in August 2026, after the
  release-1.37 branch was cut), first ships in v1.38.0-alpha.1 (CHANGELOG/CHANGELOG-1.38.md,
  "Changelog since v1.37.0") and was not cherry-picked to release-1.37, so v1.37.x keeps this
  behaviour and planner follows it.  When planner moves to v1.38, drop the ``empty`` tests here,
  in scoring.py, kernels.py and problem.py.  A null selector (``None``) counts nothing and never
  self-matches (unchanged by #141340).
* Nodes missing any constraint's topology key are not counted for any constraint
  (``nodeLabelsMatchSpreadConstraints``) and are rejected by Filter with
  ``ERR_REASON_NODE_LABEL_NOT_MATCH`` (UnschedulableAndUnresolvable).
* Node inclusion policies (NodeInclusionPolicyInPodTopologySpread, GA in v1.33): nodeAffinityPolicy
  Honor (default) counts only nodes matching the pod's nodeSelector and required node affinity;
  nodeTaintsPolicy Honor counts only nodes whose NoSchedule/NoExecute taints the pod tolerates
  (default Ignore).  A node excluded by a policy contributes no domain for that constraint.
* Global minimum (``minMatchNum``): the smallest count over the eligible domains, or 0 when there are
  fewer eligible domains than minDomains (nil minDomains means 1, so an empty domain set gives 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.domain import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    LabelSelector,
    Node,
    Pod,
    TopologySpreadConstraint,
    selector_matches,
)
from planner.scheduler.framework import SKIP, UNRESOLVABLE, UNSCHEDULABLE, ClusterState, NodeInfo, Status
from planner.scheduler.plugins.podtopologyspread.common import (
    DO_NOT_SCHEDULE,
    HONOR,
    IGNORE,
    NAME,
    SCHEDULE_ANYWAY,
    effective_selector,
    match_node_inclusion_policies,
    node_has_keys,
)

# plugin.go
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

# filtering.go newCriticalPaths: the minimum when a constraint has no eligible domain.
MAX_INT32 = 2**31 - 1

# plugin.go systemDefaultConstraints: scoring only (ScheduleAnyway), listed for reference; the
# filter never uses them (see the module docstring).
SYSTEM_DEFAULT_CONSTRAINTS = (
    TopologySpreadConstraint(
        max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY, label_selector=None
    ),
    TopologySpreadConstraint(
        max_skew=5, topology_key=LABEL_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY, label_selector=None
    ),
)

_LABEL_MISSING = Status(NAME, (ERR_REASON_NODE_LABEL_NOT_MATCH,), UNRESOLVABLE)
_SKEW_EXCEEDED = Status(NAME, (ERR_REASON_CONSTRAINTS_NOT_MATCH,), UNSCHEDULABLE)


@dataclass
class ConstraintState:
    """One DoNotSchedule constraint as PreFilter saw it (upstream's topologySpreadConstraint plus
    its TpValueToMatchNum and CriticalPaths entries)."""

    constraint: TopologySpreadConstraint  # as written in the pod spec
    selector: LabelSelector | None  # labelSelector with matchLabelKeys merged (None = nothing)
    min_domains: int  # ptr.Deref(minDomains, 1)
    self_match: int  # 1 if the incoming pod matches selector, else 0
    counts: dict[str, int] = field(default_factory=dict)  # eligible domain -> matching pods
    min_match: int = MAX_INT32  # CriticalPaths[i][0].MatchNum: smallest count, MaxInt32 if none
    global_min: int = 0  # minMatchNum(): min_match, or 0 when fewer domains than min_domains

    @property
    def topology_key(self) -> str:
        return self.constraint.topology_key

    @property
    def max_skew(self) -> int:
        return self.constraint.max_skew

    @property
    def node_affinity_policy(self) -> str:
        return self.constraint.node_affinity_policy

    @property
    def node_taints_policy(self) -> str:
        return self.constraint.node_taints_policy

    @property
    def eligible_domains(self) -> list[str]:
        """Topology values of the nodes that passed the inclusion policies, sorted."""
        return sorted(self.counts)

    def skew_on(self, node: Node) -> int | None:
        """The skew the pod would make in ``node``'s domain; None if the node lacks the key."""
        value = node.labels.get(self.topology_key)
        if value is None:
            return None
        return self.counts.get(value, 0) + self.self_match - self.global_min


@dataclass
class PreFilterState:
    constraints: list[ConstraintState]


def get_constraints(pod: Pod) -> list[ConstraintState]:
    """plugin.go getConstraints for whenUnsatisfiable=DoNotSchedule.

    A pod without constraints would get the default constraints, which are all ScheduleAnyway in
    the default profile, hence none (see the module docstring).
    """
    out: list[ConstraintState] = []
    for c in pod.spec.topology_spread_constraints:
        if c.when_unsatisfiable != DO_NOT_SCHEDULE:
            continue
        sel = effective_selector(c, pod.labels)
        out.append(
            ConstraintState(
                constraint=c,
                selector=sel,
                min_domains=c.min_domains if c.min_domains is not None else 1,
                self_match=1 if selector_matches(sel, pod.labels) else 0,
            )
        )
    return out


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[PreFilterState | object, Status | None]:
    """filtering.go calPreFilterState: count matching pods per eligible domain, once."""
    constraints = get_constraints(pod)
    if not constraints:
        return SKIP, None

    keys = [c.topology_key for c in constraints]
    counts = [c.counts for c in constraints]
    # countPodsMatchSelector returns 0 at once for an empty selector (labels.Everything()) and
    # matches nothing with a null one: only constraints with requirements need the pod loop.
    selectors = [c.selector if c.selector is not None and not c.selector.empty else None for c in constraints]
    any_counting = any(s is not None for s in selectors)
    policies = [(c.node_affinity_policy, c.node_taints_policy) for c in constraints]
    spec = pod.spec
    ns = pod.namespace
    # the policies that take every node for this pod: nodeAffinityPolicy Honor with neither a
    # nodeSelector nor required node affinity (every node matches them), nodeTaintsPolicy Ignore
    unconstrained = not spec.node_selector and (spec.affinity is None or spec.affinity.node_required is None)
    every = {p: (p[0] != HONOR or unconstrained) and p[1] != HONOR for p in policies}
    distinct = [p for p, all_nodes in every.items() if not all_nodes]  # the ones to ask per node
    key = keys[0] if len(keys) == 1 else None

    for ni in cluster.node_infos:
        node = ni.node
        labels = node.labels
        # nodeLabelsMatchSpreadConstraints: every topology key must be present.
        if (key not in labels) if key is not None else not node_has_keys(node, keys):
            continue
        asked = {p: match_node_inclusion_policies(p[0], p[1], spec, node) for p in distinct} if distinct else None
        candidates = None
        if any_counting and ni.pods:
            # Bypass terminating pods (#87621) and other namespaces.
            candidates = [p.labels for p in ni.by_namespace.get(ns, ()) if not p.terminating]
        for i in range(len(constraints)):
            if asked is not None and not every[policies[i]] and not asked[policies[i]]:  # matchNodeInclusionPolicies
                continue
            sel = selectors[i]
            n = 0
            if sel is not None and candidates:
                for pl in candidates:
                    if sel.matches(pl):
                        n += 1
            value = labels[keys[i]]
            counts[i][value] = counts[i].get(value, 0) + n

    for c in constraints:
        c.min_match = min(c.counts.values()) if c.counts else MAX_INT32
        # minMatchNum: fewer eligible domains than minDomains -> the global minimum is 0.
        c.global_min = 0 if len(c.counts) < c.min_domains else c.min_match
    return PreFilterState(constraints), None


def filter(state: PreFilterState, pod: Pod, node_info: NodeInfo) -> Status | None:
    """filtering.go Filter: the first constraint the node violates decides."""
    labels = node_info.node.labels
    for c in state.constraints:
        value = labels.get(c.topology_key)
        if value is None:
            return _LABEL_MISSING
        # 'existing matching num' + 'if self-match (1 or 0)' - 'global minimum' <= 'maxSkew'
        if c.counts.get(value, 0) + c.self_match - c.global_min > c.max_skew:
            return _SKEW_EXCEEDED
    return None


def skew_if_placed(state: PreFilterState, node: Node) -> list[tuple[ConstraintState, int | None]]:
    """For explain: each constraint with the skew placing the pod on ``node`` would give (None when
    the node lacks the topology key, which Filter rejects as unresolvable)."""
    return [(c, c.skew_on(node)) for c in state.constraints]


def add_pod(state: PreFilterState | object, pod_to_add: Pod, pod: Pod, node: Node) -> None:
    """filtering.go PreFilterExtensions.AddPod (preFilterState.updateWithPod with delta 1): the
    state of ``pod`` after ``pod_to_add`` was bound to ``node``, without counting everything again."""
    if not isinstance(state, PreFilterState) or pod_to_add.namespace != pod.namespace or pod_to_add.terminating:
        return
    labels = node.labels
    if not node_has_keys(node, (c.topology_key for c in state.constraints)):
        return  # nodeLabelsMatchSpreadConstraints
    for c in state.constraints:
        # matchNodeInclusionPolicies, as calPreFilterState applies them
        if not match_node_inclusion_policies(c.node_affinity_policy, c.node_taints_policy, pod.spec, node):
            continue
        sel = c.selector
        if sel is None or sel.empty or not sel.matches(pod_to_add.labels):
            continue
        value = labels[c.topology_key]
        c.counts[value] = c.counts.get(value, 0) + 1
        c.min_match = min(c.counts.values()) if c.counts else MAX_INT32
        c.global_min = 0 if len(c.counts) < c.min_domains else c.min_match


__all__ = [
    "DO_NOT_SCHEDULE",
    "HONOR",
    "IGNORE",
    "NAME",
    "SCHEDULE_ANYWAY",
    "ConstraintState",
    "PreFilterState",
    "add_pod",
    "effective_selector",
    "filter",
    "get_constraints",
    "pre_filter",
    "skew_if_placed",
]
