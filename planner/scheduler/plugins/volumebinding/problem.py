"""What the CP-SAT problem (planner.engines.problem) takes from VolumeBinding and VolumeZone.

Their Filters (filtering.py here, pkg/scheduler/framework/plugins/volumebinding/volume_binding.go
and binder.go; planner.scheduler.plugins.volumezone, volume_zone.go) read only a node's labels,
and of those only the keys some PV or StorageClass names: ``volume_classes`` groups the nodes
they cannot tell apart, so a pod's volume verdicts cost one Filter call per class.  Claims that
only an existing PV can serve on some classes become ``StaticClaim``s (models/volumebinding.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from models.problem import Problem, StaticClaim
from planner.domain import Pod
from planner.matching import node_selector_matches
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo
from planner.scheduler.plugins.volumebinding import filtering as volumebinding
from planner.scheduler.plugins.volumerestrictions import filtering as volumerestrictions
from planner.scheduler.plugins.volumezone import filtering as volumezone

NAME = volumebinding.NAME

# The per-pod volume filters with static verdicts, in filter order.  VolumeRestrictions' verdict
# (a ReadWriteOncePod claim already in use) reads no node at all, so one Filter call per class
# of volume_classes is exact for it too.
VOLUME_PLUGINS = (volumerestrictions, volumebinding, volumezone)

Verdicts = tuple[tuple[tuple[str, str], ...], ...]  # per node: (plugin, reason) rejections


class PreFilterMemo:
    """VolumeBinding's PreFilter per pod, once per problem (the cluster does not change)."""

    def __init__(self, cluster: ClusterState) -> None:
        self.cluster = cluster
        self.memo: dict[str, tuple[Any, Any]] = {}

    def __call__(self, pod: Pod) -> tuple[Any, Any]:
        hit = self.memo.get(pod.key)
        if hit is None:
            hit = self.memo[pod.key] = volumebinding.pre_filter(pod, self.cluster)
        return hit


def pv_affinity_keys(pvs: Iterable[Any]) -> tuple[set[str], bool]:
    """The node label keys the PersistentVolumes' node affinity names, and whether a term matches
    the node's name (matchFields): what of a node VolumeBinding's Filter can tell apart."""
    keys: set[str] = set()
    by_name = False
    for pv in pvs:
        if pv.node_affinity is not None:
            for term in pv.node_affinity.terms:
                keys.update(r.key for r in term.match_expressions)
                by_name = by_name or bool(term.match_fields)
    return keys, by_name


