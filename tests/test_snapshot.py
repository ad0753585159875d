"""Snapshot graphs: ownership chains and which workloads' selectors count each other's pods."""

from __future__ import annotations

from planner.domain import LabelSelector, PodSpec, PodTemplate, StatefulSet
from planner.load import build_snapshot, read_objects
from planner.snapshot import Snapshot

from .builders import sel, spread
from .conftest import SCENARIOS


def _sts(name: str, labels: dict, selector: LabelSelector) -> StatefulSet:
    spec = PodSpec(topology_spread_constraints=(spread(selector=selector),))
    return StatefulSet(namespace="default", name=name, replicas=2, selector=sel(labels), template=PodTemplate(labels=labels, spec=spec))


def test_blue_green_selectors_count_each_other():
    snap = Snapshot()
    blue = _sts("blue", {"app": "my_app", "release": "blue"}, sel({"app": "my_app"}))
    green = _sts("green", {"app": "my_app", "release": "green"}, sel({"app": "my_app"}))
    snap.statefulsets = {blue.key: blue, green.key: green}
    g = snap.selector_overlaps
    assert g.has_edge(("StatefulSet", "default/blue"), ("StatefulSet", "default/green"))
    assert g.has_edge(("StatefulSet", "default/green"), ("StatefulSet", "default/blue"))
    assert g.edges[("StatefulSet", "default/green"), ("StatefulSet", "default/blue")]["via"] == [
        "topologySpreadConstraints[0] (topology.kubernetes.io/zone)"
    ]


def test_release_scoped_selectors_do_not():
    snap = Snapshot()
    blue = _sts("blue", {"app": "my_app", "release": "blue"}, sel({"app": "my_app", "release": "blue"}))
    green = _sts("green", {"app": "my_app", "release": "green"}, sel({"app": "my_app", "release": "green"}))
    snap.statefulsets = {blue.key: blue, green.key: green}
    assert snap.selector_overlaps.number_of_edges() == 0


def test_ownership_chain_statefulset_pod_pvc_pv():
    snap = build_snapshot(read_objects([str(SCENARIOS / "hpa-scale-up-retained-volume.yaml")]))
    g = snap.ownership
    assert g.has_edge(("StatefulSet", "default/search"), ("Pod", "default/search-0"))
    assert g.has_edge(("Pod", "default/search-0"), ("PersistentVolumeClaim", "default/data-search-0"))
    pv = snap.pvcs["default/data-search-0"].volume_name
    assert g.has_edge(("PersistentVolumeClaim", "default/data-search-0"), ("PersistentVolume", pv))
    assert {p.name for p in snap.owned_pods("StatefulSet", "default/search")} >= {"search-0", "search-1"}


def test_base_cluster_is_built_at_load_and_a_copy_builds_its_own():
    from planner.load import load_snapshot

    snap = load_snapshot([str(SCENARIOS / "hpa-scale-up-retained-volume.yaml")])
    assert "_base_cluster" in snap.__dict__  # the scheduler cache is part of loading
    base = snap.base_cluster()
    assert base is snap.base_cluster()
    placed = sum(len(ni.pods) for ni in base.node_infos)
    assert placed == sum(1 for p in snap.pods.values() if p.spec.node_name in snap.nodes and not p.terminal)
    copy = snap.copy()
    gone = next(k for k, p in copy.pods.items() if p.spec.node_name)
    del copy.pods[gone]
    assert sum(len(ni.pods) for ni in copy.base_cluster().node_infos) == placed - 1
    assert sum(len(ni.pods) for ni in snap.base_cluster().node_infos) == placed


def test_owner_index_follows_the_snapshot_as_it_changes():
    """The controllers' lookups (informers.index_of) read an index cached on the snapshot: after
    pods are removed, added and replaced it must still answer what a pass over every pod answers."""
    import dataclasses

    from planner.controllers.informers import index_of
    from planner.load import load_snapshot

    def _pods_owned(snap, kind, ns, names):  # type: ignore[no-untyped-def]
        found = [p for name in names for p in index_of(snap).owned_pods(snap, ns, kind, name)]
        order = list(snap.pods)
        return sorted(found, key=lambda p: order.index(p.key))

    snap = load_snapshot([str(SCENARIOS / "hpa-scale-up-retained-volume.yaml")])

    def scan(kind, ns, names):  # type: ignore[no-untyped-def]
        return [p for p in snap.pods.values() if p.owner is not None and p.owner.kind == kind and p.owner.name in names and p.namespace == ns]

    owners = {(p.owner.kind, p.namespace, p.owner.name) for p in snap.pods.values() if p.owner is not None}
    assert owners

    def agree():  # type: ignore[no-untyped-def]
        for kind, ns, name in owners:
            assert _pods_owned(snap, kind, ns, {name}) == scan(kind, ns, {name})

    agree()
    first = next(iter(snap.pods))
    gone = snap.pods.pop(first)
    agree()
    snap.pods[first] = gone  # back, at the end
    agree()
    k = next(k for k, p in snap.pods.items() if p.owner is not None)
    snap.pods[k] = dataclasses.replace(snap.pods[k], owner=None)  # replaced in place
    agree()


def test_raw_objects_read_back_as_written():
    import math
    import pickle

    from planner.snapshot import RawObjects

    raw = RawObjects()
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w", "labels": {"a": "b"}}, "spec": {"replicas": 3, "x": [1, 2.5, None, True, 1 << 80]}}
    odd = {"metadata": {"name": "n"}, 1: "int key", "nan": float("nan")}  # what YAML can give: kept exactly
    raw[("Deployment", "ns/w")] = dep
    raw[("Node", "n")] = odd
    raw[("StatefulSet", "ns/s")] = sts = {"kind": "StatefulSet"}
    raw[("PersistentVolume", "p")] = bad = {"x": object()}  # not plain data: kept as it is
    assert raw[("Deployment", "ns/w")] == dep and raw[("Deployment", "ns/w")] is not dep
    got = raw[("Node", "n")]
    assert got[1] == "int key" and math.isnan(got["nan"])
    assert raw[("StatefulSet", "ns/s")] is sts and raw[("PersistentVolume", "p")] is bad
    # a dict read is kept: changes to it hold, and a copy shares it, as dict(raw) would
    d = raw[("Deployment", "ns/w")]
    d["spec"]["replicas"] = 5
    assert raw[("Deployment", "ns/w")]["spec"]["replicas"] == 5
    c = raw.copy()
    assert c[("Deployment", "ns/w")] is d and c == raw and list(c) == list(raw)
    del c[("Node", "n")]
    assert ("Node", "n") in raw and ("Node", "n") not in c and len(c) == 3
    # pickled as kept
    raw2 = RawObjects({("Deployment", "ns/x"): dep})
    back = pickle.loads(pickle.dumps(raw2))
    assert isinstance(back, RawObjects) and back == raw2 and back[("Deployment", "ns/x")] == dep
    assert dict(back) == {("Deployment", "ns/x"): dep}
