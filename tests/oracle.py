"""Brute-force placement oracle: the ground truth the CP-SAT model's verdicts are checked against.

``sequential_placements(cluster, pods, ordered)`` decides whether ``pods`` can be bound ONE AT A
TIME, each passing every filter plugin (``planner.scheduler.runtime.feasible_nodes``) against the cluster plus
the pods bound before it -- in exactly the given order (``ordered=True``, StatefulSet OrderedReady)
or in any order.  It is an exhaustive depth-first search over (pod, node) choices with a memo of
dead states, so an answer with ``exhausted=True`` is definitive.

Binding a pod emulates what happens in a real cluster between two scheduling cycles:
* the pod is added to its node's NodeInfo with ``spec.nodeName`` set and phase Running;
* its unbound WaitForFirstConsumer claims bind as VolumeBinding's ``find_pod_volumes`` decided for
  that node: a chosen static PV is bound to the claim (claimRef, phase Bound), every other claim is
  dynamically provisioned as PV ``pv-<claim>`` whose nodeAffinity requires the node's
  topology.kubernetes.io/zone (or, on a node without a zone label, its kubernetes.io/hostname).

Symmetry reduction (why it is sound)
------------------------------------
A state is the set of bindings made so far.  Two states are merged when one maps onto the other by
a permutation of *interchangeable pending pods* and of *interchangeable nodes*, because every filter
outcome is invariant under such permutations:
* pending pods are interchangeable when they are equal after dropping the name, the labels no
  selector anywhere can read (keys absent from every spread / affinity selector, matchLabelKeys and
  mismatchLabelKeys of every pod in the cluster or pending), and after replacing each claim by a
  description of its state (the PVC without its name, the bound PV without its name); a claim used
  by several pods, or named by a prebound PV, keeps its name;
* nodes are interchangeable when their labels (but for a unique kubernetes.io/hostname), taints,
  unschedulable flag and allocatable are equal, they start with the same (normalised) pods, and
  neither their name nor their hostname appears in any pod, PV, PVC, StorageClass or other node's
  labels (so nothing can single them out, e.g. a PV pinned to one hostname).
The canonical key is, for each class of interchangeable nodes, the sorted multiset of "multiset of
pod classes bound on the node", plus the set of static PVs consumed so far.  Pass
``symmetry=False`` to key states by exact (pod, node) bindings instead (still memoised): the tests
compare both on random clusters.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from planner.domain import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    LabelSelector,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
)
from planner.scheduler.framework import ClusterState, NodeInfo
from planner.scheduler.plugins.volumebinding import filtering as volumebinding
from planner.scheduler.runtime import feasible_nodes

__all__ = [
    "OracleResult",
    "Placement",
    "copy_cluster",
    "place",
    "unplace",
    "sequential_placements",
    "replay",
]


class OracleResult(NamedTuple):
    """``feasible``: True / False, or None when the search hit ``limit_states`` (unknown).

    ``witness``: the bindings ``[(pod.key, node_name), ...]`` in placement order when feasible.
    ``explored``: search states expanded.  ``exhausted``: the search finished within the limit, so
    ``feasible`` is definitive (False only when the limit was hit).
    """

    feasible: bool | None
    witness: list[tuple[str, str]] | None
    explored: int
    exhausted: bool


# --------------------------------------------------------------------------- binding one pod


@dataclass
class Placement:
    """What ``place`` changed, so that ``unplace`` can undo it."""

    pod: Pod  # the bound pod as added to the node (node_name set, Running)
    old_pvcs: dict[str, PersistentVolumeClaim | None]
    old_pvs: dict[str, PersistentVolume | None]
    static_pvs: tuple[str, ...]  # static PVs this placement bound


def copy_cluster(cluster: ClusterState) -> ClusterState:
    """A copy whose node infos and object maps can be changed without touching ``cluster``."""
    return ClusterState(
        node_infos=[NodeInfo(ni.node, ni.pods) for ni in cluster.node_infos],
        pvcs=dict(cluster.pvcs),
        pvs=dict(cluster.pvs),
        storage_classes=dict(cluster.storage_classes),
        namespace_labels=dict(cluster.namespace_labels),
    )


def _pin_to(node: Node) -> NodeSelector | None:
    """The nodeAffinity a provisioner gives a volume created for ``node``: its zone, else its host."""
    for key in (LABEL_ZONE, LABEL_HOSTNAME):
        value = node.labels.get(key)
        if value is not None:
            return NodeSelector((NodeSelectorTerm((NodeSelectorRequirement(key, "In", (value,)),)),))
    return None


def _bound_claim(pvc: PersistentVolumeClaim, pv_name: str) -> PersistentVolumeClaim:
    ann = dict(pvc.annotations)
    ann[volumebinding.ANN_BIND_COMPLETED] = "yes"
    return replace(pvc, volume_name=pv_name, phase="Bound", annotations=ann)


def place(cluster: ClusterState, pod: Pod, node_name: str) -> Placement:
    """Bind ``pod`` to ``node_name`` in ``cluster`` (mutated): volumes first, then the pod itself.

    The caller is responsible for the node being feasible (this does not run the filters).
    """
    ni = cluster.by_name[node_name]
    old_pvcs: dict[str, PersistentVolumeClaim | None] = {}
    old_pvs: dict[str, PersistentVolume | None] = {}
    static: list[str] = []
    if pod.spec.volumes:
        state, status = volumebinding.pre_filter(pod, cluster)
        if status is None and isinstance(state, volumebinding.VolumeBindingState) and not state.trivial:
            volumes, reasons = volumebinding.find_pod_volumes(state, ni.node)
            if not reasons:
                for pvc, pv in volumes.static_bindings:
                    old_pvcs.setdefault(pvc.key, cluster.pvcs.get(pvc.key))
                    old_pvs.setdefault(pv.name, cluster.pvs.get(pv.name))
                    cluster.pvs[pv.name] = replace(pv, claim_ref=(pvc.namespace, pvc.name), claim_uid=pvc.uid, phase="Bound")
                    cluster.pvcs[pvc.key] = _bound_claim(pvc, pv.name)
                    static.append(pv.name)
                for pvc in volumes.dynamic_provisions:
                    name = f"pv-{pvc.name}"
                    if name in cluster.pvs:
                        name = f"pv-{pvc.namespace}-{pvc.name}"
                    old_pvcs.setdefault(pvc.key, cluster.pvcs.get(pvc.key))
                    old_pvs.setdefault(name, cluster.pvs.get(name))
                    cluster.pvs[name] = PersistentVolume(
                        name=name,
                        capacity=pvc.request,
                        storage_class=volumebinding.claim_class(pvc, cluster),
                        access_modes=pvc.access_modes,
                        node_affinity=_pin_to(ni.node),
                        claim_ref=(pvc.namespace, pvc.name),
                        claim_uid=pvc.uid,
                        phase="Bound",
                        reclaim_policy="Delete",
                        volume_mode=pvc.volume_mode,
                    )
                    cluster.pvcs[pvc.key] = _bound_claim(pvc, name)
    bound = replace(pod, spec=replace(pod.spec, node_name=node_name), phase="Running")
    ni.add_pod(bound)
    return Placement(bound, old_pvcs, old_pvs, tuple(static))


def unplace(cluster: ClusterState, placement: Placement) -> None:
    """Undo ``place``."""
    cluster.by_name[placement.pod.spec.node_name].remove_pod(placement.pod)
    for key, old in placement.old_pvcs.items():
        if old is None:
            cluster.pvcs.pop(key, None)
        else:
            cluster.pvcs[key] = old
    for name, old_pv in placement.old_pvs.items():
        if old_pv is None:
            cluster.pvs.pop(name, None)
        else:
            cluster.pvs[name] = old_pv


def replay(cluster: ClusterState, pods: Sequence[Pod], witness: Iterable[tuple[str, str]], check=None) -> ClusterState:
    """Bind the witness's pods in order on a copy of ``cluster`` and return it.

    ``check(pod, cluster, node_name)`` is called before each binding (tests assert with it).
    """
    work = copy_cluster(cluster)
    by_key = {p.key: p for p in pods}
    for key, node_name in witness:
        pod = by_key[key]
        if check is not None:
            check(pod, work, node_name)
        place(work, pod, node_name)
    return work


# --------------------------------------------------------------------------- canonical forms


def _freeze(obj: Any) -> Any:
    """A hashable, order-insensitive-for-maps value equal for equal domain objects."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__,) + tuple(_freeze(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if isinstance(obj, dict) or (hasattr(obj, "items") and hasattr(obj, "keys")):
        return ("map",) + tuple(sorted((str(k), _freeze(v)) for k, v in obj.items()))
    if isinstance(obj, (list, tuple)):
        return ("seq",) + tuple(_freeze(x) for x in obj)
    if isinstance(obj, (set, frozenset)):
        return ("set",) + tuple(sorted(repr(_freeze(x)) for x in obj))
    return obj


