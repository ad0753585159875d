"""A cheap, exact pre-check that proves a rollout cannot stick, so that the audit replays (planner
simulate's replay of ``--rollout``) only the workloads it cannot clear.

The pre-check answers "cannot stick" or "don't know"; never "stuck".  It answers "cannot stick"
only when every condition below holds, and then the replay completes
(tests/engines/test_audit_rollout.py holds it to the replay on random clusters):

1. Nothing but room decides where a new pod may go.  The template has no DoNotSchedule spread
   constraint, no required pod affinity or anti-affinity, no PersistentVolumeClaim (or
   StatefulSet volumeClaimTemplates), no host port, no nodeName, and uses the default scheduler;
   no running pod's required anti-affinity matches the template's labels.  The filters left
   (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeDeclaredFeatures: the node
   alone; NodeResourcesFit: the node's free room) judge each node on its own.
2. The workload is settled: no rollout is under way, exactly spec.replicas pods, each bound,
   Running and Ready, no minReadySeconds; every pod requests what the new template requests.
3. Every node that runs one of its pods passes the node-alone filters for the new pod and is not
   overcommitted for what the pod requests (each requested resource and the pod count within
   allocatable).
4. No other pod waits for a node (unbound, not finished, not being deleted): kube-scheduler
   retries a Pending pod when a pod is deleted (the cluster event requeues it), so it could take
   the room an old pod frees before the new pod does.

Then a new pod is interchangeable with an old one: deleting an old pod gives its node room for
exactly one more new pod, and placing a new pod takes one.  Counting the new pods that would
fit ("free slots", F, summed over the nodes), a stable state with a new pod Pending has no free
slot, and:

* a Deployment's RollingUpdate with maxSurge s and maxUnavailable u: every old pod deleted
  added a slot, every new pod placed took one, so the new pods placed are F + (old pods
  deleted).  The controller may delete an old pod while the available pods exceed replicas - u;
  with none to delete, old + placed <= replicas - u, i.e. F + replicas <= replicas - u, so F + u
  <= 0.  A rollout can therefore stick only when u = 0 and F = 0: it cannot stick when
  **maxUnavailable >= 1, or when one new pod fits now** (the surge pod has room);
* Recreate, and a StatefulSet's RollingUpdate (any maxUnavailable, OrderedReady or Parallel):
  a pod is deleted before its replacement is created, so the Pending replacements never
  outnumber the slots their deletions freed: **it cannot stick**.

Anything else (a hard constraint, volumes, an unsettled workload, a tainted or overcommitted
node, maxUnavailable 0 with no room for the surge pod) is left to the replay.
"""

from __future__ import annotations

from planner.controllers.controller_utils import is_pod_ready
from planner.controllers.deployment import max_unavailable
from planner.domain import PODS, Deployment, Pod, StatefulSet
from planner.engines.audit.focus import _repels
from planner.engines.audit.model import Context, Workload
from planner.scheduler.framework import SKIP, NodeInfo
from planner.scheduler.plugins.nodeaffinity import filtering as nodeaffinity
from planner.scheduler.plugins.nodedeclaredfeatures import filtering as nodedeclaredfeatures
from planner.scheduler.plugins.nodename import filtering as nodename
from planner.scheduler.plugins.noderesources import fit
from planner.scheduler.plugins.nodeunschedulable import filtering as nodeunschedulable
from planner.scheduler.plugins.tainttoleration import filtering as tainttoleration

# the filters that judge a node alone (no other pod counts), in the profile's order
NODE_ALONE = (nodeunschedulable, nodename, tainttoleration, nodeaffinity, nodedeclaredfeatures)


def _only_room_decides(ctx: Context, w: Workload, probe: Pod) -> bool:
    spec = probe.spec
    if w.hard_constraints() or spec.host_ports or spec.node_name or spec.scheduler_name != "default-scheduler":
        return False
    if any(v.claim_name for v in spec.volumes):
        return False
    if isinstance(w.obj, StatefulSet) and w.obj.volume_claim_templates:
        return False
    labels, ns = probe.labels, probe.namespace
    return not any(_repels(p, labels, ns) for p in ctx.focuser.anti)


def _settled(w: Workload, probe: Pod) -> bool:
    from planner.engines.audit.dynamic import rollout_in_progress

    o = w.obj
    if o.min_ready_seconds or rollout_in_progress(w):
        return False
    pods = [p for p in w.pods if not p.terminal]
    if len(pods) != o.replicas:
        return False
    return all(
        p.spec.node_name in w.snap.nodes and p.phase == "Running" and not p.terminating and is_pod_ready(p)
        and p.spec.requests == probe.spec.requests
        for p in pods
    )


def _others_wait(w: Workload) -> bool:
    """Condition 4: a pod of the snapshot other than the workload's waits for a node."""
    mine = {p.key for p in w.pods}
    return any(not p.spec.node_name and not p.terminal and not p.terminating and p.key not in mine for p in w.snap.pods.values())


def _not_overcommitted(ni: NodeInfo, probe: Pod) -> bool:
    alloc = ni.node.allocatable
    if len(ni.pods) > alloc.get(PODS, 0):
        return False
    return all(ni.requested.get(r, 0) <= alloc.get(r, 0) for r, q in probe.spec.requests.items() if q > 0)


def rollout_cannot_stick(ctx: Context, w: Workload) -> str | None:
    """Why a rollout of ``w`` cannot stick (see the module's proof), or None when the pre-check
    cannot tell and the rollout must be replayed."""
    o = w.obj
    if isinstance(o, Deployment):
        if o.strategy_type not in ("RollingUpdate", "Recreate"):
            return None
    elif o.update_strategy_type != "RollingUpdate":
        return None
    probe = w.probe
    if not _only_room_decides(ctx, w, probe) or not _settled(w, probe) or _others_wait(w):
        return None
    cluster = ctx.cluster
    states = []
    for mod in NODE_ALONE:
        state, status = mod.pre_filter(probe, cluster)
        if status is not None:
            return None
        if state is not SKIP:
            states.append((mod.filter, state))

    def admits(ni: NodeInfo) -> bool:
        return all(flt(state, probe, ni) is None for flt, state in states)

    for name in {p.spec.node_name for p in w.pods}:
        ni = cluster.by_name.get(name)
        if ni is None or not admits(ni) or not _not_overcommitted(ni, probe):
            return None
    if isinstance(o, StatefulSet):
        return "StatefulSet RollingUpdate: each pod is deleted before its replacement, on nodes with room for it"
    if o.strategy_type == "Recreate":
        return "Recreate: every old pod is deleted before the new ones, on nodes with room for them"
    if o.replicas == 0:
        return "no replicas to replace"
    unavailable = max_unavailable(o)
    if unavailable >= 1:
        return f"RollingUpdate with maxUnavailable {unavailable}: an old pod may always leave and free room for a new one"
    fit_state, status = fit.pre_filter(probe, cluster)
    if status is None:
        for ni in cluster.node_infos:
            if admits(ni) and fit.filter(fit_state, probe, ni) is None:
                return f"RollingUpdate with maxUnavailable 0: the surge pod fits on {ni.name}, and every old pod that leaves frees room"
    return None
