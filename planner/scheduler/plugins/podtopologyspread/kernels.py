"""PodTopologySpread, vectorised: Filter on the replay's node arrays (planner.scheduler.fastfilter;
filtering.go calPreFilterState and Filter: per (namespace, selector) the matching non-terminating
pods on every node, summed per domain over the eligible nodes) and Score on the per-node arrays of
planner.scheduler.arrays.

Equal to the reference (scoring.py: pkg/scheduler/framework/plugins/podtopologyspread/scoring.go)
in the same float64 operations and order.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.domain import POD_IDENTITY_LABELS, Pod, reads_pod_identity
from planner.scheduler.arrays import MAX, ClusterArrays, gather, per_node
from planner.scheduler.plugins.podtopologyspread import filtering, scoring
from planner.scheduler.plugins.podtopologyspread.common import (
    HONOR,
    IGNORE,
    match_node_inclusion_policies,
    node_has_keys,
)

if TYPE_CHECKING:
    from planner.scheduler.fastfilter import FastFilter


def policy_mask(arr: ClusterArrays, pod: Pod, affinity_policy: str, taints_policy: str) -> np.ndarray:
    """common.match_node_inclusion_policies over all nodes (cached per pod spec shape)."""
    affinity = affinity_policy == HONOR
    taints = taints_policy == HONOR
    spec = pod.spec
    req = spec.affinity.node_required if spec.affinity is not None else None
    key = (
        affinity,
        taints,
        tuple(sorted(spec.node_selector.items())) if affinity else (),
        req if affinity else None,
        spec.tolerations if taints else (),
    )
    m = arr.masks.get(key)
    if m is None:
        m = np.ones(arr.n, dtype=bool)
        for i, nd in enumerate(arr.nodes):
            if not match_node_inclusion_policies(affinity_policy, taints_policy, spec, nd):
                m[i] = False
        if len(arr.masks) > 256:
            arr.masks.clear()
        arr.masks[key] = m
    return m


def _spread_constraints(arr: ClusterArrays, pod: Pod) -> tuple[list, bool, np.ndarray | None]:
    """get_constraints and, with requireAllTopologies, the nodes that have every key; kept per
    pod spec and labels (what they read of a pod with its own constraints) until a rebuild."""
    spec = pod.spec
    if not spec.topology_spread_constraints:
        constraints, require_all = scoring.get_constraints(pod)  # the defaults read more of the pod
        return constraints, require_all, _all_keys(arr, constraints) if require_all and constraints else None
    key = (id(spec), tuple(sorted(pod.labels.items())))
    hit = arr.spread_prep.get(key)
    if hit is not None and hit[0] is spec:
        return hit[1]
    constraints, require_all = scoring.get_constraints(pod)
    out = (constraints, require_all, _all_keys(arr, constraints) if require_all and constraints else None)
    if len(arr.spread_prep) > 256:
        arr.spread_prep.clear()
    arr.spread_prep[key] = (spec, out)
    return out


def _all_keys(arr: ClusterArrays, constraints: list) -> np.ndarray:
    all_keys = np.ones(arr.n, dtype=bool)
    for c in constraints:
        all_keys &= arr.label_codes(c.key)[1]
    return all_keys


def score(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray | None:
    """PodTopologySpread Score + NormalizeScore (scoring.py); None for Skip."""
    if arr.n == 0:
        return None
    constraints, require_all, all_keys = _spread_constraints(arr, pod)
    if not constraints:
        return None
    m = idx.size
    sel = arr.sel
    valid: np.ndarray | None = None  # None: every feasible node is valid
    n_valid = m
    if all_keys is not None:
        valid = all_keys[sel]
        n_valid = int(np.count_nonzero(valid))
        if n_valid == m:
            valid = None
    if all(c.is_hostname for c in constraints):
        raw = gather(_hostname_raw(arr, pod.namespace, constraints, scoring.topology_normalizing_weight(n_valid)), arr)
        return _normalize_spread(raw, valid, m)
    spec = pod.spec
    has_node_req = bool(spec.node_selector or (spec.affinity is not None and spec.affinity.node_required is not None))
    total: Any = None
    for c in constraints:
        codes, has, ncodes = arr.label_codes(c.key)
        csel = c.selector
        cnt_all = arr.selector_counts(pod.namespace, csel) if csel is not None and not csel.empty else None
        cnt: np.ndarray | None = None
        if c.is_hostname:
            weight = scoring.topology_normalizing_weight(n_valid)
            if cnt_all is not None:
                cnt = cnt_all[sel]
        else:
            fcodes = codes[sel]
            present = np.zeros(ncodes, dtype=bool)
            present[fcodes if valid is None else fcodes[valid]] = True
            weight = scoring.topology_normalizing_weight(int(present.sum()))
            if cnt_all is not None:
                mask = present[codes]
                if require_all and all_keys is not None:
                    mask &= all_keys
                # without a nodeSelector or required node affinity every node matches it
                aff = c.affinity_policy if has_node_req else IGNORE
                if aff == HONOR or c.taints_policy == HONOR:
                    mask &= policy_mask(arr, pod, aff, c.taints_policy)
                per_code = np.bincount(codes[mask], weights=cnt_all[mask], minlength=ncodes).astype(np.int64)
                cnt = per_code[fcodes]
        # scoreForCount: cnt * weight + (maxSkew - 1), on the nodes that have the key
        term: Any = float(c.max_skew - 1) if cnt is None else cnt.astype(np.float64) * weight + float(c.max_skew - 1)
        part = np.where(has[sel], term, 0.0)
        total = part if total is None else total + part
    r = np.floor(total)
    r = r + ((total - r) >= 0.5)
    return _normalize_spread(r.astype(np.int64), valid, m)


def _hostname_raw(arr: ClusterArrays, ns: str, constraints: list, weight: float) -> np.ndarray:
    """Score's raw value (the rounded sum of scoreForCount over the constraints) on every node,
    for constraints that are all on the hostname: per node, so kept (_per_node) and updated for
    the nodes whose pods changed; the same float64 operations as spread's."""
    parts = []
    for c in constraints:
        codes, has, _ = arr.label_codes(c.key)
        sel = c.selector
        cnt_all = arr.selector_counts(ns, sel) if sel is not None and not sel.empty else None
        parts.append((has, cnt_all, float(c.max_skew - 1)))

    def vector(at: np.ndarray) -> np.ndarray:
        total: Any = None
        for has, cnt_all, base in parts:
            term: Any = base if cnt_all is None else cnt_all[at].astype(np.float64) * weight + base
            part = np.where(has[at], term, 0.0)
            total = part if total is None else total + part
        r = np.floor(total)
        r = r + ((total - r) >= 0.5)
        return r.astype(np.int64)

    def scalar(i: int) -> int:
        total: Any = None
        for has, cnt_all, base in parts:
            term = (base if cnt_all is None else float(cnt_all[i]) * weight + base) if has[i] else 0.0
            total = term if total is None else total + term
        r = math.floor(total)
        return r + (1 if total - r >= 0.5 else 0)

    key = ("spread-hostname", ns, tuple((c.selector, c.max_skew) for c in constraints), weight)
    return per_node(arr, key, vector, scalar)


