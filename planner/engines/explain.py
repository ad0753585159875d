"""What explain answers: every filter plugin on every node for one pod, as kube-scheduler sees it,
with what the spread constraints counted and each volume's chain (PVC -> PV -> topology); with
``scores``, the score phase on the nodes that pass every filter (planner.scheduler.scoring, the
run the replay picks its node with): each score plugin's normalised score and weight per node and
the weighted total, the nodes ranked by it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.domain import Pod
from planner.engines.workloads import base_cluster
from planner.scheduler import runtime
from planner.scheduler.framework import ClusterState
from planner.scheduler.plugins.schedulinggates import preenqueue as schedulinggates
from planner.scheduler.registry import DEFAULT_PROFILE, Profile
from planner.snapshot import Snapshot

MIN_FEASIBLE_NODES_TO_FIND = 100  # schedule_one.go minFeasibleNodesToFind (planner.engines.replay)


def explain(
    snap: Snapshot,
    target: Pod,
    notes: list[str] | None = None,
    *,
    scores: bool = False,
    profile: Profile | None = None,
    per_node: bool = True,
) -> dict:
    """The explanation of ``target`` against ``snap`` (the pod itself is taken out of the cluster).

    ``scores``: every node that passes the filters gets ``scores`` (per score plugin that ran, in
    profile order: ``{"plugin", "score", "weight"}``, the score normalised to 0..100 before the
    weight) and ``total_score`` (sum of score * weight: RunScorePlugins + prioritizeNodes); a
    plugin whose PreScore returned Skip is left out of every node's ``scores`` (it adds nothing, as
    in scoring.score_nodes) and named in ``skipped_score_plugins``; ``nodes`` is then sorted by
    ``total_score``, highest first, ties in the snapshot's node order, and the nodes that fail a
    filter follow in that order without scores.  Without feasible nodes nothing is scored.

    ``profile``: the scheduling profile (--scheduler-config; the default profile when None): its
    filters are run, and its score plugins and weights score.

    ``per_node``: False leaves out what is listed per node (``nodes``, ``spread``), for the
    explanation of many pods at once (explain_pending)."""
    notes = list(notes or [])
    cluster = base_cluster(snap).clone()
    existing = snap.pods.get(target.key)
    if existing is not None and existing.assigned and existing.spec.node_name in cluster.by_name:
        cluster.remove_pod(existing)
        notes.append(
            f"pod {target.key} runs on {existing.spec.node_name}; explained as if it were scheduled again "
            "(evicted and recreated with the same spec and volumes)"
        )
    if target.spec.node_name:
        target = _unbound(target)
    return _explain_on(snap, cluster, target, notes, scores, profile or DEFAULT_PROFILE, per_node)


def _explain_on(
    snap: Snapshot, cluster: ClusterState, target: Pod, notes: list[str], scores: bool, prof: Profile, per_node: bool
) -> dict:
    ev = runtime.evaluate(target, cluster, prof.filters)
    nodes = []
    if per_node or scores:
        for res in ev.nodes:
            ni = cluster.by_name[res.name]
            nodes.append(
                {
                    "name": res.name,
                    "zone": ni.node.zone,
                    "feasible": res.feasible,
                    "failures": [
                        {"plugin": st.plugin, "reason": st.message, "detail": _detail(ev, st.plugin, target, ni)} for st in res.failures
                    ],
                }
            )
    out: dict[str, Any] = {
        "pod": target.key,
        "schedulable": ev.schedulable,
        "summary": ev.summary(),
        "reason": blocking_reason(ev),
        "reasons": reason_counts(ev),
        "feasible_nodes": ev.feasible_nodes,
        "prefilter": [{"plugin": st.plugin, "reason": st.message} for st in ev.prefilter_failures],
    }
    gated = schedulinggates.pre_enqueue(target)
    if gated is not None:
        # kube-scheduler does not take the pod into its queue: no filter runs for it, nothing is
        # preempted for it; the filters below say what happens once the gates are removed
        out.update(
            schedulable=False,
            summary=f"{gated.message} (once they are removed: {ev.summary()})",
            reason=gated.message,
            reasons=[{"plugin": gated.plugin, "reason": gated.message, "nodes": len(ev.nodes)}],
            gated={"plugin": gated.plugin, "reason": gated.message, "gates": list(target.spec.scheduling_gates)},
        )
        notes = [
            *notes,
            f"{target.key} has scheduling gates ({', '.join(target.spec.scheduling_gates)}): kube-scheduler leaves it out of its queue "
            f"(condition PodScheduled=False, reason {schedulinggates.REASON_SCHEDULING_GATED}) until the controller that set them removes them; "
            "the nodes below are as the filters would find them then",
        ]
    if per_node:
        out["nodes"] = nodes
        out["spread"] = _spread_details(ev, cluster)
    out["volumes"] = _volume_details(ev)
    out["notes"] = notes
    if not out["schedulable"]:
        out["preemption"] = _preemption(snap, target, cluster, ev, prof, gated is not None)
    if scores and ev.feasible_nodes:
        out["nodes"], out["skipped_score_plugins"] = _scored(target, cluster, ev.feasible_nodes, nodes, notes, prof)
    return out


SCHEDULABLE_REASON = "can be placed now"


def reason_counts(ev: runtime.Evaluation) -> list[dict]:
    """What blocks the pod, as kube-scheduler counts it for its FailedScheduling message
    (framework.FitError: each node's first failing filter; every reason of that status): per
    (plugin, reason), the nodes it rejects, most first.  A PreFilter rejection is every node's."""
    counts: dict[tuple[str, str], int] = {}
    if ev.prefilter_failures:
        st = ev.prefilter_failures[0]
        return [{"plugin": st.plugin, "reason": st.message, "nodes": len(ev.nodes)}]
    for n in ev.nodes:
        if n.failures:
            st = n.failures[0]
            for r in st.reasons:
                counts[(st.plugin, r)] = counts.get((st.plugin, r), 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][1], kv[0][0]))
    return [{"plugin": p, "reason": r, "nodes": n} for (p, r), n in ranked]


