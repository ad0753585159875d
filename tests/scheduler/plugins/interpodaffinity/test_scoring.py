"""InterPodAffinity's score: upstream's table tests, transcribed case by case.

Source: pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go TestPreferredAffinity (a subset).

Each pytest id is the upstream case name.  Transcription notes:
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

import pytest

from planner.domain import (
    Affinity,
    WeightedPodAffinityTerm,
)
from tests.builders import pod, sel, term
from tests.scheduler.plugins.nodeaffinity.test_scoring import LN
from tests.scheduler.plugins.scores import P, plugin

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
