"""``pods``: the pods the controllers created, by shorthand (which workload, which ordinals or how
many, where, which revision, which phase), read into ``PodPlan``s in listed order, their
creation order.  Pod objects are made from the plans by pod_objects.py."""

from __future__ import annotations

from dataclasses import dataclass

from planner.scenario.fields import Fields, type_name
from planner.scenario.nodes import Topology
from planner.scenario.placement import pick_node
from planner.scenario.raw import claim_templates
from planner.scenario.volumes import VolumeEntries, entry_zone
from planner.scenario.workloads import Workload, Workloads

MAX_PODS = 200_000
POD_KEYS = ("workload", "namespace", "ordinal", "ordinals", "count", "node", "nodes", "zone", "zones", "phase", "revision", "terminating", "status")
POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")


@dataclass
class PodPlan:
    path: str
    workload: Workload
    revision: str
    node: str | None
    phase: str
    terminating: bool
    ordinal: int | None = None  # StatefulSet pods
    status: dict | None = None  # a patch on the pod's status (pod_objects.make_pod)


def read_pods(doc: dict, f: Fields, workloads: Workloads, topo: Topology, volumes: VolumeEntries) -> list[PodPlan]:
    plans: list[PodPlan] = []
    entries = f.list_of("pods", doc.get("pods")) or []
    total = 0
    ordinals_seen: dict[tuple[str, str, int], str] = {}
    for i, e in enumerate(entries):
        p = f"pods[{i}]"
        if not isinstance(e, dict):
            f.invalid(p, e, f"must be a mapping, not {type_name(e)}")
            continue
        f.keys(p, e, POD_KEYS)
        w = workloads.resolve(f, f"{p}.workload", e.get("workload"), e.get("namespace"))
        if w is None:
            continue
        revision = e.get("revision", "current")
        known = ["current"] + [n for n, _ in w.revisions]
        if revision not in known:
            f.unsupported(f"{p}.revision", revision, tuple(reversed(known)))
            continue
        counted = _ordinals(f, p, e) if w.kind == "StatefulSet" else _count(f, p, e)
        if counted is None:
            continue
        n, ords, ord_paths = counted
        total += n
        if total > MAX_PODS:
            f.too_many("pods", total, MAX_PODS)
            return plans  # (the volume zones are not checked then)
        placements = _placements(f, topo, p, e, n, w, revision)
        if placements is None:
            continue
        phase_v = e.get("phase")
        if phase_v is not None and phase_v not in POD_PHASES:
            f.unsupported(f"{p}.phase", phase_v, POD_PHASES)
            continue
        terminating = f.boolean(f"{p}.terminating", e.get("terminating"))
        status = _status(f, f"{p}.status", e.get("status"))
        if status is False:
            continue
        for k in range(n):
            node = placements[k]
            phase = phase_v or ("Running" if node else "Pending")
            if phase != "Pending" and node is None:
                f.required(f"{p}.node", f"a {phase} pod is bound to a node: give node, nodes, zone or zones")
                break
            ordinal = ords[k] if ords else None
            if ordinal is not None:
                key = (w.namespace, w.name, ordinal)
                if key in ordinals_seen:
                    f.duplicate(ord_paths[k], ordinal)
                    continue
                ordinals_seen[key] = p
            plans.append(PodPlan(p, w, revision, node, phase, terminating, ordinal, status if isinstance(status, dict) and status else None))
    _check_volume_zones(f, topo, volumes, plans)
    return plans


STATUS_KEYS = ("conditions", "containerStatuses", "initContainerStatuses", "message", "reason")


def _status(f: Fields, p: str, v: object) -> dict | None | bool:
    """``status``: a patch on the status the pod gets, as the kubelet would report it: a crash-looping
    replica is ``{conditions: [{type: Ready, status: "False"}]}``.  Conditions merge by type (the
    strategic merge key of PodStatus.conditions); the other fields replace.  The phase is ``phase``.
    False when invalid (reported)."""
    if v is None:
        return None
    m = f.mapping(p, v)
    if m is None:
        return False
    ok = True
    for k in m:
        if k == "phase":
            f.forbidden(f"{p}.phase", "give the pod's phase as pods[].phase")
            ok = False
        elif k not in STATUS_KEYS:
            f.unsupported(f"{p}.{k}" if isinstance(k, str) else p, k, STATUS_KEYS)
            ok = False
    conds = m.get("conditions")
    if conds is not None:
        lst = f.list_of(f"{p}.conditions", conds)
        if lst is None:
            return False
        for j, c in enumerate(lst):
            if not isinstance(c, dict) or not isinstance(c.get("type"), str) or not c.get("type"):
                f.required(f"{p}.conditions[{j}].type", "every condition names its type")
                ok = False
            elif c.get("status") not in ("True", "False", "Unknown"):
                f.unsupported(f"{p}.conditions[{j}].status", c.get("status"), ("True", "False", "Unknown"))
                ok = False
    return m if ok else False


