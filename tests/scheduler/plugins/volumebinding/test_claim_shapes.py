"""volume_verdicts' shape memo: the pods of one build whose claims are equal but for their names
share their volume verdicts, except where a name counts.  Each case has two such pods whose own
verdicts differ; with one ``shared`` memo (either order) each gets its own."""

from __future__ import annotations

from dataclasses import replace

import pytest

from planner.domain import PodVolume
from planner.scheduler.plugins.volumebinding.problem import PreFilterMemo, volume_classes, volume_verdicts
from tests.builders import cluster, node, pod, pv, pvc, storage_class

LOCAL = storage_class("local", provisioner="kubernetes.io/no-provisioner")


def _verdicts(cs, pods, shared):
    vclasses = volume_classes(cs)
    base = tuple(() for _ in cs.node_infos)
    memo = PreFilterMemo(cs)
    return [volume_verdicts(p, cs, base, vclasses, memo, {}, None, shared) for p in pods]


def _web(n: int) -> list:
    """A StatefulSet's pods: volume "data" of each, its claim data-web-<ordinal>."""
    out = []
    for i in range(n):
        p = pod(f"web-{i}", {"app": "web"})
        out.append(replace(p, spec=replace(p.spec, volumes=(PodVolume("data", f"data-web-{i}"),))))
    return out


def _cases():
    nodes = [node("n0", zone="a"), node("n1", zone="b")]
    web = _web(2)
    claims = [pvc(f"data-web-{i}", storage_class="local") for i in range(2)]
    # a static PV in zone a prebound to web-1's claim: web-0 can only have the one in zone b
    prebound = cluster(nodes, [], pvcs=claims, storage_classes=[LOCAL],
                       pvs=[pv("pv-a", zone="a", storage_class="local", claim=("default", "data-web-1"), phase="Available"),
                            pv("pv-b", zone="b", storage_class="local")])
    # web-0's ReadWriteOncePod claim is in use by a running pod: VolumeRestrictions rejects it
    # everywhere; web-1's, equal but unused, nowhere
    rwop_claims = [replace(c, access_modes=("ReadWriteOncePod",), storage_class="dynamic") for c in claims]
    user = pod("user", {"app": "other"}, node_name="n0", claims=["data-web-0"])
    user = replace(user, spec=replace(user.spec, volumes=(PodVolume("data", "data-web-0"),)))
    rwop = cluster(nodes, [user], pvcs=rwop_claims, storage_classes=[storage_class("dynamic")])
    # both claims lost: PreFilter's rejection names each pod's own claim
    lost = cluster(nodes, [], pvcs=[pvc(f"data-web-{i}", storage_class="local", volume_name="pv-gone", phase="Lost") for i in range(2)],
                   storage_classes=[LOCAL])
    return {"prebound": (prebound, web), "read-write-once-pod": (rwop, web), "lost": (lost, web)}


@pytest.mark.parametrize("case", sorted(_cases()))
@pytest.mark.parametrize("reverse", [False, True])
def test_a_name_that_counts_is_not_shared(case: str, reverse: bool) -> None:
    cs, pods = _cases()[case]
    pods = pods[::-1] if reverse else pods
    own = [_verdicts(cs, [p], None)[0] for p in pods]
    assert own[0] != own[1]  # the case tells the two pods apart
    assert _verdicts(cs, pods, {}) == own


def test_claims_equal_but_for_their_names_share_verdicts() -> None:
    """Two pods of a dynamic class, their claims new: one Filter pass serves both."""
    nodes = [node("n0", zone="a"), node("n1", zone="b")]
    web = _web(2)
    cs = cluster(nodes, [], pvcs=[pvc(f"data-web-{i}", storage_class="dynamic") for i in range(2)],
                 storage_classes=[storage_class("dynamic", allowed={"topology.kubernetes.io/zone": ["a"]})])
    shared: dict = {}
    got = _verdicts(cs, web, shared)
    assert got == [_verdicts(cs, [p], None)[0] for p in web]
    assert sum(1 for k in shared if k[0] == "shape") == 1  # one shape, the second pod's taken from it
