"""The rules decided from the snapshot and the filter plugins, without the solver or the replay:
selectors broader than the workload or its revision, spread already beyond maxSkew, required
anti-affinity with more replicas than domains, volumes that pin replicas into too few domains,
and running pods that could not come back if evicted (planner explain's question)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from planner.controllers.deployment import replicasets_of, resolve_fenceposts
from planner.controllers.statefulset import get_ordinal
from planner.domain import LABEL_ZONE, Deployment, LabelSelector, StatefulSet
from planner.engines.audit import selectors as sel
from planner.engines.audit.model import Context, Finding, Goal, Workload, claim_domains, node_admits, obj
from planner.engines.audit.rules import ERROR, NOTE, WARNING
from planner.engines.workloads import is_running
from planner.scheduler import runtime
from planner.scheduler.plugins.podtopologyspread import filtering as pts

# How findings cite the reported incident each hazard was seen in (the incidents themselves, and
# their public write-ups, are in the rules' help: planner.engines.audit.rules).
BLUE_GREEN = "as in a reported incident: blue/green StatefulSets on one shared spread selector"
INCIDENT = "as in a reported incident"


# --------------------------------------------------------------------------- selectors


def _terms(w: Workload):
    """(field, selector as written, effective selector, namespaces, kind) of every spread
    constraint and pod anti-affinity term that selects the workload's own pods."""
    labels = w.probe.labels
    ns = w.ref.namespace
    for i, c in enumerate(w.spread):
        eff = sel.spread_selector(c, labels)
        if eff is not None and eff.matches(labels):
            yield f"topologySpreadConstraints[{i}] ({c.topology_key}, {c.when_unsatisfiable})", c, eff, {ns}, False, "spread"
    a = w.affinity
    if a is None:
        return
    for i, t in enumerate(a.pod_anti_affinity_required):
        eff = sel.term_selector(t, labels)
        if eff is not None and eff.matches(labels):
            other_ns = t.namespace_selector is not None or bool(t.namespaces and set(t.namespaces) != {ns})
            yield f"podAntiAffinity.required[{i}] ({t.topology_key})", t, eff, set(t.namespaces or (ns,)), other_ns, "required"
    for i, wt in enumerate(a.pod_anti_affinity_preferred):
        t = wt.term
        eff = sel.term_selector(t, labels)
        if eff is not None and eff.matches(labels):
            other_ns = t.namespace_selector is not None or bool(t.namespaces and set(t.namespaces) != {ns})
            yield f"podAntiAffinity.preferred[{i}] ({t.topology_key})", t, eff, set(t.namespaces or (ns,)), other_ns, "preferred"


def _counted_workloads(ctx: Context, w: Workload, eff: LabelSelector, namespaces: set[str]) -> list[str]:
    """Other workloads whose pods the effective selector counts: the snapshot's selector-overlap
    graph, narrowed by matchLabelKeys (which the graph does not apply)."""
    snap = ctx.snap
    g = snap.selector_overlaps
    node = (w.ref.kind, w.ref.key)
    out = []
    if node in g:
        for kind, key in g.successors(node):
            other = (snap.deployments if kind == "Deployment" else snap.statefulsets).get(key)
            if other is not None and other.namespace in namespaces and eff.matches(other.template.labels):
                out.append(obj(kind, other.namespace, other.name))
    return sorted(out)


def _counted_pods(ctx: Context, w: Workload, eff: LabelSelector, namespaces: set[str]) -> list[str]:
    """Running pods the effective selector counts that are not the workload's own (the other
    release's pods, whether or not a workload object of theirs is in the input)."""
    own = {p.key for p in w.pods}
    out = []
    for ns in sorted(namespaces):
        for p in ctx.running_by_ns.get(ns, ()):
            if p.key not in own and eff.matches(p.labels):
                out.append(p.key)
    return sorted(out)


def _hard(c, kind: str) -> bool:
    """A term that refuses nodes: DoNotSchedule spread, required anti-affinity."""
    return kind == "required" or (kind == "spread" and c.when_unsatisfiable == "DoNotSchedule")


