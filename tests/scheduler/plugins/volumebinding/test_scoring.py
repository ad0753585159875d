"""VolumeBinding's Score (StorageCapacityScoring, on by default in v1.37), transcribed from upstream.

Upstream (kubernetes/kubernetes):
* pkg/scheduler/framework/plugins/volumebinding/scorer_test.go: TestScore (buildScorerFunction on
  class resources).  Its "default shape" is the test file's ``defaultShapePoint``
  (volume_binding_test.go: utilization 0 -> score 0, 100 -> 10, the shape VolumeCapacityPriority
  defaulted to), not v1.37's default; it is transcribed as such and v1.37's default
  (defaults.go SetDefaults_VolumeBindingArgs: 0 -> 10, 100 -> 0) is tested on the same inputs.
* pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go: TestVolumeBinding, the
  ``wantScores`` of the cases with static bindings (shape: the test's ``defaultShapePoint`` unless
  the case sets args.Shape); the PreFilter/Filter halves are in test_filtering.py.

Cases after "planner:" ids are planner's own.
"""

from __future__ import annotations

import random

import pytest

from planner.domain import LABEL_HOSTNAME
from planner.scheduler import scoring
from planner.scheduler.framework import SKIP
from planner.scheduler.plugins.volumebinding import scoring as vbs
from planner.scheduler.runtime import feasible_nodes
from tests.builders import Gi, cluster, node, pod, pv, pvc, storage_class
from tests.scheduler.plugins.volumebinding.test_filtering import (
    TVB_CLASSES,
    local_pvs,
    make_pvc,
    zonal_nodes,
    zonal_pvs,
)

# volume_binding_test.go defaultShapePoint (the test's, not v1.37's default)
TEST_SHAPE = ((0, 0), (100, 10))
CUSTOM_SHAPE = ((50, 0), (80, 30), (100, 50))  # scorer_test.go "custom shape" (already 0..100)

HDD, SSD = "hdd", "ssd"

# (case, shape, [(class resources, want)]) -- scorer_test.go TestScore
SCORER_CASES = [
    (
        "default shape, single class",
        vbs.function_shape(TEST_SHAPE),
        [
            ({HDD: (0, 100)}, 0),
            ({HDD: (30, 100)}, 30),
            ({HDD: (50, 100)}, 50),
            ({HDD: (100, 100)}, 100),
        ],
    ),
    (
        "default shape, multiple classes",
        vbs.function_shape(TEST_SHAPE),
        [
            ({HDD: (0, 100), SSD: (0, 100)}, 0),
            ({HDD: (0, 100), SSD: (30, 100)}, 15),
            ({HDD: (30, 100), SSD: (30, 100)}, 30),
            ({HDD: (30, 100), SSD: (60, 100)}, 45),
            ({HDD: (50, 100), SSD: (50, 100)}, 50),
            ({HDD: (50, 100), SSD: (100, 100)}, 75),
            ({HDD: (100, 100), SSD: (100, 100)}, 100),
        ],
    ),
    (
        "custom shape, multiple classes",
        CUSTOM_SHAPE,
        [
            ({HDD: (0, 100), SSD: (0, 100)}, 0),
            ({HDD: (0, 100), SSD: (30, 100)}, 0),
            ({HDD: (30, 100), SSD: (30, 100)}, 0),
            ({HDD: (30, 100), SSD: (60, 100)}, 5),
            ({HDD: (50, 100), SSD: (100, 100)}, 25),
            ({HDD: (90, 100), SSD: (90, 100)}, 40),
            ({HDD: (100, 100), SSD: (100, 100)}, 50),
        ],
    ),
    # planner: v1.37's default shape (score = 100 - utilization) on the same inputs
    (
        "planner: v1.37 default shape",
        vbs.function_shape(vbs.DEFAULT_SHAPE_POINTS),
        [
            ({HDD: (0, 100)}, 100),
            ({HDD: (30, 100)}, 70),
            ({HDD: (100, 100)}, 0),
            ({HDD: (0, 100), SSD: (30, 100)}, 85),
            ({HDD: (30, 100), SSD: (60, 100)}, 55),
            ({HDD: (50, 100), SSD: (100, 100)}, 25),
            ({HDD: (25, 100), SSD: (50, 100)}, 63),  # 62.5: math.Round, half away from zero
            ({HDD: (5, 0)}, 0),  # no capacity: shape(100)
            ({HDD: (101, 100)}, 0),  # request above capacity: shape(100)
            ({}, 0),  # no class
        ],
    ),
]


