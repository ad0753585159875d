"""Scenario files: a compact description of a cluster that does not exist, expanded into the
ordinary Kubernetes objects ``kubectl get -o yaml`` would show for it.

A scenario (``apiVersion: planner.dev/v1alpha1``, ``kind: Scenario``) names zones, node pools,
storage classes, workload manifests (passed through), the pods the controllers have created (by
shorthand: which workload, which ordinal or how many, where, which revision) and the volumes
(claims bound to zonal PersistentVolumes).  ``expand_scenario`` turns it into Nodes,
StorageClasses, Namespaces, the workloads, ReplicaSets, Pods, PersistentVolumeClaims and
PersistentVolumes, with the labels, ownerReferences, annotations and status the upstream
controllers set; the loader then defaults, validates and converts them like any other input.
Everything is deterministic: names, uids and timestamps derive from the scenario alone.

The format is documented in docs/scenarios.md.  Every problem is reported at once, one line each,
as ``Scenario <name>: <field path>: <upstream-style field error>``.
"""

from __future__ import annotations

import copy
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from planner.domain import (
    LABEL_CONTROLLER_REVISION_HASH,
    LABEL_HOSTNAME,
    LABEL_POD_INDEX,
    LABEL_POD_TEMPLATE_HASH,
    LABEL_REGION,
    LABEL_STATEFULSET_POD_NAME,
    LABEL_ZONE,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Taint,
    Toleration,
)
from planner.errors import InputError
from planner.matching import find_untolerated_taint, labels_match_map, node_selector_matches
from planner.mergepatch import apply_merge_patch
from planner.revision import SAFE_ALPHANUMS, controller_revision_name, fnv32a, pod_template_hash

API_VERSION = "planner.dev/v1alpha1"
KIND = "Scenario"

MAX_NODES = 10_000
MAX_PODS = 200_000
MAX_VOLUMES = 200_000
MAX_OBJECTS = 100_000

BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)
DEFAULT_REGION = "region-1"
DEFAULT_PROVISIONER = "ebs.csi.aws.com"
DEFAULT_CAPACITY: dict[str, str] = {"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"}

TOP_LEVEL_KEYS = (
    "apiVersion", "kind", "metadata", "description", "region", "zones", "nodePools", "storageClasses",
    "objects", "revisions", "pods", "volumes", "expect", "steps",
)
POOL_KEYS = ("name", "count", "zones", "names", "capacity", "allocatable", "labels", "taints", "unschedulable", "instanceType")
SC_KEYS = ("name", "provisioner", "volumeBindingMode", "reclaimPolicy", "default", "allowVolumeExpansion", "allowedZones", "parameters")
POD_KEYS = ("workload", "namespace", "ordinal", "ordinals", "count", "node", "nodes", "zone", "zones", "phase", "revision", "terminating")
VOLUME_KEYS = ("claim", "namespace", "zone", "node", "size", "storageClass", "accessModes", "phase", "volumeName")
REVISION_KEYS = ("workload", "namespace", "name", "template")
EXPECT_KEYS = ("validate", "explain", "check", "capacity", "simulate", "remediate", "audit")

POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
BINDING_MODES = ("WaitForFirstConsumer", "Immediate")
RECLAIM_POLICIES = ("Delete", "Retain")
WORKLOAD_KINDS = {"statefulset": "StatefulSet", "deployment": "Deployment"}

CLUSTER_SCOPED = frozenset(
    {
        "Node", "Namespace", "PersistentVolume", "StorageClass", "PriorityClass", "RuntimeClass", "CSIDriver",
        "CSINode", "VolumeAttachment", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
        "IngressClass", "APIService", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
    }
)

_QUANTITY = re.compile(r"^[+]?(\d+(\.\d*)?|\.\d+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")

# DefaultTolerationSeconds admission: every pod tolerates these for 300 s unless it says otherwise.
_DEFAULT_TOLERATIONS = (
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
)


@dataclass
class ScenarioExpansion:
    name: str
    description: str
    objects: list[dict]  # kubectl-shaped objects, in a deterministic order
    expect: dict = field(default_factory=dict)
    steps: list = field(default_factory=list)  # raw, for the replay simulator


