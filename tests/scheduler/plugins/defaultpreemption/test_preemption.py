"""DefaultPreemption, after default_preemption_test.go (TestSelectNodesForPreemption,
TestPickOneNodeForPreemption, TestPodEligibleToPreemptOthers) and preemption_test.go, cases
transcribed in substance: nodes with cpu/memory, pods with priorities and start times."""

from __future__ import annotations

from planner.domain import CPU, MEMORY, LabelSelector, Node, Pod, PodSpec
from planner.scheduler.framework import ClusterState, NodeInfo
from planner.scheduler.plugins.defaultpreemption import preemption as dp

LOW, MID, HIGH, VERY_HIGH = 0, 100, 1000, 10000
SMALL = {CPU: 100, MEMORY: 100}
MEDIUM = {CPU: 200, MEMORY: 200}
LARGE = {CPU: 300, MEMORY: 300}
VERY_LARGE = {CPU: 500, MEMORY: 500}


def node(name: str, cpu: int = 500, mem: int = 500) -> Node:
    return Node(name, {"kubernetes.io/hostname": name}, allocatable={CPU: cpu, MEMORY: mem, "pods": 100})


def pod(name: str, prio: int, req: dict, on: str = "", start: str = "", labels: dict | None = None, policy: str = "") -> Pod:
    return Pod("default", name, labels or {}, PodSpec(node_name=on, requests=req, priority=prio, preemption_policy=policy),
               phase="Running" if on else "Pending", start_time=start)


def cluster(nodes: list[Node], pods: list[Pod]) -> ClusterState:
    return ClusterState([NodeInfo(n, [p for p in pods if p.spec.node_name == n.name]) for n in nodes])


def run(preemptor: Pod, cs: ClusterState, pdbs=()) -> dp.PostFilterResult:
    statuses = {}
    from planner.scheduler import runtime

    ev = runtime.evaluate(preemptor, cs)
    statuses = {n.name: n.failures[0] for n in ev.nodes if n.failures}
    return dp.post_filter(preemptor, cs, statuses, list(pdbs), 0)


def test_a_pod_that_fits_on_both_nodes_after_preemption():
    # TestSelectNodesForPreemption "a pod that fits on both nodes when lower priority pods are preempted"
    cs = cluster([node("node1"), node("node2")], [
        pod("p1", MID, VERY_LARGE, "node1"), pod("p2", MID, VERY_LARGE, "node2")])
    cands, _ = dp.dry_run_preemption(pod("p", HIGH, LARGE), cs, ["node1", "node2"], [])
    assert {c.node: [v.name for v in c.victims] for c in cands} == {"node1": ["p1"], "node2": ["p2"]}


def test_no_victims_of_equal_or_higher_priority():
    cs = cluster([node("node1")], [pod("p1", HIGH, VERY_LARGE, "node1")])
    res = run(pod("p", HIGH, LARGE), cs)
    assert res.node is None and "No preemption victims found for incoming pod" in res.message


def test_reprieve_keeps_the_most_important_pods():
    # "lower priority pods are preempted, the higher of the lower ones reprieved"
    cs = cluster([node("node1")], [
        pod("p1", LOW, SMALL, "node1"), pod("p2", MID, SMALL, "node1"), pod("p3", MID, LARGE, "node1")])
    victims, viol, st = dp.select_victims_on_node(pod("p", HIGH, LARGE), cs, "node1", [])
    assert st is None and viol == 0
    # 300 must be free: removing p3 alone frees 300 (p1, p2 reprieved, p2 first)
    assert [v.name for v in victims] == ["p3"]


def test_pdb_violating_victims_reprieved_first_and_counted():
    sel = LabelSelector(match_labels=(("app", "foo"),))
    cs = cluster([node("node1")], [
        pod("a", LOW, LARGE, "node1", labels={"app": "foo"}), pod("b", LOW, MEDIUM, "node1")])
    pdb = dp.PDBFacts("default", "foo", sel, 0)
    victims, viol, st = dp.select_victims_on_node(pod("p", HIGH, LARGE), cs, "node1", [pdb])
    assert st is None
    # a violates its budget and is tried first: it does not fit back with p (300 + 300 > 500)
    assert [v.name for v in victims] == ["a"] and viol == 1


def test_pick_fewest_pdb_violations_then_lowest_highest_priority():
    # TestPickOneNodeForPreemption: "a pod that fits on a machine with no preemption"-free cases
    c1 = dp.Candidate("node1", (pod("x", MID, SMALL),), 1)
    c2 = dp.Candidate("node2", (pod("y", HIGH, SMALL),), 0)
    assert dp.pick_one_node_for_preemption([c1, c2]) == "node2"
    c3 = dp.Candidate("node3", (pod("z", LOW, SMALL),), 0)
    assert dp.pick_one_node_for_preemption([c2, c3]) == "node3"


def test_pick_smallest_sum_then_fewest_then_latest_start():
    # "sum of priorities", "fewer victims", "latest start time" cases
    a = dp.Candidate("node1", (pod("a1", MID, SMALL), pod("a2", MID, SMALL)), 0)
    b = dp.Candidate("node2", (pod("b1", MID, SMALL), pod("b2", LOW, SMALL)), 0)
    assert dp.pick_one_node_for_preemption([a, b]) == "node2"
    c = dp.Candidate("node3", (pod("c1", MID, SMALL),), 0)
    d = dp.Candidate("node4", (pod("d1", MID, SMALL), pod("d2", LOW - 1, SMALL)), 0)
    # sums: node3 100 + 2^31, node4 100 + 2^31 - 1 + 2*2^31 -> node3 is smaller
    assert dp.pick_one_node_for_preemption([c, d]) == "node3"
    e = dp.Candidate("node5", (pod("e1", MID, SMALL, start="2026-01-01T00:00:00Z"),), 0)
    f = dp.Candidate("node6", (pod("f1", MID, SMALL, start="2026-01-02T00:00:00Z"),), 0)
    assert dp.pick_one_node_for_preemption([e, f]) == "node6"


def test_preemption_policy_never():
    cs = cluster([node("node1")], [pod("p1", LOW, VERY_LARGE, "node1")])
    res = run(pod("p", HIGH, LARGE, policy="Never"), cs)
    assert res.node is None and not res.eligible and res.message == "preemption: not eligible due to preemptionPolicy=Never."
    res = run(pod("p", HIGH, LARGE), cs)
    assert res.node == "node1" and [v.name for v in res.victims] == ["p1"]


def test_unresolvable_nodes_are_left_out():
    cs = cluster([node("node1", cpu=200)], [pod("p1", LOW, SMALL, "node1")])
    res = run(pod("p", HIGH, LARGE), cs)  # 300 > allocatable 200: UnschedulableAndUnresolvable
    assert res.node is None and res.message == "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."


def test_the_message_counts_every_node_by_its_reason():
    """FitError.Error() of Preempt's FitError: the unresolvable nodes' "Preemption is not helpful
    for scheduling" counted beside the dry run's reasons (was: left out, or without its count)."""
    cs = cluster([node("node1", cpu=200), node("node2")], [pod("p1", HIGH, LARGE, "node2")])
    res = run(pod("p", LOW, LARGE), cs)  # node1 too small (unresolvable), node2 full of a higher-priority pod
    assert res.node is None
    assert res.message == (
        "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
    )
