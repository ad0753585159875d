"""Score plugins and host selection: upstream's scoring table tests, transcribed case by case.

Each pytest id is the upstream case name.  Sources (kubernetes/kubernetes):
* pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go TestLeastAllocatedScoringStrategy;
* pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go
  TestNodeResourcesBalancedAllocation (the v1.35 table: its expectations are for the v1.35 formula, so
  they run with ``BALANCED_FORMULA = "v1.35"``; the v1.36 formula is checked against the three anchor
  points of kubernetes#135573's description);
* pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go TestTaintTolerationScore;
* pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go TestNodeAffinityPriority;
* pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go TestPreferredAffinity (a subset);
* pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go TestPodTopologySpreadScore (a subset).

Transcription notes:
* Units: ``st.MakeNode().Capacity({"cpu": "4000"})`` is 4000 *cores*; planner counts millicores, so
  those cpu figures are multiplied by 1000 (ratios, hence scores, unchanged).  makeNode() of the
  balanced tests already takes millicores.
* Upstream's pods built with ``st.MakePod().Obj()`` have *no containers*, hence no non-zero default
  request; planner has aggregate requests only, so they are written with explicit zero requests
  (which upstream also keeps at 0).
* Left out: argument validation cases (resource weights), cases configuring scored extended/DRA
  resources or ``addedAffinity`` (not the default profile), "PreScore not called" variants (framework
  plumbing), cases for disabled feature gates, invalid label selectors (rejected at load by planner).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from planner.domain import (
    LABEL_HOSTNAME,
    Affinity,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerRef,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
    WeightedPodAffinityTerm,
)
from planner.scheduler import scoring
from planner.scheduler.framework import ClusterState, NodeInfo
from planner.scheduler.plugins.nodeaffinity.scoring import ScoreError
from planner.scheduler.plugins.noderesources import balanced_allocation, least_allocated
from planner.scheduler.runtime import feasible_nodes
from tests.builders import cluster, node, pod, sel, spread, term

K = 1000  # cores -> millicores

# --------------------------------------------------------------------------- helpers


def N(name: str, cpu: int = 0, memory: int = 0, **labels: str):
    """A node with exactly the given labels and allocatable cpu (millicores) and memory (bytes)."""
    return node(name, labels, cpu=cpu, memory=memory, hostname_label=False)


def P(name: str = "p", node_name: str = "", labels=None, *, requests=None, ns: str = "default", **kw):
    return pod(name, labels or {}, node_name=node_name, requests=requests, namespace=ns, **kw)


ZERO = {"cpu": 0, "memory": 0}  # a pod with no containers (see the module docstring)


def plugin(name: str, incoming, nodes, existing=(), feasible=None, namespaces=None):
    c = cluster(nodes, existing, namespaces=namespaces)
    names = feasible if feasible is not None else [n.name for n in nodes]
    return scoring.plugin_scores(name, incoming, c, names)


# --------------------------------------------------------------------------- LeastAllocated

LEAST = [
    pytest.param(
        P(requests=ZERO),
        [N("node1", 4000 * K, 10000), N("node2", 4000 * K, 10000)],
        [],
        [100, 100],
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 5000}),
        [N("node1", 4000 * K, 10000), N("node2", 6000 * K, 10000)],
        [],
        [37, 50],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        P(requests=ZERO),
        [N("node1", 4000 * K, 10000), N("node2", 4000 * K, 10000)],
        [
            P("e1", "node1", requests=ZERO),
            P("e2", "node1", requests=ZERO),
            P("e3", "node2", requests=ZERO),
            P("e4", "node2", requests=ZERO),
        ],
        [100, 100],
        id="no resources requested, pods scheduled",
    ),
    pytest.param(
        P(requests=ZERO),
        [N("node1", 10000 * K, 20000), N("node2", 10000 * K, 20000)],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e3", "node2", requests={"cpu": 3000 * K, "memory": 0}),
            P("e4", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [70, 57],
        id="no resources requested, pods scheduled with resources",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 5000}),
        [N("node1", 10000 * K, 20000), N("node2", 10000 * K, 20000)],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [57, 45],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 5000}),
        [N("node1", 10000 * K, 20000), N("node2", 10000 * K, 50000)],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [57, 60],
        id="resources requested, pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 0}),
        [N("node1", 4000 * K, 10000), N("node2", 4000 * K, 10000)],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [50, 25],
        id="requested resources exceed node capacity",
    ),
    pytest.param(
        P(requests=ZERO),
        [N("node1"), N("node2")],
        [
            P("e1", "node1", requests={"cpu": 3000 * K, "memory": 0}),
            P("e2", "node2", requests={"cpu": 3000 * K, "memory": 5000}),
        ],
        [0, 0],
        id="zero node resources, pods scheduled with resources",
    ),
    pytest.param(
        P(requests={"cpu": 3000 * K, "memory": 4000}),
        [
            N("node1", 6000 * K, 10000),
            N(
                "node2",
                6000 * K,
                10000,
            ),
        ],
        [],
        [55, 55],
        id="if the node doesn't have a resource",
    ),
]


@pytest.mark.parametrize("incoming,nodes,existing,want", LEAST)
def test_least_allocated(incoming, nodes, existing, want):
    assert plugin("NodeResourcesFit", incoming, nodes, existing) == want


def test_least_allocated_weights():
    """'nothing scheduled, resources requested with different weight on CPU and memory, differently
    sized nodes': the scorer with memory weight 2, cpu weight 1 (not the default profile's)."""
    assert least_allocated.least_resource_scorer([3000, 5000], [4000, 10000], [1, 2]) == 41
    assert least_allocated.least_resource_scorer([3000, 5000], [6000, 10000], [1, 2]) == 50


def test_nonzero_defaults_for_pods_without_requests():
    """schedutil defaults: a pod (and every existing pod) without cpu/memory requests counts 100m/200Mi."""
    mi = 1024 * 1024
    nodes = [N("node1", 1000, 1000 * mi), N("node2", 1000, 1000 * mi)]
    existing = [P("e1", "node1"), P("e2", "node1")]  # 2 x (100m, 200Mi) on node1
    # node1: cpu (1000-300)*100/1000 = 70, memory (1000-600)*100/1000 = 40 -> 55
    # node2: cpu 90, memory 80 -> 85
    assert plugin("NodeResourcesFit", P(), nodes, existing) == [55, 85]
    # an explicit zero request stays zero
    # node1: cpu (1000-200)*100/1000 = 80, memory (1000-400)*100/1000 = 60 -> 70
    assert plugin("NodeResourcesFit", P(requests={"cpu": 0, "memory": 0}), nodes, existing) == [70, 100]


# --------------------------------------------------------------------------- BalancedAllocation

CPU_AND_MEMORY = {"cpu": 3000, "memory": 5000}
CPU_ONLY = {"cpu": 3000, "memory": 0}

BALANCED = [
    pytest.param(
        P(requests=ZERO),
        [N("node1", 4000, 10000), N("node2", 4000, 10000)],
        [],
        None,
        id="nothing scheduled, nothing requested, skip in PreScore",
    ),
    pytest.param(
        P(requests=CPU_AND_MEMORY),
        [N("node1", 4000, 10000), N("node2", 6000, 10000)],
        [],
        [87, 100],
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        P(requests=CPU_AND_MEMORY),
        [N("node1", 10000, 20000), N("node2", 10000, 20000)],
        [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)],
        [82, 95],
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        P(requests=CPU_AND_MEMORY),
        [N("node1", 10000, 20000), N("node2", 10000, 50000)],
        [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)],
        [82, 80],
        id="resources requested, pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        P(requests=CPU_ONLY),
        [N("node1", 6000, 10000), N("node2", 6000, 10000)],
        [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)],
        [50, 75],
        id="requested resources at node capacity",
    ),
    pytest.param(
        P(requests=CPU_AND_MEMORY),
        [
            N(
                "node1",
                3500,
                40000,
            ),
            N("node2", 3500, 40000),
        ],
        [],
        [63, 63],
        id="node without the scalar resource should skip the scalar resource",
    ),
]


@pytest.mark.parametrize("incoming,nodes,existing,want", BALANCED)
def test_balanced_allocation_v135(monkeypatch, incoming, nodes, existing, want):
    monkeypatch.setattr(balanced_allocation, "BALANCED_FORMULA", "v1.35")
    assert plugin("NodeResourcesBalancedAllocation", incoming, nodes, existing) == want


def test_balanced_allocation_three_resources():
    """'include scalar resource on a node for balanced resource allocation': std over cpu, memory and
    a GPU fraction (scorer level; the default profile scores cpu and memory only)."""
    assert balanced_allocation.balance([3000, 5000, 4], [3500, 40000, 8]) == 70
    assert balanced_allocation.balance([3000, 5000, 1], [3500, 40000, 8]) == 65


@pytest.mark.parametrize(
    "existing,incoming,want",
    [
        pytest.param({"cpu": 500, "memory": 500}, {"cpu": 100, "memory": 100}, 75, id="no change to balance"),
        pytest.param(
            {"cpu": 0, "memory": 0}, {"cpu": 1000, "memory": 0}, 50, id="perfectly balanced to perfectly imbalanced"
        ),
        pytest.param(
            {"cpu": 1000, "memory": 0}, {"cpu": 0, "memory": 1000}, 100, id="perfectly imbalanced to perfectly balanced"
        ),
    ],
)
def test_balanced_allocation_v136_anchor_points(existing, incoming, want):
    """kubernetes#135573: 75 for no change, 50 for the worst change, 100 for the best one."""
    assert balanced_allocation.BALANCED_FORMULA == "v1.36"
    nodes = [N("node1", 1000, 1000)]
    assert plugin(
        "NodeResourcesBalancedAllocation", P(requests=incoming), nodes, [P("e", "node1", requests=existing)]
    ) == [want]


