"""Vectorised Score for the hot default plugins, equal to their per-node reference implementations.

The reference ports (planner/plugins/score_*.py, tested against upstream's tables) walk the
feasible nodes in Python.  At thousands of nodes that dominates a replay, so planner.plugins.scoring
runs NodeResourcesFit, NodeResourcesBalancedAllocation, TaintToleration and PodTopologySpread on
numpy arrays kept per ClusterState:

* static per node (rebuilt when ``cluster.node_infos`` or a node object changes): allocatable cpu
  and memory, whether the node has taints, per topology key the value code of every node;
* dynamic per node, revalidated on every call: the nodes that changed are those a journalled
  ClusterState names (ClusterState.track: the replay), or else those whose pod count or last pod
  changed (add_pod appends and remove_pod deletes, so any change moves one of them; the one blind
  spot -- removing a middle pod and the last one, then adding a new pod and re-adding that same
  last pod object with no score call in between -- cannot come from binding new pods).  Their
  requested and non-zero requested sums are read from the NodeInfo, which keeps both, and they
  are logged (``changes``, with the pod when the change was one pod appended);
* per (namespace, selector), the matching pods per node, and per pod requests (or spread
  constraints on the hostname) the plugin's value per node: kept across pods and brought up to
  date for the logged nodes only (a node that only gained a pod adds that pod's match).

Every formula is the reference's, in the same float64 operations and order (see
tests/test_scoring.py::test_fast_path_equals_reference; tests/test_score_incremental.py holds the
kept values to the reference as the cluster changes), so scores are identical.  numpy comes with
ortools, a dependency of planner.
"""

from __future__ import annotations

import math
import random
from collections import OrderedDict
from operator import attrgetter
from typing import Any

import numpy as np

from planner.domain import CPU, MEMORY, LabelSelector, Pod
from planner.framework import ClusterState
from planner.matching import find_untolerated_taint, pod_matches_node_selector_and_affinity
from planner.plugins import score_noderesources as nr
from planner.plugins import score_podtopologyspread as pts
from planner.plugins import score_tainttoleration as tt

MAX = 100
_get_node = attrgetter("node")
_get_pods = attrgetter("pods")
_MAX_SELECTORS = 64


_FULL: Any = object()  # _Counts.sync: a node to count again


class _Counts:
    """Matching pods of one (namespace, selector) on every node, by node position."""

    __slots__ = ("ns", "selector", "cnt", "seen", "epoch")

    def __init__(self, ns: str, selector: LabelSelector) -> None:
        self.ns = ns
        self.selector = selector
        self.epoch = -1
        self.cnt = np.zeros(0, dtype=np.int64)
        self.seen = 0  # how much of arr.changes this count reflects

    def sync(self, arr: ClusterArrays) -> np.ndarray:
        """Brought up to date with the nodes recounted since (arr.changes): a node whose only
        change was one pod appended gains that pod's match, any other is counted again."""
        todo: dict[int, Any]
        log = arr.changes
        if self.epoch != arr.epoch:
            self.cnt = np.zeros(arr.n, dtype=np.int64)
            todo = dict.fromkeys(range(arr.n), _FULL)
            self.epoch = arr.epoch
        elif self.seen < len(log):
            todo = {}
            added = arr.change_pods
            for k in range(self.seen, len(log)):
                i = log[k]
                todo[i] = _FULL if i in todo or added[k] is None else added[k]
        else:
            return self.cnt
        self.seen = len(log)
        ns = self.ns
        m = self.selector.matches
        cnt = self.cnt
        infos = arr.infos
        assert infos is not None
        for i, one in todo.items():
            if one is not _FULL:
                if not one.terminating and one.namespace == ns and m(one.labels):
                    cnt[i] += 1
                continue
            c = 0
            for p in infos[i].by_namespace.get(ns, ()):  # the node's pods in ns
                if not p.terminating and p.namespace == ns and m(p.labels):
                    c += 1
            cnt[i] = c
        return self.cnt


