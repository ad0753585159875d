"""``storageClasses``: StorageClass objects by shorthand (a name, or a mapping of the fields that
matter to placement), and the registry of every class, including those given in ``objects``,
with the default class claims without ``storageClassName`` get."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner.domain import LABEL_ZONE
from planner.scenario.fields import Fields, type_name
from planner.scenario.raw import d
from planner.scenario.stamps import Stamper

DEFAULT_PROVISIONER = "ebs.csi.aws.com"
SC_KEYS = ("name", "provisioner", "volumeBindingMode", "reclaimPolicy", "default", "allowVolumeExpansion", "allowedZones", "parameters")
BINDING_MODES = ("WaitForFirstConsumer", "Immediate")
RECLAIM_POLICIES = ("Delete", "Retain")
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"


@dataclass
class StorageClasses:
    by_name: dict[str, dict] = field(default_factory=dict)  # every class: shorthand and objects
    objs: list[dict] = field(default_factory=list)  # the shorthand's StorageClass objects
    default: str | None = None  # the DefaultStorageClass admission plugin's choice

    def register_user_class(self, obj: dict) -> None:
        """A StorageClass given in objects counts too (and may be the default)."""
        md = obj["metadata"]
        name = md["name"]
        ann = d(md.get("annotations"))
        self.by_name[name] = obj
        if str(ann.get(DEFAULT_CLASS_ANNOTATION, "")).lower() == "true":
            self.default = name


def read_storage_classes(doc: dict, f: Fields, zones: list[str], stamp: Stamper) -> StorageClasses:
    classes = StorageClasses()
    for i, sc in enumerate(f.list_of("storageClasses", doc.get("storageClasses")) or []):
        p = f"storageClasses[{i}]"
        if isinstance(sc, str):
            sc = {"name": sc}
        if not isinstance(sc, dict):
            f.invalid(p, sc, f"must be a name or a mapping, not {type_name(sc)}")
            continue
        f.keys(p, sc, SC_KEYS)
        name = f.string(f"{p}.name", sc.get("name"))
        if name is None:
            continue
        if name in classes.by_name:
            f.duplicate(f"{p}.name", name)
            continue
        provisioner = sc.get("provisioner", DEFAULT_PROVISIONER)
        if not isinstance(provisioner, str) or not provisioner:
            f.invalid(f"{p}.provisioner", provisioner, "must be a non-empty string")
            provisioner = DEFAULT_PROVISIONER
        mode = sc.get("volumeBindingMode", "WaitForFirstConsumer")
        if mode not in BINDING_MODES:
            f.unsupported(f"{p}.volumeBindingMode", mode, BINDING_MODES)
            mode = "WaitForFirstConsumer"
        reclaim = sc.get("reclaimPolicy", "Delete")
        if reclaim not in RECLAIM_POLICIES:
            f.unsupported(f"{p}.reclaimPolicy", reclaim, RECLAIM_POLICIES)
            reclaim = "Delete"
        is_default = f.boolean(f"{p}.default", sc.get("default"))
        md = stamp.meta("StorageClass", name)
        if is_default:
            md["annotations"] = {DEFAULT_CLASS_ANNOTATION: "true"}
            classes.default = name  # the last default listed wins (newest, as GetDefaultClass)
        obj: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": md, "provisioner": provisioner}
        params = f.mapping(f"{p}.parameters", sc.get("parameters"))
        if params:
            obj["parameters"] = {str(k): str(v) for k, v in params.items()}
        obj["reclaimPolicy"] = reclaim
        obj["volumeBindingMode"] = mode
        if "allowVolumeExpansion" in sc:
            obj["allowVolumeExpansion"] = f.boolean(f"{p}.allowVolumeExpansion", sc.get("allowVolumeExpansion"))
        allowed = sc.get("allowedZones")
        if allowed is not None:
            zl = f.list_of(f"{p}.allowedZones", allowed) or []
            for j, z in enumerate(zl):
                if z not in zones:
                    f.not_found(f"{p}.allowedZones[{j}]", z)
            obj["allowedTopologies"] = [{"matchLabelExpressions": [{"key": LABEL_ZONE, "values": [str(z) for z in zl]}]}]
        classes.by_name[name] = obj
        classes.objs.append(obj)
    return classes
