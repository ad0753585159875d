"""VolumeBinding: a port of kube-scheduler's VolumeBinding filter (v1.37).

Its Score (storage capacity scoring, on by default since v1.37) is in scoring.py.

Upstream files
--------------
* pkg/scheduler/framework/plugins/volumebinding/volume_binding.go -- ``podHasPVCs``, ``PreFilter``,
  ``Filter`` (every reason is returned with code UnschedulableAndUnresolvable);
* pkg/scheduler/framework/plugins/volumebinding/binder.go -- ``GetPodVolumeClaims``,
  ``FindPodVolumes``, ``checkBoundClaims``, ``findMatchingVolumes`` (claims sorted by request,
  ``chosenPVs`` so that two unbound claims of one pod never take the same static PV),
  ``checkVolumeProvisions``, ``isPVCFullyBound``, the ``ErrReason*`` strings;
* staging/src/k8s.io/component-helpers/storage/volume/pv_helpers.go (and helpers.go) --
  ``FindMatchingVolume`` (prebound PV first, else the smallest available fit),
  ``IsVolumeBoundToClaim``, ``CheckNodeAffinity``, ``CheckAccessModes``,
  ``CheckVolumeModeMismatches``, ``IsDelayBindingMode``, ``GetPersistentVolumeClaimClass``,
  ``NotSupportedProvisioner``;
* staging/src/k8s.io/component-helpers/storage/ephemeral/ephemeral.go -- ``VolumeClaimName``,
  ``VolumeIsForPod``;
* pkg/apis/core/v1/helper/helpers.go -- ``MatchTopologySelectorTerms`` (StorageClass
  allowedTopologies: an empty list allows every node, an empty term none).

PreFilter classifies the pod's claims once (missing / lost / terminating / foreign ephemeral
claims fail the pod with UnschedulableAndUnresolvable; unbound claims of an Immediate class fail it
with "pod has unbound immediate PersistentVolumeClaims"), resolves bound PVs, and pre-filters the
static PV candidates of every WaitForFirstConsumer claim on everything that does not depend on
the node (claimRef, capacity, volume mode, phase, selector, class, access modes).  Filter then only
evaluates PV node affinity and allowedTopologies against the node's labels.

Semantic decisions (each with its upstream evidence)
----------------------------------------------------
* A claim is bound when ``spec.volumeName`` is set and it carries
  ``pv.kubernetes.io/bind-completed`` (binder.go ``isPVCFullyBound``).  planner also accepts
  ``status.phase == Bound`` for hand-written objects; the PV controller always sets the annotation
  before the phase, so real objects are classified exactly as upstream.  A claim with a volumeName
  but neither mark is *prebound* and, as upstream, counts as an unbound immediate claim.
* A PVC whose storageClassName is unset (``None``) uses the cluster's default StorageClass, as the
  DefaultStorageClass admission plugin and the PV controller's retroactive default assignment do
  before the scheduler can bind it; with no default class it has no class ("").
* A PVC bound to a missing PV fails in Filter with ErrReasonPVNotExist, as upstream
  (checkBoundClaims), not in PreFilter; only a ``Lost`` claim fails PreFilter.
* PV node affinity is matched against a node that carries only the node's labels
  (``CheckNodeAffinity`` builds ``&v1.Node{Labels: nodeLabels}``).  Such a node has no fields, and
  nodeaffinity.go ``nodeSelectorTerm.match`` skips matchFields when ``len(nodeFields) == 0``, so a
  ``metadata.name`` matchFields requirement is ignored there (the term matches on its labels).
* Static PVs are considered in name order; upstream takes them from an informer index whose
  order is unspecified, which only matters for the tie-break between equally sized PVs.

Not modelled (out of scope)
---------------------------
* Storage capacity tracking (CSIStorageCapacity, CSIDriver.storageCapacity): dynamic provisioning
  is assumed to have room, so ErrReasonNotEnoughSpace is never produced.
* CSI migration (in-tree PV translation through CSINode), VolumeAttributesClass matching, PV
  deletionTimestamp, the assume cache of volumes reserved for in-flight pods, Reserve, PreBind
  (binding.py binds as PreBind would; Score is scoring.py).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from planner.domain import (
    Node,
    NodeSelector,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    TopologySelectorTerm,
)
from planner.matching import node_selector_matches
from planner.scheduler.framework import (
    ERROR,
    SKIP,
    UNRESOLVABLE,
    ClusterState,
    JournaledDict,
    NodeInfo,
    Status,
    same_version,
    volumes_version,
)

NAME = "VolumeBinding"

# binder.go ConflictReason constants.
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"  # capacity tracking: never produced
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
# volume_binding.go PreFilter.
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
# volume_binding.go podHasPVCs (fmt strings) and the PVC lister's NotFound error.
MSG_PVC_NOT_FOUND = 'persistentvolumeclaim "{}" not found'
MSG_EPHEMERAL_NOT_FOUND = 'waiting for ephemeral volume controller to create the persistentvolumeclaim "{}"'
MSG_CLAIM_LOST = 'persistentvolumeclaim "{}" bound to non-existent persistentvolume "{}"'
MSG_CLAIM_DELETING = 'persistentvolumeclaim "{}" is being deleted'
MSG_NOT_OWNER = "PVC {}/{} was not created for pod {}/{} (pod is not owner)"  # ephemeral.VolumeIsForPod
MSG_MODE_NOT_SET = 'VolumeBindingMode not set for StorageClass "{}"'  # volume.IsDelayBindingMode

# component-helpers/storage/volume and k8s.io/api/core/v1 annotation keys.
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


# --------------------------------------------------------------------------- shared helpers


def claim_class(pvc: PersistentVolumeClaim, cluster: ClusterState) -> str:
    """volume.GetPersistentVolumeClaimClass, with an unset class resolved to the default class.

    The beta annotation wins over spec.storageClassName as upstream.  ``None`` (unset) becomes the
    default StorageClass (admission / retroactive default assignment), else "" (no class).
    """
    ann = pvc.annotations.get(ANN_BETA_STORAGE_CLASS)
    if ann is not None:
        return ann
    if pvc.storage_class is not None:
        return pvc.storage_class
    default = cluster.default_storage_class()
    return default.name if default is not None else ""


def is_fully_bound(pvc: PersistentVolumeClaim) -> bool:
    """binder.go isPVCFullyBound (plus phase Bound for hand-written objects, see module docstring)."""
    return bool(pvc.volume_name) and (ANN_BIND_COMPLETED in pvc.annotations or pvc.phase == "Bound")


def is_volume_bound_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> bool:
    """volume.IsVolumeBoundToClaim: claimRef names the claim; a set claimRef UID must match too."""
    if pv.claim_ref is None or pv.claim_ref != (pvc.namespace, pvc.name):
        return False
    return not pv.claim_uid or pv.claim_uid == pvc.uid


def topology_terms_match(terms: tuple[TopologySelectorTerm, ...], labels: Mapping[str, str]) -> bool:
    """v1helper.MatchTopologySelectorTerms: terms ORed, requirements (key In values) ANDed."""
    if not terms:
        return True  # an empty term list matches every node
    for term in terms:
        if not term.requirements:
            continue  # an empty term matches nothing
        if all(key in labels and labels[key] in values for key, values in term.requirements):
            return True
    return False


def describe_node_selector(sel: NodeSelector | None) -> str:
    if sel is None:
        return "any node"
    if not sel.terms:
        return "no node"
    ops = {"In": "in", "NotIn": "notin", "Gt": ">", "Lt": "<"}
    terms = []
    for t in sel.terms:
        parts = []
        for r in t.match_expressions:
            parts.append(_describe_requirement(r.key, r.operator, r.values, ops))
        for r in t.match_fields:
            parts.append(_describe_requirement(r.key, r.operator, r.values, ops))
        terms.append(" and ".join(parts) if parts else "<empty term: no node>")
    return " or ".join(terms)


def _describe_requirement(key: str, op: str, values: tuple[str, ...], ops: dict[str, str]) -> str:
    if op == "Exists":
        return f"{key} exists"
    if op == "DoesNotExist":
        return f"!{key}"
    if op in ("Gt", "Lt"):
        return f"{key} {ops[op]} {values[0] if values else ''}"
    return f"{key} {ops.get(op, op)} ({', '.join(values)})"


def describe_topology_terms(terms: tuple[TopologySelectorTerm, ...]) -> str:
    if not terms:
        return "any node"
    out = []
    for t in terms:
        if not t.requirements:
            out.append("<empty term: no node>")
        else:
            out.append(" and ".join(f"{k} in ({', '.join(v)})" for k, v in t.requirements))
    return " or ".join(out)


# --------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class ClaimChain:
    """One pod volume's chain for ``planner explain``: PVC -> PV or provisioning -> allowed topology."""

    volume: str  # the pod volume name
    pvc: str  # "namespace/name"
    pv: str | None  # the bound (or prebound) PV, None when unbound
    storage_class: str  # effective class ("" = no class)
    bound: bool
    binding: str  # e.g. "bound", "unbound, WaitForFirstConsumer, provisioner ebs.csi.aws.com"
    topology: str  # the nodes this chain allows

    def __str__(self) -> str:
        middle = f"PV {self.pv}" if self.pv else self.binding
        return f"PVC {self.pvc} -> {middle} -> {self.topology}"