def blocking_reason(ev: runtime.Evaluation) -> str:
    """The reason that blocks the pod, without the node counts (pods blocked alike share it):
    the PreFilter's message, else the distinct reasons of the nodes' first failing filters,
    sorted; SCHEDULABLE_REASON when a node fits."""
    if ev.schedulable:
        return SCHEDULABLE_REASON
    if ev.prefilter_failures:
        return ev.prefilter_failures[0].message
    return "; ".join(sorted({r["reason"] for r in reason_counts(ev)})) or "no nodes"


def pending_pods(snap: Snapshot, namespace: str | None = None) -> list[Pod]:
    """The pods waiting for a node (``kubectl get pods --field-selector=status.phase=Pending``
    less the ones bound and starting): not bound, not terminal, not being deleted; of
    ``namespace`` (None: every namespace); by namespace and name."""
    out = [
        p
        for p in snap.pods.values()
        if not p.spec.node_name and not p.terminal and not p.terminating and (namespace is None or p.namespace == namespace)
    ]
    return sorted(out, key=lambda p: (p.namespace, p.name))


def explain_pending(
    snap: Snapshot, pods: list[Pod], profile_for: Callable[[Pod], Profile] | None = None
) -> list[dict]:
    """explain(..., per_node=False) for each of ``pods`` (pods waiting for a node: none of them
    is in the scheduler's cache), on one copy of the cluster.  Pods that differ only in name
    (a ReplicaSet's) are evaluated once: the filters and DefaultPreemption read a pod's namespace,
    labels, spec and nominated node, never its name."""
    from planner import progress

    cluster = base_cluster(snap).clone()
    done: dict[tuple, dict] = {}
    out = []
    with progress.task("explaining Pending pods", total=len(pods), unit="pods") as explaining:
        for p in pods:
            prof = profile_for(p) if profile_for is not None else DEFAULT_PROFILE
            key = (prof.scheduler_name, p.namespace, repr(sorted(p.labels.items())), repr(p.spec), p.nominated_node_name)
            r = done.get(key)
            if r is None:
                r = done[key] = _explain_on(snap, cluster, p, [], False, prof, False)
            out.append({**r, "pod": p.key, "notes": list(r["notes"])})
            explaining.advance()
    return out


