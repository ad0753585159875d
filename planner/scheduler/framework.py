"""A small port of the scheduler framework's filter phase.

Mirrors pkg/scheduler/framework (interface.go, types.go) and pkg/scheduler/schedule_one.go:
* ``NodeInfo`` is the scheduler cache's per-node aggregate (pods, requested resources, used
  host ports), kept up to date as pods are added and removed;
* ``ClusterState`` is the scheduler's snapshot plus the volume objects the volume plugins list;
* each filter plugin (planner/scheduler/plugins/<plugin>/filtering.py, typed by
  planner.scheduler.registry.FilterPlugin) exposes ``NAME``, ``pre_filter(pod, cluster)``
  returning ``(state, status_or_None)`` and ``filter(state, pod, node_info)`` returning a
  ``Status`` or ``None`` (success);
* ``FitError.summary`` reproduces framework.FitError.Error(): "0/N nodes are available: ...".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from planner.convert import NON_MISSING
from planner.domain import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    Affinity,
    CSINode,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodSpec,
    StorageClass,
)

UNSCHEDULABLE = "Unschedulable"
UNRESOLVABLE = "UnschedulableAndUnresolvable"
ERROR = "Error"

# A PreFilter returns (SKIP, None) when its Filter has nothing to check for this pod
# (upstream's framework.Skip status); evaluate() then never calls that plugin's Filter.
SKIP: object = object()


@dataclass(frozen=True, slots=True)
class Status:
    """framework.Status for a non-success result: its code, the plugin and upstream reasons."""

    plugin: str
    reasons: tuple[str, ...]
    code: str = UNSCHEDULABLE

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)


# pkg/scheduler/util/pod_resources.go: what NonZeroRequested counts for a container without a
# cpu (memory) request (planner.convert.NON_MISSING).
DEFAULT_MILLI_CPU_REQUEST = NON_MISSING[CPU]
DEFAULT_MEMORY_REQUEST = NON_MISSING[MEMORY]


def nonzero_of(spec: PodSpec) -> tuple[int, int]:
    """(milli-cpu, memory) as NodeInfo.NonZeroRequested and the scoring count a pod's requests:
    PodSpec.nonzero, per container (planner.convert.nonzero_requests); for a spec not converted
    from an object, its aggregate requests with the default for a missing cpu (memory) once."""
    nz = spec.nonzero
    if nz is not None:
        return nz
    req = spec.requests
    return (req[CPU] if CPU in req else DEFAULT_MILLI_CPU_REQUEST, req[MEMORY] if MEMORY in req else DEFAULT_MEMORY_REQUEST)

# NodeInfo.min_priority of a node without pods: above every priority (an int32)
NO_PRIORITY = 2**31


def reaches_other_namespaces(aff: Affinity) -> bool:
    """Whether a pod (anti-)affinity term of ``aff`` names namespaces or a namespace selector: only
    such a term can match a pod of another namespace than its owner's (interpodaffinity's
    AffinityTerm.of: a term with neither takes its owner's namespace alone)."""
    for terms in (aff.pod_affinity_required, aff.pod_anti_affinity_required):
        for t in terms:
            if t.namespaces or t.namespace_selector is not None:
                return True
    for weighted in (aff.pod_affinity_preferred, aff.pod_anti_affinity_preferred):
        for w in weighted:
            if w.term.namespaces or w.term.namespace_selector is not None:
                return True
    return False


