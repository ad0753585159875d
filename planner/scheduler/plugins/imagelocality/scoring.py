"""ImageLocality, Score: nodes that already hold the pod's images score higher.

Port of kube-scheduler v1.37 pkg/scheduler/framework/plugins/imagelocality/image_locality.go
(Score, calculatePriority, sumImageScores, scaledImageScore, normalizedImageName) with the image
states the scheduler cache keeps (pkg/scheduler/backend/cache addNodeImageStates: per image name,
the size first reported and the number of nodes that report it):

    sum   = sum over the pod's containers and init containers whose image the node reports of
            int(size * numNodes / totalNumNodes)          (the image's spread over all nodes)
    score = 100 * (clamp(sum, 23 MiB, 1000 MiB * containers) - 23 MiB) // (that max - 23 MiB)

An image without a tag or digest is looked up as ``<name>:latest``; names are otherwise compared
as written (``nginx:1.27`` does not match a node's ``docker.io/library/nginx:1.27``, as upstream).
Image volumes (the ImageVolume feature) are not counted.  A pod none of whose images any node
reports scores 0 everywhere without looking at the nodes (the common case of a snapshot without
``status.images``).
"""

from __future__ import annotations

from typing import Any

from planner.domain import Pod
from planner.scheduler.framework import ClusterState, NodeInfo

NAME = "ImageLocality"

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
MAX_NODE_SCORE = 100

_STATES_ATTR = "_planner_image_states"


def normalized_image_name(name: str) -> str:
    """normalizedImageName: ``:latest`` appended to a name without a tag."""
    if name.rfind(":") <= name.rfind("/"):
        name += ":latest"
    return name


def image_states(cluster: ClusterState) -> tuple[dict[str, tuple[int, int]], int]:
    """(image name -> (size, number of nodes reporting it), number of nodes), kept on the cluster
    while its node list is the same list of as many nodes (a node cordoned keeps its images)."""
    infos = cluster.node_infos
    key = (id(infos), len(infos))
    hit = cluster.__dict__.get(_STATES_ATTR)
    if hit is not None and hit[0] == key:
        return hit[1], hit[2]
    states: dict[str, tuple[int, int]] = {}
    for ni in infos:
        seen: set[str] = set()
        for name, size in ni.node.images:
            if name in seen:
                continue
            seen.add(name)
            s = states.get(name)
            states[name] = (size, 1) if s is None else (s[0], s[1] + 1)
    cluster.__dict__[_STATES_ATTR] = (key, states, len(infos))
    return states, len(infos)


def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> Any:
    """The pod's images as looked up and the cluster's image states; None when no node reports
    any of them (every node scores 0)."""
    images = [normalized_image_name(i) for i in pod.spec.images]
    states, total = image_states(cluster)
    if not states or not any(i in states for i in images):
        return None
    return images, states, total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """calculatePriority."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


def score(state: Any, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    if state is None:
        return [0] * len(nodes)
    images, states, total = state
    out = []
    for ni in nodes:
        have = {name for name, _ in ni.node.images}
        s = 0
        for name in images:
            if name in have:
                size, num = states[name]
                s += int(float(size) * (float(num) / float(total)))
        out.append(calculate_priority(s, len(images)))
    return out
