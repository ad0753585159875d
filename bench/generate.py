"""Synthetic kubectl-shaped clusters for the benchmarks, from fixed seeds.

    python -m bench.generate --nodes 500 --zones 3 --seed 1 --format json

writes ``bench/out/cluster-500n-3z.json``: one ``List`` exactly as
``kubectl get nodes,pods,pv,pvc,sc,deploy,rs,sts,hpa,pdb,ns -A -o json`` prints it (kinds in that
order, each sorted by namespace and name, keys sorted, 4-space indent), with the noise a real
cluster carries so that decoding costs what it costs on a real snapshot:
``kubectl.kubernetes.io/last-applied-configuration`` and Helm annotations, status conditions and
container statuses, container env and probes, node images and addresses, a
``kube-api-access-xxxxx`` projected volume in every pod that mounts its service account token
(half the workloads set ``automountServiceAccountToken: false``), three DaemonSet pods per node.
``metadata.managedFields`` are left out by default, as kubectl (>= 1.21) prints them only with
``--show-managed-fields``; ``--managed-fields all`` writes them on every object (about 1.6x the
bytes) and ``no-pods`` on every kind but Pod.
``--format yaml`` writes the same objects as multi-document YAML (``---`` between objects, keys
sorted, sequences not indented: the shape ``kubectl get -o yaml`` gives each object);
``--format compact`` the same List as compact JSON, ``cluster-<N>n-<Z>z-compact.json`` (no
whitespace: ``kubectl get -o json | jq -c``, and the encoding of the API server's own responses,
``kubectl get --raw``): half the bytes of kubectl's indented JSON for the same objects, so that
decoding is a smaller share of a load and planner's per-object work a larger one.

The cluster (see docs/performance.md):

* N nodes (30 pods per node on average, 3 of them DaemonSet pods) in 3 even zones or 6 uneven
  ones (28/22/17/14/11/8 %); three node pools: general (m6i.4xlarge, 80 %), highmem (r6i.4xlarge,
  10 %) and batch (c6i.4xlarge, 10 %, tainted ``dedicated=batch:NoSchedule``);
* many Deployments with their ReplicaSets (the current one plus up to two old, scaled-to-zero
  revisions) and pods carrying ``pod-template-hash`` and ownerReferences; StatefulSets whose claims
  are bound to PVs with node affinity on ``topology.kubernetes.io/zone`` (StorageClass ``gp3``,
  WaitForFirstConsumer); zone spread (DoNotSchedule) on some workloads, required hostname
  anti-affinity on some, tolerations plus node affinity for the batch pool on some, node
  selectors and affinity on others; HPAs and PDBs on some;
* in namespace ``bench``: Deployment ``bench-web`` (12 replicas, zone spread DoNotSchedule),
  StatefulSet ``bench-sts`` (6 replicas, OrderedReady, zone spread DoNotSchedule, required
  hostname anti-affinity, one zone-bound volume per pod, HPA 3..12) and the Pending pod
  ``bench-pending``, which is UNSCHEDULABLE: it requests 20 CPUs (no node has more than 15.89
  allocatable), does not tolerate the batch taint, and has required hostname anti-affinity
  against ``app=bench-web``, so explain sees several plugins fail.

Every existing pod is placed consistently (requests fit, spread skew within maxSkew, anti-affinity
honoured, taints tolerated), so the snapshot is a cluster the scheduler could have produced.
The same seed always gives byte-identical files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

import orjson

from planner.files import open_atomic, write_file

GENERATOR_VERSION = 1
OUT_DIR = Path(__file__).resolve().parent / "out"

REGION = "us-east-1"
ZONE_SETS: dict[int, list[tuple[str, str, float]]] = {
    3: [("us-east-1a", "use1-az1", 1.0), ("us-east-1b", "use1-az2", 1.0), ("us-east-1c", "use1-az4", 1.0)],
    6: [
        ("us-east-1a", "use1-az1", 0.28),
        ("us-east-1b", "use1-az2", 0.22),
        ("us-east-1c", "use1-az4", 0.17),
        ("us-east-1d", "use1-az6", 0.14),
        ("us-east-1e", "use1-az3", 0.11),
        ("us-east-1f", "use1-az5", 0.08),
    ],
}
PODS_PER_NODE = 30
# Which objects carry metadata.managedFields: none is what kubectl (>= 1.21) prints by default,
# all is kubectl get --show-managed-fields.
MANAGED_FIELDS = ("none", "no-pods", "all")
DEFAULT_MANAGED_FIELDS = "none"
MAX_PODS = 110
BASE_TIME = 1_735_689_600  # 2025-01-01T00:00:00Z
POOL_LABEL = "node.example.com/pool"
ZONE_LABEL = "topology.kubernetes.io/zone"
HOST_LABEL = "kubernetes.io/hostname"
BATCH_TAINT = {"effect": "NoSchedule", "key": "dedicated", "value": "batch"}
SAFE = "bcdfghjklmnpqrstvwxz2456789"
ECR = "123456789012.dkr.ecr.us-east-1.amazonaws.com"


@dataclass(frozen=True)
class Pool:
    name: str
    instance: str
    cpu: int  # cores
    mem_gi: int
    share: float

    @property
    def alloc_cpu_m(self) -> int:
        return self.cpu * 1000 - 110

    @property
    def cap_mem_ki(self) -> int:
        return self.mem_gi * 1024 * 1024 - 6_348

    @property
    def alloc_mem_ki(self) -> int:
        return self.cap_mem_ki - (255 + 11 * MAX_PODS) * 1024 - 100 * 1024


POOLS = [
    Pool("general", "m6i.4xlarge", 16, 64, 0.8),
    Pool("highmem", "r6i.4xlarge", 16, 128, 0.1),
    Pool("batch", "c6i.4xlarge", 16, 32, 0.1),
]

TEAMS = [
    "payments", "checkout", "search", "catalog", "identity", "ledger", "notifications", "analytics",
    "ads", "media", "shipping", "inventory", "pricing", "reviews", "messaging", "billing", "fraud",
    "recommendations", "gateway", "platform", "observability", "data", "ml", "growth",
]
PREFIXES = [
    "order", "user", "cart", "price", "stock", "mail", "auth", "session", "event", "image", "video",
    "feed", "rank", "geo", "tax", "coupon", "profile", "audit", "quote", "refund",
]
SUFFIXES = [
    "api", "worker", "web", "consumer", "scheduler", "indexer", "cache", "proxy", "sync", "exporter",
    "frontend", "backend", "grpc", "ingest", "reporter", "router",
]
CPU_CHOICES = (["50m", "100m", "200m", "250m", "500m", "1"], [15, 25, 20, 15, 15, 10])
MEM_CHOICES = (["64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "2Gi"], [10, 20, 25, 25, 15, 5])
REPLICA_CHOICES = ([1, 2, 3, 4, 6, 8, 12, 20, 40, 80, 150], [6, 14, 14, 10, 12, 10, 10, 10, 7, 5, 2])  # mean ~16


def _cpu_m(q: str) -> int:
    return int(q[:-1]) if q.endswith("m") else int(q) * 1000


def _mem_mi(q: str) -> int:
    return int(q[:-2]) * 1024 if q.endswith("Gi") else int(q[:-2])


def ts(offset: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(BASE_TIME + offset))


def rand_suffix(rng: Random, n: int = 5) -> str:
    return "".join(SAFE[rng.randrange(27)] for _ in range(n))


def rand_uid(rng: Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def rand_hex(rng: Random, bits: int = 256) -> str:
    return f"{rng.getrandbits(bits):0{bits // 4}x}"


def template_hash(template: Any) -> str:
    """A stable pod-template-hash-shaped value (10 characters of the safe alphabet)."""
    digest = hashlib.blake2b(orjson.dumps(template, option=orjson.OPT_SORT_KEYS), digest_size=10).digest()
    return "".join(SAFE[b % 27] for b in digest)


# --------------------------------------------------------------------------- managedFields


def fieldset(v: Any, depth: int = 0) -> Any:
    """A FieldsV1 set shaped like the API server's: f:<field>, "." for an owned map or list item,
    k:{merge key} for keyed lists, atomic lists as {}."""
    if isinstance(v, dict):
        out: dict[str, Any] = {} if depth < 2 else {".": {}}
        for k, x in v.items():
            out["f:" + k] = fieldset(x, depth + 1)
        return out
    if isinstance(v, list) and v and isinstance(v[0], dict):
        out = {}
        for item in v:
            if "containerPort" in item:
                key: dict[str, Any] = {"containerPort": item["containerPort"], "protocol": item.get("protocol", "TCP")}
            else:
                mk = next((m for m in ("uid", "name", "type", "ip", "key") if m in item), None)
                if mk is None:
                    return {}
                key = {mk: item[mk]}
            out["k:" + orjson.dumps(key).decode()] = fieldset(item, 2)
        return out
    return {}


def managed(manager: str, operation: str, t: str, fields: Any, api: str, subresource: str | None = None) -> dict:
    m = {"apiVersion": api, "fieldsType": "FieldsV1", "fieldsV1": fields, "manager": manager, "operation": operation, "time": t}
    if subresource:
        m["subresource"] = subresource
    return m


# --------------------------------------------------------------------------- the plan


class NodeRec:
    __slots__ = ("idx", "name", "ip", "zone", "zone_id", "pool", "cpu_free", "mem_free", "npods", "uid", "created", "a", "b")

    def __init__(self, idx: int, zone: tuple[str, str], pool: Pool, a: int, b: int, uid: str, created: int) -> None:
        self.idx = idx
        self.a, self.b = a, b
        self.ip = f"10.{a}.{b}.{10 + idx % 200}"
        self.name = f"ip-10-{a}-{b}-{10 + idx % 200}.ec2.internal"
        self.zone, self.zone_id = zone
        self.pool = pool
        self.cpu_free = pool.alloc_cpu_m
        self.mem_free = pool.alloc_mem_ki // 1024
        self.npods = 0
        self.uid = uid
        self.created = created


@dataclass
class Revision:  # a ReplicaSet of a Deployment
    name: str
    hash: str
    template: dict
    uid: str
    created: int
    replicas: int
    revision: int


@dataclass
class Workload:
    kind: str  # Deployment | StatefulSet | DaemonSet | Pod
    ns: str
    name: str
    replicas: int
    labels: dict
    tmpl_annotations: dict
    spec: dict  # pod template spec as stored (defaulted), without admission-added fields
    pool: str  # general | highmem | batch | any | daemon
    cpu_m: int
    mem_mi: int
    uid: str
    created: int
    zone_spread: bool = False
    anti: bool = False
    sa: str = "default"
    priority: int = 0
    priority_class: str = ""
    nodes: list[int] = field(default_factory=list)
    revisions: list[Revision] = field(default_factory=list)
    claims: list[tuple[str, str]] = field(default_factory=list)  # (template name, size)
    parallel: bool = False
    revision_hash: str = ""
    applied: dict | None = None
    hpa: tuple[int, int] | None = None
    pdb: str | None = None  # "minAvailable=1" | "maxUnavailable=1" ...
    managed_cache: Any = None


@dataclass
class PodRec:
    ns: str
    name: str
    wl: Workload
    node: int  # -1: Pending
    ordinal: int = -1
    created: int = 0


@dataclass
class ClaimRec:
    ns: str
    name: str
    wl: Workload
    ordinal: int
    tmpl: str
    size: str
    zone: str
    node: str
    uid: str
    pv: str
    volume_id: str
    created: int


class Cluster:
    """The plan: nodes, workloads and where each pod runs; objects are built from it on demand."""

    def __init__(self, nodes: int, zones: int, seed: int, pods_per_node: int = PODS_PER_NODE, managed_fields: str = DEFAULT_MANAGED_FIELDS) -> None:
        if managed_fields not in MANAGED_FIELDS:
            raise SystemExit(f"--managed-fields must be one of {', '.join(MANAGED_FIELDS)}")
        self.managed_fields = managed_fields
        if zones not in ZONE_SETS:
            raise SystemExit(f"--zones must be one of {sorted(ZONE_SETS)}")
        self.n_nodes, self.n_zones, self.seed = nodes, zones, seed
        self.rng = Random(f"bench-{seed}-{nodes}-{zones}")
        self.nodes: list[NodeRec] = []
        self.workloads: list[Workload] = []
        self.pods: list[PodRec] = []
        self.claims: list[ClaimRec] = []
        self.namespaces: list[tuple[str, int, str]] = []  # name, created, uid
        self.cursors: dict[tuple[str, str], int] = {}
        self.cands: dict[tuple[str, str], list[int]] = {}
        self.target_pods = nodes * pods_per_node
        self._names: dict[str, set[str]] = {}
        self._pod_names: dict[str, set[str]] = {}
        self._build_nodes()
        self._build_workloads()

    # ------------------------------------------------------------------ nodes

    def _build_nodes(self) -> None:
        rng = self.rng
        zones = ZONE_SETS[self.n_zones]
        total_w = sum(w for _, _, w in zones)
        counts = [int(self.n_nodes * w / total_w) for _, _, w in zones]
        i = 0
        while sum(counts) < self.n_nodes:
            counts[i % len(counts)] += 1
            i += 1
        idx = 0
        for zi, ((zone, zid, _), cnt) in enumerate(zip(zones, counts)):
            n_batch = max(1, round(cnt * 0.1)) if cnt >= 3 else 0
            n_high = max(1, round(cnt * 0.1)) if cnt >= 5 else 0
            for j in range(cnt):
                pool = POOLS[2] if j < n_batch else POOLS[1] if j < n_batch + n_high else POOLS[0]
                a = 16 + zi * 32 + j // 200
                b = j % 200 + 1
                node = NodeRec(idx, (zone, zid), pool, a, b, rand_uid(rng), rng.randrange(0, 86400 * 20))
                self.nodes.append(node)
                idx += 1
        for n in self.nodes:
            for key in ((n.pool.name, n.zone), (n.pool.name, "*")):
                self.cands.setdefault(key, []).append(n.idx)
            if n.pool.name != "batch":
                for key in (("any", n.zone), ("any", "*")):
                    self.cands.setdefault(key, []).append(n.idx)
        for key, lst in self.cands.items():
            if key[1] == "*":
                rng.shuffle(lst)  # interleave zones for unconstrained workloads
        self.zone_names = [z for z, _, _ in zones]

    # ------------------------------------------------------------------ placement

    def _fits(self, n: NodeRec, cpu: int, mem: int) -> bool:
        return n.cpu_free >= cpu and n.mem_free >= mem and n.npods < MAX_PODS

    def _take(self, n: NodeRec, cpu: int, mem: int) -> None:
        n.cpu_free -= cpu
        n.mem_free -= mem
        n.npods += 1

    def place(self, wl: Workload, count: int) -> list[int]:
        """Greedy placement honouring resources, zone spread (round robin over zones, so every
        prefix has skew <= 1) and hostname anti-affinity; stops at the first pod that fits nowhere."""
        pool = wl.pool
        zones = [z for z in self.zone_names if self.cands.get((pool, z))]
        start = self.rng.randrange(len(zones)) if zones else 0
        used: set[int] = set()
        placed: list[int] = []
        for i in range(count):
            key = (pool, zones[(start + i) % len(zones)]) if wl.zone_spread else (pool, "*")
            lst = self.cands[key]
            cur = self.cursors.get(key, 0)
            found = -1
            for step in range(len(lst)):
                ni = lst[(cur + step) % len(lst)]
                if wl.anti and ni in used:
                    continue
                if self._fits(self.nodes[ni], wl.cpu_m, wl.mem_mi):
                    found = ni
                    self.cursors[key] = (cur + step + 1) % len(lst)
                    break
            if found < 0:
                break
            self._take(self.nodes[found], wl.cpu_m, wl.mem_mi)
            used.add(found)
            placed.append(found)
        return placed

    # ------------------------------------------------------------------ workloads

    def _pod_name(self, ns: str, prefix: str) -> str:
        """<prefix>-<5 random characters>, unique in the namespace (the API server retries too)."""
        taken = self._pod_names.setdefault(ns, set())
        while True:
            name = f"{prefix}-{rand_suffix(self.rng)}"
            if name not in taken:
                taken.add(name)
                return name

    def _unique(self, ns: str, name: str) -> str:
        taken = self._names.setdefault(ns, set())
        base, k = name, 2
        while name in taken:
            name = f"{base}-{k}"
            k += 1
        taken.add(name)
        return name

    def _container(self, name: str, image: str, cpu: str, mem: str, port: int, env: list[dict], probe: bool = True, liveness: bool = False) -> dict:
        c: dict[str, Any] = {
            "env": env,
            "image": image,
            "imagePullPolicy": "IfNotPresent",
            "name": name,
            "ports": [{"containerPort": port, "name": "http", "protocol": "TCP"}],
            "resources": {"limits": {"memory": mem}, "requests": {"cpu": cpu, "memory": mem}},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
        }
        if probe:
            c["readinessProbe"] = {
                "failureThreshold": 3,
                "httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
                "periodSeconds": 10,
                "successThreshold": 1,
                "timeoutSeconds": 1,
            }
        if liveness:
            c["livenessProbe"] = {
                "failureThreshold": 3,
                "httpGet": {"path": "/livez", "port": "http", "scheme": "HTTP"},
                "initialDelaySeconds": 10,
                "periodSeconds": 10,
                "successThreshold": 1,
                "timeoutSeconds": 1,
            }
        return c

    def _env(self, ns: str, app: str) -> list[dict]:
        rng = self.rng
        env: list[dict] = [{"name": "LOG_LEVEL", "value": rng.choice(["info", "info", "warn", "debug"])}]
        if rng.random() < 0.5:
            env.append({"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}})
        if rng.random() < 0.5:
            env.append({"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.observability:4317"})
        if rng.random() < 0.3:
            env.append({"name": "DATABASE_URL", "valueFrom": {"secretKeyRef": {"key": "url", "name": f"{app}-db"}}})
        return env

    def _pod_spec(
        self,
        ns: str,
        app: str,
        cpu: str,
        mem: str,
        pool: str,
        zone_spread: bool,
        anti: bool,
        host_spread_soft: bool,
        soft_anti: bool,
        node_affinity: bool,
        sidecar: bool,
        version: str,
        extra: dict | None = None,
    ) -> dict:
        rng = self.rng
        sel = {"app.kubernetes.io/name": app}
        containers = [self._container(app, f"{ECR}/{ns}/{app}:{version}", cpu, mem, 8080, self._env(ns, app), rng.random() < 0.6, rng.random() < 0.2)]
        if sidecar:
            containers.append(
                self._container(
                    "log-shipper", "public.ecr.aws/aws-observability/aws-for-fluent-bit:2.32.2", "50m", "64Mi", 2020,
                    [{"name": "FLB_LOG_LEVEL", "value": "warn"}], probe=False,
                )
            )
        spec: dict[str, Any] = {
            "containers": containers,
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {"fsGroup": 65534, "runAsNonRoot": True} if rng.random() < 0.5 else {},
            "terminationGracePeriodSeconds": rng.choice([30, 30, 30, 60]),
        }
        aff: dict[str, Any] = {}
        if pool == "batch":
            spec["tolerations"] = [{"effect": "NoSchedule", "key": "dedicated", "operator": "Equal", "value": "batch"}]
            aff["nodeAffinity"] = {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": ["batch"]}]}]
                }
            }
        elif pool == "highmem":
            spec["nodeSelector"] = {POOL_LABEL: "highmem", "kubernetes.io/os": "linux"}
        elif pool == "general":
            spec["nodeSelector"] = {"kubernetes.io/os": "linux"}
            if node_affinity:
                aff["nodeAffinity"] = {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": POOL_LABEL, "operator": "In", "values": ["general"]},
                                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                                ]
                            }
                        ]
                    },
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"preference": {"matchExpressions": [{"key": "eks.amazonaws.com/capacityType", "operator": "In", "values": ["ON_DEMAND"]}]}, "weight": 50}
                    ],
                }
        if anti:
            aff["podAntiAffinity"] = {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": dict(sel)}, "topologyKey": HOST_LABEL}
                ]
            }
        elif soft_anti:
            aff["podAntiAffinity"] = {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"podAffinityTerm": {"labelSelector": {"matchLabels": dict(sel)}, "topologyKey": HOST_LABEL}, "weight": 100}
                ]
            }
        if aff:
            spec["affinity"] = aff
        tsc = []
        if zone_spread:
            tsc.append({"labelSelector": {"matchLabels": dict(sel)}, "maxSkew": 1, "topologyKey": ZONE_LABEL, "whenUnsatisfiable": "DoNotSchedule"})
        if host_spread_soft:
            tsc.append({"labelSelector": {"matchLabels": dict(sel)}, "maxSkew": 1, "topologyKey": HOST_LABEL, "whenUnsatisfiable": "ScheduleAnyway"})
        if tsc:
            spec["topologySpreadConstraints"] = tsc
        if rng.random() < 0.6:
            spec["serviceAccountName"] = app
            spec["serviceAccount"] = app
        if rng.random() < 0.5:  # hardened charts: no kube-api-access-xxxxx projected volume in the pods
            spec["automountServiceAccountToken"] = False
        if extra:
            spec.update(extra)
        return spec

    def _labels(self, ns: str, app: str, version: str) -> dict:
        return {
            "app.kubernetes.io/instance": app,
            "app.kubernetes.io/managed-by": "Helm",
            "app.kubernetes.io/name": app,
            "helm.sh/chart": f"{app}-{version.lstrip('v')}",
        }

    def _applied(self, kind: str, ns: str, name: str, labels: dict, replicas: int, spec_extra: dict, template: dict) -> dict:
        return {
            "apiVersion": "apps/v1",
            "kind": kind,
            "metadata": {"annotations": {}, "labels": labels, "name": name, "namespace": ns},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app.kubernetes.io/name": labels["app.kubernetes.io/name"]}}, **spec_extra, "template": template},
        }

    def _new_workload(
        self,
        kind: str,
        ns: str,
        name: str,
        replicas: int,
        pool: str,
        cpu: str,
        mem: str,
        *,
        zone_spread: bool = False,
        anti: bool = False,
        host_spread_soft: bool = False,
        soft_anti: bool = False,
        node_affinity: bool = False,
        sidecar: bool = False,
        labels_extra: dict | None = None,
        spec_extra: dict | None = None,
    ) -> Workload:
        rng = self.rng
        version = f"v{rng.randrange(1, 4)}.{rng.randrange(0, 30)}.{rng.randrange(0, 12)}"
        labels = self._labels(ns, name, version)
        if labels_extra:
            labels.update(labels_extra)
        spec = self._pod_spec(ns, name, cpu, mem, pool, zone_spread, anti, host_spread_soft, soft_anti, node_affinity, sidecar, version, spec_extra)
        tmpl_ann = {"prometheus.io/scrape": "true", "prometheus.io/port": "8080"} if rng.random() < 0.4 else {}
        if rng.random() < 0.3:
            tmpl_ann["kubectl.kubernetes.io/restartedAt"] = ts(86400 * 25 + rng.randrange(86400 * 5))
        cpu_m = sum(_cpu_m(c["resources"]["requests"]["cpu"]) for c in spec["containers"])
        mem_mi = sum(_mem_mi(c["resources"]["requests"]["memory"]) for c in spec["containers"])
        wl = Workload(
            kind, ns, name, replicas, labels, tmpl_ann, spec, pool, cpu_m, mem_mi, rand_uid(rng),
            86400 * 20 + rng.randrange(86400 * 5), zone_spread=zone_spread, anti=anti,
            sa=spec.get("serviceAccountName", "default"),
        )
        return wl

    def _finish_deployment(self, wl: Workload) -> None:
        rng = self.rng
        tmpl = {"metadata": {"creationTimestamp": None, "labels": dict(wl.labels), **({"annotations": dict(wl.tmpl_annotations)} if wl.tmpl_annotations else {})}, "spec": wl.spec}
        n_old = rng.choice([0, 0, 0, 1, 1, 2])
        revs = []
        for r in range(n_old):  # older revisions: another image tag, scaled to zero
            old_spec = dict(wl.spec)
            c0 = dict(old_spec["containers"][0])
            c0["image"] = c0["image"].rsplit(":", 1)[0] + f":v0.{r}.{rng.randrange(20)}"
            old_spec["containers"] = [c0, *old_spec["containers"][1:]]
            ot = {"metadata": {"creationTimestamp": None, "labels": dict(wl.labels)}, "spec": old_spec}
            h = template_hash(ot)
            ot["metadata"]["labels"]["pod-template-hash"] = h
            revs.append(Revision(f"{wl.name}-{h}", h, ot, rand_uid(rng), wl.created + 3600 * (r + 1), 0, r + 1))
        h = template_hash(tmpl)
        cur = {"metadata": {**tmpl["metadata"], "labels": {**wl.labels, "pod-template-hash": h}}, "spec": wl.spec}
        revs.append(Revision(f"{wl.name}-{h}", h, cur, rand_uid(rng), wl.created + 3600 * (n_old + 1), wl.replicas, n_old + 1))
        wl.revisions = revs
        wl.applied = self._applied(
            "Deployment", wl.ns, wl.name, wl.labels, wl.replicas, {},
            {"metadata": {"labels": wl.labels, **({"annotations": wl.tmpl_annotations} if wl.tmpl_annotations else {})}, "spec": {"containers": [{"image": c["image"], "name": c["name"]} for c in wl.spec["containers"]]}},
        )

    def _finish_statefulset(self, wl: Workload) -> None:
        c0 = dict(wl.spec["containers"][0])
        c0["volumeMounts"] = [{"mountPath": f"/var/lib/{tname}", "name": tname} for tname, _ in wl.claims]
        wl.spec = {**wl.spec, "containers": [c0, *wl.spec["containers"][1:]]}
        tmpl = {"metadata": {"creationTimestamp": None, "labels": dict(wl.labels)}, "spec": wl.spec}
        wl.revision_hash = f"{wl.name}-{template_hash(tmpl)[:10]}"
        wl.applied = self._applied(
            "StatefulSet", wl.ns, wl.name, wl.labels, wl.replicas, {"serviceName": wl.name},
            {"metadata": {"labels": wl.labels}, "spec": {"containers": [{"image": c["image"], "name": c["name"]} for c in wl.spec["containers"]]}},
        )

    def _add_pods(self, wl: Workload) -> None:
        rng = self.rng
        if wl.kind == "Deployment":
            rs = wl.revisions[-1]
            for ni in wl.nodes:
                self.pods.append(PodRec(wl.ns, self._pod_name(wl.ns, rs.name), wl, ni, -1, rs.created + rng.randrange(3600)))
        elif wl.kind == "StatefulSet":
            for i, ni in enumerate(wl.nodes):
                self.pods.append(PodRec(wl.ns, f"{wl.name}-{i}", wl, ni, i, wl.created + 60 * i))
                node = self.nodes[ni]
                for tname, size in wl.claims:
                    cname = f"{tname}-{wl.name}-{i}"
                    cuid = rand_uid(rng)
                    self.claims.append(
                        ClaimRec(wl.ns, cname, wl, i, tname, size, node.zone, node.name, cuid, f"pvc-{cuid}", f"vol-0{rand_hex(rng, 64)[:16]}", wl.created + 60 * i)
                    )

    def _build_workloads(self) -> None:
        rng = self.rng
        n_ns = max(5, self.n_nodes // 10)
        team_ns = [TEAMS[i % len(TEAMS)] + ("" if i < len(TEAMS) else f"-{i // len(TEAMS) + 1}") for i in range(n_ns)]
        for ns in ["bench", "default", "kube-node-lease", "kube-public", "kube-system", *team_ns]:
            self.namespaces.append((ns, rng.randrange(0, 86400 * 20), rand_uid(rng)))
        self.namespaces.sort()

        # DaemonSet pods: three per node, pinned with matchFields as the DaemonSet controller does.
        ds_specs = [
            ("kube-proxy", "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.31.2-minimal-eksbuild.3", "100m", "128Mi", 0),
            ("aws-node", "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.19.0-eksbuild.1", "25m", "64Mi", 61678),
            ("node-exporter", "quay.io/prometheus/node-exporter:v1.8.2", "50m", "180Mi", 9100),
        ]
        daemons = []
        for app, image, cpu, mem, port in ds_specs:
            c: dict[str, Any] = {
                "image": image, "imagePullPolicy": "IfNotPresent", "name": app,
                "resources": {"limits": {"memory": mem}, "requests": {"cpu": cpu, "memory": mem}},
                "securityContext": {"privileged": True} if app != "node-exporter" else {"readOnlyRootFilesystem": True},
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                "env": [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}}],
            }
            if port:
                c["ports"] = [{"containerPort": port, "hostPort": port, "name": "metrics", "protocol": "TCP"}]
            spec = {
                "containers": [c], "dnsPolicy": "ClusterFirst", "hostNetwork": True, "priorityClassName": "system-node-critical",
                "restartPolicy": "Always", "schedulerName": "default-scheduler", "securityContext": {},
                "serviceAccount": app, "serviceAccountName": app, "terminationGracePeriodSeconds": 30,
                "tolerations": [{"operator": "Exists"}],
            }
            labels = {"k8s-app": app, "controller-revision-hash": template_hash(spec)[:10], "pod-template-generation": "1"}
            wl = Workload("DaemonSet", "kube-system", app, self.n_nodes, labels, {}, spec, "daemon", _cpu_m(cpu), _mem_mi(mem), rand_uid(rng), rng.randrange(3600), sa=app, priority=2000001000, priority_class="system-node-critical")
            daemons.append(wl)
            for n in self.nodes:
                self._take(n, wl.cpu_m, wl.mem_mi)
                self.pods.append(PodRec("kube-system", self._pod_name("kube-system", app), wl, n.idx, -1, n.created + 30))
        self.daemons = daemons

        # The workloads the benchmark phases target.
        web = self._new_workload("Deployment", "bench", "bench-web", 12, "general", "250m", "256Mi", zone_spread=True, host_spread_soft=True)
        web.labels["app"] = "bench-web"
        web.pdb = "maxUnavailable=1"
        sts = self._new_workload("StatefulSet", "bench", "bench-sts", 6, "general", "500m", "1Gi", zone_spread=True, anti=True)
        sts.labels["app"] = "bench-sts"
        sts.claims = [("data", "20Gi")]
        sts.hpa = (3, 12)
        sts.pdb = "minAvailable=2"
        for wl in (web, sts):
            self._names.setdefault("bench", set()).add(wl.name)
            wl.nodes = self.place(wl, wl.replicas)
            assert len(wl.nodes) == wl.replicas, "bench workloads must fit"
            (self._finish_deployment if wl.kind == "Deployment" else self._finish_statefulset)(wl)
            self._add_pods(wl)
            self.workloads.append(wl)

        # Everything else, until the pod budget is spent.
        budget = self.target_pods - len(self.pods)
        failures = 0
        general_nodes = len(self.cands.get(("general", "*"), []))
        batch_nodes = len(self.cands.get(("batch", "*"), []))
        high_nodes = len(self.cands.get(("highmem", "*"), []))
        while budget > 0 and failures < 200:
            ns = rng.choice(team_ns)
            stateful = rng.random() < 0.05
            name = self._unique(ns, f"{rng.choice(PREFIXES)}-{rng.choice(SUFFIXES)}")
            u = rng.random()
            pool = "batch" if u < 0.1 and batch_nodes else "highmem" if u < 0.2 and high_nodes else "any" if u < 0.5 else "general"
            pool_nodes = {"batch": batch_nodes, "highmem": high_nodes, "general": general_nodes, "any": general_nodes + high_nodes}[pool]
            if stateful:
                replicas = rng.choice([1, 3, 3, 3, 5, 6])
            else:
                replicas = rng.choices(*REPLICA_CHOICES)[0]
            replicas = max(1, min(replicas, budget, pool_nodes * 4))
            anti = rng.random() < (0.5 if stateful else 0.1) and replicas <= pool_nodes // 2
            zone_spread = replicas > 1 and rng.random() < (0.6 if stateful else 0.3)
            wl = self._new_workload(
                "StatefulSet" if stateful else "Deployment", ns, name, replicas, pool,
                rng.choices(*CPU_CHOICES)[0], rng.choices(*MEM_CHOICES)[0],
                zone_spread=zone_spread, anti=anti,
                host_spread_soft=rng.random() < 0.25, soft_anti=rng.random() < 0.25,
                node_affinity=rng.random() < 0.3, sidecar=rng.random() < 0.05,
            )
            wl.nodes = self.place(wl, replicas)
            if not wl.nodes:
                failures += 1
                self._names[ns].discard(name)
                continue
            wl.replicas = len(wl.nodes)
            if stateful:
                wl.claims = [("data", rng.choice(["10Gi", "20Gi", "50Gi", "100Gi"]))] + ([("wal", "5Gi")] if rng.random() < 0.2 else [])
                wl.parallel = rng.random() < 0.3
                self._finish_statefulset(wl)
            else:
                self._finish_deployment(wl)
                if rng.random() < 0.1 and wl.replicas >= 2:
                    wl.hpa = (wl.replicas, wl.replicas * 3)
            if rng.random() < 0.2 and wl.replicas >= 2:
                wl.pdb = rng.choice(["maxUnavailable=1", "minAvailable=1", "maxUnavailable=25%"])
            self._add_pods(wl)
            self.workloads.append(wl)
            budget -= wl.replicas

        # The Pending pod explain looks at (see the module docstring).
        pend_spec = self._pod_spec("bench", "bench-pending", "20", "8Gi", "general", True, False, False, False, False, False, "v1.0.0")
        pend_spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "bench-web"}}, "topologyKey": HOST_LABEL}
                ]
            }
        }
        pend_spec["topologySpreadConstraints"] = [
            {"labelSelector": {"matchLabels": {"app": "bench-pending"}}, "maxSkew": 1, "topologyKey": ZONE_LABEL, "whenUnsatisfiable": "DoNotSchedule"}
        ]
        pend = Workload("Pod", "bench", "bench-pending", 1, {"app": "bench-pending"}, {}, pend_spec, "general", 20000, 8192, rand_uid(rng), 86400 * 29)
        self.pending = pend
        self.pods.append(PodRec("bench", "bench-pending", pend, -1, -1, pend.created))
        self.pods.sort(key=lambda p: (p.ns, p.name))
        self.claims.sort(key=lambda c: (c.ns, c.name))
        self.workloads.sort(key=lambda w: (w.ns, w.name))

    # ------------------------------------------------------------------ objects

    def objects(self) -> Iterator[dict]:
        """Every object in kubectl's order: nodes,pods,pv,pvc,sc,deploy,rs,sts,hpa,pdb,ns."""
        er = Random(f"emit-{self.seed}-{self.n_nodes}-{self.n_zones}")
        self._rv = 1_000_000
        pods_on: dict[int, int] = {}
        for p in self.pods:
            if p.node >= 0:
                pods_on[p.node] = pods_on.get(p.node, 0) + 1
        vols_on: dict[str, list[ClaimRec]] = {}
        for c in self.claims:
            vols_on.setdefault(c.node, []).append(c)
        yield from self._strip(self._objects(er, vols_on))

    def _strip(self, objs: Iterator[dict]) -> Iterator[dict]:
        mode = self.managed_fields
        for o in objs:
            if mode == "none" or (mode == "no-pods" and o["kind"] == "Pod"):
                o["metadata"].pop("managedFields", None)
            yield o

    def _objects(self, er: Random, vols_on: dict[str, list[ClaimRec]]) -> Iterator[dict]:
        for n in sorted(self.nodes, key=lambda n: n.name):
            yield self.node_obj(n, er, vols_on.get(n.name, []))
        for p in self.pods:
            yield self.pod_obj(p, er)
        for c in sorted(self.claims, key=lambda c: c.pv):
            yield self.pv_obj(c)
        for c in self.claims:
            yield self.pvc_obj(c)
        yield from self.storage_classes()
        deps = [w for w in self.workloads if w.kind == "Deployment"]
        for w in deps:
            yield self.deployment_obj(w)
        rss = sorted(((w, r) for w in deps for r in w.revisions), key=lambda x: (x[0].ns, x[1].name))
        for w, r in rss:
            yield self.replicaset_obj(w, r)
        for w in self.workloads:
            if w.kind == "StatefulSet":
                yield self.statefulset_obj(w)
        for w in self.workloads:
            if w.hpa:
                yield self.hpa_obj(w)
        for w in self.workloads:
            if w.pdb:
                yield self.pdb_obj(w)
        for name, created, uid in self.namespaces:
            yield self.namespace_obj(name, created, uid)

    def rv(self) -> str:
        self._rv += 7
        return str(self._rv)

    def node_obj(self, n: NodeRec, er: Random, vols: list[ClaimRec]) -> dict:
        p = n.pool
        labels = {
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/instance-type": p.instance,
            "beta.kubernetes.io/os": "linux",
            "eks.amazonaws.com/capacityType": "ON_DEMAND",
            "eks.amazonaws.com/nodegroup": f"{p.name}-{n.zone[-1]}",
            "eks.amazonaws.com/nodegroup-image": "ami-0c1b2d3e4f5a6b7c8",
            "failure-domain.beta.kubernetes.io/region": REGION,
            "failure-domain.beta.kubernetes.io/zone": n.zone,
            "k8s.io/cloud-provider-aws": "d1a4f0e8b7c6a5d4e3f2a1b0c9d8e7f6",
            "kubernetes.io/arch": "amd64",
            HOST_LABEL: n.name,
            "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": p.instance,
            POOL_LABEL: p.name,
            "topology.ebs.csi.aws.com/zone": n.zone,
            "topology.k8s.aws/zone-id": n.zone_id,
            "topology.kubernetes.io/region": REGION,
            ZONE_LABEL: n.zone,
        }
        ann = {
            "alpha.kubernetes.io/provided-node-ip": n.ip,
            "csi.volume.kubernetes.io/nodeid": orjson.dumps({"ebs.csi.aws.com": f"i-0{n.uid.replace('-', '')[:16]}"}).decode(),
            "node.alpha.kubernetes.io/ttl": "0",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        }
        t = ts(n.created)
        hb = ts(86400 * 30 - er.randrange(60))
        cap = {"cpu": str(p.cpu), "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": f"{p.cap_mem_ki}Ki", "pods": str(MAX_PODS)}
        alloc = {"cpu": f"{p.alloc_cpu_m}m", "ephemeral-storage": "95551679124", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": f"{p.alloc_mem_ki}Ki", "pods": str(MAX_PODS)}
        conds = [
            {"lastHeartbeatTime": hb, "lastTransitionTime": t, "message": "kubelet has sufficient memory available", "reason": "KubeletHasSufficientMemory", "status": "False", "type": "MemoryPressure"},
            {"lastHeartbeatTime": hb, "lastTransitionTime": t, "message": "kubelet has no disk pressure", "reason": "KubeletHasNoDiskPressure", "status": "False", "type": "DiskPressure"},
            {"lastHeartbeatTime": hb, "lastTransitionTime": t, "message": "kubelet has sufficient PID available", "reason": "KubeletHasSufficientPID", "status": "False", "type": "PIDPressure"},
            {"lastHeartbeatTime": hb, "lastTransitionTime": ts(n.created + 40), "message": "kubelet is posting ready status", "reason": "KubeletReady", "status": "True", "type": "Ready"},
        ]
        images = [
            {"names": [f"{ECR}/img-{k}@sha256:{rand_hex(er)}", f"{ECR}/img-{k}:v1.{k}.0"], "sizeBytes": 10_000_000 + er.randrange(400_000_000)}
            for k in range(8)
        ]
        status: dict[str, Any] = {
            "addresses": [
                {"address": n.ip, "type": "InternalIP"},
                {"address": n.name, "type": "InternalDNS"},
                {"address": n.name, "type": "Hostname"},
            ],
            "allocatable": alloc,
            "capacity": cap,
            "conditions": conds,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": images,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": rand_uid(er),
                "containerRuntimeVersion": "containerd://1.7.23",
                "kernelVersion": "6.1.115-126.197.amzn2023.x86_64",
                "kubeProxyVersion": "v1.31.2-eks-94953ac",
                "kubeletVersion": "v1.31.2-eks-94953ac",
                "machineID": rand_hex(er, 128),
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2023.6.20241111",
                "systemUUID": rand_uid(er),
            },
        }
        if vols:
            status["volumesAttached"] = [{"devicePath": "", "name": f"kubernetes.io/csi/ebs.csi.aws.com^{c.volume_id}"} for c in vols]
            status["volumesInUse"] = [f"kubernetes.io/csi/ebs.csi.aws.com^{c.volume_id}" for c in vols]
        spec: dict[str, Any] = {"providerID": f"aws:///{n.zone}/i-0{n.uid.replace('-', '')[:16]}"}
        if p.name == "batch":
            spec["taints"] = [dict(BATCH_TAINT)]
        mf = [
            managed("kubelet", "Update", t, fieldset({"metadata": {"annotations": {k: 0 for k in ann}, "labels": {k: 0 for k in labels}}}), "v1"),
            managed("aws-cloud-controller-manager", "Update", t, fieldset({"metadata": {"labels": {"node.kubernetes.io/instance-type": 0, ZONE_LABEL: 0}}, "spec": {"providerID": 0}}), "v1"),
            managed("kubelet", "Update", hb, fieldset({"status": {"allocatable": alloc, "capacity": cap, "conditions": conds, "images": {}, "nodeInfo": {"bootID": 0}}}), "v1", "status"),
        ]
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "annotations": ann,
                "creationTimestamp": t,
                "labels": labels,
                "managedFields": mf,
                "name": n.name,
                "resourceVersion": self.rv(),
                "uid": n.uid,
            },
            "spec": spec,
            "status": status,
        }

    def _owner(self, p: PodRec) -> tuple[dict | None, str]:
        wl = p.wl
        if wl.kind == "Deployment":
            rs = wl.revisions[-1]
            return {"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True, "kind": "ReplicaSet", "name": rs.name, "uid": rs.uid}, rs.name + "-"
        if wl.kind == "StatefulSet":
            return {"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True, "kind": "StatefulSet", "name": wl.name, "uid": wl.uid}, wl.name + "-"
        if wl.kind == "DaemonSet":
            return {"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True, "kind": "DaemonSet", "name": wl.name, "uid": wl.uid}, wl.name + "-"
        return None, ""

    def pod_obj(self, p: PodRec, er: Random) -> dict:
        wl = p.wl
        node = self.nodes[p.node] if p.node >= 0 else None
        owner, gen = self._owner(p)
        labels = dict(wl.labels)
        if wl.kind == "Deployment":
            labels["pod-template-hash"] = wl.revisions[-1].hash
        elif wl.kind == "StatefulSet":
            labels["apps.kubernetes.io/pod-index"] = str(p.ordinal)
            labels["controller-revision-hash"] = wl.revision_hash
            labels["statefulset.kubernetes.io/pod-name"] = p.name
        automount = wl.spec.get("automountServiceAccountToken", True)
        api = "kube-api-access-" + rand_suffix(er)
        mount = {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": api, "readOnly": True}
        spec = dict(wl.spec)
        if automount:
            spec["containers"] = [{**c, "volumeMounts": [*c.get("volumeMounts", []), mount]} for c in wl.spec["containers"]]
        spec["enableServiceLinks"] = True
        if node is not None:
            spec["nodeName"] = node.name
        spec["preemptionPolicy"] = "PreemptLowerPriority"
        spec["priority"] = wl.priority
        spec["serviceAccount"] = wl.sa
        spec["serviceAccountName"] = wl.sa
        if wl.kind == "DaemonSet":
            spec["affinity"] = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node.name if node else ""]}]}]
                    }
                }
            }
            spec["tolerations"] = [
                {"operator": "Exists"},
                {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"},
                {"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
                {"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"},
                {"effect": "NoSchedule", "key": "node.kubernetes.io/pid-pressure", "operator": "Exists"},
                {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
                {"effect": "NoSchedule", "key": "node.kubernetes.io/network-unavailable", "operator": "Exists"},
            ]
        else:
            spec["tolerations"] = [
                *wl.spec.get("tolerations", []),
                {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
                {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
            ]
        vols: list[dict] = []
        if wl.kind == "StatefulSet":
            spec["hostname"] = p.name
            spec["subdomain"] = wl.name
            vols = [{"name": t, "persistentVolumeClaim": {"claimName": f"{t}-{p.name}"}} for t, _ in wl.claims]
        if automount:
            vols.append(
            {
                "name": api,
                "projected": {
                    "defaultMode": 420,
                    "sources": [
                        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                        {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                        {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}},
                    ],
                },
            }
            )
        if vols:
            spec["volumes"] = vols
        if wl.priority_class:
            spec["priorityClassName"] = wl.priority_class
        created = ts(p.created)
        started = ts(p.created + 2)
        md: dict[str, Any] = {
            "creationTimestamp": created,
            "labels": labels,
            "name": p.name,
            "namespace": p.ns,
            "resourceVersion": self.rv(),
            "uid": rand_uid(er),
        }
        if wl.tmpl_annotations:
            md["annotations"] = dict(wl.tmpl_annotations)
        if owner is not None:
            md["generateName"] = gen
            md["ownerReferences"] = [owner]
            if wl.managed_cache is None:
                wl.managed_cache = fieldset(
                    {"metadata": {"generateName": 0, "labels": {k: 0 for k in labels}, "ownerReferences": [owner]}, "spec": {**wl.spec, "enableServiceLinks": 0}}
                )
            mgr = wl.managed_cache
        else:
            md["annotations"] = {
                "kubectl.kubernetes.io/last-applied-configuration": orjson.dumps(
                    {"apiVersion": "v1", "kind": "Pod", "metadata": {"annotations": {}, "labels": wl.labels, "name": p.name, "namespace": p.ns}, "spec": {"containers": [{"image": c["image"], "name": c["name"]} for c in wl.spec["containers"]]}},
                    option=orjson.OPT_SORT_KEYS,
                ).decode() + "\n"
            }
            mgr = fieldset({"metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": 0}, "labels": wl.labels}, "spec": wl.spec})
        if node is not None:
            pod_ip = node.ip if wl.kind == "DaemonSet" else f"10.{node.a + 128}.{node.b}.{20 + er.randrange(230)}"
            conds = [
                {"lastProbeTime": None, "lastTransitionTime": ts(p.created + 5), "status": "True", "type": "PodReadyToStartContainers"},
                {"lastProbeTime": None, "lastTransitionTime": created, "status": "True", "type": "Initialized"},
                {"lastProbeTime": None, "lastTransitionTime": ts(p.created + 15), "status": "True", "type": "Ready"},
                {"lastProbeTime": None, "lastTransitionTime": ts(p.created + 15), "status": "True", "type": "ContainersReady"},
                {"lastProbeTime": None, "lastTransitionTime": created, "status": "True", "type": "PodScheduled"},
            ]
            cstat = [
                {
                    "containerID": f"containerd://{rand_hex(er)}",
                    "image": c["image"],
                    "imageID": c["image"].rsplit(":", 1)[0] + f"@sha256:{rand_hex(er)}",
                    "lastState": {},
                    "name": c["name"],
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "state": {"running": {"startedAt": ts(p.created + 4)}},
                }
                for c in wl.spec["containers"]
            ]
            status: dict[str, Any] = {
                "conditions": conds,
                "containerStatuses": cstat,
                "hostIP": node.ip,
                "hostIPs": [{"ip": node.ip}],
                "phase": "Running",
                "podIP": pod_ip,
                "podIPs": [{"ip": pod_ip}],
                "qosClass": "Burstable",
                "startTime": started,
            }
            kubelet = fieldset({"status": {"conditions": conds, "containerStatuses": {}, "hostIP": 0, "hostIPs": [{"ip": node.ip}], "phase": 0, "podIP": 0, "podIPs": [{"ip": pod_ip}], "startTime": 0}})
            md["managedFields"] = [
                managed("kube-controller-manager" if owner else "kubectl-client-side-apply", "Update", created, mgr, "v1"),
                managed("kubelet", "Update", ts(p.created + 15), kubelet, "v1", "status"),
            ]
        else:
            n = len(self.nodes)
            n_batch = len(self.cands.get(("batch", "*"), []))
            msg = (
                f"0/{n} nodes are available: {n - n_batch} Insufficient cpu, {n_batch} node(s) had untolerated taint "
                f"{{dedicated: batch}}. preemption: 0/{n} nodes are available: {n_batch} Preemption is not helpful for scheduling, "
                f"{n - n_batch} No preemption victims found for incoming pod."
            )
            status = {
                "conditions": [{"lastProbeTime": None, "lastTransitionTime": created, "message": msg, "reason": "Unschedulable", "status": "False", "type": "PodScheduled"}],
                "phase": "Pending",
                "qosClass": "Burstable",
            }
            md["managedFields"] = [
                managed("kubectl-client-side-apply", "Update", created, mgr, "v1"),
                managed("kube-scheduler", "Update", created, fieldset({"status": {"conditions": status["conditions"]}}), "v1", "status"),
            ]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status}

    def pv_obj(self, c: ClaimRec) -> dict:
        t = ts(c.created + 3)
        spec = {
            "accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": c.size},
            "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": c.name, "namespace": c.ns, "resourceVersion": str(2_000_000 + c.created % 1000), "uid": c.uid},
            "csi": {"driver": "ebs.csi.aws.com", "fsType": "ext4", "volumeAttributes": {"storage.kubernetes.io/csiProvisionerIdentity": "1735689600000-8081-ebs.csi.aws.com"}, "volumeHandle": c.volume_id},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE_LABEL, "operator": "In", "values": [c.zone]}]}]}},
            "persistentVolumeReclaimPolicy": "Delete",
            "storageClassName": "gp3",
            "volumeMode": "Filesystem",
        }
        return {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {
                "annotations": {"pv.kubernetes.io/provisioned-by": "ebs.csi.aws.com", "volume.kubernetes.io/provisioner-deletion-secret-name": "", "volume.kubernetes.io/provisioner-deletion-secret-namespace": ""},
                "creationTimestamp": t,
                "finalizers": ["external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection", "external-attacher/ebs-csi-aws-com"],
                "managedFields": [
                    managed("csi-provisioner", "Update", t, fieldset({"metadata": {"annotations": {"pv.kubernetes.io/provisioned-by": 0}}, "spec": spec}), "v1"),
                    managed("kube-controller-manager", "Update", t, fieldset({"status": {"phase": 0}}), "v1", "status"),
                ],
                "name": c.pv,
                "resourceVersion": self.rv(),
                "uid": str(uuid.UUID(int=int(c.uid.replace("-", ""), 16) ^ 0x5A5A, version=4)),
            },
            "spec": spec,
            "status": {"lastPhaseTransitionTime": t, "phase": "Bound"},
        }

    def pvc_obj(self, c: ClaimRec) -> dict:
        t = ts(c.created)
        ann = {
            "pv.kubernetes.io/bind-completed": "yes",
            "pv.kubernetes.io/bound-by-controller": "yes",
            "volume.beta.kubernetes.io/storage-provisioner": "ebs.csi.aws.com",
            "volume.kubernetes.io/selected-node": c.node,
            "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com",
        }
        spec = {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": c.size}},
            "storageClassName": "gp3",
            "volumeMode": "Filesystem",
            "volumeName": c.pv,
        }
        return {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "annotations": ann,
                "creationTimestamp": t,
                "finalizers": ["kubernetes.io/pvc-protection"],
                "labels": {"app.kubernetes.io/name": c.wl.labels["app.kubernetes.io/name"], **({"app": c.wl.labels["app"]} if "app" in c.wl.labels else {})},
                "managedFields": [
                    managed("kube-controller-manager", "Update", t, fieldset({"metadata": {"annotations": ann, "labels": {}}, "spec": spec}), "v1"),
                    managed("kube-controller-manager", "Update", ts(c.created + 3), fieldset({"status": {"accessModes": {}, "capacity": {"storage": 0}, "phase": 0}}), "v1", "status"),
                ],
                "name": c.name,
                "namespace": c.ns,
                "resourceVersion": self.rv(),
                "uid": c.uid,
            },
            "spec": spec,
            "status": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": c.size}, "phase": "Bound"},
        }

    def storage_classes(self) -> Iterator[dict]:
        for name, default, params in (
            ("gp2", False, {"fsType": "ext4", "type": "gp2"}),
            ("gp3", True, {"encrypted": "true", "fsType": "ext4", "type": "gp3"}),
        ):
            applied = {
                "allowVolumeExpansion": True,
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"annotations": {"storageclass.kubernetes.io/is-default-class": str(default).lower()}, "name": name},
                "parameters": params,
                "provisioner": "ebs.csi.aws.com",
                "reclaimPolicy": "Delete",
                "volumeBindingMode": "WaitForFirstConsumer",
            }
            ann = {
                "kubectl.kubernetes.io/last-applied-configuration": orjson.dumps(applied, option=orjson.OPT_SORT_KEYS).decode() + "\n",
                "storageclass.kubernetes.io/is-default-class": str(default).lower(),
            }
            yield {
                "allowVolumeExpansion": True,
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {
                    "annotations": ann,
                    "creationTimestamp": ts(100),
                    "managedFields": [managed("kubectl-client-side-apply", "Update", ts(100), fieldset({"allowVolumeExpansion": 0, "metadata": {"annotations": ann}, "parameters": params, "provisioner": 0, "reclaimPolicy": 0, "volumeBindingMode": 0}), "storage.k8s.io/v1")],
                    "name": name,
                    "resourceVersion": self.rv(),
                    "uid": str(uuid.UUID(hashlib.md5(name.encode()).hexdigest(), version=4)),
                },
                "parameters": params,
                "provisioner": "ebs.csi.aws.com",
                "reclaimPolicy": "Delete",
                "volumeBindingMode": "WaitForFirstConsumer",
            }

    def _last_applied(self, wl: Workload) -> str:
        return orjson.dumps(wl.applied, option=orjson.OPT_SORT_KEYS).decode() + "\n"

    def deployment_obj(self, w: Workload) -> dict:
        cur = w.revisions[-1]
        t = ts(w.created)
        ann = {"deployment.kubernetes.io/revision": str(cur.revision), "kubectl.kubernetes.io/last-applied-configuration": self._last_applied(w), "meta.helm.sh/release-name": w.name, "meta.helm.sh/release-namespace": w.ns}
        tmpl_md: dict[str, Any] = {"creationTimestamp": None, "labels": dict(w.labels)}
        if w.tmpl_annotations:
            tmpl_md["annotations"] = dict(w.tmpl_annotations)
        spec = {
            "progressDeadlineSeconds": 600,
            "replicas": w.replicas,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"app.kubernetes.io/name": w.labels["app.kubernetes.io/name"]}},
            "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
            "template": {"metadata": tmpl_md, "spec": w.spec},
        }
        conds = [
            {"lastTransitionTime": ts(w.created + 60), "lastUpdateTime": ts(w.created + 60), "message": "Deployment has minimum availability.", "reason": "MinimumReplicasAvailable", "status": "True", "type": "Available"},
            {"lastTransitionTime": t, "lastUpdateTime": ts(cur.created + 60), "message": f'ReplicaSet "{cur.name}" has successfully progressed.', "reason": "NewReplicaSetAvailable", "status": "True", "type": "Progressing"},
        ]
        gen = len(w.revisions)
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "annotations": ann,
                "creationTimestamp": t,
                "generation": gen,
                "labels": dict(w.labels),
                "managedFields": [
                    managed("kubectl-client-side-apply", "Update", t, fieldset({"metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": 0}, "labels": w.labels}, "spec": spec}), "apps/v1"),
                    managed("kube-controller-manager", "Update", ts(cur.created + 60), fieldset({"metadata": {"annotations": {"deployment.kubernetes.io/revision": 0}}, "status": {"availableReplicas": 0, "conditions": conds, "observedGeneration": 0, "readyReplicas": 0, "replicas": 0, "updatedReplicas": 0}}), "apps/v1", "status"),
                ],
                "name": w.name,
                "namespace": w.ns,
                "resourceVersion": self.rv(),
                "uid": w.uid,
            },
            "spec": spec,
            "status": {"availableReplicas": w.replicas, "conditions": conds, "observedGeneration": gen, "readyReplicas": w.replicas, "replicas": w.replicas, "updatedReplicas": w.replicas},
        }

    def replicaset_obj(self, w: Workload, r: Revision) -> dict:
        t = ts(r.created)
        ann = {"deployment.kubernetes.io/desired-replicas": str(w.replicas), "deployment.kubernetes.io/max-replicas": str(w.replicas + (w.replicas + 3) // 4), "deployment.kubernetes.io/revision": str(r.revision), "meta.helm.sh/release-name": w.name, "meta.helm.sh/release-namespace": w.ns}
        labels = dict(r.template["metadata"]["labels"])
        spec = {
            "replicas": r.replicas,
            "selector": {"matchLabels": {"app.kubernetes.io/name": w.labels["app.kubernetes.io/name"], "pod-template-hash": r.hash}},
            "template": r.template,
        }
        status: dict[str, Any] = {"observedGeneration": 1 if r.replicas == 0 else 2, "replicas": r.replicas}
        if r.replicas:
            status.update(availableReplicas=r.replicas, fullyLabeledReplicas=r.replicas, readyReplicas=r.replicas)
        owner = {"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True, "kind": "Deployment", "name": w.name, "uid": w.uid}
        return {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "annotations": ann,
                "creationTimestamp": t,
                "generation": 2 if r.replicas else 3,
                "labels": labels,
                "managedFields": [
                    managed("kube-controller-manager", "Update", t, fieldset({"metadata": {"annotations": ann, "labels": labels, "ownerReferences": [owner]}, "spec": spec}), "apps/v1"),
                    managed("kube-controller-manager", "Update", ts(r.created + 60), fieldset({"status": status}), "apps/v1", "status"),
                ],
                "name": r.name,
                "namespace": w.ns,
                "ownerReferences": [owner],
                "resourceVersion": self.rv(),
                "uid": r.uid,
            },
            "spec": spec,
            "status": status,
        }

    def statefulset_obj(self, w: Workload) -> dict:
        t = ts(w.created)
        spec: dict[str, Any] = {
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
            "podManagementPolicy": "Parallel" if w.parallel else "OrderedReady",
            "replicas": w.replicas,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"app.kubernetes.io/name": w.labels["app.kubernetes.io/name"]}},
            "serviceName": w.name,
            "template": {"metadata": {"creationTimestamp": None, "labels": dict(w.labels)}, "spec": w.spec},
            "updateStrategy": {"rollingUpdate": {"partition": 0}, "type": "RollingUpdate"},
            "volumeClaimTemplates": [
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolumeClaim",
                    "metadata": {"creationTimestamp": None, "name": tname},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}, "storageClassName": "gp3", "volumeMode": "Filesystem"},
                    "status": {"phase": "Pending"},
                }
                for tname, size in w.claims
            ],
        }
        status = {
            "availableReplicas": w.replicas,
            "collisionCount": 0,
            "currentReplicas": w.replicas,
            "currentRevision": w.revision_hash,
            "observedGeneration": 1,
            "readyReplicas": w.replicas,
            "replicas": w.replicas,
            "updateRevision": w.revision_hash,
            "updatedReplicas": w.replicas,
        }
        ann = {"kubectl.kubernetes.io/last-applied-configuration": self._last_applied(w)}
        return {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {
                "annotations": ann,
                "creationTimestamp": t,
                "generation": 1,
                "labels": dict(w.labels),
                "managedFields": [
                    managed("kubectl-client-side-apply", "Update", t, fieldset({"metadata": {"annotations": ann, "labels": w.labels}, "spec": spec}), "apps/v1"),
                    managed("kube-controller-manager", "Update", ts(w.created + 600), fieldset({"status": status}), "apps/v1", "status"),
                ],
                "name": w.name,
                "namespace": w.ns,
                "resourceVersion": self.rv(),
                "uid": w.uid,
            },
            "spec": spec,
            "status": status,
        }

    def hpa_obj(self, w: Workload) -> dict:
        assert w.hpa is not None
        lo, hi = w.hpa
        t = ts(w.created + 120)
        spec = {
            "maxReplicas": hi,
            "metrics": [{"resource": {"name": "cpu", "target": {"averageUtilization": 70, "type": "Utilization"}}, "type": "Resource"}],
            "minReplicas": lo,
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": w.kind, "name": w.name},
        }
        conds = [
            {"lastTransitionTime": t, "message": "recommended size matches current size", "reason": "ReadyForNewScale", "status": "True", "type": "AbleToScale"},
            {"lastTransitionTime": t, "message": "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)", "reason": "ValidMetricFound", "status": "True", "type": "ScalingActive"},
            {"lastTransitionTime": t, "message": "the desired count is within the acceptable range", "reason": "DesiredWithinRange", "status": "False", "type": "ScalingLimited"},
        ]
        status = {
            "conditions": conds,
            "currentMetrics": [{"resource": {"current": {"averageUtilization": 41, "averageValue": "103m"}, "name": "cpu"}, "type": "Resource"}],
            "currentReplicas": w.replicas,
            "desiredReplicas": w.replicas,
            "lastScaleTime": t,
        }
        return {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "metadata": {
                "annotations": {"meta.helm.sh/release-name": w.name, "meta.helm.sh/release-namespace": w.ns},
                "creationTimestamp": t,
                "labels": dict(w.labels),
                "managedFields": [
                    managed("helm", "Update", t, fieldset({"metadata": {"labels": w.labels}, "spec": spec}), "autoscaling/v2"),
                    managed("kube-controller-manager", "Update", t, fieldset({"status": status}), "autoscaling/v2", "status"),
                ],
                "name": w.name,
                "namespace": w.ns,
                "resourceVersion": self.rv(),
                "uid": str(uuid.UUID(int=int(w.uid.replace("-", ""), 16) ^ 0x1111, version=4)),
            },
            "spec": spec,
            "status": status,
        }

    def pdb_obj(self, w: Workload) -> dict:
        assert w.pdb is not None
        k, _, v = w.pdb.partition("=")
        val: Any = v if v.endswith("%") else int(v)
        t = ts(w.created + 60)
        spec = {k: val, "selector": {"matchLabels": {"app.kubernetes.io/name": w.labels["app.kubernetes.io/name"]}}}
        status = {
            "conditions": [{"lastTransitionTime": t, "message": "", "observedGeneration": 1, "reason": "SufficientPods", "status": "True", "type": "DisruptionAllowed"}],
            "currentHealthy": w.replicas,
            "desiredHealthy": max(0, w.replicas - 1),
            "disruptionsAllowed": 1,
            "expectedPods": w.replicas,
            "observedGeneration": 1,
        }
        return {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {
                "creationTimestamp": t,
                "generation": 1,
                "labels": dict(w.labels),
                "managedFields": [
                    managed("helm", "Update", t, fieldset({"metadata": {"labels": w.labels}, "spec": spec}), "policy/v1"),
                    managed("kube-controller-manager", "Update", t, fieldset({"status": status}), "policy/v1", "status"),
                ],
                "name": w.name,
                "namespace": w.ns,
                "resourceVersion": self.rv(),
                "uid": str(uuid.UUID(int=int(w.uid.replace("-", ""), 16) ^ 0x2222, version=4)),
            },
            "spec": spec,
            "status": status,
        }

    def namespace_obj(self, name: str, created: int, uid: str) -> dict:
        t = ts(created)
        labels = {"kubernetes.io/metadata.name": name}
        if name not in ("default", "kube-system", "kube-public", "kube-node-lease"):
            labels["team"] = name.split("-")[0]
        return {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "creationTimestamp": t,
                "labels": labels,
                "managedFields": [managed("kubectl-create", "Update", t, fieldset({"metadata": {"labels": labels}}), "v1")],
                "name": name,
                "resourceVersion": self.rv(),
                "uid": uid,
            },
            "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"},
        }

    def summary(self) -> dict[str, int]:
        kinds: dict[str, int] = {"nodes": len(self.nodes), "pods": len(self.pods), "pvcs": len(self.claims)}
        kinds["deployments"] = sum(1 for w in self.workloads if w.kind == "Deployment")
        kinds["replicasets"] = sum(len(w.revisions) for w in self.workloads if w.kind == "Deployment")
        kinds["statefulsets"] = sum(1 for w in self.workloads if w.kind == "StatefulSet")
        kinds["namespaces"] = len(self.namespaces)
        return kinds


