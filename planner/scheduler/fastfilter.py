"""The replay's filter phase over node arrays: the same answers as planner/scheduler/runtime.py, faster.

``planner simulate`` filters every Pending pod against every node after every change, which at
5,000 nodes is 50,000 Python filter calls per pod.  This engine keeps, per node position, numpy
arrays the simulator updates on every bind and delete, and answers ``feasible(pod)`` with
vector operations:

* NodeUnschedulable, NodeName, TaintToleration, NodeAffinity (and NodePorts for pods with host
  ports) depend on the node objects only: they are evaluated once per pod signature with the
  plugins themselves and cached as a mask;
* NodeResourcesFit: allocatable minus requested, per resource the pod requests (fit.go);
* PodTopologySpread: per (namespace, selector) the matching non-terminating pods on every node,
  summed per domain over the eligible nodes (filtering.go calPreFilterState and Filter);
* InterPodAffinity, anti-affinity parts: existing pods' required anti-affinity terms are kept
  grouped by term with per-node counts; the pod's own anti-affinity terms count matching pods
  (terminating ones included) per domain;
* what it does not vectorise (required pod affinity, volumes) runs through the plugins on the
  nodes that passed everything else.

``tests/scheduler/test_fastfilter.py`` holds it equal to ``planner.scheduler.runtime.feasible_nodes`` on random
clusters, and the simulator can run on either (``Simulator(fast=False)``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from planner.domain import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, LabelSelector, Pod
from planner.scheduler.framework import SKIP, ClusterState
from planner.scheduler.plugins.interpodaffinity import filtering as ipa
from planner.scheduler.plugins.nodeaffinity import filtering as nodeaffinity
from planner.scheduler.plugins.nodename import filtering as nodename
from planner.scheduler.plugins.nodeports import filtering as nodeports
from planner.scheduler.plugins.noderesources import fit as noderesourcesfit
from planner.scheduler.plugins.nodeunschedulable import filtering as nodeunschedulable
from planner.scheduler.plugins.podtopologyspread import filtering as pts
from planner.scheduler.plugins.podtopologyspread.common import match_node_inclusion_policies, node_has_keys
from planner.scheduler.plugins.tainttoleration import filtering as tainttoleration
from planner.scheduler.plugins.volumebinding import filtering as volumebinding
from planner.scheduler.plugins.volumezone import filtering as volumezone

STATIC = (nodeunschedulable, nodename, tainttoleration, nodeaffinity)
_BASIC = (CPU, MEMORY, EPHEMERAL_STORAGE)
_MAX_CACHE = 4096


class FastFilter:
    def __init__(self, cluster: ClusterState) -> None:
        self.cluster = cluster
        infos = cluster.node_infos
        self.n = len(infos)
        self.pos = {ni.name: i for i, ni in enumerate(infos)}
        self.names = np.array([ni.name for ni in infos], dtype=object)
        alloc = [ni.node.allocatable for ni in infos]
        self.alloc = {r: np.array([a.get(r, 0) for a in alloc], dtype=np.int64) for r in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)}
        self.used = {r: np.array([ni.requested.get(r, 0) for ni in infos], dtype=np.int64) for r in (CPU, MEMORY, EPHEMERAL_STORAGE)}
        self.npods = np.array([len(ni.pods) for ni in infos], dtype=np.int64)
        self.scalar_alloc: dict[str, np.ndarray] = {}
        self.scalar_used: dict[str, np.ndarray] = {}
        self.domains: dict[str, tuple[np.ndarray, list[str]]] = {}  # key -> (code per node, -1 missing; values)
        self.static: dict[Any, np.ndarray] = {}
        self.eligible: dict[Any, np.ndarray] = {}
        # (namespace or namespaces, selector, include terminating) -> matching pods per node
        self.counts: dict[Any, np.ndarray] = {}
        self.count_keys: list[Any] = []  # counts' keys in insertion order (see _keys_matching)
        self.log: list[int] = []  # the node of every bind and delete, in order (see _resources)
        self.res_cache: dict[Any, list] = {}  # requests checked -> [mask, len(log) it reflects]
        self.key_cache: dict[Any, list] = {}
        # existing required anti-affinity terms: term key -> (AffinityTerm, pods per node)
        self.anti_terms: dict[Any, tuple[ipa.AffinityTerm, np.ndarray, list[int]]] = {}  # term, per node, [total]
        self.anti_keys: list[Any] = []  # anti_terms' keys in insertion order
        self.anti_version = 0  # bumped whenever a count in anti_terms changes
        # incoming pod (namespace, labels) -> [anti_keys looked at, keys whose term matches it,
        # anti_version of the mask, nodes those terms block (None: none)]
        self.anti_cache: dict[Any, list] = {}
        # PodTopologySpread: id(pod spec) -> (spec, (namespace, labels) -> checks); checks by count key
        self.spread_specs: dict[int, tuple[Any, dict[Any, list[_SpreadCheck]]]] = {}
        self.spread_by_count: dict[Any, list[_SpreadCheck]] = {}
        for i, ni in enumerate(infos):
            for p in ni.pods_with_required_anti_affinity:
                self._anti_add(p, i, +1)

    # ------------------------------------------------------------------ updates

    def on_bind(self, pod: Pod) -> None:
        self._update(pod, +1)

    def on_delete(self, pod: Pod) -> None:
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
            self._anti_add(pod, i, sign)

    def _keys_matching(self, pod: Pod) -> list[Any]:
        """The count keys (self.counts, in order) that count ``pod``: found once per (namespace,
        labels, terminating), then for the keys added since."""
        sig = (pod.namespace, tuple(sorted(pod.labels.items())), pod.terminating)
        c = self.key_cache.get(sig)
        if c is None:
            if len(self.key_cache) > _MAX_CACHE:
                self.key_cache.clear()
            c = self.key_cache[sig] = [0, []]
        if c[0] < len(self.count_keys):
            c[1].extend(k for k in self.count_keys[c[0]:] if _key_matches(k, pod))
            c[0] = len(self.count_keys)
        return c[1]

    def _anti_add(self, pod: Pod, i: int, sign: int) -> None:
        aff = pod.spec.affinity
        assert aff is not None
        for raw in aff.pod_anti_affinity_required:
            label_part = tuple(sorted(pod.labels.items())) if (raw.match_label_keys or raw.mismatch_label_keys) else ()
            key = (raw, pod.namespace, label_part)
            hit = self.anti_terms.get(key)
            if hit is None:
                hit = self.anti_terms[key] = (ipa.AffinityTerm.of(pod, raw), np.zeros(self.n, dtype=np.int64), [0])
                self.anti_keys.append(key)
            hit[1][i] += sign
            hit[2][0] += sign
            self.anti_version += 1

    # ------------------------------------------------------------------ arrays

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

    def _count(self, key: Any) -> np.ndarray:
        arr = self.counts.get(key)
        if arr is None:
            arr = np.zeros(self.n, dtype=np.int64)
            spread = key[0] == "spread"  # counts one namespace: NodeInfo.by_namespace has its pods
            for i, ni in enumerate(self.cluster.node_infos):
                c = 0
                for p in (ni.by_namespace.get(key[1], ()) if spread else ni.pods):
                    if _key_matches(key, p):
                        c += 1
                arr[i] = c
            self.counts[key] = arr
            self.count_keys.append(key)
        return arr

    def _scalar(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        if name not in self.scalar_alloc:
            infos = self.cluster.node_infos
            self.scalar_alloc[name] = np.array([ni.node.allocatable.get(name, 0) for ni in infos], dtype=np.int64)
            self.scalar_used[name] = np.array([ni.requested.get(name, 0) for ni in infos], dtype=np.int64)
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
            if len(self.static) > _MAX_CACHE:
                self.static.clear()
            self.static[key] = mask
        return mask

    def _resources(self, pod: Pod) -> np.ndarray:
        """fit.go fitsRequest: pod count, then each requested resource (> 0) against allocatable
        minus requested.  Kept per set of requests and brought up to date for the nodes whose pods
        changed since (self.log); the caller must not change the array."""
        need = tuple((r, q) for r, q in pod.spec.requests.items()
                     if q > 0 and (r in _BASIC or noderesourcesfit.is_scalar_resource_name(r)))
        hit = self.res_cache.get(need)
        if hit is None:
            ok = self.npods + 1 <= self.alloc[PODS]
            for r, q in need:
                if r in _BASIC:
                    ok &= q <= self.alloc[r] - self.used[r]
                else:
                    a, u = self._scalar(r)
                    ok &= q <= a - u
            if len(self.res_cache) > _MAX_CACHE:
                self.res_cache.clear()
            self.res_cache[need] = [ok, len(self.log)]
            return ok
        ok, seen = hit
        if seen < len(self.log):
            pods_alloc = self.alloc[PODS]
            for i in set(self.log[seen:]):
                fits = int(self.npods[i]) + 1 <= int(pods_alloc[i])
                for r, q in need:
                    if not fits:
                        break
                    if r in _BASIC:
                        fits = q <= int(self.alloc[r][i]) - int(self.used[r][i])
                    else:
                        fits = q <= int(self.scalar_alloc[r][i]) - int(self.scalar_used[r][i])
                ok[i] = fits
            hit[1] = len(self.log)
        return ok

    def _eligible(self, pod: Pod, keys: tuple[str, ...], c: Any) -> np.ndarray:
        spec = pod.spec
        key = (keys, c.node_affinity_policy, c.node_taints_policy, tuple(sorted(spec.node_selector.items())),
               spec.affinity.node_required if spec.affinity else None, spec.tolerations)
        hit = self.eligible.get(key)
        if hit is None:
            hit = np.zeros(self.n, dtype=bool)
            for i, ni in enumerate(self.cluster.node_infos):
                node = ni.node
                if node_has_keys(node, keys) and match_node_inclusion_policies(
                    c.node_affinity_policy, c.node_taints_policy, spec, node
                ):
                    hit[i] = True
            if len(self.eligible) > _MAX_CACHE:
                self.eligible.clear()
            self.eligible[key] = hit
        return hit

    def _spread_checks(self, pod: Pod) -> list[_SpreadCheck]:
        """The pod's DoNotSchedule constraints with what does not change while this engine lives
        (the nodes are fixed): per pod spec and (namespace, labels)."""
        spec = pod.spec
        hit = self.spread_specs.get(id(spec))
        if hit is None or hit[0] is not spec:
            if len(self.spread_specs) > _MAX_CACHE:
                self.spread_specs.clear()
                self.spread_by_count.clear()
            hit = self.spread_specs[id(spec)] = (spec, {})
        sig = (pod.namespace, tuple(sorted(pod.labels.items())))
        checks = hit[1].get(sig)
        if checks is not None:
            return checks
        checks = []
        constraints = pts.get_constraints(pod)
        keys = tuple(c.topology_key for c in constraints)
        for c in constraints:
            codes, values = self._domain(c.topology_key)
            has = codes >= 0
            elig = self._eligible(pod, keys, c)
            sel_nodes = elig & has
            present = np.zeros(len(values), dtype=bool)
            present[codes[sel_nodes]] = True
            sel = c.selector
            count_key = ("spread", pod.namespace, sel) if sel is not None and not sel.empty else None
            check = _SpreadCheck(c, np.where(has, codes, len(values)), sel_nodes, codes, present, count_key)
            if count_key is not None:
                per_node = self._count(count_key)
                check.domain_counts = np.bincount(codes[sel_nodes], weights=per_node[sel_nodes], minlength=len(values)).astype(np.int64)
                self.spread_by_count.setdefault(count_key, []).append(check)
            checks.append(check)
        hit[1][sig] = checks
        return checks

    def _spread(self, pod: Pod, mask: np.ndarray) -> np.ndarray:
        """filtering.go Filter: per constraint, the matching pods of the eligible nodes summed per
        domain (kept current by _update), the global minimum over the eligible domains, and
        'existing matching num' + 'if self-match (1 or 0)' - 'global minimum' <= 'maxSkew' per
        node; a node missing the topology key is rejected."""
        for chk in self._spread_checks(pod):
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
                    gmin = min(counts[d] for d in chk.present_list) if n_domains else pts.MAX_INT32
                pattern = tuple(x + c.self_match - gmin <= c.max_skew for x in counts)
                allowed = chk.allowed.get(pattern)
                if allowed is None:
                    allowed = chk.allowed[pattern] = np.array((*pattern, False), dtype=bool)[chk.lut_codes]
                mask = mask & allowed
                continue
            if n_domains < c.min_domains:
                gmin = 0
            else:
                gmin = int(dc[chk.present].min()) if n_domains else pts.MAX_INT32
            # one entry per domain, and False for the nodes without the key
            ok = np.append(dc + c.self_match - gmin <= c.max_skew, False)
            mask = mask & ok[chk.lut_codes]
        return mask

    def _anti(self, pod: Pod, mask: np.ndarray) -> np.ndarray:
        # existing pods' required anti-affinity terms that match the incoming pod: a term matches
        # by the pod's namespace (and its labels) and labels, so the matching terms are found once
        # per (namespace, labels), and the nodes they block are kept until a count changes
        sig = (pod.namespace, tuple(sorted(pod.labels.items())))
        c = self.anti_cache.get(sig)
        if c is None:
            if len(self.anti_cache) > _MAX_CACHE:
                self.anti_cache.clear()
            c = self.anti_cache[sig] = [0, [], -1, None]
        if c[0] < len(self.anti_keys):
            ns_labels = self.cluster.namespace_labels_of(pod.namespace)
            for key in self.anti_keys[c[0]:]:
                if self.anti_terms[key][0].matches(pod, ns_labels):
                    c[1].append(key)
            c[0] = len(self.anti_keys)
            c[2] = -1
        if c[2] != self.anti_version:
            blocked = None
            for key in c[1]:
                term, per_node, total = self.anti_terms[key]
                if not total[0]:
                    continue
                b = self._blocked(term.topology_key, per_node)
                blocked = b if blocked is None else (blocked | b)
            c[2], c[3] = self.anti_version, blocked
        if c[3] is not None:
            mask = mask & ~c[3]
        aff = pod.spec.affinity
        if aff is None:
            return mask
        for raw in aff.pod_anti_affinity_required:
            term = ipa.AffinityTerm.of(pod, raw)
            per_node = self._count(("term", term.namespaces, term.namespace_selector, term.selector))
            mask = mask & ~self._blocked(term.topology_key, per_node)
        return mask

    def _blocked(self, key: str, per_node: np.ndarray) -> np.ndarray:
        """Nodes sharing a topology value with a node that holds a counted pod."""
        codes, values = self._domain(key)
        hot = np.zeros(len(values) + 1, dtype=bool)
        with_pods = (per_node > 0) & (codes >= 0)
        hot[codes[with_pods]] = True
        return np.where(codes >= 0, hot[np.where(codes >= 0, codes, len(values))], False)

    def feasible(self, pod: Pod) -> list[str]:
        return [str(n) for n in self.names[self.feasible_mask(pod)]]

    def feasible_positions(self, pod: Pod) -> np.ndarray:
        """Node positions (in cluster order) that pass every filter."""
        return np.flatnonzero(self.feasible_mask(pod))

    def feasible_mask(self, pod: Pod) -> np.ndarray:
        mask = self._static_mask(pod) & self._resources(pod)
        if not mask.any():
            return mask
        if pod.spec.volumes:
            mask = self._slow(pod, mask, (volumebinding, volumezone))
            if not mask.any():
                return mask
        mask = self._spread(pod, mask)
        if not mask.any():
            return mask
        mask = self._anti(pod, mask)
        aff = pod.spec.affinity
        if aff is not None and aff.pod_affinity_required and mask.any():
            # required affinity (first-pod rule and all-terms counting) through the plugin itself
            anti_free = replace(pod, spec=replace(pod.spec, affinity=replace(aff, pod_anti_affinity_required=())))
            mask = self._slow(anti_free, mask, (ipa,))
        return mask

    def _volume_class_ids(self) -> tuple[list[list[int]], np.ndarray]:
        """volumebinding.problem.volume_classes (nodes VolumeBinding and VolumeZone cannot tell apart) and each
        node's class as an array; recomputed when those classes change."""
        from planner.scheduler.plugins.volumebinding.problem import volume_classes

        classes = volume_classes(self.cluster)
        cached = getattr(self, "_vclass_cache", None)
        if cached is not None and cached[0] is classes:
            return classes, cached[1]
        ids = np.empty(len(self.cluster.node_infos), dtype=np.int64)
        for c, members in enumerate(classes):
            ids[members] = c
        self._vclass_cache = (classes, ids)
        return classes, ids

    def _slow(self, pod: Pod, mask: np.ndarray, mods: tuple) -> np.ndarray:
        out = mask.copy()
        for mod in mods:
            state, status = mod.pre_filter(pod, self.cluster)
            if status is not None:
                return np.zeros(self.n, dtype=bool)
            if state is SKIP:
                continue
            infos = self.cluster.node_infos
            if mod in (volumebinding, volumezone) and not getattr(state, "selected", ()):
                # their Filters read only what volume_classes groups by: one call per class
                classes, ids = self._volume_class_ids()
                failing = [c for c in np.unique(ids[out]) if mod.filter(state, pod, infos[classes[c][0]]) is not None]
                if failing:
                    out &= ~np.isin(ids, failing)
                continue
            for i in np.flatnonzero(out):
                if mod.filter(state, pod, infos[i]) is not None:
                    out[i] = False
        return out


class _SpreadCheck:
    """One DoNotSchedule constraint of a pod spec: its domains and eligible nodes, and the
    matching pods per domain over those nodes (updated as pods come and go)."""

    __slots__ = ("constraint", "lut_codes", "sel_nodes", "codes", "present", "present_list", "n_domains", "count_key",
                 "domain_counts", "allowed")

    def __init__(self, constraint: pts.ConstraintState, lut_codes: np.ndarray, sel_nodes: np.ndarray, codes: np.ndarray,
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


__all__ = ["FastFilter", "supports", "LabelSelector"]
