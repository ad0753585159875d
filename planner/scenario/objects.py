"""``objects``: ordinary manifests passed through, with what the API server adds (a namespace for
namespaced kinds, uid, creationTimestamp); the Nodes, StorageClasses and workloads among them are
registered with their sections.  Also the Namespace objects for namespaces used but not given."""

from __future__ import annotations

import copy

from planner.scenario.fields import Fields, type_name
from planner.scenario.nodes import Topology, register_user_node
from planner.scenario.stamps import Stamper
from planner.scenario.storage_classes import StorageClasses
from planner.scenario.workloads import Workload, Workloads, check_workload

MAX_OBJECTS = 100_000

CLUSTER_SCOPED = frozenset(
    {
        "Node", "Namespace", "PersistentVolume", "StorageClass", "PriorityClass", "RuntimeClass", "CSIDriver",
        "CSINode", "VolumeAttachment", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
        "IngressClass", "APIService", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
    }
)


def read_objects(doc: dict, f: Fields, stamp: Stamper, topo: Topology, classes: StorageClasses) -> tuple[list[dict], Workloads]:
    """The pass-through objects (copied, in order) and the workloads among them."""
    user_objs: list[dict] = []
    workloads = Workloads()
    objs = f.list_of("objects", doc.get("objects")) or []
    if len(objs) > MAX_OBJECTS:
        f.too_many("objects", len(objs), MAX_OBJECTS)
        return user_objs, workloads
    keys: set[tuple[str, str, str]] = set()
    for i, o in enumerate(objs):
        p = f"objects[{i}]"
        if not isinstance(o, dict):
            f.invalid(p, o, f"must be a mapping, not {type_name(o)}")
            continue
        kind = f.string(f"{p}.kind", o.get("kind"))
        f.string(f"{p}.apiVersion", o.get("apiVersion"))
        md = o.get("metadata")
        if not isinstance(md, dict):
            f.required(f"{p}.metadata.name")
            continue
        name = f.string(f"{p}.metadata.name", md.get("name"))
        if kind is None or name is None:
            continue
        obj = copy.deepcopy(o)
        md = obj["metadata"]
        ns = ""
        if kind not in CLUSTER_SCOPED:
            nsv = md.get("namespace") or "default"
            ns = str(nsv)
            md["namespace"] = ns
        key = (kind, ns, name)
        if key in keys or (kind == "Node" and name in topo.by_name) or (kind == "StorageClass" and name in classes.by_name):
            f.duplicate(f"{p}.metadata.name", name)
            continue
        keys.add(key)
        md.setdefault("uid", stamp.uid(kind, ns, name))
        md.setdefault("creationTimestamp", stamp.now())  # the clock ticks even when one is given
        user_objs.append(obj)
        if kind == "Node":
            register_user_node(topo, obj)
        if kind in ("Deployment", "StatefulSet"):
            tpl = obj.get("spec", {}).get("template") if isinstance(obj.get("spec"), dict) else None
            if not isinstance(tpl, dict):
                f.required(f"{p}.spec.template")
                continue
            check_workload(f, p, obj)
            workloads.add(Workload(kind, ns, name, obj))
        if kind == "StorageClass":
            classes.register_user_class(obj)
    return user_objs, workloads


def namespaces(stamp: Stamper, user_objs: list[dict], pods: list[dict], claims: list[dict]) -> list[dict]:
    """A Namespace for every namespace used (in order of first use) that objects does not define."""
    used: list[str] = []
    for o in user_objs + pods + claims:
        ns = o["metadata"].get("namespace")
        if ns and ns not in used:
            used.append(ns)
    given = {o["metadata"]["name"] for o in user_objs if o.get("kind") == "Namespace"}
    out = []
    for ns in used:
        if ns in given:
            continue
        md = stamp.meta("Namespace", ns)
        md["labels"] = {"kubernetes.io/metadata.name": ns}
        out.append({"apiVersion": "v1", "kind": "Namespace", "metadata": md, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
    return out
