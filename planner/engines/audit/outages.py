"""``pods-pending``: the outage under way.  Every pod that is Pending now and bound to no node,
grouped by the workload that owns it, with kube-scheduler's reason as planner explain gives it
(planner.engines.explain: every filter plugin on every node, and DefaultPreemption's answer).

Pods of one owner with the same spec and labels get the same answer from the filters (the pod's
name plays no part in them), so each distinct (spec, labels) of a group is explained once.

Severity of a group: ``error`` when some pod fits no node, even by preemption; ``warning`` when
preemption would place every one of them (lower-priority pods are evicted for it).  A Pending pod
that passes every filter on some node now is no finding: the scheduler has not got to it yet (a
pod just created), or something the snapshot does not show holds it back (a scheduling gate, a
scheduler that does not run); the run's notes name such pods.
"""

from __future__ import annotations

from collections.abc import Callable

from planner.domain import Deployment, Pod, StatefulSet
from planner.engines.audit.model import Context, Finding, Goal, obj
from planner.engines.audit.rules import ERROR, WARNING
from planner.engines.workloads import WorkloadRef
from planner.errors import PlannerError

SHOWN = 10  # pods named in a finding's objects


def is_pending(p: Pod) -> bool:
    """Pending now and not bound: what kube-scheduler still has to place."""
    return p.phase == "Pending" and not p.spec.node_name and not p.terminating


def owner_of(ctx: Context, p: Pod) -> tuple[str, Deployment | StatefulSet | None]:
    """The object a Pending pod is grouped under (``kind/namespace/name``), and the Deployment or
    StatefulSet behind it when there is one (what a fix can change)."""
    snap = ctx.snap
    o = p.owner
    ns = p.namespace
    if o is None:
        return obj("Pod", ns, p.name), None
    if o.kind == "ReplicaSet":
        rs = snap.replicasets.get(f"{ns}/{o.name}")
        if rs is not None and rs.owner is not None and rs.owner.kind == "Deployment":
            return obj("Deployment", ns, rs.owner.name), snap.deployments.get(f"{ns}/{rs.owner.name}")
        return obj("ReplicaSet", ns, o.name), None
    if o.kind == "StatefulSet":
        return obj("StatefulSet", ns, o.name), snap.statefulsets.get(f"{ns}/{o.name}")
    return obj(o.kind, ns, o.name), None


def _key(p: Pod) -> tuple[str, tuple]:
    return repr(p.spec), tuple(sorted(p.labels.items()))


def pending_pods(ctx: Context, in_scope: Callable[[str], bool]) -> None:
    snap = ctx.snap
    if not snap.nodes:
        return
    from planner.engines.explain import explain

    groups: dict[str, list[Pod]] = {}
    workload: dict[str, Deployment | StatefulSet | None] = {}
    for p in snap.pods.values():
        if is_pending(p) and in_scope(p.namespace):
            owner, w = owner_of(ctx, p)
            groups.setdefault(owner, []).append(p)
            workload[owner] = w
    for owner, pods in sorted(groups.items()):
        answers: dict[tuple, dict] = {}
        per_pod: list[tuple[Pod, dict]] = []
        for p in sorted(pods, key=lambda x: x.name):
            k = _key(p)
            if k not in answers:
                try:
                    answers[k] = explain(snap, p)
                except PlannerError as e:
                    ctx.notes.append(f"pod {p.key}: not explained: {'; '.join(e.messages)}")
                    continue
            per_pod.append((p, answers[k]))
        fits = [p.key for p, a in per_pod if a["schedulable"]]
        if fits:
            ctx.notes.append(f"{owner}: {len(fits)} Pending pod(s) pass every scheduler filter on some node now (not "
                             f"placed yet, or held back by something the snapshot does not show): {', '.join(fits[:5])}"
                             + (" ..." if len(fits) > 5 else ""))
        blocked = [(p, a) for p, a in per_pod if not a["schedulable"]]
        if blocked:
            ctx.add(_finding(owner, workload[owner], blocked))


def _finding(owner: str, w: Deployment | StatefulSet | None, per_pod: list[tuple[Pod, dict]]) -> Finding:
    """The finding for the pods of one owner that no node accepts."""
    preempt = [(p, a) for p, a in per_pod if (a.get("preemption") or {}).get("helps")]
    severity = WARNING if len(preempt) == len(per_pod) else ERROR
    n = len(per_pod)
    names = ", ".join(p.key for p, _ in per_pod[:3]) + (f" (+{n - 3})" if n > 3 else "")
    # one entry per distinct answer, in the order the pods come
    reasons: dict[str, list[str]] = {}
    for p, a in per_pod:
        reasons.setdefault(a["summary"], []).append(p.key)
    what = "; ".join(
        (f"{len(keys)} pod(s): " if len(reasons) > 1 else "") + summary.rstrip(".")
        for summary, keys in reasons.items()
    )
    msg = f"{n} pod(s) Pending now ({names}), no node accepts {'it' if n == 1 else 'them'}: {what}."
    if preempt:
        nodes = sorted({a["preemption"]["node"] for _, a in preempt if a["preemption"].get("node")})
        msg += (f" Preemption would place {'it' if n == 1 else f'{len(preempt)} of them'} (lower-priority pods evicted"
                + (f" on {', '.join(nodes[:3])}" if nodes else "") + ").")
    ns, name = per_pod[0][0].key.split("/", 1)
    msg += f" Every node's reasons: planner explain -n {ns} --pod {name}."
    answer_of = {p.key: a for p, a in per_pod}
    details = {
        "pending": n,
        "pods": [p.key for p, _ in per_pod],
        "reasons": [
            {"summary": summary, "pods": len(keys), "example": keys[0],
             "preemption_helps": bool((answer_of[keys[0]].get("preemption") or {}).get("helps"))}
            for summary, keys in reasons.items()
        ],
    }
    goal = None
    if w is not None:
        kind = "StatefulSet" if isinstance(w, StatefulSet) else "Deployment"
        goal = Goal(WorkloadRef(kind, w.namespace, w.name), replicas=w.replicas)
    objects = [owner, *(obj("Pod", p.namespace, p.name) for p, _ in per_pod[:SHOWN] if obj("Pod", p.namespace, p.name) != owner)]
    return Finding("pods-pending", severity, objects, msg, details, goal=goal)

