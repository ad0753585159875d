"""The disruption controller and the eviction API (planner/controllers/disruption.py). Table-driven, each case citing the upstream test or behaviour it transcribes (kubernetes/kubernetes pkg/controller/...).
Rollouts are driven by the fake scheduler of tests/controllers/world.py.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from planner.controllers.disruption import EVICTION_REFUSED, can_evict, disruption_status, disruptions_allowed
from planner.domain import (
    LabelSelector,
    OwnerRef,
    Pod,
    PodDisruptionBudget,
    PodSpec,
    ReplicaSet,
)
from tests.builders import sel
from tests.controllers.world import deployment, replicaset, rs_pods, snapshot, statefulset, template

# --------------------------------------------------------------------------- disruption


def pdb(min_available: int | str | None = None, max_unavailable: int | str | None = None, selector: LabelSelector | None = None) -> PodDisruptionBudget:
    return PodDisruptionBudget("default", "budget", selector if selector is not None else sel({"app": "web"}), min_available, max_unavailable)


def bare_rs(replicas: int) -> ReplicaSet:
    return ReplicaSet("default", "rs", replicas, sel({"app": "web"}), template("web", "v1"), uid="uid-rs")


def web_pod(name: str, ready: bool = True, owner: OwnerRef | None = None) -> Pod:
    return Pod("default", name, {"app": "web"}, PodSpec(node_name="n1" if ready else ""), phase="Running" if ready else "Pending", owner=owner)


RS_OWNER = OwnerRef("ReplicaSet", "rs", "uid-rs", True)


@pytest.mark.parametrize(
    "budget, pods, rs_replicas, want",
    [
        # disruption_test.go, VerifyPdbStatus(disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods)
        # TestUnavailable: minAvailable 3 over 4 ready pods, then one unready
        (pdb(min_available=3), [web_pod(f"p{i}") for i in range(4)], None, (1, 4, 3, 4)),
        (pdb(min_available=3), [web_pod(f"p{i}") for i in range(3)] + [web_pod("p3", ready=False)], None, (0, 3, 3, 4)),
        # TestIntegerMaxUnavailable: a pod without a controller -> no disruption
        (pdb(max_unavailable=1), [web_pod("naked")], None, (0, 1, 0, 0)),
        # TestIntegerMaxUnavailableWithScaling: maxUnavailable 2, one pod of a ReplicaSet of 7, then 5
        (pdb(max_unavailable=2), [web_pod("pod", owner=RS_OWNER)], 7, (0, 1, 5, 7)),
        (pdb(max_unavailable=2), [web_pod("pod", owner=RS_OWNER)], 5, (0, 1, 3, 5)),
        # TestPercentageMaxUnavailableWithScaling: 30% of 7 rounds up to 3
        (pdb(max_unavailable="30%"), [web_pod("pod", owner=RS_OWNER)], 7, (0, 1, 4, 7)),
        (pdb(max_unavailable="30%"), [web_pod("pod", owner=RS_OWNER)], 1, (1, 1, 0, 1)),
        # TestReplicaSet: minAvailable 20% of a ReplicaSet of 10
        (pdb(min_available="20%"), [web_pod("pod", owner=RS_OWNER)], 10, (0, 1, 2, 10)),
        # TestNakedPod: a percentage with no controller -> no disruption
        (pdb(min_available="28%"), [web_pod("naked")], None, (0, 1, 0, 0)),
        # a null selector matches no pod
        (PodDisruptionBudget("default", "budget", None, 1, None), [web_pod("p0")], None, (0, 0, 1, 0)),
    ],
)
def test_disruption_status(budget: PodDisruptionBudget, pods: list[Pod], rs_replicas: int | None, want: tuple[int, int, int, int]) -> None:
    objs: list[object] = [budget, *pods]
    if rs_replicas is not None:
        objs.append(bare_rs(rs_replicas))
    st = disruption_status(snapshot(*objs), budget.key)
    assert (st.disruptions_allowed, st.current_healthy, st.desired_healthy, st.expected_pods) == want
    assert disruptions_allowed(snapshot(*objs), budget.key) == want[0]


def test_disruption_statefulset_controller() -> None:
    """disruption_test.go TestStatefulSetController: minAvailable 34% of a StatefulSet of 3 rounds
    up to 2; disruptions are allowed once the third pod is healthy."""
    sts = statefulset(3)
    owner = OwnerRef("StatefulSet", "db", "uid-db", True)
    budget = pdb(min_available="34%", selector=sel({"app": "db"}))
    pods = [replace(web_pod(f"db-{i}", owner=owner), labels={"app": "db"}) for i in range(3)]
    for n in range(1, 4):
        st = disruption_status(snapshot(sts, budget, *pods[:n]), budget.key)
        assert (st.disruptions_allowed, st.current_healthy, st.desired_healthy, st.expected_pods) == ((0 if n < 3 else 1), n, 2, 3)


def test_eviction_refused_when_no_disruption_allowed() -> None:
    """eviction.go checkAndDecrement: with disruptionsAllowed 0 the eviction is refused (429) with
    upstream's message; a pod the budget does not select, or a Pending pod (canIgnorePDB), may go."""
    d = deployment(2, name="web")
    rs = replicaset(d, "v1", 2, 1)
    pods = rs_pods(rs, 2)
    budget = pdb(min_available=2)
    snap = snapshot(d, rs, pods, budget)
    ok, why = can_evict(snap, pods[0].key)
    assert (ok, why) == (False, EVICTION_REFUSED)
    assert why == "Cannot evict pod as it would violate the pod's disruption budget."
    # minAvailable 1: one disruption allowed, then none once a pod is gone
    snap.pdbs[budget.key] = pdb(min_available=1)
    assert can_evict(snap, pods[0].key) == (True, "")
    del snap.pods[pods[0].key]
    assert can_evict(snap, pods[1].key) == (False, EVICTION_REFUSED)
    # canIgnorePDB: a Pending pod is deleted without looking at the budget
    pending = replace(pods[0], spec=replace(pods[0].spec, node_name=""), phase="Pending")
    snap.pods[pending.key] = pending
    assert can_evict(snap, pending.key) == (True, "")
    # two budgets selecting the pod: the eviction subresource refuses
    snap.pdbs["default/other"] = PodDisruptionBudget("default", "other", sel({"app": "web"}), 0, None)
    ok, why = can_evict(snap, pods[1].key)
    assert not ok and "more than one PodDisruptionBudget" in why