def volume_classes(cluster: ClusterState) -> list[list[int]]:
    """Node indices grouped by everything VolumeBinding's and VolumeZone's Filters read of a node.

    Those Filters read the node's labels only (volumebinding.find_pod_volumes matches PV node
    affinity on a name-less copy of the node, as CheckNodeAffinity does; volumezone reads the zone
    and region labels), and of the labels only the keys that some PersistentVolume's node affinity
    or some StorageClass's allowedTopologies names, plus the topology labels.  Nodes equal on those
    keys get equal verdicts, so a pod's volume verdicts cost one Filter call per class instead of
    one per node.  Cached on the ClusterState for as long as the keys and the Node objects stay
    the same.
    """
    keys, by_name = pv_affinity_keys(cluster.pvs.values())
    keys.update(volumezone.TOPOLOGY_LABELS)
    for sc in cluster.storage_classes.values():
        for t in sc.allowed_topologies:
            keys.update(k for k, _ in t.requirements)
    ordered = sorted(keys)
    key = (tuple(ordered), by_name, tuple(id(ni.node) for ni in cluster.node_infos))
    cached = getattr(cluster, "_volume_classes", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    groups: dict[tuple, list[int]] = {}
    for i, ni in enumerate(cluster.node_infos):
        labels = ni.node.labels
        proj = (tuple(labels.get(k) for k in ordered), ni.node.name if by_name else None)
        groups.setdefault(proj, []).append(i)
    out = list(groups.values())
    cluster._volume_classes = (key, out)  # type: ignore[attr-defined]
    return out


def volume_verdicts(
    pod: Pod,
    cluster: ClusterState,
    base: Verdicts,
    vclasses: list[list[int]],
    pre_filter: PreFilterMemo,
    order: Mapping[str, int],
    enabled: frozenset[str] | None = None,
    shared: dict[tuple, Any] | None = None,
) -> Verdicts:
    """``base`` (the verdicts of the pod's template) with VolumeBinding's and VolumeZone's
    verdicts for this pod merged in, each node's row sorted by ``order`` (plugin name -> rank);
    ``enabled``: the profile's filter plugins by name (None: every one).

    The volume Filters run once per class of ``vclasses`` (nodes they cannot tell apart, see
    volume_classes), or once per node when a claim's selected-node annotation reads its name.
    ``shared``: their verdicts kept for the other pods of this ``cluster`` (and ``vclasses`` and
    ``enabled``): the volume plugins read of a pod its namespace and volumes, and its name and uid
    only for an ephemeral volume's owner, so a pod equal on those gets the same verdicts (the pods
    of one ordinal planned from several templates: a remediation's template changes).  And where
    no verdict can read a claim's name (_claims_shape), pods whose claims are equal but for their
    names get the same verdicts too: a StatefulSet's pods, each with claims of its own."""
    key: tuple | None = None
    shape: tuple | None = None
    if shared is not None:
        vols = pod.spec.volumes
        key = (pod.namespace, vols, (pod.name, pod.uid) if any(v.ephemeral for v in vols) else None)
        hit = shared.get(key)
        if hit is None and SHAPE_MEMO:
            shape = _claims_shape(pod, cluster, shared)
            hit = shared.get(shape) if shape is not None else None
        if hit is not None:
            return _merged(base, hit[0], hit[1], len(cluster.node_infos), order)
    everywhere, extras = _volume_filters(pod, cluster, vclasses, pre_filter, enabled)
    if key is not None and shared is not None:
        shared[key] = (everywhere, extras)
        if shape is not None and not everywhere:
            shared[shape] = (everywhere, extras)
    return _merged(base, everywhere, extras, len(cluster.node_infos), order)


# tests/engines/test_problem_memo.py turns it off to hold the shared verdicts to each pod's own
SHAPE_MEMO = True

_CLAIMED = ("claimed",)  # volume_verdicts' ``shared``: the claims some PersistentVolume's claimRef names


def _claims_shape(pod: Pod, cluster: ClusterState, shared: dict[tuple, Any]) -> tuple | None:
    """What the volume plugins read of the pod's claims, their names left out; None where a name
    may count.  A name counts in an ephemeral volume (its owner), in a ReadWriteOncePod claim
    (VolumeRestrictions: the other pods using that very claim), in a claim some PV's claimRef
    names (VolumeBinding: a PV prebound to it) and in a PreFilter's rejection (its message names
    the claim: volume_verdicts keeps no shape's verdicts with one).  Otherwise VolumeBinding and
    VolumeZone read a claim's class, volume, phase, request, access and volume modes, selector,
    annotations (the selected node), owner and deletion, and the PVs and classes of the cluster."""
    claimed: set[tuple[str, str]] | None = shared.get(_CLAIMED)
    if claimed is None:
        claimed = shared[_CLAIMED] = {pv.claim_ref for pv in cluster.pvs.values() if pv.claim_ref is not None}
    parts = []
    ns = pod.namespace
    for v in pod.spec.volumes:
        if v.ephemeral:
            return None
        pvc = cluster.pvcs.get(f"{ns}/{v.claim_name}")
        if pvc is None or volumerestrictions.READ_WRITE_ONCE_POD in pvc.access_modes or (pvc.namespace, pvc.name) in claimed:
            return None
        parts.append((v.name, v.read_only, pvc.namespace, pvc.storage_class, pvc.volume_name, pvc.phase, pvc.request, pvc.access_modes,
                      pvc.selector, pvc.volume_mode, tuple(sorted(pvc.annotations.items())), pvc.owner, pvc.terminating))
    return ("shape", ns, tuple(parts))


def _volume_filters(
    pod: Pod, cluster: ClusterState, vclasses: list[list[int]], pre_filter: PreFilterMemo, enabled: frozenset[str] | None
) -> tuple[list[tuple[str, str]], dict[int, list[tuple[str, str]]]]:
    """The volume plugins' rejections of ``pod``: those of every node (a PreFilter's), and per node."""
    nodes = cluster.node_infos
    everywhere: list[tuple[str, str]] = []  # a PreFilter's rejection holds on every node
    extras: dict[int, list[tuple[str, str]]] = {}
    for mod in VOLUME_PLUGINS:
        if enabled is not None and mod.NAME not in enabled:
            continue  # disabled in the scheduling profile
        state, status = pre_filter(pod) if mod is volumebinding else mod.pre_filter(pod, cluster)
        if status is not None:
            everywhere.append((mod.NAME, status.message))
            continue
        if state is SKIP:
            continue
        groups = vclasses if not getattr(state, "selected", ()) else [[i] for i in range(len(nodes))]
        for members in groups:
            st = mod.filter(state, pod, nodes[members[0]])
            if st is not None:
                verdict = (mod.NAME, st.message)
                for i in members:
                    extras.setdefault(i, []).append(verdict)
    return everywhere, extras


def _merged(base: Verdicts, everywhere: list[tuple[str, str]], extras: dict[int, list[tuple[str, str]]], n: int, order: Mapping[str, int]) -> Verdicts:
    if not everywhere and not extras:
        return base
    rows = list(base)
    merged: dict[tuple, tuple] = {}  # (id(base row), added) -> merged row: rows repeat across nodes
    for i in (range(n) if everywhere else extras):
        added = tuple(everywhere + extras.get(i, []))
        key = (id(base[i]), added)
        row = merged.get(key)
        if row is None:
            row = merged[key] = tuple(sorted(base[i] + added, key=lambda f: order.get(f[0], 99)))
        rows[i] = row
    return tuple(rows)


def claim_detail(pod: Pod, pre_filter: PreFilterMemo) -> tuple[list[str], str]:
    """The pod's claim chains (PVC -> PV -> topology): the objects, and the chains as text."""
    state, _ = pre_filter(pod)
    chains = getattr(state, "claims", None) or []
    objects = []
    parts = []
    for c in chains:
        objects.append(f"PersistentVolumeClaim {c.pvc}")
        if c.pv:
            objects.append(f"PersistentVolume {c.pv}")
        parts.append(str(c))
    return objects, "; ".join(parts)


def prebound(pod: Pod, pre_filter: PreFilterMemo) -> tuple[str, ...]:
    """PVs whose claimRef names one of the pod's claims: such a pod is not interchangeable."""
    if not pod.spec.volumes:
        return ()
    state, _ = pre_filter(pod)
    names: list[str] = []
    for u in getattr(state, "to_match", ()):
        names.extend(pv.name for pv, _ in u.prebound)
    return tuple(sorted(names))


def is_volume_plugin(name: str) -> bool:
    return name in (volumerestrictions.NAME, volumebinding.NAME, volumezone.NAME)


def static_claims(problem: Problem, reps: list[Pod], classes_nodes: list[list[NodeInfo]], pre_filter: PreFilterMemo) -> None:
    """Claims that, on some classes, only an existing PV can serve (see models/volumebinding.py)."""
    for g, rep in enumerate(reps):
        if not rep.spec.volumes:
            continue
        state, status = pre_filter(rep)
        if status is not None or not isinstance(state, volumebinding.VolumeBindingState):
            continue
        for u in state.to_match:
            options: dict[int, list[str]] = {}
            for c, members in enumerate(classes_nodes):
                labels = members[0].node.labels
                if u.provisionable and volumebinding.topology_terms_match(u.allowed_topologies, labels):
                    continue
                pvs = []
                for pv, sel in tuple(u.prebound) + tuple(u.candidates):
                    label_nodes = [type(ni.node)(name="", labels=ni.node.labels) for ni in members]
                    if sel is None or any(node_selector_matches(sel, n) for n in label_nodes):
                        pvs.append(pv.name)
                options[c] = pvs
            if options:
                problem.static_claims.append(
                    StaticClaim(
                        index=len(problem.static_claims),
                        group=g,
                        claim=u.pvc.name,
                        options=options,
                        source=f"PersistentVolumeClaim {u.pvc.key} (class {u.pvc.storage_class or 'default'})",
                    )
                )
