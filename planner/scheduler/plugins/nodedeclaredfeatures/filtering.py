"""NodeDeclaredFeatures: a pod that needs a node-level feature only fits nodes declaring it.

Port of kube-scheduler v1.37 pkg/scheduler/framework/plugins/nodedeclaredfeatures/
nodedeclaredfeatures.go (KEP-5328, Node Declared Features: alpha in v1.35, beta and on by default
in v1.36, GA and locked on in v1.37 -- pkg/features).  With the gate on, the default profile runs
it (apis/config/v1/default_plugins.go ``applyFeatureGates`` appends it to the MultiPoint list), so
it is the last of the filters planner models, after InterPodAffinity.

* PreFilter infers the pod's requirements from its spec with the component-helpers
  nodedeclaredfeatures framework (``InferForPodScheduling`` against the scheduler's version) and
  returns Skip when there are none: such a pod passes on every node.
* Filter: the requirements must be a subset of the node's ``status.declaredFeatures``; otherwise
  UnschedulableAndUnresolvable with the reason ``node(s) didn't match Pod's required features``.

Which features a pod requires comes from the features registered in
k8s.io/component-helpers/nodedeclaredfeatures; those inferred at scheduling time read pod fields
planner does not load (a container restart rule with action RestartAllContainers, host
networking with ``hostUsers: false``), and planner does not read ``node.status.declaredFeatures``
either.  So every pod planner reads requires no declared feature: PreFilter returns Skip and the
plugin never rejects a node.  ``required_features`` and ``declared_features`` are where that
inference and the node's list would be read.
"""

from __future__ import annotations

from typing import Any

from planner.domain import Node, Pod
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, NodeInfo, Status

NAME = "NodeDeclaredFeatures"

# errReasonUnsatisfiedRequirements
ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"

_STATUS = Status(NAME, (ERR_REASON_UNSATISFIED_REQUIREMENTS,), UNRESOLVABLE)


def required_features(pod: Pod) -> frozenset[str]:
    """InferForPodScheduling on what planner reads of the pod: no field that requires a feature."""
    return frozenset()


def declared_features(node: Node) -> frozenset[str]:
    """NodeInfo.GetNodeDeclaredFeatures: planner's Node carries no ``status.declaredFeatures``."""
    return frozenset(getattr(node, "declared_features", ()))


def pre_filter(pod: Pod, cluster: ClusterState) -> tuple[Any, Status | None]:
    reqs = required_features(pod)
    if not reqs:
        return SKIP, None
    return reqs, None


def filter(state: Any, pod: Pod, node_info: NodeInfo) -> Status | None:
    if state <= declared_features(node_info.node):
        return None
    return _STATUS