@dataclass(slots=True)
class UnboundClaim:
    """A WaitForFirstConsumer claim still to bind, with its node-independent PV pre-filtering done."""

    pvc: PersistentVolumeClaim
    selected_node: str | None  # volume.kubernetes.io/selected-node (presence matters, not value)
    # (PV, its interned spec.nodeAffinity) pairs:
    prebound: tuple[tuple[PersistentVolume, NodeSelector | None], ...]  # claimRef names this claim
    candidates: tuple[tuple[PersistentVolume, NodeSelector | None], ...]  # available matches, smallest first
    provisionable: bool  # class has a provisioner other than "" / kubernetes.io/no-provisioner
    allowed_topologies: tuple[TopologySelectorTerm, ...]


@dataclass(slots=True)
class VolumeBindingState:
    claims: list[ClaimChain] = field(default_factory=list)
    # checkBoundClaims, resolved: the bound PVs in pod order up to the first missing one.
    bound_pvs: tuple[tuple[PersistentVolume, NodeSelector | None], ...] = ()
    bound_pv_missing: bool = False
    # unboundClaimsDelayBinding, split as FindPodVolumes does.
    selected: tuple[UnboundClaim, ...] = ()  # claims carrying the selected-node annotation
    to_match: tuple[UnboundClaim, ...] = ()  # the others, sorted by request (byPVCSize)

    @property
    def trivial(self) -> bool:
        """Nothing in Filter can fail: no node-affine bound PV, no missing PV, no unbound claim."""
        return (
            not self.bound_pv_missing
            and not self.selected
            and not self.to_match
            and all(sel is None for _, sel in self.bound_pvs)
        )


