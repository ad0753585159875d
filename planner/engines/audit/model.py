"""What the audit works on: findings, the workloads audited, and shared helpers."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from planner.controllers.deployment import new_replicaset_of
from planner.controllers.statefulset import new_statefulset_pod
from planner.domain import Deployment, Node, Pod, StatefulSet
from planner.engines.workloads import WorkloadRef, deployment_pods, is_running, pods_of_workload
from planner.matching import find_untolerated_taint, node_selector_matches, pod_matches_node_selector_and_affinity
from planner.scheduler.framework import ClusterState
from planner.snapshot import Snapshot

CLUSTER_SCOPED = {"Node", "PersistentVolume", "StorageClass", "Namespace"}


def obj(kind: str, namespace: str | None, name: str) -> str:
    """An object as findings name it: ``kind/namespace/name`` (``kind/name`` when cluster-scoped),
    the kind in lower case."""
    if kind in CLUSTER_SCOPED or not namespace:
        return f"{kind.lower()}/{name}"
    return f"{kind.lower()}/{namespace}/{name}"


def obj_from_text(text: str) -> str | None:
    """'PersistentVolumeClaim default/data-search-2' (check's explanation objects) -> object name."""
    kind, _, rest = text.partition(" ")
    if not kind or not rest or " " in rest:
        return None
    if "/" in rest:
        ns, _, name = rest.partition("/")
        return obj(kind, ns, name)
    return obj(kind, None, rest)


@dataclass
class Goal:
    """What a fix must achieve, for planner remediate: the workload reaches ``replicas`` (check) or a
    rollout completes (replay); ``without_pod`` asks it with that pod evicted first."""

    ref: WorkloadRef
    replicas: int | None = None
    rollout: bool = False
    without_pod: str | None = None
    snapshot: Snapshot | None = field(default=None, repr=False)  # the cluster after the event, when not as read


@dataclass
class Finding:
    rule: str
    severity: str
    objects: list[str]  # objects[0] is the object the finding is about (the workload)
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    fix: dict | None = None
    goal: Goal | None = field(default=None, repr=False)
    suppressed: dict | None = None  # why the finding is ignored (planner.engines.audit.ignore), None when it is not

    def to_json(self) -> dict[str, Any]:
        out = {
            "rule": self.rule,
            "severity": self.severity,
            "objects": self.objects,
            "message": self.message,
            "details": self.details,
            "fix": self.fix,
        }
        if self.suppressed is not None:
            out["suppressed"] = self.suppressed
        return out


@dataclass
class Workload:
    """A Deployment or StatefulSet under audit, with a pod of its current template (the probe: what
    its controller would create next)."""

    snap: Snapshot
    ref: WorkloadRef
    obj: Deployment | StatefulSet

    @property
    def name(self) -> str:
        return str(self.ref)

    @property
    def is_statefulset(self) -> bool:
        return isinstance(self.obj, StatefulSet)

    @cached_property
    def probe(self) -> Pod:
        o = self.obj
        if isinstance(o, StatefulSet):
            return new_statefulset_pod(o, o.ordinals_start + o.replicas, o.update_revision)
        pod = deployment_pods(self.snap, o, new_replicaset_of(self.snap, o), 1)[0]
        return replace(pod, name=f"{o.name}-audit-probe")

    @cached_property
    def pods(self) -> list[Pod]:
        """The pods the workload controls (through its ReplicaSets for a Deployment), by name."""
        return pods_of_workload(self.snap, self.obj)

    @property
    def running(self) -> list[Pod]:
        return [p for p in self.pods if is_running(p)]

    @property
    def spread(self) -> tuple:
        return self.obj.template.spec.topology_spread_constraints

    @property
    def affinity(self):
        return self.obj.template.spec.affinity

    def hard_constraints(self) -> bool:
        """DoNotSchedule spread or required pod (anti-)affinity: what can make a pod wait."""
        if any(c.when_unsatisfiable == "DoNotSchedule" for c in self.spread):
            return True
        a = self.affinity
        return a is not None and bool(a.pod_anti_affinity_required or a.pod_affinity_required)


def node_admits(pod: Pod, node: Node) -> bool:
    """The static filters that do not depend on other pods: NodeUnschedulable, NodeAffinity
    (nodeSelector and required node affinity) and TaintToleration (NoSchedule, NoExecute)."""
    if node.unschedulable and not any(t.key == "node.kubernetes.io/unschedulable" or (not t.key and t.operator == "Exists")
                                      for t in pod.spec.tolerations):
        return False
    if not pod_matches_node_selector_and_affinity(pod.spec, node):
        return False
    return find_untolerated_taint(node.taints, pod.spec.tolerations) is None


def pinned_domains(snap: Snapshot, pod: Pod, key: str) -> tuple[set[str] | None, list[str]]:
    """The values of ``key`` the pod's bound volumes allow (None: no volume pins it) and the claims
    that pin it.  A bound claim's PV allows the nodes its nodeAffinity matches."""
    allowed: set[str] | None = None
    claims = []
    for v in pod.spec.volumes:
        pvc = snap.pvcs.get(f"{pod.namespace}/{v.claim_name}")
        if pvc is None or not pvc.volume_name:
            continue
        pv = snap.pvs.get(pvc.volume_name)
        if pv is None or pv.node_affinity is None:
            continue
        values = {n.labels[key] for n in snap.nodes.values() if key in n.labels and node_selector_matches(pv.node_affinity, n)}
        allowed = values if allowed is None else allowed & values
        claims.append(pvc.key)
    return allowed, claims


def claim_domains(snap: Snapshot, claim_key: str, key: str) -> set[str] | None:
    pvc = snap.pvcs.get(claim_key)
    if pvc is None or not pvc.volume_name:
        return None
    pv = snap.pvs.get(pvc.volume_name)
    if pv is None or pv.node_affinity is None:
        return None
    return {n.labels[key] for n in snap.nodes.values() if key in n.labels and node_selector_matches(pv.node_affinity, n)}


class Context:
    """The snapshot, the cluster as the filters see it (built once), findings and notes."""

    def __init__(self, snap: Snapshot, opts: Any = None) -> None:
        self.snap = snap
        self.opts = opts
        self.findings: list[Finding] = []
        self.notes: list[str] = []

    @cached_property
    def cluster(self) -> ClusterState:
        return ClusterState.from_snapshot(self.snap)

    @cached_property
    def running_by_ns(self) -> dict[str, list[Pod]]:
        """The pods bound to a node (not terminal), by namespace."""
        out: dict[str, list[Pod]] = {}
        for p in self.snap.pods.values():
            if p.assigned:
                out.setdefault(p.namespace, []).append(p)
        return out

    @cached_property
    def focuser(self) -> Any:
        from planner.engines.audit.focus import Focuser

        return Focuser(self.snap)

    def add(self, f: Finding) -> None:
        self.findings.append(f)

    def has(self, rule: str, workload: str) -> bool:
        return any(f.rule == rule and f.objects and f.objects[0] == workload for f in self.findings)

    def finding(self, rule: str, workload: str) -> Finding | None:
        return next((f for f in self.findings if f.rule == rule and f.objects and f.objects[0] == workload), None)
