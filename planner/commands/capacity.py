"""`planner capacity`: load the inputs, walk the replica range, zone loss, nodes to add; the JSON
shape, the table and the pictures (planner.pictures.capacity)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from models.solve import SolveOptions
from planner import pictures
from planner.engines.capacity import capacity, make_probe, parse_range, spec_capacity
from planner.engines.workloads import parse_workload
from planner.errors import UsageError
from planner.load import Limits, load_snapshot, read_manifest, read_scheduler_config
from planner.output import bad, good, note, table
from planner.scheduler.config import feasibility_notes
from planner.snapshot import Snapshot


def capacity_command(
    paths: Iterable[str],
    workload: str | None,
    namespace: str | None,
    rng: str | None,
    zone_failure: bool,
    add_nodes: bool,
    plot: str | None,
    opts: SolveOptions,
    limits: Limits,
    scheduler_config: str | None = None,
    *,
    pod_file: str | None = None,
    max_limit: int | None = None,
    overlay: bool = True,
    html: str | None = None,
) -> dict[str, Any]:
    """``plot`` (--plot FILE: PNG or SVG) and ``html`` (--html FILE): the capacity curve."""
    if (workload is None) == (pod_file is None):
        raise UsageError("capacity: give exactly one of --workload KIND/NAME or --pod-file POD.yaml")
    pictures.check_targets(plot, html)
    if pod_file is not None:
        given = [o for o, v in (("--range", rng), ("--zone-failure", zone_failure), ("--add-nodes", add_nodes), ("--plot", plot), ("--html", html)) if v]
        if given:
            raise UsageError(f"capacity: {', '.join(given)} {'go' if len(given) > 1 else 'goes'} with --workload; --pod-file counts how many more copies of a pod fit")
        if pod_file == "-" and "-" in list(paths):
            raise UsageError("capacity: standard input can be read once: give the snapshot or --pod-file as a file")
    elif max_limit is not None:
        raise UsageError("capacity: --max-limit goes with --pod-file (--range bounds the counts of --workload)")
    config = read_scheduler_config(scheduler_config, limits) if scheduler_config else None
    if pod_file is not None:
        loaded: list[Snapshot] = []

        def cluster() -> Snapshot:  # read once the manifest is known valid
            loaded.append(load_snapshot(paths, limits, notice=note, overlay=overlay, namespace=namespace))
            return loaded[0]

        obj, file_notes = read_manifest(pod_file, POD_FILE_KINDS, "--pod-file", limits, namespace, admitted_by=cluster)
        snap = loaded[0] if loaded else cluster()
        label = "<stdin>" if pod_file == "-" else pod_file
        probe = make_probe(snap, obj, f"{type(obj).__name__} {obj.namespace}/{obj.name} from {label}")
        probe.notes[:0] = file_notes
        result = spec_capacity(probe, opts, max_limit)
        if config is not None:
            result["notes"].extend(feasibility_notes(config, config.main))
        return result
    assert workload is not None
    snap = load_snapshot(paths, limits, notice=note, overlay=overlay, namespace=namespace)
    ref = parse_workload(workload, namespace)
    r = parse_range(rng) if rng else None
    result = capacity(snap, ref, r, zone_failure, add_nodes, opts, profile=None if config is None else config.main)
    if config is not None:
        result.setdefault("notes", []).extend(feasibility_notes(config, config.main))
    if plot or html:
        from planner.pictures.capacity import for_capacity

        for path in pictures.write(for_capacity(snap, ref, result), plot, html):
            note(f"wrote {path}")
    return result


POD_FILE_KINDS = ("Pod", "Deployment", "StatefulSet", "ReplicaSet")


def render_any(r: dict) -> str:
    return render_pod_capacity(r) if "per_node" in r else render_capacity(r)


def render_pod_capacity(r: dict) -> str:
    """cluster-capacity's report: the pod's requests, how many more fit, why not one more, and
    the pods per node (and per zone)."""
    req = ", ".join(f"{k} {_quantity(k, v)}" for k, v in r["requests"].items()) or "none"
    lines = [f"{r['source']}: requests {req}"]
    more = f"at least {r['count']:,}" if r["limited"] else f"{r['count']:,}"
    more = good(more) if r["count"] else bad(more)
    lines.append(f"  the cluster can take {more} more pod(s) like it" + (" (stopped at --max-limit)" if r["limited"] else ""))
    lim = r.get("limit")
    if lim:
        lines.append(f"  one more fails: {lim['reason']}")
        if lim.get("scheduler"):
            lines.append(f"    kube-scheduler would say, once these are placed: {lim['scheduler']}")
    if r["per_node"]:
        lines.append("  a placement of them, verified pod by pod through every filter:")
        lines.append(table(["zone", "pods"], [[z["zone"] or "(no zone)", z["count"]] for z in r["per_zone"]], indent="    "))
        lines.append("")
        lines.append(table(["node", "zone", "pods"], [[n["node"], n["zone"] or "-", n["count"]] for n in r["per_node"]], indent="    "))
    for n in r.get("notes", []):
        lines.append(f"  note: {n}")
    return "\n".join(lines)


def render_capacity(r: dict) -> str:
    lines = [f"{r['workload']}: replicas {r['range']['min']}..{r['range']['max']} ({r['range']['source']})"]
    rows = [[x["replicas"], good("yes") if x["schedulable"] else bad("NO"), x["reason"] or _preempts(x)] for x in r["replicas"]]
    past = (r.get("bound") or {}).get("past")
    if past:
        span = f"{past['min']}..{past['max']}" if past["max"] > past["min"] else str(past["min"])
        rows.append([span, bad("NO"), f"past the cluster's bound {r['bound']['max_replicas']:,}: {r['bound']['message']}"])
    lines.append(table(["replicas", "schedulable", "reason"], rows, indent="  "))
    lines.append(f"  max_replicas: {r['max_replicas'] if r['max_replicas'] is not None else 'none'}")
    if r["non_monotonic"]:
        ok_above = ", ".join(str(n) for n in r["non_monotonic"])
        lines.append(f"  {bad('NOT MONOTONIC')}: {ok_above} fail(s) although a larger count works (scaling through it gets stuck)")
    for z in r.get("zone_failure", []):
        state = good("survives") if z["schedulable"] else bad("DOES NOT survive")
        lines.append(f"  zone {z['zone']} lost ({z['nodes_lost']} nodes): {z['replicas']} replicas {state}" + (f": {z['reason']}" if z["reason"] else ""))
        for lp in z["lost_pods"]:
            vols = ", ".join(f"{v['claim']} -> {v['pv']}" + (" (pinned)" if v["pinned"] else "") for v in lp["volumes"])
            lines.append(f"    lost {lp['pod']} on {lp['node']}" + (f"; volumes {vols}" if vols else ""))
    an = r.get("add_nodes")
    if an:
        if an.get("found"):
            lines.append(f"  to schedule {an['replicas']} replicas add {an['total']} node(s): {an['message']}")
            for g in an["node_groups"]:
                ds = g["daemonset_pods"]
                req = ", ".join(f"{k} {_quantity(k, v)}" for k, v in sorted(g["daemonset_requests"].items()))
                overhead = f"; DaemonSet pods per node: {', '.join(ds)} (requests {req})" if ds else ""
                lines.append(f"    {g['group']}: {g['count']} like {g['template']} in {g['zone'] or '(no zone)'}{overhead}")
        else:
            lines.append(f"  add nodes: {an.get('message')}")
    for n in r.get("notes", []):
        lines.append(f"  note: {n}")
    return "\n".join(lines)


def _preempts(row: dict) -> str:
    v = row.get("preempted") or []
    if not v:
        return ""
    names = ", ".join(f"{x['namespace']}/{x['name']}" for x in v[:3]) + (f" and {len(v) - 3} more" if len(v) > 3 else "")
    return f"preempting {len(v)} lower-priority pod(s): {names}"


def _quantity(resource: str, v: int) -> str:
    """A request as kubectl would write it (cpu in millicores, memory in Mi/Gi)."""
    if resource == "cpu":
        return f"{v}m"
    if resource in ("memory", "ephemeral-storage") and v >= 1024**2 and v % 1024**2 == 0:
        return f"{v // 1024**3}Gi" if v % 1024**3 == 0 else f"{v // 1024**2}Mi"
    return str(v)