# --------------------------------------------------------------------------- PreFilter


def _fail(state: VolumeBindingState, msg: str, code: str = UNRESOLVABLE) -> tuple[VolumeBindingState, Status]:
    return state, Status(NAME, (msg,), code)


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[object, Status | None]:
    """PreFilter.  On a cluster whose claims, volumes and classes are journaled (the replay's),
    the result for the very same pod object is kept until one of them changes: a pod's scheduling
    cycle asks several times (filters, scores, bind), on the same objects (the state is never
    changed once made)."""
    if not pod.spec.volumes:
        return SKIP, None  # podHasPVCs: no PVC -> framework.Skip
    version = volumes_version(cluster)
    if version is None:
        return _pre_filter(pod, cluster)
    memo = cluster.__dict__.get(_MEMO)
    if memo is not None and memo[0] is pod and same_version(memo[1], version):
        out: tuple[object, Status | None] = memo[2]
        return out
    out = _pre_filter(pod, cluster)
    cluster.__dict__[_MEMO] = (pod, version, out)
    return out


_MEMO = "_volumebinding_pre_filter"


def _pre_filter(pod: Pod, cluster: ClusterState) -> tuple[object, Status | None]:
    volumes = pod.spec.volumes
    state = VolumeBindingState()
    ns = pod.namespace
    # Equal node affinities are interned to one object so Filter's per-node cache hits across PVs.
    interned: dict[NodeSelector, NodeSelector] = {}

    def intern(pv: PersistentVolume) -> tuple[PersistentVolume, NodeSelector | None]:
        sel = pv.node_affinity
        return pv, (None if sel is None else interned.setdefault(sel, sel))

    # podHasPVCs: every claim must exist, not be Lost, not be terminating, and an ephemeral claim
    # must be controlled by the pod.  The first failing volume fails the pod.
    pvcs: list[tuple[str, PersistentVolumeClaim]] = []
    for vol in volumes:
        pvc = cluster.pvcs.get(f"{ns}/{vol.claim_name}")
        if pvc is None:
            msg = MSG_EPHEMERAL_NOT_FOUND if vol.ephemeral else MSG_PVC_NOT_FOUND
            state.claims.append(ClaimChain(vol.name, f"{ns}/{vol.claim_name}", None, "", False, "missing", "no node"))
            return _fail(state, msg.format(vol.claim_name))
        if pvc.phase == "Lost":
            return _fail(state, MSG_CLAIM_LOST.format(pvc.name, pvc.volume_name))
        if pvc.terminating:
            return _fail(state, MSG_CLAIM_DELETING.format(pvc.name))
        if vol.ephemeral:
            owner = pvc.owner
            if pvc.namespace != ns or owner is None or not owner.controller or owner.uid != pod.uid:
                return _fail(state, MSG_NOT_OWNER.format(pvc.namespace, pvc.name, ns, pod.name))
        pvcs.append((vol.name, pvc))

    # GetPodVolumeClaims: bound / unbound delay-binding / unbound immediate (incl. prebound).
    bound_pvs: list[tuple[PersistentVolume, NodeSelector | None]] = []
    bound_missing = False
    delay: list[tuple[str, PersistentVolumeClaim, str]] = []
    immediate = False
    for vol_name, pvc in pvcs:
        cls = claim_class(pvc, cluster)
        if is_fully_bound(pvc):
            pv = cluster.pvs.get(pvc.volume_name)
            if pv is None:
                bound_missing = True
                state.claims.append(ClaimChain(vol_name, pvc.key, pvc.volume_name, cls, True, "bound to a missing PV", "no node"))
            else:
                if not bound_missing:
                    bound_pvs.append(intern(pv))
                state.claims.append(ClaimChain(vol_name, pvc.key, pv.name, cls, True, "bound", describe_node_selector(pv.node_affinity)))
            continue
        sc = cluster.storage_classes.get(cls) if cls else None
        if sc is not None and not sc.volume_binding_mode:
            return _fail(state, MSG_MODE_NOT_SET.format(cls), ERROR)  # IsDelayBindingMode error -> AsStatus
        if sc is not None and sc.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER and not pvc.volume_name:
            delay.append((vol_name, pvc, cls))
        else:
            immediate = True
            what = f"prebound to PV {pvc.volume_name}, not yet bound" if pvc.volume_name else "unbound, Immediate"
            state.claims.append(ClaimChain(vol_name, pvc.key, pvc.volume_name or None, cls, False, what, "no node until bound"))
    state.bound_pvs = tuple(bound_pvs)
    state.bound_pv_missing = bound_missing
    if immediate:
        return _fail(state, ERR_UNBOUND_IMMEDIATE)

    # unboundVolumesDelayBinding: the PVs of each unbound claim's class (pvCache.ListPVs).
    index = _pv_index(cluster) if delay else {}
    selected: list[UnboundClaim] = []
    to_match: list[UnboundClaim] = []
    for vol_name, pvc, cls in delay:
        free, claimed = index.get(cls, ([], {}))
        # the PVs FindMatchingVolume can return: unclaimed ones and those whose claimRef names this claim
        u = _unbound_claim(pvc, cls, claimed.get((pvc.namespace, pvc.name), []) + free, cluster, intern)
        (selected if u.selected_node is not None else to_match).append(u)
        state.claims.append(_unbound_chain(vol_name, u, cls, cluster))
    to_match.sort(key=lambda u: u.pvc.request)  # byPVCSize (stable, like Go's insertion sort for small n)
    state.selected = tuple(selected)
    state.to_match = tuple(to_match)
    order = {v.name: i for i, v in enumerate(volumes)}
    state.claims.sort(key=lambda c: order.get(c.volume, 0))  # explain lists chains in pod order
    return state, None


