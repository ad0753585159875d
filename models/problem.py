"""The placement problem the CP-SAT models encode: plain data, built by planner.engines.problem.

Vocabulary
----------
* A *class* is a set of nodes that are identical for this problem: the same answer from every
  static filter for every group, the same capacity in pods of every group, the same topology
  domains, the same existing matching pods per node.  Model size follows the number of classes.
* A *group* is a set of pods to place that are interchangeable: same spec, same labels (but
  identity labels), same static answers (volume pins included).  In ordered mode (StatefulSet
  OrderedReady) every pod is its own group and ``Problem.order`` lists them in creation order.
* A *spread* constraint is one DoNotSchedule topology spread constraint signature shared by the
  groups that carry it.  Domains are either zone-like (several nodes share a value: the class
  key includes the value) or per-node (the value is unique per node: hostname).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class NodeClass:
    index: int
    nodes: list[str]  # member node names, in snapshot order
    zone: str  # for messages and per-zone capacity groups ("" if none)
    domains: dict[str, str]  # topology key -> value, for zone-like keys
    cap: list[int]  # per group: how many pods of that group one node of the class can still take
    free: dict[str, int]  # per-node free resources (identical across the class)
    # the hostname-like (per-node) topology keys its nodes carry: a node without a required
    # anti-affinity term's key is in no domain of it, so the term never rejects that node
    node_keys: frozenset[str] = frozenset()
    # preemption (models/defaultpreemption.py): the victims on this class's one node, and per
    # group the room it has once every one of them is gone (None: no victim here)
    victims: list[int] = field(default_factory=list)
    cap_preempt: list[int] | None = None

    @property
    def size(self) -> int:
        return len(self.nodes)

    @property
    def label(self) -> str:
        if self.size == 1:
            return self.nodes[0]
        return f"{self.nodes[0]} (+{self.size - 1} like it)"


@dataclass
class Exclusion:
    """Why a group may not use some classes: one static filter's verdict."""

    plugin: str
    reason: str
    classes: list[int]
    objects: list[str] = field(default_factory=list)  # e.g. ["PersistentVolumeClaim default/data-x", "PersistentVolume pv-x"]
    detail: str = ""  # human summary, e.g. "must run in zone-a (PVC data-search-2 -> PV pv-search-2)"
    # class -> victims whose pods cause the rejection there: it holds unless every one is preempted
    unless: dict[int, list[int]] = field(default_factory=dict)


@dataclass
class Group:
    index: int
    pods: list[str]  # pod keys "ns/name"
    workload: str  # e.g. "statefulset/default/search"
    labels: dict[str, str]
    requests: dict[str, int]
    exclusions: list[Exclusion] = field(default_factory=list)
    host_ports: bool = False  # two pods of the group can never share a node

    @property
    def count(self) -> int:
        return len(self.pods)

    @property
    def name(self) -> str:
        return self.pods[0] if len(self.pods) == 1 else f"{self.pods[0]} (+{len(self.pods) - 1})"


@dataclass
class Spread:
    """One DoNotSchedule constraint signature."""

    index: int
    topology_key: str
    max_skew: int
    min_domains: int
    selector: str  # for messages
    namespace: str
    per_node: bool  # domains are single nodes (hostname-like)
    carriers: dict[int, int]  # group -> self-match (1 or 0)
    matchers: list[int]  # groups whose pods the selector counts
    eligible: list[int]  # classes whose nodes are counted (inclusion policies, all keys present)
    existing: dict[str, int]  # zone-like: domain -> existing matching pods (eligible nodes only)
    existing_per_node: dict[int, int]  # per-node: class -> existing matching pods on each node
    domains: list[str]  # zone-like: eligible domain values (sorted)
    eligible_nodes: int  # number of eligible nodes (per-node domain count)
    source: str  # e.g. "statefulset/default/search topologySpreadConstraints[0]"
    # victims the selector counts: zone-like domain (str) or per-node class (int) -> victims
    victims: dict[str | int, list[int]] = field(default_factory=dict)

    @property
    def forced_zero_min(self) -> bool:
        """minDomains: fewer eligible domains than minDomains makes the global minimum 0."""
        n = self.eligible_nodes if self.per_node else len(self.domains)
        return n < self.min_domains