class ClusterArrays:
    """Per-node arrays of one ClusterState (see the module docstring)."""

    def __init__(self, cluster: ClusterState) -> None:
        self.cluster = cluster
        self.infos: list | None = None
        self.epoch = 0
        self.n = 0
        self.counts: OrderedDict[tuple[str, LabelSelector], _Counts] = OrderedDict()
        self.last_feasible: list[str] | None = None
        self.last_idx = np.zeros(0, dtype=np.intp)
        self.jpos: int | None = None  # how much of cluster.journal has been read (None: not journalled)

    # ------------------------------------------------------------------ static part

    def _rebuild(self) -> None:
        infos = self.cluster.node_infos
        self.infos = infos
        self.n = n = len(infos)
        self.epoch += 1
        self.nodes = list(map(_get_node, infos))
        self.pods_lists = list(map(_get_pods, infos))
        self.index = {nd.name: i for i, nd in enumerate(self.nodes)}
        self.alloc_cpu = np.fromiter((nd.allocatable.get(CPU, 0) for nd in self.nodes), dtype=np.int64, count=n)
        self.alloc_mem = np.fromiter((nd.allocatable.get(MEMORY, 0) for nd in self.nodes), dtype=np.int64, count=n)
        self.has_taints = np.fromiter((bool(nd.taints) for nd in self.nodes), dtype=bool, count=n)
        self.codes: dict[str, tuple[np.ndarray, np.ndarray, int]] = {}
        self.masks: dict[Any, np.ndarray] = {}
        self.lens = np.full(n, -1, dtype=np.int64)
        self.last_ids = np.zeros(n, dtype=np.uint64)
        self.lasts: list = []
        self.req_cpu = np.zeros(n, dtype=np.int64)
        self.req_mem = np.zeros(n, dtype=np.int64)
        self.nz_cpu = np.zeros(n, dtype=np.int64)
        self.nz_mem = np.zeros(n, dtype=np.int64)
        self.last_feasible = None
        self.sel: Any = None
        self.intolerable: dict[Any, np.ndarray] = {}
        self.per_node: dict[Any, list] = {}  # see _per_node
        # every node recounted since the rebuild, in order, and with each the pod appended to it
        # when that was the whole change (None otherwise): see _per_node and _Counts
        self.changes: list[int] = []
        self.change_pods: list[Any] = []
        self.spread_prep: dict[Any, tuple] = {}  # see _spread_constraints

    def refresh(self) -> None:
        """Revalidate against the cluster; recompute what changed.

        A journalled cluster (ClusterState.track) names the nodes changed since the last call;
        otherwise every node is compared (node object, pod count, identity of the last pod).
        Pods and requests are read from the node infos (never from copies), so a node info whose
        ``pods`` list were replaced is seen as well.
        """
        cluster = self.cluster
        infos = cluster.node_infos
        journal = cluster.journal
        if journal is not None and self.jpos is not None and infos is self.infos and len(infos) == self.n:
            if len(journal) == self.jpos:
                return
            index = self.index
            todo = sorted({index[name] for name in journal[self.jpos:]})
            self.jpos = len(journal)
            nodes = self.nodes
            if all(infos[i].node is nodes[i] for i in todo):
                pods_lists = self.pods_lists
                added: dict[int, Any] = {}
                for i in todo:
                    p = pods_lists[i] = infos[i].pods
                    # the old pods, less none, plus one at the end (add_pod appends, remove_pod
                    # deletes): the sums only gain that pod's requests
                    n_old = int(self.lens[i])
                    if len(p) == n_old + 1 and (n_old == 0 or p[-2] is self.lasts[i]):
                        added[i] = p[-1]
                self._recount(todo, pods_lists, added)
                for i in todo:  # the scan's view, should the journal be dropped
                    p = pods_lists[i]
                    self.lens[i] = len(p)
                    self.lasts[i] = p[-1] if p else None
                    self.last_ids[i] = id(self.lasts[i])
                return
        if infos is not self.infos or len(infos) != self.n or list(map(_get_node, infos)) != self.nodes:
            self._rebuild()
        n = self.n
        pods_lists = list(map(_get_pods, infos))
        lens = np.fromiter(map(len, pods_lists), dtype=np.int64, count=n)
        lasts = [p[-1] if p else None for p in pods_lists]
        last_ids = np.fromiter(map(id, lasts), dtype=np.uint64, count=n)
        changed = np.flatnonzero((lens != self.lens) | (last_ids != self.last_ids))
        if changed.size:
            self._recount(changed.tolist(), pods_lists, {})
        self.pods_lists = pods_lists
        self.lens = lens
        self.last_ids = last_ids
        self.lasts = lasts  # keeps the last pods alive: their ids cannot be reused
        self.jpos = len(journal) if journal is not None else None

    def _recount(self, todo: list[int], pods_lists: list, added: dict[int, Any]) -> None:
        """The sums of the nodes in ``todo``, as their NodeInfo keeps them (Requested and
        NonZeroRequested); ``added``: the nodes whose change was one pod appended (see _Counts)."""
        nz_cpu, nz_mem, rq_cpu, rq_mem = self.nz_cpu, self.nz_mem, self.req_cpu, self.req_mem
        infos = self.infos
        assert infos is not None
        for i in todo:
            ni = infos[i]
            req = ni.requested
            nz_cpu[i] = ni.nonzero_cpu
            nz_mem[i] = ni.nonzero_mem
            rq_cpu[i] = req.get(CPU, 0)  # NodeInfo.Requested
            rq_mem[i] = req.get(MEMORY, 0)
        self.changes.extend(todo)
        self.change_pods.extend(added.get(i) for i in todo)

    def positions(self, feasible: list[str]) -> np.ndarray:
        """Node positions of ``feasible``; also sets ``self.sel``, the same as an index (a slice when
        the feasible nodes are all the nodes in cluster order, so that gathers are views)."""
        if self.last_feasible is not None and feasible == self.last_feasible:
            return self.last_idx
        index = self.index
        try:
            idx = np.fromiter(map(index.__getitem__, feasible), dtype=np.intp, count=len(feasible))
        except KeyError as e:
            raise ValueError(f"feasible node {e.args[0]!r} is not in the cluster") from None
        self.last_feasible = list(feasible)
        self.last_idx = idx
        self.sel = slice(None) if idx.size == self.n and bool((idx == np.arange(self.n)).all()) else idx
        return idx

    def known_positions(self, feasible: list[str], idx: np.ndarray) -> None:
        """The caller knows the positions of ``feasible`` (the replay): positions() need not look
        them up.  ``idx`` must be the nodes of ``feasible``, in that order."""
        self.last_feasible = feasible
        self.last_idx = idx = np.asarray(idx, dtype=np.intp)
        self.sel = slice(None) if idx.size == self.n and bool((idx == np.arange(self.n)).all()) else idx

    def label_codes(self, key: str) -> tuple[np.ndarray, np.ndarray, int]:
        """(code of labels.get(key, "") per node, whether the node has the key, number of codes)."""
        got = self.codes.get(key)
        if got is None:
            table: dict[str, int] = {}
            codes = np.empty(self.n, dtype=np.intp)
            has = np.empty(self.n, dtype=bool)
            for i, nd in enumerate(self.nodes):
                v = nd.labels.get(key)
                has[i] = v is not None
                if v is None:
                    v = ""
                c = table.get(v)
                if c is None:
                    c = table[v] = len(table)
                codes[i] = c
            got = self.codes[key] = (codes, has, len(table))
        return got

    def selector_counts(self, ns: str, selector: LabelSelector) -> np.ndarray:
        key = (ns, selector)
        c = self.counts.get(key)
        if c is None:
            c = self.counts[key] = _Counts(ns, selector)
            if len(self.counts) > _MAX_SELECTORS:
                self.counts.popitem(last=False)
        else:
            self.counts.move_to_end(key)
        return c.sync(self)

    def policy_mask(self, pod: Pod, affinity: bool, taints: bool) -> np.ndarray:
        """matchNodeInclusionPolicies' node part over all nodes (cached per pod spec shape)."""
        spec = pod.spec
        req = spec.affinity.node_required if spec.affinity is not None else None
        key = (
            affinity,
            tuple(sorted(spec.node_selector.items())) if affinity else (),
            req if affinity else None,
            spec.tolerations if taints else (),
        )
        m = self.masks.get(key)
        if m is None:
            m = np.ones(self.n, dtype=bool)
            for i, nd in enumerate(self.nodes):
                if affinity and not pod_matches_node_selector_and_affinity(spec, nd):
                    m[i] = False
                elif taints and nd.taints and find_untolerated_taint(nd.taints, spec.tolerations) is not None:
                    m[i] = False
            if len(self.masks) > 256:
                self.masks.clear()
            self.masks[key] = m
        return m


