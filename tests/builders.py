"""Terse builders for domain objects in table tests (the analogue of upstream's st.MakePod()).

Quantities are given in planner's integer units: cpu in millicores, memory in bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from planner.domain import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    Affinity,
    HostPort,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerRef,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodAffinityTerm,
    PodSpec,
    PodVolume,
    StorageClass,
    Taint,
    Toleration,
    TopologySelectorTerm,
    TopologySpreadConstraint,
)
from planner.scheduler.framework import ClusterState, NodeInfo

Gi = 1024**3
Mi = 1024**2


def sel(match_labels: Mapping[str, str] | None = None, *exprs: tuple[str, str, Iterable[str]]) -> LabelSelector:
    """sel({"app": "x"}, ("tier", "In", ["a"]))"""
    return LabelSelector(
        tuple(sorted((match_labels or {}).items())),
        tuple(LabelSelectorRequirement(k, op, tuple(v)) for k, op, v in exprs),
    )


def node(
    name: str,
    labels: Mapping[str, str] | None = None,
    *,
    zone: str | None = None,
    cpu: int = 4000,
    memory: int = 16 * Gi,
    pods: int = 110,
    ephemeral: int = 100 * Gi,
    extra: Mapping[str, int] | None = None,
    taints: Iterable[Taint] = (),
    unschedulable: bool = False,
    hostname_label: bool = True,
) -> Node:
    lab = dict(labels or {})
    if hostname_label:
        lab.setdefault(LABEL_HOSTNAME, name)
    if zone is not None:
        lab[LABEL_ZONE] = zone
    alloc = {"cpu": cpu, "memory": memory, "pods": pods, "ephemeral-storage": ephemeral}
    alloc.update(extra or {})
    return Node(name=name, labels=lab, taints=tuple(taints), unschedulable=unschedulable, allocatable=alloc)


def pod(
    name: str,
    labels: Mapping[str, str] | None = None,
    *,
    namespace: str = "default",
    node_name: str = "",
    cpu: int | None = None,
    memory: int | None = None,
    requests: Mapping[str, int] | None = None,
    node_selector: Mapping[str, str] | None = None,
    affinity: Affinity | None = None,
    tolerations: Iterable[Toleration] = (),
    spread: Iterable[TopologySpreadConstraint] = (),
    host_ports: Iterable[HostPort] = (),
    claims: Iterable[str] = (),
    phase: str | None = None,
    terminating: bool = False,
    owner: OwnerRef | None = None,
) -> Pod:
    req = dict(requests or {})
    if cpu is not None:
        req["cpu"] = cpu
    if memory is not None:
        req["memory"] = memory
    spec = PodSpec(
        node_name=node_name,
        node_selector=dict(node_selector or {}),
        affinity=affinity,
        tolerations=tuple(tolerations),
        topology_spread_constraints=tuple(spread),
        requests=req,
        host_ports=tuple(host_ports),
        volumes=tuple(PodVolume(name=f"vol-{c}", claim_name=c) for c in claims),
    )
    if phase is None:
        phase = "Running" if node_name else "Pending"
    return Pod(
        namespace=namespace,
        name=name,
        labels=dict(labels or {}),
        spec=spec,
        phase=phase,
        terminating=terminating,
        owner=owner,
    )


def spread(
    key: str = LABEL_ZONE,
    max_skew: int = 1,
    selector: LabelSelector | None = None,
    *,
    when: str = "DoNotSchedule",
    min_domains: int | None = None,
    node_affinity_policy: str = "Honor",
    node_taints_policy: str = "Ignore",
    match_label_keys: Iterable[str] = (),
) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(
        max_skew=max_skew,
        topology_key=key,
        when_unsatisfiable=when,
        label_selector=selector,
        min_domains=min_domains,
        node_affinity_policy=node_affinity_policy,
        node_taints_policy=node_taints_policy,
        match_label_keys=tuple(match_label_keys),
    )


def term(selector: LabelSelector | None, key: str, namespaces: Iterable[str] = (), ns_selector: LabelSelector | None = None, **kw) -> PodAffinityTerm:
    return PodAffinityTerm(label_selector=selector, topology_key=key, namespaces=tuple(namespaces), namespace_selector=ns_selector, **kw)


def node_selector(*terms: Iterable[tuple[str, str, Iterable[str]]], fields: Iterable[tuple[str, str, Iterable[str]]] = ()) -> NodeSelector:
    """node_selector([("zone", "In", ["a"])], [("disk", "Exists", [])])  -- terms ORed."""
    out = []
    for t in terms:
        out.append(NodeSelectorTerm(tuple(NodeSelectorRequirement(k, op, tuple(v)) for k, op, v in t)))
    if fields:
        out.append(NodeSelectorTerm((), tuple(NodeSelectorRequirement(k, op, tuple(v)) for k, op, v in fields)))
    return NodeSelector(tuple(out))


def pv(
    name: str,
    *,
    zone: str | None = None,
    node_affinity: NodeSelector | None = None,
    labels: Mapping[str, str] | None = None,
    storage_class: str = "",
    capacity: int = 10 * Gi,
    claim: tuple[str, str] | None = None,
    phase: str | None = None,
) -> PersistentVolume:
    if zone is not None and node_affinity is None:
        node_affinity = node_selector([(LABEL_ZONE, "In", [zone])])
    return PersistentVolume(
        name=name,
        labels=dict(labels or {}),
        capacity=capacity,
        storage_class=storage_class,
        access_modes=("ReadWriteOnce",),
        node_affinity=node_affinity,
        claim_ref=claim,
        phase=phase or ("Bound" if claim else "Available"),
    )


def pvc(
    name: str,
    *,
    namespace: str = "default",
    volume_name: str = "",
    storage_class: str | None = None,
    request: int = 10 * Gi,
    phase: str | None = None,
    annotations: Mapping[str, str] | None = None,
) -> PersistentVolumeClaim:
    return PersistentVolumeClaim(
        namespace=namespace,
        name=name,
        storage_class=storage_class,
        volume_name=volume_name,
        phase=phase or ("Bound" if volume_name else "Pending"),
        request=request,
        access_modes=("ReadWriteOnce",),
        annotations=dict(annotations or {}),
    )


def storage_class(name: str, *, wffc: bool = True, allowed: Mapping[str, Iterable[str]] | None = None, default: bool = False, provisioner: str = "ebs.csi.aws.com") -> StorageClass:
    topo = ()
    if allowed:
        topo = (TopologySelectorTerm(tuple((k, tuple(v)) for k, v in allowed.items())),)
    return StorageClass(
        name=name,
        provisioner=provisioner,
        volume_binding_mode="WaitForFirstConsumer" if wffc else "Immediate",
        allowed_topologies=topo,
        is_default=default,
    )


def cluster(
    nodes: Iterable[Node],
    pods: Iterable[Pod] = (),
    *,
    pvcs: Iterable[PersistentVolumeClaim] = (),
    pvs: Iterable[PersistentVolume] = (),
    storage_classes: Iterable[StorageClass] = (),
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
) -> ClusterState:
    """A ClusterState with assigned, non-terminal pods placed on their nodes."""
    nodes = list(nodes)
    by_node: dict[str, list[Pod]] = {n.name: [] for n in nodes}
    for p in pods:
        if p.spec.node_name in by_node and not p.terminal:
            by_node[p.spec.node_name].append(p)
    ns_labels = {k: {"kubernetes.io/metadata.name": k, **v} for k, v in (namespaces or {}).items()}
    return ClusterState(
        node_infos=[NodeInfo(n, by_node[n.name]) for n in nodes],
        pvcs={f"{c.namespace}/{c.name}": c for c in pvcs},
        pvs={v.name: v for v in pvs},
        storage_classes={s.name: s for s in storage_classes},
        namespace_labels=ns_labels,
    )


def pod_volumes(
    name: str,
    volumes: Iterable[PodVolume],
    *,
    namespace: str = "default",
    uid: str = "",
    node_name: str = "",
) -> Pod:
    """A pending pod whose spec.volumes are exactly ``volumes`` (see claim_volume, ephemeral_volume)."""
    return Pod(
        namespace=namespace,
        name=name,
        labels={},
        spec=PodSpec(node_name=node_name, volumes=tuple(volumes)),
        phase="Running" if node_name else "Pending",
        uid=uid,
    )


def claim_volume(claim: str, name: str = "") -> PodVolume:
    """A persistentVolumeClaim pod volume (volume name defaults to vol-<claim>, as pod() does)."""
    return PodVolume(name=name or f"vol-{claim}", claim_name=claim)


def ephemeral_volume(pod_name: str, name: str) -> PodVolume:
    """A generic ephemeral pod volume: its claim is named <pod>-<volume> (ephemeral.VolumeClaimName)."""
    return PodVolume(name=name, claim_name=f"{pod_name}-{name}", ephemeral=True)