def selector_broader(ctx: Context, w: Workload) -> None:
    """Warning when the term refuses nodes and either counts something else now or the workload's
    volumes would make a placement decided while something else counts permanent (the blue/green
    incident); a note otherwise (the term only scores, or nothing else carries the labels now)."""
    own = w.obj.selector
    pinned = isinstance(w.obj, StatefulSet) and bool(w.obj.volume_claim_templates)
    for field, c, eff, namespaces, other_ns, kind in _terms(w):
        broader = not sel.implies(eff, own)
        if not broader and not other_ns:
            continue
        counted = _counted_workloads(ctx, w, eff, namespaces)
        pods = _counted_pods(ctx, w, eff, namespaces)
        missing = sel.missing_requirements(own, eff)
        keys = [m.split("=", 1)[0] for m in missing if "=" in m and m.split("=", 1)[0] in w.obj.template.labels]
        what = "its skew" if kind == "spread" else "the anti-affinity"
        now = ", ".join(counted) if counted else (f"{len(pods)} pod(s) of other workloads: {', '.join(pods[:3])}"
                                                   + (" ..." if len(pods) > 3 else "") if pods else "")
        msg = (
            f"{field} selects {eff}, which is broader than the workload's own selector {own}"
            + (" and reaches other namespaces" if other_ns else "")
            + f": pods of other workloads or releases with these labels count in {what}"
            + (f" (now: {now})" if now else "")
            + ". In a blue/green switch the new release's pods and WaitForFirstConsumer volumes go wherever the old "
            "release left room, and once it is gone the new release is unbalanced and a pod pinned by its volume may "
            f"never come back ({BLUE_GREEN})."
        )
        if missing:
            msg += f" Scope it to the workload: add {', '.join(missing)} to the selector"
            msg += f", or matchLabelKeys: [{', '.join(keys)}]." if keys else "."
        if not _hard(c, kind):
            severity = NOTE
            msg += " The term only scores nodes, so this is a note: it unbalances placements, it refuses none."
        elif counted or pods or pinned:
            severity = WARNING
        else:
            severity = NOTE
            msg += (" Nothing else carries these labels now and the workload has no volumes that would pin a placement, "
                    "so this is a note: it matters once another release with these labels runs alongside.")
        ctx.add(
            Finding(
                "selector-broader-than-workload",
                severity,
                [w.name, *counted],
                msg,
                {"field": field, "selector": str(eff), "workload_selector": str(own), "missing": missing, "counts": counted,
                 "counted_pods": len(pods)},
                goal=Goal(w.ref, replicas=w.obj.replicas),
            )
        )


def _revision_keys_vary(snap, dep: Deployment, keys: set[str]) -> bool:
    """Whether some key of ``keys`` takes different values across the Deployment's ReplicaSets
    (True when there is a single ReplicaSet: a label outside the selector is presumed to be bumped)."""
    rss = replicasets_of(snap, dep)
    if len(rss) < 2:
        return True
    return any(len({rs.template.labels.get(k) for rs in rss}) > 1 for k in keys)


def _rollout_blocked_by(deadlock: Finding | None, plugin: str) -> bool:
    """The replayed rollout sticks on ``plugin`` (InterPodAffinity, PodTopologySpread) for a pod the
    rollout made Pending (not one that was Pending before it started)."""
    if deadlock is None or not any(plugin in r for r in deadlock.details.get("reasons", [])):
        return False
    before = set(deadlock.details.get("pending_before_rollout", ()))
    return deadlock.details.get("in_progress") or any(p not in before for p in deadlock.details.get("stuck_pods", ()))


