"""PodTopologySpread: what its Filter and Score share.

A port of kube-scheduler pkg/scheduler/framework/plugins/podtopologyspread/common.go
(filterTopologySpreadConstraints' selector merge, mergeLabelSetWithSelector,
matchNodeInclusionPolicies, nodeLabelsMatchSpreadConstraints) and the constants of plugin.go.
Used by filtering.py, scoring.py, kernels.py, problem.py and planner.scheduler.fastfilter: one
definition of which nodes count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from planner.domain import LabelSelector, Node, PodSpec, TopologySpreadConstraint
from planner.matching import find_untolerated_taint, pod_matches_node_selector_and_affinity, with_label_keys

NAME = "PodTopologySpread"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"


def effective_selector(constraint: TopologySpreadConstraint, pod_labels: Mapping[str, str]) -> LabelSelector | None:
    """common.go filterTopologySpreadConstraints + mergeLabelSetWithSelector.

    ``key=<value>`` for every matchLabelKeys key the pod has, ANDed with labelSelector; a null
    labelSelector stays null (mergeLabelSetWithSelector returns labels.Nothing() unchanged).
    """
    sel = constraint.label_selector
    if sel is None or not constraint.match_label_keys:
        return sel
    return with_label_keys(sel, constraint.match_label_keys, pod_labels)


def node_has_keys(node: Node, keys: Iterable[str]) -> bool:
    """common.go nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key."""
    labels = node.labels
    return all(k in labels for k in keys)


def match_node_inclusion_policies(affinity_policy: str, taints_policy: str, spec: PodSpec, node: Node) -> bool:
    """common.go matchNodeInclusionPolicies: does ``node`` count for a constraint with these
    policies?  nodeAffinityPolicy Honor: only nodes matching the pod's nodeSelector and required
    node affinity (GetRequiredNodeAffinity(pod).Match); nodeTaintsPolicy Honor: only nodes whose
    NoSchedule/NoExecute taints the pod tolerates (FindMatchingUntoleratedTaint with
    DoNotScheduleTaintsFilterFunc).  Ignore: every node."""
    if affinity_policy == HONOR and not pod_matches_node_selector_and_affinity(spec, node):
        return False
    return not (taints_policy == HONOR and node.taints and find_untolerated_taint(node.taints, spec.tolerations) is not None)