_PVIndex = dict[str, tuple[list[PersistentVolume], dict[tuple[str, str], list[PersistentVolume]]]]


def _pv_index(cluster: ClusterState) -> _PVIndex:
    """pvCache.ListPVs(class), split: per class the PVs without a claimRef and, by claimRef, the
    others, each in name order.  A claim can only be matched to the first kind or to a PV whose
    claimRef names it (FindMatchingVolume skips PVs claimed by another PVC), so a PreFilter reads
    those instead of every PV of the class (at 5,000 nodes thousands are bound).

    Cached on the ClusterState and checked on every use against the PVs themselves, so a PV bound,
    added or removed since is never missed: the same objects in the same order reuse the index;
    PVs replaced in place or added at the end (what binding does) update it; anything else
    rebuilds it."""
    pvs = cluster.pvs
    if type(pvs) is JournaledDict:
        return _journaled_pv_index(cluster, pvs)
    current = list(pvs.values())
    cached = cluster.__dict__.get("_pv_index")
    index: _PVIndex
    if cached is not None:
        before, index = cached
        if before == current:
            return index
        if len(current) >= len(before) and _update_pv_index(index, before, current):
            cluster.__dict__["_pv_index"] = (current, index)
            return index
    index = {}
    for name in sorted(pvs):
        _pv_index_add(index, pvs[name])
    cluster.__dict__["_pv_index"] = (current, index)
    return index


