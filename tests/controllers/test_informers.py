"""The replay's controllers' index (planner.controllers.informers.TrackedIndex).

* kept as pods and ReplicaSets come and go, it equals one built afresh from what exists then:
  the pods and ReplicaSets per owner, the newest creation time (begin_pass) and the active pods
  per owner and owner uid (random sequences of adds and removes);
* built from a snapshot, it keeps no object per pod that the cyclic garbage collector tracks:
  the replay builds it for every run, and hundreds of thousands of such objects cost a
  collection pass right after (the tracked objects it leaves do not grow with the pods).
"""

from __future__ import annotations

import gc
import random
from dataclasses import replace

import pytest

from planner.controllers.informers import TrackedIndex
from planner.domain import OwnerRef, ReplicaSet
from planner.snapshot import Snapshot
from tests.builders import pod, sel


def _facts(ix: TrackedIndex) -> list:
    ix.begin_pass()
    owners = [("default", "ReplicaSet", f"rs{i}") for i in range(3)] + [("default", "StatefulSet", "db")]
    return [
        {k: list(v) for k, v in ix.pods.items() if v},
        {k: list(v) for k, v in ix.replicasets.items() if v},
        ix.latest,
        {k: ix.active_pods(*k, u) for k in owners for u in ("", "u0", "u1")},
    ]


def _pod(rng: random.Random, i: int, ns: str = "default"):
    owner = rng.choice([None, OwnerRef("ReplicaSet", f"rs{rng.randrange(3)}", f"u{rng.randrange(2)}"),
                        OwnerRef("ReplicaSet", f"rs{rng.randrange(3)}", "", controller=rng.random() < 0.7),
                        OwnerRef("StatefulSet", "db", "u0")])
    p = pod(f"p{i}", namespace=ns, owner=owner, phase=rng.choice(["Running", "Pending", "Succeeded"]), terminating=rng.random() < 0.1)
    return replace(p, creation_timestamp=rng.choice(["", f"2024-01-01T00:00:{rng.randrange(60):02d}Z", "not a time"]))


def _rs(rng: random.Random, i: int) -> ReplicaSet:
    owner = OwnerRef("Deployment", f"d{rng.randrange(2)}", "du") if rng.random() < 0.8 else None
    return ReplicaSet(namespace="default", name=f"rs-{i}", replicas=1, selector=sel({"app": "x"}), template=None,  # type: ignore[arg-type]
                      owner=owner, creation_timestamp=f"2024-01-02T00:00:{rng.randrange(60):02d}Z")


def test_kept_index_equals_a_fresh_one_after_random_changes() -> None:
    for seed in range(60):
        rng = random.Random(seed)
        snap = Snapshot()
        for i in range(rng.randrange(12)):
            p = _pod(rng, i)
            snap.pods[p.key] = p
        for i in range(rng.randrange(4)):
            r = _rs(rng, i)
            snap.replicasets[r.key] = r
        kept = TrackedIndex(snap)
        copies = [kept]
        for step in range(30):
            ix = rng.choice(copies)
            what = rng.random()
            if what < 0.4:
                p = _pod(rng, 100 + step)
                old = snap.pods.get(p.key)
                if old is not None:
                    ix.remove_pod(old)
                snap.pods[p.key] = p
                ix.add_pod(p)
            elif what < 0.7 and snap.pods:
                p = snap.pods.pop(rng.choice(list(snap.pods)))
                ix.remove_pod(p)
            elif what < 0.85:
                r = _rs(rng, 100 + step)
                snap.replicasets[r.key] = r
                ix.add_replicaset(r)
            elif snap.replicasets:
                r = snap.replicasets.pop(rng.choice(list(snap.replicasets)))
                ix.remove_replicaset(r)
            # only the index changed last follows the snapshot: the others are dropped
            copies = [ix]
            if rng.random() < 0.3:
                copies.append(ix.copy())
                copies = copies[-1:]
            assert _facts(copies[0]) == _facts(TrackedIndex(snap)), (seed, step)


