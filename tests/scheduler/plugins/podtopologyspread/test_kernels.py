"""PodTopologySpread's vectorised Score (kernels.py) against the reference (scoring.py)."""

from __future__ import annotations

from planner.domain import Taint
from planner.scheduler import scoring
from planner.scheduler.plugins.podtopologyspread.common import NAME
from tests.builders import cluster, node, pod, sel, spread


def test_taints_policy_counts_per_constraint():
    """Two constraints of one pod that differ only in nodeTaintsPolicy count different nodes
    (common.go matchNodeInclusionPolicies, per constraint).  The kernel kept the node-inclusion
    mask per pod spec without the taints policy in its key, so with a nodeSelector and no
    tolerations the Ignore constraint reused the Honor constraint's mask and missed the pods on
    the tainted node."""
    web = sel({"app": "web"})
    tainted = Taint("dedicated", "x", "NoSchedule")
    nodes = [
        node("n-t", {"pool": "x", "rack": "r1"}, zone="a", taints=[tainted]),
        node("n-1", {"pool": "x", "rack": "r1"}, zone="a"),
        node("n-2", {"pool": "x", "rack": "r2"}, zone="b"),
    ]
    existing = [pod(f"e{i}", {"app": "web"}, node_name="n-t") for i in range(2)]
    incoming = pod(
        "p",
        {"app": "web"},
        node_selector={"pool": "x"},
        spread=[
            spread(max_skew=1, selector=web, when="ScheduleAnyway", node_taints_policy="Honor"),
            spread("rack", max_skew=1, selector=web, when="ScheduleAnyway", node_taints_policy="Ignore"),
        ],
    )
    c = cluster(nodes, existing)
    feasible = ["n-1", "n-2"]
    want = scoring.plugin_scores(NAME, incoming, c, feasible)
    assert want is not None and want[0] < want[1]  # rack r1 holds the two pods of the tainted node
    got = dict(scoring.run_score_plugins(incoming, c, feasible))[NAME]
    assert got == [s * scoring.PLUGIN_WEIGHTS[NAME] for s in want]