def test_eviction_with_max_unavailable_percentage() -> None:
    """disruption.go getExpectedPodCount: maxUnavailable 50% of a Deployment of 3 rounds up to 2,
    so 2 of the 3 running pods may be evicted one after the other, not the third."""
    d = deployment(3)
    rs = replicaset(d, "v1", 3, 1)
    pods = rs_pods(rs, 3)
    snap = snapshot(d, rs, pods, pdb(max_unavailable="50%"))
    for p in pods[:2]:
        assert can_evict(snap, p.key) == (True, "")
        del snap.pods[p.key]
    assert can_evict(snap, pods[2].key) == (False, EVICTION_REFUSED)


def test_pod_index_matches_what_a_scan_matches() -> None:
    """PodIndex (one pass over the pods for every budget of a preemption) gives exactly the pods
    the scan of getPodsForPdb gives, for matchLabels, single- and multi-value In, NotIn, Exists,
    empty and null selectors, in namespaces above and below its scan threshold."""
    import random

    from planner.controllers.disruption import PodIndex, pods_for_pdb
    from planner.domain import LabelSelectorRequirement

    rng = random.Random(7)
    keys, values = ("app", "tier", "release"), ("a", "b", "c")
    pods = []
    for i in range(400):
        ns = "big" if i < 300 else "small"
        labels = {k: rng.choice(values) for k in keys if rng.random() < 0.7}
        pods.append(Pod(ns, f"p{i}", labels, PodSpec(node_name="n1"), phase="Running"))
    snap = snapshot(*pods)
    index = PodIndex(snap)
    ops = ("In", "NotIn", "Exists", "DoesNotExist")
    for _ in range(300):
        ml = tuple((k, rng.choice(values)) for k in rng.sample(keys, rng.randint(0, 2)))
        exprs = tuple(
            LabelSelectorRequirement(k, op, tuple(rng.sample(values, rng.randint(1, 2))) if op in ("In", "NotIn") else ())
            for k, op in ((rng.choice(keys), rng.choice(ops)) for _ in range(rng.randint(0, 2)))
        )
        selector = None if rng.random() < 0.05 else LabelSelector(ml, exprs)
        for ns in ("big", "small", "none"):
            budget = PodDisruptionBudget(ns, "b", selector, 1, None)
            assert pods_for_pdb(snap, budget, index) == pods_for_pdb(snap, budget), (ns, selector)