def _strings(obj: Any, out: set[str]) -> None:
    """Every string anywhere inside ``obj`` (dataclass fields, map keys and values, sequences)."""
    if isinstance(obj, str):
        out.add(obj)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _strings(getattr(obj, f.name), out)
    elif isinstance(obj, dict) or (hasattr(obj, "items") and hasattr(obj, "keys")):
        for k, v in obj.items():
            _strings(k, out)
            _strings(v, out)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for x in obj:
            _strings(x, out)


def _selector_keys(sel: LabelSelector | None, out: set[str]) -> None:
    if sel is None:
        return
    out.update(k for k, _ in sel.match_labels)
    out.update(r.key for r in sel.match_expressions)


def _label_keys_read(pod: Pod, out: set[str]) -> None:
    """Pod label keys that this pod's spread constraints or affinity terms can read."""
    spec = pod.spec
    for c in spec.topology_spread_constraints:
        _selector_keys(c.label_selector, out)
        out.update(c.match_label_keys)
    aff = spec.affinity
    if aff is not None:
        terms = list(aff.pod_affinity_required) + list(aff.pod_anti_affinity_required)
        terms += [w.term for w in aff.pod_affinity_preferred] + [w.term for w in aff.pod_anti_affinity_preferred]
        for t in terms:
            _selector_keys(t.label_selector, out)
            out.update(t.match_label_keys)
            out.update(t.mismatch_label_keys)