def _normalize_spread(raw: np.ndarray, valid: np.ndarray | None, m: int) -> np.ndarray:
    # NormalizeScore over the valid nodes (0 for the others)
    rv = raw if valid is None else raw[valid]
    if not rv.size:
        return np.zeros(m, dtype=np.int64)
    lo = int(rv.min())
    hi = int(rv.max())
    vals: Any = MAX if hi == 0 else (MAX * (hi + lo - rv)) // hi
    if valid is None:
        return np.full(m, MAX, dtype=np.int64) if hi == 0 else vals
    out = np.zeros(m, dtype=np.int64)
    out[valid] = vals
    return out


# --------------------------------------------------------------------------- Filter (the replay's)


def _eligible(ff: FastFilter, pod: Pod, keys: tuple[str, ...], c: Any) -> np.ndarray:
    spec = pod.spec
    key = (keys, c.node_affinity_policy, c.node_taints_policy, tuple(sorted(spec.node_selector.items())),
           spec.affinity.node_required if spec.affinity else None, spec.tolerations)
    hit = ff.eligible.get(key)
    if hit is None:
        hit = np.zeros(ff.n, dtype=bool)
        for i, ni in enumerate(ff.cluster.node_infos):
            node = ni.node
            if node_has_keys(node, keys) and match_node_inclusion_policies(
                c.node_affinity_policy, c.node_taints_policy, spec, node
            ):
                hit[i] = True
        if len(ff.eligible) > ff.MAX_CACHE:
            ff.eligible.clear()
        ff.eligible[key] = hit
    return hit


