"""`planner explain`: load the inputs, find the pod (or read it from a file), explain it; the table."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from planner.domain import Pod
from planner.engines.explain import explain
from planner.errors import InputError, UsageError
from planner.load import Limits, build_snapshot, load_snapshot, read_objects, read_scheduler_config, validate_raw
from planner.output import note, table
from planner.priority import resolve_spec
from planner.scheduler.config import SchedulerConfig
from planner.scheduler.registry import Profile


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
    scores: bool = False,
    scheduler_config: str | None = None,
) -> dict:
    config = read_scheduler_config(scheduler_config, limits) if scheduler_config else None
    snap = load_snapshot(paths, limits, notice=note)
    notes = list(snap.notes)
    if pod_file is not None:
        target = _pod_from_file(pod_file, namespace, limits)
        # the Priority admission plugin, with the snapshot's PriorityClasses
        target = replace(target, spec=resolve_spec(target.spec, snap.priority_classes))
        if target.key in snap.pods:
            notes.append(f"pod {target.key} from {pod_file} replaces the pod of that name in the snapshot")
    else:
        ns, name = split_name(pod or "", namespace)
        key = f"{ns}/{name}"
        if key not in snap.pods:
            raise InputError(f"pod {key} not found in the input ({len(snap.pods)} pods read)")
        target = snap.pods[key]
    profile = None
    if config is not None:
        profile = config.profile_for(target.spec.scheduler_name)
        if profile is None:
            profile = config.main
            notes.append(
                f"pod {target.key} names schedulerName {target.spec.scheduler_name!r}, which {scheduler_config} has no "
                f"profile for; explained with profile {profile.scheduler_name!r}"
            )
        notes.extend(profile_notes(config, profile))
    return explain(snap, target, notes, scores=scores, profile=profile)


def profile_notes(config: SchedulerConfig, profile: Profile) -> list[str]:
    """What the notes say of the --scheduler-config profile used: its name, and what it leaves out."""
    out = [f"scheduler profile {profile.scheduler_name!r} from {config.source}"]
    return out + list(profile.notes) + list(config.notes)


# --------------------------------------------------------------------------- table

# Column headers of the score table: the plugins' names shortened (the legend under it spells them out).
SHORT_NAMES = {
    "TaintToleration": "taint",
    "NodeAffinity": "nodeaff",
    "NodeResourcesFit": "fit",
    "VolumeBinding": "volume",
    "PodTopologySpread": "spread",
    "InterPodAffinity": "podaff",
    "NodeResourcesBalancedAllocation": "balanced",
    "ImageLocality": "image",
}


def _score_table(r: dict) -> list[str]:
    """The feasible nodes' scores, in the JSON's order (highest total first): one column per score
    plugin that ran, headed ``<short name>*<weight>``, each cell the normalised score (0..100)
    before the weight, then the total (sum of score * weight).  Nodes of one zone with the same
    scores share a row."""
    scored = [n for n in r["nodes"] if "scores" in n]
    if not scored:
        return []
    plugins = [(s["plugin"], s["weight"]) for s in scored[0]["scores"]]
    headers = ["node", "zone"] + [f"{SHORT_NAMES.get(p, p)}*{w}" for p, w in plugins] + ["total"]
    groups: dict[tuple, list[str]] = {}
    for n in scored:
        key = (n["zone"] or "-", tuple(s["score"] for s in n["scores"]), n["total_score"])
        groups.setdefault(key, []).append(n["name"])
    rows = []
    for (zone, values, total), names in groups.items():
        label = names[0] if len(names) == 1 else f"{names[0]} (+{len(names) - 1} alike)"
        rows.append([label, zone, *values, total])
    out = ["", "  Scores (each plugin's normalized score 0..100, before its weight; total = sum of score*weight), highest total first:"]
    out.append(table(headers, rows, indent="  "))
    legend = ", ".join(f"{SHORT_NAMES.get(p, p).upper()}={p}" for p, _w in plugins)
    out.append(f"    {legend}")
    skipped = r.get("skipped_score_plugins") or []
    if skipped:
        out.append(f"    skipped (PreScore returned Skip: not scored, adds nothing): {', '.join(skipped)}")
    return out



def render_table(r: dict) -> str:
    out: list[str] = []
    verdict = "schedulable" if r["schedulable"] else "UNSCHEDULABLE"
    out.append(f"Pod {r['pod']}: {verdict}")
    out.append(f"  {r['summary']}")
    for p in r["prefilter"]:
        out.append(f"  PreFilter {p['plugin']}: {p['reason']}")
    pre = r.get("preemption")
    if pre is not None:
        if pre["helps"]:
            victims = ", ".join(f"{v['pod']} (priority {v['priority']})" for v in pre["victims"])
            out.append(f"  preemption would help (priority {pre['priority']}): on {pre['node']}, evicting {victims}")
        else:
            out.append(f"  preemption would not help (priority {pre['priority']}): {pre['message']}")
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
    out.extend(_score_table(r))
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