def _journaled_pv_index(cluster: ClusterState, pvs: JournaledDict) -> _PVIndex:
    """_pv_index of journaled PVs (the replay's): the PVs written or removed since the last use
    (the dict's journal) are taken out of the index and put back as they are now; equal to the
    index built afresh (every bucket in name order)."""
    cached = cluster.__dict__.get("_pv_index_journaled")
    if cached is None or cached[0] is not pvs:
        index: _PVIndex = {}
        for name in sorted(pvs):
            _pv_index_add(index, pvs[name])
        cluster.__dict__["_pv_index_journaled"] = [pvs, len(pvs.journal), index, dict(pvs)]
        return index
    _, pos, index, indexed = cached
    journal = pvs.journal
    if pos < len(journal):
        for name in dict.fromkeys(journal[pos:]):
            old = indexed.pop(name, None)
            if old is not None:
                bucket = _pv_index_bucket(index, old)
                i = bisect.bisect_left(bucket, name, key=_pv_name)
                while bucket[i] is not old:  # names are unique: found at once
                    i += 1
                del bucket[i]
            pv = pvs.get(name)
            if pv is not None:
                _pv_index_add(index, pv)
                indexed[name] = pv
        cached[1] = len(journal)
    return index


def _pv_name(pv: PersistentVolume) -> str:
    return pv.name


