"""Node groups and their template nodes, as cluster-autoscaler builds them for a scale-up.

kubernetes/autoscaler cluster-autoscaler (what planner follows for ``capacity --add-nodes`` and
the replay's ``addNodes`` step):

* processors/nodeinfosprovider/mixed_nodeinfos_processor.go ``Process`` and
  ``isNodeGoodTemplateCandidate``: a group's template is the first of its nodes that is ready
  (kube_util.GetReadinessState) and schedulable (``!node.Spec.Unschedulable``); only when no
  node qualifies is an unready or cordoned one used ("Built template for %s based on
  unready/unschedulable node %s"), here marked ``fallback``;
* utils/taints/taints.go ``SanitizeTaints`` (called by simulator/node_info_utils.go
  ``SanitizedTemplateNodeInfoFromNodeInfo``): the template drops the taints that belong to that
  one node's state, not to the group: ToBeDeletedByClusterAutoscaler,
  DeletionCandidateOfClusterAutoscaler, the node-condition taints the node lifecycle controller
  sets (node.kubernetes.io/not-ready, unreachable, unschedulable, memory-, disk-, pid-pressure,
  network-unavailable, out-of-service) and the startup / status / ignore taints
  (``startup-taint.cluster-autoscaler.kubernetes.io/``, ``status-taint...``,
  ``ignore-taint...`` prefixes); every other taint (a GPU pool's) is kept;
* the new node (``SanitizedTemplateNodeInfoFromNodeInfo``) copies the labels, gets a fresh name
  and ``kubernetes.io/hostname``, is schedulable, and runs the DaemonSet pods that would run on
  it (simulator/node_info_utils.go ``addExpectedPods`` with the DaemonSet controller's
  predicates: planner.controllers.daemon).

The group of a node is the cloud provider's (NodeGroupForNode); from a snapshot planner reads it
from the provider's label: ``eks.amazonaws.com/nodegroup`` (EKS managed node groups),
``cloud.google.com/gke-nodepool`` (GKE), ``karpenter.sh/nodepool`` (Karpenter),
``kubernetes.azure.com/agentpool`` or ``agentpool`` (AKS); a node without one is grouped by
zone and instance type (``node.kubernetes.io/instance-type``).  A group that spans zones is one
group per zone (a scale-up of a multi-zone group lands in one zone; planner chooses which).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from planner.domain import LABEL_HOSTNAME, Node, Taint

GROUP_LABELS: tuple[str, ...] = (
    "eks.amazonaws.com/nodegroup",
    "cloud.google.com/gke-nodepool",
    "karpenter.sh/nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",
)
LABEL_INSTANCE_TYPE = "node.kubernetes.io/instance-type"
LABEL_INSTANCE_TYPE_BETA = "beta.kubernetes.io/instance-type"

# cluster-autoscaler utils/taints: ToBeDeletedTaint, DeletionCandidateTaint
TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler"
DELETION_CANDIDATE_TAINT = "DeletionCandidateOfClusterAutoscaler"
# k8s.io/api/core/v1 well_known_taints.go: the node lifecycle controller's condition taints
NODE_CONDITION_TAINTS = frozenset(
    (
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
        "node.kubernetes.io/unschedulable",
        "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/disk-pressure",
        "node.kubernetes.io/pid-pressure",
        "node.kubernetes.io/network-unavailable",
        "node.kubernetes.io/out-of-service",
        "node.cloudprovider.kubernetes.io/uninitialized",
        "node.cloudprovider.kubernetes.io/shutdown",
    )
)
TRANSIENT_TAINT_PREFIXES = (
    "startup-taint.cluster-autoscaler.kubernetes.io/",
    "status-taint.cluster-autoscaler.kubernetes.io/",
    "ignore-taint.cluster-autoscaler.kubernetes.io/",
)


def is_transient_taint(t: Taint) -> bool:
    """A taint SanitizeTaints removes from a template node (this node's state, not its group's)."""
    return (
        t.key in (TO_BE_DELETED_TAINT, DELETION_CANDIDATE_TAINT)
        or t.key in NODE_CONDITION_TAINTS
        or t.key.startswith(TRANSIENT_TAINT_PREFIXES)
    )


def is_good_template_candidate(node: Node) -> bool:
    """isNodeGoodTemplateCandidate: ready (the Ready condition; a node without one, hand-written,
    counts as ready) and schedulable (not cordoned), and, as planner adds, without a transient
    taint (not-ready, unreachable, unschedulable, ToBeDeletedByClusterAutoscaler,
    DeletionCandidateOfClusterAutoscaler, ...): such a node is in a passing state that says
    nothing about a new node of its group."""
    if node.unschedulable or node.ready is False:
        return False
    return not any(is_transient_taint(t) for t in node.taints)


@dataclass(frozen=True)
class NodeGroup:
    name: str  # the group label's value, or "<zone>/<instance type>"
    label: str  # the label the group was read from, or "zone/instance-type"
    zone: str | None
    nodes: tuple[str, ...]
    template: Node  # the node the template was built from
    fallback: bool = False  # no ready, schedulable node: built from an unready or cordoned one

    def describe(self) -> str:
        if self.label != "zone/instance-type":
            return f"node group {self.name} ({self.label})"
        # no group label: the nodes are grouped by what they share, said in words
        zone, _, itype = self.name.partition("/")
        where = [] if zone == "(no zone)" else [f"zone {zone}"]
        if itype != "(no instance type)":
            where.append(f"instance type {itype}")
        return "the nodes like " + self.template.name + (f" ({', '.join(where)}; no node group label)" if where else " (no node group label)")

    def new_node(self, name: str) -> Node:
        """SanitizedTemplateNodeInfoFromNodeInfo: the template's labels with a fresh hostname, its
        non-transient taints, schedulable, no uid."""
        t = self.template
        labels = dict(t.labels)
        labels[LABEL_HOSTNAME] = name
        taints = tuple(x for x in t.taints if not is_transient_taint(x))
        return replace(t, name=name, labels=labels, taints=taints, unschedulable=False, uid="", ready=True)


def group_key(node: Node) -> tuple[str, str]:
    """(label, name) of the node's group."""
    for label in GROUP_LABELS:
        v = node.labels.get(label)
        if v:
            return label, v
    itype = node.labels.get(LABEL_INSTANCE_TYPE) or node.labels.get(LABEL_INSTANCE_TYPE_BETA) or ""
    return "zone/instance-type", f"{node.zone or '(no zone)'}/{itype or '(no instance type)'}"


def node_groups(nodes: Iterable[Node]) -> list[NodeGroup]:
    """The node groups of a cluster, by name, each with its template (mixed_nodeinfos_processor.go:
    the first good candidate in the order the nodes are listed, else the first node).  Ordered by
    name so that a what-if's ties (cluster-autoscaler's expander chooses among groups) are broken
    the same way every time."""
    members: dict[tuple[str, str, str | None], list[Node]] = {}
    for n in nodes:
        label, name = group_key(n)
        members.setdefault((label, name, n.zone), []).append(n)
    multi_zone: dict[tuple[str, str], int] = {}
    for label, name, _zone in members:
        multi_zone[(label, name)] = multi_zone.get((label, name), 0) + 1
    out = []
    for (label, name, zone), ns in members.items():
        good = [n for n in ns if is_good_template_candidate(n)]
        shown = name if multi_zone[(label, name)] == 1 or label == "zone/instance-type" else f"{name}/{zone or '(no zone)'}"
        out.append(NodeGroup(shown, label, zone, tuple(n.name for n in ns), (good or ns)[0], fallback=not good))
    return sorted(out, key=lambda g: (g.name, g.zone or ""))