class _Canon:
    """Pod classes and node classes of one search (computed on the initial cluster)."""

    def __init__(self, cluster: ClusterState, pods: Sequence[Pod]) -> None:
        self.cluster = cluster
        existing = list(cluster.all_pods())
        everyone = existing + list(pods)
        self.read_keys: set[str] = set()
        for p in everyone:
            _label_keys_read(p, self.read_keys)
        users: dict[str, int] = {}
        for p in everyone:
            for v in p.spec.volumes:
                k = f"{p.namespace}/{v.claim_name}"
                users[k] = users.get(k, 0) + 1
        self.shared_claims = {k for k, n in users.items() if n > 1}
        self.prebound: dict[tuple[str, str], list[str]] = {}
        for pv in cluster.pvs.values():
            if pv.claim_ref is not None:
                self.prebound.setdefault(pv.claim_ref, []).append(pv.name)
        self._ids: dict[Any, int] = {}

    def _claim(self, namespace: str, claim_name: str) -> Any:
        key = f"{namespace}/{claim_name}"
        pvc = self.cluster.pvcs.get(key)
        if pvc is None:
            return ("missing", claim_name if key in self.shared_claims else "")
        pv = self.cluster.pvs.get(pvc.volume_name) if pvc.volume_name else None
        pv_desc = None
        if pv is not None:
            pv_desc = _freeze(replace(pv, name="", claim_ref=None, claim_uid="", uid=""))
        return (
            _freeze(replace(pvc, name="", uid="", volume_name="")),
            bool(pvc.volume_name),
            pv_desc,
            tuple(sorted(self.prebound.get((namespace, claim_name), ()))),
            claim_name if key in self.shared_claims or self.prebound.get((namespace, claim_name)) else "",
        )

    def pod_form(self, pod: Pod) -> Any:
        """``pod`` without what cannot tell it apart from an interchangeable one (see module doc)."""
        labels = {k: v for k, v in pod.labels.items() if k in self.read_keys}
        vols = tuple(
            (v.name, v.ephemeral, v.read_only, self._claim(pod.namespace, v.claim_name)) for v in pod.spec.volumes
        )
        spec = replace(pod.spec, node_name="", volumes=())
        return _freeze(replace(pod, name="", labels=labels, spec=spec)), vols

    def pod_class(self, pod: Pod) -> int:
        return self._ids.setdefault(self.pod_form(pod), len(self._ids))

    def node_groups(self) -> dict[str, int]:
        """Node name -> class index; nodes that something could single out get a class of their own."""
        infos = self.cluster.node_infos
        named: set[str] = set()
        for p in self.cluster.all_pods():
            _strings(replace(p, spec=replace(p.spec, node_name=""), nominated_node_name=""), named)
        for obj in (self.cluster.pvs, self.cluster.pvcs, self.cluster.storage_classes):
            _strings(obj, named)
        hostnames: dict[str, int] = {}
        for ni in infos:
            h = ni.node.labels.get(LABEL_HOSTNAME)
            if h is not None:
                hostnames[h] = hostnames.get(h, 0) + 1
            for k, v in ni.node.labels.items():
                if k != LABEL_HOSTNAME:
                    named.add(v)
        groups: dict[Any, int] = {}
        out: dict[str, int] = {}
        for ni in infos:
            node = ni.node
            h = node.labels.get(LABEL_HOSTNAME)
            anonymous = node.name not in named and (h is None or (h not in named and hostnames[h] == 1))
            sig: Any
            if anonymous:
                labels = {k: ("<host>" if k == LABEL_HOSTNAME else v) for k, v in node.labels.items()}
                pods = tuple(sorted(repr(self.pod_form(p)) for p in ni.pods))
                sig = ("anon", _freeze(replace(node, name="", labels=labels)), pods)
            else:
                sig = ("named", node.name)
            out[node.name] = groups.setdefault(sig, len(groups))
        return out