@dataclass
class AntiAffinity:
    """Required anti-affinity between new pods: pods of ``a`` and ``b`` never share a domain
    (a == b: at most one pod of the group per domain)."""

    index: int
    topology_key: str
    per_node: bool
    a: int
    b: int
    source: str


@dataclass
class Affinity:
    """Required affinity term of group ``carrier``: each of its pods needs a matching pod in its
    domain, placed before it (existing, or a new pod of a ``supporters`` group), or is the very
    first matching pod of the cluster when none exists (the first-pod rule, if it self-matches)."""

    index: int
    topology_key: str
    per_node: bool
    carrier: int
    supporters: list[int]  # other groups whose pods match the term
    self_match: bool
    existing_domains: list[str]  # zone-like: domains with an existing matching pod
    existing_classes: list[int]  # per-node: classes whose nodes each hold a matching pod
    any_existing: bool  # some pod in the cluster matches (the first-pod rule is off)
    source: str


@dataclass
class StaticClaim:
    """An unbound claim of a group that, on some classes, only an existing PV can serve
    (no dynamic provisioning there): each PV serves one claim (VolumeBinding FindMatchingVolume)."""

    index: int
    group: int
    claim: str  # the volume name in the pod template (one claim per pod)
    options: dict[int, list[str]]  # class -> PV names that match the claim and the class's nodes
    source: str


@dataclass
class VolumeLimit:
    """NodeVolumeLimits as a capacity: per class, a node attaches at most ``limit`` volumes of
    ``driver`` and ``attached`` are in use; each pod of group g on class c brings ``need[g, c]``
    new ones."""

    index: int
    driver: str
    limit: dict[int, int] = field(default_factory=dict)  # class -> CSINode allocatable.count
    attached: dict[int, int] = field(default_factory=dict)  # class -> volumes attached per node
    need: dict[tuple[int, int], int] = field(default_factory=dict)  # (group, class) -> new volumes per pod

    def room(self, c: int) -> int:
        """New volumes one node of class c still takes (upstream: attached + new <= limit)."""
        return max(self.limit[c] - self.attached[c], 0)


@dataclass
class Victim:
    """A running pod of a lower priority than some group's pods, which DefaultPreemption may evict
    to make room for them, on the one node of class ``node_class``."""

    index: int
    pod: str  # "ns/name"
    node: str
    node_class: int
    priority: int
    requests: dict[str, int]  # what it frees of the resources the classes count (pods: 1)
    preemptors: list[int]  # the groups of a strictly higher priority that may evict it
    budgets: list[int] = field(default_factory=list)  # the PodDisruptionBudgets that count it


@dataclass
class Budget:
    """A PodDisruptionBudget as preemption reads it: status.disruptionsAllowed; evicting more of
    its pods than that violates it (filterPodsWithPDBViolation)."""

    index: int
    name: str  # "ns/name"
    allowed: int


@dataclass
class Problem:
    classes: list[NodeClass]
    groups: list[Group]
    spreads: list[Spread] = field(default_factory=list)
    anti: list[AntiAffinity] = field(default_factory=list)
    affinity: list[Affinity] = field(default_factory=list)
    static_claims: list[StaticClaim] = field(default_factory=list)
    volume_limits: list[VolumeLimit] = field(default_factory=list)
    victims: list[Victim] = field(default_factory=list)  # pods preemption may evict (models/defaultpreemption.py)
    budgets: list[Budget] = field(default_factory=list)
    ordered: bool = False  # groups are single pods placed in index order
    exact_packing: bool = True  # classes are exact for packing (single request vector or singleton classes)
    notes: list[str] = field(default_factory=list)

    def domain_of(self, cls: NodeClass, key: str) -> str | None:
        return cls.domains.get(key)

    def classes_in(self, key: str, value: str) -> list[int]:
        return [c.index for c in self.classes if c.domains.get(key) == value]
