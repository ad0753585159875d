"""The replay's filter phase over node arrays: the same answers as runtime.py, faster.

``planner simulate`` filters every Pending pod against every node after every change, which at
5,000 nodes is 50,000 Python filter calls per pod.  This engine keeps, per node position, numpy
arrays the simulator updates on every bind and delete, and answers ``feasible(pod)`` with
vector operations:

* NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeDeclaredFeatures (and NodePorts
  for pods with host ports) depend on the node objects only: they are evaluated once per pod signature with the
  plugins themselves and cached as a mask;
* NodeResourcesFit: allocatable minus requested, per resource the pod requests (fit.go;
  plugins/noderesources/kernels.py);
* PodTopologySpread: per (namespace, selector) the matching non-terminating pods on every node,
  summed per domain over the eligible nodes (filtering.go calPreFilterState and Filter;
  plugins/podtopologyspread/kernels.py);
* InterPodAffinity, anti-affinity parts: existing pods' required anti-affinity terms are kept
  grouped by term with per-node counts; the pod's own anti-affinity terms count matching pods
  (terminating ones included) per domain (plugins/interpodaffinity/kernels.py);
* what it does not vectorise (required pod affinity, volumes: VolumeRestrictions,
  NodeVolumeLimits, VolumeBinding, VolumeZone) runs through the plugins on the nodes that passed
  everything else.

This module keeps the arrays every plugin reads (per node: resources, pod counts, topology
domains, matching-pod counts) and runs the plugins' kernels in filter order.
``tests/scheduler/test_fastfilter.py`` holds it equal to ``planner.scheduler.runtime.feasible_nodes``
on random clusters, and the simulator can run on either (``Simulator(fast=False)``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from itertools import islice
from typing import Any

import numpy as np

from planner.domain import CPU, EPHEMERAL_STORAGE, MEMORY, POD_IDENTITY_LABELS, PODS, PersistentVolume, Pod
from planner.scheduler.framework import SKIP, ClusterState, JournaledDict
from planner.scheduler.plugins.interpodaffinity import filtering as ipa
from planner.scheduler.plugins.interpodaffinity import kernels as interpodaffinity_kernels
from planner.scheduler.plugins.nodeaffinity import filtering as nodeaffinity
from planner.scheduler.plugins.nodedeclaredfeatures import filtering as nodedeclaredfeatures
from planner.scheduler.plugins.nodename import filtering as nodename
from planner.scheduler.plugins.nodeports import filtering as nodeports
from planner.scheduler.plugins.noderesources import kernels as noderesources_kernels
from planner.scheduler.plugins.nodeunschedulable import filtering as nodeunschedulable
from planner.scheduler.plugins.nodevolumelimits import filtering as nodevolumelimits
from planner.scheduler.plugins.nodevolumelimits.common import attachable_volumes, volume_limits
from planner.scheduler.plugins.podtopologyspread import kernels as podtopologyspread_kernels
from planner.scheduler.plugins.podtopologyspread.kernels import SpreadCheck
from planner.scheduler.plugins.tainttoleration import filtering as tainttoleration
from planner.scheduler.plugins.volumebinding import filtering as volumebinding
from planner.scheduler.plugins.volumerestrictions import filtering as volumerestrictions
from planner.scheduler.plugins.volumezone import filtering as volumezone

# NodeDeclaredFeatures reads the pod's spec and the node's declared features only; planner infers
# no requirement from what it reads (its module docstring), so the signature below covers it.
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_FEW_CLASSES = 4  # FastFilter._slow: volume classes each filtered without looking which hold a node


def _int64s(values: Any) -> np.ndarray:
    """Per-node amounts as int64, saturated: a node's requests may sum past int64 (upstream's sums
    are int64 and wrap; here a node that full is simply full), and audit's folded allocatable
    (allocatable less those requests) below it."""
    vals = list(values)
    try:
        return np.array(vals, dtype=np.int64)  # every amount within int64: as they are
    except OverflowError:
        return np.array([min(max(v, _INT64_MIN), _INT64_MAX) for v in vals], dtype=np.int64)


STATIC = (nodeunschedulable, nodename, tainttoleration, nodeaffinity, nodedeclaredfeatures)


class FastFilter:
    MAX_CACHE = 4096  # entries per cache, here and in the plugins' kernels

    def __init__(self, cluster: ClusterState) -> None:
        self.cluster = cluster
        infos = cluster.node_infos
        self.n = len(infos)
        self.pos = {ni.name: i for i, ni in enumerate(infos)}
        self.names = np.array([ni.name for ni in infos], dtype=object)
        alloc = [ni.node.allocatable for ni in infos]
        self.alloc = {r: _int64s(a.get(r, 0) for a in alloc) for r in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)}
        self.used = {r: _int64s(ni.requested.get(r, 0) for ni in infos) for r in (CPU, MEMORY, EPHEMERAL_STORAGE)}
        self.npods = np.array([len(ni.pods) for ni in infos], dtype=np.int64)
        self.scalar_alloc: dict[str, np.ndarray] = {}
        self.scalar_used: dict[str, np.ndarray] = {}
        self.domains: dict[str, tuple[np.ndarray, list[str]]] = {}  # key -> (code per node, -1 missing; values)
        # key -> (code per node with len(values) for a missing label, whether every node has a value
        # of its own: kubernetes.io/hostname), see blocked_domains
        self.domain_index: dict[str, tuple[np.ndarray, bool]] = {}
        self.static: dict[Any, np.ndarray] = {}
        self.eligible: dict[Any, np.ndarray] = {}
        # (namespace or namespaces, selector, include terminating) -> matching pods per node
        self.counts: dict[Any, np.ndarray] = {}
        self.count_keys: list[Any] = []  # counts' keys in insertion order (see _keys_matching)
        self.log: list[int] = []  # the node of every bind and delete, in order (see _resources)
        self.removals = 0  # the deletes among them
        self.bound: list[Pod] = []  # the pods bound, in order (a pod kept aside asks which came since: queueing)
        self.count_identity = False  # some counted selector reads a pod identity label (_keys_matching)
        self.res_cache: dict[Any, list] = {}  # requests checked -> [mask, len(log) it reflects]
        self.key_cache: dict[Any, list] = {}
        # existing required anti-affinity terms: term key -> (AffinityTerm, pods per node)
        self.anti_terms: dict[Any, tuple[Any, np.ndarray, list[int]]] = {}  # term, per node, [total]
        self.anti_keys: list[Any] = []  # anti_terms' keys in insertion order
        self.anti_version = 0  # bumped whenever a count in anti_terms changes
        self.anti_identity = False  # some term of anti_terms reads a pod identity label
        # incoming pod (namespace, labels) -> [anti_keys looked at, keys whose term matches it,
        # anti_version of the mask, nodes those terms block (None: none)]
        self.anti_cache: dict[Any, list] = {}
        # PodTopologySpread (kernels._spread_checks); the checks by count key
        self.spread_specs: dict[Any, list[SpreadCheck]] = {}  # what a pod's checks are made of -> its checks
        self.spread_by_count: dict[Any, list[SpreadCheck]] = {}
        for i, ni in enumerate(infos):
            for p in ni.pods_with_required_anti_affinity:
                interpodaffinity_kernels.anti_add(self, p, i, +1)

    # ------------------------------------------------------------------ updates

    def on_bind(self, pod: Pod) -> None:
        self.bound.append(pod)
        self._update(pod, +1)

    def on_delete(self, pod: Pod) -> None:
        self.removals += 1
        self._update(pod, -1)

    def _update(self, pod: Pod, sign: int) -> None:
        i = self.pos.get(pod.spec.node_name)
        if i is None:
            return
        self.log.append(i)
        self.npods[i] += sign
        for r, v in pod.spec.requests.items():
            if r in self.used:
                self.used[r][i] += sign * v
            elif r in self.scalar_used:
                self.scalar_used[r][i] += sign * v
        for key in self._keys_matching(pod):
            self.counts[key][i] += sign
            for chk in self.spread_by_count.get(key, ()):
                if chk.sel_nodes[i]:
                    chk.domain_counts[chk.codes[i]] += sign
        aff = pod.spec.affinity
        if aff is not None and aff.pod_anti_affinity_required:
            interpodaffinity_kernels.anti_add(self, pod, i, sign)

    def _keys_matching(self, pod: Pod) -> list[Any]:
        """The count keys (self.counts, in order) that count ``pod``: found once per (namespace,
        labels, terminating), then for the keys added since."""
        labels = pod.labels.items()
        if not self.count_identity:
            # no counted selector reads the pod identity labels: a StatefulSet's pods, which differ
            # by them alone, share one entry
            labels = ((k, v) for k, v in labels if k not in POD_IDENTITY_LABELS)  # type: ignore[assignment]
        sig = (pod.namespace, tuple(sorted(labels)), pod.terminating)
        c = self.key_cache.get(sig)
        if c is None:
            if len(self.key_cache) > self.MAX_CACHE:
                self.key_cache.clear()
            c = self.key_cache[sig] = [0, []]
        if c[0] < len(self.count_keys):
            c[1].extend(k for k in self.count_keys[c[0]:] if _key_matches(k, pod))
            c[0] = len(self.count_keys)
        return c[1]

    def _domain(self, key: str) -> tuple[np.ndarray, list[str]]:
        hit = self.domains.get(key)
        if hit is None:
            values: dict[str, int] = {}
            codes = np.full(self.n, -1, dtype=np.int64)
            for i, ni in enumerate(self.cluster.node_infos):
                v = ni.node.labels.get(key)
                if v is not None:
                    codes[i] = values.setdefault(v, len(values))
            hit = self.domains[key] = (codes, list(values))
        return hit

    def blocked_domains(self, key: str, per_node: np.ndarray) -> np.ndarray:
        """The nodes that share a ``key`` value with a node whose ``per_node`` count is above 0
        (a node without the label shares none).  Where every node has a value of its own (the
        hostname), that is the count's own nodes."""
        hit = self.domain_index.get(key)
        if hit is None:
            codes, values = self._domain(key)
            safe = np.where(codes >= 0, codes, len(values))
            hit = self.domain_index[key] = (safe, len(values) == self.n and bool((codes >= 0).all()))
        safe, unique = hit
        if unique:
            return per_node > 0
        missing = len(self.domains[key][1])  # the code of the nodes without the label
        hot = np.zeros(missing + 1, dtype=bool)
        hot[safe[per_node > 0]] = True
        hot[missing] = False
        return hot[safe]

    def _count(self, key: Any) -> np.ndarray:
        arr = self.counts.get(key)
        if arr is None:
            arr = np.zeros(self.n, dtype=np.int64)
            # the namespaces whose pods can match (NodeInfo.by_namespace has each one's pods): a
            # spread constraint's own; a term's, unless an empty namespace selector takes every
            # namespace (one that is not empty is resolved by the caller, see _key_matches); None: all
            nss: tuple[str, ...] | None
            if key[0] == "spread":
                nss = (key[1],)
            elif key[2] is None or not key[2].empty:
                nss = tuple(key[1])
            else:
                nss = None
            for i, ni in enumerate(self.cluster.node_infos):
                c = 0
                if nss is None:
                    pods: Iterable[Pod] = ni.pods
                elif len(nss) == 1:
                    pods = ni.by_namespace.get(nss[0], ())
                else:
                    by_ns = ni.by_namespace
                    pods = [p for ns in nss for p in by_ns.get(ns, ())]
                for p in pods:
                    if _key_matches(key, p):
                        c += 1
                arr[i] = c
            self.counts[key] = arr
            self.count_keys.append(key)
            sel = key[-1]
            if not self.count_identity and sel is not None and _selector_reads_identity(sel):
                self.count_identity = True
                self.key_cache.clear()
        return arr

    def _scalar(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        if name not in self.scalar_alloc:
            infos = self.cluster.node_infos
            self.scalar_alloc[name] = _int64s(ni.node.allocatable.get(name, 0) for ni in infos)
            self.scalar_used[name] = _int64s(ni.requested.get(name, 0) for ni in infos)
        return self.scalar_alloc[name], self.scalar_used[name]

    # ------------------------------------------------------------------ filters

    def _static_mask(self, pod: Pod) -> np.ndarray:
        spec = pod.spec
        key = (spec.node_name, tuple(sorted(spec.node_selector.items())), spec.affinity.node_required if spec.affinity else None, spec.tolerations, spec.host_ports)
        hit = self.static.get(key)
        if hit is not None and not spec.host_ports:
            return hit
        mask = np.ones(self.n, dtype=bool)
        mods = STATIC + ((nodeports,) if spec.host_ports else ())
        for mod in mods:
            state, status = mod.pre_filter(pod, self.cluster)
            if status is not None:
                return np.zeros(self.n, dtype=bool)
            if state is SKIP:
                continue
            for i, ni in enumerate(self.cluster.node_infos):
                if mask[i] and mod.filter(state, pod, ni) is not None:
                    mask[i] = False
        if not spec.host_ports:
            if len(self.static) > self.MAX_CACHE:
                self.static.clear()
            self.static[key] = mask
        return mask

    def feasible(self, pod: Pod) -> list[str]:
        return [str(n) for n in self.names[self.feasible_mask(pod)]]

    def feasible_positions(self, pod: Pod) -> np.ndarray:
        """Node positions (in cluster order) that pass every filter."""
        return np.flatnonzero(self.feasible_mask(pod))

    def feasible_mask(self, pod: Pod) -> np.ndarray:
        mask = self._static_mask(pod) & noderesources_kernels.resources_mask(self, pod)
        if not mask.any():
            return mask
        if pod.spec.volumes:
            # VolumeRestrictions and NodeVolumeLimits through the plugins themselves, per node
            # (pods with claims only: not worth a vectorised path)
            mask = self._slow(pod, mask, (volumerestrictions, nodevolumelimits, volumebinding, volumezone))
            if not mask.any():
                return mask
        mask = podtopologyspread_kernels.filter_mask(self, pod, mask)
        if not mask.any():
            return mask
        mask = interpodaffinity_kernels.filter_mask(self, pod, mask)
        aff = pod.spec.affinity
        if aff is not None and aff.pod_affinity_required and mask.any():
            # required affinity (first-pod rule and all-terms counting) through the plugin itself
            anti_free = replace(pod, spec=replace(pod.spec, affinity=replace(aff, pod_anti_affinity_required=())))
            mask = self._slow(anti_free, mask, (ipa,))
        return mask

    def _volume_class_ids(self) -> tuple[list[list[int]], np.ndarray]:
        """volumebinding.problem.volume_classes (nodes VolumeBinding and VolumeZone cannot tell apart) and each
        node's class as an array; recomputed when those classes change.  The classes depend on
        the node objects (fixed for a FastFilter's life: a replay that changes nodes builds a new
        one) and on the label keys the PersistentVolumes' node affinity and the StorageClasses'
        allowed topologies name: only the volumes written since the last call are read (the
        replay's are journaled: the keys its journal names since then; else those appended to
        the dict since), and the classes stay while they name no new key."""
        cluster = self.cluster
        pvs = cluster.pvs
        journal = pvs.journal if isinstance(pvs, JournaledDict) else None
        mark = len(journal) if journal is not None else len(pvs)
        vs = getattr(self, "_vstate", None)
        if vs is not None and vs[0] is pvs and vs[2] == len(cluster.storage_classes) and vs[1] <= mark:
            keys, by_name = vs[3], vs[4]
            written: Iterable[PersistentVolume | None]
            if journal is not None:
                written = [pvs.get(k) for k in dict.fromkeys(journal[vs[1]:])]
            else:
                written = islice(pvs.values(), vs[1], None)
            fresh = False
            for pv in written:
                if pv is not None and pv.node_affinity is not None:
                    for term in pv.node_affinity.terms:
                        if term.match_fields and not by_name or any(r.key not in keys for r in term.match_expressions):
                            fresh = True
            if not fresh:
                self._vstate = (pvs, mark, vs[2], keys, by_name, vs[5], vs[6])
                return vs[5], vs[6]
        from planner.scheduler.plugins.volumebinding.problem import pv_affinity_keys, volume_classes

        classes = volume_classes(cluster)
        keys, by_name = pv_affinity_keys(pvs.values())
        ids = np.empty(len(cluster.node_infos), dtype=np.int64)
        for c, members in enumerate(classes):
            ids[members] = c
        self._vstate = (pvs, mark, len(cluster.storage_classes), keys, by_name, classes, ids)
        return classes, ids

    def _volume_limited(self) -> np.ndarray | None:
        """Nodes whose CSINode sets an attach limit for some driver (nodevolumelimits' Filter
        passes every other node once the pod's own volumes are readable); None when no node has
        one."""
        hit = getattr(self, "_limited", None)
        if hit is None or hit[0] is not self.cluster.csinodes:
            mask = np.array([bool(volume_limits(self.cluster.csinodes.get(ni.name))) for ni in self.cluster.node_infos], dtype=bool)
            hit = self._limited = (self.cluster.csinodes, mask if mask.any() else None)
        return hit[1]

    def _slow(self, pod: Pod, mask: np.ndarray, mods: tuple) -> np.ndarray:
        out = mask.copy()
        for mod in mods:
            state, status = mod.pre_filter(pod, self.cluster)
            if status is not None:
                return np.zeros(self.n, dtype=bool)
            if state is SKIP:
                continue
            infos = self.cluster.node_infos
            if mod is nodevolumelimits:
                # a node without attach limits fails only when the pod's volumes cannot be read,
                # which does not depend on the node (common.attachable_volumes: the CSINode only
                # maps in-tree drivers, after those checks)
                if attachable_volumes(pod, None, self.cluster, True, {}) is not None:
                    return np.zeros(self.n, dtype=bool)
                limited = self._volume_limited()
                if limited is not None:
                    for i in np.flatnonzero(out & limited):
                        if mod.filter(state, pod, infos[i]) is not None:
                            out[i] = False
                continue
            if mod in (volumebinding, volumezone) and not getattr(state, "selected", ()):
                # their Filters read only what volume_classes groups by: one call per class (per
                # class with a node still in: a class of none fails nothing that counts; with few
                # classes, every class is cheaper than finding them)
                classes, ids = self._volume_class_ids()
                present: Any = (range(len(classes)) if len(classes) <= _FEW_CLASSES
                                else np.flatnonzero(np.bincount(ids[out], minlength=len(classes))))  # np.unique's, without hashing
                failing = [c for c in present if mod.filter(state, pod, infos[classes[c][0]]) is not None]
                if failing:
                    out &= ~np.isin(ids, failing)
                continue
            for i in np.flatnonzero(out):
                if mod.filter(state, pod, infos[i]) is not None:
                    out[i] = False
        return out


def _selector_reads_identity(sel: Any) -> bool:
    keys = {k for k, _ in getattr(sel, "match_labels", ())} | {r.key for r in getattr(sel, "match_expressions", ())}
    return bool(keys & set(POD_IDENTITY_LABELS)) or not hasattr(sel, "match_labels")


def _key_matches(key: tuple, pod: Pod) -> bool:
    if key[0] == "spread":
        _, ns, sel = key
        return not pod.terminating and pod.namespace == ns and sel.matches(pod.labels)
    _, namespaces, ns_selector, sel = key
    if pod.namespace not in namespaces:
        if ns_selector is None:
            return False
        if not ns_selector.empty:
            return False  # resolved below by the caller's namespace labels (see _namespace_ok)
    return sel is not None and sel.matches(pod.labels)


def supports(pod: Pod) -> bool:
    """Pods whose anti-affinity terms use a non-empty namespace selector go the plugin way."""
    aff = pod.spec.affinity
    if aff is None:
        return True
    for t in aff.pod_anti_affinity_required:
        if t.namespace_selector is not None and not t.namespace_selector.empty:
            return False
    return True


__all__ = ["FastFilter", "supports"]
