"""The rules that need the solver or the replay: HPA counts blocked by retained claims (planner
check over the HPA's range), a rollout that never completes (the replay, after a pre-check that
clears the rollouts that cannot stick), and a zone loss that leaves a
workload below its PodDisruptionBudget (both replayed by planner simulate on a copy)."""

from __future__ import annotations

from planner.controllers.controller_utils import is_pod_ready
from planner.controllers.disruption import disruption_status, pods_for_pdb
from planner.controllers.statefulset import get_ordinal
from planner.domain import Deployment, StatefulSet, selector_matches
from planner.engines.audit.model import Context, Finding, Goal, Workload, obj, obj_from_text
from planner.engines.audit.rules import ERROR, WARNING
from planner.engines.audit.static import INCIDENT, rollout_fenceposts
from planner.engines.workloads import is_running
from planner.errors import PlannerError
from planner.snapshot import Snapshot

MAX_HPA_COUNTS = 50  # counts of an HPA range checked (the lowest ones)


# --------------------------------------------------------------------------- HPA range


def retained_claims(ctx: Context, w: Workload) -> None:
    o = w.obj
    if not isinstance(o, StatefulSet) or not o.volume_claim_templates:
        return
    hpa = ctx.snap.hpa_for(w.ref.kind, w.ref.namespace, w.ref.name)
    if hpa is None or hpa.max_replicas < hpa.min_replicas:
        return
    from planner.engines.check import check_replicas

    lo, hi = hpa.min_replicas, min(hpa.max_replicas, hpa.min_replicas + MAX_HPA_COUNTS - 1)
    if hi < hpa.max_replicas:
        ctx.notes.append(f"{w.name}: HPA range {lo}..{hpa.max_replicas} checked up to {hi}")
    # Two starting points: the cluster as it is, and the cluster after the HPA scaled down to its
    # minimum (the pods above it deleted, their claims retained when whenScaled is Retain), from
    # which every larger count recreates the pods with the claims they left behind.
    starts: list[tuple[str, Snapshot]] = [("now", ctx.snap)]
    if o.retention_when_scaled == "Retain":
        scaled = _scaled_down(ctx, w, lo)
        if scaled is not None:
            starts.append((f"after a scale-down to {lo}", scaled))
    failing: dict[int, tuple[str, list[dict]]] = {}
    works: dict[str, list[int]] = {}
    for label, snap in starts:
        for n in range(lo, hi + 1):
            if n in failing:
                continue
            try:
                out = check_replicas(snap, [w.ref], n, ctx.opts)
            except PlannerError as err:  # no answer (UnknownResult), or more pods than planner plans at once
                ctx.notes.append(f"{w.name}: {n} replicas ({label}): {err}")
                continue
            if out.schedulable:
                works.setdefault(label, []).append(n)
            elif any(e["constraint"] == "VolumeBinding" for e in out.explanation):
                failing[n] = (label, out.explanation)
    if not failing:
        return
    counts = sorted(failing)
    label, first = failing[counts[0]]
    why = "; ".join(_strip(e["message"]) for e in first if e["constraint"] != "replicas")
    ok = sorted(set(works.get(label, [])))
    non_monotonic = [n for n in counts if failing[n][0] == label and any(m > n for m in ok)]
    when = "" if label == "now" else f" {label} (the pods above it deleted, their claims retained: whenScaled Retain)"
    msg = (
        f"The HorizontalPodAutoscaler {hpa.key} scales {w.name} within {lo}..{hpa.max_replicas}; "
        f"{_counts(counts)} replica(s) cannot be scheduled{when} with the claims they keep: {why}."
    )
    if non_monotonic:
        bigger = min(m for m in ok if m > non_monotonic[0])
        msg += (f" {bigger} works, so scaling up through {_counts(non_monotonic)} leaves a pod Pending until the HPA asks for "
                f"more ({INCIDENT}: Pending for an hour).")
    else:
        msg += f" ({INCIDENT}.)"
    claims = []
    for n in counts:
        for e in failing[n][1]:
            if e["constraint"] == "VolumeBinding":
                claims += [x for x in (obj_from_text(t) for t in e["objects"]) if x and x.startswith("persistentvolumeclaim/")]
    ctx.add(
        Finding(
            "retained-claims-pin-ordinals",
            ERROR,
            [w.name, f"horizontalpodautoscaler/{hpa.key}", *dict.fromkeys(claims)],
            msg,
            {"range": [lo, hpa.max_replicas], "unschedulable_replicas": counts, "non_monotonic": non_monotonic,
             "from": {str(n): failing[n][0] for n in counts}, "explanation": [e["message"] for e in first]},
            goal=Goal(w.ref, replicas=counts[0], snapshot=dict(starts)[label] if label != "now" else None),
        )
    )


