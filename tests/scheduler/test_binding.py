"""planner/scheduler/binding.py's and NodeInfo's fast paths against the plain ones.

* bound_copy (the pod as a bind leaves it, without the dataclass constructors) equals
  ``replace(pod, spec=replace(pod.spec, node_name=...), phase="Running")`` field for field;
* NodeInfo.clone shares the host-port sets and the per-namespace pod lists with its clone until
  either side writes: after any sequence of adds and removes on a node and its clones, every
  copy's ``used_ports`` and ``by_namespace`` are those of the same sequence with plain clones
  (every set and list copied at once).
"""

from __future__ import annotations

from dataclasses import fields, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.domain import HostPort, OwnerRef, Pod
from planner.scheduler.binding import bound_copy
from planner.scheduler.framework import NodeInfo
from tests.builders import node, pod

ports = st.lists(
    st.builds(HostPort, port=st.integers(8000, 8003), protocol=st.sampled_from(["TCP", "UDP"]),
              host_ip=st.sampled_from(["0.0.0.0", "10.0.0.1"])),
    max_size=3,
)


@st.composite
def pods(draw, name: str | None = None) -> Pod:
    p = pod(
        name or draw(st.sampled_from(["a", "b", "c", "d", "e"])),
        draw(st.dictionaries(st.sampled_from(["app", "tier"]), st.sampled_from(["web", "db"]), max_size=2)),
        namespace=draw(st.sampled_from(["default", "other"])),
        cpu=draw(st.none() | st.integers(0, 2000)),
        host_ports=draw(ports),
        owner=draw(st.none() | st.just(OwnerRef("ReplicaSet", "web-1", uid="u1"))),
    )
    return replace(p, uid=draw(st.text(max_size=3)), annotations={"x": draw(st.text(max_size=2))},
                   spec=replace(p.spec, priority=draw(st.integers(-5, 5))))


@settings(max_examples=200, deadline=None)
@given(pods(), st.sampled_from(["node-0", "node-1"]))
def test_bound_copy_is_replace(p: Pod, host: str) -> None:
    spec, phase = p.spec, p.phase
    want = replace(p, spec=replace(p.spec, node_name=host), phase="Running")
    got = bound_copy(p, host)
    assert type(got) is Pod and type(got.spec) is type(p.spec)
    for f in fields(Pod):
        assert getattr(got, f.name) == getattr(want, f.name), f.name
    for f in fields(type(p.spec)):
        assert getattr(got.spec, f.name) == getattr(want.spec, f.name), f.name
    assert got == want
    assert p.spec is spec and p.phase == phase and spec.node_name == ""  # the input untouched


def _deep_clone(ni: NodeInfo) -> NodeInfo:
    """The plain clone: its own copy of every host-port set at once."""
    c = ni.clone()
    c.used_ports = {k: set(v) for k, v in ni.used_ports.items()}
    c.ports_shared = ni.ports_shared = False
    c.by_namespace = {k: list(v) for k, v in ni.by_namespace.items()}
    c.ns_owned = ni.ns_owned = None
    return c


@settings(max_examples=300, deadline=None)
@given(
    st.lists(pods(), max_size=4),
    st.lists(st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, 9), pods()), max_size=12),
)
def test_clone_shares_ports_and_namespaces_until_written(start: list[Pod], ops: list[tuple[int, bool, int, Pod]]) -> None:
    # distinct names: NodeInfo.remove_pod removes by name
    seen: set[str] = set()
    start = [p for p in start if not (p.key in seen or seen.add(p.key))]  # type: ignore[func-returns-value]
    infos = [NodeInfo(node("node-0"), start)]
    plain = [NodeInfo(node("node-0"), start)]
    serial = 0
    for which, add, pick, p in ops:
        i = which % len(infos)
        if which == 3:  # a clone of one of them
            infos.append(infos[i].clone())
            plain.append(_deep_clone(plain[i]))
            continue
        if add:
            serial += 1
            q = replace(p, name=f"{p.name}-{serial}")
            infos[i].add_pod(q)
            plain[i].add_pod(q)
        elif infos[i].pods:
            q = infos[i].pods[pick % len(infos[i].pods)]
            infos[i].remove_pod(q)
            plain[i].remove_pod(q)
        for ni, ref in zip(infos, plain):  # every copy, written or not, as the plain clones have it
            assert ni.used_ports == ref.used_ports
            assert ni.by_namespace == ref.by_namespace
            assert ni.pods == ref.pods
