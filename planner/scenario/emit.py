"""The expansion's second half, once every section has been read without error: Pods (in listed
order, their creation order) with the claims and volumes of StatefulSet pods, the claims without
a pod, ReplicaSets and controller status, then the Namespaces.  Objects are returned in the order
Namespaces, StorageClasses, Nodes, ``objects``, ReplicaSets, Pods, claims, volumes; timestamps
follow the order they are made in."""

from __future__ import annotations

from planner.scenario.controller_objects import (
    PodsByRevision,
    controller_revisions,
    replicasets,
    revision_names,
    statefulset_status,
)
from planner.scenario.objects import namespaces
from planner.scenario.pod_objects import PodNamer, deployment_pod, statefulset_pod
from planner.scenario.pods import PodPlan
from planner.scenario.stamps import Stamper
from planner.scenario.volumes import ClaimWriter, MadeClaims, VolumeEntries, template_for_claim
from planner.scenario.workloads import Workloads


def emit(stamp: Stamper, node_objs: list[dict], sc_objs: list[dict], user_objs: list[dict], workloads: Workloads,
         volumes: VolumeEntries, writer: ClaimWriter, plans: list[PodPlan]) -> list[dict]:
    names = revision_names(workloads)
    namer = PodNamer()
    storage = MadeClaims()
    pods: list[dict] = []
    by_revision: PodsByRevision = {}
    for plan in plans:
        w = plan.workload
        if w.kind == "Deployment":
            pod = deployment_pod(stamp, namer, names, plan)
        else:
            pod = statefulset_pod(stamp, namer, names, plan, writer, storage)
        pods.append(pod)
        by_revision.setdefault((w.namespace, w.name, plan.revision), []).append(pod)

    # volumes without a pod of this scenario: retained or pre-provisioned claims
    for (ns, cname), (p, _entry) in volumes.items():
        if (ns, cname) in storage.claimed:
            continue
        owner, ct_or_none, ordinal = template_for_claim(workloads, ns, cname)
        storage.add(writer.claim(p, ns, cname, owner, ct_or_none, ordinal, None, None))

    # ReplicaSets and controller status
    rs_objs: list[dict] = []
    for w in workloads:
        if w.kind == "Deployment":
            rs_objs.extend(replicasets(stamp, w, names, by_revision))
        else:
            statefulset_status(w, names, by_revision)
            rs_objs.extend(controller_revisions(stamp, w, names))

    ns_objs = namespaces(stamp, user_objs, pods, storage.claims)
    return ns_objs + sc_objs + node_objs + user_objs + rs_objs + pods + storage.claims + storage.pvs
