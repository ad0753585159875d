"""NodeAffinity: spec.nodeSelector AND spec.affinity.nodeAffinity.requiredDuringScheduling...

Port of the PreFilter and Filter of pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
(v1.37), matching with nodeaffinity.GetRequiredNodeAffinity (planner/matching.py).

PreFilter, as upstream:
* Skip when the pod has neither a nodeSelector nor required node affinity;
* when every term of the required affinity has ``matchFields`` ``metadata.name In [...]``
  requirements, the union over terms of the intersection within a term is upstream's
  PreFilterResult.NodeNames: empty means "pod affinity terms conflict" (PreFilter fails with
  UnschedulableAndUnresolvable), otherwise only those nodes are evaluated.  kube-scheduler never
  runs Filter on the other nodes and gives them the status
  "node(s) didn't satisfy plugin(s) [NodeAffinity]" (schedule_one.go findNodesThatFitPod,
  SetAbsentNodesStatus); Filter returns that status for them here.  When another plugin
  (VolumeBinding) also narrows the nodes upstream lists both plugins in that message; that
  merge is the framework's business and ``State.node_names`` is exposed for it.

Not modelled: the scheduler-enforced ``addedAffinity`` of NodeAffinityArgs (not in the default
profile; reason "node(s) didn't match scheduler-enforced node affinity").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.domain import NodeSelectorTerm, Pod
from planner.matching import OBJECT_NAME_FIELD, parsed_terms, terms_match
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, NodeInfo, Status

NAME = "NodeAffinity"

# ErrReasonPod
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
# errReasonConflict
ERR_REASON_CONFLICT = "pod affinity terms conflict"
# schedule_one.go: the status of the nodes left out by a PreFilterResult.
ERR_REASON_ABSENT = f"node(s) didn't satisfy plugin(s) [{NAME}]"

_STATUS_POD = Status(NAME, (ERR_REASON_POD,), UNRESOLVABLE)
_STATUS_ABSENT = Status(NAME, (ERR_REASON_ABSENT,), UNRESOLVABLE)


@dataclass(frozen=True, slots=True)
class State:
    """preFilterState (requiredNodeSelectorAndAffinity) plus the PreFilterResult node names."""

    node_selector: tuple[tuple[str, str], ...]  # spec.nodeSelector items
    terms: tuple[NodeSelectorTerm, ...] | None  # parseable required terms; None: no required affinity
    node_names: frozenset[str] | None  # PreFilterResult.NodeNames; None: all nodes


def _node_names(terms: tuple[NodeSelectorTerm, ...]) -> frozenset[str] | None:
    """PreFilter's node.Name affinity: None when some term leaves every node eligible."""
    names: set[str] = set()
    for t in terms:
        term_names: set[str] | None = None
        for r in t.match_fields:
            if r.key == OBJECT_NAME_FIELD and r.operator == "In":
                # The requirements of a term are ANDed: intersect.
                term_names = set(r.values) if term_names is None else term_names & set(r.values)
        if term_names is None:
            # This term has no node.Name affinity: all nodes are eligible since terms are ORed.
            return None
        names |= term_names
    return frozenset(names)


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[Any, Status | None]:
    spec = pod.spec
    required = spec.affinity.node_required if spec.affinity is not None else None
    if required is None and not spec.node_selector:
        return SKIP, None
    terms = parsed_terms(required) if required is not None else None
    state = State(tuple(spec.node_selector.items()), terms, None)
    if required is None or not required.terms:
        return state, None
    names = _node_names(required.terms)
    if names is not None and not names:
        # Each term has conflicting affinity to node.Name: the pod matches no node.
        return state, Status(NAME, (ERR_REASON_CONFLICT,), UNRESOLVABLE)
    return State(state.node_selector, terms, names), None


def filter(state: Any, pod: Pod, node_info: NodeInfo) -> Status | None:
    # fits  <=>  node.name in PreFilterResult (when set)
    #            and every (k, v) in pod.spec.nodeSelector: node.labels[k] == v
    #            and (no required affinity or some parseable term matches node labels and fields)
    node = node_info.node
    if state.node_names is not None and node.name not in state.node_names:
        return _STATUS_ABSENT
    labels = node.labels
    for k, v in state.node_selector:
        if labels.get(k) != v:
            return _STATUS_POD
    if state.terms is not None and not terms_match(state.terms, node):
        return _STATUS_POD
    return None