def arrays(cluster: ClusterState) -> ClusterArrays:
    a = cluster.__dict__.get("_planner_score_arrays")
    if a is None:
        a = ClusterArrays(cluster)
        cluster.__dict__["_planner_score_arrays"] = a
    a.refresh()
    return a


# --------------------------------------------------------------------------- plugins


def _least(r: np.ndarray, a: np.ndarray) -> np.ndarray:
    out = np.zeros(r.shape, dtype=np.int64)
    ok = (a != 0) & (r <= a)
    out[ok] = ((a[ok] - r[ok]) * MAX) // a[ok]
    return out


def _per_node(arr: ClusterArrays, key: Any, vector: Any, scalar: Any) -> np.ndarray:
    """A score that depends only on the node and the pod's ``key``, for every node: computed
    once by ``vector(positions)``, then for the nodes whose pods changed since (arr.changes) by
    ``scalar(position)`` (the same formula in Python numbers, cheaper for a few nodes) or, for
    many, ``vector`` again."""
    ent = arr.per_node.get(key)
    log = arr.changes
    if ent is None or ent[0] != arr.epoch:
        if len(arr.per_node) > 64:
            arr.per_node.clear()
        ent = arr.per_node[key] = [arr.epoch, len(log), vector(np.arange(arr.n))]
    elif ent[1] < len(log):
        changed = set(log[ent[1]:])
        vals = ent[2]
        if len(changed) > 32:
            at = np.fromiter(changed, dtype=np.intp, count=len(changed))
            vals[at] = vector(at)
        else:
            for i in changed:
                vals[i] = scalar(i)
        ent[1] = len(log)
    return ent[2]