def counts_other_revisions(ctx: Context, w: Workload, deadlock: Finding | None) -> None:
    """One finding per Deployment, naming every selector that counts the old ReplicaSets' pods: a
    warning when the replayed rollout sticks on one of them (required anti-affinity:
    InterPodAffinity; DoNotSchedule spread: PodTopologySpread), a note otherwise."""
    o = w.obj
    if not isinstance(o, Deployment) or o.strategy_type != "RollingUpdate":
        return
    own_keys = sel.constrained_keys(o.selector)
    fields: list[tuple[str, str, str, str]] = []  # field, selector, kind, note
    blocking = False
    for field, c, eff, _nss, _other_ns, kind in _terms(w):
        if sel.counts_revision_hash(c.match_label_keys):
            continue
        extra = sel.positive_keys(eff) - own_keys
        if extra and _revision_keys_vary(ctx.snap, o, extra):
            continue
        if kind == "required" and not _rollout_blocked_by(deadlock, "InterPodAffinity"):
            continue  # a required anti-affinity counting old pods matters when it blocks the rollout: the replay says
        if kind == "required" or (_hard(c, kind) and _rollout_blocked_by(deadlock, "PodTopologySpread")):
            blocking = True
        note = f" (the label {', '.join(sorted(extra))} has the same value in every ReplicaSet)" if extra else ""
        fields.append((field, str(eff), kind, note))
    if not fields:
        return
    effects = []
    kinds = {k for _, _, k, _ in fields}
    if "spread" in kinds:
        effects.append("new pods are spread around old pods that are about to be deleted, and once those are gone the skew "
                       f"can exceed maxSkew ({INCIDENT}: 8/4/9 after a rolling update)")
    if "preferred" in kinds:
        effects.append(f"new pods avoid the domains of old pods that are about to go, which unbalances the zones ({INCIDENT})")
    if "required" in kinds:
        effects.append(f"the surge pod is refused wherever an old pod runs, which is why the rollout deadlocks ({INCIDENT})")
    what = "; ".join(f"{f} selects {s}{n}" for f, s, _, n in fields)
    msg = (
        f"{what}: the pods of every revision of the Deployment carry these labels, so during a rolling update the old "
        f"ReplicaSets' pods count: {'; '.join(effects)}. Add matchLabelKeys: [pod-template-hash] so that each revision "
        "counts only its own pods"
        + (" (an anti-affinity term counts from both sides: it helps from the rollout after the one that brings it in)."
           if "required" in kinds or "preferred" in kinds else ".")
    )
    if not blocking:
        msg += (" No rollout the audit replayed is held up by it, so this is a note: the cost is balance after a "
                "rollout, not availability.")
    ctx.add(
        Finding(
            "selector-counts-other-revisions",
            WARNING if blocking else NOTE,
            [w.name],
            msg,
            {"fields": [f for f, _, _, _ in fields], "selectors": [s for _, s, _, _ in fields]},
            goal=Goal(w.ref, rollout=True),
        )
    )


# --------------------------------------------------------------------------- spread


def _domain_state(ctx: Context, w: Workload, c) -> pts.ConstraintState:
    """What PodTopologySpread's PreFilter counts for the workload's next pod and one constraint,
    taken as DoNotSchedule (ScheduleAnyway constraints are counted the same way)."""
    forced = replace(c, when_unsatisfiable="DoNotSchedule")
    probe = w.probe
    probe = replace(probe, spec=replace(probe.spec, topology_spread_constraints=(forced,)))
    state, _ = pts.pre_filter(probe, ctx.cluster)
    assert isinstance(state, pts.PreFilterState)
    return state.constraints[0]