class NodeInfo:
    """framework.NodeInfo: a node and the pods the scheduler believes are on it."""

    __slots__ = ("node", "pods", "requested", "nonzero_cpu", "nonzero_mem", "used_ports", "pods_with_affinity",
                 "pods_with_required_anti_affinity", "by_namespace", "generation", "ports_shared",
                 "ns_owned", "min_priority", "foreign_affinity")

    def __init__(self, node: Node, pods: Iterable[Pod] = ()) -> None:
        self.node = node
        self.pods: list[Pod] = []
        self.requested: dict[str, int] = {CPU: 0, MEMORY: 0, EPHEMERAL_STORAGE: 0}
        # NonZeroRequested: cpu and memory with the defaults for pods that do not request them
        self.nonzero_cpu = 0
        self.nonzero_mem = 0
        # (protocol, port) -> set of host IPs in use ("0.0.0.0" is every IP)
        self.used_ports: dict[tuple[str, int], set[str]] = {}
        # used_ports is shared with a clone (copy-on-write): copied before this node's first write
        self.ports_shared = False
        self.pods_with_affinity: list[Pod] = []
        self.pods_with_required_anti_affinity: list[Pod] = []
        # how many of pods_with_affinity have a pod (anti-)affinity term that names namespaces or
        # a namespace selector (see reaches_other_namespaces): while none does, a term of the
        # node's pods can only match a pod of its own namespace, and the plugins that ask which
        # existing pods' terms match an incoming pod look at the node's pods of that namespace
        self.foreign_affinity = 0
        # namespace -> the node's pods in it (spread and affinity count within namespaces)
        self.by_namespace: dict[str, list[Pod]] = {}
        # after a clone its lists are shared (copy-on-write): the namespaces whose list this node
        # has copied since; None when every list is its own
        self.ns_owned: set[str] | None = None
        # bumped on every add and remove: caches of per-node facts compare it (framework.NodeInfo.Generation)
        self.generation = 0
        # the lowest priority of its pods (NO_PRIORITY without pods): preemption's shortcut
        # (a pod finds no victim on a cluster without a lower priority) reads it per node
        self.min_priority = NO_PRIORITY
        for p in pods:
            self.add_pod(p)

    @property
    def name(self) -> str:
        return self.node.name

    def clone(self) -> NodeInfo:
        """A copy that can take and lose pods without touching this one (cheaper than rebuilding)."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.pods = list(self.pods)
        c.requested = dict(self.requested)
        c.nonzero_cpu = self.nonzero_cpu
        c.nonzero_mem = self.nonzero_mem
        c.used_ports = self.used_ports  # shared until either side writes (_own_ports)
        c.ports_shared = self.ports_shared = True
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.foreign_affinity = self.foreign_affinity
        c.by_namespace = dict(self.by_namespace)  # the lists shared until either side writes one
        c.ns_owned = set()
        self.ns_owned = set()
        c.generation = self.generation
        c.min_priority = self.min_priority
        return c

    def _own_ports(self) -> None:
        """Copy-on-write: this node's own copy of the host-port sets it shares with a clone."""
        self.used_ports = {k: set(v) for k, v in self.used_ports.items()}
        self.ports_shared = False

    def add_pod(self, pod: Pod) -> None:
        self.generation += 1
        self.pods.append(pod)
        ns = pod.namespace
        owned = self.ns_owned
        if owned is None or ns in owned:
            self.by_namespace.setdefault(ns, []).append(pod)
        else:  # a list shared with a clone: this node's own copy, with the pod
            self.by_namespace[ns] = [*self.by_namespace.get(ns, ()), pod]
            owned.add(ns)
        req = self.requested
        spec = pod.spec
        if spec.priority < self.min_priority:
            self.min_priority = spec.priority
        preq = spec.requests
        for k, v in preq.items():
            req[k] = req.get(k, 0) + v
        nz = spec.nonzero or nonzero_of(spec)
        self.nonzero_cpu += nz[0]
        self.nonzero_mem += nz[1]
        if pod.spec.host_ports and self.ports_shared:
            self._own_ports()
        for hp in pod.spec.host_ports:
            self.used_ports.setdefault((hp.protocol, hp.port), set()).add(hp.host_ip)
        aff = pod.spec.affinity
        if aff is not None:
            if aff.pod_affinity_required or aff.pod_affinity_preferred or aff.pod_anti_affinity_required or aff.pod_anti_affinity_preferred:
                self.pods_with_affinity.append(pod)
                if reaches_other_namespaces(aff):
                    self.foreign_affinity += 1
            if aff.pod_anti_affinity_required:
                self.pods_with_required_anti_affinity.append(pod)

    def remove_pod(self, pod: Pod) -> None:
        for i, p in enumerate(self.pods):
            if p.namespace == pod.namespace and p.name == pod.name:
                del self.pods[i]
                break
        else:
            return
        self.generation += 1
        if p.spec.priority <= self.min_priority:
            self.min_priority = min([q.spec.priority for q in self.pods], default=NO_PRIORITY)
        ns = pod.namespace
        same_ns = self.by_namespace.get(ns, [])
        for i, p in enumerate(same_ns):
            if p.name == pod.name:
                owned = self.ns_owned
                if owned is not None and ns not in owned:  # shared with a clone: copied first
                    same_ns = self.by_namespace[ns] = list(same_ns)
                    owned.add(ns)
                del same_ns[i]
                break
        req = self.requested
        preq = pod.spec.requests
        for k, v in preq.items():
            req[k] = req.get(k, 0) - v
        nz = pod.spec.nonzero or nonzero_of(pod.spec)
        self.nonzero_cpu -= nz[0]
        self.nonzero_mem -= nz[1]
        if pod.spec.host_ports and self.ports_shared:
            self._own_ports()
        for hp in pod.spec.host_ports:
            ips = self.used_ports.get((hp.protocol, hp.port))
            if ips is not None:
                ips.discard(hp.host_ip)
                if not ips:
                    del self.used_ports[(hp.protocol, hp.port)]
        self.pods_with_affinity = [p for p in self.pods_with_affinity if p.key != pod.key]
        if self.foreign_affinity:
            self.foreign_affinity = sum(1 for q in self.pods_with_affinity if q.spec.affinity is not None and reaches_other_namespaces(q.spec.affinity))
        self.pods_with_required_anti_affinity = [p for p in self.pods_with_required_anti_affinity if p.key != pod.key]


