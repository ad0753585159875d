"""A loaded cluster: every object planner read, indexed, plus the derived graphs.

Built by planner.load.load_snapshot(); immutable by convention (services that change the cluster,
such as the replay, copy what they change).
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # networkx is imported where a graph is built (it costs 0.1 s at start-up)
    import networkx as nx

from planner.domain import (
    ControllerRevision,
    CSINode,
    DaemonSet,
    Deployment,
    HorizontalPodAutoscaler,
    LimitRange,
    Namespace,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    ReplicaSet,
    RuntimeClass,
    StatefulSet,
    StorageClass,
)
from planner.scheduler.framework import ClusterState, default_class

# Kinds the replay's controllers read from here on every run (a StatefulSet's template for its
# revision hash, a DaemonSet's hostNetwork): few objects, kept as dicts.
_READ_OFTEN = frozenset({"StatefulSet", "DaemonSet"})


class RawObjects(MutableMapping[tuple[str, str], dict]):  # type: ignore[type-arg]
    """Snapshot.raw: the objects as read (defaults applied), by (kind, key).

    Commands read a few of them (the workload being changed, a DaemonSet's hostNetwork, the
    objects a plan patches), never most: so each is kept marshalled, about a fifth of the memory of
    its dicts (at 5,000 nodes, 80 MB instead of 400 MB) and a copy of bytes to pickle, and is
    unmarshalled when first read.  The dict read is then kept in its place, so a change made to it
    holds, as with a plain dict.  A value that marshal cannot write stays as it is, and so do the
    objects of the kinds in _READ_OFTEN."""

    __slots__ = ("_d",)

    def __init__(self, items: Any = ()) -> None:
        self._d: dict[tuple[str, str], Any] = {}
        self.update(items)

    def __getitem__(self, key: tuple[str, str]) -> dict:  # type: ignore[type-arg]
        v = self._d[key]
        if type(v) is bytes:
            v = self._d[key] = marshal.loads(v)
        return v  # type: ignore[no-any-return]

    def __setitem__(self, key: tuple[str, str], value: dict) -> None:  # type: ignore[type-arg]
        if type(value) is dict and key[0] not in _READ_OFTEN:
            try:
                self._d[key] = marshal.dumps(value)
                return
            except ValueError:  # not plain data, or nested too deep for marshal: kept as it is
                pass
        self._d[key] = value

    def __delitem__(self, key: tuple[str, str]) -> None:
        del self._d[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __contains__(self, key: object) -> bool:
        return key in self._d

    def copy(self) -> RawObjects:
        """A shallow copy, as dict(raw) is: the objects already read are shared with it."""
        new = RawObjects()
        new._d = dict(self._d)
        return new

    def merge(self, other: RawObjects) -> None:
        """``update(other)`` without unmarshalling anything."""
        self._d.update(other._d)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_raw_objects, (self._d,))  # pickled as kept: bytes stay bytes

    def __repr__(self) -> str:
        return f"RawObjects({len(self._d)} objects)"


def _raw_objects(d: dict[tuple[str, str], Any]) -> RawObjects:
    new = RawObjects()
    new._d = d
    return new


@dataclass
class Snapshot:
    nodes: dict[str, Node] = field(default_factory=dict)
    pods: dict[str, Pod] = field(default_factory=dict)  # "ns/name"
    pvs: dict[str, PersistentVolume] = field(default_factory=dict)
    pvcs: dict[str, PersistentVolumeClaim] = field(default_factory=dict)  # "ns/name"
    storage_classes: dict[str, StorageClass] = field(default_factory=dict)
    deployments: dict[str, Deployment] = field(default_factory=dict)
    replicasets: dict[str, ReplicaSet] = field(default_factory=dict)
    statefulsets: dict[str, StatefulSet] = field(default_factory=dict)
    daemonsets: dict[str, DaemonSet] = field(default_factory=dict)  # "ns/name"
    hpas: dict[str, HorizontalPodAutoscaler] = field(default_factory=dict)
    pdbs: dict[str, PodDisruptionBudget] = field(default_factory=dict)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)  # scheduling.k8s.io/v1, by name
    csinodes: dict[str, CSINode] = field(default_factory=dict)  # by node name
    limit_ranges: dict[str, LimitRange] = field(default_factory=dict)  # namespace/name
    runtime_classes: dict[str, RuntimeClass] = field(default_factory=dict)  # node.k8s.io/v1, by name
    controller_revisions: dict[str, ControllerRevision] = field(default_factory=dict)  # namespace/name
    # Free-form facts the loader noticed (a PVC bound to a missing PV, a pod on an unknown node).
    notes: list[str] = field(default_factory=list)
    # Raw objects by (kind, "ns/name" or name), kept for patch emission and rendering.
    raw: MutableMapping[tuple[str, str], dict] = field(default_factory=RawObjects, repr=False)  # type: ignore[type-arg]
    # Steps and expectations when the snapshot came from a scenario file.
    scenario: dict | None = None
    # (kind, key) -> (the raw object, the domain template the loader made of its spec.template):
    # StatefulSets (kept as dicts in ``raw``), recorded by the loader once their templates are
    # resolved.  While both objects are still these, the template is the one read (see
    # planner.controllers.template_hash); shared by copies, never changed after the load.
    read_templates: dict[tuple[str, str], tuple[dict, Any]] = field(default_factory=dict, repr=False)  # type: ignore[type-arg]

    # ------------------------------------------------------------------ lookups

    def base_cluster(self) -> ClusterState:
        """ClusterState.from_snapshot(self), built once: what kube-scheduler's cache holds for this
        snapshot (150,000 pods take half a second).  Clone it before changing anything; change the
        snapshot itself only on a copy (a copy builds its own, unless it was ``derived``: then
        from its parent's, changes applied).  The same node infos in the same order with the same
        pods in the same order, and the volume objects of this snapshot."""
        base = self.__dict__.get("_base_cluster")
        if base is None:
            parent = self.__dict__.get("_derived")
            base = self._derived_cluster(*parent) if parent is not None else None
            if base is None:
                base = ClusterState.from_snapshot(self)
            self.__dict__["_base_cluster"] = base
        return base

    def derive(self, parent: Snapshot, removed: Iterable[Pod] = (), added: Iterable[Pod] = (), nodes: Iterable[str] = ()) -> None:
        """Record that this snapshot (a copy of ``parent``, Snapshot.copy) differs from it by the
        pods ``removed`` (keys gone from ``pods``) and ``added`` (new keys, at the end of
        ``pods``) and the Node objects named in ``nodes`` (replaced in place, or new at the end
        of ``nodes``): base_cluster() is then the parent's with those changes (the unchanged
        prefix of the cluster is shared, not rebuilt), as planner.controllers.informers derives
        the controllers' index.  A remediation's verifications build thousands of nodes' worth
        of state once instead of once per plan."""
        self.__dict__["_derived"] = (parent, list(removed), list(added), list(nodes))

    def derivation(self) -> tuple[Snapshot, list[Pod], list[Pod], list[str]] | None:
        """derive()'s record: (parent, removed pods, added pods, node names), or None."""
        d: tuple[Snapshot, list[Pod], list[Pod], list[str]] | None = self.__dict__.get("_derived")
        return d

    def _derived_cluster(self, parent: Snapshot, removed: list[Pod], added: list[Pod], nodes: list[str]) -> ClusterState | None:
        if self.namespaces is not parent.namespaces and self.namespaces != parent.namespaces:
            return None
        if any(n in parent.nodes and n not in self.nodes for n in nodes) or self.csinodes != parent.csinodes:
            return None  # a node deleted, or CSINodes changed: built afresh
        from planner.scheduler.framework import NodeInfo

        new = {n for n in nodes if n not in parent.nodes}
        base = parent.base_cluster().with_nodes(
            [NodeInfo(node) for name, node in self.nodes.items() if name in new] if new else [],
            [self.nodes[n] for n in nodes if n in parent.nodes],
        )
        for p in removed:
            if p.spec.node_name and not p.terminal:
                base.remove_pod(p)
        for p in added:
            if p.spec.node_name and p.spec.node_name in base.by_name and not p.terminal:
                base.add_pod(p)
        base.pvcs, base.pvs, base.storage_classes = dict(self.pvcs), dict(self.pvs), dict(self.storage_classes)
        return base

    def copy(self) -> Snapshot:
        return replace(
            self,
            nodes=dict(self.nodes),
            pods=dict(self.pods),
            pvs=dict(self.pvs),
            pvcs=dict(self.pvcs),
            storage_classes=dict(self.storage_classes),
            deployments=dict(self.deployments),
            replicasets=dict(self.replicasets),
            statefulsets=dict(self.statefulsets),
            daemonsets=dict(self.daemonsets),
            hpas=dict(self.hpas),
            pdbs=dict(self.pdbs),
            namespaces=dict(self.namespaces),
            priority_classes=dict(self.priority_classes),
            csinodes=dict(self.csinodes),
            limit_ranges=dict(self.limit_ranges),
            runtime_classes=dict(self.runtime_classes),
            controller_revisions=dict(self.controller_revisions),
            notes=list(self.notes),
            raw=self.raw.copy() if isinstance(self.raw, RawObjects) else RawObjects(self.raw),
        )

    def namespace_labels(self, namespace: str) -> dict[str, str]:
        """Labels of a namespace; the API server always sets kubernetes.io/metadata.name."""
        ns = self.namespaces.get(namespace)
        labels = dict(ns.labels) if ns else {}
        labels.setdefault("kubernetes.io/metadata.name", namespace)
        return labels

    def default_storage_class(self) -> StorageClass | None:
        return default_class(self.storage_classes.values())

    def storage_class_of(self, pvc: PersistentVolumeClaim) -> StorageClass | None:
        if pvc.storage_class is None:
            return self.default_storage_class()
        return self.storage_classes.get(pvc.storage_class)

    def pods_of_namespace(self, namespace: str) -> Iterable[Pod]:
        return (p for p in self.pods.values() if p.namespace == namespace)

    def hpa_for(self, kind: str, namespace: str, name: str) -> HorizontalPodAutoscaler | None:
        for h in self.hpas.values():
            if h.namespace == namespace and h.target_kind == kind and h.target_name == name:
                return h
        return None

    @cached_property
    def zones(self) -> list[str]:
        return sorted({n.zone for n in self.nodes.values() if n.zone})

    # ------------------------------------------------------------------ graphs

    @cached_property
    def ownership(self) -> nx.DiGraph:
        """Owner -> owned edges: Deployment -> ReplicaSet -> Pod, StatefulSet -> Pod -> PVC -> PV,
        DaemonSet -> Pod.

        Node ids are (kind, key) tuples; the graph holds only edges that resolve.
        """
        import networkx as nx

        g = nx.DiGraph()
        for rs in self.replicasets.values():
            if rs.owner and rs.owner.kind == "Deployment":
                dk = f"{rs.namespace}/{rs.owner.name}"
                if dk in self.deployments:
                    g.add_edge(("Deployment", dk), ("ReplicaSet", rs.key))
        for pod in self.pods.values():
            if pod.owner:
                ok = f"{pod.namespace}/{pod.owner.name}"
                kind = pod.owner.kind
                if (
                    (kind == "ReplicaSet" and ok in self.replicasets)
                    or (kind == "StatefulSet" and ok in self.statefulsets)
                    or (kind == "DaemonSet" and ok in self.daemonsets)
                ):
                    g.add_edge((kind, ok), ("Pod", pod.key))
            for vol in pod.spec.volumes:
                ck = f"{pod.namespace}/{vol.claim_name}"
                if ck in self.pvcs:
                    g.add_edge(("Pod", pod.key), ("PersistentVolumeClaim", ck))
        for pvc in self.pvcs.values():
            if pvc.volume_name and pvc.volume_name in self.pvs:
                g.add_edge(("PersistentVolumeClaim", pvc.key), ("PersistentVolume", pvc.volume_name))
        return g

    @cached_property
    def selector_overlaps(self) -> nx.DiGraph:
        """Workload A -> workload B when a spread or pod (anti-)affinity selector of A's template
        counts B's pods (same namespace, or the term's namespaces): the blue/green trap of the blue/green incident.

        Node ids are ("Deployment" | "StatefulSet", "ns/name"); edge attribute ``via`` lists what
        matched, e.g. "topologySpreadConstraints[0] (topology.kubernetes.io/zone)".
        """
        import networkx as nx

        g = nx.DiGraph()
        workloads = [("Deployment", d.key, d.namespace, d.template) for d in self.deployments.values()]
        workloads += [("StatefulSet", s.key, s.namespace, s.template) for s in self.statefulsets.values()]
        for kind, key, _ns, _tpl in workloads:
            g.add_node((kind, key))
        for kind, key, ns, tpl in workloads:
            spec = tpl.spec
            rules: list[tuple[str, object, tuple[str, ...]]] = []
            for i, c in enumerate(spec.topology_spread_constraints):
                rules.append((f"topologySpreadConstraints[{i}] ({c.topology_key})", c.label_selector, (ns,)))
            aff = spec.affinity
            if aff is not None:
                for i, t in enumerate(aff.pod_anti_affinity_required):
                    rules.append((f"podAntiAffinity.required[{i}] ({t.topology_key})", t.label_selector, t.namespaces or (ns,)))
                for i, t in enumerate(aff.pod_affinity_required):
                    rules.append((f"podAffinity.required[{i}] ({t.topology_key})", t.label_selector, t.namespaces or (ns,)))
            for okind, okey, ons, otpl in workloads:
                if (okind, okey) == (kind, key):
                    continue
                for via, sel, nss in rules:
                    if ons in nss and sel is not None and sel.matches(otpl.labels):  # type: ignore[attr-defined]
                        if g.has_edge((kind, key), (okind, okey)):
                            g.edges[(kind, key), (okind, okey)]["via"].append(via)
                        else:
                            g.add_edge((kind, key), (okind, okey), via=[via])
        return g

    def owned_pods(self, kind: str, key: str) -> list[Pod]:
        """Pods a Deployment (through its ReplicaSets) or StatefulSet controls (the Pod nodes under
        it in ``ownership``; found by owner names without building that graph)."""
        ns, _, name = key.partition("/")
        if kind == "StatefulSet":
            if key not in self.statefulsets:
                return []
            return [p for p in self.pods.values() if p.owner is not None and p.owner.kind == kind and p.owner.name == name and p.namespace == ns]
        if kind == "Deployment":
            if key not in self.deployments:
                return []
            rss = {
                rs.name
                for rs in self.replicasets.values()
                if rs.namespace == ns and rs.owner is not None and rs.owner.kind == "Deployment" and rs.owner.name == name
            }
            return [p for p in self.pods.values() if p.owner is not None and p.owner.kind == "ReplicaSet" and p.owner.name in rss and p.namespace == ns]
        import networkx as nx

        g = self.ownership
        node = (kind, key)
        if node not in g:
            return []
        return [
            self.pods[k]
            for (kk, k) in nx.descendants(g, node)
            if kk == "Pod" and k in self.pods
        ]
