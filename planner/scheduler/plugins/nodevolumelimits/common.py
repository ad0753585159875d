"""What NodeVolumeLimits' Filter and the CP-SAT problem share: which CSI volumes a pod uses and
how many of each driver a node may attach.

Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (``filterAttachableVolumes``,
``getCSIDriverInfo``, ``getCSIDriverInfoFromSC``, ``getVolumeLimits``) and utils.go
(``isCSIMigrationOn``); k8s.io/csi-translation-lib (``GetCSINameFromInTreeName``);
k8s.io/component-helpers/storage/ephemeral (``VolumeIsForPod``).

* A volume is counted by its unique name "<driver>/<volume handle>" against its driver's limit
  (upstream keys limits by ``GetCSIAttachLimitKey(driver)``, one key per driver).
* A claim bound to a PV with spec.csi counts as (spec.csi.driver, spec.csi.volumeHandle).  A claim
  not bound yet, or bound to a PV that is not in the input, counts against its StorageClass's
  provisioner with a handle unique to the claim (upstream: a random prefix + "<ns>/<claim>"); an
  in-tree provisioner (kubernetes.io/aws-ebs, gce-pd, azure-disk, cinder, portworx-volume) counts
  against its CSI driver when the node has a CSINode (isCSIMigrationOn), other in-tree
  provisioners not at all; a claim with no class is not counted.
* Not modelled: PVs with an in-tree source (awsElasticBlockStore, gcePersistentDisk, ...; upstream
  translates them to their CSI driver) and in-line in-tree volumes: planner reads neither, so they
  are not counted.
"""

from __future__ import annotations

from planner.domain import CSINode, Pod
from planner.scheduler.framework import ERROR, UNRESOLVABLE, ClusterState, Status
from planner.scheduler.plugins.volumebinding.filtering import claim_class

NAME = "NodeVolumeLimits"

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
MSG_PVC_LOOKUP = 'looking up PVC {}/{}: persistentvolumeclaim "{}" not found'
MSG_NOT_OWNER = "PVC {}/{} was not created for pod {}/{} (pod is not owner)"  # ephemeral.VolumeIsForPod

# upstream's random volume-ID prefix for claims counted by their StorageClass
UNBOUND_PREFIX = "unbound"

# csi-translation-lib: the in-tree plugins isCSIMigrationOn answers true for (with a CSINode), and
# GetCSINameFromInTreeName for each.
MIGRATED_IN_TREE = {
    "kubernetes.io/aws-ebs": "ebs.csi.aws.com",
    "kubernetes.io/gce-pd": "pd.csi.storage.gke.io",
    "kubernetes.io/azure-disk": "disk.csi.azure.com",
    "kubernetes.io/cinder": "cinder.csi.openstack.org",
    "kubernetes.io/portworx-volume": "pxd.portworx.com",
}
# IsMigratableIntreePluginByName: in-tree names csi-translation-lib knows (not counted unless migrated)
IN_TREE = frozenset(MIGRATED_IN_TREE) | {"kubernetes.io/azure-file", "kubernetes.io/vsphere-volume"}


def volume_limits(csi_node: CSINode | None) -> dict[str, int]:
    """getVolumeLimits: driver -> allocatable.count, for the CSINode's drivers that set it."""
    if csi_node is None:
        return {}
    return {d.name: d.allocatable_count for d in csi_node.drivers if d.allocatable_count is not None}


def csi_driver_of_class(ns: str, claim: str, cls: str, csi_node: CSINode | None, cluster: ClusterState) -> tuple[str, str]:
    """getCSIDriverInfoFromSC: (driver, handle unique to the claim) or ("", "")."""
    if not cls:
        return "", ""
    sc = cluster.storage_classes.get(cls)
    if sc is None:
        return "", ""
    handle = f"{UNBOUND_PREFIX}-{ns}/{claim}"
    if sc.provisioner in IN_TREE:
        driver = MIGRATED_IN_TREE.get(sc.provisioner)
        if driver is None or csi_node is None:
            return "", ""
        return driver, handle
    return sc.provisioner, handle


def attachable_volumes(pod: Pod, csi_node: CSINode | None, cluster: ClusterState, new_pod: bool, result: dict[str, str]) -> Status | None:
    """filterAttachableVolumes: adds "<driver>/<handle>" -> driver to ``result`` for each CSI volume
    of the pod; a missing claim of the pod to place is UnschedulableAndUnresolvable (of a pod
    already on the node: skipped), an ephemeral claim the pod does not own an Error."""
    for vol in pod.spec.volumes:
        pvc = cluster.pvcs.get(f"{pod.namespace}/{vol.claim_name}")
        if pvc is None:
            if new_pod:
                return Status(NAME, (MSG_PVC_LOOKUP.format(pod.namespace, vol.claim_name, vol.claim_name),), UNRESOLVABLE)
            continue
        if vol.ephemeral:
            owner = pvc.owner
            if owner is None or not owner.controller or owner.uid != pod.uid:
                return Status(NAME, (MSG_NOT_OWNER.format(pvc.namespace, pvc.name, pod.namespace, pod.name),), ERROR)
        # getCSIDriverInfo
        driver, handle = "", ""
        pv = cluster.pvs.get(pvc.volume_name) if pvc.volume_name else None
        if pv is None:
            driver, handle = csi_driver_of_class(pvc.namespace, pvc.name, claim_class(pvc, cluster), csi_node, cluster)
        elif pv.csi_driver:
            driver, handle = pv.csi_driver, pv.csi_volume_handle
        if not driver or not handle:
            continue
        result[f"{driver}/{handle}"] = driver
    return None
