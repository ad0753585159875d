"""ImageLocality, Score half: 0 on every node in planner.

kube-scheduler v1.37 pkg/scheduler/framework/plugins/imagelocality/image_locality.go scores a node
by the sizes of the pod's container images already present on it (node.status.images, spread by
how many nodes have each image), clamped between 23 MB per container and 1000 MB per container
(calculatePriority).  planner's Node carries no ``status.images``, so the sum is 0 for every node,
calculatePriority clamps it to the minimum threshold, and the score is 0 everywhere: the plugin
(weight 1) never changes a decision here.  It is kept so explanations list all default plugins.
v1.37's fix for image volumes (kubernetes#138951: they could outscore the same image used by a
container) changes nothing here either.
"""

from __future__ import annotations

from planner.domain import Pod
from planner.scheduler.framework import ClusterState, NodeInfo

NAME = "ImageLocality"


def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> None:
    return None


def score(state: None, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    return [0] * len(nodes)