def _ordinals(f: Fields, p: str, e: dict) -> tuple[int, list[int], list[str]] | None:
    """A StatefulSet entry's pods: (how many, their ordinals, each ordinal's field path)."""
    if "count" in e:
        f.forbidden(f"{p}.count", "StatefulSet pods are named by ordinal or ordinals")
        return None
    if ("ordinal" in e) == ("ordinals" in e):
        f.required(f"{p}.ordinal", "exactly one of ordinal or ordinals")
        return None
    ords: list[int] = []
    ord_paths: list[str] = []
    if "ordinal" in e:
        o = f.integer(f"{p}.ordinal", e.get("ordinal"), 0, MAX_PODS)
        if o is None:
            return None
        ords = [o]
        ord_paths = [f"{p}.ordinal"]
    else:
        ol = f.list_of(f"{p}.ordinals", e.get("ordinals"))
        if ol is None:
            return None
        if len(ol) > MAX_PODS:
            f.too_many(f"{p}.ordinals", len(ol), MAX_PODS)
            return None
        for j, o in enumerate(ol):
            oi = f.integer(f"{p}.ordinals[{j}]", o, 0, MAX_PODS)
            if oi is not None:
                ords.append(oi)
                ord_paths.append(f"{p}.ordinals[{j}]")
    return len(ords), ords, ord_paths


def _count(f: Fields, p: str, e: dict) -> tuple[int, list[int], list[str]] | None:
    """A Deployment entry's pods: (how many, no ordinals, no paths)."""
    if "ordinal" in e or "ordinals" in e:
        f.forbidden(f"{p}.ordinal", "only StatefulSet pods have ordinals; use count")
        return None
    c = f.integer(f"{p}.count", e.get("count", 1), 0, MAX_PODS)
    if c is None:
        return None
    return c, [], []


def _placements(f: Fields, topo: Topology, p: str, e: dict, n: int, w: Workload, revision: str) -> list[str | None] | None:
    """The node of each of the entry's ``n`` pods (None: not placed), or None after reporting."""
    given = [k for k in ("node", "nodes", "zone", "zones") if k in e]
    if len(given) > 1:
        f.forbidden(f"{p}.{given[1]}", f"may not be set together with {given[0]}")
        return None
    if not given:
        return [None] * n
    k = given[0]
    v = e[k]
    if k in ("node", "zone"):
        values: list = [v]
    else:
        vl = f.list_of(f"{p}.{k}", v)
        if vl is None:
            return None
        if not vl:
            f.required(f"{p}.{k}")
            return None
        values = vl
    if k in ("node", "nodes"):
        for j, nn in enumerate(values):
            if not isinstance(nn, str) or nn not in topo.by_name:
                f.not_found(f"{p}.{k}" + (f"[{j}]" if k == "nodes" else ""), nn)
                return None
        return [values[i % len(values)] for i in range(n)]
    for j, z in enumerate(values):
        if not isinstance(z, str) or z not in topo.zones:
            f.not_found(f"{p}.{k}" + (f"[{j}]" if k == "zones" else ""), z)
            return None
    template = w.template_of(revision)
    out: list[str | None] = []
    for i in range(n):
        zone = values[i % len(values)]
        zp = f"{p}.{k}" + (f"[{i % len(values)}]" if k == "zones" else "")
        rec = pick_node(topo, zone, template)
        if rec is None:
            f.invalid(zp, zone, "no node in this zone admits the pod (taints, nodeSelector, node affinity, cordoned)")
            return None
        rec.placed += 1
        out.append(rec.name)
    return out


def _check_volume_zones(f: Fields, topo: Topology, volumes: VolumeEntries, plans: list[PodPlan]) -> None:
    """A StatefulSet pod on a node runs in the zone of the volumes its claims are bound to."""
    for plan in plans:
        if plan.ordinal is None or plan.node is None:
            continue
        node_zone = topo.by_name[plan.node].zone
        w = plan.workload
        for ct in claim_templates(w.obj):
            cname = f"{ct['metadata']['name']}-{w.name}-{plan.ordinal}"
            found = volumes.get((w.namespace, cname))
            if found is None:
                continue
            vpath, entry = found
            vzone = entry_zone(entry, topo)
            if vzone is not None and vzone != node_zone:
                f.invalid(f"{vpath}.zone", vzone, f"the pod that uses claim {cname} runs on {plan.node} in zone {node_zone}")
