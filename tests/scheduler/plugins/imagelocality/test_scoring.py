"""ImageLocality's Score, transcribed from upstream's image_locality_test.go TestImageLocalityPriority
(pkg/scheduler/framework/plugins/imagelocality, v1.34-v1.37): two nodes, images of 40, 300, 250
and 10 MiB, each score = 100 * (size * nodesWithIt / allNodes - 23 MiB) / (1000 MiB * containers - 23 MiB)."""

from __future__ import annotations

import pytest

from planner.domain import Node
from planner.scheduler.framework import ClusterState, NodeInfo
from planner.scheduler.plugins.imagelocality import scoring as il
from tests.scheduler.plugins.basic import mk_pod

MB = 1024 * 1024
NODE1 = Node("node1", images={"gcr.io/40:latest": 40 * MB, "gcr.io/40:v1": 40 * MB, "gcr.io/300:latest": 300 * MB, "gcr.io/300:v1": 300 * MB})
NODE2 = Node("node2", images={"gcr.io/250:latest": 250 * MB, "gcr.io/10:latest": 10 * MB, "gcr.io/10:v1": 10 * MB})


def _scores(images: tuple[str, ...], nodes=(NODE1, NODE2)) -> list[int]:
    cluster = ClusterState([NodeInfo(n) for n in nodes])
    pod = mk_pod(images=images)
    return il.score(il.pre_score(pod, cluster, cluster.node_infos), pod, cluster.node_infos)


@pytest.mark.parametrize(
    ("images", "want"),
    [
        # node1: 40/2 MiB is under 23 MiB: 0; node2: 100 * (250/2 - 23) / (2000 - 23) = 5
        (("gcr.io/40", "gcr.io/250"), [0, 5]),
        # node1: 100 * (300/2 - 23) / (2000 - 23) = 6; node2: 10/2 MiB: 0
        (("gcr.io/300", "gcr.io/10"), [6, 0]),
        # tags: gcr.io/10:v1 on node2 only; no image anywhere: 0 without looking at the nodes
        (("gcr.io/10:v1",), [0, 0]),
        (("other/image:1",), [0, 0]),
    ],
)
def test_image_locality_priority(images, want):
    assert _scores(images) == want


def test_an_image_on_every_node_counts_in_full_and_the_sum_is_clamped():
    big = Node("a", images={"x/big:1": 3000 * MB})
    also = Node("b", images={"x/big:1": 3000 * MB})
    assert _scores(("x/big:1",), (big, also)) == [100, 100]  # 3000 MiB clamped to 1000 MiB * 1 container
    assert il.calculate_priority(0, 0) == 0


def test_normalized_image_name():
    assert il.normalized_image_name("nginx") == "nginx:latest"
    assert il.normalized_image_name("registry:5000/nginx") == "registry:5000/nginx:latest"
    assert il.normalized_image_name("registry:5000/nginx:1.2") == "registry:5000/nginx:1.2"


def test_node_images_are_read_and_scored_in_explain(tmp_path):
    import json

    from tests.conftest import run_cli

    f = tmp_path / "s.yaml"
    f.write_text(
        """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: warm, labels: {kubernetes.io/hostname: warm}}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    images: [{names: ["registry.example/app@sha256:0123", "registry.example/app:2.0"], sizeBytes: 1048576000}]
- apiVersion: v1
  kind: Node
  metadata: {name: cold, labels: {kubernetes.io/hostname: cold}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default}
  spec: {containers: [{name: c, image: "registry.example/app:2.0"}]}
  status: {phase: Pending}
"""
    )
    r = run_cli(["explain", str(f), "--pod", "default/p", "--scores", "-o", "json"])
    assert r.code == 0, r.out + r.err
    nodes = {n["name"]: {s["plugin"]: s["score"] for s in n["scores"]} for n in json.loads(r.out)["nodes"]}
    # 1000 MiB on one node of two: 500 MiB; 100 * (500 - 23) / (1000 - 23) = 48
    assert nodes["warm"]["ImageLocality"] == 48 and nodes["cold"]["ImageLocality"] == 0
