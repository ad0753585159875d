"""A copy of the snapshot focused on a few workloads, so that replaying one of their rollouts (or a
zone loss) costs what the workloads cost, not what the cluster costs.

Kept: every node, volume, storage class and namespace; the workloads, their ReplicaSets, pods,
HPAs and PodDisruptionBudgets; and, among the other running pods, those the filters could see
for the workloads' pods: pods their spread and pod (anti-)affinity selectors match (in the
namespaces the terms count), pods whose own required anti-affinity would repel them, pods with
host ports when the workloads use host ports, pods a kept PodDisruptionBudget counts, and pods of
a lower priority than the workloads' (which their pods may preempt).  Pods of other workloads
that wait for a node (unbound, not finished, not being deleted) are kept too, with the running
pods the filters could see for them (the same selectors, repelling pods, victims): kube-scheduler
retries them when a pod is deleted, so they compete for the room a rollout frees, as in the full
replay (planner simulate).  Every other running pod is folded into its node: its requests are
taken off the node's allocatable (and one off ``pods``), which is what NodeResourcesFit sees of
it.  Other controllers are left out, so nothing but the focused workloads acts during the replay.

What this changes: the score plugins see the folded capacity as smaller rather than as used (the
allocation ratios differ, so tie-breaks may pick other nodes), and other workloads' controllers do
not recreate pods (a zone loss recreates only the focused workloads' pods).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from planner.controllers.deployment import replicasets_of
from planner.domain import Deployment, LabelSelector, Pod, PodSpec, StatefulSet, selector_matches
from planner.engines.workloads import WorkloadRef
from planner.scheduler.plugins.defaultpreemption.preemption import may_preempt, victims_of
from planner.snapshot import Snapshot


def _selectors(obj: Deployment | StatefulSet) -> list[tuple[LabelSelector, set[str] | None]]:
    """(selector, namespaces or None for every namespace) of every term of the template."""
    return _spec_selectors(obj.template.spec, obj.namespace)


def _spec_selectors(spec: PodSpec, ns: str) -> list[tuple[LabelSelector, set[str] | None]]:
    """(selector, namespaces or None for every namespace) of every term of a pod spec in ``ns``."""
    out: list[tuple[LabelSelector, set[str] | None]] = []
    for c in spec.topology_spread_constraints:
        if c.label_selector is not None:
            out.append((c.label_selector, {ns}))
    a = spec.affinity
    if a is not None:
        terms = [*a.pod_affinity_required, *a.pod_anti_affinity_required]
        terms += [w.term for w in (*a.pod_affinity_preferred, *a.pod_anti_affinity_preferred)]
        for t in terms:
            if t.label_selector is None:
                continue
            nss = None if t.namespace_selector is not None else set(t.namespaces or (ns,))
            out.append((t.label_selector, nss))
    return out


def _repels(p: Pod, labels: Mapping[str, str], namespace: str) -> bool:
    """The pod's own required anti-affinity could match a pod with ``labels`` in ``namespace``."""
    a = p.spec.affinity
    if a is None:
        return False
    for t in a.pod_anti_affinity_required:
        if t.namespace_selector is None and namespace not in (t.namespaces or (p.namespace,)):
            continue
        if t.label_selector is not None and t.label_selector.matches(labels):
            return True
    return False