@pytest.mark.parametrize("case,shape,cases", SCORER_CASES, ids=[c[0] for c in SCORER_CASES])
def test_scorer(case, shape, cases):  # type: ignore[no-untyped-def]
    f = vbs.build_scorer(shape)
    for classes, want in cases:
        assert f(classes) == want, classes


def test_default_scorer_is_v137_default_shape():
    assert vbs.DEFAULT_SHAPE_POINTS == ((0, 10), (100, 0))
    assert vbs.function_shape(vbs.DEFAULT_SHAPE_POINTS) == ((0, 100), (100, 0))
    f = vbs.broken_linear(((0, 100), (100, 0)))
    assert [f(p) for p in (-5, 0, 1, 33, 99, 100, 150)] == [100, 100, 99, 67, 1, 0, 0]


def test_broken_linear_truncates_like_go():
    # (0, 0) -> (3, -10): at 1, -10 * 1 / 3 = -3 in Go (truncation), not -4 (floor)
    assert vbs.broken_linear(((0, 0), (3, -10)))(1) == -3


def _scores(claims, nodes, pvcs, pvs, shape):  # type: ignore[no-untyped-def]
    p = pod("pod-a", claims=claims)
    cl = cluster(nodes, pvcs=pvcs, pvs=pvs, storage_classes=TVB_CLASSES)
    state = vbs.pre_score_with_shape(p, cl, shape)
    assert state is not SKIP
    return vbs.score(state, p, cl.node_infos)  # type: ignore[arg-type]


THREE = [node("node-a"), node("node-b"), node("node-c")]
ONE_50 = [make_pvc("pvc-a", "wait-sc", request=50 * Gi)]
TWO = [make_pvc("pvc-0", "wait-sc", request=50 * Gi), make_pvc("pvc-1", "wait-hdd-sc", request=100 * Gi)]

# (name, claims, nodes, pvcs, pvs, shape points, want scores) -- TestVolumeBinding wantScores
SCORE_CASES = [
    ("local volumes with close capacity are preferred", ["pvc-a"], THREE, ONE_50, local_pvs(False), TEST_SHAPE, [25, 50, 0]),
    ("local volumes with close capacity are preferred (multiple pvcs)", ["pvc-0", "pvc-1"], THREE, TWO, local_pvs(True), TEST_SHAPE, [38, 75, 0]),
    ("zonal volumes with close capacity are preferred", ["pvc-a"], zonal_nodes(), ONE_50, zonal_pvs(), TEST_SHAPE, [25, 25, 50, 50, 0, 0]),
    (
        "zonal volumes with close capacity are preferred (custom shape)", ["pvc-a"], zonal_nodes(), ONE_50, zonal_pvs(),
        ((0, 0), (50, 3), (100, 5)), [15, 15, 30, 30, 0, 0],
    ),
    # planner: the same clusters with v1.37's default shape (None): least utilised first
    ("planner: local volumes, v1.37 default shape", ["pvc-a"], THREE, ONE_50, local_pvs(False), None, [75, 50, 0]),
    ("planner: local volumes (multiple pvcs), v1.37 default shape", ["pvc-0", "pvc-1"], THREE, TWO, local_pvs(True), None, [63, 25, 0]),
    ("planner: zonal volumes, v1.37 default shape", ["pvc-a"], zonal_nodes(), ONE_50, zonal_pvs(), None, [75, 75, 50, 50, 0, 0]),
]


