"""Pod objects from ``PodPlan``s: the revision's template plus what the controllers and admission
add.  A Deployment's pod is owned by its revision's ReplicaSet and named by generateName; a
StatefulSet's is ``<sts>-<ordinal>`` with hostname, subdomain and its claims (made right after
it).  Every pod gets the DefaultTolerationSeconds tolerations, nodeName when placed, and a status
with phase, conditions and qosClass."""

from __future__ import annotations

import copy
from typing import Any

from planner.domain import (
    LABEL_CONTROLLER_REVISION_HASH,
    LABEL_POD_INDEX,
    LABEL_POD_TEMPLATE_HASH,
    LABEL_STATEFULSET_POD_NAME,
)
from planner.revision import SAFE_ALPHANUMS, fnv32a
from planner.scenario.controller_objects import RevisionNames
from planner.scenario.pods import PodPlan
from planner.scenario.raw import claim_templates, d, lst
from planner.scenario.stamps import Stamper
from planner.scenario.volumes import ClaimWriter, MadeClaims

# DefaultTolerationSeconds admission: every pod tolerates these for 300 s unless it says otherwise.
DEFAULT_TOLERATIONS = (
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
)


class PodNamer:
    """generateName for ReplicaSet pods: a 5-character suffix derived from the ReplicaSet name and
    a counter, skipping names already taken in the namespace."""

    def __init__(self) -> None:
        self.counters: dict[str, int] = {}
        self.used: set[tuple[str, str]] = set()

    def take(self, ns: str, name: str) -> None:
        """A name given outright (a StatefulSet pod's)."""
        self.used.add((ns, name))

    def generate(self, rs_name: str, ns: str) -> str:
        while True:
            i = self.counters.get(rs_name, 0)
            self.counters[rs_name] = i + 1
            h = fnv32a(f"{rs_name}/{i}".encode())
            suffix = ""
            for _ in range(5):
                suffix += SAFE_ALPHANUMS[h % len(SAFE_ALPHANUMS)]
                h //= len(SAFE_ALPHANUMS)
            name = f"{rs_name}-{suffix}"
            if (ns, name) not in self.used:
                self.used.add((ns, name))
                return name


def deployment_pod(stamp: Stamper, namer: PodNamer, names: RevisionNames, plan: PodPlan) -> dict:
    """A pod of the revision's ReplicaSet, named by generateName."""
    w = plan.workload
    rs_name, h, tpl = names.replicasets[(w.namespace, w.name, plan.revision)]
    name = namer.generate(rs_name, w.namespace)
    return make_pod(stamp, plan, name, tpl, {LABEL_POD_TEMPLATE_HASH: h},
                    {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name,
                     "uid": stamp.uid("ReplicaSet", w.namespace, rs_name), "controller": True, "blockOwnerDeletion": True},
                    generate_name=f"{rs_name}-")


def statefulset_pod(stamp: Stamper, namer: PodNamer, names: RevisionNames, plan: PodPlan, writer: ClaimWriter, storage: MadeClaims) -> dict:
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
    rest = [v for v in lst(spec.get("volumes")) if isinstance(v, dict) and v.get("name") not in vol_names]
    if vols or rest:
        spec["volumes"] = vols + rest
    return pod


def make_pod(stamp: Stamper, plan: PodPlan, name: str, template: dict, extra_labels: dict[str, str], owner: dict,
             generate_name: str | None = None) -> dict:
    w = plan.workload
    tmd = d(template.get("metadata"))
    labels = dict(tmd.get("labels") or {}) if isinstance(tmd.get("labels"), dict) else {}
    labels.update(extra_labels)
    md = stamp.meta("Pod", name, w.namespace)
    if generate_name:
        md = {"name": name, "generateName": generate_name, **{k: v for k, v in md.items() if k != "name"}}
    md["labels"] = labels
    if isinstance(tmd.get("annotations"), dict) and tmd["annotations"]:
        md["annotations"] = copy.deepcopy(tmd["annotations"])
    md["ownerReferences"] = [owner]
    if plan.terminating:
        md["deletionTimestamp"] = stamp.now()
        md["deletionGracePeriodSeconds"] = 30
    spec = copy.deepcopy(d(template.get("spec")))
    tols = lst(spec.get("tolerations"))
    for dt in DEFAULT_TOLERATIONS:
        if not any(isinstance(t, dict) and t.get("key") == dt["key"] and t.get("effect") in (None, "", "NoExecute") for t in tols):
            tols.append(dict(dt))
    spec["tolerations"] = tols
    if plan.node:
        spec["nodeName"] = plan.node
    status: dict[str, Any] = {"phase": plan.phase}
    ts = md["creationTimestamp"]
    if plan.node is None:
        status["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastProbeTime": None, "lastTransitionTime": ts}]
    elif plan.phase == "Running":
        status["conditions"] = [
            {"type": c, "status": "True", "lastProbeTime": None, "lastTransitionTime": ts}
            for c in ("Initialized", "Ready", "ContainersReady", "PodScheduled")
        ]
        status["startTime"] = ts
    else:
        status["conditions"] = [{"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": ts}]
    if plan.status:
        patch_status(status, plan.status, ts)
    status["qosClass"] = qos_class(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}


def patch_status(status: dict[str, Any], patch: dict, ts: str) -> None:
    """pods[].status on the status made above: conditions merged by type (PodStatus.conditions'
    patchMergeKey), a condition given without lastTransitionTime taking the pod's creation time;
    every other field replaced."""
    for k, v in patch.items():
        if k != "conditions":
            status[k] = copy.deepcopy(v)
            continue
        conds = list(status.get("conditions") or [])
        for c in v:
            new = {"lastProbeTime": None, "lastTransitionTime": ts, **copy.deepcopy(c)}
            at = next((i for i, old in enumerate(conds) if old.get("type") == c["type"]), None)
            if at is None:
                conds.append(new)
            else:
                conds[at] = {**conds[at], **new}
        status["conditions"] = conds


def qos_class(spec: dict) -> str:
    """v1qos.GetPodQOS, comparing quantities as written."""
    containers = [c for key in ("initContainers", "containers") for c in lst(spec.get(key)) if isinstance(c, dict)]
    any_set = False
    guaranteed = bool(containers)
    for c in containers:
        res = d(c.get("resources"))
        req = d(res.get("requests"))
        lim = d(res.get("limits"))
        if any(k in req or k in lim for k in ("cpu", "memory")):
            any_set = True
        for k in ("cpu", "memory"):
            if k not in lim or (k in req and str(req[k]) != str(lim[k])):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"
