"""``region``, ``zones`` and ``nodePools``: the cluster's topology and its Node objects (pool nodes
are named ``<pool>-<zone>-<i>``), plus the Nodes given in ``objects``, which are placement targets
too.  ``Topology`` is what later sections place pods and volumes on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planner.domain import LABEL_HOSTNAME, LABEL_REGION, LABEL_ZONE, Node, Taint
from planner.scenario.fields import DNS_LABEL, DNS_SUBDOMAIN, LABEL_VALUE, Fields, type_name
from planner.scenario.raw import d, lst
from planner.scenario.stamps import Stamper

MAX_NODES = 10_000

DEFAULT_REGION = "region-1"
DEFAULT_CAPACITY: dict[str, str] = {"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"}
POOL_KEYS = ("name", "count", "zones", "names", "capacity", "allocatable", "labels", "taints", "unschedulable", "instanceType")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

Layout = list[tuple[str | None, int]]  # [(zone, nodes in it)] of a pool


@dataclass
class NodeRec:
    name: str
    zone: str | None
    node: Node  # the domain node, for matching tolerations and node affinity
    placed: int = 0  # pods this expansion put on it


@dataclass
class Topology:
    region: str = DEFAULT_REGION
    zones: list[str] = field(default_factory=list)
    nodes: list[NodeRec] = field(default_factory=list)  # every placement target, in order
    by_name: dict[str, NodeRec] = field(default_factory=dict)
    node_objs: list[dict] = field(default_factory=list)  # the pools' Node objects

    def add(self, rec: NodeRec) -> None:
        self.nodes.append(rec)
        self.by_name[rec.name] = rec


def read_topology(doc: dict, f: Fields) -> Topology:
    """``region`` and ``zones``."""
    topo = Topology()
    region = doc.get("region")
    if region is not None:
        r = f.string("region", region)
        if r is not None:
            topo.region = r
    zones = f.list_of("zones", doc.get("zones")) or []
    seen: set[str] = set()
    for i, z in enumerate(zones):
        zs = f.string(f"zones[{i}]", z)
        if zs is None:
            continue
        if zs in seen:
            f.duplicate(f"zones[{i}]", zs)
            continue
        if len(zs) > 63 or not LABEL_VALUE.match(zs):
            f.invalid(f"zones[{i}]", zs, "must be a valid label value")
            continue
        seen.add(zs)
        topo.zones.append(zs)
    return topo


def read_pools(doc: dict, f: Fields, topo: Topology, stamp: Stamper) -> None:
    """``nodePools``: every pool checked and the total bounded before any Node is made."""
    pools = f.list_of("nodePools", doc.get("nodePools")) or []
    plans: list[tuple[str, dict, Layout]] = []
    names: set[str] = set()
    total = 0
    for i, pool in enumerate(pools):
        p = f"nodePools[{i}]"
        if not isinstance(pool, dict):
            f.invalid(p, pool, f"must be a mapping, not {type_name(pool)}")
            continue
        f.keys(p, pool, POOL_KEYS)
        name = f.string(f"{p}.name", pool.get("name"))
        if name is not None:
            if name in names:
                f.duplicate(f"{p}.name", name)
            elif not DNS_LABEL.match(name) or len(name) > 63:
                f.invalid(f"{p}.name", name, "must be a lowercase RFC 1123 label (a-z, 0-9, '-')")
            names.add(name)
        layout = _pool_layout(f, topo, p, pool)
        if name is None or layout is None:
            continue
        total += sum(c for _, c in layout)
        plans.append((p, pool, layout))
    if total > MAX_NODES:
        f.too_many("nodePools", total, MAX_NODES)
        return
    for p, pool, layout in plans:
        _make_pool(f, topo, stamp, p, pool, layout)


def _pool_layout(f: Fields, topo: Topology, p: str, pool: dict) -> Layout | None:
    """[(zone, count)] for a pool, or None after reporting a problem."""
    count_v = pool.get("count")
    zones_v = pool.get("zones")
    if isinstance(zones_v, dict):
        if count_v is not None:
            f.forbidden(f"{p}.count", "may not be set when zones gives a count per zone")
            return None
        layout: Layout = []
        for z, c in zones_v.items():
            if z not in topo.zones:
                f.not_found(f"{p}.zones.{z}", z)
                return None
            n = f.integer(f"{p}.zones.{z}", c, 0, MAX_NODES)
            if n is None:
                return None
            layout.append((z, n))
        return layout
    count = 1 if count_v is None else f.integer(f"{p}.count", count_v, 0, MAX_NODES)
    if count is None:
        return None
    if zones_v is None:
        if not topo.zones:
            return [(None, count)]
        return [(z, count) for z in topo.zones]
    zl = f.list_of(f"{p}.zones", zones_v)
    if zl is None:
        return None
    if not topo.zones:
        f.forbidden(f"{p}.zones", "the scenario has no zones")
        return None
    layout = []
    for j, z in enumerate(zl):
        if z not in topo.zones:
            f.not_found(f"{p}.zones[{j}]", z)
            return None
        if any(z == zz for zz, _ in layout):
            f.duplicate(f"{p}.zones[{j}]", z)
            return None
        layout.append((z, count))
    return layout


@dataclass
class _PoolShape:
    """What every node of a pool shares."""

    capacity: dict[str, str]
    allocatable: dict[str, str]
    labels: dict[str, str]
    taints: list[dict]
    unschedulable: bool
    instance_type: str | None


def _make_pool(f: Fields, topo: Topology, stamp: Stamper, p: str, pool: dict, layout: Layout) -> None:
    name = str(pool["name"])
    shape = _pool_shape(f, p, pool)
    total = sum(c for _, c in layout)
    explicit = pool.get("names")
    names: list[str] | None = None
    if explicit is not None:
        el = f.list_of(f"{p}.names", explicit)
        if el is None:
            return
        if len(el) != total:
            f.invalid(f"{p}.names", f"{len(el)} names", f"must list exactly one name per node ({total})")
            return
        names = [str(n) for n in el]
    k = 0
    for zone, count in layout:
        for i in range(count):
            node_name = names[k] if names is not None else (f"{name}-{zone}-{i}" if zone else f"{name}-{i}")
            np = f"{p}.names[{k}]" if names is not None else p
            k += 1
            if len(node_name) > 253 or not DNS_SUBDOMAIN.match(node_name):
                f.invalid(np, node_name, "node names must be lowercase RFC 1123 subdomains (set nodePools[].names)")
                continue
            if node_name in topo.by_name:
                f.duplicate(np, node_name)
                continue
            _add_pool_node(topo, stamp, node_name, zone, shape)


def _pool_shape(f: Fields, p: str, pool: dict) -> _PoolShape:
    capacity = dict(DEFAULT_CAPACITY)
    for k, v in (f.mapping(f"{p}.capacity", pool.get("capacity")) or {}).items():
        q = f.quantity(f"{p}.capacity.{k}", v)
        if q is not None:
            capacity[str(k)] = q
    allocatable = dict(capacity)
    for k, v in (f.mapping(f"{p}.allocatable", pool.get("allocatable")) or {}).items():
        q = f.quantity(f"{p}.allocatable.{k}", v)
        if q is not None:
            allocatable[str(k)] = q
    labels = f.labels(f"{p}.labels", pool.get("labels"))
    taints: list[dict] = []
    for j, t in enumerate(f.list_of(f"{p}.taints", pool.get("taints")) or []):
        tp = f"{p}.taints[{j}]"
        if not isinstance(t, dict):
            f.invalid(tp, t, f"must be a mapping, not {type_name(t)}")
            continue
        f.keys(tp, t, ("key", "value", "effect"))
        key = f.string(f"{tp}.key", t.get("key"))
        effect = t.get("effect")
        if effect not in TAINT_EFFECTS:
            if effect is None:
                f.required(f"{tp}.effect")
            else:
                f.unsupported(f"{tp}.effect", effect, TAINT_EFFECTS)
            continue
        value = t.get("value", "")
        if key is None:
            continue
        td: dict[str, Any] = {"effect": effect, "key": key}
        if value not in (None, ""):
            td["value"] = str(value)
        taints.append(td)
    unschedulable = f.boolean(f"{p}.unschedulable", pool.get("unschedulable"))
    instance_type = pool.get("instanceType")
    if instance_type is not None and not isinstance(instance_type, str):
        f.invalid(f"{p}.instanceType", instance_type, "must be a string")
        instance_type = None
    return _PoolShape(capacity, allocatable, labels, taints, unschedulable, instance_type)


def _add_pool_node(topo: Topology, stamp: Stamper, name: str, zone: str | None, shape: _PoolShape) -> None:
    labels: dict[str, str] = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}
    if shape.instance_type:
        labels["node.kubernetes.io/instance-type"] = shape.instance_type
    if zone:
        labels[LABEL_REGION] = topo.region
        labels[LABEL_ZONE] = zone
    labels.update(shape.labels)
    labels[LABEL_HOSTNAME] = name
    md = stamp.meta("Node", name)
    md["labels"] = dict(sorted(labels.items()))
    spec: dict[str, Any] = {}
    node_taints = [dict(t) for t in shape.taints]
    if shape.unschedulable:
        spec["unschedulable"] = True
        # the node lifecycle controller taints cordoned nodes (TaintNodesByCondition)
        node_taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "timeAdded": md["creationTimestamp"]})
    if node_taints:
        spec["taints"] = node_taints
    obj = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": md,
        "spec": spec,
        "status": {
            "allocatable": dict(shape.allocatable),
            "capacity": dict(shape.capacity),
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
                 "lastHeartbeatTime": md["creationTimestamp"], "lastTransitionTime": md["creationTimestamp"]},
            ],
            "nodeInfo": {"architecture": labels.get("kubernetes.io/arch", "amd64"), "operatingSystem": labels.get("kubernetes.io/os", "linux"),
                         "kubeletVersion": "v1.30.0", "containerRuntimeVersion": "containerd://1.7.0"},
        },
    }
    dom = Node(
        name=name,
        labels=md["labels"],
        taints=tuple(Taint(t["key"], t.get("value", ""), t["effect"]) for t in node_taints),
        unschedulable=shape.unschedulable,
    )
    topo.add(NodeRec(name, zone, dom))
    topo.node_objs.append(obj)


def register_user_node(topo: Topology, obj: dict) -> None:
    """A Node given in objects: a placement target like the pools' nodes."""
    md = obj["metadata"]
    labels = d(md.get("labels"))
    labels = {str(k): str(v) for k, v in labels.items()}
    spec = d(obj.get("spec"))
    taints = tuple(
        Taint(str(t.get("key", "")), str(t.get("value") or ""), str(t.get("effect", "")))
        for t in lst(spec.get("taints")) if isinstance(t, dict)
    )
    dom = Node(name=str(md["name"]), labels=labels, taints=taints, unschedulable=bool(spec.get("unschedulable")))
    topo.add(NodeRec(dom.name, labels.get(LABEL_ZONE), dom))