# --------------------------------------------------------------------------- writers

_INDENT = re.compile(rb"\n((?:  )*)")
_OPTS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


def write_json(objects: Iterator[dict], f: Any) -> int:
    """kubectl's List: keys sorted, 4-space indent (orjson's 2-space output re-indented)."""
    f.write(b'{\n    "apiVersion": "v1",\n    "items": [\n')
    n = 0
    batch: list[bytes] = []
    for obj in objects:
        b = orjson.dumps(obj, option=_OPTS)
        batch.append(b"        " + _INDENT.sub(rb"\n        \1\1", b))
        n += 1
        if len(batch) >= 512:
            if n > len(batch):
                f.write(b",\n")
            f.write(b",\n".join(batch))
            batch.clear()
    if batch:
        if n > len(batch):
            f.write(b",\n")
        f.write(b",\n".join(batch))
    f.write(b'\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')
    return n


def write_compact_json(objects: Iterator[dict], f: Any) -> int:
    """The same List in compact JSON (``kubectl get -o json | jq -c``; the API server's own
    responses, ``kubectl get --raw``, are compact too): keys sorted, no whitespace at all."""
    f.write(b'{"apiVersion":"v1","items":[')
    n = 0
    batch: list[bytes] = []
    for obj in objects:
        batch.append(orjson.dumps(obj, option=orjson.OPT_SORT_KEYS))
        n += 1
        if len(batch) >= 512:
            if n > len(batch):
                f.write(b",")
            f.write(b",".join(batch))
            batch.clear()
    if batch:
        if n > len(batch):
            f.write(b",")
        f.write(b",".join(batch))
    f.write(b'],"kind":"List","metadata":{"resourceVersion":""}}\n')
    return n