def _preemption(
    snap: Snapshot, pod: Pod, cluster: ClusterState, ev: runtime.Evaluation, profile: Profile = DEFAULT_PROFILE, gated: bool = False
) -> dict:
    """DefaultPreemption's PostFilter for the pod (planner/scheduler/plugins/defaultpreemption):
    whether preemption would help, the node kube-scheduler would nominate and its victims (the
    dry run from offset 0: upstream starts at a random node, so among equally good nodes the
    one named can differ).  A ``gated`` pod never reaches the PostFilter: nothing is preempted."""
    from planner.controllers.disruption import preemption_pdbs
    from planner.scheduler.plugins.defaultpreemption import preemption

    if gated:
        res = preemption.PostFilterResult(
            None, message="a pod waiting for its scheduling gates is not scheduled, nor anything preempted for it", eligible=False
        )
    else:
        statuses = {n.name: n.failures[0] for n in ev.nodes if n.failures}
        plugins = None if profile.filters == DEFAULT_PROFILE.filters else profile.filters
        res = preemption.post_filter(pod, cluster, statuses, preemption_pdbs(snap), 0, plugins)
    return {
        "priority": pod.spec.priority,
        "priority_class": pod.spec.priority_class_name,
        "preemption_policy": pod.spec.preemption_policy or "PreemptLowerPriority",
        "eligible": res.eligible,
        "helps": res.node is not None,
        "node": res.node,
        "victims": [{"pod": v.key, "priority": v.spec.priority} for v in res.victims],
        "pdb_violations": res.num_pdb_violations,
        "message": res.message,
    }


def _scored(
    pod: Pod, cluster: ClusterState, feasible: list[str], nodes: list[dict], notes: list[str], profile: Profile
) -> tuple[list[dict], list[str]]:
    """``nodes`` with the feasible ones scored (scoring.score_breakdown: the replay's score phase)
    and ranked by total, highest first (a stable sort: ties keep the snapshot's node order, the
    order selectHost meets them in); the plugins PreScore skipped."""
    from planner.scheduler import scoring

    breakdown = scoring.score_breakdown(pod, cluster, feasible, profile.scorers)
    skipped = [name for name, _w, s in breakdown if s is None]
    ran = [(name, w, s) for name, w, s in breakdown if s is not None]
    pos = {n: i for i, n in enumerate(feasible)}
    for n in nodes:
        i = pos.get(n["name"])
        if i is None:
            continue
        n["scores"] = [{"plugin": name, "score": s[i], "weight": w} for name, w, s in ran]
        n["total_score"] = sum(s[i] * w for _name, w, s in ran)
    ranked = sorted((n for n in nodes if "total_score" in n), key=lambda n: -n["total_score"])
    if len(feasible) == 1:
        notes.append(
            "only one node passes the filters: kube-scheduler binds it without scoring (schedule_one.go); "
            "the scores are what the score plugins would give it"
        )
    if len(feasible) > MIN_FEASIBLE_NODES_TO_FIND:
        notes.append(
            f"{len(feasible)} nodes pass the filters: kube-scheduler stops its search after numFeasibleNodesToFind "
            f"of them (at least {MIN_FEASIBLE_NODES_TO_FIND}; a share of the cluster that shrinks as it grows) and "
            "scores only those, so scores normalised over the nodes scored can differ; all are scored here"
        )
    return ranked + [n for n in nodes if "total_score" not in n], skipped


