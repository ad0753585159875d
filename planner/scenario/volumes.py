"""``volumes``: claims by shorthand, and every PersistentVolumeClaim with its PersistentVolume:
the claims of StatefulSet pods (bound in the node's zone when the pod is placed) and those
without a pod (retained after a scale-down, or pre-provisioned)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner.domain import LABEL_ZONE
from planner.revision import fnv32a
from planner.scenario.fields import Fields, quantity_str, type_name
from planner.scenario.nodes import Topology
from planner.scenario.raw import claim_templates, d, lst
from planner.scenario.stamps import Stamper
from planner.scenario.storage_classes import StorageClasses
from planner.scenario.workloads import Workload, Workloads

MAX_VOLUMES = 200_000
VOLUME_KEYS = ("claim", "namespace", "zone", "node", "size", "storageClass", "accessModes", "phase", "volumeName")

VolumeEntries = dict[tuple[str, str], tuple[str, dict]]  # (ns, claim) -> (field path, entry), in listed order


def read_volumes(doc: dict, f: Fields, topo: Topology, classes: StorageClasses) -> VolumeEntries:
    entries: VolumeEntries = {}
    vols = f.list_of("volumes", doc.get("volumes")) or []
    if len(vols) > MAX_VOLUMES:
        f.too_many("volumes", len(vols), MAX_VOLUMES)
        return entries
    for i, v in enumerate(vols):
        p = f"volumes[{i}]"
        if not isinstance(v, dict):
            f.invalid(p, v, f"must be a mapping, not {type_name(v)}")
            continue
        f.keys(p, v, VOLUME_KEYS)
        claim = f.string(f"{p}.claim", v.get("claim"))
        ns = f.string(f"{p}.namespace", v.get("namespace")) if v.get("namespace") else "default"
        if claim is None or ns is None:
            continue
        if (ns, claim) in entries:
            f.duplicate(f"{p}.claim", claim)
            continue
        phase = v.get("phase", "Bound")
        if phase not in ("Bound", "Pending"):
            f.unsupported(f"{p}.phase", phase, ("Bound", "Pending"))
            continue
        zone, node = v.get("zone"), v.get("node")
        if node is not None:
            rec = topo.by_name.get(node) if isinstance(node, str) else None
            if rec is None:
                f.not_found(f"{p}.node", node)
                continue
            if zone is not None and zone != rec.zone:
                f.invalid(f"{p}.zone", zone, f"node {node} is in zone {rec.zone}")
                continue
        elif zone is not None:
            if zone not in topo.zones:
                f.not_found(f"{p}.zone", zone)
                continue
        if v.get("size") is not None:
            f.quantity(f"{p}.size", v.get("size"))
        for key in ("storageClass", "volumeName"):
            if v.get(key) is not None and not isinstance(v.get(key), str):
                f.invalid(f"{p}.{key}", v.get(key), f"must be a string, not {type_name(v.get(key))}")
        sc = v.get("storageClass")
        if isinstance(sc, str) and sc not in classes.by_name:
            f.not_found(f"{p}.storageClass", sc)
        f.list_of(f"{p}.accessModes", v.get("accessModes"))
        entries[(ns, claim)] = (p, v)
    return entries


@dataclass
class MadeClaims:
    """The claims and volumes made so far, and which (namespace, claim) a pod already made."""

    claims: list[dict] = field(default_factory=list)
    pvs: list[dict] = field(default_factory=list)
    claimed: set[tuple[str, str]] = field(default_factory=set)

    def add(self, made: tuple[dict, dict | None]) -> None:
        claim, pv = made
        self.claims.append(claim)
        if pv is not None:
            self.pvs.append(pv)


def entry_zone(entry: dict, topo: Topology) -> Any:
    """The zone a volumes entry puts its volume in (its zone, else its node's), or None."""
    vzone = entry.get("zone")
    if vzone is None and entry.get("node") in topo.by_name:
        vzone = topo.by_name[entry["node"]].zone
    return vzone


def template_for_claim(workloads: Workloads, ns: str, cname: str) -> tuple[Workload | None, dict | None, int | None]:
    """The StatefulSet volumeClaimTemplate a claim name <template>-<sts>-<ordinal> comes from."""
    for w in workloads:
        if w.kind != "StatefulSet" or w.namespace != ns:
            continue
        for ct in claim_templates(w.obj):
            prefix = f"{ct['metadata']['name']}-{w.name}-"
            rest = cname[len(prefix):]
            if cname.startswith(prefix) and rest.isascii() and rest.isdigit() and len(rest) <= 10:  # an ordinal is an int32
                return w, ct, int(rest)
    return None, None, None


class ClaimWriter:
    """Makes PersistentVolumeClaims and their PersistentVolumes, as the StatefulSet controller,
    the DefaultStorageClass admission plugin and WaitForFirstConsumer provisioning leave them."""

    def __init__(self, f: Fields, stamp: Stamper, entries: VolumeEntries, classes: StorageClasses, topo: Topology) -> None:
        self.f = f
        self.stamp = stamp
        self.entries = entries
        self.classes = classes
        self.topo = topo

    def claim(
        self,
        path: str,
        ns: str,
        cname: str,
        w: Workload | None,
        ct: dict | None,
        ordinal: int | None,
        pod_node: str | None,
        pod: dict | None,
    ) -> tuple[dict, dict | None]:
        """A PersistentVolumeClaim (and its PersistentVolume when bound)."""
        entry = self.entries.get((ns, cname), (path, {}))[1]
        vpath = self.entries.get((ns, cname), (path, {}))[0]
        cspec = d(ct.get("spec")) if ct else {}
        # StatefulSet getPersistentVolumeClaims: template labels plus the selector's matchLabels
        labels: dict[str, str] = {}
        if ct is not None:
            tl = ct["metadata"].get("labels")
            if isinstance(tl, dict):
                labels.update(tl)
        if w is not None and ct is not None:
            sel = w.obj["spec"].get("selector")
            if isinstance(sel, dict) and isinstance(sel.get("matchLabels"), dict):
                labels.update(sel["matchLabels"])
        size = entry.get("size")
        if size is None:
            res = d(cspec.get("resources"))
            req = d(res.get("requests"))
            size = req.get("storage")
        if size is None:
            self.f.required(f"{vpath}.size", f"claim {cname} has no volumeClaimTemplate storage request to copy")
            size = "1Gi"
        size = quantity_str(size)
        access = lst(entry.get("accessModes")) or lst(cspec.get("accessModes")) or ["ReadWriteOnce"]
        sc_name = entry.get("storageClass") or cspec.get("storageClassName") or self.classes.default
        sc = self.classes.by_name.get(sc_name) if isinstance(sc_name, str) and sc_name else None
        provisioner = str(sc.get("provisioner", "")) if sc else ""
        node = entry.get("node") or pod_node
        zone = entry.get("zone")
        if zone is None and node is not None:
            zone = self.topo.by_name[node].zone
        if entry:
            bound = entry.get("phase", "Bound") == "Bound"
            if bound and zone is None and self.topo.zones:
                self.f.required(f"{vpath}.zone", f"bound claim {cname} needs a zone or a node")
        else:
            bound = pod_node is not None  # WaitForFirstConsumer: provisioned once the pod has a node
        md = self.stamp.meta("PersistentVolumeClaim", cname, ns)
        if labels:
            md["labels"] = dict(labels)
        ann: dict[str, str] = {}
        pv_name = str(entry.get("volumeName") or (f"pv-{cname}" if ns == "default" else f"pv-{ns}-{cname}"))
        if bound:
            ann["pv.kubernetes.io/bind-completed"] = "yes"
            ann["pv.kubernetes.io/bound-by-controller"] = "yes"
            if provisioner:
                ann["volume.beta.kubernetes.io/storage-provisioner"] = provisioner
                ann["volume.kubernetes.io/storage-provisioner"] = provisioner
            if node is not None:
                ann["volume.kubernetes.io/selected-node"] = node
        if ann:
            md["annotations"] = ann
        md["finalizers"] = ["kubernetes.io/pvc-protection"]
        owners = claim_owners(w, ordinal, pod)
        if owners:
            md["ownerReferences"] = owners
        spec: dict[str, Any] = {"accessModes": list(access), "resources": {"requests": {"storage": size}}}
        if sc_name:
            spec["storageClassName"] = sc_name
        spec["volumeMode"] = cspec.get("volumeMode", "Filesystem")
        claim: dict[str, Any] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": md, "spec": spec}
        if not bound:
            claim["status"] = {"phase": "Pending"}
            return claim, None
        spec["volumeName"] = pv_name
        claim["status"] = {"phase": "Bound", "accessModes": list(access), "capacity": {"storage": size}}
        return claim, self._volume(pv_name, claim, provisioner, zone, sc, sc_name)

    def _volume(self, pv_name: str, claim: dict, provisioner: str, zone: Any, sc: dict | None, sc_name: Any) -> dict:
        """The PersistentVolume a bound claim is bound to, in its zone."""
        md, spec = claim["metadata"], claim["spec"]
        access = spec["accessModes"]
        size = spec["resources"]["requests"]["storage"]
        pmd = self.stamp.meta("PersistentVolume", pv_name)
        if provisioner:
            pmd["annotations"] = {"pv.kubernetes.io/provisioned-by": provisioner}
        pmd["finalizers"] = ["kubernetes.io/pv-protection"]
        pspec: dict[str, Any] = {
            "accessModes": list(access),
            "capacity": {"storage": size},
            "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": md["name"], "namespace": md["namespace"], "uid": md["uid"]},
        }
        if provisioner:
            handle = f"vol-{fnv32a(pv_name.encode()):08x}{fnv32a(self.stamp.name.encode()):08x}"[:21]
            pspec["csi"] = {"driver": provisioner, "fsType": "ext4", "volumeHandle": handle}
        if zone is not None:
            pspec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": LABEL_ZONE, "operator": "In", "values": [zone]}]}]}}
        pspec["persistentVolumeReclaimPolicy"] = str(sc.get("reclaimPolicy", "Delete")) if sc else "Retain"
        if sc_name:
            pspec["storageClassName"] = sc_name
        pspec["volumeMode"] = spec["volumeMode"]
        return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": pmd, "spec": pspec, "status": {"phase": "Bound"}}


def claim_owners(w: Workload | None, ordinal: int | None, pod: dict | None) -> list[dict]:
    """StatefulSet PVC retention (stateful_set_utils.go updateClaimOwnerRefForSetAndPod)."""
    if w is None:
        return []
    policy = w.obj["spec"].get("persistentVolumeClaimRetentionPolicy")
    policy = policy if isinstance(policy, dict) else {}
    owners = []
    if policy.get("whenDeleted") == "Delete":
        owners.append({"apiVersion": "apps/v1", "kind": "StatefulSet", "name": w.name, "uid": w.obj["metadata"]["uid"], "blockOwnerDeletion": True, "controller": False})
    replicas = w.obj["spec"].get("replicas", 1)
    if policy.get("whenScaled") == "Delete" and pod is not None and ordinal is not None and isinstance(replicas, int) and ordinal >= replicas:
        md = pod["metadata"]
        owners.append({"apiVersion": "v1", "kind": "Pod", "name": md["name"], "uid": md["uid"], "blockOwnerDeletion": True, "controller": False})
    return owners
