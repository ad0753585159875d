"""explain_pending: every Pending pod explained on one copy of the cluster, pods alike evaluated
once; each answer is explain's for that pod (less what is listed per node)."""

from __future__ import annotations

from dataclasses import replace

from planner.engines.explain import (
    SCHEDULABLE_REASON,
    blocking_reason,
    explain,
    explain_pending,
    pending_pods,
    reason_counts,
)
from planner.load import load_snapshot
from planner.scheduler import runtime
from tests.conftest import SCENARIOS


def test_pending_pods_are_the_ones_waiting_for_a_node():
    snap = load_snapshot([str(SCENARIOS / "zone-spread-scale-up.yaml")]).copy()
    (waiting,) = pending_pods(snap)
    running = next(p for p in snap.pods.values() if p.spec.node_name)
    snap.pods["default/done"] = replace(waiting, name="done", phase="Succeeded")
    snap.pods["default/going"] = replace(waiting, name="going", terminating=True)
    snap.pods["default/starting"] = replace(running, name="starting", phase="Pending")  # bound, containers starting
    snap.pods["batch/other"] = replace(waiting, namespace="batch", name="other")
    assert [p.key for p in pending_pods(snap)] == ["batch/other", waiting.key]
    assert [p.key for p in pending_pods(snap, "default")] == [waiting.key]


def test_each_answer_is_explains_and_alike_pods_share_it():
    snap = load_snapshot([str(SCENARIOS / "zone-anti-affinity-six-replicas.yaml")])
    pods = pending_pods(snap)
    assert len(pods) == 3
    got = explain_pending(snap, pods)
    for p, e in zip(pods, got):
        assert e == explain(snap, p, per_node=False)
        assert e["pod"] == p.key
    # one controller's pods: the same spec, evaluated once (the dicts below the pod's key are shared)
    assert got[0]["reasons"] is got[1]["reasons"]


def test_reason_counts_are_the_summarys_histogram():
    for name in ("zone-spread-scale-up.yaml", "zone-anti-affinity-six-replicas.yaml", "blue-green-shared-selector.yaml"):
        snap = load_snapshot([str(SCENARIOS / name)])
        cluster = snap.base_cluster()
        for p in pending_pods(snap):
            ev = runtime.evaluate(p, cluster)
            assert not ev.schedulable and not ev.prefilter_failures
            hist: dict[str, int] = {}
            for c in reason_counts(ev):
                hist[c["reason"]] = hist.get(c["reason"], 0) + c["nodes"]
            expected = f"0/{len(ev.nodes)} nodes are available: " + ", ".join(sorted(f"{v} {k}" for k, v in hist.items())) + "."
            assert ev.summary() == expected
            assert blocking_reason(ev) == "; ".join(sorted(hist)) != SCHEDULABLE_REASON