WRITERS: dict[str, Callable[[Iterator[dict], Any], int]] = {}


class YamlWriter:
    """Block-style YAML as kubectl (go-yaml) prints it: sorted keys, sequences at the key's indent,
    plain scalars where they read back as strings, single quotes otherwise, ``|`` for the
    newline-terminated JSON of last-applied-configuration."""

    _PLAIN = re.compile(r"[A-Za-z0-9_/.$][A-Za-z0-9_./@+=:$ ,()-]*\Z")

    def __init__(self) -> None:
        import yaml

        self._resolver = yaml.resolver.Resolver()
        self._node = yaml.ScalarNode
        self._cache: dict[str, str] = {}

    def scalar(self, s: str) -> str:
        r = self._cache.get(s)
        if r is not None:
            return r
        if (
            s
            and self._PLAIN.match(s)
            and not s.endswith((":", " "))
            and ": " not in s
            and " #" not in s
            and self._resolver.resolve(self._node, s, (True, False)) == "tag:yaml.org,2002:str"
        ):
            r = s
        elif all(32 <= ord(ch) < 127 for ch in s):
            r = "'" + s.replace("'", "''") + "'"
        else:
            r = json.dumps(s)
        if len(self._cache) < 200_000:
            self._cache[s] = r
        return r

    def value(self, v: Any) -> str:
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        if isinstance(v, int):
            return str(v)
        return self.scalar(v)

    def emit(self, obj: Any, out: list[str], indent: str) -> None:
        """``obj`` (a non-empty mapping) at ``indent``; each line ends with a newline."""
        for k in sorted(obj):
            v = obj[k]
            key = self.scalar(k)
            if isinstance(v, dict):
                if v:
                    out.append(f"{indent}{key}:\n")
                    self.emit(v, out, indent + "  ")
                else:
                    out.append(f"{indent}{key}: {{}}\n")
            elif isinstance(v, list):
                if v:
                    out.append(f"{indent}{key}:\n")
                    self.emit_list(v, out, indent)
                else:
                    out.append(f"{indent}{key}: []\n")
            elif isinstance(v, str) and v.endswith("\n") and v.count("\n") == 1 and all(32 <= ord(ch) < 127 for ch in v[:-1]) and v[:1] not in (" ", ""):
                out.append(f"{indent}{key}: |\n{indent}  {v}")
            else:
                out.append(f"{indent}{key}: {self.value(v)}\n")

    def emit_list(self, items: list, out: list[str], indent: str) -> None:
        for it in items:
            if isinstance(it, dict) and it:
                sub: list[str] = []
                self.emit(it, sub, indent + "  ")
                sub[0] = indent + "- " + sub[0][len(indent) + 2:]
                out.extend(sub)
            elif isinstance(it, list) and it:
                sub = []
                self.emit_list(it, sub, indent + "  ")
                sub[0] = indent + "- " + sub[0][len(indent) + 2:]
                out.extend(sub)
            elif isinstance(it, dict):
                out.append(f"{indent}- {{}}\n")
            elif isinstance(it, list):
                out.append(f"{indent}- []\n")
            else:
                out.append(f"{indent}- {self.value(it)}\n")