class JournaledDict(dict):
    """A dict that journals the keys written or removed (``journal``, in order), so that a cache
    over its values (VolumeBinding's PV index and PreFilter results) learns what changed without
    comparing every value: the replay's claims, volumes and classes are kept in these.  Every
    mutating method goes through the journal; a copy (``dict(d)``, pickle, copy.copy) is a plain
    dict."""

    __slots__ = ("journal",)

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.journal: list[Any] = []

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self.journal.append(key)

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, key)
        self.journal.append(key)

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            self.journal.append(key)
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[Any, Any]:
        kv = dict.popitem(self)
        self.journal.append(kv[0])
        return kv

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self.journal.append(key)
        return dict.setdefault(self, key, default)

    def update(self, *args: Any, **kw: Any) -> None:
        for k, v in dict(*args, **kw).items():
            self[k] = v

    def clear(self) -> None:
        self.journal.extend(self)
        dict.clear(self)

    def __ior__(self, other: Any) -> JournaledDict:  # type: ignore[override,misc]
        self.update(other)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))

    def __copy__(self) -> dict:
        return dict(self)


def volumes_version(cluster: ClusterState) -> tuple[tuple[dict, dict, dict], tuple[int, int, int]] | None:
    """What identifies the claims, volumes and classes as they are now, when they are journaled
    (JournaledDict: the replay's), else None: the three dicts (compared by identity) and their
    journals' lengths; equal versions, equal objects."""
    pvcs, pvs, scs = cluster.pvcs, cluster.pvs, cluster.storage_classes
    if type(pvcs) is JournaledDict and type(pvs) is JournaledDict and type(scs) is JournaledDict:
        return (pvcs, pvs, scs), (len(pvcs.journal), len(pvs.journal), len(scs.journal))
    return None


def same_version(a: tuple[tuple[dict, dict, dict], tuple[int, int, int]], b: tuple[tuple[dict, dict, dict], tuple[int, int, int]]) -> bool:
    (a1, a2, a3), an = a
    (b1, b2, b3), bn = b
    return a1 is b1 and a2 is b2 and a3 is b3 and an == bn


