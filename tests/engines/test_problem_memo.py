"""build_problem with a Memo shared across problems (remediate's action model and the checks of
its plans: the same pods on related clusters) builds the very problem it builds without one.

On random clusters, one Memo serves a sequence of related questions: the scenario's count, a
smaller and a larger count (some pods shared, some not), the cluster with a node added (a node
group scaled), with a pod's claim gone or larger, with a static PV gone or bound to another claim, and with a StorageClass changed
(other worlds: a result must not be reused there).  Each problem equals a fresh build's."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.domain import Node
from planner.engines.problem import Memo, build_problem
from planner.engines.workloads import cluster_after_plans, plan_workload
from planner.scheduler.framework import NodeInfo
from tests.randomcluster import Scenario, scenarios


def _same(cluster, plans, memo: Memo) -> None:
    fresh, fctx = build_problem(cluster, plans)
    shared, sctx = build_problem(cluster, plans, memo=memo)
    assert shared == fresh
    assert sctx.node_class == fctx.node_class
    assert [[p.key for p in g] for g in sctx.group_pods] == [[p.key for p in g] for g in fctx.group_pods]


def _variants(sc: Scenario, data) -> list:
    """(cluster, plans) of related questions, in an order drawn."""
    snap = sc.snapshot
    out = []
    for n in sorted({sc.replicas, max(1, sc.replicas - 1), sc.replicas + 1}):
        plan = plan_workload(snap, sc.ref, n)
        out.append((cluster_after_plans(snap, [plan]), [plan]))
    plan = plan_workload(snap, sc.ref, sc.replicas)
    base = cluster_after_plans(snap, [plan])
    some = next(iter(snap.nodes.values()))
    new = Node(name="added-0", labels={**some.labels, "kubernetes.io/hostname": "added-0"}, allocatable=dict(some.allocatable))
    out.append((base.with_nodes([NodeInfo(new)]), [plan]))
    if base.pvs:
        name = data.draw(st.sampled_from(sorted(base.pvs)))
        gone = base.clone()
        del gone.pvs[name]
        out.append((gone, [plan]))
        taken = base.clone()
        taken.pvs[name] = replace(taken.pvs[name], claim_ref=("default", "someone-else"), phase="Bound")
        out.append((taken, [plan]))
    claims = [c.key for c in plan.new_claims if c.key in base.pvcs]
    if claims:  # the same world, a pod's claim gone (or, for another pod, requesting more)
        missing = base.clone()
        del missing.pvcs[data.draw(st.sampled_from(claims))]
        out.append((missing, [plan]))
        larger = base.clone()
        key = data.draw(st.sampled_from(claims))
        larger.pvcs[key] = replace(larger.pvcs[key], request=larger.pvcs[key].request * 4)
        out.append((larger, [plan]))
    if base.storage_classes:
        name = sorted(base.storage_classes)[0]
        changed = base.clone()
        sc_ = changed.storage_classes[name]
        changed.storage_classes[name] = replace(sc_, provisioner="" if sc_.provisioner else "ebs.csi.aws.com")
        out.append((changed, [plan]))
    return data.draw(st.permutations(out))


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios(), st.data())
def test_shared_memo_builds_the_fresh_problem(sc: Scenario, data):
    memo = Memo()
    for cluster, plans in _variants(sc, data):
        _same(cluster, plans, memo)


def test_a_memo_result_is_reused_only_in_its_world():
    """The memo's tables: one per world of PVs and StorageClasses; the same cluster again finds
    its table, another world gets its own."""
    from hypothesis import find

    sc = find(scenarios(kinds=("StatefulSet",)), lambda s: bool(s.snapshot.pvs))
    plan = plan_workload(sc.snapshot, sc.ref, sc.replicas)
    base = cluster_after_plans(sc.snapshot, [plan])
    memo = Memo()
    build_problem(base, [plan], memo=memo)
    assert len(memo.worlds) == 1
    build_problem(base.clone(), [plan], memo=memo)
    assert len(memo.worlds) == 1
    other = base.clone()
    del other.pvs[sorted(other.pvs)[0]]
    build_problem(other, [plan], memo=memo)
    assert len(memo.worlds) == 2


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios(), st.data())
def test_volume_verdicts_shared_by_pods_of_the_same_volumes(sc: Scenario, data):
    """The volume plugins' verdicts kept per pod volumes within a build (volume_verdicts'
    ``shared``): the pods of one ordinal planned from two templates (a remediation's template
    change, linked), some renamed, some not, give the problem of a build that runs the volume
    filters for every pod."""
    from planner.scheduler.plugins.volumebinding import problem as vb_problem

    snap = sc.snapshot
    plan = plan_workload(snap, sc.ref, sc.replicas)
    cluster = cluster_after_plans(snap, [plan])
    extra = data.draw(st.sampled_from(["tier", "release"]))
    renamed = data.draw(st.booleans())
    variant = replace(
        plan,
        new=[replace(p, name=f"{p.name}@x" if renamed else p.name, labels={**p.labels, extra: "b"}) for p in plan.new],
    )
    plans = [plan, variant]
    links = {1: 0}
    if not renamed:
        plans, links = [variant], {}
    shared, sctx = build_problem(cluster, plans, links=links, relax_order=True)
    real = vb_problem.volume_verdicts
    calls = []

    def alone(*args, **kwargs):
        calls.append(args[0].key)
        return real(*args[:7], **{k: v for k, v in kwargs.items() if k != "shared"})

    vb_problem.volume_verdicts = alone
    try:
        fresh, fctx = build_problem(cluster, plans, links=links, relax_order=True)
    finally:
        vb_problem.volume_verdicts = real
    assert shared == fresh
    assert sctx.node_class == fctx.node_class
    assert [[p.key for p in g] for g in sctx.group_pods] == [[p.key for p in g] for g in fctx.group_pods]
    assert len(calls) == sum(1 for pl in plans for p in pl.new if p.spec.volumes)


def _prebound_and_rwop(sc: Scenario, data) -> list:
    """The scenario's question, then with a static PV prebound (claimRef, Available) to one of the
    new claims, and with one new claim ReadWriteOncePod: a claim's name counts there."""
    snap = sc.snapshot
    plan = plan_workload(snap, sc.ref, sc.replicas)
    base = cluster_after_plans(snap, [plan])
    out = [(base, [plan])]
    new = sorted(c.key for c in plan.new_claims if c.key in base.pvcs)
    free = sorted(n for n, pv in base.pvs.items() if pv.claim_ref is None)
    if new and free:
        prebound = base.clone()
        ns, _, name = data.draw(st.sampled_from(new)).partition("/")
        pv = data.draw(st.sampled_from(free))
        prebound.pvs[pv] = replace(prebound.pvs[pv], claim_ref=(ns, name))
        out.append((prebound, [plan]))
    if new:
        rwop = base.clone()
        key = data.draw(st.sampled_from(new))
        rwop.pvcs[key] = replace(rwop.pvcs[key], access_modes=("ReadWriteOncePod",))
        out.append((rwop, [plan]))
    return out


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios(), st.data())
def test_claims_equal_but_for_their_names_share_their_verdicts(sc: Scenario, data):
    """volume_verdicts' shape memo (a StatefulSet's pods: claims equal but for their names) builds
    the problem each pod's own verdicts build, prebound PVs and ReadWriteOncePod claims included."""
    from planner.scheduler.plugins.volumebinding import problem as vb_problem

    for cluster, plans in _prebound_and_rwop(sc, data):
        shared, sctx = build_problem(cluster, plans)
        vb_problem.SHAPE_MEMO = False
        try:
            own, octx = build_problem(cluster, plans)
        finally:
            vb_problem.SHAPE_MEMO = True
        assert shared == own
        assert [[p.key for p in g] for g in sctx.group_pods] == [[p.key for p in g] for g in octx.group_pods]
