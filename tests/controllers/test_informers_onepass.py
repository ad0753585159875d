"""The informers' Index: its constructor's fast path (every pod and ReplicaSet inlined, creation
times parsed when ``latest`` is first read) gives what add_pod and add_replicaset give one by one."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from planner.controllers.controller_utils import BASE_TIME, parse_time
from planner.controllers.informers import Index
from planner.domain import OwnerRef, Pod, PodSpec, ReplicaSet
from planner.snapshot import Snapshot
from tests.builders import sel

from .world import add_one_by_one, template


def _one_by_one(snap: Snapshot) -> Index:
    ix = Index.__new__(Index)
    ix.pods, ix.replicasets = {}, {}
    ix.latest = BASE_TIME
    return add_one_by_one(ix, snap)  # type: ignore[no-any-return]


def _snap(newest_pod: str, newest_rs: str) -> Snapshot:
    snap = Snapshot()
    later = (BASE_TIME + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    rs_owner = OwnerRef("Deployment", "web", "d1", True)
    for i, (owner, ts) in enumerate([
        (OwnerRef("ReplicaSet", "web-1", "r1", True), later),
        (OwnerRef("ReplicaSet", "web-1", "r1", False), newest_pod),  # not its controller: not indexed by owner
        (None, ""),  # no time: never the latest
        (OwnerRef("StatefulSet", "db", "s1", True), "not a time"),
        (OwnerRef("ReplicaSet", "web-1", "r1", True), "2020-01-01T00:00:00+00:00"),  # before BASE_TIME
    ]):
        p = Pod(namespace="ns" if i % 2 else "other", name=f"p{i}", labels={}, spec=PodSpec(), owner=owner, creation_timestamp=ts)
        snap.pods[p.key] = p
    for name, owner, ts in [("web-1", rs_owner, newest_rs), ("web-0", replace(rs_owner, controller=False), later), ("lone", None, "")]:
        rs = ReplicaSet(namespace="ns", name=name, replicas=1, selector=sel({"app": "web"}), template=template("web", "img"), owner=owner, creation_timestamp=ts)
        snap.replicasets[rs.key] = rs
    return snap


def test_the_fast_constructor_is_add_pod_and_add_replicaset_one_by_one() -> None:
    newest = (BASE_TIME + timedelta(days=9)).strftime("%Y-%m-%dT%H:%M:%SZ")
    older = (BASE_TIME + timedelta(days=5)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    for pod_ts, rs_ts, want in [(newest, older, newest), (older, newest, newest), ("", "", None)]:
        snap = _snap(pod_ts, rs_ts)
        fast, slow = Index(snap), _one_by_one(snap)
        assert fast.pods == slow.pods and list(fast.pods) == list(slow.pods)
        assert [list(v) for v in fast.pods.values()] == [list(v) for v in slow.pods.values()]
        assert fast.replicasets == slow.replicasets and list(fast.replicasets) == list(slow.replicasets)
        expect = slow.latest
        assert expect == (parse_time(want) if want else BASE_TIME + timedelta(days=3))
        assert fast.latest == expect


def test_a_later_object_raises_latest_after_the_lazy_parse() -> None:
    snap = _snap("", "")
    ix = Index(snap)
    newer = (BASE_TIME + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    p = Pod(namespace="ns", name="late", labels={}, spec=PodSpec(), creation_timestamp=newer)
    ix.add_pod(p)  # before latest was ever read: the constructor's times are parsed first
    assert ix.latest == parse_time(newer)
    older = Pod(namespace="ns", name="old", labels={}, spec=PodSpec(), creation_timestamp=(BASE_TIME + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    ix.add_pod(older)
    assert ix.latest == parse_time(newer)  # only rises


def test_building_the_index_parses_no_time(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A question about one workload reads its pods from the index, never the clock: the 150,000
    creation times of a 5,000-node snapshot are parsed only when ``latest`` is read."""
    from planner.controllers import informers

    calls: list[str] = []
    real = informers.parse_time
    monkeypatch.setattr(informers, "parse_time", lambda ts: calls.append(ts) or real(ts))
    ix = Index(_snap("", ""))
    assert calls == []
    assert ix.latest == BASE_TIME + timedelta(days=3) and len(calls) == 8
