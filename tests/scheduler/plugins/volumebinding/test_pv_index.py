"""VolumeBinding's per-class PV index (planner/scheduler/plugins/volumebinding/filtering.py _pv_index) is a cache: after
any sequence of changes to the cluster's PVs it must equal an index built afresh."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.domain import PersistentVolume
from planner.scheduler.framework import ClusterState
from planner.scheduler.plugins.volumebinding.filtering import _pv_index

NAMES = [f"pv-{c}" for c in "abcdefgh"]
pvs_st = st.builds(
    PersistentVolume,
    name=st.sampled_from(NAMES),
    storage_class=st.sampled_from(["fast", "slow"]),
    claim_ref=st.one_of(st.none(), st.sampled_from([("ns", "c1"), ("ns", "c2")])),
)
# (op, pv): put (add or replace, the way binding does), delete, rebind (replace in place with a new claimRef)
ops_st = st.lists(st.tuples(st.sampled_from(["put", "delete", "rebind"]), pvs_st), max_size=25)


def _fresh(pvs: dict[str, PersistentVolume]):  # type: ignore[no-untyped-def]
    return _pv_index(ClusterState(node_infos=[], pvs=dict(pvs)))


def _norm(index):  # type: ignore[no-untyped-def]
    """Empty buckets read like missing ones (index.get(cls, ([], {})), claimed.get(ref, []))."""
    out = {}
    for cls, (free, claimed) in index.items():
        kept = {ref: pvs for ref, pvs in claimed.items() if pvs}
        if free or kept:
            out[cls] = (free, kept)
    return out


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(pvs_st, max_size=6), ops_st)
def test_cached_index_equals_a_fresh_one(initial, ops):
    cluster = ClusterState(node_infos=[], pvs={pv.name: pv for pv in initial})
    _pv_index(cluster)
    for op, pv in ops:
        if op == "put":
            cluster.pvs[pv.name] = pv
        elif op == "delete":
            cluster.pvs.pop(pv.name, None)
        elif pv.name in cluster.pvs:
            old = cluster.pvs[pv.name]
            cluster.pvs[pv.name] = dataclasses.replace(old, claim_ref=None if old.claim_ref else ("ns", "c1"))
        assert _norm(_pv_index(cluster)) == _norm(_fresh(cluster.pvs))
