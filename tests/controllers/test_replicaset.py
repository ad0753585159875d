"""The ReplicaSet controller and the deletion ranking (planner/controllers/replicaset.py,
controller_utils.py). Table-driven, each case citing the upstream test or behaviour it transcribes (kubernetes/kubernetes pkg/controller/...).
Rollouts are driven by the fake scheduler of tests/controllers/world.py.
"""

from __future__ import annotations

import pytest

from planner.controllers.actions import (
    CreatePod,
    DeletePod,
)
from planner.controllers.controller_utils import BASE_TIME
from planner.controllers.replicaset import pods_to_delete, reconcile_replicaset
from planner.domain import (
    OwnerRef,
    Pod,
    PodSpec,
)
from tests.controllers.world import (
    deployment,
    replicaset,
    rs_pods,
    snapshot,
)

# --------------------------------------------------------------------------- replica_set.go


def test_replicaset_creates_missing_pods_with_generated_names() -> None:
    """replica_set.go manageReplicas (diff < 0): pods from the template, controller reference to the
    ReplicaSet, <rs>-<5 characters> names, deterministic."""
    d = deployment(3)
    rs = replicaset(d, "v1", 3, 1)
    snap = snapshot(d, rs, rs_pods(rs, 1))
    actions = reconcile_replicaset(snap, rs.key)
    pods = [a.pod for a in actions if isinstance(a, CreatePod)]
    assert len(pods) == 2
    for p in pods:
        assert p.name.startswith(f"{rs.name}-") and len(p.name) == len(rs.name) + 6
        assert p.owner == OwnerRef("ReplicaSet", rs.name, rs.uid, True)
        assert p.labels == rs.template.labels and p.phase == "Pending" and p.uid
    assert len({p.name for p in pods}) == 2
    assert [a.pod.name for a in reconcile_replicaset(snap, rs.key) if isinstance(a, CreatePod)] == [p.name for p in pods]


def _ranked(*pods: Pod) -> list[str]:
    return [p.name for p in pods_to_delete(list(pods), list(pods), len(pods) - 1, BASE_TIME)]


@pytest.mark.parametrize(
    "a, b, first",
    [
        # controller_utils_test.go TestSortingActivePodsWithRanks: which of two pods is deleted first
        (dict(node_name=""), dict(node_name="n1"), "a"),  # 1. unassigned < assigned
        (dict(node_name="n1", phase="Pending"), dict(node_name="n2", phase="Running"), "a"),  # 2. Pending < Running
        (dict(node_name="n1", phase="Unknown"), dict(node_name="n2", phase="Running"), "a"),  # 2. Unknown < Running
        (dict(node_name="n1", cost="-5"), dict(node_name="n2"), "a"),  # 4. lower pod-deletion-cost first
        (dict(node_name="n1", created="2024-01-01T00:00:09Z"), dict(node_name="n2", created=""), "b"),  # 8. empty creation time first
    ],
)
def test_deletion_ranking(a: dict, b: dict, first: str) -> None:
    def mk(name: str, node_name: str = "", phase: str | None = None, cost: str | None = None, created: str = "2024-01-01T00:00:01Z") -> Pod:
        return Pod("default", name, {"app": "web"}, PodSpec(node_name=node_name), phase=phase or ("Running" if node_name else "Pending"),
                   annotations={"controller.kubernetes.io/pod-deletion-cost": cost} if cost else {}, creation_timestamp=created, uid=name)

    pa, pb = mk("a", **a), mk("b", **b)
    assert _ranked(pa, pb) == [first]
    assert _ranked(pb, pa) == [first]


def test_deletion_ranking_doubled_up_first() -> None:
    """controller_utils.go ActivePodsWithRanks rule 5: a pod sharing its node with more related
    pods is deleted first (getPodsRankedByRelatedPodsOnSameNode)."""
    pods = [Pod("default", n, {}, PodSpec(node_name=h), phase="Running", creation_timestamp="2024-01-01T00:00:01Z", uid=n)
            for n, h in (("a", "n1"), ("b", "n2"), ("c", "n2"))]
    victims = pods_to_delete(pods, pods, 1, BASE_TIME)
    assert victims[0].name in ("b", "c")


def test_replicaset_scale_down_prefers_pending_pods() -> None:
    """replica_set.go getPodsToDelete: scaling 3 -> 1 deletes the unscheduled pod before a running one."""
    d = deployment(1)
    rs = replicaset(d, "v1", 1, 1)
    snap = snapshot(d, rs, rs_pods(rs, 2, 1))
    deleted = [a.key for a in reconcile_replicaset(snap, rs.key) if isinstance(a, DeletePod)]
    assert len(deleted) == 2 and f"default/{rs.name}-2" in deleted


