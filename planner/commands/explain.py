"""`planner explain`: load the inputs, find the pod (or read it from a file), explain it; the table."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from planner import pictures
from planner.domain import Pod
from planner.engines.explain import explain, explain_pending, pending_pods
from planner.errors import InputError, UsageError
from planner.load import Limits, load_snapshot, read_manifest, read_scheduler_config
from planner.output import bad, good, note, table
from planner.priority import resolve_spec
from planner.scheduler.config import SchedulerConfig
from planner.scheduler.registry import Profile
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
    pod, _ = read_manifest(path, ("Pod",), "--pod-file", limits, namespace)
    return pod


def explain_pod(
    paths: Iterable[str],
    *,
    pod: str | None,
    pod_file: str | None,
    namespace: str | None,
    limits: Limits,
    scores: bool = False,
    scheduler_config: str | None = None,
    overlay: bool = True,
) -> dict:
    """One pod, named or read from a file: the single-pod shape (docs/output.md, explain)."""
    return explain_command(
        paths, pods=[pod] if pod is not None else [], pod_file=pod_file, namespace=namespace, all_namespaces=False,
        limits=limits, scores=scores, scheduler_config=scheduler_config, overlay=overlay,
    )


def explain_command(
    paths: Iterable[str],
    *,
    pods: list[str],
    pod_file: str | None,
    namespace: str | None,
    all_namespaces: bool,
    limits: Limits,
    scores: bool = False,
    scheduler_config: str | None = None,
    overlay: bool = True,
    plot: str | None = None,
    html: str | None = None,
) -> dict:
    """What ``planner explain`` prints: one pod (``--pod X`` alone, ``--pod-file``) in the
    single-pod shape; several ``--pod`` or every Pending pod (``-A``, ``-n``, or neither: the
    namespace default, as kubectl) in the list shape (docs/output.md, explain-list).  ``plot``
    (--plot FILE: PNG or SVG) and ``html`` (--html FILE): the zone map of the one pod."""
    if pod_file is not None and pods:
        raise UsageError("explain: give --pod NAMESPACE/NAME or --pod-file POD.yaml, not both")
    if all_namespaces and (pods or pod_file is not None):
        raise UsageError("explain: -A explains every Pending pod; --pod and --pod-file name one (a pod cannot be named across all namespaces)")
    if all_namespaces and namespace:
        raise UsageError("explain: give -n NAMESPACE or -A, not both")
    listing = not pods and pod_file is None
    if scores and listing:
        raise UsageError("explain: --scores scores the nodes of named pods: give --pod NAMESPACE/NAME")
    keys = [f"{ns}/{name}" for ns, name in (split_name(p, namespace) for p in pods)]
    if (plot or html) and (listing or len(dict.fromkeys(keys)) > 1):
        raise UsageError("explain: --plot and --html draw the zone map of one pod: give one --pod NAMESPACE/NAME or --pod-file")
    pictures.check_targets(plot, html)
    config = read_scheduler_config(scheduler_config, limits) if scheduler_config else None
    snap = load_snapshot(paths, limits, notice=note, overlay=overlay, namespace=namespace)
    if pod_file is not None:
        target = _pod_from_file(pod_file, namespace, limits)
        # the Priority admission plugin, with the snapshot's PriorityClasses
        target = replace(target, spec=resolve_spec(target.spec, snap.priority_classes))
        notes = list(snap.notes)
        if target.key in snap.pods:
            notes.append(f"pod {target.key} from {pod_file} replaces the pod of that name in the snapshot")
        return _drawn(snap, target, _one(snap, target, notes, scores, config, scheduler_config), plot, html)
    missing = [k for k in dict.fromkeys(keys) if k not in snap.pods]
    if missing:
        raise InputError(*(f"pod {k} not found in the input ({len(snap.pods)} pods read)" for k in missing))
    if len(keys) == 1:
        target = snap.pods[keys[0]]
        return _drawn(snap, target, _one(snap, target, list(snap.notes), scores, config, scheduler_config), plot, html)
    notes = list(snap.notes)
    profile_for: Callable[[Pod], Profile] | None = None
    profile_said: list[str] = []
    if config is not None:
        profile_for, profile_said = _profiles(config, scheduler_config or "", notes)
    if listing:
        ns = None if all_namespaces else (namespace or "default")
        targets = pending_pods(snap, ns)
        entries = explain_pending(snap, targets, profile_for)
        scope = "all namespaces" if ns is None else f"namespace {ns}"
        bound = sum(1 for p in snap.pods.values() if p.phase == "Pending" and p.spec.node_name and not p.terminating and (ns is None or p.namespace == ns))
        if bound:
            notes.append(f"{bound} Pending pod(s) are bound to a node and starting (pulling images, mounting volumes): not a scheduling matter, not listed")
    else:
        scope = "pods"
        entries = []
        for k in dict.fromkeys(keys):
            t = snap.pods[k]
            prof = profile_for(t) if profile_for is not None else None
            entries.append(explain(snap, t, [], scores=scores, profile=prof))
    notes.extend(profile_said)
    return list_shape(scope, entries, notes)


def _drawn(snap: Snapshot, target: Pod, result: dict, plot: str | None, html: str | None) -> dict:
    """``result``, after its zone map is written to the files asked for."""
    if plot or html:
        from planner.pictures.zonemap import for_explain

        for path in pictures.write(for_explain(snap, target, result), plot, html):
            note(f"wrote {path}")
    return result


def _profiles(config: SchedulerConfig, source: str, notes: list[str]) -> tuple[Callable[[Pod], Profile], list[str]]:
    """The profile each pod is explained with (its schedulerName's, else the main one, noted
    once per name), and the notes of the profiles used (filled in as pods are explained)."""
    said: list[str] = []
    seen: set[str] = set()

    def profile_for(p: Pod) -> Profile:
        prof = config.profile_for(p.spec.scheduler_name)
        name = p.spec.scheduler_name
        if prof is None:
            prof = config.main
            if name not in seen:
                notes.append(f"pods naming schedulerName {name!r}, which {source} has no profile for, are explained with profile {prof.scheduler_name!r}")
        seen.add(name)
        for n in profile_notes(config, prof):
            if n not in said:
                said.append(n)
        return prof

    return profile_for, said


def _one(snap: Snapshot, target: Pod, notes: list[str], scores: bool, config: SchedulerConfig | None, source: str | None) -> dict:
    profile = None
    if config is not None:
        profile = config.profile_for(target.spec.scheduler_name)
        if profile is None:
            profile = config.main
            notes.append(
                f"pod {target.key} names schedulerName {target.spec.scheduler_name!r}, which {source} has no "
                f"profile for; explained with profile {profile.scheduler_name!r}"
            )
        notes.extend(profile_notes(config, profile))
    return explain(snap, target, notes, scores=scores, profile=profile)


def list_shape(scope: str, entries: list[dict], notes: list[str]) -> dict:
    """Several pods' explanations (docs/output.md, explain-list): each pod's, and the pods grouped
    by the reason that blocks them (most pods first)."""
    groups: dict[tuple[str, bool, bool], list[str]] = {}
    for e in entries:
        helps = bool((e.get("preemption") or {}).get("helps"))
        groups.setdefault((e["reason"], e["schedulable"], helps), []).append(e["pod"])
    ranked = sorted(groups.items(), key=lambda kv: (kv[0][1], -len(kv[1]), kv[0][0]))
    blocked = sum(1 for e in entries if not e["schedulable"])
    return {
        "scope": scope,
        "schedulable": blocked == 0,
        "count": len(entries),
        "unschedulable": blocked,
        "groups": [
            {"reason": reason, "schedulable": ok, "preemption_helps": helps, "count": len(names), "pods": names}
            for (reason, ok, helps), names in ranked
        ],
        "pods": entries,
        "notes": notes,
    }


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



# Past this many rows (nodes failing alike share one already), nodes failing for the same
# reasons in one zone share a row, their amounts as ranges; -o wide and -o json: every node.
MAX_NODE_ROWS = 40

# an amount after a space, with its unit ("free 6315m", "free 1.5Gi", "110 of 110"), not a name's digits
_AMOUNT = re.compile(r"(?:(?<=\s)|^)-?\d+(?:\.\d+)?(?:m|Ki|Mi|Gi|Ti)?(?=[\s,;\])]|$)")
_UNIT = {"m": 1e-3, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}


def _amount(token: str) -> float:
    """An amount's value, in its unit's base, to order the amounts of one place in a detail."""
    for unit, scale in _UNIT.items():
        if token.endswith(unit):
            return float(token[: -len(unit)]) * scale
    return float(token)


def _merged_detail(details: list[str]) -> str:
    """One detail for nodes that fail alike: the common text, each amount that differs as its
    lowest..highest; when the texts differ otherwise (a node's own name in it), a pointer to
    every node's."""
    first = details[0]
    if all(d == first for d in details):
        return first
    skeleton = _AMOUNT.sub("#", first)
    if any(_AMOUNT.sub("#", d) != skeleton for d in details):
        return "differs by node"
    columns = list(zip(*(_AMOUNT.findall(d) for d in details)))
    parts = skeleton.split("#")
    out = [parts[0]]
    for values, rest in zip(columns, parts[1:]):
        lo, hi = min(values, key=_amount), max(values, key=_amount)
        out.append(lo if lo == hi else f"{lo}..{hi}")
        out.append(rest)
    return "".join(out)


def _node_rows(nodes: list[dict], every_node: bool, every: str = "-o wide") -> tuple[list[list[str]], str]:
    """The node table's rows, and a note when nodes failing for the same reasons were merged."""
    # nodes that fail alike (same zone, same plugins, reasons and details) share one row
    groups: dict[tuple, list[dict]] = {}
    for n in nodes:
        key = (n["zone"] or "-", n["feasible"], tuple((f["plugin"], f["reason"], f.get("detail", "")) for f in n["failures"]))
        groups.setdefault(key, []).append(n)
    merged = ""
    if not every_node and sum(max(1, len(k[2])) for k in groups) > MAX_NODE_ROWS:
        by_reason: dict[tuple, list[dict]] = {}
        for n in nodes:
            by_reason.setdefault((n["zone"] or "-", n["feasible"], tuple((f["plugin"], f["reason"]) for f in n["failures"])), []).append(n)
        groups = {}
        for (zone, feasible, fails), members in by_reason.items():
            details = tuple(_merged_detail([m["failures"][i].get("detail", "") for m in members]) for i in range(len(fails)))
            groups[(zone, feasible, tuple((p, why, d) for (p, why), d in zip(fails, details)))] = members
        merged = (f"  {len(nodes)} nodes in {len(groups)} group(s): the nodes of one zone that fail for the same reasons share one,"
                  f" amounts as lowest..highest ({every}: every node)")
    rows = []
    for (zone, feasible, fails), members in groups.items():
        names = [m["name"] for m in members]
        label = names[0] if len(names) == 1 else f"{names[0]} (+{len(names) - 1} alike)"
        if feasible:
            rows.append([label, zone, good("yes"), "", ""])
            continue
        for i, (plugin, reason, detail) in enumerate(fails):
            text = f"{reason} [{detail}]" if detail else reason
            rows.append([label if i == 0 else "", zone if i == 0 else "", bad("no") if i == 0 else "", plugin, text])
    return rows, merged


def render_table(r: dict, every_node: bool = False, every: str = "-o wide") -> str:
    """One pod's explanation; ``every_node`` (-o wide): a row per node (or per nodes failing with
    the very same details), however many; ``every``: the output that lists every node (several
    pods: -o json)."""
    out: list[str] = []
    verdict = good("schedulable") if r["schedulable"] else bad("WAITING FOR SCHEDULING GATES" if r.get("gated") else "UNSCHEDULABLE")
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
    rows, merged = _node_rows(r["nodes"], every_node, every)
    out.append(table(["node", "zone", "fits", "plugin", "reason"], rows, indent="  "))
    if merged:
        out.append(merged)
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


# --------------------------------------------------------------------------- several pods

MAX_NAMES = 3  # pods named per group in the table; the rest are counted


def render_any(r: dict) -> str:
    """The table of either shape."""
    return render_list(r) if "groups" in r else render_table(r)


def render_wide(r: dict) -> str:
    """``-o wide``: the list shape one row per pod, with kube-scheduler's message for it; one
    pod: a row for every node."""
    return render_list(r, wide=True) if "groups" in r else render_table(r, every_node=True)


def _headline(r: dict) -> str:
    n, blocked = r["count"], r["unschedulable"]
    if r["scope"] == "pods":
        what = f"{n} pods"
    else:
        what = f"{n} Pending pod{'s' if n != 1 else ''} in {r['scope']}"
    if not n:
        return f"no Pending pods in {r['scope']}" + (" (-A: every namespace)" if r["scope"].startswith("namespace") else "")
    return f"{what}: {blocked} cannot be placed, {n - blocked} can be placed now"


def _short(pod: str, scope: str) -> str:
    return pod.split("/", 1)[1] if scope.startswith("namespace") else pod


def render_list(r: dict, wide: bool = False) -> str:
    out: list[str] = []
    if r["scope"] == "pods" and not wide:
        for e in r["pods"]:
            out.append(render_table(e, every="-o json"))
            out.append("")
        out.append(_headline(r))
    else:
        out.append(_headline(r))
        if r["pods"] and wide:
            by_pod = {e["pod"]: e for e in r["pods"]}
            rows = []
            for g in r["groups"]:
                for k in g["pods"]:
                    e = by_pod[k]
                    rows.append([_short(k, r["scope"]), _fits(e["schedulable"]), _preempt(g), e["summary"]])
            out.append(table(["pod", "fits", "preemption", "kube-scheduler says"], rows, indent="  "))
        elif r["pods"]:
            rows = []
            for g in r["groups"]:
                shown = abbreviate([_short(k, r["scope"]) for k in g["pods"]])
                rows.append([g["count"], _fits(g["schedulable"]), _preempt(g), g["reason"], shown])
            out.append(table(["pods", "fits", "preemption", "reason", "names"], rows, indent="  "))
            out.append("  (-o wide: kube-scheduler's message for each pod; --pod NAME: every node and plugin for one)")
    for n in r["notes"]:
        out.append(f"  note: {n}")
    return "\n".join(out)


def abbreviate(names: list[str], k: int = MAX_NAMES) -> str:
    """Pod names, short: the pods of one controller (the same name up to the last '-') as
    ``prefix-{a,b,c,...}``, at most ``k`` names or suffixes each and ``k`` controllers in all."""
    families: dict[str, list[str]] = {}
    for n in names:
        head, dash, tail = n.rpartition("-")
        families.setdefault(head + dash if dash and head else n, []).append(tail if dash and head else "")
    parts = []
    for prefix, tails in list(families.items())[:k]:
        if len(tails) == 1:
            parts.append(prefix + tails[0])
        else:
            more = ",..." if len(tails) > k else ""
            parts.append(f"{prefix}{{{','.join(tails[:k])}{more}}}")
    rest = sum(len(t) for t in list(families.values())[k:])
    return ", ".join(parts) + (f" and {rest} more" if rest else "")


def _fits(ok: bool) -> str:
    return good("yes") if ok else bad("no")


def _preempt(g: dict) -> str:
    if g["schedulable"]:
        return ""
    return "would help" if g["preemption_helps"] else "no"