def write_yaml(objects: Iterator[dict], f: Any) -> int:
    w = YamlWriter()
    n = 0
    out: list[str] = []
    for obj in objects:
        if n:
            out.append("---\n")
        w.emit(obj, out, "")
        n += 1
        if len(out) > 50_000:
            f.write("".join(out).encode())
            out.clear()
    f.write("".join(out).encode())
    return n


WRITERS.update(json=write_json, yaml=write_yaml, compact=write_compact_json)
FORMATS = tuple(WRITERS)  # json: kubectl's indented List; yaml: one document per object; compact: one-line JSON

# --------------------------------------------------------------------------- files


def file_name(nodes: int, zones: int, seed: int, fmt: str, managed_fields: str = DEFAULT_MANAGED_FIELDS) -> str:
    seed_part = "" if seed == 1 else f"-s{seed}"
    mf_part = "" if managed_fields == DEFAULT_MANAGED_FIELDS else f"-mf{managed_fields.replace('-', '')}"
    if fmt == "compact":
        return f"cluster-{nodes}n-{zones}z{seed_part}{mf_part}-compact.json"
    return f"cluster-{nodes}n-{zones}z{seed_part}{mf_part}.{fmt}"


def _meta_path(path: Path) -> Path:
    return path.with_name(path.name + ".meta.json")


