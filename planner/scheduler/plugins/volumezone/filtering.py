"""VolumeZone: a port of kube-scheduler's VolumeZone filter (v1.37).

Upstream files
--------------
* pkg/scheduler/framework/plugins/volumezone/volume_zone.go -- ``PreFilter`` / ``getPVbyPod``,
  ``getPVTopologies``, ``Filter``, ``translateToGALabel``, ``ErrReasonConflict``;
* staging/src/k8s.io/cloud-provider/volume/helpers/zones.go -- ``LabelZonesToSet`` (a label
  value "a__b" is the zone set {a, b}; an empty element makes the label unparsable, and upstream
  then ignores that label);
* staging/src/k8s.io/component-helpers/storage/volume/helpers.go --
  ``GetPersistentVolumeClaimClass``.

PreFilter reads, once per pod, the zone/region labels of the PVs bound to the pod's
``persistentVolumeClaim`` volumes (generic ephemeral volumes are not looked at, as upstream), in the
order failure-domain.beta zone, beta region, topology.kubernetes.io zone, region.  Filter checks
each against the node: the node's label under the same key, or -- for a beta PV label only -- under
its GA equivalent, must be in the PV's set.  A node with none of the four labels passes (single-zone
clusters).  A mismatch is UnschedulableAndUnresolvable "node(s) had no available volume zone".

Unbound claims, exactly as upstream: a claim without a volumeName whose class is
WaitForFirstConsumer is skipped (VolumeBinding handles it); with no class the pod fails with
"PersistentVolumeClaim had no pv name and storageClass name"; a missing class with the lister's
NotFound message; a class without volumeBindingMode (``""`` here) with "VolumeBindingMode not set
for StorageClass ..."; any other (Immediate) class with "PersistentVolume had no name".  All of
these, and missing PVCs/PVs, are UnschedulableAndUnresolvable PreFilter failures.  An unset
storageClassName resolves to the default class as in VolumeBinding (see planner.scheduler.plugins.volumebinding).
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.domain import LABEL_REGION, LABEL_REGION_BETA, LABEL_ZONE, LABEL_ZONE_BETA, Pod
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, NodeInfo, Status
from planner.scheduler.plugins.volumebinding.filtering import WAIT_FOR_FIRST_CONSUMER, claim_class

NAME = "VolumeZone"

ERR_REASON_CONFLICT = "node(s) had no available volume zone"
MSG_NO_CLAIM_NAME = "PersistentVolumeClaim had no name"
MSG_NO_PV_NO_CLASS = "PersistentVolumeClaim had no pv name and storageClass name"
MSG_MODE_NOT_SET = 'VolumeBindingMode not set for StorageClass "{}"'
MSG_NO_PV_NAME = "PersistentVolume had no name"
# The informer listers' NotFound errors (apierrors.NewNotFound(<group>.Resource(<singular>), name)).
MSG_PVC_NOT_FOUND = 'persistentvolumeclaim "{}" not found'
MSG_PV_NOT_FOUND = 'persistentvolume "{}" not found'
MSG_SC_NOT_FOUND = 'storageclass.storage.k8s.io "{}" not found'

TOPOLOGY_LABELS = (LABEL_ZONE_BETA, LABEL_REGION_BETA, LABEL_ZONE, LABEL_REGION)
LABEL_MULTI_ZONE_DELIMITER = "__"  # k8s.io/cloud-provider/volume LabelMultiZoneDelimiter


def translate_to_ga_label(label: str) -> str:
    if label == LABEL_REGION_BETA:
        return LABEL_REGION
    if label == LABEL_ZONE_BETA:
        return LABEL_ZONE
    return label


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """volumehelpers.LabelZonesToSet; None where upstream returns an error."""
    zones = set()
    for z in value.split(LABEL_MULTI_ZONE_DELIMITER):
        z = z.strip()
        if not z:
            return None
        zones.add(z)
    return frozenset(zones)


@dataclass(frozen=True, slots=True)
class PVTopology:
    pv_name: str
    key: str
    ga_key: str  # translateToGALabel(key), tried when the node lacks ``key``
    values: frozenset[str]


@dataclass(frozen=True, slots=True)
class VolumeZoneState:
    topologies: tuple[PVTopology, ...]


def _fail(msg: str) -> tuple[object, Status]:
    return None, Status(NAME, (msg,), UNRESOLVABLE)


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[object, Status | None]:
    topologies: list[PVTopology] = []
    for vol in pod.spec.volumes:
        if vol.ephemeral:
            continue  # only volume.PersistentVolumeClaim sources are read
        if not vol.claim_name:
            return _fail(MSG_NO_CLAIM_NAME)
        pvc = cluster.pvcs.get(f"{pod.namespace}/{vol.claim_name}")
        if pvc is None:
            return _fail(MSG_PVC_NOT_FOUND.format(vol.claim_name))
        pv_name = pvc.volume_name
        if not pv_name:
            sc_name = claim_class(pvc, cluster)
            if not sc_name:
                return _fail(MSG_NO_PV_NO_CLASS)
            sc = cluster.storage_classes.get(sc_name)
            if sc is None:
                return _fail(MSG_SC_NOT_FOUND.format(sc_name))
            if not sc.volume_binding_mode:
                return _fail(MSG_MODE_NOT_SET.format(sc_name))
            if sc.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER:
                continue  # unbound WaitForFirstConsumer claims are skipped
            return _fail(MSG_NO_PV_NAME)
        pv = cluster.pvs.get(pv_name)
        if pv is None:
            return _fail(MSG_PV_NOT_FOUND.format(pv_name))
        for key in TOPOLOGY_LABELS:
            value = pv.labels.get(key)
            if value is None:
                continue
            zones = label_zones_to_set(value)
            if zones is None:
                continue  # unparsable label: ignored, as upstream
            topologies.append(PVTopology(pv.name, key, translate_to_ga_label(key), zones))
    if not topologies:
        return SKIP, None
    return VolumeZoneState(tuple(topologies)), None


def filter(state: VolumeZoneState, pod: Pod, node_info: NodeInfo) -> Status | None:
    labels = node_info.node.labels
    # Rule: a node without any zone/region label (beta or GA) accepts every volume.
    if not any(k in labels for k in TOPOLOGY_LABELS):
        return None
    # Rule: every PV topology label must be matched by the node's label of the same key, or for a
    # beta PV label by the node's GA label; the node value must be in the PV's "a__b" zone set.
    for t in state.topologies:
        v = labels.get(t.key)
        if v is None:
            v = labels.get(t.ga_key)
        if v is None or v not in t.values:
            return Status(NAME, (ERR_REASON_CONFLICT,), UNRESOLVABLE)
    return None