def test_balanced_allocation_v136_table():
    """The v1.35 table's first cases under the v1.36 formula: 50 + (50 + with - without) // 2."""
    # empty nodes are perfectly balanced (100) without the pod: 87 -> 50 + 37 // 2 = 68; 100 -> 75
    assert plugin(
        "NodeResourcesBalancedAllocation",
        P(requests=CPU_AND_MEMORY),
        [N("node1", 4000, 10000), N("node2", 6000, 10000)],
    ) == [68, 75]
    # without the pod node1 is cpu 0.3 / memory 0 (85), node2 cpu 0.3 / memory 0.25 (97)
    existing = [P("e1", "node1", requests=CPU_ONLY), P("e2", "node2", requests=CPU_AND_MEMORY)]
    assert plugin(
        "NodeResourcesBalancedAllocation",
        P(requests=CPU_AND_MEMORY),
        [N("node1", 10000, 20000), N("node2", 10000, 20000)],
        existing,
    ) == [
        50 + (50 + 82 - 85) // 2,
        50 + (50 + 95 - 97) // 2,
    ]


# --------------------------------------------------------------------------- TaintToleration

PNS = "PreferNoSchedule"


def TN(name: str, *taints: tuple[str, str, str]):
    return node(name, {}, taints=[Taint(k, v, e) for k, v, e in taints], hostname_label=False)


def TP(*tols: tuple[str, str, str, str]):
    return P(tolerations=[Toleration(key=k, operator=o, value=v, effect=e) for k, o, v, e in tols])


