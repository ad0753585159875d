"""VolumeRestrictions: a port of kube-scheduler's VolumeRestrictions PreFilter and Filter (v1.37).

Upstream: pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go --
``PreFilter`` (``readWriteOncePodPVCsForPod``, ``calPreFilterState``), ``Filter``
(``satisfyVolumeConflicts``, ``satisfyReadWriteOncePod``), ``needsRestrictionsCheck``,
``isVolumeConflict``, ``ErrReasonDiskConflict``, ``ErrReasonReadWriteOncePodConflict``; the
scheduler snapshot's ``StorageInfos().IsPVCUsedByPods`` (pkg/scheduler/backend/cache/snapshot.go:
the "ns/claim" of every persistentVolumeClaim volume of the pods in the cache, NodeInfo.PVCRefCounts).

Rules
-----
* ReadWriteOncePod: PreFilter lists the pod's persistentVolumeClaim volumes (generic ephemeral
  volumes are not looked at) whose claim's spec.accessModes contain ReadWriteOncePod, and counts
  those already used by a pod bound to some node (at most one pod can use such a claim).  A
  claim that does not exist fails PreFilter with UnschedulableAndUnresolvable and the lister's
  message ``persistentvolumeclaim "<name>" not found`` (this PreFilter runs before VolumeBinding's,
  so upstream reports a missing claim under this plugin).  When nothing is in use and no volume
  needs the disk-conflict check, PreFilter returns Skip; otherwise Filter rejects every node with
  Unschedulable and "node has pod using PersistentVolumeClaim with the same name and
  ReadWriteOncePod access mode" while the count is positive.
* Disk conflicts (``isVolumeConflict``: the same GCE PD, AWS EBS volume ID, RBD image or iSCSI IQN
  mounted by a pod on the node, "node(s) had no available disk"): they concern in-line volumes
  (pod.spec.volumes[].gcePersistentDisk, awsElasticBlockStore, rbd, iscsi), which planner does not
  read (planner.domain.PodVolume holds claims only), so ``needsRestrictionsCheck`` is always false
  here and this part of Filter never rejects.  Not modelled.

What the verdict depends on: the pod's claims and the pods bound anywhere in the cluster, not the
node; it changes only when a pod using one of the claims is bound or removed.  The CP-SAT problem
takes it as a static exclusion (planner.engines.problem, through
plugins/volumebinding/problem.py VOLUME_PLUGINS).  New pods sharing one unused ReadWriteOncePod
claim (only one of them can run) are not encoded: the witness replay runs this Filter.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.domain import Pod
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, NodeInfo, Status

NAME = "VolumeRestrictions"

ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"  # in-line volumes: never produced (see above)
ERR_REASON_RWOP_CONFLICT = "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
MSG_PVC_NOT_FOUND = 'persistentvolumeclaim "{}" not found'  # the PVC lister's NotFound error

READ_WRITE_ONCE_POD = "ReadWriteOncePod"


@dataclass(frozen=True, slots=True)
class VolumeRestrictionsState:
    """preFilterState: the pod's ReadWriteOncePod claim names and how many of them are in use."""

    rwop_claims: frozenset[str]
    conflicting: int
    users: tuple[str, ...] = ()  # "claim used by pod" for explanations (no upstream counterpart)


def rwop_claims(pod: Pod, cluster: ClusterState) -> tuple[frozenset[str], Status | None]:
    """readWriteOncePodPVCsForPod: the names of the pod's ReadWriteOncePod claims, or the
    NotFound status of the first persistentVolumeClaim volume whose claim does not exist."""
    names: set[str] = set()
    for vol in pod.spec.volumes:
        if vol.ephemeral:
            continue  # only volume.PersistentVolumeClaim is looked at
        pvc = cluster.pvcs.get(f"{pod.namespace}/{vol.claim_name}")
        if pvc is None:
            return frozenset(), Status(NAME, (MSG_PVC_NOT_FOUND.format(vol.claim_name),), UNRESOLVABLE)
        if READ_WRITE_ONCE_POD in pvc.access_modes:
            names.add(pvc.name)
    return frozenset(names), None


def claim_users(namespace: str, claims: frozenset[str], cluster: ClusterState) -> dict[str, list[str]]:
    """IsPVCUsedByPods for each claim: the keys of the pods in the cluster's node infos (bound
    pods) that have a persistentVolumeClaim volume of it."""
    users: dict[str, list[str]] = {}
    if not claims:
        return users
    for ni in cluster.node_infos:
        for p in ni.by_namespace.get(namespace, ()):
            for vol in p.spec.volumes:
                if not vol.ephemeral and vol.claim_name in claims:
                    users.setdefault(vol.claim_name, []).append(p.key)
    return users


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[object, Status | None]:
    if not pod.spec.volumes:
        return SKIP, None
    claims, status = rwop_claims(pod, cluster)
    if status is not None:
        return None, status
    users = claim_users(pod.namespace, claims, cluster)
    # calPreFilterState: one per claim in use (there can be at most one pod using it)
    conflicting = len(users)
    if conflicting == 0:
        return SKIP, None  # !needsCheck (planner reads no in-line volumes) && no conflict
    described = tuple(f"PersistentVolumeClaim {pod.namespace}/{c} used by pod {', '.join(sorted(ps))}" for c, ps in sorted(users.items()))
    return VolumeRestrictionsState(claims, conflicting, described), None


def filter(state: VolumeRestrictionsState, pod: Pod, node_info: NodeInfo) -> Status | None:
    # satisfyVolumeConflicts: always true (no in-line volumes read); satisfyReadWriteOncePod:
    if state.conflicting > 0:
        return Status(NAME, (ERR_REASON_RWOP_CONFLICT,))
    return None
