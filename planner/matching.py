"""Node selector and toleration matching shared by several plugins.

Ports of:
* k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go (NodeSelector,
  LazyErrorNodeSelector, nodeSelectorTerm matching, matchFields on metadata.name);
* k8s.io/apimachinery/pkg/labels/selector.go (NewRequirement validation, Requirement.Matches
  incl. the Gt/Lt int64 comparison);
* k8s.io/apimachinery/pkg/util/validation/validation.go (IsQualifiedName, IsValidLabelValue);
* k8s.io/component-helpers/scheduling/corev1/helpers.go (FindMatchingUntoleratedTaint);
* k8s.io/api/core/v1/toleration.go (Toleration.ToleratesTaint; the alpha Lt/Gt toleration
  operators of TaintTolerationComparisonOperators are off by default and not modelled).

Parse errors follow upstream's LazyErrorNodeSelector, which the scheduler uses "for backwards
compatibility": a term whose requirements do not parse (bad key, label value or operator, a Gt/Lt
value that is not an int64, a matchFields requirement without exactly one value) never matches,
while the other terms of the selector still can.  An empty term (no expressions, no fields) is
dropped, so it matches nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from planner.domain import (
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodSpec,
    Taint,
    Toleration,
)

# k8s.io/apimachinery/pkg/util/validation/validation.go
_QUALIFIED_NAME_RE = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_VALUE_RE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
# strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, nothing else (no spaces, no "_").
_INT_RE = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

OBJECT_NAME_FIELD = "metadata.name"  # metav1.ObjectNameField

_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def is_qualified_name(value: str) -> bool:
    """validation.IsQualifiedName: [prefix/]name, prefix a DNS-1123 subdomain, name <= 63 chars."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix):
            return False
    else:
        return False
    return 0 < len(name) <= 63 and _QUALIFIED_NAME_RE.fullmatch(name) is not None


def is_valid_label_value(value: str) -> bool:
    """validation.IsValidLabelValue: empty, or <= 63 alphanumerics with '-', '_', '.' inside."""
    return len(value) <= 63 and _LABEL_VALUE_RE.fullmatch(value) is not None


def parse_int64(value: str) -> int | None:
    """strconv.ParseInt(value, 10, 64), None on error."""
    if not _INT_RE.fullmatch(value):
        return None
    n = int(value, 10)
    return n if _INT64_MIN <= n <= _INT64_MAX else None


def _label_requirement_parses(req: NodeSelectorRequirement) -> bool:
    """nodeSelectorRequirementsAsSelector + labels.NewRequirement: no validation error."""
    op = req.operator
    if op not in _LABEL_OPERATORS or not is_qualified_name(req.key):
        return False
    vals = req.values
    if op in ("In", "NotIn"):
        if not vals:
            return False
    elif op in ("Exists", "DoesNotExist"):
        if vals:
            return False
    elif len(vals) != 1 or parse_int64(vals[0]) is None:  # Gt, Lt
        return False
    return all(is_valid_label_value(v) for v in vals)


def _field_requirement_parses(req: NodeSelectorRequirement) -> bool:
    """nodeSelectorRequirementsAsFieldSelector: In/NotIn with exactly one value."""
    return req.operator in ("In", "NotIn") and len(req.values) == 1


@lru_cache(maxsize=65536)
def term_parses(term: NodeSelectorTerm) -> bool:
    """newNodeSelectorTerm has no parse errors."""
    return all(_label_requirement_parses(r) for r in term.match_expressions) and all(
        _field_requirement_parses(r) for r in term.match_fields
    )


@lru_cache(maxsize=65536)
def parsed_terms(selector: NodeSelector) -> tuple[NodeSelectorTerm, ...]:
    """The terms of NewLazyErrorNodeSelector that can match: non-empty and free of parse errors."""
    return tuple(t for t in selector.terms if (t.match_expressions or t.match_fields) and term_parses(t))


def _requirement_matches(req: NodeSelectorRequirement, labels: Mapping[str, str]) -> bool:
    """labels.Requirement.Matches for a requirement that parsed."""
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
        # Both sides parsed as int64; a node label that does not parse never matches.
        if req.key not in labels or len(req.values) != 1:
            return False
        have = parse_int64(labels[req.key])
        want = parse_int64(req.values[0])
        if have is None or want is None:
            return False
        return have > want if op == "Gt" else have < want
    return False


def _parsed_term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """nodeSelectorTerm.match for a term without parse errors."""
    labels = node.labels
    for req in term.match_expressions:
        if not _requirement_matches(req, labels):
            return False
    # extractNodeFields has only metadata.name (when set); fields.Set.Get of any other key is "".
    if term.match_fields and node.name:
        for req in term.match_fields:
            have = node.name if req.key == OBJECT_NAME_FIELD else ""
            if (have == req.values[0]) != (req.operator == "In"):
                return False
    return True


def term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """One NodeSelectorTerm: an empty term or one with a parse error matches nothing."""
    if not term.match_expressions and not term.match_fields:
        return False
    return term_parses(term) and _parsed_term_matches(term, node)


def terms_match(terms: tuple[NodeSelectorTerm, ...], node: Node) -> bool:
    """LazyErrorNodeSelector.Match over ``parsed_terms(selector)`` (precomputed by the caller)."""
    for t in terms:
        if _parsed_term_matches(t, node):
            return True
    return False


def node_selector_matches(selector: NodeSelector | None, node: Node) -> bool:
    """NodeSelector.Match: the terms are ORed. A None selector matches every node."""
    if selector is None:
        return True
    return terms_match(parsed_terms(selector), node)


def labels_match_map(node_selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    """labels.SelectorFromSet(nodeSelector).Matches: every key present with an equal value."""
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


def with_label_keys(
    sel: LabelSelector | None,
    match_label_keys: Iterable[str],
    pod_labels: Mapping[str, str],
    mismatch_label_keys: Iterable[str] = (),
) -> LabelSelector | None:
    """``sel`` with ``key In (value)`` for every matchLabelKeys key the pod has and ``key NotIn
    (value)`` for every mismatchLabelKeys key, each key once, in order; a null selector stays null.

    The one merge behind PodTopologySpread's (common.go mergeLabelSetWithSelector) and
    InterPodAffinity's (the API server's applyMatchLabelKeysAndMismatchLabelKeys) effective
    selectors: planner.scheduler.plugins.podtopologyspread.common.effective_selector and
    planner.scheduler.plugins.interpodaffinity.filtering.effective_selector."""
    if sel is None:
        return None
    extra = [LabelSelectorRequirement(k, "In", (pod_labels[k],)) for k in dict.fromkeys(match_label_keys) if k in pod_labels]
    extra += [
        LabelSelectorRequirement(k, "NotIn", (pod_labels[k],)) for k in dict.fromkeys(mismatch_label_keys) if k in pod_labels
    ]
    return sel.with_requirements(tuple(extra)) if extra else sel