TAINT_SCORE = [
    pytest.param(
        TP(("foo", "Equal", "bar", PNS)),
        [TN("nodeA", ("foo", "bar", PNS)), TN("nodeB", ("foo", "blah", PNS))],
        [100, 0],
        id="node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
    ),
    pytest.param(
        TP(("cpu-type", "Equal", "arm64", PNS), ("disk-type", "Equal", "ssd", PNS)),
        [
            TN("nodeA"),
            TN("nodeB", ("cpu-type", "arm64", PNS)),
            TN("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)),
        ],
        [100, 100, 100],
        id="the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has",
    ),
    pytest.param(
        TP(("foo", "Equal", "bar", PNS)),
        [
            TN("nodeA"),
            TN("nodeB", ("cpu-type", "arm64", PNS)),
            TN("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)),
        ],
        [100, 50, 0],
        id="the more intolerable taints a node has, the lower score it gets.",
    ),
    pytest.param(
        TP(("cpu-type", "Equal", "arm64", "NoSchedule"), ("disk-type", "Equal", "ssd", "NoSchedule")),
        [
            TN("nodeA"),
            TN("nodeB", ("cpu-type", "arm64", "NoSchedule")),
            TN("nodeC", ("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)),
        ],
        [100, 100, 0],
        id="only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function",
    ),
    pytest.param(
        TP(),
        [TN("nodeA"), TN("nodeB", ("cpu-type", "arm64", PNS))],
        [100, 0],
        id="Default behaviour No taints and tolerations, lands on node with no taints",
    ),
]


@pytest.mark.parametrize("incoming,nodes,want", TAINT_SCORE)
def test_taint_toleration_score(incoming, nodes, want):
    assert plugin("TaintToleration", incoming, nodes) == want


# --------------------------------------------------------------------------- NodeAffinity


def pref(weight: int, *exprs: tuple[str, str, list[str]]) -> PreferredSchedulingTerm:
    return PreferredSchedulingTerm(
        weight, NodeSelectorTerm(tuple(NodeSelectorRequirement(k, o, tuple(v)) for k, o, v in exprs))
    )


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = Affinity(node_preferred=(pref(2, ("foo", "In", ["bar"])),))
AFFINITY2 = Affinity(
    node_preferred=(
        pref(2, ("foo", "In", ["bar"])),
        pref(4, ("key", "In", ["value"])),
        pref(5, ("foo", "In", ["bar"]), ("key", "In", ["value"]), ("az", "In", ["az1"])),
    )
)


def LN(name: str, labels: dict[str, str]):
    return node(name, labels, hostname_label=False)


NODE_AFFINITY = [
    pytest.param(
        P(),
        [LN("node1", LABEL1), LN("node2", LABEL2), LN("node3", LABEL3)],
        None,
        id="all nodes are same priority as NodeAffinity is nil",
    ),
    pytest.param(P(), [LN("node1", LABEL1)], None, id="Skip is returned in PreScore when NodeAffinity is nil"),
    pytest.param(
        P(affinity=AFFINITY1),
        [LN("node1", LABEL4), LN("node2", LABEL2), LN("node3", LABEL3)],
        [0, 0, 0],
        id="no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' priority is zero",
    ),
    pytest.param(
        P(affinity=AFFINITY1),
        [LN("node1", LABEL1), LN("node2", LABEL2), LN("node3", LABEL3)],
        [100, 0, 0],
        id="only node1 matches the preferred scheduling requirements of pod",
    ),
    pytest.param(
        P(affinity=AFFINITY2),
        [LN("node1", LABEL1), LN("node5", LABEL5), LN("node2", LABEL2)],
        [18, 100, 36],
        id="all nodes matches the preferred scheduling requirements of pod but with different priorities ",
    ),
]


@pytest.mark.parametrize("incoming,nodes,want", NODE_AFFINITY)
def test_node_affinity_priority(incoming, nodes, want):
    assert plugin("NodeAffinity", incoming, nodes) == want


def test_node_affinity_priority_broken_affinity():
    """'PreScore returns error when an incoming Pod has a broken affinity'."""
    bad = P(affinity=Affinity(node_preferred=(pref(2, ("invalid key", "In", ["bar"])),)))
    with pytest.raises(ScoreError):
        plugin("NodeAffinity", bad, [LN("node1", LABEL1)])


# --------------------------------------------------------------------------- InterPodAffinity

RG_CHINA = {"region": "China"}
RG_INDIA = {"region": "India"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}


def wterm(weight: int, key: str, *exprs, namespaces=(), ns_selector=None) -> WeightedPodAffinityTerm:
    return WeightedPodAffinityTerm(weight, term(sel(None, *exprs), key, namespaces, ns_selector))


STAY_S1_REGION = Affinity(pod_affinity_preferred=(wterm(5, "region", ("security", "In", ["S1"])),))
STAY_S2_REGION = Affinity(pod_affinity_preferred=(wterm(6, "region", ("security", "In", ["S2"])),))
AFFINITY3 = Affinity(
    pod_affinity_preferred=(
        wterm(8, "region", ("security", "NotIn", ["S1"]), ("security", "In", ["S2"])),
        wterm(2, "region", ("security", "Exists", []), ("wrongkey", "DoesNotExist", [])),
    )
)
HARD_AFFINITY = Affinity(
    pod_affinity_required=(
        term(sel(None, ("security", "In", ["S1", "value2"])), "region"),
        term(sel(None, ("security", "Exists", []), ("wrongkey", "DoesNotExist", [])), "region"),
    )
)
AWAY_S1_AZ = Affinity(pod_anti_affinity_preferred=(wterm(5, "az", ("security", "In", ["S1"])),))
AWAY_S2_AZ = Affinity(pod_anti_affinity_preferred=(wterm(5, "az", ("security", "In", ["S2"])),))
STAY_S1_REGION_AWAY_S2_AZ = Affinity(
    pod_affinity_preferred=(wterm(8, "region", ("security", "In", ["S1"])),),
    pod_anti_affinity_preferred=(wterm(5, "az", ("security", "In", ["S2"])),),
)
TEAM1 = sel(None, ("team", "In", ["team1"]))
AFFINITY_NS_SELECTOR = Affinity(
    pod_affinity_preferred=(
        wterm(5, "region", ("security", "In", ["S1"]), namespaces=["subteam2.team2"], ns_selector=TEAM1),
    )
)
ANTI_AFFINITY_NS_SELECTOR = Affinity(
    pod_anti_affinity_preferred=(
        wterm(5, "region", ("security", "In", ["S1"]), namespaces=["subteam2.team2"], ns_selector=TEAM1),
    )
)
NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


def E(node_name: str, labels=None, affinity=None, ns: str = "default", name: str = ""):
    return pod(
        name or f"e-{node_name}-{id(labels)}-{id(affinity)}",
        labels or {},
        node_name=node_name,
        affinity=affinity,
        namespace=ns,
    )


def existing(*specs):
    return [
        pod(
            f"e{i}",
            s[1] or {},
            node_name=s[0],
            affinity=s[2] if len(s) > 2 else None,
            namespace=s[3] if len(s) > 3 else "default",
        )
        for i, s in enumerate(specs)
    ]


INTERPOD = [
    pytest.param(
        P(labels=S1),
        [],
        [LN("node1", RG_CHINA), LN("node2", RG_INDIA), LN("node3", AZ1)],
        None,
        id="all nodes are same priority as Affinity is nil",
    ),
    pytest.param(
        P(labels=S1, affinity=STAY_S1_REGION),
        existing(("node1", S1), ("node2", S2), ("node3", S1)),
        [LN("node1", RG_CHINA), LN("node2", RG_INDIA), LN("node3", AZ1)],
        [100, 0, 0],
        id="Affinity: pod that matches topology key & pods in nodes will get high score comparing to others"
        "which doesn't match either pods in nodes or in topology key",
    ),
    pytest.param(
        P(affinity=STAY_S1_REGION),
        existing(("node1", S1)),
        [LN("node1", RG_CHINA), LN("node2", RG_CHINA_AZ1), LN("node3", RG_INDIA)],
        [100, 100, 0],
        id="All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
    ),
    pytest.param(
        P(labels=S1, affinity=STAY_S2_REGION),
        existing(("node1", S2), ("node1", S2), ("node2", S2), ("node3", S2), ("node4", S2), ("node5", S2)),
        [
            LN("node1", RG_CHINA),
            LN("node2", RG_INDIA),
            LN("node3", RG_CHINA),
            LN("node4", RG_CHINA),
            LN("node5", RG_INDIA),
        ],
        [100, 0, 100, 100, 0],
        id="Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
    ),
    pytest.param(
        P(labels=S1, affinity=AFFINITY3),
        existing(("node1", S1), ("node2", S2), ("node3", S1)),
        [LN("node1", RG_CHINA), LN("node2", RG_INDIA), LN("node3", AZ1)],
        [20, 100, 0],
        id="Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures ",
    ),
    pytest.param(
        P(labels=S2),
        existing(("node1", S1, STAY_S1_REGION), ("node2", S2, STAY_S2_REGION)),
        [LN("node1", RG_CHINA), LN("node2", RG_INDIA), LN("node3", AZ1)],
        [0, 100, 0],
        id="Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
    ),
    pytest.param(
        P(labels=S1, ns="subteam1.team1"),
        existing(("node1", S1, AFFINITY_NS_SELECTOR), ("node2", S2, STAY_S2_REGION)),
        [LN("node1", RG_CHINA), LN("node2", RG_INDIA), LN("node3", AZ1)],
        [100, 0, 0],
        id="Affinity symmetry with namespace selector",
    ),
    pytest.param(
        P(labels=S1, ns="subteam1.team1"),
        existing(("node1", S1, ANTI_AFFINITY_NS_SELECTOR), ("node2", S2, STAY_S2_REGION)),
        [LN("node1", RG_CHINA), LN("node2", RG_INDIA), LN("node3", AZ1)],
        [0, 100, 100],
        id="AntiAffinity symmetry with namespace selector",
    ),
    pytest.param(
        P(labels=S1),
        existing(("node1", S1, HARD_AFFINITY), ("node2", S2, HARD_AFFINITY)),
        [LN("node1", RG_CHINA), LN("node2", RG_INDIA), LN("node3", AZ1)],
        [100, 100, 0],
        id="Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
    ),
    pytest.param(
        P(labels=S1, affinity=AWAY_S1_AZ),
        existing(("node1", S1), ("node2", S2)),
        [LN("node1", AZ1), LN("node2", RG_CHINA)],
        [0, 100],
        id="Anti Affinity: pod that does not match existing pods in node will get high score ",
    ),
    pytest.param(
        P(labels=S1, affinity=AWAY_S1_AZ),
        existing(("node1", S1), ("node2", S1)),
        [LN("node1", AZ1), LN("node2", RG_CHINA)],
        [0, 100],
        id="Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others ",
    ),
    pytest.param(
        P(labels=S1, affinity=AWAY_S1_AZ),
        existing(("node1", S1), ("node1", S1), ("node2", S2)),
        [LN("node1", AZ1), LN("node2", RG_INDIA)],
        [0, 100],
        id="Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
    ),
    pytest.param(
        P(labels=S2),
        existing(("node1", S1, AWAY_S2_AZ), ("node2", S2, AWAY_S1_AZ)),
        [LN("node1", AZ1), LN("node2", AZ2)],
        [0, 100],
        id="Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
    ),
    pytest.param(
        P(labels=S1, affinity=STAY_S1_REGION_AWAY_S2_AZ),
        existing(("node1", S1), ("node2", S1)),
        [LN("node1", RG_CHINA), LN("node2", AZ1)],
        [100, 0],
        id="Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
    ),
    pytest.param(
        P(labels=S1, affinity=STAY_S1_REGION_AWAY_S2_AZ),
        existing(
            ("node1", S1), ("node1", S1), ("node2", S1), ("node3", S1), ("node3", S1), ("node4", S1), ("node5", S1)
        ),
        [
            LN("node1", RG_CHINA_AZ1),
            LN("node2", RG_INDIA),
            LN("node3", RG_CHINA),
            LN("node4", RG_CHINA),
            LN("node5", RG_INDIA),
        ],
        [100, 0, 100, 100, 0],
        id="Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
    ),
    pytest.param(
        P(labels=S1, affinity=STAY_S1_REGION_AWAY_S2_AZ),
        existing(("node1", S1), ("node2", S2), ("node3", None, STAY_S1_REGION_AWAY_S2_AZ), ("node4", None, AWAY_S1_AZ)),
        [LN("node1", RG_CHINA), LN("node2", AZ1), LN("node3", RG_INDIA), LN("node4", AZ2)],
        [100, 0, 100, 0],
        id="Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
    ),
    pytest.param(
        P(labels=S1),
        existing(("node1", S1), ("node2", None, STAY_S1_REGION_AWAY_S2_AZ)),
        [LN("node1", RG_CHINA), LN("node2", RG_CHINA)],
        [0, 0],
        id="Avoid panic when partial nodes in a topology don't have pods with affinity",
    ),
]


@pytest.mark.parametrize("incoming,pods,nodes,want", INTERPOD)
def test_preferred_affinity(incoming, pods, nodes, want):
    assert plugin("InterPodAffinity", incoming, nodes, pods, namespaces=NAMESPACES) == want


# --------------------------------------------------------------------------- PodTopologySpread

FOO = sel(None, ("foo", "Exists", []))
BAR = sel(None, ("bar", "Exists", []))
SA = "ScheduleAnyway"
NOT_SCHEDULABLE = (Taint("node.kubernetes.io/unschedulable", "", "NoSchedule"),)


def SP(*constraints, labels=None, **kw):
    return P("p", labels=labels if labels is not None else {"foo": ""}, spread=constraints, **kw)


def SC(max_skew: int, key: str, selector, **kw):
    return spread(key, max_skew, selector, when=SA, **kw)


def HN(name: str, **labels: str):
    """st.MakeNode().Name(name).Label(hostname, name) plus labels."""
    return node(name, {LABEL_HOSTNAME: name, **labels}, hostname_label=False)


def ZN(name: str, zone: str):
    return node(name, {"zone": zone, LABEL_HOSTNAME: name}, hostname_label=False)


def KN(name: str, taints=(), **labels: str):
    return node(name, {"node": name, **labels}, taints=taints, hostname_label=False)


def foo_pods(*placement: str, ns: str = "default", **labels: str):
    """Existing pods labelled foo="" (or ``labels``), one per entry of ``placement`` (a node name)."""
    lab = labels or {"foo": ""}
    return [pod(f"p-{i}", lab, node_name=n, namespace=ns) for i, n in enumerate(placement)]


def spread_case(incoming, nodes, pods, want, *, failed=(), id):
    return pytest.param(incoming, list(nodes), list(failed), list(pods), want, id=id)


SPREAD = [
    spread_case(
        SP(SC(1, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), HN("node-b")],
        [],
        [100, 100],
        id="one constraint on node, no existing pods",
    ),
    spread_case(
        SP(SC(1, LABEL_HOSTNAME, FOO)),
        [HN("node-a")],
        foo_pods("node-a", "node-a", "node-b"),
        [100],
        failed=[HN("node-b")],
        id="one constraint on node, only one node is candidate",
    ),
    spread_case(
        SP(SC(1, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), HN("node-b")],
        foo_pods("node-a", "node-b"),
        [100, 100],
        id="one constraint on node, all nodes have the same number of matching pods",
    ),
    spread_case(
        SP(SC(1, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), HN("node-b"), HN("node-c"), HN("node-d")],
        foo_pods("node-a", "node-a", "node-b", "node-d", "node-d", "node-d"),
        [20, 60, 100, 0],
        id="one constraint on node, all 4 nodes are candidates",
    ),
    spread_case(
        SP(SC(1, LABEL_HOSTNAME, None)),
        [HN("node-a"), HN("node-b"), HN("node-c"), HN("node-d")],
        foo_pods("node-a", "node-a", "node-b", "node-d", "node-d", "node-d"),
        [100, 100, 100, 100],
        id="one constraint on node, null selector",
    ),
    spread_case(
        SP(SC(2, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), HN("node-b"), HN("node-c"), HN("node-d")],
        foo_pods("node-a", "node-a", "node-b", "node-d", "node-d", "node-d"),
        [33, 66, 100, 16],
        id="one constraint on node, all 4 nodes are candidates, maxSkew=2",
    ),
    spread_case(
        SP(SC(3, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), HN("node-b"), HN("node-c"), HN("node-d")],
        foo_pods(*["node-a"] * 4, *["node-b"] * 3, *["node-c"] * 2, "node-d"),
        [44, 66, 77, 100],
        id="one constraint on node, all 4 nodes are candidates, maxSkew=3",
    ),
    # Upstream: a Service selecting foo="" gives the system default constraints their selector.
    # planner approximates DefaultSelector with the pod's controller: a ReplicaSet-owned pod.
    spread_case(
        P("p", labels={"foo": ""}, owner=OwnerRef("ReplicaSet", "rs")),
        [HN("node-a"), HN("node-b"), HN("node-c"), HN("node-d")],
        foo_pods(*["node-a"] * 4, *["node-b"] * 3, *["node-c"] * 2, "node-d"),
        [44, 66, 77, 100],
        id="system defaulting, nodes don't have zone, pods match service",
    ),
    spread_case(
        SP(SC(1, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), HN("node-b"), HN("node-x")],
        foo_pods(*["node-a"] * 4, "node-b", "node-b", "node-x", "node-y", "node-y", "node-y"),
        [33, 83, 100],
        failed=[HN("node-y")],
        id="one constraint on node, 3 out of 4 nodes are candidates",
    ),
    spread_case(
        SP(SC(1, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), node("node-b", {"n": "node-b"}, hostname_label=False), HN("node-x")],
        foo_pods(*["node-a"] * 4, "node-b", "node-b", "node-x", "node-y", "node-y", "node-y"),
        [16, 0, 100],
        failed=[HN("node-y")],
        id="one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
    ),
    spread_case(
        SP(SC(1, "zone", FOO)),
        [ZN("node-a", "zone1"), ZN("node-b", "zone1"), ZN("node-x", "zone2")],
        foo_pods(*["node-a"] * 4, "node-b", "node-b", "node-x", "node-y", "node-y", "node-y"),
        [75, 75, 100],
        failed=[ZN("node-y", "zone2")],
        id="one constraint on zone, 3 out of 4 nodes are candidates",
    ),
    spread_case(
        SP(SC(1, "zone", FOO), SC(1, LABEL_HOSTNAME, FOO)),
        [ZN("node-a", "zone1"), ZN("node-x", "zone2")],
        foo_pods("node-a", "node-a", "node-b", "node-x", "node-x", *["node-y"] * 4),
        [100, 63],
        failed=[ZN("node-b", "zone1"), ZN("node-y", "zone2")],
        id="two Constraints on zone and node, 2 out of 4 nodes are candidates",
    ),
    spread_case(
        SP(SC(1, "zone", FOO), SC(1, LABEL_HOSTNAME, BAR), labels={"foo": "", "bar": ""}),
        [ZN("node-a", "zone1"), ZN("node-b", "zone1"), ZN("node-x", "zone2"), ZN("node-y", "zone2")],
        [
            pod("p-a1", {"foo": ""}, node_name="node-a"),
            pod("p-b1", {"foo": "", "bar": ""}, node_name="node-b"),
            pod("p-y1", {"foo": ""}, node_name="node-y"),
            pod("p-y2", {"bar": ""}, node_name="node-y"),
        ],
        [60, 20, 100, 60],
        id="two Constraints on zone and node, with different labelSelectors",
    ),
    spread_case(
        SP(SC(1, "zone", FOO), SC(1, LABEL_HOSTNAME, BAR), labels={"foo": "", "bar": ""}),
        [ZN("node-a", "zone1"), ZN("node-b", "zone1"), ZN("node-x", "zone2"), ZN("node-y", "zone2")],
        [
            pod("p-b1", {"bar": ""}, node_name="node-b"),
            pod("p-x1", {"foo": ""}, node_name="node-x"),
            pod("p-y1", {"foo": "", "bar": ""}, node_name="node-y"),
        ],
        [100, 60, 40, 0],
        id="two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
    ),
    spread_case(
        SP(SC(1, "zone", FOO), SC(1, LABEL_HOSTNAME, BAR), labels={"foo": "", "bar": ""}),
        [ZN("node-a", "zone1"), ZN("node-b", "zone1"), ZN("node-x", "zone2")],
        [
            pod("p-a1", {"foo": ""}, node_name="node-a"),
            pod("p-b1", {"foo": "", "bar": ""}, node_name="node-b"),
            pod("p-y1", {"foo": ""}, node_name="node-y"),
            pod("p-y2", {"bar": ""}, node_name="node-y"),
        ],
        [50, 25, 100],
        failed=[ZN("node-y", "zone2")],
        id="two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
    ),
    spread_case(
        SP(SC(1, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), HN("node-b")],
        foo_pods("node-a", ns="ns1")
        + [
            pod("p-a2", {"foo": ""}, node_name="node-a"),
            pod("p-b1", {"foo": ""}, node_name="node-b"),
            pod("p-b2", {"foo": ""}, node_name="node-b"),
        ],
        [100, 33],
        id="existing pods in a different namespace do not count",
    ),
    spread_case(
        SP(SC(1, LABEL_HOSTNAME, FOO)),
        [HN("node-a"), HN("node-b")],
        [pod("p-a", {"foo": ""}, node_name="node-a", terminating=True), pod("p-b", {"foo": ""}, node_name="node-b")],
        [100, 0],
        id="terminating Pods should be excluded",
    ),
    spread_case(
        SP(SC(2, "node", FOO, min_domains=10)),
        [KN("node-a"), KN("node-b"), KN("node-c")],
        foo_pods("node-a", "node-a", "node-b", "node-b", "node-c"),
        [75, 75, 100],
        id="minDomains has no effect when ScheduleAnyway",
    ),
    spread_case(
        SP(SC(1, "node", FOO), node_selector={"foo": ""}),
        [KN("node-a", foo=""), KN("node-b", foo=""), KN("node-c")],
        foo_pods("node-a", "node-a", "node-b", "node-c"),
        [0, 33, 100],
        id="NodeAffinityPolicy honoed with labelSelectors",
    ),
    spread_case(
        SP(SC(1, "node", FOO, node_affinity_policy="Ignore"), node_selector={"foo": ""}),
        [KN("node-a", foo=""), KN("node-b", foo=""), KN("node-c")],
        foo_pods("node-a", "node-a", "node-b", "node-c"),
        [66, 100, 100],
        id="NodeAffinityPolicy ignored with labelSelectors",
    ),
    spread_case(
        SP(SC(1, "node", FOO, node_taints_policy="Honor")),
        [KN("node-a"), KN("node-b"), KN("node-c", taints=NOT_SCHEDULABLE)],
        foo_pods("node-a", "node-a", "node-b", "node-c"),
        [0, 33, 100],
        id="NodeTaintsPolicy honored",
    ),
    spread_case(
        SP(SC(1, "node", FOO)),
        [KN("node-a"), KN("node-b"), KN("node-c", taints=NOT_SCHEDULABLE)],
        foo_pods("node-a", "node-a", "node-b", "node-c"),
        [66, 100, 100],
        id="NodeTaintsPolicy ignored",
    ),
]


@pytest.mark.parametrize("incoming,nodes,failed,pods,want", SPREAD)
def test_pod_topology_spread_score(incoming, nodes, failed, pods, want):
    c = cluster(nodes + failed, pods)
    assert scoring.plugin_scores("PodTopologySpread", incoming, c, [n.name for n in nodes]) == want


def test_spread_skip_without_constraints_or_owner():
    nodes = [HN("node-a"), HN("node-b")]
    assert plugin("PodTopologySpread", P("p", labels={"foo": ""}), nodes) is None  # no owner, no Service model
    assert (
        plugin("PodTopologySpread", P("p", labels={}, owner=OwnerRef("ReplicaSet", "rs")), nodes) is None
    )  # empty selector
    assert (
        plugin("PodTopologySpread", P("p", labels={"foo": ""}, owner=OwnerRef("Job", "j")), nodes) is None
    )  # not an RC/RS/SS


def test_spread_default_selector_drops_per_pod_labels():
    from planner.scheduler.plugins.podtopologyspread.scoring import default_selector

    p = P(
        "web-0",
        labels={
            "app": "web",
            "statefulset.kubernetes.io/pod-name": "web-0",
            "apps.kubernetes.io/pod-index": "0",
            "controller-revision-hash": "web-abc",
        },
        owner=OwnerRef("StatefulSet", "web"),
    )
    assert default_selector(p) == sel({"app": "web"})


def test_spread_system_defaults_zone_and_hostname():
    """Default constraints on a zoned cluster: zone maxSkew 5 and hostname maxSkew 3 both count."""
    nodes = [node(f"n{i}", zone=f"z{i % 2}") for i in range(4)]
    rs = OwnerRef("ReplicaSet", "rs")
    pods = [pod(f"w{i}", {"app": "w"}, node_name=n, owner=rs) for i, n in enumerate(["n0", "n0", "n2", "n1"])]
    # zone z0 (n0, n2): 3 pods, z1 (n1, n3): 1; weights log(4 + 2) hostname, log(2 + 2) zone
    scores = plugin("PodTopologySpread", pod("new", {"app": "w"}, owner=rs), nodes, pods)
    assert scores is not None and scores.index(100) == 3  # n3: empty node in the emptier zone
    assert scores[0] == min(scores)


# --------------------------------------------------------------------------- framework


def test_default_weights():
    assert scoring.PLUGIN_WEIGHTS == {
        "TaintToleration": 3,
        "NodeAffinity": 2,
        "NodeResourcesFit": 1,
        "PodTopologySpread": 2,
        "InterPodAffinity": 2,
        "NodeResourcesBalancedAllocation": 1,
        "ImageLocality": 1,
    }


def test_score_nodes_is_weighted_sum_of_explain():
    nodes = [node(f"n{i}", zone=f"z{i % 3}", taints=[Taint("t", "v", PNS)] if i == 1 else []) for i in range(6)]
    rs = OwnerRef("ReplicaSet", "rs")
    pods = [pod(f"e{i}", {"app": "web"}, node_name=f"n{i % 4}", cpu=500, memory=2**30, owner=rs) for i in range(8)]
    c = cluster(nodes, pods)
    p = pod("x", {"app": "web"}, cpu=100, memory=2**28, owner=rs, affinity=AFFINITY1)
    f = feasible_nodes(p, c)
    totals = scoring.score_nodes(p, c, f)
    explain = scoring.explain_scores(p, c, f)
    assert list(totals) == f
    for n in f:
        assert set(explain[n]) == set(scoring.PLUGIN_WEIGHTS)
        assert sum(explain[n].values()) == totals[n]
        assert explain[n]["ImageLocality"] == 0
        for name, w in scoring.PLUGIN_WEIGHTS.items():
            assert explain[n][name] % w == 0 and 0 <= explain[n][name] <= 100 * w
    assert explain["n1"]["TaintToleration"] == 0 and explain["n0"]["TaintToleration"] == 300


def _snapshot_copy(c: ClusterState) -> ClusterState:
    return ClusterState(
        [NodeInfo(ni.node, list(ni.pods)) for ni in c.node_infos], namespace_labels=dict(c.namespace_labels)
    )


def test_caches_follow_add_and_remove():
    """Cached non-zero requests and spread counts equal a fresh computation after every change."""
    rng = random.Random(7)
    nodes = [node(f"n{i}", zone=f"z{i % 3}") for i in range(9)]
    rs = OwnerRef("ReplicaSet", "rs")
    c = cluster(nodes)
    placed = []
    for step in range(60):
        p = pod(f"w{step}", {"app": "w"}, owner=rs, cpu=rng.choice([None, 100, 250]), memory=rng.choice([None, 2**27]))
        f = [n.name for n in nodes]
        fresh = _snapshot_copy(c)
        assert scoring.score_nodes(p, c, f) == scoring.score_nodes(p, fresh, f)
        host = scoring.select_host(scoring.score_nodes(p, c, f), rng)
        bound = pod(p.name, dict(p.labels), owner=rs, node_name=host, requests=dict(p.spec.requests))
        c.add_pod(bound)
        placed.append(bound)
        if step % 7 == 6:
            victim = placed.pop(rng.randrange(len(placed)))
            c.remove_pod(victim)


# --------------------------------------------------------------------------- select_host


def test_select_host_highest_wins():
    assert scoring.select_host({"a": 10, "b": 30, "c": 20}, random.Random(0)) == "b"


def test_select_host_deterministic_per_seed():
    scores = {f"n{i}": 500 for i in range(10)}
    picks = [scoring.select_host(scores, random.Random(42)) for _ in range(5)]
    assert len(set(picks)) == 1
    rng1, rng2 = random.Random(3), random.Random(3)
    assert [scoring.select_host(scores, rng1) for _ in range(50)] == [
        scoring.select_host(scores, rng2) for _ in range(50)
    ]


def test_select_host_uniform_over_ties():
    scores = {"a": 7, "b": 9, "c": 9, "d": 9, "e": 9}
    rng = random.Random(1)
    counts = Counter(scoring.select_host(scores, rng) for _ in range(8000))
    assert set(counts) == {"b", "c", "d", "e"}
    for n in "bcde":
        assert 1800 < counts[n] < 2200


def test_select_host_single_candidate_draws_nothing():
    rng = random.Random(5)
    state = rng.getstate()
    assert scoring.select_host({"only": 3, "low": 1}, rng) == "only"
    assert rng.getstate() == state


def test_select_host_empty():
    with pytest.raises(ValueError):
        scoring.select_host({}, random.Random(0))


# --------------------------------------------------------------------------- fast path == reference


def _random_cluster(rng: random.Random):
    zones = ["z0", "z1", "z2"]
    nodes = []
    for i in range(rng.randint(2, 14)):
        labels = {}
        if rng.random() < 0.85:
            labels[LABEL_HOSTNAME] = f"n{i}"
        if rng.random() < 0.8:
            labels["topology.kubernetes.io/zone"] = rng.choice(zones)
        if rng.random() < 0.3:
            labels["disk"] = rng.choice(["ssd", "hdd"])
        taints = []
        if rng.random() < 0.3:
            taints.append(Taint(rng.choice(["a", "b"]), "x", rng.choice([PNS, "NoSchedule"])))
        nodes.append(
            node(
                f"n{i}",
                labels,
                cpu=rng.choice([0, 2000, 4000]),
                memory=rng.choice([0, 2**32, 2**33]),
                taints=taints,
                hostname_label=False,
            )
        )
    rs = OwnerRef("ReplicaSet", "rs")
    apps = ["a", "b"]
    pods = []
    for j in range(rng.randint(0, 40)):
        n = rng.choice(nodes).name
        req = {}
        if rng.random() < 0.7:
            req["cpu"] = rng.choice([0, 100, 500, 1500])
        if rng.random() < 0.7:
            req["memory"] = rng.choice([0, 2**28, 2**30])
        aff = None
        if rng.random() < 0.15:
            aff = rng.choice([STAY_S1_REGION, AWAY_S1_AZ, HARD_AFFINITY])
        pods.append(
            pod(
                f"e{j}",
                {"app": rng.choice(apps), "security": rng.choice(["S1", "S2"])},
                node_name=n,
                requests=req,
                owner=rs,
                terminating=rng.random() < 0.05,
                namespace=rng.choice(["default", "default", "other"]),
                affinity=aff,
            )
        )
    return nodes, pods


def _random_pod(rng: random.Random):
    rs = OwnerRef("ReplicaSet", "rs")
    req = {}
    if rng.random() < 0.7:
        req["cpu"] = rng.choice([0, 100, 700])
    if rng.random() < 0.7:
        req["memory"] = rng.choice([0, 2**29])
    cons = []
    for _ in range(rng.choice([0, 0, 1, 2])):
        cons.append(
            spread(
                rng.choice([LABEL_HOSTNAME, "topology.kubernetes.io/zone", "disk"]),
                rng.randint(1, 3),
                rng.choice([sel({"app": "a"}), sel(), None]),
                when=rng.choice(["ScheduleAnyway", "DoNotSchedule"]),
                node_affinity_policy=rng.choice(["Honor", "Ignore"]),
                node_taints_policy=rng.choice(["Honor", "Ignore"]),
            )
        )
    return pod(
        "new",
        {"app": rng.choice(["a", "b"])},
        requests=req,
        owner=rs if rng.random() < 0.7 else None,
        spread=cons,
        node_selector={"disk": "ssd"} if rng.random() < 0.2 else None,
        tolerations=[Toleration(key="a", operator="Exists")] if rng.random() < 0.3 else (),
        affinity=rng.choice([None, None, AFFINITY1, STAY_S1_REGION_AWAY_S2_AZ]),
    )


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_equals_reference(seed):
    rng = random.Random(seed)
    nodes, pods = _random_cluster(rng)
    c = cluster(nodes, pods)
    for _ in range(4):
        p = _random_pod(rng)
        feasible = [n.name for n in nodes if rng.random() < 0.8] or [nodes[0].name]
        explain = scoring.explain_scores(p, c, feasible)
        for name, w in scoring.PLUGIN_WEIGHTS.items():
            ref = scoring.plugin_scores(name, p, c, feasible)
            want = [0] * len(feasible) if ref is None else [s * w for s in ref]
            assert [explain[n][name] for n in feasible] == want, name
        # mutate the cluster between pods: the caches must follow
        c.add_pod(pod(f"x{_}", {"app": "a"}, node_name=rng.choice(nodes).name, cpu=rng.choice([None, 300])))
        if c.node_infos[0].pods:
            c.remove_pod(c.node_infos[0].pods[0])
