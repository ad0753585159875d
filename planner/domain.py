"""The domain model: the Kubernetes objects planner reasons about, as frozen dataclasses.

Only the loader (planner/load, planner/convert.py) builds these from YAML/JSON; every other module
works on them.  Quantities are integers: cpu in millicores, memory and storage in bytes, every
other resource in its integer value (``pods`` in pods, extended resources in units).

Conventions
-----------
* Label maps are plain ``dict`` objects that nobody mutates after loading.
* A *null* label selector is ``None`` (it selects nothing); an *empty* one is ``LabelSelector()``
  (it selects everything).  This is upstream's ``metav1.LabelSelectorAsSelector`` distinction.
* ``IntOrString`` fields keep upstream's shape: an ``int`` or a ``str`` such as ``"25%"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Union

from planner.memo import ByIdentity

IntOrString = Union[int, str]

# Well-known label keys (k8s.io/api/core/v1/well_known_labels.go).
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"
LABEL_ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
LABEL_REGION_BETA = "failure-domain.beta.kubernetes.io/region"
LABEL_POD_TEMPLATE_HASH = "pod-template-hash"
LABEL_CONTROLLER_REVISION_HASH = "controller-revision-hash"
LABEL_STATEFULSET_POD_NAME = "statefulset.kubernetes.io/pod-name"
LABEL_POD_INDEX = "apps.kubernetes.io/pod-index"

# Labels a StatefulSet controller gives each pod its own value of (pkg/controller/statefulset
# stateful_set_utils.go initIdentity): pods of one template and revision differ only in these.
POD_IDENTITY_LABELS: tuple[str, ...] = (LABEL_STATEFULSET_POD_NAME, LABEL_POD_INDEX)
_IDENTITY = frozenset(POD_IDENTITY_LABELS)
# Labels whose value changes with the workload's revision (the Deployment controller's
# pod-template-hash, the StatefulSet controller's controller-revision-hash).
REVISION_LABELS: tuple[str, ...] = (LABEL_POD_TEMPLATE_HASH, LABEL_CONTROLLER_REVISION_HASH)
# Labels the workload controllers add to the pods they create (per pod or per revision), as
# opposed to the template's own labels.
CONTROLLER_LABELS: tuple[str, ...] = REVISION_LABELS + POD_IDENTITY_LABELS

# Resource names (k8s.io/api/core/v1/types.go).
CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
STORAGE = "storage"

EMPTY_LABELS: Mapping[str, str] = {}


# --------------------------------------------------------------------------- selectors


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement:
    key: str
    operator: str  # In | NotIn | Exists | DoesNotExist
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """k8s.io/apimachinery/pkg/labels/selector.go Requirement.Matches."""
        op = self.operator
        if op == "In":
            return self.key in labels and labels[self.key] in self.values
        if op == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        return False


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """metav1.LabelSelector. ``LabelSelector()`` matches everything; use ``None`` for null."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        for k, v in self.match_labels:
            if labels.get(k) != v:
                return False
        for r in self.match_expressions:
            if not r.matches(labels):
                return False
        return True

    @property
    def empty(self) -> bool:
        return not self.match_labels and not self.match_expressions

    def with_requirements(self, extra: tuple[LabelSelectorRequirement, ...]) -> LabelSelector:
        return LabelSelector(self.match_labels, self.match_expressions + extra)

    def __str__(self) -> str:
        parts = [f"{k}={v}" for k, v in self.match_labels]
        for r in self.match_expressions:
            if r.operator == "In":
                parts.append(f"{r.key} in ({','.join(r.values)})")
            elif r.operator == "NotIn":
                parts.append(f"{r.key} notin ({','.join(r.values)})")
            elif r.operator == "Exists":
                parts.append(r.key)
            else:
                parts.append(f"!{r.key}")
        return ",".join(parts) if parts else "<everything>"


