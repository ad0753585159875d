"""What the workload controllers write: each revision's name (a Deployment's ReplicaSet
``<deployment>-<pod-template-hash>``, a StatefulSet's ControllerRevision ``<sts>-<hash>``), the
ReplicaSets with their annotations and counts, and the Deployments' and StatefulSets' status
counted from the scenario's pods (kept when the manifest gives one)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from planner.domain import LABEL_POD_TEMPLATE_HASH
from planner.revision import controller_revision_name, pod_template_hash
from planner.scenario.raw import d
from planner.scenario.stamps import Stamper
from planner.scenario.workloads import Workload, Workloads

PodsByRevision = dict[tuple[str, str, str], list[dict]]  # (ns, workload, revision) -> its pods, in order


@dataclass
class RevisionNames:
    replicasets: dict[tuple[str, str, str], tuple[str, str, dict]] = field(default_factory=dict)  # (ns, deployment, rev) -> (rs name, hash, template)
    controller_revisions: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (ns, sts, rev) -> ControllerRevision name


def revision_names(workloads: Workloads) -> RevisionNames:
    """Every revision of every workload, oldest first."""
    out = RevisionNames()
    for w in workloads:
        revs = list(w.revisions) + [("current", w.obj["spec"]["template"])]
        if w.kind == "Deployment":
            for rname, tpl in revs:
                h = pod_template_hash(tpl)
                out.replicasets[(w.namespace, w.name, rname)] = (f"{w.name}-{h}", h, tpl)
        else:
            for rname, tpl in revs:
                out.controller_revisions[(w.namespace, w.name, rname)] = controller_revision_name(w.name, tpl)
    return out


def int_or_percent(v: Any, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and v.endswith("%"):
        try:
            pct = int(v[:-1])
        except ValueError:
            return 0
        num = pct * total
        return -(-num // 100) if round_up else num // 100
    if isinstance(v, str) and v.isascii() and v.isdigit() and len(v) <= 19:
        return int(v)
    return 0


def replicasets(stamp: Stamper, w: Workload, names: RevisionNames, pods: PodsByRevision) -> list[dict]:
    """A Deployment's ReplicaSets, one per revision (revision annotations 1, 2, ...); sets the
    Deployment's generation, revision annotation and status unless given."""
    spec = w.obj["spec"]
    replicas = spec.get("replicas", 1) if isinstance(spec.get("replicas", 1), int) else 1
    strategy = d(spec.get("strategy"))
    surge = 0
    if strategy.get("type", "RollingUpdate") == "RollingUpdate":
        ru = d(strategy.get("rollingUpdate"))
        surge = int_or_percent(ru.get("maxSurge", "25%"), replicas, True)
    revs = [n for n, _ in w.revisions] + ["current"]
    out = []
    all_pods = 0
    ready = 0
    updated = 0
    for number, rname in enumerate(revs, start=1):
        rs_name, h, tpl = names.replicasets[(w.namespace, w.name, rname)]
        mine = [p for p in pods.get((w.namespace, w.name, rname), []) if "deletionTimestamp" not in p["metadata"]]
        running = sum(1 for p in mine if pod_ready(p))
        all_pods += len(mine)
        ready += running
        if rname == "current":
            updated = len(mine)
        rtpl = copy.deepcopy(tpl)
        rmd = rtpl.get("metadata")
        if not isinstance(rmd, dict):  # absent or null (other values are reported when read)
            rmd = rtpl["metadata"] = {}
        rlabels = dict(d(rmd.get("labels")))
        rlabels[LABEL_POD_TEMPLATE_HASH] = h
        rmd["labels"] = rlabels
        sel = copy.deepcopy(d(spec.get("selector")))
        ml = dict(d(sel.get("matchLabels")))
        ml[LABEL_POD_TEMPLATE_HASH] = h
        sel["matchLabels"] = ml
        md = stamp.meta("ReplicaSet", rs_name, w.namespace)
        md["labels"] = rlabels
        md["annotations"] = {
            "deployment.kubernetes.io/desired-replicas": str(replicas),
            "deployment.kubernetes.io/max-replicas": str(replicas + surge),
            "deployment.kubernetes.io/revision": str(number),
        }
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": w.name, "uid": w.obj["metadata"]["uid"],
                                  "controller": True, "blockOwnerDeletion": True}]
        md["uid"] = stamp.uid("ReplicaSet", w.namespace, rs_name)
        rs_spec: dict[str, Any] = {"replicas": len(mine), "selector": sel, "template": rtpl}
        if "minReadySeconds" in spec:
            rs_spec["minReadySeconds"] = spec["minReadySeconds"]
        out.append({
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": md, "spec": rs_spec,
            "status": {"replicas": len(mine), "fullyLabeledReplicas": len(mine), "readyReplicas": running,
                       "availableReplicas": running, "observedGeneration": 1},
        })
    dmd = w.obj["metadata"]
    dmd.setdefault("generation", len(revs))  # one spec change per later revision
    ann = d(dmd.get("annotations"))
    ann = dict(ann)
    ann.setdefault("deployment.kubernetes.io/revision", str(len(revs)))
    dmd["annotations"] = ann
    w.obj.setdefault("status", {
        "observedGeneration": dmd["generation"], "replicas": all_pods, "updatedReplicas": updated,
        "readyReplicas": ready, "availableReplicas": ready, "unavailableReplicas": max(0, replicas - ready),
    })
    return out


