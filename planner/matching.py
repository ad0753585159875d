"""Node selector and toleration matching shared by several plugins.

Ports of:
* k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go (NodeSelector,
  nodeSelectorTerm matching, Gt/Lt integer comparison, matchFields on metadata.name);
* k8s.io/component-helpers/scheduling/corev1/helpers.go (FindMatchingUntoleratedTaint);
* k8s.io/api/core/v1/toleration.go (Toleration.ToleratesTaint).
"""

from __future__ import annotations

from typing import Iterable, Mapping

from planner.domain import Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodSpec, Taint, Toleration


def _requirement_matches(req: NodeSelectorRequirement, labels: Mapping[str, str]) -> bool:
    op = req.operator
    if op == "In":
        return req.key in labels and labels[req.key] in req.values
    if op == "NotIn":
        return req.key not in labels or labels[req.key] not in req.values
    if op == "Exists":
        return req.key in labels
    if op == "DoesNotExist":
        return req.key not in labels
    if op in ("Gt", "Lt"):
        # labels.Requirement.Matches: both sides parsed as int64; a parse failure never matches.
        if req.key not in labels or len(req.values) != 1:
            return False
        try:
            have = int(labels[req.key], 10)
            want = int(req.values[0], 10)
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    return False


def term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """A term with neither expressions nor fields matches nothing (nodeaffinity.go)."""
    if not term.match_expressions and not term.match_fields:
        return False
    for req in term.match_expressions:
        if not _requirement_matches(req, node.labels):
            return False
    if term.match_fields:
        fields = {"metadata.name": node.name}
        for req in term.match_fields:
            if req.key != "metadata.name" or not _requirement_matches(req, fields):
                return False
    return True


def node_selector_matches(selector: NodeSelector | None, node: Node) -> bool:
    """NodeSelector.Match: the terms are ORed. A None selector matches every node."""
    if selector is None:
        return True
    return any(term_matches(t, node) for t in selector.terms)


def labels_match_map(node_selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    for k, v in node_selector.items():
        if labels.get(k) != v:
            return False
    return True


def pod_matches_node_selector_and_affinity(spec: PodSpec, node: Node) -> bool:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector AND required affinity."""
    if spec.node_selector and not labels_match_map(spec.node_selector, node.labels):
        return False
    aff = spec.affinity
    if aff is not None and aff.node_required is not None:
        return node_selector_matches(aff.node_required, node)
    return True


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """v1.Toleration.ToleratesTaint."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    if toleration.operator == "Exists":
        return True
    return False


def find_untolerated_taint(taints: Iterable[Taint], tolerations: Iterable[Toleration], effects: tuple[str, ...] = ("NoSchedule", "NoExecute")) -> Taint | None:
    """v1helper.FindMatchingUntoleratedTaint with the filter used by TaintToleration.Filter."""
    tols = tuple(tolerations)
    for taint in taints:
        if taint.effect not in effects:
            continue
        if not any(tolerates(t, taint) for t in tols):
            return taint
    return None