def _counts(ns: list[int]) -> str:
    return ", ".join(str(n) for n in ns)


def _strip(text: str) -> str:
    return text.rstrip(". ")


def _scaled_down(ctx: Context, w: Workload, k: int):
    """A copy of the snapshot where the StatefulSet's pods with ordinals at or above start+k are gone
    (the HPA scaled it to k); None when there are none."""
    o = w.obj
    assert isinstance(o, StatefulSet)
    gone = [p.key for p in w.pods if get_ordinal(o, p) >= o.ordinals_start + k]
    if not gone:
        return None
    snap = ctx.snap.copy()
    for key in gone:
        del snap.pods[key]
    return snap


# --------------------------------------------------------------------------- rollout


def rollout_in_progress(w: Workload) -> bool:
    """The snapshot is mid-rollout (planner.engines.workloads.rollout_under_way, the replay's rule)."""
    from planner.engines.workloads import rollout_under_way

    return rollout_under_way(w.snap, w.obj, w.pods)


def rollout_deadlock(ctx: Context, w: Workload) -> Finding | None:
    """Whether a rollout of ``w`` sticks, as planner simulate --rollout answers it: the replay on a
    copy of the snapshot, unless the pre-check (planner.engines.audit.precheck) proves that it
    cannot stick.  Paused Deployments and OnDelete StatefulSets are not rolled by their
    controller (a person resumes them or deletes the pods): skipped, with a note."""
    o = w.obj
    if isinstance(o, Deployment) and o.paused:
        ctx.notes.append(f"{w.name}: rollout not replayed: the Deployment is paused (nothing rolls until kubectl rollout resume)")
        return None
    if isinstance(o, StatefulSet) and o.update_strategy_type == "OnDelete":
        ctx.notes.append(f"{w.name}: rollout not replayed: updateStrategy OnDelete (nothing rolls until someone deletes the pods)")
        return None
    from planner.engines.audit.precheck import rollout_cannot_stick

    if rollout_cannot_stick(ctx, w) is not None:
        return None
    from planner.engines.replay import Simulator, Step

    in_progress = rollout_in_progress(w)
    try:
        sim = Simulator(ctx.focuser.focus([w.ref]), seed=0)
        res = sim.run([Step("rollout", {"ref": w.ref, "workload": str(w.ref), "image": None})], [w.ref])
    except PlannerError as e:
        ctx.notes.append(f"{w.name}: rollout replay failed: {'; '.join(e.messages)}")
        return None
    if res["completed"]:
        return None
    step0 = res["steps"][0]["pods"]
    pending0 = sorted(k for k, v in step0.items() if v["workload"] == w.name and v["phase"] != "Running" and not v["node"])
    final = res["final"]["pods"]
    mine = {k for k, v in final.items() if v["workload"] == w.name}
    stuck = [s for s in res["stuck"] if s["pod"] in mine]
    incomplete = w.name in res["incomplete"]
    reasons = [r for s in stuck[:1] for r in s["reasons"]]
    summary = reasons[0] if reasons else None
    strategy = ""
    if isinstance(o, Deployment) and o.strategy_type == "RollingUpdate":
        surge, unavailable = rollout_fenceposts(o)
        strategy = f" (maxSurge {surge}, maxUnavailable {unavailable} of {o.replicas})"
        if unavailable == 0:
            strategy += ": the controller may not remove an old pod before a new one is available"
    where = "the rollout under way" if in_progress else "a rollout (kubectl rollout restart)"
    unready = sorted(k for k in mine if k in sim.snap.pods and final[k]["node"] and not is_pod_ready(sim.snap.pods[k]))
    if stuck:
        first = stuck[0]
        before = first["since_step"] == 0 and not in_progress
        what = (f"{first['pod']} is Pending before the rollout starts and stays Pending" if before
                else f"{first['pod']} stays Pending")
        what += f": {_strip(first['reasons'][0])}"
        if len(stuck) > 1:
            what += f" (and {len(stuck) - 1} more pod(s))"
    elif unready:
        what = (f"the workload never reaches its updated replicas: {', '.join(unready[:3])} "
                f"{'is' if len(unready) == 1 else 'are'} Running but not Ready, so the controller counts "
                f"{'it' if len(unready) == 1 else 'them'} as unavailable")
    else:
        what = "the workload never reaches its updated replicas"
    msg = (f"Replaying {where} of {w.name} pod by pod, as the controllers and kube-scheduler would (planner simulate "
           f"--rollout), it never completes{strategy}; {what} ({INCIDENT}: the rolling update that never ends).")
    f = Finding(
        "rollout-deadlock",
        ERROR,
        [w.name, *(obj("Pod", *s["pod"].split("/", 1)) for s in stuck[:5])],
        msg,
        {"stuck_pods": [s["pod"] for s in stuck], "reasons": reasons, "in_progress": in_progress,
         "summary": summary, "pending_before_rollout": pending0, "incomplete": incomplete, "unready_pods": unready},
        goal=Goal(w.ref, rollout=True),
    )
    ctx.add(f)
    return f