def spread_skew(ctx: Context, w: Workload) -> None:
    for i, c in enumerate(w.spread):
        if c.label_selector is None:
            continue
        st = _domain_state(ctx, w, c)
        if not st.counts:
            continue
        top = max(st.counts.values())
        skew = top - st.global_min
        if skew <= c.max_skew:
            continue
        full = [d for d, n in sorted(st.counts.items()) if n == top]
        low = [d for d, n in sorted(st.counts.items()) if n + st.self_match - st.global_min <= c.max_skew]
        shown = ", ".join(f"{d}={n}" for d, n in sorted(st.counts.items())[:12]) + (" ..." if len(st.counts) > 12 else "")
        if c.when_unsatisfiable == "DoNotSchedule":
            then = (f"DoNotSchedule only guards each placement: new pods may now only go to {_few(low)}, and wait for room "
                    "there if it is full")
        else:
            then = "ScheduleAnyway only scores nodes: nothing brings the skew back, and no pod is refused for it (a note)"
        msg = (
            f"topologySpreadConstraints[{i}] ({c.topology_key}, {c.when_unsatisfiable}) counts {st.selector}: {shown}; "
            f"skew {skew} > maxSkew {c.max_skew} already ({_few(full)} at {top}, minimum {st.global_min}). {then} "
            f"({INCIDENT}: fast scaling with autoscaled nodes)."
        )
        details = {
            "field": f"topologySpreadConstraints[{i}]",
            "topologyKey": c.topology_key,
            "whenUnsatisfiable": c.when_unsatisfiable,
            "skew": skew,
            "maxSkew": c.max_skew,
            "global_min": st.global_min,
            "most": full[:20],
        }
        if len(st.counts) <= 20:
            details["counts"] = dict(sorted(st.counts.items()))
        # the fix's goal: the replicas asked for when some wait, else one more (where the next pod may go)
        waiting = any(not p.spec.node_name and not p.terminal for p in w.pods)
        goal = Goal(w.ref, replicas=w.obj.replicas if waiting else w.obj.replicas + 1)
        severity = WARNING if c.when_unsatisfiable == "DoNotSchedule" else NOTE
        ctx.add(Finding("spread-skew-exceeded", severity, [w.name], msg, details, goal=goal))


def _few(items: list[str], n: int = 4) -> str:
    if not items:
        return "no domain"
    return ", ".join(items[:n]) + (f" (+{len(items) - n})" if len(items) > n else "")


# --------------------------------------------------------------------------- anti-affinity


def anti_affinity_domains(ctx: Context, w: Workload) -> None:
    a = w.affinity
    if a is None:
        return
    labels = w.probe.labels
    admitted = [n for n in ctx.snap.nodes.values() if node_admits(w.probe, n)]
    hpa = ctx.snap.hpa_for(w.ref.kind, w.ref.namespace, w.ref.name)
    for i, t in enumerate(a.pod_anti_affinity_required):
        eff = sel.term_selector(t, labels)
        if eff is None or not eff.matches(labels):
            continue
        domains = sorted({n.labels[t.topology_key] for n in admitted if t.topology_key in n.labels})
        replicas = w.obj.replicas
        hpa_max = hpa.max_replicas if hpa is not None else None
        if replicas > len(domains):
            severity, wanted, who = ERROR, replicas, f"spec.replicas {replicas}"
        elif hpa_max is not None and hpa_max > len(domains):
            severity, wanted, who = WARNING, hpa_max, f"the HorizontalPodAutoscaler {hpa.key}'s maxReplicas {hpa_max}"  # type: ignore[union-attr]
        else:
            continue
        msg = (
            f"podAntiAffinity.required[{i}] allows one pod of {eff} per {t.topology_key} domain, and the nodes the pod "
            f"may use span {len(domains)} ({_few(domains)}): {who} leaves {wanted - len(domains)} pod(s) Pending for good "
            f"({INCIDENT}). A topology spread constraint on {t.topology_key} (maxSkew 1, DoNotSchedule, "
            "matchLabelKeys: [pod-template-hash]) spreads as evenly without the limit."
        )
        objects = [w.name] + ([f"horizontalpodautoscaler/{hpa.key}"] if severity == WARNING and hpa is not None else [])
        ctx.add(
            Finding(
                "anti-affinity-replicas-exceed-domains",
                severity,
                objects,
                msg,
                {"field": f"podAntiAffinity.required[{i}]", "topologyKey": t.topology_key, "replicas": wanted, "domains": len(domains),
                 "domain_values": domains[:20]},
                goal=Goal(w.ref, replicas=wanted),
            )
        )


# --------------------------------------------------------------------------- volumes