def test_index_keeps_no_tracked_object_per_pod() -> None:
    def tracked_after(n: int) -> int:
        snap = Snapshot()
        for i in range(n):
            owner = OwnerRef("ReplicaSet", f"rs{i % 3}", f"uid-{i % 3}")
            p = replace(pod(f"p{i}", owner=owner, node_name="n1"), creation_timestamp=f"2024-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z")
            snap.pods[p.key] = p
        was = gc.isenabled()
        gc.disable()
        try:
            gc.collect()
            before = gc.get_count()[0]
            ix = TrackedIndex(snap)
            grown = gc.get_count()[0] - before
        finally:
            if was:
                gc.enable()
        assert len(ix._active) == 3
        return grown

    small, large = tracked_after(200), tracked_after(4000)
    # a few objects per owner and per map, none per pod (was 3 or 4 tuples per pod)
    assert large - small < 100, (small, large)


def _one_by_one(snap):
    """A TrackedIndex built with add_pod and add_replicaset one object at a time."""
    import heapq

    from planner.controllers.informers import BASE_TIME, TrackedIndex
    from tests.controllers.world import add_one_by_one

    one = TrackedIndex.__new__(TrackedIndex)
    one._times = {"Pod": {}, "ReplicaSet": {}}
    one._count, one._heap, one._at = {}, [], {}
    one._active, one._active_of, one._active_uid, one._owners = {}, {}, {}, {}
    one.pods, one.replicasets = {}, {}
    one.latest = BASE_TIME
    add_one_by_one(one, snap)
    one._heap = [-stamp for stamp, c in one._count.items() if c > 0]
    heapq.heapify(one._heap)
    one.begin_pass()
    return one


def _same_index(bulk, one, what: str) -> None:
    for name in ("pods", "replicasets", "_times", "_count", "_at", "_active", "_active_of", "_active_uid", "_owners"):
        assert getattr(bulk, name) == getattr(one, name), (what, name)
    # the time that names an instant is the first object's (its offset is what the clock writes)
    assert {k: (t, t.utcoffset()) for k, t in bulk._at.items()} == {k: (t, t.utcoffset()) for k, t in one._at.items()}, what
    assert sorted(bulk._heap) == sorted(one._heap) and bulk.latest == one.latest, what
    assert bulk.latest.utcoffset() == one.latest.utcoffset(), what


def test_a_tracked_index_built_at_once_is_the_one_built_object_by_object():
    """TrackedIndex(snap) (the bulk build) against add_pod / add_replicaset one object at a time,
    on every scenario: the same maps, counts, heap and latest time."""
    from pathlib import Path

    from planner.controllers.informers import TrackedIndex
    from planner.load import Limits, load_snapshot

    root = Path(__file__).resolve().parents[2]
    seen = 0
    for f in sorted((root / "scenarios").glob("*.yaml")):
        snap = load_snapshot([str(f)], Limits())
        _same_index(TrackedIndex(snap), _one_by_one(snap), f.name)
        seen += len(snap.pods)
    assert seen > 100


@pytest.mark.parametrize("unreadable", [False, True])
def test_one_instant_written_with_two_offsets_keeps_the_first_objects_time(unreadable):
    """Two creation times naming one instant with different offsets (with and without an
    unreadable one besides): the instant's time is the first object's, as when the index is built
    object by object (the replay's clock writes the next second from it)."""
    from dataclasses import replace
    from pathlib import Path

    from planner.controllers.informers import TrackedIndex
    from planner.load import Limits, load_snapshot

    root = Path(__file__).resolve().parents[2]
    snap = load_snapshot([str(sorted((root / "scenarios").glob("*.yaml"))[0])], Limits())
    keys = list(snap.pods)
    assert len(keys) >= 3
    later = "2099-01-01T01:00:00+01:00"
    stamps = {keys[0]: "2099-01-01T00:00:00Z", keys[1]: later, **({keys[2]: "not a time"} if unreadable else {})}
    for k, ts in stamps.items():
        snap.pods[k] = replace(snap.pods[k], creation_timestamp=ts)
    bulk, one = TrackedIndex(snap), _one_by_one(snap)
    _same_index(bulk, one, "offsets")
    assert bulk.latest.utcoffset().total_seconds() == 0  # the first object's "Z", not "+01:00"