def _detail(ev: runtime.Evaluation, plugin: str, pod: Pod, ni: Any) -> str:
    """What the upstream reason leaves out, for people: the taint, the skew, the shortfall."""
    from planner.scheduler.plugins.noderesources import fit as noderesourcesfit
    from planner.scheduler.plugins.podtopologyspread import filtering as podtopologyspread
    from planner.scheduler.plugins.tainttoleration import filtering as tainttoleration

    state = ev.states.get(plugin)
    node = ni.node
    if plugin == tainttoleration.NAME and isinstance(state, tuple):
        t = tainttoleration.untolerated_taint(state, node)
        return f"taint {t.key}={t.value}:{t.effect}" if t is not None else ""
    if plugin == podtopologyspread.NAME and isinstance(state, podtopologyspread.PreFilterState):
        parts = []
        for c, skew in podtopologyspread.skew_if_placed(state, node):
            if skew is None:
                parts.append(f"node has no {c.topology_key} label")
            elif skew > c.max_skew:
                dom = node.labels.get(c.topology_key)
                parts.append(f"{c.topology_key}={dom}: {c.counts.get(dom or '', 0)} matching + {c.self_match} - min {c.global_min} = skew {skew} > maxSkew {c.max_skew}")
        return "; ".join(parts)
    if plugin == noderesourcesfit.NAME:
        parts = []
        for r, q in sorted(pod.spec.requests.items()):
            free = node.allocatable.get(r, 0) - ni.requested.get(r, 0)
            if q > 0 and q > free:
                parts.append(f"{r}: requests {_fmt(r, q)}, free {_fmt(r, free)}")
        if len(ni.pods) + 1 > node.allocatable.get("pods", 0):
            parts.append(f"pods: {len(ni.pods)} of {node.allocatable.get('pods', 0)}")
        return "; ".join(parts)
    return ""


def _fmt(resource: str, v: int) -> str:
    if resource == "cpu":
        return f"{v}m"
    if resource in ("memory", "ephemeral-storage") and abs(v) >= 1024**2:
        return f"{v / 1024**3:.1f}Gi" if abs(v) >= 1024**3 else f"{v // 1024**2}Mi"
    return str(v)


def _unbound(p: Pod) -> Pod:
    from dataclasses import replace

    return replace(p, spec=replace(p.spec, node_name=""), phase="Pending")


def _spread_details(ev: runtime.Evaluation, cluster: ClusterState) -> list[dict]:
    """What PodTopologySpread's PreFilter counted, per DoNotSchedule constraint."""
    from planner.scheduler.plugins.podtopologyspread import filtering as pts

    state = ev.states.get(pts.NAME)
    if not isinstance(state, pts.PreFilterState):
        return []
    out = []
    for c in state.constraints:
        skew = {}
        for ni in cluster.node_infos:
            k = c.skew_on(ni.node)
            skew[ni.name] = k
        out.append({**_constraint_counts(c), "skew": skew})
    return out


def spread_counts(pod: Pod, cluster: ClusterState, per_node: bool = False) -> list[dict]:
    """What PodTopologySpread's PreFilter counts for ``pod`` on ``cluster``, per DoNotSchedule
    constraint: explain's ``spread`` entries, with the per-node ``skew`` only when ``per_node``
    (the pictures' skew of a placement: the workload's pods placed in ``cluster``, one of its pods
    as ``pod``)."""
    from planner.scheduler.plugins.podtopologyspread import filtering as pts

    state, _ = pts.pre_filter(pod, cluster)
    if not isinstance(state, pts.PreFilterState):
        return []
    out = []
    for c in state.constraints:
        entry = _constraint_counts(c)
        if per_node:
            entry["skew"] = {ni.name: c.skew_on(ni.node) for ni in cluster.node_infos}
        out.append(entry)
    return out


def _constraint_counts(c: Any) -> dict:
    return {
        "topology_key": c.topology_key,
        "max_skew": c.max_skew,
        "when_unsatisfiable": c.constraint.when_unsatisfiable,
        "selector": str(c.selector) if c.selector is not None else "<nothing>",
        "match_label_keys": list(c.constraint.match_label_keys),
        "min_domains": c.constraint.min_domains,
        "node_affinity_policy": c.node_affinity_policy,
        "node_taints_policy": c.node_taints_policy,
        "self_match": bool(c.self_match),
        "counts": dict(sorted(c.counts.items())),
        "eligible_domains": c.eligible_domains,
        "global_min": c.global_min,
    }


def _volume_details(ev: runtime.Evaluation) -> list[dict]:
    """VolumeBinding's chains: PVC -> PV (or provisioning) -> the topology it allows."""
    from planner.scheduler.plugins.volumebinding import filtering as vb

    state = ev.states.get(vb.NAME)
    claims = getattr(state, "claims", None)
    if not claims:
        return []
    return [
        {
            "volume": c.volume,
            "claim": c.pvc,
            "pv": c.pv,
            "storage_class": c.storage_class,
            "bound": c.bound,
            "binding": c.binding,
            "topology": c.topology,
            "chain": str(c),
        }
        for c in claims
    ]