def _pv_index_bucket(index: _PVIndex, pv: PersistentVolume) -> list[PersistentVolume]:
    free, claimed = index.setdefault(pv.storage_class, ([], {}))
    return free if pv.claim_ref is None else claimed.setdefault(pv.claim_ref, [])


def _pv_index_add(index: _PVIndex, pv: PersistentVolume) -> None:
    bucket = _pv_index_bucket(index, pv)
    bucket.insert(bisect.bisect_right(bucket, pv.name, key=lambda v: v.name), pv)  # name order


def _update_pv_index(index: _PVIndex, before: list[PersistentVolume], current: list[PersistentVolume]) -> bool:
    """Apply in-place replacements and additions at the end; False when the change is another kind."""
    if current[: len(before)] == before:  # additions only (a replay provisioning volumes): C speed
        for pv in current[len(before):]:
            _pv_index_add(index, pv)
        return True
    changed = [i for i, (a, b) in enumerate(zip(before, current)) if a is not b]
    if any(before[i].name != current[i].name for i in changed):
        return False  # a PV removed (the names shifted): rebuild
    for i in changed:
        old = before[i]
        bucket = _pv_index_bucket(index, old)
        for j, pv in enumerate(bucket):
            if pv is old:
                del bucket[j]
                break
        else:
            return False
        _pv_index_add(index, current[i])
    for pv in current[len(before):]:
        _pv_index_add(index, pv)
    return True


def _unbound_claim(
    pvc: PersistentVolumeClaim,
    cls: str,
    pvs: Sequence[PersistentVolume],
    cluster: ClusterState,
    intern: Callable[[PersistentVolume], tuple[PersistentVolume, NodeSelector | None]],
) -> UnboundClaim:
    """FindMatchingVolume's node-independent checks, done once per pod instead of once per node."""
    prebound: list[tuple[PersistentVolume, NodeSelector | None]] = []
    candidates: list[tuple[PersistentVolume, NodeSelector | None]] = []
    req_mode = pvc.volume_mode or "Filesystem"
    for pv in pvs:
        if pv.claim_ref is not None and not is_volume_bound_to_claim(pv, pvc):
            continue  # claimed by another PVC
        if pv.capacity < pvc.request:
            continue
        if (pv.volume_mode or "Filesystem") != req_mode:
            continue  # CheckVolumeModeMismatches
        if pv.claim_ref is not None:
            prebound.append(intern(pv))  # returned (or rejected) on node affinity alone
            continue
        if pv.phase != "Available":
            continue
        if pvc.selector is not None and not pvc.selector.matches(pv.labels):
            continue
        if pv.storage_class != cls:
            continue
        if not all(m in pv.access_modes for m in pvc.access_modes):
            continue  # CheckAccessModes (scheduler path)
        candidates.append(intern(pv))
    candidates.sort(key=lambda c: c[0].capacity)  # smallest fit; ties keep name order
    sc = cluster.storage_classes.get(cls)
    provisioner = sc.provisioner if sc is not None else ""
    return UnboundClaim(
        pvc=pvc,
        selected_node=pvc.annotations.get(ANN_SELECTED_NODE),
        prebound=tuple(prebound),
        candidates=tuple(candidates),
        provisionable=bool(provisioner) and provisioner != NOT_SUPPORTED_PROVISIONER,
        allowed_topologies=sc.allowed_topologies if sc is not None else (),
    )


def _unbound_chain(vol_name: str, u: UnboundClaim, cls: str, cluster: ClusterState) -> ClaimChain:
    sc = cluster.storage_classes.get(cls)
    provisioner = sc.provisioner if sc is not None else ""
    binding = f"unbound, WaitForFirstConsumer, provisioner {provisioner or '<none>'}"
    parts = []
    if u.selected_node is not None:
        parts.append(f"selected-node {u.selected_node}")
    statics = [pv for pv, _ in u.prebound + u.candidates]
    if statics:
        affs = sorted({describe_node_selector(pv.node_affinity) for pv in statics})
        parts.append(f"{len(statics)} static PV(s) on: " + "; ".join(affs))
    if u.provisionable:
        parts.append("provisioning on: " + describe_topology_terms(u.allowed_topologies))
    else:
        parts.append(f"no dynamic provisioning ({provisioner or 'no provisioner'})")
    return ClaimChain(vol_name, u.pvc.key, None, cls, False, binding, " | ".join(parts))