# --------------------------------------------------------------------------- the search


class _LimitReached(Exception):
    pass


def sequential_placements(
    cluster: ClusterState,
    pods: list[Pod],
    ordered: bool,
    limit_states: int = 200_000,
    *,
    symmetry: bool = True,
) -> OracleResult:
    """Can ``pods`` be bound one at a time, each passing every filter? (see the module docstring)

    ``cluster`` is not changed.  ``ordered``: only in the given order.  ``limit_states``: the most
    search states to expand before giving up with ``feasible=None, exhausted=False``.
    """
    pods = list(pods)
    work = copy_cluster(cluster)
    n = len(pods)
    canon = _Canon(work, pods)
    if symmetry:
        cls = [canon.pod_class(p) for p in pods]
        group = canon.node_groups()
    else:
        cls = list(range(n))
        group = {ni.name: i for i, ni in enumerate(work.node_infos)}
    node_names = [ni.name for ni in work.node_infos]
    n_groups = max(group.values(), default=-1) + 1
    on_node: dict[str, list[int]] = {name: [] for name in node_names}
    consumed: list[str] = []
    remaining = [True] * n
    witness: list[tuple[str, str]] = []
    dead: set[Any] = set()
    explored = 0

    def state_key() -> Any:
        per_group: list[list[tuple[int, ...]]] = [[] for _ in range(n_groups)]
        for name in node_names:
            per_group[group[name]].append(tuple(sorted(on_node[name])))
        return tuple(tuple(sorted(g)) for g in per_group), frozenset(consumed)

    def candidates(done: int) -> list[int]:
        if ordered:
            return [done]
        seen: set[int] = set()
        out = []
        for i in range(n):
            if remaining[i] and cls[i] not in seen:
                seen.add(cls[i])
                out.append(i)
        return out

    def dfs(done: int) -> bool:
        nonlocal explored
        if done == n:
            return True
        explored += 1
        if explored > limit_states:
            raise _LimitReached
        for i in candidates(done):
            pod = pods[i]
            for node_name in feasible_nodes(pod, work):
                rec = place(work, pod, node_name)
                remaining[i] = False
                on_node[node_name].append(cls[i])
                consumed.extend(rec.static_pvs)
                witness.append((pod.key, node_name))
                key = state_key()
                if key not in dead:
                    dead.add(key)  # on success the search stops, so a revisited key is dead
                    if dfs(done + 1):
                        return True
                witness.pop()
                del consumed[len(consumed) - len(rec.static_pvs):]
                on_node[node_name].pop()
                remaining[i] = True
                unplace(work, rec)
        return False

    try:
        ok = dfs(0)
    except _LimitReached:
        return OracleResult(None, None, explored, False)
    return OracleResult(ok, list(witness) if ok else None, explored, True)