def generator_digest() -> str:
    """Files are regenerated whenever this module changes."""
    return hashlib.blake2b(Path(__file__).read_bytes(), digest_size=8).hexdigest()


def up_to_date(path: Path, nodes: int, zones: int, seed: int, managed_fields: str = DEFAULT_MANAGED_FIELDS) -> bool:
    meta = _meta_path(path)
    if not path.exists() or not meta.exists():
        return False
    try:
        m = json.loads(meta.read_text())
    except ValueError:
        return False
    want = {"generator": GENERATOR_VERSION, "digest": generator_digest(), "nodes": nodes, "zones": zones, "seed": seed, "managed_fields": managed_fields}
    return all(m.get(k) == v for k, v in want.items()) and m.get("bytes") == path.stat().st_size


def generate(
    nodes: int,
    zones: int,
    seed: int,
    fmts: list[str],
    out_dir: Path = OUT_DIR,
    log: Callable[[str], None] | None = None,
    managed_fields: str = DEFAULT_MANAGED_FIELDS,
) -> dict[str, Path]:
    """Write the cluster in each format (atomically, with a .meta.json sidecar); returns the paths."""
    log = log or (lambda m: None)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    cluster = Cluster(nodes, zones, seed, managed_fields=managed_fields)
    summary = cluster.summary()
    log(f"planned {nodes} nodes / {zones} zones / seed {seed}: {summary} in {time.perf_counter() - t0:.1f}s")
    paths = {}
    for fmt in fmts:
        t1 = time.perf_counter()
        path = out_dir / file_name(nodes, zones, seed, fmt, managed_fields)
        # a fresh temporary file beside it (O_EXCL), renamed over it: a symlink there is replaced, not followed
        with open_atomic(path) as f:
            count = WRITERS[fmt](cluster.objects(), f)
        size = path.stat().st_size
        meta = {
            "generator": GENERATOR_VERSION,
            "digest": generator_digest(),
            "nodes": nodes,
            "zones": zones,
            "seed": seed,
            "managed_fields": managed_fields,
            "format": fmt,
            "objects": count,
            "bytes": size,
            **summary,
        }
        write_file(_meta_path(path), json.dumps(meta, indent=2) + "\n")
        log(f"wrote {path} ({size / 2**20:.1f} MiB, {count} objects) in {time.perf_counter() - t1:.1f}s")
        paths[fmt] = path
    return paths