def is_scenario(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("apiVersion") == API_VERSION and doc.get("kind") == KIND


def expand_scenario(doc: dict, source: str) -> ScenarioExpansion:
    """Expand a scenario document; raises InputError listing every problem found."""
    return _Expander(doc, source).run()


# --------------------------------------------------------------------------- field errors


def _fmt(value: Any) -> str:
    """A value as upstream field errors print it: strings quoted, numbers and bools bare."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return type(value).__name__


class _Errors:
    """k8s.io/apimachinery/pkg/util/validation/field error strings."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def invalid(self, path: str, value: Any, detail: str) -> None:
        self.items.append(f"{path}: Invalid value: {_fmt(value)}: {detail}")

    def required(self, path: str, detail: str = "") -> None:
        self.items.append(f"{path}: Required value" + (f": {detail}" if detail else ""))

    def unsupported(self, path: str, value: Any, supported: tuple[str, ...] | list[str]) -> None:
        vals = ", ".join(_fmt(s) for s in supported)
        self.items.append(f"{path}: Unsupported value: {_fmt(value)}: supported values: {vals}")

    def not_found(self, path: str, value: Any) -> None:
        self.items.append(f"{path}: Not found: {_fmt(value)}")

    def duplicate(self, path: str, value: Any) -> None:
        self.items.append(f"{path}: Duplicate value: {_fmt(value)}")

    def too_many(self, path: str, actual: int, maximum: int) -> None:
        self.items.append(f"{path}: Too many: {actual}: must have at most {maximum} items")

    def forbidden(self, path: str, detail: str) -> None:
        self.items.append(f"{path}: Forbidden: {detail}")


# --------------------------------------------------------------------------- helpers


def _type_name(v: Any) -> str:
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return type(v).__name__


_merge_patch = apply_merge_patch  # RFC 7386 (planner/mergepatch.py)


def _quantity_str(v: Any) -> str:
    return str(v) if not isinstance(v, float) or v != int(v) else str(int(v))


def _int_or_percent(v: Any, total: int, round_up: bool) -> int:
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
    if isinstance(v, str) and v.isdigit():
        return int(v)
    return 0


@dataclass
class _NodeRec:
    name: str
    zone: str | None
    node: Node  # the domain node, for matching tolerations and node affinity
    placed: int = 0  # pods this expansion put on it


@dataclass
class _Workload:
    kind: str  # Deployment | StatefulSet
    namespace: str
    name: str
    obj: dict  # the emitted (augmented) object
    revisions: list[tuple[str, dict]] = field(default_factory=list)  # (revision name, template), oldest first

    @property
    def ref(self) -> str:
        return f"{self.kind.lower()}/{self.name}"


@dataclass
class _PodPlan:
    path: str
    workload: _Workload
    revision: str
    node: str | None
    phase: str
    terminating: bool
    ordinal: int | None = None  # StatefulSet pods


# --------------------------------------------------------------------------- the expander


class _Expander:
    def __init__(self, doc: dict, source: str) -> None:
        self.doc = doc
        self.source = source
        self.err = _Errors()
        md = _d(doc.get("metadata"))
        nm = md.get("name") if isinstance(md, dict) else None
        self.name = nm if isinstance(nm, str) and nm else source
        self.region = DEFAULT_REGION
        self.zones: list[str] = []
        self.nodes: list[_NodeRec] = []
        self.node_by_name: dict[str, _NodeRec] = {}
        self.node_objs: list[dict] = []
        self.sc_objs: list[dict] = []
        self.default_sc: str | None = None
        self.sc_by_name: dict[str, dict] = {}
        self.user_objs: list[dict] = []
        self.obj_keys: set[tuple[str, str, str]] = set()
        self.workloads: dict[tuple[str, str, str], _Workload] = {}  # (kind, ns, name)
        self.pod_plans: list[_PodPlan] = []
        self.volumes: dict[tuple[str, str], tuple[str, dict]] = {}  # (ns, claim) -> (path, entry)
        self.clock = 0

    # ------------------------------------------------------------------ determinism

    def _uid(self, kind: str, namespace: str, name: str) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"planner-scenario:{self.name}/{kind}/{namespace}/{name}"))

    def _now(self) -> str:
        t = BASE_TIME + timedelta(seconds=self.clock)
        self.clock += 1
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    def _meta(self, kind: str, name: str, namespace: str | None = None) -> dict:
        md: dict[str, Any] = {"name": name}
        if namespace is not None:
            md["namespace"] = namespace
        md["uid"] = self._uid(kind, namespace or "", name)
        md["creationTimestamp"] = self._now()
        return md

    # ------------------------------------------------------------------ typed readers

    def _int(self, path: str, v: Any, lo: int = 0, hi: int | None = None) -> int | None:
        if isinstance(v, bool) or not isinstance(v, int):
            self.err.invalid(path, v, "must be an integer")
            return None
        if v < lo:
            self.err.invalid(path, v, f"must be greater than or equal to {lo}")
            return None
        if hi is not None and v > hi:
            self.err.invalid(path, v, f"must be less than or equal to {hi}")
            return None
        return v

    def _str(self, path: str, v: Any) -> str | None:
        if not isinstance(v, str) or not v:
            if v is None or v == "":
                self.err.required(path)
            else:
                self.err.invalid(path, v, f"must be a string, not {_type_name(v)}")
            return None
        return v

    def _list(self, path: str, v: Any) -> list | None:
        if v is None:
            return []
        if not isinstance(v, list):
            self.err.invalid(path, v, f"must be a list, not {_type_name(v)}")
            return None
        return v

    def _map(self, path: str, v: Any) -> dict | None:
        if v is None:
            return {}
        if not isinstance(v, dict):
            self.err.invalid(path, v, f"must be a mapping, not {_type_name(v)}")
            return None
        return v

    def _bool(self, path: str, v: Any, default: bool = False) -> bool:
        if v is None:
            return default
        if not isinstance(v, bool):
            self.err.invalid(path, v, "must be a boolean")
            return default
        return v

    def _keys(self, path: str, entry: dict, allowed: tuple[str, ...]) -> None:
        for k in entry:
            if k not in allowed:
                self.err.forbidden(f"{path}.{k}" if path else str(k), "unknown field")

    def _quantity(self, path: str, v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            self.err.invalid(path, v, "must be a quantity such as 4, 500m or 16Gi")
            return None
        s = _quantity_str(v)
        if s.startswith("-"):
            self.err.invalid(path, v, "must be greater than or equal to 0")
            return None
        if not _QUANTITY.match(s):
            self.err.invalid(path, v, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
            return None
        return s

    def _labels(self, path: str, v: Any) -> dict[str, str]:
        m = self._map(path, v)
        out: dict[str, str] = {}
        for k, val in (m or {}).items():
            if not isinstance(k, str) or not k:
                self.err.invalid(path, k, "label keys must be non-empty strings")
                continue
            sval = val if isinstance(val, str) else ("true" if val is True else "false" if val is False else str(val))
            if val is None or isinstance(val, (dict, list)) or not _LABEL_VALUE.match(sval) or len(sval) > 63:
                self.err.invalid(f"{path}.{k}", val, "a valid label value must be 63 characters or less, begin and end with an alphanumeric character and contain only alphanumerics, '-', '_' or '.'")
                continue
            out[k] = sval
        return out

    # ------------------------------------------------------------------ run

    def run(self) -> ScenarioExpansion:
        doc = self.doc
        if not is_scenario(doc):
            if doc.get("apiVersion") != API_VERSION:
                self.err.unsupported("apiVersion", doc.get("apiVersion"), (API_VERSION,))
            if doc.get("kind") != KIND:
                self.err.unsupported("kind", doc.get("kind"), (KIND,))
        self._keys("", doc, TOP_LEVEL_KEYS)
        md = self._map("metadata", doc.get("metadata"))
        if md is not None:
            self._str("metadata.name", md.get("name"))
        desc = doc.get("description", "")
        if desc is None:
            desc = ""
        if not isinstance(desc, str):
            self.err.invalid("description", desc, "must be a string")
            desc = ""
        expect = self._map("expect", doc.get("expect")) or {}
        self._check_expect(expect)
        steps = self._list("steps", doc.get("steps")) or []

        self._read_topology()
        self._read_pools()
        self._read_storage_classes()
        self._read_objects()
        self._read_revisions()
        self._read_volumes()
        self._read_pods()
        if self.err.items:
            self._fail()
        objects = self._emit()
        if self.err.items:
            self._fail()
        return ScenarioExpansion(self.name, desc.strip(), objects, copy.deepcopy(expect), copy.deepcopy(steps))

    def _fail(self) -> None:
        raise InputError(*[f"Scenario {self.name}: {m}" for m in self.err.items])

    # ------------------------------------------------------------------ expect

    def _check_expect(self, expect: dict) -> None:
        for k, v in expect.items():
            if k not in EXPECT_KEYS:
                self.err.unsupported(f"expect.{k}", k, EXPECT_KEYS)
            elif k == "validate":
                self._map("expect.validate", v)
            else:
                entries = self._list(f"expect.{k}", v) or []
                for i, e in enumerate(entries):
                    p = f"expect.{k}[{i}]"
                    if not isinstance(e, dict):
                        self.err.invalid(p, e, f"must be a mapping, not {_type_name(e)}")
                    elif k == "explain" and ("pod" in e) == ("pod_file" in e):
                        self.err.required(p, "exactly one of pod or pod_file")

    # ------------------------------------------------------------------ topology and nodes

    def _read_topology(self) -> None:
        region = self.doc.get("region")
        if region is not None:
            r = self._str("region", region)
            if r is not None:
                self.region = r
        zones = self._list("zones", self.doc.get("zones")) or []
        seen: set[str] = set()
        for i, z in enumerate(zones):
            zs = self._str(f"zones[{i}]", z)
            if zs is None:
                continue
            if zs in seen:
                self.err.duplicate(f"zones[{i}]", zs)
                continue
            if len(zs) > 63 or not _LABEL_VALUE.match(zs):
                self.err.invalid(f"zones[{i}]", zs, "must be a valid label value")
                continue
            seen.add(zs)
            self.zones.append(zs)

    def _pool_layout(self, p: str, pool: dict) -> list[tuple[str | None, int]] | None:
        """[(zone, count)] for a pool, or None after reporting a problem."""
        count_v = pool.get("count")
        zones_v = pool.get("zones")
        if isinstance(zones_v, dict):
            if count_v is not None:
                self.err.forbidden(f"{p}.count", "may not be set when zones gives a count per zone")
                return None
            layout: list[tuple[str | None, int]] = []
            for z, c in zones_v.items():
                if z not in self.zones:
                    self.err.not_found(f"{p}.zones.{z}", z)
                    return None
                n = self._int(f"{p}.zones.{z}", c, 0, MAX_NODES)
                if n is None:
                    return None
                layout.append((z, n))
            return layout
        count = 1 if count_v is None else self._int(f"{p}.count", count_v, 0, MAX_NODES)
        if count is None:
            return None
        if zones_v is None:
            if not self.zones:
                return [(None, count)]
            return [(z, count) for z in self.zones]
        zl = self._list(f"{p}.zones", zones_v)
        if zl is None:
            return None
        if not self.zones:
            self.err.forbidden(f"{p}.zones", "the scenario has no zones")
            return None
        layout = []
        for j, z in enumerate(zl):
            if z not in self.zones:
                self.err.not_found(f"{p}.zones[{j}]", z)
                return None
            if any(z == zz for zz, _ in layout):
                self.err.duplicate(f"{p}.zones[{j}]", z)
                return None
            layout.append((z, count))
        return layout

    def _read_pools(self) -> None:
        pools = self._list("nodePools", self.doc.get("nodePools")) or []
        plans: list[tuple[str, dict, list[tuple[str | None, int]]]] = []
        names: set[str] = set()
        total = 0
        for i, pool in enumerate(pools):
            p = f"nodePools[{i}]"
            if not isinstance(pool, dict):
                self.err.invalid(p, pool, f"must be a mapping, not {_type_name(pool)}")
                continue
            self._keys(p, pool, POOL_KEYS)
            name = self._str(f"{p}.name", pool.get("name"))
            if name is not None:
                if name in names:
                    self.err.duplicate(f"{p}.name", name)
                elif not _DNS_LABEL.match(name) or len(name) > 63:
                    self.err.invalid(f"{p}.name", name, "must be a lowercase RFC 1123 label (a-z, 0-9, '-')")
                names.add(name)
            layout = self._pool_layout(p, pool)
            if name is None or layout is None:
                continue
            total += sum(c for _, c in layout)
            plans.append((p, pool, layout))
        if total > MAX_NODES:
            self.err.too_many("nodePools", total, MAX_NODES)
            return
        for p, pool, layout in plans:
            self._make_pool(p, pool, layout)

    def _make_pool(self, p: str, pool: dict, layout: list[tuple[str | None, int]]) -> None:
        name = str(pool["name"])
        capacity = dict(DEFAULT_CAPACITY)
        for k, v in (self._map(f"{p}.capacity", pool.get("capacity")) or {}).items():
            q = self._quantity(f"{p}.capacity.{k}", v)
            if q is not None:
                capacity[str(k)] = q
        allocatable = dict(capacity)
        for k, v in (self._map(f"{p}.allocatable", pool.get("allocatable")) or {}).items():
            q = self._quantity(f"{p}.allocatable.{k}", v)
            if q is not None:
                allocatable[str(k)] = q
        labels = self._labels(f"{p}.labels", pool.get("labels"))
        taints: list[dict] = []
        for j, t in enumerate(self._list(f"{p}.taints", pool.get("taints")) or []):
            tp = f"{p}.taints[{j}]"
            if not isinstance(t, dict):
                self.err.invalid(tp, t, f"must be a mapping, not {_type_name(t)}")
                continue
            self._keys(tp, t, ("key", "value", "effect"))
            key = self._str(f"{tp}.key", t.get("key"))
            effect = t.get("effect")
            if effect not in TAINT_EFFECTS:
                if effect is None:
                    self.err.required(f"{tp}.effect")
                else:
                    self.err.unsupported(f"{tp}.effect", effect, TAINT_EFFECTS)
                continue
            value = t.get("value", "")
            if key is None:
                continue
            td: dict[str, Any] = {"effect": effect, "key": key}
            if value not in (None, ""):
                td["value"] = str(value)
            taints.append(td)
        unschedulable = self._bool(f"{p}.unschedulable", pool.get("unschedulable"))
        instance_type = pool.get("instanceType")
        if instance_type is not None and not isinstance(instance_type, str):
            self.err.invalid(f"{p}.instanceType", instance_type, "must be a string")
            instance_type = None
        total = sum(c for _, c in layout)
        explicit = pool.get("names")
        names: list[str] | None = None
        if explicit is not None:
            el = self._list(f"{p}.names", explicit)
            if el is None:
                return
            if len(el) != total:
                self.err.invalid(f"{p}.names", f"{len(el)} names", f"must list exactly one name per node ({total})")
                return
            names = [str(n) for n in el]
        k = 0
        for zone, count in layout:
            for i in range(count):
                node_name = names[k] if names is not None else (f"{name}-{zone}-{i}" if zone else f"{name}-{i}")
                np = f"{p}.names[{k}]" if names is not None else p
                k += 1
                if len(node_name) > 253 or not _DNS_SUBDOMAIN.match(node_name):
                    self.err.invalid(np, node_name, "node names must be lowercase RFC 1123 subdomains (set nodePools[].names)")
                    continue
                if node_name in self.node_by_name:
                    self.err.duplicate(np, node_name)
                    continue
                self._add_node(node_name, zone, capacity, allocatable, labels, taints, unschedulable, instance_type)

    def _add_node(
        self,
        name: str,
        zone: str | None,
        capacity: dict[str, str],
        allocatable: dict[str, str],
        pool_labels: dict[str, str],
        taints: list[dict],
        unschedulable: bool,
        instance_type: str | None,
    ) -> None:
        labels: dict[str, str] = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}
        if instance_type:
            labels["node.kubernetes.io/instance-type"] = instance_type
        if zone:
            labels[LABEL_REGION] = self.region
            labels[LABEL_ZONE] = zone
        labels.update(pool_labels)
        labels[LABEL_HOSTNAME] = name
        md = self._meta("Node", name)
        md["labels"] = dict(sorted(labels.items()))
        spec: dict[str, Any] = {}
        node_taints = [dict(t) for t in taints]
        if unschedulable:
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
                "allocatable": dict(allocatable),
                "capacity": dict(capacity),
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
            unschedulable=unschedulable,
        )
        rec = _NodeRec(name, zone, dom)
        self.nodes.append(rec)
        self.node_by_name[name] = rec
        self.node_objs.append(obj)

    # ------------------------------------------------------------------ storage classes

    def _read_storage_classes(self) -> None:
        for i, sc in enumerate(self._list("storageClasses", self.doc.get("storageClasses")) or []):
            p = f"storageClasses[{i}]"
            if isinstance(sc, str):
                sc = {"name": sc}
            if not isinstance(sc, dict):
                self.err.invalid(p, sc, f"must be a name or a mapping, not {_type_name(sc)}")
                continue
            self._keys(p, sc, SC_KEYS)
            name = self._str(f"{p}.name", sc.get("name"))
            if name is None:
                continue
            if name in self.sc_by_name:
                self.err.duplicate(f"{p}.name", name)
                continue
            provisioner = sc.get("provisioner", DEFAULT_PROVISIONER)
            if not isinstance(provisioner, str) or not provisioner:
                self.err.invalid(f"{p}.provisioner", provisioner, "must be a non-empty string")
                provisioner = DEFAULT_PROVISIONER
            mode = sc.get("volumeBindingMode", "WaitForFirstConsumer")
            if mode not in BINDING_MODES:
                self.err.unsupported(f"{p}.volumeBindingMode", mode, BINDING_MODES)
                mode = "WaitForFirstConsumer"
            reclaim = sc.get("reclaimPolicy", "Delete")
            if reclaim not in RECLAIM_POLICIES:
                self.err.unsupported(f"{p}.reclaimPolicy", reclaim, RECLAIM_POLICIES)
                reclaim = "Delete"
            is_default = self._bool(f"{p}.default", sc.get("default"))
            md = self._meta("StorageClass", name)
            if is_default:
                md["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
                self.default_sc = name  # the last default listed wins (newest, as GetDefaultClass)
            obj: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": md, "provisioner": provisioner}
            params = self._map(f"{p}.parameters", sc.get("parameters"))
            if params:
                obj["parameters"] = {str(k): str(v) for k, v in params.items()}
            obj["reclaimPolicy"] = reclaim
            obj["volumeBindingMode"] = mode
            if "allowVolumeExpansion" in sc:
                obj["allowVolumeExpansion"] = self._bool(f"{p}.allowVolumeExpansion", sc.get("allowVolumeExpansion"))
            zones = sc.get("allowedZones")
            if zones is not None:
                zl = self._list(f"{p}.allowedZones", zones) or []
                for j, z in enumerate(zl):
                    if z not in self.zones:
                        self.err.not_found(f"{p}.allowedZones[{j}]", z)
                obj["allowedTopologies"] = [{"matchLabelExpressions": [{"key": LABEL_ZONE, "values": [str(z) for z in zl]}]}]
            self.sc_by_name[name] = obj
            self.sc_objs.append(obj)

    # ------------------------------------------------------------------ pass-through objects

    def _read_objects(self) -> None:
        objs = self._list("objects", self.doc.get("objects")) or []
        if len(objs) > MAX_OBJECTS:
            self.err.too_many("objects", len(objs), MAX_OBJECTS)
            return
        for i, o in enumerate(objs):
            p = f"objects[{i}]"
            if not isinstance(o, dict):
                self.err.invalid(p, o, f"must be a mapping, not {_type_name(o)}")
                continue
            kind = self._str(f"{p}.kind", o.get("kind"))
            self._str(f"{p}.apiVersion", o.get("apiVersion"))
            md = o.get("metadata")
            if not isinstance(md, dict):
                self.err.required(f"{p}.metadata.name")
                continue
            name = self._str(f"{p}.metadata.name", md.get("name"))
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
            if key in self.obj_keys or (kind == "Node" and name in self.node_by_name) or (kind == "StorageClass" and name in self.sc_by_name):
                self.err.duplicate(f"{p}.metadata.name", name)
                continue
            self.obj_keys.add(key)
            md.setdefault("uid", self._uid(kind, ns, name))
            md.setdefault("creationTimestamp", self._now())
            self.user_objs.append(obj)
            if kind == "Node":
                self._register_user_node(obj)
            if kind in ("Deployment", "StatefulSet"):
                tpl = obj.get("spec", {}).get("template") if isinstance(obj.get("spec"), dict) else None
                if not isinstance(tpl, dict):
                    self.err.required(f"{p}.spec.template")
                    continue
                self.workloads[(kind, ns, name)] = _Workload(kind, ns, name, obj)
            if kind == "StorageClass":
                ann = _d(md.get("annotations"))
                self.sc_by_name[name] = obj
                if str(ann.get("storageclass.kubernetes.io/is-default-class", "")).lower() == "true":
                    self.default_sc = name

    def _register_user_node(self, obj: dict) -> None:
        """A Node given in objects: a placement target like the pools' nodes."""
        md = obj["metadata"]
        labels = _d(md.get("labels"))
        labels = {str(k): str(v) for k, v in labels.items()}
        spec = _d(obj.get("spec"))
        taints = tuple(
            Taint(str(t.get("key", "")), str(t.get("value") or ""), str(t.get("effect", "")))
            for t in spec.get("taints") or [] if isinstance(t, dict)
        )
        dom = Node(name=str(md["name"]), labels=labels, taints=taints, unschedulable=bool(spec.get("unschedulable")))
        rec = _NodeRec(dom.name, labels.get(LABEL_ZONE), dom)
        self.nodes.append(rec)
        self.node_by_name[dom.name] = rec

    def _workload(self, path: str, ref: Any, namespace: Any) -> _Workload | None:
        if not isinstance(ref, str) or "/" not in ref:
            if ref is None:
                self.err.required(path)
            else:
                self.err.invalid(path, ref, "must be KIND/NAME: statefulset/<name> or deployment/<name>")
            return None
        kind_s, _, name = ref.partition("/")
        kind = WORKLOAD_KINDS.get(kind_s.lower())
        if kind is None:
            self.err.unsupported(path, ref, tuple(f"{k}/<name>" for k in WORKLOAD_KINDS))
            return None
        ns = namespace if isinstance(namespace, str) and namespace else "default"
        w = self.workloads.get((kind, ns, name))
        if w is None:
            self.err.not_found(path, ref if ns == "default" else f"{ns}/{ref}")
        return w

    # ------------------------------------------------------------------ revisions

    def _read_revisions(self) -> None:
        for i, r in enumerate(self._list("revisions", self.doc.get("revisions")) or []):
            p = f"revisions[{i}]"
            if not isinstance(r, dict):
                self.err.invalid(p, r, f"must be a mapping, not {_type_name(r)}")
                continue
            self._keys(p, r, REVISION_KEYS)
            w = self._workload(f"{p}.workload", r.get("workload"), r.get("namespace"))
            rname = self._str(f"{p}.name", r.get("name"))
            patch = self._map(f"{p}.template", r.get("template"))
            if w is None or rname is None or patch is None:
                continue
            if rname == "current" or any(rname == n for n, _ in w.revisions):
                self.err.duplicate(f"{p}.name", rname)
                continue
            base = w.obj["spec"]["template"]
            tpl = _merge_patch(base, patch)
            if tpl == base or any(tpl == t for _, t in w.revisions):
                self.err.invalid(f"{p}.template", rname, "gives the same pod template as another revision of the workload")
                continue
            w.revisions.append((rname, tpl))

    # ------------------------------------------------------------------ volumes

    def _read_volumes(self) -> None:
        vols = self._list("volumes", self.doc.get("volumes")) or []
        if len(vols) > MAX_VOLUMES:
            self.err.too_many("volumes", len(vols), MAX_VOLUMES)
            return
        for i, v in enumerate(vols):
            p = f"volumes[{i}]"
            if not isinstance(v, dict):
                self.err.invalid(p, v, f"must be a mapping, not {_type_name(v)}")
                continue
            self._keys(p, v, VOLUME_KEYS)
            claim = self._str(f"{p}.claim", v.get("claim"))
            ns = v.get("namespace") or "default"
            if claim is None:
                continue
            if (ns, claim) in self.volumes:
                self.err.duplicate(f"{p}.claim", claim)
                continue
            phase = v.get("phase", "Bound")
            if phase not in ("Bound", "Pending"):
                self.err.unsupported(f"{p}.phase", phase, ("Bound", "Pending"))
                continue
            zone, node = v.get("zone"), v.get("node")
            if node is not None:
                rec = self.node_by_name.get(node) if isinstance(node, str) else None
                if rec is None:
                    self.err.not_found(f"{p}.node", node)
                    continue
                if zone is not None and zone != rec.zone:
                    self.err.invalid(f"{p}.zone", zone, f"node {node} is in zone {rec.zone}")
                    continue
            elif zone is not None:
                if zone not in self.zones:
                    self.err.not_found(f"{p}.zone", zone)
                    continue
            if v.get("size") is not None:
                self._quantity(f"{p}.size", v.get("size"))
            sc = v.get("storageClass")
            if sc is not None and sc not in self.sc_by_name:
                self.err.not_found(f"{p}.storageClass", sc)
            self.volumes[(ns, claim)] = (p, v)

    # ------------------------------------------------------------------ pods

    def _read_pods(self) -> None:
        entries = self._list("pods", self.doc.get("pods")) or []
        total = 0
        ordinals_seen: dict[tuple[str, str, int], str] = {}
        for i, e in enumerate(entries):
            p = f"pods[{i}]"
            if not isinstance(e, dict):
                self.err.invalid(p, e, f"must be a mapping, not {_type_name(e)}")
                continue
            self._keys(p, e, POD_KEYS)
            w = self._workload(f"{p}.workload", e.get("workload"), e.get("namespace"))
            if w is None:
                continue
            revision = e.get("revision", "current")
            known = ["current"] + [n for n, _ in w.revisions]
            if revision not in known:
                self.err.unsupported(f"{p}.revision", revision, tuple(reversed(known)))
                continue
            if w.kind == "StatefulSet":
                if "count" in e:
                    self.err.forbidden(f"{p}.count", "StatefulSet pods are named by ordinal or ordinals")
                    continue
                if ("ordinal" in e) == ("ordinals" in e):
                    self.err.required(f"{p}.ordinal", "exactly one of ordinal or ordinals")
                    continue
                ords: list[int] = []
                ord_paths: list[str] = []
                if "ordinal" in e:
                    o = self._int(f"{p}.ordinal", e.get("ordinal"), 0, MAX_PODS)
                    if o is None:
                        continue
                    ords = [o]
                    ord_paths = [f"{p}.ordinal"]
                else:
                    ol = self._list(f"{p}.ordinals", e.get("ordinals"))
                    if ol is None:
                        continue
                    if len(ol) > MAX_PODS:
                        self.err.too_many(f"{p}.ordinals", len(ol), MAX_PODS)
                        continue
                    for j, o in enumerate(ol):
                        oi = self._int(f"{p}.ordinals[{j}]", o, 0, MAX_PODS)
                        if oi is not None:
                            ords.append(oi)
                            ord_paths.append(f"{p}.ordinals[{j}]")
                n = len(ords)
            else:
                if "ordinal" in e or "ordinals" in e:
                    self.err.forbidden(f"{p}.ordinal", "only StatefulSet pods have ordinals; use count")
                    continue
                c = self._int(f"{p}.count", e.get("count", 1), 0, MAX_PODS)
                if c is None:
                    continue
                n = c
                ords, ord_paths = [], []
            total += n
            if total > MAX_PODS:
                self.err.too_many("pods", total, MAX_PODS)
                return
            placements = self._placements(p, e, n, w, revision)
            if placements is None:
                continue
            phase_v = e.get("phase")
            if phase_v is not None and phase_v not in POD_PHASES:
                self.err.unsupported(f"{p}.phase", phase_v, POD_PHASES)
                continue
            terminating = self._bool(f"{p}.terminating", e.get("terminating"))
            for k in range(n):
                node = placements[k]
                phase = phase_v or ("Running" if node else "Pending")
                if phase != "Pending" and node is None:
                    self.err.required(f"{p}.node", f"a {phase} pod is bound to a node: give node, nodes, zone or zones")
                    break
                ordinal = ords[k] if ords else None
                if ordinal is not None:
                    key = (w.namespace, w.name, ordinal)
                    if key in ordinals_seen:
                        self.err.duplicate(ord_paths[k], ordinal)
                        continue
                    ordinals_seen[key] = p
                self.pod_plans.append(_PodPlan(p, w, revision, node, phase, terminating, ordinal))
        self._check_volume_zones()

    def _check_volume_zones(self) -> None:
        """A StatefulSet pod on a node runs in the zone of the volumes its claims are bound to."""
        for plan in self.pod_plans:
            if plan.ordinal is None or plan.node is None:
                continue
            node_zone = self.node_by_name[plan.node].zone
            w = plan.workload
            for ct in _claim_templates(w.obj):
                cname = f"{ct['metadata']['name']}-{w.name}-{plan.ordinal}"
                found = self.volumes.get((w.namespace, cname))
                if found is None:
                    continue
                vpath, entry = found
                vzone = entry.get("zone")
                if vzone is None and entry.get("node") in self.node_by_name:
                    vzone = self.node_by_name[entry["node"]].zone
                if vzone is not None and vzone != node_zone:
                    self.err.invalid(f"{vpath}.zone", vzone, f"the pod that uses claim {cname} runs on {plan.node} in zone {node_zone}")

    def _template_of(self, w: _Workload, revision: str) -> dict:
        if revision == "current":
            return w.obj["spec"]["template"]
        return dict(w.revisions)[revision]

    def _placements(self, p: str, e: dict, n: int, w: _Workload, revision: str) -> list[str | None] | None:
        given = [k for k in ("node", "nodes", "zone", "zones") if k in e]
        if len(given) > 1:
            self.err.forbidden(f"{p}.{given[1]}", f"may not be set together with {given[0]}")
            return None
        if not given:
            return [None] * n
        k = given[0]
        v = e[k]
        if k in ("node", "zone"):
            values: list = [v]
        else:
            vl = self._list(f"{p}.{k}", v)
            if vl is None:
                return None
            if not vl:
                self.err.required(f"{p}.{k}")
                return None
            values = vl
        if k in ("node", "nodes"):
            for j, nn in enumerate(values):
                if not isinstance(nn, str) or nn not in self.node_by_name:
                    self.err.not_found(f"{p}.{k}" + (f"[{j}]" if k == "nodes" else ""), nn)
                    return None
            return [values[i % len(values)] for i in range(n)]
        for j, z in enumerate(values):
            if not isinstance(z, str) or z not in self.zones:
                self.err.not_found(f"{p}.{k}" + (f"[{j}]" if k == "zones" else ""), z)
                return None
        template = self._template_of(w, revision)
        out: list[str | None] = []
        for i in range(n):
            zone = values[i % len(values)]
            zp = f"{p}.{k}" + (f"[{i % len(values)}]" if k == "zones" else "")
            rec = self._pick_node(zone, template)
            if rec is None:
                self.err.invalid(zp, zone, "no node in this zone admits the pod (taints, nodeSelector, node affinity, cordoned)")
                return None
            rec.placed += 1
            out.append(rec.name)
        return out

    def _pick_node(self, zone: str, template: dict) -> _NodeRec | None:
        """The node of ``zone`` that admits the pod with the fewest pods placed so far (then by order)."""
        spec = _d(template.get("spec"))
        tolerations = _tolerations(spec)
        node_selector = _d(spec.get("nodeSelector"))
        required = _required_node_affinity(spec)
        best: _NodeRec | None = None
        for rec in self.nodes:
            if rec.zone != zone or rec.node.unschedulable:
                continue
            if find_untolerated_taint(rec.node.taints, tolerations) is not None:
                continue
            if node_selector and not labels_match_map({str(k): str(v) for k, v in node_selector.items()}, rec.node.labels):
                continue
            if required is not None and not node_selector_matches(required, rec.node):
                continue
            if best is None or rec.placed < best.placed:
                best = rec
        return best

    # ------------------------------------------------------------------ emission

    def _emit(self) -> list[dict]:
        replicasets: list[dict] = []
        pods: list[dict] = []
        claims: list[dict] = []
        pvs: list[dict] = []
        claimed: set[tuple[str, str]] = set()

        # revisions and ReplicaSets, oldest first
        rs_info: dict[tuple[str, str, str], tuple[str, str, dict]] = {}  # (ns, workload, rev) -> (rs name, hash, template)
        sts_rev: dict[tuple[str, str, str], str] = {}  # (ns, sts, rev) -> ControllerRevision name
        for w in self.workloads.values():
            revs = list(w.revisions) + [("current", w.obj["spec"]["template"])]
            if w.kind == "Deployment":
                for rname, tpl in revs:
                    h = pod_template_hash(tpl)
                    rs_info[(w.namespace, w.name, rname)] = (f"{w.name}-{h}", h, tpl)
            else:
                for rname, tpl in revs:
                    sts_rev[(w.namespace, w.name, rname)] = controller_revision_name(w.name, tpl)

        # pods, in listed order (their creation order)
        counters: dict[str, int] = {}
        used_names: set[tuple[str, str]] = set()
        pod_counts: dict[tuple[str, str, str], list[dict]] = {}
        for plan in self.pod_plans:
            w = plan.workload
            if w.kind == "Deployment":
                rs_name, h, tpl = rs_info[(w.namespace, w.name, plan.revision)]
                name = self._pod_name(rs_name, counters, used_names, w.namespace)
                pod = self._pod(plan, name, tpl, {LABEL_POD_TEMPLATE_HASH: h},
                                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs_name,
                                 "uid": self._uid("ReplicaSet", w.namespace, rs_name), "controller": True, "blockOwnerDeletion": True},
                                generate_name=f"{rs_name}-")
            else:
                assert plan.ordinal is not None
                tpl = self._template_of(w, plan.revision)
                name = f"{w.name}-{plan.ordinal}"
                used_names.add((w.namespace, name))
                rev_name = sts_rev[(w.namespace, w.name, plan.revision)]
                extra = {
                    LABEL_POD_INDEX: str(plan.ordinal),
                    LABEL_CONTROLLER_REVISION_HASH: rev_name,
                    LABEL_STATEFULSET_POD_NAME: name,
                }
                pod = self._pod(plan, name, tpl, extra,
                                {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": w.name, "uid": w.obj["metadata"]["uid"],
                                 "controller": True, "blockOwnerDeletion": True})
                spec = pod["spec"]
                spec["hostname"] = name
                svc = w.obj["spec"].get("serviceName")
                if isinstance(svc, str) and svc:
                    spec["subdomain"] = svc
                vols = []
                for ct in _claim_templates(w.obj):
                    cname = f"{ct['metadata']['name']}-{w.name}-{plan.ordinal}"
                    vols.append({"name": ct["metadata"]["name"], "persistentVolumeClaim": {"claimName": cname}})
                    claimed.add((w.namespace, cname))
                    c, pv = self._claim(plan.path, w.namespace, cname, w, ct, plan.ordinal, plan.node, pod)
                    claims.append(c)
                    if pv is not None:
                        pvs.append(pv)
                names = {v["name"] for v in vols}
                rest = [v for v in spec.get("volumes", []) if isinstance(v, dict) and v.get("name") not in names]
                if vols or rest:
                    spec["volumes"] = vols + rest
            pods.append(pod)
            pod_counts.setdefault((w.namespace, w.name, plan.revision), []).append(pod)

        # volumes without a pod of this scenario: retained or pre-provisioned claims
        for (ns, cname), (p, _entry) in self.volumes.items():
            if (ns, cname) in claimed:
                continue
            owner, ct_or_none, ordinal = self._template_for_claim(ns, cname)
            c, pv = self._claim(p, ns, cname, owner, ct_or_none, ordinal, None, None)
            claims.append(c)
            if pv is not None:
                pvs.append(pv)

        # ReplicaSets and controller status
        for w in self.workloads.values():
            if w.kind == "Deployment":
                replicasets.extend(self._replicasets(w, rs_info, pod_counts))
            else:
                self._statefulset_status(w, sts_rev, pod_counts)

        namespaces = self._namespaces(pods, claims)
        return namespaces + self.sc_objs + self.node_objs + self.user_objs + replicasets + pods + claims + pvs

    def _pod_name(self, rs_name: str, counters: dict[str, int], used: set[tuple[str, str]], ns: str) -> str:
        """generateName's 5-character suffix, derived from the ReplicaSet name and a counter."""
        while True:
            i = counters.get(rs_name, 0)
            counters[rs_name] = i + 1
            h = fnv32a(f"{rs_name}/{i}".encode())
            suffix = ""
            for _ in range(5):
                suffix += SAFE_ALPHANUMS[h % len(SAFE_ALPHANUMS)]
                h //= len(SAFE_ALPHANUMS)
            name = f"{rs_name}-{suffix}"
            if (ns, name) not in used:
                used.add((ns, name))
                return name

    def _pod(self, plan: _PodPlan, name: str, template: dict, extra_labels: dict[str, str], owner: dict, generate_name: str | None = None) -> dict:
        w = plan.workload
        tmd = _d(template.get("metadata"))
        labels = dict(tmd.get("labels") or {}) if isinstance(tmd.get("labels"), dict) else {}
        labels.update(extra_labels)
        md = self._meta("Pod", name, w.namespace)
        if generate_name:
            md = {"name": name, "generateName": generate_name, **{k: v for k, v in md.items() if k != "name"}}
        md["labels"] = labels
        if isinstance(tmd.get("annotations"), dict) and tmd["annotations"]:
            md["annotations"] = copy.deepcopy(tmd["annotations"])
        md["ownerReferences"] = [owner]
        if plan.terminating:
            md["deletionTimestamp"] = self._now()
            md["deletionGracePeriodSeconds"] = 30
        spec = copy.deepcopy(_d(template.get("spec")))
        tols = _l(spec.get("tolerations"))
        for dt in _DEFAULT_TOLERATIONS:
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
        status["qosClass"] = _qos_class(spec)
        return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}

    # ------------------------------------------------------------------ claims and volumes

    def _template_for_claim(self, ns: str, cname: str) -> tuple[_Workload | None, dict | None, int | None]:
        """The StatefulSet volumeClaimTemplate a claim name <template>-<sts>-<ordinal> comes from."""
        for w in self.workloads.values():
            if w.kind != "StatefulSet" or w.namespace != ns:
                continue
            for ct in _claim_templates(w.obj):
                prefix = f"{ct['metadata']['name']}-{w.name}-"
                rest = cname[len(prefix):]
                if cname.startswith(prefix) and rest.isdigit():
                    return w, ct, int(rest)
        return None, None, None

    def _claim(
        self,
        path: str,
        ns: str,
        cname: str,
        w: _Workload | None,
        ct: dict | None,
        ordinal: int | None,
        pod_node: str | None,
        pod: dict | None,
    ) -> tuple[dict, dict | None]:
        """A PersistentVolumeClaim (and its PersistentVolume when bound)."""
        entry = self.volumes.get((ns, cname), (path, {}))[1]
        vpath = self.volumes.get((ns, cname), (path, {}))[0]
        cspec = _d(ct.get("spec")) if ct else {}
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
            res = _d(cspec.get("resources"))
            req = _d(res.get("requests"))
            size = req.get("storage")
        if size is None:
            self.err.required(f"{vpath}.size", f"claim {cname} has no volumeClaimTemplate storage request to copy")
            size = "1Gi"
        size = _quantity_str(size)
        access = entry.get("accessModes") or cspec.get("accessModes") or ["ReadWriteOnce"]
        sc_name = entry.get("storageClass") or cspec.get("storageClassName") or self.default_sc
        sc = self.sc_by_name.get(sc_name) if sc_name else None
        provisioner = str(sc.get("provisioner", "")) if sc else ""
        node = entry.get("node") or pod_node
        zone = entry.get("zone")
        if zone is None and node is not None:
            zone = self.node_by_name[node].zone
        if entry:
            bound = entry.get("phase", "Bound") == "Bound"
            if bound and zone is None and self.zones:
                self.err.required(f"{vpath}.zone", f"bound claim {cname} needs a zone or a node")
        else:
            bound = pod_node is not None  # WaitForFirstConsumer: provisioned once the pod has a node
        md = self._meta("PersistentVolumeClaim", cname, ns)
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
        owners = self._claim_owners(w, ordinal, pod)
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
        pmd = self._meta("PersistentVolume", pv_name)
        if provisioner:
            pmd["annotations"] = {"pv.kubernetes.io/provisioned-by": provisioner}
        pmd["finalizers"] = ["kubernetes.io/pv-protection"]
        pspec: dict[str, Any] = {
            "accessModes": list(access),
            "capacity": {"storage": size},
            "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": cname, "namespace": ns, "uid": md["uid"]},
        }
        if provisioner:
            handle = f"vol-{fnv32a(pv_name.encode()):08x}{fnv32a(self.name.encode()):08x}"[:21]
            pspec["csi"] = {"driver": provisioner, "fsType": "ext4", "volumeHandle": handle}
        if zone is not None:
            pspec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": LABEL_ZONE, "operator": "In", "values": [zone]}]}]}}
        pspec["persistentVolumeReclaimPolicy"] = str(sc.get("reclaimPolicy", "Delete")) if sc else "Retain"
        if sc_name:
            pspec["storageClassName"] = sc_name
        pspec["volumeMode"] = spec["volumeMode"]
        pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": pmd, "spec": pspec, "status": {"phase": "Bound"}}
        return claim, pv

    def _claim_owners(self, w: _Workload | None, ordinal: int | None, pod: dict | None) -> list[dict]:
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

    # ------------------------------------------------------------------ controllers' objects and status

    def _replicasets(self, w: _Workload, rs_info: dict, pod_counts: dict) -> list[dict]:
        spec = w.obj["spec"]
        replicas = spec.get("replicas", 1) if isinstance(spec.get("replicas", 1), int) else 1
        strategy = _d(spec.get("strategy"))
        surge = 0
        if strategy.get("type", "RollingUpdate") == "RollingUpdate":
            ru = _d(strategy.get("rollingUpdate"))
            surge = _int_or_percent(ru.get("maxSurge", "25%"), replicas, True)
        revs = [n for n, _ in w.revisions] + ["current"]
        out = []
        all_pods = 0
        ready = 0
        updated = 0
        for number, rname in enumerate(revs, start=1):
            rs_name, h, tpl = rs_info[(w.namespace, w.name, rname)]
            mine = [p for p in pod_counts.get((w.namespace, w.name, rname), []) if "deletionTimestamp" not in p["metadata"]]
            running = sum(1 for p in mine if p["status"]["phase"] == "Running")
            all_pods += len(mine)
            ready += running
            if rname == "current":
                updated = len(mine)
            rtpl = copy.deepcopy(tpl)
            rmd = rtpl.setdefault("metadata", {})
            rlabels = dict(rmd.get("labels") or {})
            rlabels[LABEL_POD_TEMPLATE_HASH] = h
            rmd["labels"] = rlabels
            sel = copy.deepcopy(_d(spec.get("selector")))
            ml = dict(sel.get("matchLabels") or {})
            ml[LABEL_POD_TEMPLATE_HASH] = h
            sel["matchLabels"] = ml
            md = self._meta("ReplicaSet", rs_name, w.namespace)
            md["labels"] = rlabels
            md["annotations"] = {
                "deployment.kubernetes.io/desired-replicas": str(replicas),
                "deployment.kubernetes.io/max-replicas": str(replicas + surge),
                "deployment.kubernetes.io/revision": str(number),
            }
            md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": w.name, "uid": w.obj["metadata"]["uid"],
                                      "controller": True, "blockOwnerDeletion": True}]
            md["uid"] = self._uid("ReplicaSet", w.namespace, rs_name)
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
        ann = _d(dmd.get("annotations"))
        ann = dict(ann)
        ann.setdefault("deployment.kubernetes.io/revision", str(len(revs)))
        dmd["annotations"] = ann
        w.obj.setdefault("status", {
            "observedGeneration": dmd["generation"], "replicas": all_pods, "updatedReplicas": updated,
            "readyReplicas": ready, "availableReplicas": ready, "unavailableReplicas": max(0, replicas - ready),
        })
        return out

    def _statefulset_status(self, w: _Workload, sts_rev: dict, pod_counts: dict) -> None:
        revs = [n for n, _ in w.revisions] + ["current"]
        update = sts_rev[(w.namespace, w.name, "current")]
        current = update
        for rname in revs:  # the oldest revision that still has pods
            if pod_counts.get((w.namespace, w.name, rname)):
                current = sts_rev[(w.namespace, w.name, rname)]
                break
        live = [p for r in revs for p in pod_counts.get((w.namespace, w.name, r), [])]
        ready = sum(1 for p in live if p["status"]["phase"] == "Running")
        updated = len(pod_counts.get((w.namespace, w.name, "current"), []))
        w.obj["metadata"].setdefault("generation", len(revs))
        w.obj.setdefault("status", {
            "observedGeneration": w.obj["metadata"]["generation"], "replicas": len(live), "readyReplicas": ready,
            "availableReplicas": ready, "currentReplicas": len(live) - updated if current != update else len(live),
            "updatedReplicas": updated, "currentRevision": current, "updateRevision": update, "collisionCount": 0,
        })

    def _namespaces(self, pods: list[dict], claims: list[dict]) -> list[dict]:
        used: list[str] = []
        for o in self.user_objs + pods + claims:
            ns = o["metadata"].get("namespace")
            if ns and ns not in used:
                used.append(ns)
        given = {o["metadata"]["name"] for o in self.user_objs if o.get("kind") == "Namespace"}
        out = []
        for ns in used:
            if ns in given:
                continue
            md = self._meta("Namespace", ns)
            md["labels"] = {"kubernetes.io/metadata.name": ns}
            out.append({"apiVersion": "v1", "kind": "Namespace", "metadata": md, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
        return out


# --------------------------------------------------------------------------- raw object helpers


def _d(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list:
    return v if isinstance(v, list) else []


def _claim_templates(sts: dict) -> list[dict]:
    spec = _d(sts.get("spec"))
    out = []
    for ct in spec.get("volumeClaimTemplates") or []:
        if isinstance(ct, dict) and isinstance(ct.get("metadata"), dict) and isinstance(ct["metadata"].get("name"), str):
            out.append(ct)
    return out


def _tolerations(spec: dict) -> tuple[Toleration, ...]:
    out = []
    for t in spec.get("tolerations") or []:
        if not isinstance(t, dict):
            continue
        out.append(Toleration(
            key=str(t.get("key") or ""),
            operator=str(t.get("operator") or "Equal"),
            value=str(t.get("value") or ""),
            effect=str(t.get("effect") or ""),
        ))
    return tuple(out)


def _required_node_affinity(spec: dict) -> NodeSelector | None:
    aff = spec.get("affinity")
    na = aff.get("nodeAffinity") if isinstance(aff, dict) else None
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(na, dict) else None
    if not isinstance(req, dict):
        return None
    terms = []
    for t in req.get("nodeSelectorTerms") or []:
        if not isinstance(t, dict):
            continue
        exprs = tuple(
            NodeSelectorRequirement(str(e.get("key", "")), str(e.get("operator", "")), tuple(str(v) for v in e.get("values") or ()))
            for e in t.get("matchExpressions") or [] if isinstance(e, dict)
        )
        fields = tuple(
            NodeSelectorRequirement(str(e.get("key", "")), str(e.get("operator", "")), tuple(str(v) for v in e.get("values") or ()))
            for e in t.get("matchFields") or [] if isinstance(e, dict)
        )
        terms.append(NodeSelectorTerm(exprs, fields))
    return NodeSelector(tuple(terms))


def _qos_class(spec: dict) -> str:
    """v1qos.GetPodQOS, comparing quantities as written."""
    containers = [c for key in ("initContainers", "containers") for c in (spec.get(key) or []) if isinstance(c, dict)]
    any_set = False
    guaranteed = bool(containers)
    for c in containers:
        res = _d(c.get("resources"))
        req = _d(res.get("requests"))
        lim = _d(res.get("limits"))
        if any(k in req or k in lim for k in ("cpu", "memory")):
            any_set = True
        for k in ("cpu", "memory"):
            if k not in lim or (k in req and str(req[k]) != str(lim[k])):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"
