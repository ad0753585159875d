"""VolumeBinding's per-class PV index (planner/scheduler/plugins/volumebinding/filtering.py _pv_index) is a cache: after
any sequence of changes to the cluster's PVs it must equal an index built afresh, whether the PVs are
a plain dict (compared object by object) or a JournaledDict (the replay's: its journal says what
changed).  VolumeBinding's PreFilter, kept per pod while the journaled claims, volumes and classes
do not change, must equal the PreFilter run afresh."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.domain import OwnerRef, PersistentVolume, PersistentVolumeClaim, Pod, PodSpec, PodVolume, StorageClass
from planner.scheduler.framework import ClusterState, JournaledDict
from planner.scheduler.plugins.volumebinding.filtering import _pre_filter, _pv_index, pre_filter

NAMES = [f"pv-{c}" for c in "abcdefgh"]
pvs_st = st.builds(
    PersistentVolume,
    name=st.sampled_from(NAMES),
    storage_class=st.sampled_from(["fast", "slow"]),
    claim_ref=st.one_of(st.none(), st.sampled_from([("ns", "c1"), ("ns", "c2")])),
)
# (op, pv): put (add or replace, the way binding does), delete, rebind (replace in place with a new claimRef),
# and the dict's other ways to change
ops_st = st.lists(st.tuples(st.sampled_from(["put", "delete", "rebind", "del", "setdefault", "update", "popitem", "clear"]), pvs_st), max_size=25)


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


def _apply(pvs: dict, op: str, pv: PersistentVolume) -> None:
    if op == "put":
        pvs[pv.name] = pv
    elif op == "delete":
        pvs.pop(pv.name, None)
    elif op == "del":
        if pv.name in pvs:
            del pvs[pv.name]
    elif op == "setdefault":
        pvs.setdefault(pv.name, pv)
    elif op == "update":
        pvs.update({pv.name: pv})
    elif op == "popitem":
        if pvs:
            pvs.popitem()
    elif op == "clear":
        pvs.clear()
    elif pv.name in pvs:
        old = pvs[pv.name]
        pvs[pv.name] = dataclasses.replace(old, claim_ref=None if old.claim_ref else ("ns", "c1"))


@pytest.mark.parametrize("kind", [dict, JournaledDict])
@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(pvs_st, max_size=6), ops_st)
def test_cached_index_equals_a_fresh_one(kind, initial, ops):
    cluster = ClusterState(node_infos=[], pvs=kind({pv.name: pv for pv in initial}))
    _pv_index(cluster)
    for op, pv in ops:
        _apply(cluster.pvs, op, pv)
        assert _norm(_pv_index(cluster)) == _norm(_fresh(cluster.pvs))


def test_journaled_dict_journals_every_change_and_copies_plain():
    d = JournaledDict({"a": 1})
    d["b"] = 2
    del d["a"]
    d.pop("b")
    d.pop("zz", None)  # nothing removed: nothing journaled
    d.setdefault("c", 3)
    d.setdefault("c", 4)  # there already: nothing written
    d.update(e=5)
    d |= {"f": 6}
    d.popitem()
    d.clear()
    assert d.journal == ["b", "a", "b", "c", "e", "f", "f", "c", "e"]
    for copied in (pickle.loads(pickle.dumps(JournaledDict({"x": 1}))), dict(JournaledDict({"x": 1}))):
        assert type(copied) is dict and copied == {"x": 1}


CLAIMS = ["c1", "c2", "c3"]
pvcs_st = st.builds(
    PersistentVolumeClaim,
    namespace=st.just("ns"),
    name=st.sampled_from(CLAIMS),
    storage_class=st.sampled_from(["fast", "slow", None]),
    request=st.sampled_from([1, 5]),
    volume_name=st.sampled_from(["", "pv-a", "pv-b"]),
    phase=st.sampled_from(["Pending", "Bound", "Lost"]),
    terminating=st.booleans(),
    owner=st.one_of(st.none(), st.just(OwnerRef("Pod", "p", "uid-p", True))),
)
classes_st = st.builds(StorageClass, name=st.sampled_from(["fast", "slow"]), volume_binding_mode=st.sampled_from(["WaitForFirstConsumer", "Immediate", ""]),
                       provisioner=st.sampled_from(["ebs.csi.aws.com", "kubernetes.io/no-provisioner"]), is_default=st.booleans())
changes_st = st.lists(st.one_of(st.tuples(st.just("pv"), st.sampled_from(["put", "delete", "rebind"]), pvs_st),
                                st.tuples(st.just("pvc"), st.sampled_from(["put", "delete"]), pvcs_st),
                                st.tuples(st.just("class"), st.sampled_from(["put", "delete"]), classes_st),
                                st.tuples(st.just("pod"), st.just(""), st.just(None))), max_size=20)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(pvs_st, max_size=5), st.lists(pvcs_st, max_size=3), st.lists(classes_st, max_size=2), changes_st)
def test_kept_pre_filter_equals_a_fresh_one(pvs, pvcs, classes, changes):
    cluster = ClusterState(node_infos=[], pvs=JournaledDict({v.name: v for v in pvs}), pvcs=JournaledDict({c.key: c for c in pvcs}),
                           storage_classes=JournaledDict({c.name: c for c in classes}))
    vols = (PodVolume(name="a", claim_name="c1"), PodVolume(name="b", claim_name="c2", ephemeral=True))
    pod = Pod(namespace="ns", name="p", labels={}, uid="uid-p", spec=PodSpec(volumes=vols))
    for what, op, obj in changes:
        if what == "pv":
            _apply(cluster.pvs, op, obj)
        elif what == "pvc":
            if op == "put":
                cluster.pvcs[obj.key] = obj
            else:
                cluster.pvcs.pop(obj.key, None)
        elif what == "class":
            if op == "put":
                cluster.storage_classes[obj.name] = obj
            else:
                cluster.storage_classes.pop(obj.name, None)
        else:
            pod = dataclasses.replace(pod)  # another object, equal: asked afresh
        plain = ClusterState(node_infos=[], pvs=dict(cluster.pvs), pvcs=dict(cluster.pvcs), storage_classes=dict(cluster.storage_classes))
        kept = pre_filter(pod, cluster)
        assert kept is pre_filter(pod, cluster)  # asked again with nothing changed: the same result
        assert repr(kept) == repr(_pre_filter(pod, plain))