# --------------------------------------------------------------------------- zone loss


def zone_loss_pdb(ctx: Context, workloads: list[Workload]) -> None:
    """For every PodDisruptionBudget over an audited workload and every zone it has pods in: if the
    pods outside the zone alone are fewer than the budget needs, replay the zone's loss and count
    the healthy pods once the cluster has settled."""
    snap = ctx.snap
    if not snap.pdbs or len(snap.zones) < 2:
        return
    by_zone: dict[str, list[tuple]] = {}
    for pdb in sorted(snap.pdbs.values(), key=lambda b: b.key):
        owners = [w for w in workloads if w.ref.namespace == pdb.namespace and selector_matches(pdb.selector, w.probe.labels)]
        if not owners:
            continue
        st = disruption_status(snap, pdb.key)
        if st.error or st.desired_healthy <= 0:
            continue
        pods = [p for p in pods_for_pdb(snap, pdb) if is_running(p)]
        for zone in snap.zones:
            lost = [p for p in pods if p.spec.node_name in snap.nodes and snap.nodes[p.spec.node_name].zone == zone]
            if not lost or st.current_healthy - len(lost) >= st.desired_healthy:
                continue
            by_zone.setdefault(zone, []).append((pdb, owners, st, lost))
    if not by_zone:
        return
    from planner.engines.replay import Simulator, Step

    for zone, cases in sorted(by_zone.items()):
        try:
            refs = list(dict.fromkeys(w.ref for _, owners, _, _ in cases for w in owners))
            sim = Simulator(ctx.focuser.focus(refs), seed=0)
            res = sim.run([Step("zone-down", {"zone": zone})], refs)
        except PlannerError as e:
            ctx.notes.append(f"zone {zone}: replay failed: {'; '.join(e.messages)}")
            continue
        for pdb, owners, st, lost in cases:
            after = disruption_status(sim.snap, pdb.key)
            if after.current_healthy >= st.desired_healthy:
                continue
            budget = f"minAvailable {pdb.min_available}" if pdb.min_available is not None else f"maxUnavailable {pdb.max_unavailable}"
            pending = res["stuck"] + res["pending_elsewhere"]
            stuck = [s for s in pending if selector_matches(pdb.selector, sim.snap.pods[s["pod"]].labels)
                     and sim.snap.pods[s["pod"]].namespace == pdb.namespace]
            why = f"; {stuck[0]['pod']} stays Pending: {_strip(stuck[0]['reasons'][0])}" if stuck else ""
            names = ", ".join(w.name for w in owners)
            msg = (
                f"Losing zone {zone} takes {len(lost)} of the {st.current_healthy} healthy pod(s) of {names}; once the "
                f"controllers and the scheduler have replaced what they can (replayed), {after.current_healthy} "
                f"{'is' if after.current_healthy == 1 else 'are'} healthy "
                f"where the PodDisruptionBudget {pdb.key} ({budget}) needs {st.desired_healthy}{why}. Until the zone returns "
                "every drain and node upgrade touching these pods is refused."
            )
            ctx.add(
                Finding(
                    "zone-loss-below-pdb",
                    WARNING,
                    [*(w.name for w in owners), obj("PodDisruptionBudget", pdb.namespace, pdb.name)],
                    msg,
                    {"zone": zone, "pdb": pdb.key, "lost": [p.key for p in lost], "healthy_after": after.current_healthy,
                     "desired_healthy": st.desired_healthy, "stuck_pods": [s["pod"] for s in stuck]},
                    goal=Goal(owners[0].ref, replicas=owners[0].obj.replicas, snapshot=sim.snap),
                )
            )
