"""PodTopologySpread's score: upstream's table tests, transcribed case by case.

Source: pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go TestPodTopologySpreadScore (a subset).

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
    LABEL_HOSTNAME,
    OwnerRef,
    Taint,
)
from planner.scheduler import scoring
from tests.builders import cluster, node, pod, sel, spread
from tests.scheduler.plugins.scores import P, plugin

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
