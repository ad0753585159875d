"""`planner explain`: every filter plugin on every node for one pod, as kube-scheduler sees it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from planner.domain import Pod
from planner.errors import InputError, UsageError
from planner.load import Limits, build_snapshot, load_snapshot, read_objects, validate_raw
from planner.output import note, table
from planner.scheduler import runtime
from planner.scheduler.framework import ClusterState
from planner.services.workloads import base_cluster
from planner.snapshot import Snapshot


def split_name(ref: str, namespace: str | None) -> tuple[str, str]:
    """NAMESPACE/NAME or NAME (namespace from -n, else default)."""
    if "/" in ref:
        ns, _, name = ref.partition("/")
        if not ns or not name or "/" in name:
            raise UsageError(f"--pod {ref!r}: expected NAMESPACE/NAME or NAME")
        if namespace and namespace != ns:
            raise UsageError(f"--pod {ref!r} names namespace {ns!r} but -n says {namespace!r}")
        return ns, name
    if not ref:
        raise UsageError("--pod: expected NAMESPACE/NAME or NAME")
    return namespace or "default", ref


def _pod_from_file(path: str, namespace: str | None, limits: Limits) -> Pod:
    raw = read_objects([path], limits)
    pods = [o for o in raw.objects if o.get("kind") == "Pod"]
    if len(pods) != 1:
        raise InputError(f"{path}: --pod-file needs exactly one Pod, found {len(pods)}")
    raw.objects = pods
    md = pods[0].setdefault("metadata", {}) if isinstance(pods[0].get("metadata", {}), dict) else None
    if md is not None and namespace and not md.get("namespace"):
        md["namespace"] = namespace
    errors = validate_raw(raw)
    if errors:
        raise InputError(*errors)
    snap = build_snapshot(raw)
    return next(iter(snap.pods.values()))


def explain_pod(
    paths: Iterable[str],
    *,
    pod: str | None,
    pod_file: str | None,
    namespace: str | None,
    limits: Limits,
) -> dict:
    snap = load_snapshot(paths, limits, notice=note)
    notes = list(snap.notes)
    if pod_file is not None:
        target = _pod_from_file(pod_file, namespace, limits)
        if target.key in snap.pods:
            notes.append(f"pod {target.key} from {pod_file} replaces the pod of that name in the snapshot")
    else:
        ns, name = split_name(pod or "", namespace)
        key = f"{ns}/{name}"
        if key not in snap.pods:
            raise InputError(f"pod {key} not found in the input ({len(snap.pods)} pods read)")
        target = snap.pods[key]
    return explain(snap, target, notes)


def explain(snap: Snapshot, target: Pod, notes: list[str] | None = None) -> dict:
    """The explanation of ``target`` against ``snap`` (the pod itself is taken out of the cluster)."""
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
    ev = runtime.evaluate(target, cluster)
    nodes = []
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
    return {
        "pod": target.key,
        "schedulable": ev.schedulable,
        "summary": ev.summary(),
        "feasible_nodes": ev.feasible_nodes,
        "prefilter": [{"plugin": st.plugin, "reason": st.message} for st in ev.prefilter_failures],
        "nodes": nodes,
        "spread": _spread_details(ev, cluster),
        "volumes": _volume_details(ev),
        "notes": notes,
    }


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
        out.append(
            {
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
                "skew": skew,
            }
        )
    return out


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


# --------------------------------------------------------------------------- table


def render_table(r: dict) -> str:
    out: list[str] = []
    verdict = "schedulable" if r["schedulable"] else "UNSCHEDULABLE"
    out.append(f"Pod {r['pod']}: {verdict}")
    out.append(f"  {r['summary']}")
    for p in r["prefilter"]:
        out.append(f"  PreFilter {p['plugin']}: {p['reason']}")
    out.append("")
    # nodes that fail alike (same zone, same plugins, reasons and details) share one row
    groups: dict[tuple, list[str]] = {}
    for n in r["nodes"]:
        key = (n["zone"] or "-", n["feasible"], tuple((f["plugin"], f["reason"], f.get("detail", "")) for f in n["failures"]))
        groups.setdefault(key, []).append(n["name"])
    rows = []
    for (zone, feasible, fails), names in groups.items():
        label = names[0] if len(names) == 1 else f"{names[0]} (+{len(names) - 1} alike)"
        if feasible:
            rows.append([label, zone, "yes", "", ""])
            continue
        for i, (plugin, reason, detail) in enumerate(fails):
            text = f"{reason} [{detail}]" if detail else reason
            rows.append([label if i == 0 else "", zone if i == 0 else "", "no" if i == 0 else "", plugin, text])
    out.append(table(["node", "zone", "fits", "plugin", "reason"], rows, indent="  "))
    for s in r["spread"]:
        out.append("")
        out.append(f"  Topology spread: {s['topology_key']} maxSkew={s['max_skew']} {s['when_unsatisfiable']} selector {s['selector']}")
        if s.get("min_domains") is not None:
            out.append(f"    minDomains={s['min_domains']} (eligible domains: {len(s['eligible_domains'])})")
        counts = [f"{d}={c}" for d, c in s["counts"].items()]
        shown = counts[:12] + ([f"... ({len(counts) - 12} more)"] if len(counts) > 12 else [])
        out.append("    matching pods per domain: " + ", ".join(shown))
        out.append(f"    global minimum: {s['global_min']}")
        if s["counts"]:
            sm = 1 if s["self_match"] else 0
            per_domain = [f"{d}={c + sm - s['global_min']}" for d, c in s["counts"].items()]
            shown = per_domain[:12] + ([f"... ({len(per_domain) - 12} more)"] if len(per_domain) > 12 else [])
            out.append(f"    skew if placed (maxSkew {s['max_skew']}): " + ", ".join(shown))
    if r["volumes"]:
        out.append("")
        out.append("  Volumes:")
        for v in r["volumes"]:
            out.append(f"    {v['chain']}")
    for n in r["notes"]:
        out.append(f"  note: {n}")
    return "\n".join(out)