# --------------------------------------------------------------------------- Filter


@dataclass(slots=True)
class PodVolumes:
    """binder.go PodVolumes: what binding the pod on one node would do."""

    static_bindings: list[tuple[PersistentVolumeClaim, PersistentVolume]] = field(default_factory=list)
    dynamic_provisions: list[PersistentVolumeClaim] = field(default_factory=list)


def filter(state: VolumeBindingState, pod: Pod, node_info: NodeInfo) -> Status | None:
    if state.trivial:
        return None
    _, reasons = find_pod_volumes(state, node_info.node)
    if not reasons:
        return None
    return Status(NAME, tuple(reasons), UNRESOLVABLE)


def find_pod_volumes(state: VolumeBindingState, node: Node) -> tuple[PodVolumes, list[str]]:
    """binder.go FindPodVolumes on the PreFilter state: the node's bindings and conflict reasons."""
    labels = node.labels
    label_node = Node(name="", labels=labels)  # CheckNodeAffinity matches labels only
    cache: dict[int, bool] = {}

    def affinity_ok(sel: NodeSelector | None) -> bool:
        if sel is None:
            return True
        hit = cache.get(id(sel))
        if hit is None:
            hit = cache[id(sel)] = node_selector_matches(sel, label_node)
        return hit

    # Rule (checkBoundClaims): walking the bound claims in pod order, the first PV whose
    # spec.nodeAffinity does not match the node is a node conflict; a missing PV ends the walk.
    bound_ok = all(affinity_ok(sel) for _, sel in state.bound_pvs)
    pvs_found = not state.bound_pv_missing or not bound_ok

    # Rule (FindPodVolumes): a selected-node claim pins the pod to that node; every other unbound
    # claim needs an unchosen matching static PV (prebound first, else smallest fit) or dynamic
    # provisioning that the class's allowedTopologies permit on this node.
    volumes = PodVolumes()
    unbound_ok = True
    if state.selected or state.to_match:
        to_provision: list[UnboundClaim] = []
        for u in state.selected:
            if u.selected_node != node.name:
                unbound_ok = False  # fast path, skip unmatched node
                break
            to_provision.append(u)
        if unbound_ok:
            chosen: set[str] = set()
            for u in state.to_match:
                pv = _find_matching_volume(u, chosen, affinity_ok)
                if pv is None:
                    to_provision.append(u)
                else:
                    chosen.add(pv.name)  # matching PV is excluded so no other claim selects it
                    volumes.static_bindings.append((u.pvc, pv))
            for u in to_provision:
                if not u.provisionable or not topology_terms_match(u.allowed_topologies, labels):
                    unbound_ok = False
                    break
                volumes.dynamic_provisions.append(u.pvc)
            if not unbound_ok:
                volumes.dynamic_provisions.clear()

    reasons = []
    if not bound_ok:
        reasons.append(ERR_REASON_NODE_CONFLICT)
    if not unbound_ok:
        reasons.append(ERR_REASON_BIND_CONFLICT)
    if not pvs_found:
        reasons.append(ERR_REASON_PV_NOT_EXIST)
    return volumes, reasons


def _find_matching_volume(
    u: UnboundClaim, chosen: set[str], affinity_ok: Callable[[NodeSelector | None], bool]
) -> PersistentVolume | None:
    """FindMatchingVolume on the pre-filtered lists: the first unchosen prebound PV decides alone."""
    for pv, sel in u.prebound:
        if pv.name in chosen:
            continue
        return pv if affinity_ok(sel) else None
    for pv, sel in u.candidates:
        if pv.name not in chosen and affinity_ok(sel):
            return pv
    return None