def test_a_replicaset_without_a_controller_ranks_no_pod_by_its_node() -> None:
    """replica_set.go getReplicaSetsWithSameController returns nil for a ReplicaSet without a
    controller, so getIndirectlyRelatedPods finds no related pods and every pod's rank is 0: the
    newest pod goes (rs-c), not one of the two sharing n-0.  Was: its own pods ranked by node."""
    from dataclasses import replace
    from pathlib import Path

    from planner.load import load_snapshot

    snap = load_snapshot([str(Path(__file__).resolve().parents[1] / "data" / "controllerless-replicaset.yaml")])
    rs = snap.replicasets["default/rs"]
    snap.replicasets["default/rs"] = replace(rs, replicas=2)
    actions = reconcile_replicaset(snap, "default/rs")
    assert [a.key for a in actions if isinstance(a, DeletePod)] == ["default/rs-c"]


def _ready_pod(name: str, created: str, ready_since: str, restarts: int = 0, sidecar_restarts: int = 0, uid: str = "") -> Pod:
    return Pod(
        "default", name, {"app": "web"}, PodSpec(node_name="n-0" if name < "m" else "n-1"), phase="Running",
        uid=uid or name, creation_timestamp=created, ready=True, ready_since=ready_since,
        restarts=restarts, sidecar_restarts=sidecar_restarts,
    )


NOW = BASE_TIME


def test_the_pod_ready_most_recently_goes_first() -> None:
    """ActivePodsWithRanks rule 6 (before restarts and creation time): both ready, the latest
    Ready goes first, on the log2 scale of LogarithmicScaleDown.  Was: no rule 6, so the newer
    pod went (rule 8) though the older one had only just become Ready again."""
    old_ready_again = _ready_pod("a", "2024-01-01T00:00:00Z", "2024-03-30T00:00:00Z")
    newer_ready_long = _ready_pod("b", "2024-01-10T00:00:00Z", "2024-01-20T00:00:00Z")
    first = pods_to_delete([newer_ready_long, old_ready_again], [], 1, NOW)
    assert [p.name for p in first] == ["a"]


def test_more_restarts_go_first_then_sidecar_restarts() -> None:
    """ActivePodsWithRanks rule 7 (compareMaxContainerRestarts), after equal Ready times."""
    a = _ready_pod("a", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", restarts=1)
    b = _ready_pod("b", "2024-01-10T00:00:00Z", "2024-01-02T00:00:00Z", restarts=5)
    assert [p.name for p in pods_to_delete([a, b], [], 1, NOW)] == ["b"]
    c = _ready_pod("c", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", restarts=1, sidecar_restarts=3)
    assert [p.name for p in pods_to_delete([a, c], [], 1, NOW)] == ["c"]


def test_restart_counts_are_read_from_the_container_statuses(tmp_path) -> None:
    from planner.convert import Converter

    pod = {
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"nodeName": "n-0", "containers": [{"name": "c", "image": "x"}],
                 "initContainers": [{"name": "side", "image": "y", "restartPolicy": "Always"}, {"name": "init", "image": "z"}]},
        "status": {"phase": "Running",
                   "containerStatuses": [{"name": "c", "restartCount": 4}],
                   "initContainerStatuses": [{"name": "side", "restartCount": 2}, {"name": "init", "restartCount": 9}]},
    }
    p = Converter().pod(pod)
    assert (p.restarts, p.sidecar_restarts) == (4, 2)  # an ordinary init container's restarts do not count


def test_ages_are_measured_from_about_when_the_snapshot_was_taken() -> None:
    """LogarithmicScaleDown puts pods created a day apart two months ago in one log2 bucket of
    their age, and the uid decides (rule 8); measured from just after the newest pod, the newer
    one would go.  The snapshot's time: its nodes' latest heartbeat (informers.observed_at)."""
    from datetime import UTC, datetime

    from planner.controllers.informers import observed_at
    from planner.domain import Node
    from planner.snapshot import Snapshot

    a = Pod("default", "a", {}, PodSpec(node_name="n-0"), phase="Running", uid="aaaa", creation_timestamp="2024-01-01T00:00:00Z")
    b = Pod("default", "b", {}, PodSpec(node_name="n-1"), phase="Running", uid="bbbb", creation_timestamp="2024-01-02T00:00:00Z")
    just_after = datetime(2024, 1, 2, 0, 0, 1, tzinfo=UTC)
    assert [p.name for p in pods_to_delete([a, b], [], 1, just_after)] == ["b"]
    snap = Snapshot()
    snap.nodes = {"n-0": Node("n-0", heartbeat="2024-03-01T00:00:00Z"), "n-1": Node("n-1", heartbeat="2024-03-01T00:00:07Z")}
    seen = observed_at(snap)
    assert seen == datetime(2024, 3, 1, 0, 0, 7, tzinfo=UTC)
    assert [p.name for p in pods_to_delete([a, b], [], 1, just_after, seen)] == ["a"]
    assert observed_at(Snapshot()) is None