def pod_ready(pod: dict) -> bool:
    """Running with its Ready condition True (pkg/api/v1/pod/util.go IsPodReady): what the
    controllers count in readyReplicas (a crash-looping replica, pods[].status, is not)."""
    return pod["status"]["phase"] == "Running" and any(
        isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True" for c in pod["status"].get("conditions") or ()
    )


def controller_revisions(stamp: Stamper, w: Workload, names: RevisionNames) -> list[dict]:
    """A StatefulSet's ControllerRevisions, one per revision (revision 1, 2, ...), when it lists
    older revisions: data holds the revision's template as stateful_set_utils.go getPatch writes
    it ({"spec": {"template": ..., "$patch": "replace"}}), which the controller puts back into the
    set for the pods it creates below the partition (history.ApplyRevision)."""
    if not w.revisions:
        return []
    out = []
    for number, (rname, tpl) in enumerate([*w.revisions, ("current", w.obj["spec"]["template"])], start=1):
        name = names.controller_revisions[(w.namespace, w.name, rname)]
        md = stamp.meta("ControllerRevision", name, w.namespace)
        md["labels"] = dict(d(d(w.obj["spec"].get("selector")).get("matchLabels")))
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": w.name, "uid": w.obj["metadata"]["uid"],
                                  "controller": True, "blockOwnerDeletion": True}]
        md["uid"] = stamp.uid("ControllerRevision", w.namespace, name)
        data = {"spec": {"template": {**copy.deepcopy(tpl), "$patch": "replace"}}}
        out.append({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": md, "data": data, "revision": number})
    return out


def statefulset_status(w: Workload, names: RevisionNames, pods: PodsByRevision) -> None:
    """A StatefulSet's generation and status unless given: currentRevision is the oldest revision
    that still has pods, updateRevision the workload's own."""
    sts_rev = names.controller_revisions
    revs = [n for n, _ in w.revisions] + ["current"]
    update = sts_rev[(w.namespace, w.name, "current")]
    current = update
    for rname in revs:  # the oldest revision that still has pods
        if pods.get((w.namespace, w.name, rname)):
            current = sts_rev[(w.namespace, w.name, rname)]
            break
    live = [p for r in revs for p in pods.get((w.namespace, w.name, r), [])]
    ready = sum(1 for p in live if pod_ready(p))
    updated = len(pods.get((w.namespace, w.name, "current"), []))
    w.obj["metadata"].setdefault("generation", len(revs))
    w.obj.setdefault("status", {
        "observedGeneration": w.obj["metadata"]["generation"], "replicas": len(live), "readyReplicas": ready,
        "availableReplicas": ready, "currentReplicas": len(live) - updated if current != update else len(live),
        "updatedReplicas": updated, "currentRevision": current, "updateRevision": update, "collisionCount": 0,
    })