def volumes_concentrated(ctx: Context, w: Workload) -> None:
    o = w.obj
    if not isinstance(o, StatefulSet) or not o.volume_claim_templates or o.replicas < 2:
        return
    snap = ctx.snap
    by_ordinal = {get_ordinal(o, p): p for p in w.pods}
    for i, c in enumerate(w.spread):
        if c.when_unsatisfiable != "DoNotSchedule" or c.label_selector is None:
            continue
        key = c.topology_key
        st = _domain_state(ctx, w, c)
        eligible = set(st.counts)
        if len(eligible) < 2:
            continue
        fixed: dict[str, int] = dict.fromkeys(eligible, 0)
        pinned: dict[str, list[str]] = {}
        # only the ordinals with a pod or a claim can be pinned or placed; every other one is free
        # (counted, not walked: spec.replicas may be in the billions)
        known = _known_ordinals(snap, o, by_ordinal)
        free = o.replicas - len(known)
        for ordinal in known:
            pod = by_ordinal.get(ordinal)
            domain = None
            claims = [f"{o.namespace}/{o.claim_name(t, ordinal)}" for t in o.volume_claim_templates]
            allowed: set[str] | None = None
            pinning = []
            for ck in claims:
                d = claim_domains(snap, ck, key)
                if d is not None:
                    allowed = d if allowed is None else allowed & d
                    pinning.append(ck)
            if allowed is not None and len(allowed) == 1:
                domain = next(iter(allowed))
                pinned.setdefault(domain, []).extend(pinning)
            elif pod is not None and is_running(pod) and pod.spec.node_name in snap.nodes:
                domain = snap.nodes[pod.spec.node_name].labels.get(key)
            if domain is None:
                free += 1
            elif domain in fixed:
                fixed[domain] += 1
        if not pinned:
            continue
        final = _water_fill(fixed, free)
        gmin = 0 if len(final) < (c.min_domains or 1) else min(final.values())
        top_domain = max(sorted(final), key=lambda d: (len(pinned.get(d, [])), final[d]))
        skew = max(final.values()) - gmin
        if skew <= c.max_skew:
            continue
        crowded = max(final, key=lambda d: (final[d], len(pinned.get(d, []))))
        if crowded in pinned:
            top_domain = crowded
        shown = ", ".join(f"{d}={n}" for d, n in sorted(final.items()))
        where = "; ".join(f"{d}: {', '.join(k.split('/', 1)[1] for k in v)}" for d, v in sorted(pinned.items()))
        msg = (
            f"The bound volumes of {o.name}'s replicas pin them ({where}): with all {o.replicas} replicas running, "
            f"topologySpreadConstraints[{i}] ({key}) would count {shown} of the workload's own pods, skew {skew} > "
            f"maxSkew {c.max_skew}. A replica of {top_domain} that is evicted, drained or rolled cannot come back while the "
            f"others run ({BLUE_GREEN}: both green volumes ended up in one zone while blue still counted)."
        )
        details = {"field": f"topologySpreadConstraints[{i}]", "topologyKey": key, "domain": top_domain, "skew": skew,
                   "maxSkew": c.max_skew, "counts": dict(sorted(final.items())),
                   "pinned": {d: [k.split("/", 1)[1] for k in v] for d, v in sorted(pinned.items())}}
        if key == LABEL_ZONE:
            details["zone"] = top_domain
        claim_objs = [obj("PersistentVolumeClaim", o.namespace, k.split("/", 1)[1]) for k in pinned.get(top_domain, [])]
        ctx.add(Finding("volumes-concentrated-in-one-domain", ERROR, [w.name, *claim_objs], msg, details,
                        goal=Goal(w.ref, replicas=o.replicas)))
        return


def _known_ordinals(snap: Any, o: StatefulSet, by_ordinal: dict[int, Any]) -> list[int]:
    """The StatefulSet's ordinals (in start..start+replicas-1) that have a pod or a claim of one of
    its volumeClaimTemplates (``<template>-<statefulset>-<ordinal>``), ascending."""
    lo, hi = o.ordinals_start, o.ordinals_start + o.replicas
    out = {k for k in by_ordinal if lo <= k < hi}
    prefixes = [f"{o.namespace}/{t.name}-{o.name}-" for t in o.volume_claim_templates]
    for key in snap.pvcs:
        for pre in prefixes:
            if key.startswith(pre):
                tail = key[len(pre):]
                if tail.isascii() and tail.isdigit() and (tail == "0" or tail[0] != "0") and lo <= int(tail) < hi:
                    out.add(int(tail))
    return sorted(out)


