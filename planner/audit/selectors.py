"""Reasoning about label selectors: what a spread or pod (anti-)affinity selector counts.

* ``effective_selector``: the selector the scheduler uses for a pod of the template: the
  labelSelector with ``key In (value)`` for each matchLabelKeys key the pod has and ``key NotIn
  (value)`` for each mismatchLabelKeys key (podtopologyspread/common.go mergeLabelSetWithSelector;
  interpodaffinity's matchLabelKeys / mismatchLabelKeys, merged by the API server since v1.31);
* ``implies(a, b)``: every label set ``a`` matches is matched by ``b``, decided requirement by
  requirement (sufficient, not complete: when it answers False, ``a`` may still be narrower
  through a combination of requirements, which real selectors do not use);
* ``revision_keys``: the keys whose value a pod of a Deployment's next revision would not share
  with the current one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from planner.domain import (
    LABEL_POD_TEMPLATE_HASH,
    LabelSelector,
    LabelSelectorRequirement,
    PodAffinityTerm,
    TopologySpreadConstraint,
)


def requirements(sel: LabelSelector) -> list[LabelSelectorRequirement]:
    out = [LabelSelectorRequirement(k, "In", (v,)) for k, v in sel.match_labels]
    out.extend(sel.match_expressions)
    return out


def effective_selector(
    sel: LabelSelector | None,
    match_label_keys: Iterable[str],
    pod_labels: Mapping[str, str],
    mismatch_label_keys: Iterable[str] = (),
) -> LabelSelector | None:
    if sel is None:
        return None
    extra = [LabelSelectorRequirement(k, "In", (pod_labels[k],)) for k in dict.fromkeys(match_label_keys) if k in pod_labels]
    extra += [LabelSelectorRequirement(k, "NotIn", (pod_labels[k],)) for k in dict.fromkeys(mismatch_label_keys) if k in pod_labels]
    return sel.with_requirements(tuple(extra)) if extra else sel


def spread_selector(c: TopologySpreadConstraint, pod_labels: Mapping[str, str]) -> LabelSelector | None:
    return effective_selector(c.label_selector, c.match_label_keys, pod_labels)


def term_selector(t: PodAffinityTerm, pod_labels: Mapping[str, str]) -> LabelSelector | None:
    return effective_selector(t.label_selector, t.match_label_keys, pod_labels, t.mismatch_label_keys)


def _req_implies(a: LabelSelectorRequirement, b: LabelSelectorRequirement) -> bool:
    """Every label set satisfying ``a`` satisfies ``b`` (same key)."""
    if a.key != b.key:
        return False
    if b.operator == "In":
        return a.operator == "In" and set(a.values) <= set(b.values)
    if b.operator == "NotIn":
        if a.operator == "In":
            return not (set(a.values) & set(b.values))
        if a.operator == "NotIn":
            return set(b.values) <= set(a.values)
        return a.operator == "DoesNotExist"
    if b.operator == "Exists":
        return a.operator in ("In", "Exists")
    if b.operator == "DoesNotExist":
        return a.operator == "DoesNotExist"
    return False


def implies(a: LabelSelector | None, b: LabelSelector | None) -> bool:
    """Whatever ``a`` selects, ``b`` selects too (a null selector selects nothing)."""
    if a is None:
        return True
    if b is None:
        return False
    ra = requirements(a)
    return all(any(_req_implies(x, y) for x in ra) for y in requirements(b))


def constrained_keys(sel: LabelSelector) -> set[str]:
    return {r.key for r in requirements(sel)}


def positive_keys(sel: LabelSelector) -> set[str]:
    """Keys the selector requires a value for (In or =)."""
    return {r.key for r in requirements(sel) if r.operator == "In"}


def missing_requirements(narrow: LabelSelector, wide: LabelSelector) -> list[str]:
    """The requirements of ``narrow`` (the workload's selector) that ``wide`` does not imply, as text."""
    rw = requirements(wide)
    out = []
    for y in requirements(narrow):
        if not any(_req_implies(x, y) for x in rw):
            out.append(str(LabelSelector((), (y,))) if y.operator != "In" or len(y.values) != 1 else f"{y.key}={y.values[0]}")
    return out


def counts_revision_hash(match_label_keys: Iterable[str]) -> bool:
    return LABEL_POD_TEMPLATE_HASH in set(match_label_keys)
