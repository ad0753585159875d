"""The DaemonSet controller's choice of nodes, for the nodes a what-if adds.

Ports of kubernetes/kubernetes (v1.37):

* pkg/controller/daemon/daemon_controller.go ``NodeShouldRunDaemonPod`` and ``predicates``: a
  daemon pod runs on a node when the template's nodeName (if any) is the node, the template's
  nodeSelector and required node affinity match the node (nodeaffinity.GetRequiredNodeAffinity),
  and every NoSchedule / NoExecute taint of the node is tolerated;
* pkg/controller/daemon/util/daemonset_util.go ``AddOrUpdateDaemonPodTolerations``: the
  tolerations the controller adds to every daemon pod (not-ready and unreachable NoExecute;
  disk-, memory- and pid-pressure and unschedulable NoSchedule; network-unavailable NoSchedule
  for hostNetwork pods), so a cordoned node still runs its daemon pods.

Upstream the controller creates the pod with node affinity to the node's name
(ReplaceDaemonSetPodNodeNameNodeAffinity) and the scheduler binds it; planner binds it to the new
node at once, so its requests count there (docs/semantics.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from planner.controllers.controller_utils import generate_name, object_uid
from planner.domain import DaemonSet, Node, OwnerRef, Pod, PodSpec, Toleration
from planner.matching import find_untolerated_taint, pod_matches_node_selector_and_affinity

# k8s.io/api/core/v1 well_known_taints.go
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_NODE_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_NODE_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"

# AddOrUpdateDaemonPodTolerations, in upstream's order
DAEMON_TOLERATIONS: tuple[Toleration, ...] = (
    Toleration(key=TAINT_NODE_NOT_READY, operator="Exists", effect="NoExecute"),
    Toleration(key=TAINT_NODE_UNREACHABLE, operator="Exists", effect="NoExecute"),
    Toleration(key=TAINT_NODE_DISK_PRESSURE, operator="Exists", effect="NoSchedule"),
    Toleration(key=TAINT_NODE_MEMORY_PRESSURE, operator="Exists", effect="NoSchedule"),
    Toleration(key=TAINT_NODE_PID_PRESSURE, operator="Exists", effect="NoSchedule"),
    Toleration(key=TAINT_NODE_UNSCHEDULABLE, operator="Exists", effect="NoSchedule"),
)
HOST_NETWORK_TOLERATION = Toleration(key=TAINT_NODE_NETWORK_UNAVAILABLE, operator="Exists", effect="NoSchedule")


def _add_or_update(tolerations: tuple[Toleration, ...], t: Toleration) -> tuple[Toleration, ...]:
    """v1helper.AddOrUpdateTolerationInPodSpec: replace the toleration of the same key, operator,
    value and effect, else append."""
    out = list(tolerations)
    for i, old in enumerate(out):
        if (old.key, old.operator, old.value, old.effect) == (t.key, t.operator, t.value, t.effect):
            out[i] = t
            return tuple(out)
    out.append(t)
    return tuple(out)


def daemon_pod_tolerations(spec: PodSpec, host_network: bool = False) -> tuple[Toleration, ...]:
    """AddOrUpdateDaemonPodTolerations: the template's tolerations plus the controller's."""
    tols = spec.tolerations
    for t in DAEMON_TOLERATIONS + ((HOST_NETWORK_TOLERATION,) if host_network else ()):
        tols = _add_or_update(tols, t)
    return tols


def node_should_run_daemon_pod(node: Node, ds: DaemonSet, host_network: bool = False) -> tuple[bool, bool]:
    """NodeShouldRunDaemonPod: (shouldRun, shouldContinueRunning)."""
    spec = ds.template.spec
    if spec.node_name and spec.node_name != node.name:
        return False, False
    pod_spec = replace(spec, node_name=node.name, tolerations=daemon_pod_tolerations(spec, host_network))
    # predicates: fitsNodeName (always, the pod's nodeName is the node), fitsNodeAffinity, fitsTaints
    if not pod_matches_node_selector_and_affinity(pod_spec, node):
        return False, False
    if find_untolerated_taint(node.taints, pod_spec.tolerations, ("NoExecute", "NoSchedule")) is not None:
        return False, find_untolerated_taint(node.taints, pod_spec.tolerations, ("NoExecute",)) is None
    return True, True


def daemon_pods_for_node(
    node: Node,
    daemonsets: Iterable[DaemonSet],
    taken: Callable[[str], bool],
    host_network: Callable[[DaemonSet], bool] = lambda ds: False,
) -> list[Pod]:
    """The pods the DaemonSet controller creates for a new ``node`` (syncNodes for a node that
    runs none yet), bound to it: one per DaemonSet whose shouldRun holds, in the DaemonSets'
    order, named ``<daemonset>-<5 characters>`` (generateName) and not colliding with ``taken``."""
    out: list[Pod] = []
    names: set[str] = set()
    for ds in daemonsets:
        hn = host_network(ds)
        should_run, _ = node_should_run_daemon_pod(node, ds, hn)
        if not should_run:
            continue
        tpl = ds.template
        ns = ds.namespace
        name = generate_name(f"{ds.name}-", lambda n: taken(f"{ns}/{n}") or n in names)  # noqa: B023 (used at once)
        names.add(name)
        spec = replace(tpl.spec, node_name=node.name, tolerations=daemon_pod_tolerations(tpl.spec, hn))
        out.append(
            Pod(
                namespace=ds.namespace,
                name=name,
                labels=dict(tpl.labels),
                spec=spec,
                phase="Running",
                owner=OwnerRef("DaemonSet", ds.name, ds.uid, True),
                uid=object_uid("Pod", ds.namespace, name, node.name),
                annotations=dict(tpl.annotations),
            )
        )
    return out


def is_host_network(raw: dict | None) -> bool:  # type: ignore[type-arg]
    """spec.template.spec.hostNetwork of a DaemonSet's manifest (planner's PodSpec does not keep it)."""
    if not isinstance(raw, dict):
        return False
    spec = raw.get("spec")
    tpl = spec.get("template") if isinstance(spec, dict) else None
    ps = tpl.get("spec") if isinstance(tpl, dict) else None
    return isinstance(ps, dict) and ps.get("hostNetwork") is True
