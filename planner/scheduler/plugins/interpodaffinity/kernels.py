"""InterPodAffinity's Filter, vectorised for the replay (planner.scheduler.fastfilter): the
anti-affinity parts of pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
(satisfyExistingPodsAntiAffinity, satisfyPodAntiAffinity).

Existing pods' required anti-affinity terms are kept grouped by term with per-node counts; the
incoming pod's own anti-affinity terms count matching pods (terminating ones included) per
domain.  Required affinity runs through filtering.py itself on the nodes left.

And its Score on the score arrays (planner.scheduler.arrays; ``score``): scoring.py's PreScore map
read per node through the label codes, equal to scoring.py's Score and NormalizeScore
(pkg/scheduler/framework/plugins/interpodaffinity/scoring.go) in the same integer sums and float64
operations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from planner.domain import POD_IDENTITY_LABELS, Pod, terms_read_pod_identity
from planner.scheduler.framework import SKIP

if TYPE_CHECKING:
    from planner.scheduler.arrays import ClusterArrays
    from planner.scheduler.fastfilter import FastFilter

from planner.scheduler.plugins.interpodaffinity import filtering as ipa
from planner.scheduler.plugins.interpodaffinity import scoring


def anti_add(ff: FastFilter, pod: Pod, i: int, sign: int) -> None:
    aff = pod.spec.affinity
    assert aff is not None
    for raw in aff.pod_anti_affinity_required:
        label_part = tuple(sorted(pod.labels.items())) if (raw.match_label_keys or raw.mismatch_label_keys) else ()
        key = (raw, pod.namespace, label_part)
        hit = ff.anti_terms.get(key)
        if hit is None:
            hit = ff.anti_terms[key] = (ipa.AffinityTerm.of(pod, raw), np.zeros(ff.n, dtype=np.int64), [0])
            ff.anti_keys.append(key)
            if not ff.anti_identity and terms_read_pod_identity((raw,)):
                # from now on a pod's identity labels may decide which terms match it
                ff.anti_identity = True
                ff.anti_cache.clear()
        hit[1][i] += sign
        hit[2][0] += sign
        ff.anti_version += 1

# ------------------------------------------------------------------ arrays


def filter_mask(ff: FastFilter, pod: Pod, mask: np.ndarray) -> np.ndarray:
    # existing pods' required anti-affinity terms that match the incoming pod: a term matches
    # by the pod's namespace (and its labels) and labels, so the matching terms are found once
    # per (namespace, labels), and the nodes they block are kept until a count changes; the pod
    # identity labels (a StatefulSet's pods differ by them alone) are left out while no term
    # reads them (FastFilter.anti_identity)
    if ff.anti_identity:
        sig = (pod.namespace, tuple(sorted(pod.labels.items())))
    else:
        sig = (pod.namespace, tuple(sorted((k, v) for k, v in pod.labels.items() if k not in POD_IDENTITY_LABELS)))
    c = ff.anti_cache.get(sig)
    if c is None:
        if len(ff.anti_cache) > ff.MAX_CACHE:
            ff.anti_cache.clear()
        c = ff.anti_cache[sig] = [0, [], -1, None]
    if c[0] < len(ff.anti_keys):
        ns_labels = ff.cluster.namespace_labels_of(pod.namespace)
        for key in ff.anti_keys[c[0]:]:
            if ff.anti_terms[key][0].matches(pod, ns_labels):
                c[1].append(key)
        c[0] = len(ff.anti_keys)
        c[2] = -1
    if c[2] != ff.anti_version:
        blocked = None
        for key in c[1]:
            term, per_node, total = ff.anti_terms[key]
            if not total[0]:
                continue
            b = ff.blocked_domains(term.topology_key, per_node)
            blocked = b if blocked is None else (blocked | b)
        c[2], c[3] = ff.anti_version, blocked
    if c[3] is not None:
        mask = mask & ~c[3]
    aff = pod.spec.affinity
    if aff is None:
        return mask
    for raw in aff.pod_anti_affinity_required:
        term = ipa.AffinityTerm.of(pod, raw)
        per_node = ff._count(("term", term.namespaces, term.namespace_selector, term.selector))
        mask = mask & ~ff.blocked_domains(term.topology_key, per_node)
    return mask


# ------------------------------------------------------------------ Score


def score(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray | None:
    """scoring.py's Score and NormalizeScore of the nodes at ``idx`` (arr.sel); None when PreScore
    skips.  Score: per topology key of PreScore's map, the node's value's summed weight (0 without
    the label).  NormalizeScore: MAX_NODE_SCORE * (s - min) / (max - min), truncated (0 for all
    when every node scores alike)."""
    state = scoring.pre_score(pod, arr.cluster, [])
    if state is SKIP:
        return None
    assert isinstance(state, dict)
    sel = arr.sel
    total = np.zeros(idx.size, dtype=np.int64)
    for key, values in state.items():
        codes, has, n = arr.label_codes(key)
        code_of = arr.code_of[key]
        weight = np.zeros(n, dtype=np.int64)
        for v, w in values.items():
            c = code_of.get(v)
            if c is not None:
                weight[c] = w
        total += np.where(has[sel], weight[codes[sel]], 0)
    if not state or not total.size:
        return total
    lo = int(total.min())
    diff = int(total.max()) - lo
    if diff <= 0:
        return np.zeros(total.size, dtype=np.int64)
    return (scoring.MAX_NODE_SCORE * ((total - lo) / diff)).astype(np.int64)