def _spread_checks(ff: FastFilter, pod: Pod) -> list[SpreadCheck]:
    """The pod's DoNotSchedule constraints with what does not change while this engine lives
    (the nodes are fixed): per what they are made of, the pod's constraints, what its eligible
    nodes depend on (node selector, required node affinity, tolerations), its namespace and
    labels; its identity labels left out when no constraint reads them (reads_pod_identity), so
    that a StatefulSet's pods, each with a spec of its own (its claims), share their checks and
    each bind updates one of them, not one per pod ever placed."""
    spec = pod.spec
    labels = pod.labels.items()
    if any(k in pod.labels for k in POD_IDENTITY_LABELS) and not reads_pod_identity(pod):
        labels = ((k, v) for k, v in labels if k not in POD_IDENTITY_LABELS)  # type: ignore[assignment]
    sig = (
        pod.namespace,
        tuple(sorted(labels)),
        spec.topology_spread_constraints,
        tuple(sorted(spec.node_selector.items())),
        spec.affinity.node_required if spec.affinity else None,
        spec.tolerations,
    )
    checks = ff.spread_specs.get(sig)
    if checks is not None:
        return checks
    if len(ff.spread_specs) > ff.MAX_CACHE:
        ff.spread_specs.clear()
        ff.spread_by_count.clear()
    checks = []
    constraints = filtering.get_constraints(pod)
    keys = tuple(c.topology_key for c in constraints)
    for c in constraints:
        codes, values = ff._domain(c.topology_key)
        has = codes >= 0
        elig = _eligible(ff, pod, keys, c)
        sel_nodes = elig & has
        present = np.zeros(len(values), dtype=bool)
        present[codes[sel_nodes]] = True
        sel = c.selector
        count_key = ("spread", pod.namespace, sel) if sel is not None and not sel.empty else None
        check = SpreadCheck(c, np.where(has, codes, len(values)), sel_nodes, codes, present, count_key)
        if count_key is not None:
            per_node = ff._count(count_key)
            check.domain_counts = np.bincount(codes[sel_nodes], weights=per_node[sel_nodes], minlength=len(values)).astype(np.int64)
            ff.spread_by_count.setdefault(count_key, []).append(check)
        checks.append(check)
    ff.spread_specs[sig] = checks
    return checks


def filter_mask(ff: FastFilter, pod: Pod, mask: np.ndarray) -> np.ndarray:
    """filtering.go Filter: per constraint, the matching pods of the eligible nodes summed per
    domain (kept current by _update), the global minimum over the eligible domains, and
    'existing matching num' + 'if ff-match (1 or 0)' - 'global minimum' <= 'maxSkew' per
    node; a node missing the topology key is rejected."""
    for chk in _spread_checks(ff, pod):
        c = chk.constraint
        dc = chk.domain_counts
        n_domains = chk.n_domains
        if len(dc) <= 16:
            # few domains (zones): in Python, and the nodes of the domains allowed kept per
            # pattern of allowed domains
            counts = dc.tolist()
            if n_domains < c.min_domains:
                gmin = 0
            else:
                gmin = min(counts[d] for d in chk.present_list) if n_domains else filtering.MAX_INT32
            pattern = tuple(x + c.self_match - gmin <= c.max_skew for x in counts)
            allowed = chk.allowed.get(pattern)
            if allowed is None:
                allowed = chk.allowed[pattern] = np.array((*pattern, False), dtype=bool)[chk.lut_codes]
            mask = mask & allowed
            continue
        if n_domains < c.min_domains:
            gmin = 0
        else:
            gmin = int(dc[chk.present].min()) if n_domains else filtering.MAX_INT32
        # one entry per domain, and False for the nodes without the key
        ok = np.append(dc + c.self_match - gmin <= c.max_skew, False)
        mask = mask & ok[chk.lut_codes]
    return mask


class SpreadCheck:
    """One DoNotSchedule constraint of a pod spec: its domains and eligible nodes, and the
    matching pods per domain over those nodes (updated as pods come and go)."""

    __slots__ = ("constraint", "lut_codes", "sel_nodes", "codes", "present", "present_list", "n_domains", "count_key",
                 "domain_counts", "allowed")

    def __init__(self, constraint: filtering.ConstraintState, lut_codes: np.ndarray, sel_nodes: np.ndarray, codes: np.ndarray,
                 present: np.ndarray, count_key: Any) -> None:
        self.constraint = constraint
        self.lut_codes = lut_codes  # domain code per node, len(domains) for a node without the key
        self.sel_nodes = sel_nodes  # eligible nodes with the key
        self.codes = codes
        self.present = present  # domains with an eligible node
        self.present_list = np.flatnonzero(present).tolist()
        self.n_domains = len(self.present_list)
        self.allowed: dict[tuple[bool, ...], np.ndarray] = {}  # allowed domains -> nodes in them
        self.count_key = count_key  # FastFilter.counts key, None for an empty or null selector
        self.domain_counts = np.zeros(len(present), dtype=np.int64)