def selector_matches(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """A null selector matches nothing (metav1.LabelSelectorAsSelector(nil) == labels.Nothing())."""
    return selector is not None and selector.matches(labels)


@dataclass(frozen=True, slots=True)
class NodeSelectorRequirement:
    key: str
    operator: str  # In | NotIn | Exists | DoesNotExist | Gt | Lt
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """core.NodeSelector: the terms are ORed, the requirements of one term ANDed."""

    terms: tuple[NodeSelectorTerm, ...]


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class TopologySelectorTerm:
    """StorageClass.allowedTopologies entry: key -> allowed values, ANDed."""

    requirements: tuple[tuple[str, tuple[str, ...]], ...]


# --------------------------------------------------------------------------- pod spec parts


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    label_selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class Affinity:
    node_required: NodeSelector | None = None
    node_preferred: tuple[PreferredSchedulingTerm, ...] = ()
    pod_affinity_required: tuple[PodAffinityTerm, ...] = ()
    pod_affinity_preferred: tuple[WeightedPodAffinityTerm, ...] = ()
    pod_anti_affinity_required: tuple[PodAffinityTerm, ...] = ()
    pod_anti_affinity_preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"  # Equal | Exists
    value: str = ""
    effect: str = ""  # "" matches every effect
    toleration_seconds: int | None = None


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str  # NoSchedule | PreferNoSchedule | NoExecute

    def __str__(self) -> str:
        return f"{{{self.key}: {self.value}}}"


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule | ScheduleAnyway
    label_selector: LabelSelector | None
    min_domains: int | None = None
    node_affinity_policy: str = "Honor"  # defaulted by us as the scheduler does (Honor)
    node_taints_policy: str = "Ignore"  # defaulted by us as the scheduler does (Ignore)
    match_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HostPort:
    """A container port with hostPort > 0 (NodePorts only looks at those)."""

    port: int
    protocol: str = "TCP"
    host_ip: str = "0.0.0.0"


@dataclass(frozen=True, slots=True)
class PodVolume:
    """A pod volume that refers to a claim: persistentVolumeClaim or ephemeral (claim <pod>-<vol>)."""

    name: str
    claim_name: str
    ephemeral: bool = False
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class PodSpec:
    """The scheduling-relevant part of a core.PodSpec, shared by pods and pod templates.

    ``requests`` are the effective requests the scheduler computes (noderesources
    computePodResourceRequest): max(sum of regular containers + restartable init containers,
    largest init container) per resource, plus spec.overhead.  A pod with no cpu or memory
    request has ``requests`` without that key (NodeResourcesFit checks zero requests as zero).
    """

    node_name: str = ""
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    requests: Mapping[str, int] = field(default_factory=dict)
    host_ports: tuple[HostPort, ...] = ()
    volumes: tuple[PodVolume, ...] = ()
    scheduler_name: str = "default-scheduler"
    priority: int = 0
    images: tuple[str, ...] = ()
    # spec.priorityClassName and spec.preemptionPolicy ("" is PreemptLowerPriority, the default);
    # ``priority_set``: spec.priority was given (an object the Priority admission plugin already
    # admitted), else planner.priority resolves it from the PriorityClasses read
    priority_class_name: str = ""
    preemption_policy: str = ""
    priority_set: bool = False
    # spec.schedulingGates' names: kube-scheduler leaves the pod out of its queue while any is
    # left (planner.scheduler.plugins.schedulinggates)
    scheduling_gates: tuple[str, ...] = ()
    runtime_class_name: str = ""  # spec.runtimeClassName (planner.load.admission reads its RuntimeClass)
    # (milli-cpu, memory) as the scoring counts them: every container without a cpu (memory)
    # request counted 100m (200Mi) (planner.convert.effective_requests, NON_MISSING); None for a
    # spec not converted from an object: then the aggregate ``requests`` gets the default once
    nonzero: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class OwnerRef:
    kind: str
    name: str
    uid: str = ""
    controller: bool = True


@dataclass(frozen=True, slots=True)
class PodTemplate:
    labels: Mapping[str, str]
    spec: PodSpec
    annotations: Mapping[str, str] = field(default_factory=dict)
    # The rest of the template as read: a digest of all of it but its labels, its annotations and
    # its containers' images, which the fields above hold and a replay may change
    # (planner.convert.template_rest).  Upstream's EqualIgnoreHash compares whole templates, so
    # two templates that differ only in an environment variable, a command or a probe are two
    # templates, each its own ReplicaSet.  "" for a template not read from an object.
    rest: str = ""


# --------------------------------------------------------------------------- objects


@dataclass(frozen=True, slots=True)
class Namespace:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: Mapping[str, int] = field(default_factory=dict)
    uid: str = ""
    # status.conditions[type=Ready]: True/False as read, None when the node has no Ready condition
    # (a hand-written node: taken as ready)
    ready: bool | None = None
    # the latest status.conditions[].lastHeartbeatTime (RFC 3339): the kubelet posts it every few
    # seconds, so the latest of a snapshot's nodes tells about when the snapshot was taken
    heartbeat: str = ""
    # status.images: name -> sizeBytes, for every name of every image the kubelet reports
    images: Mapping[str, int] = field(default_factory=dict)

    @property
    def zone(self) -> str | None:
        return self.labels.get(LABEL_ZONE) or self.labels.get(LABEL_ZONE_BETA)


@dataclass(frozen=True, slots=True)
class Pod:
    namespace: str
    name: str
    labels: Mapping[str, str]
    spec: PodSpec
    phase: str = "Pending"  # Pending | Running | Succeeded | Failed | Unknown
    terminating: bool = False  # metadata.deletionTimestamp is set
    owner: OwnerRef | None = None  # the controller ownerReference
    uid: str = ""
    annotations: Mapping[str, str] = field(default_factory=dict)
    creation_timestamp: str = ""
    nominated_node_name: str = ""
    # status.conditions[type=Ready] of a pod read Running on a node: True/False as its status says
    # (False when it has conditions but no Ready one), None when the pod has no conditions at all
    # or is one the replay starts (planner.controllers.controller_utils.is_pod_ready).
    ready: bool | None = None
    ready_since: str = ""  # that condition's lastTransitionTime (RFC 3339), "" when unknown
    start_time: str = ""  # status.startTime (RFC 3339), "" when not started (preemption's tie-break)
    # the most restarts of a container (status.containerStatuses) and of a sidecar
    # (status.initContainerStatuses of restartPolicy Always init containers): the scale-down order
    restarts: int = 0
    sidecar_restarts: int = 0
    # "<namespace>/<name>", made once with the pod: every index of the scheduler, the controllers
    # and the replay looks pods up by it, many times per pod (not an argument, not compared)
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", f"{self.namespace}/{self.name}")

    @property
    def node_name(self) -> str:
        return self.spec.node_name

    @property
    def terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    @property
    def assigned(self) -> bool:
        """Bound to a node and not terminal: what the scheduler cache holds."""
        return bool(self.spec.node_name) and not self.terminal


@dataclass(frozen=True, slots=True)
class PersistentVolume:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    capacity: int = 0  # bytes
    storage_class: str = ""
    access_modes: tuple[str, ...] = ()
    node_affinity: NodeSelector | None = None  # spec.nodeAffinity.required
    claim_ref: tuple[str, str] | None = None  # (namespace, name)
    claim_uid: str = ""
    phase: str = "Available"  # Available | Bound | Released | Failed | Pending
    reclaim_policy: str = "Retain"
    volume_mode: str = "Filesystem"
    uid: str = ""
    # spec.csi (CSIPersistentVolumeSource): the driver and the volume's handle, "" when the PV has
    # another source (NodeVolumeLimits counts CSI volumes by "<driver>/<handle>")
    csi_driver: str = ""
    csi_volume_handle: str = ""


@dataclass(frozen=True, slots=True)
class PersistentVolumeClaim:
    namespace: str
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    storage_class: str | None = None  # None: unset (default class applies); "": no class
    volume_name: str = ""
    phase: str = "Pending"  # Pending | Bound | Lost
    request: int = 0  # bytes, spec.resources.requests.storage
    access_modes: tuple[str, ...] = ()
    selector: LabelSelector | None = None
    volume_mode: str = "Filesystem"
    annotations: Mapping[str, str] = field(default_factory=dict)
    owner: OwnerRef | None = None
    uid: str = ""
    terminating: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def selected_node(self) -> str:
        return self.annotations.get("volume.kubernetes.io/selected-node", "")


@dataclass(frozen=True, slots=True)
class StorageClass:
    name: str
    provisioner: str = ""
    volume_binding_mode: str = "Immediate"  # Immediate | WaitForFirstConsumer
    allowed_topologies: tuple[TopologySelectorTerm, ...] = ()
    reclaim_policy: str = "Delete"
    is_default: bool = False


@dataclass(frozen=True, slots=True)
class CSINodeDriver:
    """storage.k8s.io/v1 CSINodeDriver: ``allocatable.count``, None when unset (no limit)."""

    name: str
    node_id: str = ""
    allocatable_count: int | None = None


@dataclass(frozen=True, slots=True)
class CSINode:
    """storage.k8s.io/v1 CSINode (named after its Node): the CSI drivers installed on the node and
    how many volumes of each it can attach; ``migrated_plugins`` is the
    storage.alpha.kubernetes.io/migrated-plugins annotation, split at commas."""

    name: str
    drivers: tuple[CSINodeDriver, ...] = ()
    migrated_plugins: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ClaimTemplate:
    """A StatefulSet volumeClaimTemplate."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    storage_class: str | None = None
    request: int = 0
    access_modes: tuple[str, ...] = ()
    selector: LabelSelector | None = None
    volume_mode: str = "Filesystem"


@dataclass(frozen=True, slots=True)
class RollingUpdateDeployment:
    max_surge: IntOrString = "25%"
    max_unavailable: IntOrString = "25%"


@dataclass(frozen=True, slots=True)
class Deployment:
    namespace: str
    name: str
    replicas: int
    selector: LabelSelector
    template: PodTemplate
    strategy_type: str = "RollingUpdate"  # RollingUpdate | Recreate
    rolling_update: RollingUpdateDeployment | None = RollingUpdateDeployment()
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    min_ready_seconds: int = 0
    paused: bool = False
    revision_history_limit: int = 10
    progress_deadline_seconds: int = 600
    uid: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class ReplicaSet:
    namespace: str
    name: str
    replicas: int
    selector: LabelSelector
    template: PodTemplate
    owner: OwnerRef | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    uid: str = ""
    creation_timestamp: str = ""
    # spec.minReadySeconds: a Ready pod counts as available after this long (the Deployment
    # controller copies its own onto its ReplicaSets: sync.go getNewReplicaSet)
    min_ready_seconds: int = 0

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def revision(self) -> int:
        try:
            return int(self.annotations.get("deployment.kubernetes.io/revision", "0"))
        except ValueError:
            return 0


@dataclass(frozen=True, slots=True)
class StatefulSet:
    namespace: str
    name: str
    replicas: int
    selector: LabelSelector
    template: PodTemplate
    service_name: str = ""
    pod_management_policy: str = "OrderedReady"  # OrderedReady | Parallel
    update_strategy_type: str = "RollingUpdate"  # RollingUpdate | OnDelete
    partition: int = 0
    max_unavailable: IntOrString | None = None
    volume_claim_templates: tuple[ClaimTemplate, ...] = ()
    retention_when_deleted: str = "Retain"  # Retain | Delete
    retention_when_scaled: str = "Retain"
    ordinals_start: int = 0
    min_ready_seconds: int = 0
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    current_revision: str = ""
    update_revision: str = ""
    uid: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def pod_name(self, ordinal: int) -> str:
        return f"{self.name}-{ordinal}"

    def claim_name(self, template: ClaimTemplate, ordinal: int) -> str:
        """pkg/controller/statefulset/stateful_set_utils.go getPersistentVolumeClaimName."""
        return f"{template.name}-{self.name}-{ordinal}"


@dataclass(frozen=True, slots=True)
class DaemonSet:
    """apps/v1 DaemonSet (k8s.io/api/apps/v1/types.go DaemonSetSpec): the fields planner reads.
    Its pods carry a controller ownerReference of kind DaemonSet (``is_daemonset_pod``)."""

    namespace: str
    name: str
    selector: LabelSelector
    template: PodTemplate
    update_strategy_type: str = "RollingUpdate"  # RollingUpdate | OnDelete
    max_unavailable: IntOrString = 1
    max_surge: IntOrString = 0
    min_ready_seconds: int = 0
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    uid: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


# The kubelet's annotation on a mirror pod, the API server's copy of a static pod
# (k8s.io/api/core/v1 MirrorPodAnnotationKey "kubernetes.io/config.mirror").
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"


def is_daemonset_pod(pod: Pod) -> bool:
    """A pod a DaemonSet controls: its controller ownerReference is of kind DaemonSet (what
    k8s.io/kubectl/pkg/drain/filters.go daemonSetFilter looks at, metav1.GetControllerOf)."""
    return pod.owner is not None and pod.owner.controller and pod.owner.kind == "DaemonSet"


def is_mirror_pod(pod: Pod) -> bool:
    """A static pod's mirror (filters.go mirrorPodFilter: the kubernetes.io/config.mirror annotation)."""
    return MIRROR_POD_ANNOTATION in pod.annotations


@dataclass(frozen=True, slots=True)
class HorizontalPodAutoscaler:
    namespace: str
    name: str
    target_kind: str
    target_name: str
    min_replicas: int = 1
    max_replicas: int = 1
    target_api_version: str = "apps/v1"

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    selector: LabelSelector | None
    min_available: IntOrString | None = None
    max_unavailable: IntOrString | None = None
    unhealthy_pod_eviction_policy: str = ""  # IfHealthyBudget (also when unset) | AlwaysAllow

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class PriorityClass:
    """scheduling.k8s.io/v1 PriorityClass: value, globalDefault, preemptionPolicy (defaulted to
    PreemptLowerPriority)."""

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"  # | Never


@dataclass(frozen=True, slots=True)
class ControllerRevision:
    """apps/v1 ControllerRevision of a StatefulSet: the pod template of one revision (its
    data.spec.template, what history.ApplyRevision puts back into the set), None when the data
    holds none planner can read."""

    namespace: str
    name: str
    owner: OwnerRef | None = None
    revision: int = 0
    template: PodTemplate | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class LimitRange:
    """v1 LimitRange, what the LimitRanger admission plugin puts into a new pod's containers: the
    default requests of its items of type Container (after SetDefaults_LimitRangeItem: default
    limit from max, default request from the default limit, then from min)."""

    namespace: str
    name: str
    default_request: Mapping[str, int] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class RuntimeClass:
    """node.k8s.io/v1 RuntimeClass, what the RuntimeClass admission plugin puts into a new pod that
    names it: overhead.podFixed as spec.overhead, scheduling.nodeSelector and tolerations merged."""

    name: str
    overhead: Mapping[str, int] = field(default_factory=dict)
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Toleration, ...] = ()


