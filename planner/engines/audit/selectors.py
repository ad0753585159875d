"""Reasoning about label selectors: what a spread or pod (anti-)affinity selector counts.

* ``spread_selector`` / ``term_selector``: the selector the scheduler uses for a pod of the
  template, the plugins' own (planner.scheduler.plugins.podtopologyspread.common and
  interpodaffinity.filtering ``effective_selector``): the labelSelector with ``key In (value)``
  for each matchLabelKeys key the pod has and ``key NotIn (value)`` for each mismatchLabelKeys
  key;
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
from planner.scheduler.plugins.interpodaffinity import filtering as interpodaffinity
from planner.scheduler.plugins.podtopologyspread import common as podtopologyspread_common


def requirements(sel: LabelSelector) -> list[LabelSelectorRequirement]:
    out = [LabelSelectorRequirement(k, "In", (v,)) for k, v in sel.match_labels]
    out.extend(sel.match_expressions)
    return out


def spread_selector(c: TopologySpreadConstraint, pod_labels: Mapping[str, str]) -> LabelSelector | None:
    return podtopologyspread_common.effective_selector(c, pod_labels)


def term_selector(t: PodAffinityTerm, pod_labels: Mapping[str, str]) -> LabelSelector | None:
    return interpodaffinity.effective_selector(t, pod_labels)


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
