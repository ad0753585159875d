"""Vectorised Score for the hot default plugins, equal to their per-node reference implementations.

The reference ports (planner/scheduler/plugins/<plugin>/scoring.py, tested against upstream's
tables) walk the feasible nodes in Python.  At thousands of nodes that dominates a replay, so
planner.scheduler.scoring
runs NodeResourcesFit, NodeResourcesBalancedAllocation, TaintToleration, PodTopologySpread and
InterPodAffinity (its Score; its PreScore map is kept apart, scoring.py) on numpy arrays kept
per ClusterState (the other plugins, VolumeBinding's storage capacity Score among them, run
their reference Score inside the same ``scoring._run``, which ``score_positions`` uses):

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
tests/scheduler/test_scoring.py::test_fast_path_equals_reference; tests/scheduler/test_score_incremental.py holds the
kept values to the reference as the cluster changes), so scores are identical.  numpy comes with
ortools, a dependency of planner.
"""

from __future__ import annotations

import random
import weakref
from collections import OrderedDict
from operator import attrgetter
from typing import Any

import numpy as np

from planner.domain import CPU, MEMORY, LabelSelector, Pod
from planner.scheduler.framework import ClusterState

MAX = 100
_INT64_MAX = (1 << 63) - 1
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
        # kept in the cluster's own __dict__ (arrays()): a weak reference back, so that a cluster
        # a replay is done with is freed when its last reference goes, not by the cyclic collector
        self._cluster = weakref.ref(cluster)
        self.infos: list | None = None
        self.epoch = 0
        self.n = 0
        self.counts: OrderedDict[tuple[str, LabelSelector], _Counts] = OrderedDict()
        self.last_feasible: list[str] | None = None
        self.last_idx = np.zeros(0, dtype=np.intp)
        self.jpos: int | None = None  # how much of cluster.journal has been read (None: not journalled)

    @property
    def cluster(self) -> ClusterState:
        cluster = self._cluster()
        assert cluster is not None, "the cluster of these arrays is gone"
        return cluster

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
        self.code_of: dict[str, dict[str, int]] = {}  # per key label_codes read, each label value's code
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
        self.intolerable: dict[Any, tuple[np.ndarray, bool]] = {}  # see plugins/tainttoleration/kernels.py
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
        if len(todo) > 64:  # many nodes (every one after a rebuild): each sum in one pass
            at = np.array(todo, dtype=np.intp)
            nis = [infos[i] for i in todo]
            k = len(nis)
            nz_cpu[at] = np.fromiter((min(ni.nonzero_cpu, _INT64_MAX) for ni in nis), dtype=np.int64, count=k)
            nz_mem[at] = np.fromiter((min(ni.nonzero_mem, _INT64_MAX) for ni in nis), dtype=np.int64, count=k)
            rq_cpu[at] = np.fromiter((min(ni.requested.get(CPU, 0), _INT64_MAX) for ni in nis), dtype=np.int64, count=k)
            rq_mem[at] = np.fromiter((min(ni.requested.get(MEMORY, 0), _INT64_MAX) for ni in nis), dtype=np.int64, count=k)
        else:
            for i in todo:
                ni = infos[i]
                req = ni.requested
                # saturated: a node's requests may sum past int64 (the kernels score such a node
                # from the NodeInfo's exact sums)
                nz_cpu[i] = min(ni.nonzero_cpu, _INT64_MAX)
                nz_mem[i] = min(ni.nonzero_mem, _INT64_MAX)
                rq_cpu[i] = min(req.get(CPU, 0), _INT64_MAX)  # NodeInfo.Requested
                rq_mem[i] = min(req.get(MEMORY, 0), _INT64_MAX)
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

    def known_positions(self, feasible: list[str] | None, idx: np.ndarray) -> None:
        """The caller knows the positions of ``feasible`` (the replay): positions() need not look
        them up.  ``idx`` must be the nodes of ``feasible``, in that order; ``feasible`` None: the
        caller has the positions only (positions() then looks its list up again)."""
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
            self.code_of[key] = table
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


def arrays(cluster: ClusterState) -> ClusterArrays:
    a = cluster.__dict__.get("_planner_score_arrays")
    if a is None:
        a = ClusterArrays(cluster)
        cluster.__dict__["_planner_score_arrays"] = a
    a.refresh()
    return a


# --------------------------------------------------------------------------- helpers for the kernels


def per_node(arr: ClusterArrays, key: Any, vector: Any, scalar: Any) -> np.ndarray:
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


def gather(full: np.ndarray, arr: ClusterArrays) -> np.ndarray:
    """The feasible nodes' values, never a view of a cache."""
    out = full[arr.sel]
    return out.copy() if isinstance(arr.sel, slice) else out


# --------------------------------------------------------------------------- the replay's entry


_scoring: Any = None  # planner.scheduler.scoring, once imported


def score_positions(pod: Pod, cluster: ClusterState, feasible: list[str] | None, idx: np.ndarray, plugins: Any = None) -> np.ndarray:
    """planner.scheduler.scoring.score_nodes' totals as an array in ``feasible`` order, for a caller
    that knows the nodes' positions ``idx`` (the replay, which need not name them: ``feasible``
    None); ``plugins``: a profile's score plugins (the default profile's when None)."""
    global _scoring
    if _scoring is None:
        from planner.scheduler import scoring  # it imports this module

        _scoring = scoring
    arr = arrays(cluster)
    arr.known_positions(feasible, idx)
    total = None
    for _name, s in _scoring._run(pod, cluster, feasible, plugins, (arr, arr.last_idx)):
        if s is None:
            continue
        if total is None:
            total = s  # each plugin's array is its own (gather: never a view of a cache): summed into
        else:
            total += s
    return np.zeros(len(idx), dtype=np.int64) if total is None else total


def select_index(total: np.ndarray, rng: random.Random) -> int:
    """planner.scheduler.scoring.select_host on score_positions' array: the highest total, ties in
    array order and one ``rng.randrange`` among them (none for a single best)."""
    if not total.size:
        raise ValueError("empty priority list")
    tied = np.flatnonzero(total == total.max())
    if len(tied) == 1:
        return int(tied[0])
    return int(tied[rng.randrange(len(tied))])


__all__ = ["ClusterArrays", "arrays", "gather", "per_node", "score_positions", "select_index"]