@dataclass
class ClusterState:
    """What the filters see: node infos in snapshot order plus volume and namespace objects."""

    node_infos: list[NodeInfo]
    pvcs: dict[str, PersistentVolumeClaim] = field(default_factory=dict)  # "ns/name"
    pvs: dict[str, PersistentVolume] = field(default_factory=dict)
    storage_classes: dict[str, StorageClass] = field(default_factory=dict)
    namespace_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    csinodes: dict[str, CSINode] = field(default_factory=dict)  # by node name (NodeVolumeLimits)

    def __post_init__(self) -> None:
        self.by_name: dict[str, NodeInfo] = {ni.name: ni for ni in self.node_infos}
        # copy-on-write: names of node infos shared with another ClusterState (see clone)
        self._shared: set[str] = set()
        self._pos: dict[str, int] | None = None
        # see track(): the names of the nodes changed, in order, when the owner journals them
        self.journal: list[str] | None = None

    def track(self) -> None:
        """Journal every change from now on: the owner promises that pods are added and removed
        only through own() (add_pod, remove_pod, binding.bind_pod) and node objects replaced only
        through set_node(), so that caches over all nodes (planner/scheduler/arrays.py,
        plugins/interpodaffinity/scoring.py) can read the names in ``journal`` instead of comparing every
        node (a replay binds thousands of pods into thousands of nodes)."""
        if self.journal is None:
            self.journal = []

    def position(self, name: str) -> int:
        """The node's index in node_infos."""
        if self._pos is None:
            self._pos = {x.name: i for i, x in enumerate(self.node_infos)}
        return self._pos[name]

    def set_node(self, name: str, node: Node) -> None:
        """Replace a node object (a cordon) keeping its pods."""
        ni = self.own(name)
        ni.node = node
        ni.generation += 1

    @classmethod
    def from_snapshot(cls, snap: Any, share_volumes: bool = False) -> ClusterState:
        """Node infos from a planner.snapshot.Snapshot: assigned, non-terminal pods on known nodes.

        ``share_volumes``: the claims, volumes and classes are the snapshot's own dicts (the replay
        binds into them); otherwise copies."""
        per_node: dict[str, list[Pod]] = {name: [] for name in snap.nodes}
        for pod in snap.pods.values():
            nn = pod.spec.node_name
            if nn and nn in per_node and not pod.terminal:
                per_node[nn].append(pod)
        infos = [NodeInfo(node, per_node[name]) for name, node in snap.nodes.items()]
        ns_labels = {name: snap.namespace_labels(name) for name in snap.namespaces}
        return cls(
            node_infos=infos,
            pvcs=snap.pvcs if share_volumes else dict(snap.pvcs),
            pvs=snap.pvs if share_volumes else dict(snap.pvs),
            storage_classes=snap.storage_classes if share_volumes else dict(snap.storage_classes),
            namespace_labels=ns_labels,
            csinodes=dict(getattr(snap, "csinodes", {})),
        )

    def clone(self) -> ClusterState:
        """A copy that can bind and unbind pods without touching this one.

        Copy-on-write: both share every NodeInfo until one of them changes a node (own()), which
        then gets its own copy; volume objects are in fresh dicts.  A check on 5,000 nodes touches
        a few dozen of them."""
        c = ClusterState(
            node_infos=list(self.node_infos),
            pvcs=dict(self.pvcs),
            pvs=dict(self.pvs),
            storage_classes=dict(self.storage_classes),
            namespace_labels=self.namespace_labels,
            csinodes=self.csinodes,
        )
        c._shared = set(c.by_name)
        self._shared = set(self.by_name)
        return c

    def with_nodes(self, added: Iterable[NodeInfo] = (), replaced: Iterable[Node] = ()) -> ClusterState:
        """A clone (copy-on-write, as clone()) with ``added`` node infos after the others and the
        node objects of ``replaced`` (same names) in place of its own, their pods kept."""
        c = self.clone()
        for node in replaced:
            c.set_node(node.name, node)
        extra = list(added)
        if extra:
            c.node_infos.extend(extra)
            for ni in extra:
                c.by_name[ni.name] = ni
            c._pos = None
        return c

    def own(self, name: str) -> NodeInfo:
        """The node's NodeInfo, copied first if another ClusterState shares it: mutate only this."""
        ni = self.by_name[name]
        if name in self._shared:
            self._shared.discard(name)
            ni = ni.clone()
            self.node_infos[self.position(name)] = ni
            self.by_name[name] = ni
        if self.journal is not None:
            self.journal.append(name)
        return ni

    def namespace_labels_of(self, namespace: str) -> dict[str, str]:
        labels = self.namespace_labels.get(namespace)
        if labels is None:
            return {"kubernetes.io/metadata.name": namespace}
        return labels

    def default_storage_class(self) -> StorageClass | None:
        return default_class(self.storage_classes.values())

    def add_pod(self, pod: Pod) -> None:
        if pod.spec.node_name in self.by_name:
            self.own(pod.spec.node_name).add_pod(pod)

    def remove_pod(self, pod: Pod) -> None:
        if pod.spec.node_name in self.by_name:
            self.own(pod.spec.node_name).remove_pod(pod)

    def all_pods(self) -> Iterable[Pod]:
        for ni in self.node_infos:
            yield from ni.pods


def default_class(classes: Iterable[StorageClass]) -> StorageClass | None:
    """pkg/volume/util GetDefaultClass: of several default classes one wins; planner takes the last
    by name (upstream: the newest, which a snapshot does not always tell)."""
    defaults = sorted((sc for sc in classes if sc.is_default), key=lambda sc: sc.name)
    return defaults[-1] if defaults else None


NO_NODE_AVAILABLE = "0/{} nodes are available"


def fit_error_summary(num_nodes: int, prefilter: Status | None, node_statuses: dict[str, Status]) -> str:
    """framework.FitError.Error() (pkg/scheduler/framework/types.go).

    When a PreFilter rejected the pod its message alone follows the count; otherwise a histogram
    of the reasons of each node's (first) failing filter, as "N reason" strings sorted as strings.
    PostFilter (preemption) messages are not reproduced.
    """
    msg = NO_NODE_AVAILABLE.format(num_nodes) + ":"
    if prefilter is not None:
        msg += f" {prefilter.message}."
    else:
        hist: dict[str, int] = {}
        for st in node_statuses.values():
            for r in st.reasons:
                hist[r] = hist.get(r, 0) + 1
        parts = sorted(f"{v} {k}" for k, v in hist.items())
        if parts:
            msg += " " + ", ".join(parts) + "."
    if msg.endswith(":"):
        msg = msg[:-1] + "."
    return msg