class Focuser:
    """Built once per audit: the running pods indexed by namespace, and per node the requests of
    all of them, so that each focused copy only pays for the pods it keeps."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.pos = {k: i for i, k in enumerate(snap.pods)}
        self.all_by_ns: dict[str, list[Pod]] = {}
        for p in snap.pods.values():
            self.all_by_ns.setdefault(p.namespace, []).append(p)
        self.by_ns: dict[str, list[Pod]] = {}
        self.anti: list[Pod] = []
        self.ports: list[Pod] = []
        self.total: dict[str, dict[str, int]] = {}
        self.count: dict[str, int] = {}
        # pods waiting for a node: kube-scheduler retries them when room frees up
        self.waiting = [p for p in snap.pods.values() if not p.spec.node_name and not p.terminal and not p.terminating]
        for p in snap.pods.values():
            node = p.spec.node_name
            if not node or p.terminal or node not in snap.nodes:
                continue
            self.by_ns.setdefault(p.namespace, []).append(p)
            a = p.spec.affinity
            if a is not None and a.pod_anti_affinity_required:
                self.anti.append(p)
            if p.spec.host_ports:
                self.ports.append(p)
            acc = self.total.setdefault(node, {})
            for r, q in p.spec.requests.items():
                acc[r] = acc.get(r, 0) + q
            self.count[node] = self.count.get(node, 0) + 1

    def focus(self, refs: Iterable[WorkloadRef]) -> Snapshot:
        snap = self.snap
        out = snap.copy()
        deps: dict[str, Deployment] = {}
        stss: dict[str, StatefulSet] = {}
        for ref in refs:
            if ref.kind == "Deployment" and ref.key in snap.deployments:
                deps[ref.key] = snap.deployments[ref.key]
            elif ref.kind == "StatefulSet" and ref.key in snap.statefulsets:
                stss[ref.key] = snap.statefulsets[ref.key]
        rss = {rs.key: rs for d in deps.values() for rs in replicasets_of(snap, d)}
        out.deployments, out.statefulsets, out.replicasets = deps, stss, rss
        out.hpas = {k: h for k, h in snap.hpas.items()
                    if f"{h.namespace}/{h.target_name}" in (deps if h.target_kind == "Deployment" else stss)}
        workloads: list[Deployment | StatefulSet] = [*deps.values(), *stss.values()]
        rs_names = {(rs.namespace, rs.name) for rs in rss.values()}
        sts_names = {(s.namespace, s.name) for s in stss.values()}
        namespaces = {w.namespace for w in workloads}

        def owned(p: Pod) -> bool:
            o = p.owner
            return o is not None and ((o.kind == "ReplicaSet" and (p.namespace, o.name) in rs_names)
                                      or (o.kind == "StatefulSet" and (p.namespace, o.name) in sts_names))

        mine = [p for ns in namespaces for p in self.all_by_ns.get(ns, ()) if owned(p)]
        out.pdbs = {k: b for k, b in snap.pdbs.items()
                    if b.namespace in namespaces and any(b.namespace == p.namespace and selector_matches(b.selector, p.labels) for p in mine)}
        kept: dict[str, Pod] = {p.key: p for p in mine}
        for s, nss in (x for w in workloads for x in _selectors(w)):
            for ns in (nss if nss is not None else list(self.by_ns)):
                for p in self.by_ns.get(ns, ()):
                    if p.key not in kept and s.matches(p.labels):
                        kept[p.key] = p
        for b in out.pdbs.values():
            for p in self.by_ns.get(b.namespace, ()):
                if p.key not in kept and selector_matches(b.selector, p.labels):
                    kept[p.key] = p
        for w in workloads:
            for p in self.anti:
                if p.key not in kept and _repels(p, w.template.labels, w.namespace):
                    kept[p.key] = p
        # pods the workloads' pods could preempt (strictly lower priority: DefaultPreemption's
        # victims) stay pods, so that the replay may evict them as the full replay does
        preemptors = [w.template.spec for w in workloads if may_preempt(w.template.spec)]
        if preemptors:
            top = max(preemptors, key=lambda sp: sp.priority)
            for pods in self.by_ns.values():
                for p in victims_of(top, pods):
                    kept.setdefault(p.key, p)
            if w.template.spec.host_ports:
                for p in self.ports:
                    kept.setdefault(p.key, p)
        # other workloads' pods waiting for a node compete for the room the replay frees: kept,
        # with what the filters see for them
        for wp in self.waiting:
            if wp.key in kept:
                continue
            kept[wp.key] = wp
            for s, nss in _spec_selectors(wp.spec, wp.namespace):
                for ns in (nss if nss is not None else list(self.by_ns)):
                    for p in self.by_ns.get(ns, ()):
                        if p.key not in kept and s.matches(p.labels):
                            kept[p.key] = p
            for p in self.anti:
                if p.key not in kept and _repels(p, wp.labels, wp.namespace):
                    kept[p.key] = p
            if wp.spec.host_ports:
                for p in self.ports:
                    kept.setdefault(p.key, p)
            if may_preempt(wp.spec):
                for pods in self.by_ns.values():
                    for p in victims_of(wp.spec, pods):
                        kept.setdefault(p.key, p)
        out.pods = dict(sorted(kept.items(), key=lambda kv: self.pos[kv[0]]))  # snapshot order: the queue's order
        # fold every other running pod into its node
        keep_req: dict[str, dict[str, int]] = {}
        keep_n: dict[str, int] = {}
        for p in kept.values():
            node = p.spec.node_name
            if not node or p.terminal or node not in snap.nodes:
                continue
            acc = keep_req.setdefault(node, {})
            for r, q in p.spec.requests.items():
                acc[r] = acc.get(r, 0) + q
            keep_n[node] = keep_n.get(node, 0) + 1
        for node, total in self.total.items():
            n = self.count.get(node, 0) - keep_n.get(node, 0)
            k = keep_req.get(node, {})
            folded = {r: q - k.get(r, 0) for r, q in total.items() if q - k.get(r, 0)}
            if not n and not folded:
                continue
            base = snap.nodes[node]
            alloc = dict(base.allocatable)
            for r, q in folded.items():
                alloc[r] = alloc.get(r, 0) - q
            alloc["pods"] = alloc.get("pods", 0) - n
            out.nodes[node] = replace(base, allocatable=alloc)
        return out


def focus(snap: Snapshot, refs: Iterable[WorkloadRef]) -> Snapshot:
    return Focuser(snap).focus(refs)