def _water_fill(fixed: dict[str, int], free: int) -> dict[str, int]:
    """Place ``free`` pods one at a time in the emptiest domain, ties to the first by name (the
    best the spread allows), in closed form: every domain is raised to the highest level L that
    ``free`` pods can fill, then the first domains by name at level L get one more each."""
    if not fixed or free <= 0:
        return dict(fixed)

    def need(level: int) -> int:
        return sum(max(0, level - n) for n in fixed.values())

    lo, hi = min(fixed.values()), min(fixed.values()) + free  # need(lo) == 0 <= free < need(hi + 1)
    while lo < hi:  # the highest level with need(level) <= free
        mid = (lo + hi + 1) // 2
        if need(mid) <= free:
            lo = mid
        else:
            hi = mid - 1
    out = {d: max(n, lo) for d, n in fixed.items()}
    rest = free - need(lo)
    for d in sorted(out):
        if rest == 0:
            break
        if out[d] == lo:
            out[d] += 1
            rest -= 1
    return out


# --------------------------------------------------------------------------- eviction


def pod_cannot_return(ctx: Context, w: Workload) -> None:
    """Every running pod with a pinned volume and a hard spread or (anti-)affinity, taken out of the
    cluster and evaluated by every filter, as planner explain does for a running pod."""
    if not w.hard_constraints():
        return
    from planner.engines.explain import explain

    cluster = ctx.cluster
    snap = ctx.snap
    for pod in w.running:
        claims = []
        for v in pod.spec.volumes:
            pvc = snap.pvcs.get(f"{pod.namespace}/{v.claim_name}")
            pv = snap.pvs.get(pvc.volume_name) if pvc is not None and pvc.volume_name else None
            if pv is not None and pv.node_affinity is not None:
                claims.append(pvc.key)  # type: ignore[union-attr]
        node = pod.spec.node_name
        if not claims or node not in cluster.by_name:
            continue
        cluster.remove_pod(pod)
        try:
            probe = replace(pod, spec=replace(pod.spec, node_name=""), phase="Pending")
            ev = runtime.evaluate(probe, cluster)
        finally:
            cluster.add_pod(pod)
        if ev.schedulable:
            continue
        detail = explain(snap, pod)
        why = []
        for n in detail["nodes"]:
            if n["name"] == node:
                why = [f"{f['plugin']}: {f['reason']}" + (f" [{f['detail']}]" if f.get("detail") else "") for f in n["failures"]]
        why_text = f" (on {node}: {'; '.join(why)})" if why else ""
        msg = (
            f"{pod.namespace}/{pod.name} runs on {node}; its volume ({', '.join(k.split('/', 1)[1] for k in claims)}) pins it "
            f"there, and if it were evicted it could not be scheduled again: {ev.summary()}"
            + why_text
            + f". A spot interruption, a drain or a node failure leaves it Pending for good ({BLUE_GREEN})."
        )
        ctx.add(
            Finding(
                "pod-cannot-return-after-eviction",
                ERROR,
                [w.name, obj("Pod", pod.namespace, pod.name), *(obj("PersistentVolumeClaim", *k.split("/", 1)) for k in claims)],
                msg,
                {"pod": pod.key, "node": node, "summary": ev.summary(), "claims": [k.split("/", 1)[1] for k in claims]},
                goal=Goal(w.ref, replicas=w.obj.replicas, without_pod=pod.key),
            )
        )


def rollout_fenceposts(dep: Deployment) -> tuple[int, int]:
    ru = dep.rolling_update
    if ru is None:
        return 0, 0
    return resolve_fenceposts(ru.max_surge, ru.max_unavailable, dep.replicas)
