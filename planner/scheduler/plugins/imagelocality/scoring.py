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


def image_state(cluster: ClusterState, name: str) -> tuple[int, int] | None:
    """The scheduler cache's ImageStateSummary of ``name``: (the size the first node reporting it
    gives, the number of nodes reporting it), None when no node does; looked up once per name
    and kept on the cluster while its node list is the same list of as many nodes (a node
    cordoned keeps its images)."""
    infos = cluster.node_infos
    key = (id(infos), len(infos))
    hit = cluster.__dict__.get(_STATES_ATTR)
    if hit is None or hit[0] != key:
        hit = cluster.__dict__[_STATES_ATTR] = (key, {})
    memo: dict[str, tuple[int, int] | None] = hit[1]
    if name in memo:
        return memo[name]
    size, count = 0, 0
    for ni in infos:
        s = ni.node.images.get(name)
        if s is not None:
            if not count:
                size = s
            count += 1
    memo[name] = (size, count) if count else None
    return memo[name]


def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> Any:
    """The pod's images as looked up, with their image states; None when no node reports any
    of them (every node scores 0)."""
    images = [normalized_image_name(i) for i in pod.spec.images]
    states = {i: st for i in images if (st := image_state(cluster, i)) is not None}
    if not states:
        return None
    return images, states, len(cluster.node_infos)


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
        have = ni.node.images
        s = 0
        for name in images:
            if name in have and name in states:
                size, num = states[name]
                s += int(float(size) * (float(num) / float(total)))
        out.append(calculate_priority(s, len(images)))
    return out