KINDS = (
    "Namespace",
    "Node",
    "StorageClass",
    "CSINode",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Pod",
    "ReplicaSet",
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "HorizontalPodAutoscaler",
    "PodDisruptionBudget",
    "PriorityClass",
    "LimitRange",
    "RuntimeClass",
    "ControllerRevision",
)


# --------------------------------------------------------------------------- identity labels


def _selector_keys(sel: LabelSelector | None) -> set[str]:
    if sel is None:
        return set()
    return {k for k, _ in sel.match_labels} | {r.key for r in sel.match_expressions}


def terms_read_pod_identity(terms: Iterable[PodAffinityTerm]) -> bool:
    """Does a pod (anti-)affinity term's selector (matchLabelKeys, mismatchLabelKeys included)
    read one of POD_IDENTITY_LABELS?"""
    return any(map(_term_reads_pod_identity, terms))


def _term_reads_pod_identity(t: PodAffinityTerm) -> bool:
    """terms_read_pod_identity of one term, remembered per term object (the pods of one template
    share theirs, and a problem asks it of every pod with required anti-affinity)."""
    return _IDENTITY_READ.get(t, lambda: bool((_selector_keys(t.label_selector) | set(t.match_label_keys) | set(t.mismatch_label_keys)) & _IDENTITY))


_IDENTITY_READ: ByIdentity[bool] = ByIdentity(1 << 14)  # term -> whether it reads one


def reads_pod_identity(pod: Pod) -> bool:
    """Does a topology spread constraint's or a required pod (anti-)affinity term's selector of
    ``pod`` read one of POD_IDENTITY_LABELS?  Then pods of one template count differently and
    what the scheduler computes for one cannot be shared with the others."""
    ident = set(POD_IDENTITY_LABELS)
    for c in pod.spec.topology_spread_constraints:
        if (_selector_keys(c.label_selector) | set(c.match_label_keys)) & ident:
            return True
    aff = pod.spec.affinity
    return aff is not None and terms_read_pod_identity(aff.pod_affinity_required + aff.pod_anti_affinity_required)