def ensure(
    nodes: int,
    zones: int,
    seed: int,
    fmts: list[str],
    out_dir: Path = OUT_DIR,
    log: Callable[[str], None] | None = None,
    managed_fields: str = DEFAULT_MANAGED_FIELDS,
) -> dict[str, Path]:
    """The files for this cluster, generated only if missing or stale."""
    want = {fmt: out_dir / file_name(nodes, zones, seed, fmt, managed_fields) for fmt in fmts}
    missing = [fmt for fmt, p in want.items() if not up_to_date(p, nodes, zones, seed, managed_fields)]
    if missing:
        want.update(generate(nodes, zones, seed, missing, out_dir, log, managed_fields))
    return want


def read_meta(path: Path) -> dict:
    return json.loads(_meta_path(path).read_text())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--zones", type=int, default=3, choices=sorted(ZONE_SETS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--format", choices=[*FORMATS, "both", "all"], default="json", help="both: json and yaml; all: every format")
    ap.add_argument(
        "--managed-fields",
        choices=MANAGED_FIELDS,
        default=DEFAULT_MANAGED_FIELDS,
        help="which objects carry metadata.managedFields: none (kubectl's default output), no-pods, all "
        "(kubectl get --show-managed-fields)",
    )
    ap.add_argument("--out", type=Path, default=OUT_DIR, help="output directory (default bench/out)")
    a = ap.parse_args(argv)
    if a.nodes < 3:
        ap.error("--nodes must be at least 3")
    fmts = ["json", "yaml"] if a.format == "both" else list(FORMATS) if a.format == "all" else [a.format]
    paths = generate(a.nodes, a.zones, a.seed, fmts, a.out, log=lambda m: print(m, file=sys.stderr), managed_fields=a.managed_fields)
    for p in paths.values():
        print(p)


if __name__ == "__main__":
    main()
