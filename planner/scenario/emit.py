"""The expansion's second half, once every section has been read without error: Pods (in listed
order, their creation order) with the claims and volumes of StatefulSet pods, the claims without
a pod, ReplicaSets and controller status, then the Namespaces.  Objects are returned in the order
Namespaces, StorageClasses, Nodes, ``objects``, ReplicaSets, Pods, claims, volumes; timestamps
follow the order they are made in."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.domain import (
    LABEL_CONTROLLER_REVISION_HASH,
    LABEL_POD_INDEX,
    LABEL_POD_TEMPLATE_HASH,
    LABEL_STATEFULSET_POD_NAME,
)
from planner.scenario.controller_objects import (
    PodsByRevision,
    RevisionNames,
    replicasets,
    revision_names,
    statefulset_status,
)
from planner.scenario.objects import namespaces
from planner.scenario.pod_objects import PodNamer, make_pod
from planner.scenario.pods import PodPlan
from planner.scenario.raw import claim_templates
from planner.scenario.stamps import Stamper
from planner.scenario.volumes import ClaimWriter, VolumeEntries, template_for_claim
from planner.scenario.workloads import Workloads


@dataclass
class _Storage:
    """The claims and volumes made so far, and which (namespace, claim) a pod already made."""

    claims: list[dict] = field(default_factory=list)
    pvs: list[dict] = field(default_factory=list)
    claimed: set[tuple[str, str]] = field(default_factory=set)

    def add(self, made: tuple[dict, dict | None]) -> None:
        claim, pv = made
        self.claims.append(claim)
        if pv is not None:
            self.pvs.append(pv)


def emit(stamp: Stamper, node_objs: list[dict], sc_objs: list[dict], user_objs: list[dict], workloads: Workloads,
         volumes: VolumeEntries, writer: ClaimWriter, plans: list[PodPlan]) -> list[dict]:
    names = revision_names(workloads)
    namer = PodNamer()
    storage = _Storage()
    pods: list[dict] = []
    by_revision: PodsByRevision = {}
    for plan in plans:
        w = plan.workload
        if w.kind == "Deployment":
            pod = _deployment_pod(stamp, namer, names, plan)
        else:
            pod = _statefulset_pod(stamp, namer, names, plan, writer, storage)
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

    ns_objs = namespaces(stamp, user_objs, pods, storage.claims)
    return ns_objs + sc_objs + node_objs + user_objs + rs_objs + pods + storage.claims + storage.pvs


def _deployment_pod(stamp: Stamper, namer: PodNamer, names: RevisionNames, plan: PodPlan) -> dict:
    """A pod of the revision's ReplicaSet, named by generateName."""
    w = plan.workload
    rs_name, h, tpl = names.replicasets[(w.namespace, w.name, plan.revision)]
    name = namer.generate(rs_name, w.namespace)
    return make_pod(stamp, plan, name, tpl, {LABEL_POD_TEMPLATE_HASH: h},
                    {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name,
                     "uid": stamp.uid("ReplicaSet", w.namespace, rs_name), "controller": True, "blockOwnerDeletion": True},
                    generate_name=f"{rs_name}-")


def _statefulset_pod(stamp: Stamper, namer: PodNamer, names: RevisionNames, plan: PodPlan, writer: ClaimWriter, storage: _Storage) -> dict:
    """``<sts>-<ordinal>`` with the controller's labels, hostname and subdomain, and its claims
    (made here, right after the pod)."""
    w = plan.workload
    assert plan.ordinal is not None
    tpl = w.template_of(plan.revision)
    name = f"{w.name}-{plan.ordinal}"
    namer.take(w.namespace, name)
    rev_name = names.controller_revisions[(w.namespace, w.name, plan.revision)]
    extra = {
        LABEL_POD_INDEX: str(plan.ordinal),
        LABEL_CONTROLLER_REVISION_HASH: rev_name,
        LABEL_STATEFULSET_POD_NAME: name,
    }
    pod = make_pod(stamp, plan, name, tpl, extra,
                   {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": w.name, "uid": w.obj["metadata"]["uid"],
                    "controller": True, "blockOwnerDeletion": True})
    spec = pod["spec"]
    spec["hostname"] = name
    svc = w.obj["spec"].get("serviceName")
    if isinstance(svc, str) and svc:
        spec["subdomain"] = svc
    vols = []
    for ct in claim_templates(w.obj):
        cname = f"{ct['metadata']['name']}-{w.name}-{plan.ordinal}"
        vols.append({"name": ct["metadata"]["name"], "persistentVolumeClaim": {"claimName": cname}})
        storage.claimed.add((w.namespace, cname))
        storage.add(writer.claim(plan.path, w.namespace, cname, w, ct, plan.ordinal, plan.node, pod))
    vol_names = {v["name"] for v in vols}
    rest = [v for v in spec.get("volumes", []) if isinstance(v, dict) and v.get("name") not in vol_names]
    if vols or rest:
        spec["volumes"] = vols + rest
    return pod