def _gather(full: np.ndarray, arr: ClusterArrays) -> np.ndarray:
    """The feasible nodes' values, never a view of a cache."""
    out = full[arr.sel]
    return out.copy() if isinstance(arr.sel, slice) else out


def _fit_vector(arr: ClusterArrays, pcpu: int, pmem: int, at: np.ndarray) -> np.ndarray:
    ac = arr.alloc_cpu[at]
    am = arr.alloc_mem[at]
    s = _least(arr.nz_cpu[at] + pcpu, ac) * nr.CPU_WEIGHT + _least(arr.nz_mem[at] + pmem, am) * nr.MEMORY_WEIGHT
    w = (ac != 0) * nr.CPU_WEIGHT + (am != 0) * nr.MEMORY_WEIGHT
    return np.where(w > 0, s // np.maximum(w, 1), 0)


def _fit_scalar(arr: ClusterArrays, pcpu: int, pmem: int, i: int) -> int:
    ac, am = int(arr.alloc_cpu[i]), int(arr.alloc_mem[i])
    s = w = 0
    if ac:
        r = int(arr.nz_cpu[i]) + pcpu
        s += (((ac - r) * MAX) // ac if r <= ac else 0) * nr.CPU_WEIGHT
        w += nr.CPU_WEIGHT
    if am:
        r = int(arr.nz_mem[i]) + pmem
        s += (((am - r) * MAX) // am if r <= am else 0) * nr.MEMORY_WEIGHT
        w += nr.MEMORY_WEIGHT
    return s // w if w > 0 else 0


def fit(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray:
    """NodeResourcesFit LeastAllocated on cpu and memory (score_noderesources.fit_score)."""
    pcpu, pmem = nr.nonzero_requests(pod)
    full = _per_node(arr, ("fit", pcpu, pmem), lambda at: _fit_vector(arr, pcpu, pmem, at),
                     lambda i: _fit_scalar(arr, pcpu, pmem, i))
    return _gather(full, arr)


def _balance(uc: np.ndarray, um: np.ndarray, ac: np.ndarray, am: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        fc = np.minimum(uc / ac, 1.0)
        fm = np.minimum(um / am, 1.0)
        return ((1 - np.abs((fc - fm) / 2)) * MAX).astype(np.int64)


def _balanced_vector(arr: ClusterArrays, cpu: int, mem: int, formula: str, at: np.ndarray) -> np.ndarray:
    ac = arr.alloc_cpu[at]
    am = arr.alloc_mem[at]
    both = (ac != 0) & (am != 0)
    uc = arr.req_cpu[at]
    um = arr.req_mem[at]
    with_pod = _balance(uc + cpu, um + mem, ac, am)
    if formula == "v1.35":
        return np.where(both, with_pod, MAX)
    without = _balance(uc, um, ac, am)
    half = MAX // 2
    return np.where(both, half + (half + with_pod - without) // 2, half + half // 2)


def _balance_scalar(uc: int, um: int, ac: int, am: int) -> int:
    # _balance in float64 (numpy divides int64 arrays as float64), truncated as astype(int64)
    fc = min(float(uc) / float(ac), 1.0)
    fm = min(float(um) / float(am), 1.0)
    return int((1 - abs((fc - fm) / 2)) * MAX)


def _balanced_scalar(arr: ClusterArrays, cpu: int, mem: int, formula: str, i: int) -> int:
    ac, am = int(arr.alloc_cpu[i]), int(arr.alloc_mem[i])
    half = MAX // 2
    if ac == 0 or am == 0:
        return MAX if formula == "v1.35" else half + half // 2
    uc, um = int(arr.req_cpu[i]), int(arr.req_mem[i])
    with_pod = _balance_scalar(uc + cpu, um + mem, ac, am)
    if formula == "v1.35":
        return with_pod
    return half + (half + with_pod - _balance_scalar(uc, um, ac, am)) // 2


def balanced(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray | None:
    """NodeResourcesBalancedAllocation (score_noderesources.balanced_score); None for Skip."""
    state = nr.balanced_pre_score(pod, arr.cluster, [])
    if not isinstance(state, nr.BalancedState):
        return None
    cpu, mem, formula = state.cpu, state.mem, state.formula
    full = _per_node(arr, ("balanced", cpu, mem, formula), lambda at: _balanced_vector(arr, cpu, mem, formula, at),
                     lambda i: _balanced_scalar(arr, cpu, mem, formula, i))
    return _gather(full, arr)


def taint(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray:
    """TaintToleration (score_tainttoleration): raw counts only on tainted nodes, then reversed."""
    tols = tt.pre_score(pod, arr.cluster, [])
    full = arr.intolerable.get(tols)
    if full is None:
        # per node (0 without taints), for these tolerations: node objects only, kept until a rebuild
        full = np.zeros(arr.n, dtype=np.int64)
        nodes = arr.nodes
        for p in np.flatnonzero(arr.has_taints).tolist():
            full[p] = tt.count_intolerable(nodes[p].taints, tols)
        if len(arr.intolerable) > 256:
            arr.intolerable.clear()
        arr.intolerable[tols] = full
    raw = full[arr.sel]
    mx = int(raw.max()) if raw.size else 0
    if mx == 0:
        return np.full(idx.shape, MAX, dtype=np.int64)
    return MAX - (MAX * raw) // mx


def _spread_constraints(arr: ClusterArrays, pod: Pod) -> tuple[list, bool, np.ndarray | None]:
    """get_constraints and, with requireAllTopologies, the nodes that have every key; kept per
    pod spec and labels (what they read of a pod with its own constraints) until a rebuild."""
    spec = pod.spec
    if not spec.topology_spread_constraints:
        constraints, require_all = pts.get_constraints(pod)  # the defaults read more of the pod
        return constraints, require_all, _all_keys(arr, constraints) if require_all and constraints else None
    key = (id(spec), tuple(sorted(pod.labels.items())))
    hit = arr.spread_prep.get(key)
    if hit is not None and hit[0] is spec:
        return hit[1]
    constraints, require_all = pts.get_constraints(pod)
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


def spread(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray | None:
    """PodTopologySpread (score_podtopologyspread); None for Skip."""
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
        raw = _gather(_hostname_raw(arr, pod.namespace, constraints, pts.topology_normalizing_weight(n_valid)), arr)
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
            weight = pts.topology_normalizing_weight(n_valid)
            if cnt_all is not None:
                cnt = cnt_all[sel]
        else:
            fcodes = codes[sel]
            present = np.zeros(ncodes, dtype=bool)
            present[fcodes if valid is None else fcodes[valid]] = True
            weight = pts.topology_normalizing_weight(int(present.sum()))
            if cnt_all is not None:
                mask = present[codes]
                if require_all and all_keys is not None:
                    mask &= all_keys
                aff = c.affinity_policy == pts.HONOR and has_node_req
                tnt = c.taints_policy == pts.HONOR
                if aff or tnt:
                    mask &= arr.policy_mask(pod, aff, tnt)
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
    return _per_node(arr, key, vector, scalar)


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


# --------------------------------------------------------------------------- the replay's entry


_scoring: Any = None  # planner.plugins.scoring, once imported


def score_positions(pod: Pod, cluster: ClusterState, feasible: list[str], idx: np.ndarray) -> np.ndarray:
    """planner.plugins.scoring.score_nodes' totals as an array in ``feasible`` order, for a caller
    that knows the nodes' positions ``idx`` (the replay)."""
    global _scoring
    if _scoring is None:
        from planner.plugins import scoring  # it imports this module

        _scoring = scoring
    arrays(cluster).known_positions(feasible, idx)
    total = np.zeros(len(feasible), dtype=np.int64)
    for _name, s in _scoring._run(pod, cluster, feasible):
        if s is not None:
            total += s
    return total


def select_index(total: np.ndarray, rng: random.Random) -> int:
    """planner.plugins.scoring.select_host on score_positions' array: the highest total, ties in
    array order and one ``rng.randrange`` among them (none for a single best)."""
    if not total.size:
        raise ValueError("empty priority list")
    tied = np.flatnonzero(total == total.max())
    if len(tied) == 1:
        return int(tied[0])
    return int(tied[rng.randrange(len(tied))])


__all__ = ["ClusterArrays", "arrays", "balanced", "fit", "score_positions", "select_index", "spread", "taint"]
