"""check end to end on attach limits: a StatefulSet of 4 replicas, one CSI volume each, on 2 nodes
whose CSINodes allow 1 volume each (scenarios/statefulset-attach-limits.yaml)."""

from __future__ import annotations

from pathlib import Path

from planner.engines.check import check_replicas
from planner.engines.workloads import parse_workload
from planner.load import load_snapshot

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "statefulset-attach-limits.yaml"


def test_attach_limit_makes_four_replicas_unschedulable():
    snap = load_snapshot([str(SCENARIO)])
    ref = parse_workload("statefulset/db", "default")
    r = check_replicas(snap, [ref], 4)
    assert r.schedulable is False
    why = [e for e in r.explanation if e["constraint"] == "NodeVolumeLimits"]
    assert len(why) == 1
    msg = why[0]["message"]
    assert "ebs.csi.aws.com" in msg and "attach at most 1 each (1 attached, room for 0)" in msg and "(2 in all)" in msg
    assert check_replicas(snap, [ref], 2).schedulable is True