@pytest.mark.parametrize("name,claims,nodes,pvcs,pvs,shape,want", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_volume_binding_scores(name, claims, nodes, pvcs, pvs, shape, want):  # type: ignore[no-untyped-def]
    assert _scores(claims, nodes, pvcs, pvs, shape) == want


# TestVolumeBinding's cases whose PreScore is Skip or whose Score is 0 everywhere: no PVC, only
# bound claims, an unbound claim without any PV, and (planner) dynamic provisioning only.
def test_nothing_to_score_is_skipped():
    n = [node("node-a")]
    cases = [
        (pod("pod-a"), cluster(n, storage_classes=TVB_CLASSES)),
        (
            pod("pod-a", claims=["pvc-a"]),
            cluster(n, pvcs=[make_pvc("pvc-a", "wait-sc", bound_pv="pv-a")], pvs=[pv("pv-a", storage_class="wait-sc")], storage_classes=TVB_CLASSES),
        ),
        (pod("pod-a", claims=["pvc-a"]), cluster(n, pvcs=[make_pvc("pvc-a", "wait-sc")], storage_classes=TVB_CLASSES)),
        (
            pod("pod-a", claims=["pvc-a"]),
            cluster(n, pvcs=[pvc("pvc-a", storage_class="gp3")], storage_classes=[storage_class("gp3")]),
        ),
    ]
    for p, cl in cases:
        assert vbs.pre_score(p, cl, cl.node_infos) is SKIP
        assert scoring.plugin_scores(vbs.NAME, p, cl, [ni.name for ni in cl.node_infos]) is None


def test_static_on_one_node_dynamic_on_another():
    """planner: a node where the claim would be provisioned (CSIStorageCapacity unknown) scores 0;
    a node with a static PV is scored on it."""
    gp3 = storage_class("gp3")
    nodes = [node("n1"), node("n2")]
    pvs = [pv("local-n1", storage_class="gp3", capacity=20 * Gi, node_affinity=_on("n1"))]
    cl = cluster(nodes, pvcs=[pvc("data", storage_class="gp3", request=5 * Gi)], pvs=pvs, storage_classes=[gp3])
    p = pod("p", claims=["data"])
    assert scoring.plugin_scores(vbs.NAME, p, cl, ["n1", "n2"]) == [75, 0]


def _on(host: str):  # type: ignore[no-untyped-def]
    from tests.builders import node_selector

    return node_selector([(LABEL_HOSTNAME, "In", [host])])


def test_most_free_capacity_wins():
    """Two nodes with local PVs of 10Gi and 100Gi for a 5Gi claim, all else tied: with v1.37's default
    shape (score = 100 - 100 * request / capacity) the 10Gi PV scores 50 and the 100Gi PV 95, so
    the node whose PV leaves the most free capacity wins, whatever the seed."""
    local = storage_class("local", provisioner="kubernetes.io/no-provisioner")
    nodes = [node("small"), node("large")]
    pvs = [
        pv("pv-small", storage_class="local", capacity=10 * Gi, node_affinity=_on("small")),
        pv("pv-large", storage_class="local", capacity=100 * Gi, node_affinity=_on("large")),
    ]
    cl = cluster(nodes, pvcs=[pvc("data", storage_class="local", request=5 * Gi)], pvs=pvs, storage_classes=[local])
    p = pod("p", claims=["data"])
    feasible = feasible_nodes(p, cl)
    assert feasible == ["small", "large"]
    assert scoring.plugin_scores(vbs.NAME, p, cl, feasible) == [50, 95]
    explain = scoring.explain_scores(p, cl, feasible)
    others = {n: sum(v for k, v in explain[n].items() if k != vbs.NAME) for n in feasible}
    assert others["small"] == others["large"]  # all else tied
    totals = scoring.score_nodes(p, cl, feasible)
    assert totals["large"] - totals["small"] == 45
    for seed in range(20):
        assert scoring.select_host(totals, random.Random(seed)) == "large"
