"""The zone map: each zone's nodes, the workload's pods on them and their volumes, the Pending
pods (one a volume pins to a single zone is drawn in that zone, marked), and what each spread
constraint counts per domain with the skew it makes.

Built from explain's answer for one pod (:func:`for_explain`: the pod, the pods of its controller
and the pods its spread constraints select) or from check's (:func:`for_check`: the pods kept,
the pods placed, or the pods that cannot be placed).  The skew is PodTopologySpread's own count
(planner.engines.explain.spread_counts, explain's ``spread``), never recounted here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from planner.domain import LABEL_ZONE, LABEL_ZONE_BETA, Pod, PodSpec
from planner.engines.explain import spread_counts
from planner.engines.workloads import (
    cluster_after_plans,
    cordon_tolerated,
    find_workload,
    is_running,
    pods_of_workload,
    static_exclusion,
)
from planner.matching import node_selector_matches
from planner.pictures import page
from planner.pictures.draw import INK, MUTED, PENDING, PINNED, PLACED, RUNNING, UNUSABLE, pyplot, short
from planner.snapshot import Snapshot

NO_ZONE = "(no zone)"
MAX_NODES = 8  # nodes drawn per zone (those with the workload's pods first); the rest are counted
MAX_PODS = 6  # pods drawn per node; the rest are counted
MAX_PENDING = 24  # Pending pods drawn per zone and apart; the rest are counted


@dataclass
class PodMark:
    """One pod on the map: ``state`` running (bound, as read), placed (where the answer puts it)
    or pending (no node)."""

    key: str
    state: str
    node: str | None = None
    zone: str | None = None
    volumes: list[str] = field(default_factory=list)  # "claim -> PV (zones)"
    pinned: list[str] | None = None  # the zones its bound volumes allow; None: no volume pins it
    note: str = ""

    @property
    def name(self) -> str:
        return self.key.split("/", 1)[1]

    @property
    def pinned_zone(self) -> str | None:
        return self.pinned[0] if self.pinned is not None and len(self.pinned) == 1 else None


@dataclass
class NodeBox:
    name: str
    zone: str
    why: str | None  # why the pods may not use it (None: they may)
    pods: list[PodMark] = field(default_factory=list)
    others: int = 0  # other pods running on it


@dataclass
class ZoneColumn:
    name: str
    nodes: list[NodeBox] = field(default_factory=list)
    hidden: int = 0  # nodes of the zone not drawn
    hidden_unusable: int = 0  # of them, nodes the pods may not use
    hidden_pods: int = 0  # the pods on them
    pending: list[PodMark] = field(default_factory=list)  # Pending pods a volume pins to this zone
    pending_hidden: int = 0


@dataclass
class SpreadCount:
    """One DoNotSchedule spread constraint: matching pods per eligible domain, as PreFilter counts."""

    topology_key: str
    max_skew: int
    selector: str
    counts: dict[str, int]
    global_min: int
    # Pending pods a volume pins to one zone, on a zone constraint: (pod, zone, the skew placing it
    # there makes: PodTopologySpread's skew on the zone's nodes, the least of them)
    if_placed: list[tuple[str, str, int]] = field(default_factory=list)

    @property
    def skew(self) -> int:
        return (max(self.counts.values()) - self.global_min) if self.counts else 0

    @property
    def ok(self) -> bool:
        return self.skew <= self.max_skew

    @property
    def title(self) -> str:
        return f"{self.topology_key}: maxSkew {self.max_skew}, selector {self.selector}"

    @property
    def verdict(self) -> str:
        return f"skew {self.skew} {'<=' if self.ok else '>'} maxSkew {self.max_skew}"

    def placed_text(self, pod: str, zone: str, skew: int) -> str:
        return f"{pod.split('/', 1)[1]} in {zone} would make skew {skew} {'<=' if skew <= self.max_skew else '>'} maxSkew {self.max_skew}"


@dataclass
class ZoneMap:
    title: str
    subtitle: str
    verdict: str
    ok: bool
    zones: list[ZoneColumn]
    pending: list[PodMark]  # Pending pods no volume pins to one zone
    spreads: list[SpreadCount]
    notes: list[str] = field(default_factory=list)
    pending_hidden: int = 0  # Pending pods (no zone pinned) not drawn

    # ------------------------------------------------------------------ matplotlib

    def figure(self) -> Any:
        plt = pyplot()
        from matplotlib.patches import FancyBboxPatch

        col_w, gap = 3.2, 0.35
        ncols = max(1, len(self.zones))
        heights = [_column_height(z) for z in self.zones] or [1.0]
        map_h = max(heights) + 0.2
        pend_h = 0.0 if not self.pending else 0.75 + 0.34 * ((len(self.pending) + 2) // 3) + (0.3 if self.pending_hidden else 0)
        spread_h = 2.9 if self.spreads else 0.0
        width = max(8.0, ncols * (col_w + gap) + gap)
        sub = _lines(self.subtitle, int(width * 12.5), 3)
        head = 0.75 + 0.22 * len(sub)
        height = head + map_h + pend_h + spread_h
        fig = plt.figure(figsize=(width, height))
        ax = fig.add_axes((0, (spread_h) / height, 1, (height - spread_h) / height))
        ax.set_xlim(0, width)
        top = height - spread_h
        ax.set_ylim(0, top)
        ax.axis("off")
        colour = RUNNING if self.ok else PENDING
        ax.text(0.3, top - 0.35, self.title, fontsize=13, weight="bold", color=INK, va="center")
        ax.text(width - 0.3, top - 0.35, self.verdict, fontsize=11, weight="bold", color="white", va="center", ha="right",
                bbox={"boxstyle": "round,pad=0.3", "fc": colour, "ec": colour})
        for k, line in enumerate(sub):
            ax.text(0.3, top - 0.72 - 0.22 * k, line, fontsize=8.5, color=MUTED, va="center")
        y0 = top - head
        for i, z in enumerate(self.zones):
            x = gap + i * (col_w + gap)
            h = heights[i]
            ax.add_patch(FancyBboxPatch((x, y0 - h), col_w, h, boxstyle="round,pad=0,rounding_size=0.08", fc="#f7f7f7", ec="#cfcfcf"))
            ax.text(x + 0.12, y0 - 0.25, z.name, fontsize=11, weight="bold", color=INK, va="center")
            y = y0 - 0.5
            for n in z.nodes:
                nh = _node_height(n)
                ax.add_patch(FancyBboxPatch((x + 0.1, y - nh), col_w - 0.2, nh, boxstyle="round,pad=0,rounding_size=0.05",
                                            fc="white" if n.why is None else "#eeeeee", ec="#bdbdbd" if n.why is None else UNUSABLE,
                                            hatch=None if n.why is None else "///", lw=0.8))
                label = n.name + (f"  ({n.why})" if n.why else "")
                ax.text(x + 0.18, y - 0.17, short(label, 44), fontsize=7.5, color=INK if n.why is None else MUTED, va="center")
                py = y - 0.34
                for p in n.pods[:MAX_PODS]:
                    py = _chip(ax, FancyBboxPatch, x + 0.18, py, col_w - 0.36, p)
                extra = len(n.pods) - MAX_PODS
                tail = []
                if extra > 0:
                    tail.append(f"+{extra} more of these pods")
                if n.others:
                    tail.append(f"{n.others} other pod(s)")
                if tail:
                    ax.text(x + 0.18, py - 0.1, ", ".join(tail), fontsize=6.5, color=MUTED, va="center")
                y -= nh + 0.1
            if z.hidden:
                ax.text(x + 0.15, y - 0.12, short(_hidden_text(z), int(col_w * 15)), fontsize=7, color=MUTED, va="center")
                y -= 0.3
            if z.pending:
                ph = 0.38 + sum(_chip_height(p) + 0.06 for p in z.pending) + (0.22 if z.pending_hidden else 0)
                ax.add_patch(FancyBboxPatch((x + 0.1, y - ph), col_w - 0.2, ph, boxstyle="round,pad=0,rounding_size=0.05",
                                            fc="white", ec=PENDING, ls="--", lw=1.2))
                ax.text(x + 0.18, y - 0.17, "Pending: a volume pins it here", fontsize=7.5, color=PENDING, weight="bold", va="center")
                py = y - 0.34
                for p in z.pending:
                    py = _chip(ax, FancyBboxPatch, x + 0.18, py, col_w - 0.36, p)
                if z.pending_hidden:
                    ax.text(x + 0.18, py - 0.1, f"+{z.pending_hidden} more Pending here", fontsize=6.5, color=PENDING, va="center")
        if self.pending:
            py = y0 - max(heights) - 0.2
            ax.text(gap, py - 0.15, "Pending, no node (no volume pins them to one zone):", fontsize=9, color=PENDING, weight="bold", va="center")
            per_row, cw = 3, (width - 2 * gap) / 3
            for j, p in enumerate(self.pending):
                r, c = divmod(j, per_row)
                _chip(ax, FancyBboxPatch, gap + c * cw, py - 0.35 - r * 0.34, cw - 0.15, p, one_line=True)
            if self.pending_hidden:
                rows = (len(self.pending) + per_row - 1) // per_row
                ax.text(gap, py - 0.5 - rows * 0.34, f"+{self.pending_hidden} more Pending (see -o json)", fontsize=7.5, color=PENDING, va="center")
        if self.spreads:
            cols = min(len(self.spreads), 4)
            for k, s in enumerate(self.spreads[:4]):
                sax = fig.add_axes(((0.06 + k * 0.94 / cols), 0.35 / height, 0.94 / cols - 0.08, (spread_h - 1.3) / height))
                _spread_axes(sax, s)
        return fig

    # ------------------------------------------------------------------ HTML

    def html(self) -> str:
        body = [f"<p>{page.verdict(self.verdict, self.ok)}</p>",
                page.legend(["running", "placed", "pending", "pinned", "unusable"]), '<div class="zones">']
        for z in self.zones:
            body.append(f'<section class="zone" data-zone="{page.esc(z.name)}"><h3>{page.esc(z.name)}</h3>')
            for n in z.nodes:
                cls = "node" + (" unusable" if n.why else "")
                body.append(f'<div class="{cls}" data-node="{page.esc(n.name)}"><h4>{page.esc(n.name)}</h4>')
                if n.why:
                    body.append(f'<div class="why">the pods may not use it: {page.esc(n.why)}</div>')
                body.extend(_pod_html(p) for p in n.pods)
                if not n.pods:
                    body.append('<div class="none">none of these pods</div>')
                if n.others:
                    body.append(f'<div class="more">{n.others} other pod(s)</div>')
                body.append("</div>")
            if z.hidden:
                body.append(f'<div class="more">{page.esc(_hidden_text(z))}</div>')
            if z.pending:
                _pending_box(body, '<div class="pendingbox"><h4>Pending: a volume pins it here</h4>', z.pending, z.pending_hidden, "here")
            body.append("</section>")
        body.append("</div>")
        if self.pending:
            _pending_box(body, '<h2>Pending, no node</h2><div class="pendingbox">', self.pending, self.pending_hidden, "(see -o json)")
        if self.spreads:
            body.append("<h2>Topology spread (DoNotSchedule): matching pods per domain</h2>")
            for s in self.spreads:
                cls = "ok" if s.ok else "bad"
                body.append(f'<div class="spread" data-skew="{s.skew}" data-max-skew="{s.max_skew}"><p>{page.esc(s.title)}: '
                            f'<span class="{cls}">{page.esc(s.verdict)}</span> (global minimum {s.global_min})</p>')
                for pod, zone, k in s.if_placed:
                    body.append(f'<p class="{"ok" if k <= s.max_skew else "bad"}" data-if-placed="{page.esc(pod)}">'
                                f"{page.esc(s.placed_text(pod, zone, k))}</p>")
                top = max(s.counts.values(), default=0)
                bars = [(d, c, PENDING if (not s.ok and c == top) else RUNNING, f"{d}: {c} matching pod(s)") for d, c in s.counts.items()]
                if len(bars) <= 24:
                    body.append(page.bars_svg(bars, title=s.title))
                else:
                    body.append(f"<p>{len(bars)} domains, from {min(s.counts.values())} to {top} matching pods</p>")
                body.append("</div>")
        body.append(page.notes(self.notes))
        return page.document(self.title, self.subtitle, "\n".join(body))


def _hidden_text(z: ZoneColumn) -> str:
    pods = f", {z.hidden_pods} of these pods on them" if z.hidden_pods else ", none of these pods on them"
    unusable = f" ({z.hidden_unusable} the pods may not use)" if z.hidden_unusable else ""
    return f"+{z.hidden} more node(s){pods}{unusable}"


def _lines(text: str, width: int, most: int) -> list[str]:
    import textwrap

    lines = textwrap.wrap(text, width=max(20, width), break_on_hyphens=False) or [""]
    if len(lines) > most:
        lines = lines[:most]
        lines[-1] = short(lines[-1], max(4, width - 1)) if len(lines[-1]) >= width - 1 else lines[-1] + " \u2026"
    return lines


def _chip_height(p: PodMark) -> float:
    return 0.46 if p.volumes else 0.28


def _node_height(n: NodeBox) -> float:
    h = 0.36 + sum(_chip_height(p) + 0.06 for p in n.pods[:MAX_PODS])
    if len(n.pods) > MAX_PODS or n.others:
        h += 0.22
    return h


def _column_height(z: ZoneColumn) -> float:
    h = 0.6 + sum(_node_height(n) + 0.1 for n in z.nodes)
    if z.hidden:
        h += 0.3
    if z.pending:
        h += 0.45 + sum(_chip_height(p) + 0.06 for p in z.pending) + (0.22 if z.pending_hidden else 0)
    return h


def _colour(p: PodMark) -> str:
    return {"running": RUNNING, "placed": PLACED}.get(p.state, PENDING)


def _chip(ax: Any, box: Any, x: float, y: float, w: float, p: PodMark, one_line: bool = False) -> float:
    """Draw one pod with its top at ``y``; returns the y below it."""
    h = 0.28 if one_line else _chip_height(p)
    pinned = p.pinned is not None
    ax.add_patch(box((x, y - h), w, h, boxstyle="round,pad=0,rounding_size=0.04", fc=_colour(p),
                     ec=PINNED if pinned else _colour(p), lw=1.6 if pinned else 0.5, ls="--" if pinned else "-"))
    label = p.name + (f"  [{p.note}]" if p.note else "")
    if one_line and p.volumes:
        label += "  " + "; ".join(p.volumes)
    ax.text(x + 0.07, y - 0.14, short(label, int(w * 14)), fontsize=7.5, color="white", weight="bold", va="center")
    if p.volumes and not one_line:
        ax.text(x + 0.07, y - 0.33, short("; ".join(p.volumes), int(w * 17)), fontsize=6.3, color="white", va="center")
    return y - h - 0.06


def _pod_html(p: PodMark) -> str:
    cls = f"pod {p.state}" + (" pinned" if p.pinned is not None else "")
    note = f" [{page.esc(p.note)}]" if p.note else ""
    vols = "".join(f'<span class="vol">{page.esc(v)}</span>' for v in p.volumes)
    pinned = f' data-pinned="{page.esc(",".join(p.pinned))}"' if p.pinned is not None else ""
    return f'<div class="{cls}" data-pod="{page.esc(p.key)}" data-state="{p.state}"{pinned}>{page.esc(p.name)}{note}{vols}</div>'


def _spread_axes(ax: Any, s: SpreadCount) -> None:
    domains = list(s.counts)
    values = [s.counts[d] for d in domains]
    top = max(values, default=0)
    if len(domains) > 24:  # hostname-keyed on a large cluster: the spread of counts instead
        from collections import Counter

        hist = Counter(values)
        xs = sorted(hist)
        ax.bar([str(x) for x in xs], [hist[x] for x in xs], color=RUNNING if s.ok else PENDING)
        ax.set_xlabel("matching pods", fontsize=7)
        ax.set_ylabel("domains", fontsize=7)
    else:
        colours = [PENDING if (not s.ok and v == top) else RUNNING for v in values]
        ax.bar(range(len(domains)), values, color=colours)
        ax.set_xticks(range(len(domains)))
        ax.set_xticklabels([short(d, 14) for d in domains], fontsize=7, rotation=0 if len(domains) <= 4 else 30, ha="center" if len(domains) <= 4 else "right")
        for i, v in enumerate(values):
            ax.text(i, v, str(v), ha="center", va="bottom", fontsize=7)
        for pod, zone, k in s.if_placed:
            if zone in s.counts:
                i = domains.index(zone)
                ghost = k + s.global_min  # the zone's count with the pod in it
                bad_ = k > s.max_skew
                ax.bar([i], [ghost - s.counts[zone]], bottom=[s.counts[zone]], fill=False, hatch="//",
                       edgecolor=PENDING if bad_ else PINNED, ls="--", lw=1.2)
                ax.text(i, ghost, f"+{pod.split('/', 1)[1]}", ha="center", va="bottom", fontsize=7, color=PENDING if bad_ else PINNED)
                top = max(top, ghost)
        ax.axhline(s.global_min + s.max_skew, color=MUTED, lw=0.8, ls=":")
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, max(top, s.global_min + s.max_skew) + 1)
    ax.tick_params(axis="y", labelsize=7)
    title = short(s.title, 70) + "\n" + s.verdict + ("" if len(domains) > 24 else " (dotted: global minimum + maxSkew)")
    for pod, zone, k in s.if_placed[:2]:
        title += "\n" + s.placed_text(pod, zone, k)
    ax.set_title(title, fontsize=8, color=INK if s.ok and all(k <= s.max_skew for _, _, k in s.if_placed) else PENDING)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


# --------------------------------------------------------------------------- building


def volumes(snap: Snapshot, pod: Pod, zones_of: dict[str, list[str]] | None = None) -> tuple[list[str], list[str] | None]:
    """The pod's claims as "claim -> PV (zones)", and the zones its bound volumes allow together
    (None when no bound volume restricts it)."""
    zones_of = {} if zones_of is None else zones_of
    out: list[str] = []
    allowed: set[str] | None = None
    for v in pod.spec.volumes:
        pvc = snap.pvcs.get(f"{pod.namespace}/{v.claim_name}")
        if pvc is None or not pvc.volume_name:
            out.append(f"{v.claim_name} (not bound yet)" if pvc is not None else f"{v.claim_name} (created with the pod)")
            continue
        pv = snap.pvs.get(pvc.volume_name)
        if pv is None or pv.node_affinity is None:
            out.append(f"{v.claim_name} -> {pvc.volume_name}")
            continue
        zones = zones_of.get(pv.name)
        if zones is None:
            zones = zones_of[pv.name] = sorted({n.zone or NO_ZONE for n in snap.nodes.values() if node_selector_matches(pv.node_affinity, n)})
        out.append(f"{v.claim_name} -> {pv.name} ({', '.join(zones) or 'no node'})")
        allowed = set(zones) if allowed is None else allowed & set(zones)
    return out, None if allowed is None else sorted(allowed)


def _mark(snap: Snapshot, pod: Pod, state: str, node: str | None, zones_of: dict[str, list[str]], note: str = "") -> PodMark:
    n = snap.nodes.get(node) if node else None
    vols, pinned = volumes(snap, pod, zones_of)
    return PodMark(pod.key, state, node, (n.zone or NO_ZONE) if n is not None else None, vols, pinned, note)


def build(
    snap: Snapshot,
    *,
    title: str,
    subtitle: str,
    verdict: str,
    ok: bool,
    marks: list[PodMark],
    spec: PodSpec | None,
    spreads: list[dict],
    notes: list[str] | None = None,
    skew_of: set[str] | None = None,
) -> ZoneMap:
    """The map of ``marks`` on the snapshot's nodes; ``spec``: the pods' spec, for which nodes they
    may use (the static filters: cordon, taints, node affinity); ``spreads``: spread_counts (with
    the per-node skew when placing a Pending pod matters); ``skew_of``: the Pending pods that skew
    is theirs (pods of the spec the counts were taken for)."""
    marked = {m.key for m in marks}
    cordon_ok = cordon_tolerated(spec) if spec is not None else True
    on_node: dict[str, list[PodMark]] = {}
    for m in marks:
        if m.node:
            on_node.setdefault(m.node, []).append(m)
    running: dict[str, int] = {}
    for p in snap.pods.values():
        if p.assigned and not p.terminating and p.key not in marked:
            running[p.spec.node_name] = running.get(p.spec.node_name, 0) + 1
    columns: dict[str, ZoneColumn] = {z: ZoneColumn(z) for z in snap.zones}
    boxes: dict[str, list[NodeBox]] = {}
    for node in sorted(snap.nodes.values(), key=lambda n: (n.zone or NO_ZONE, n.name)):
        zone = node.zone or NO_ZONE
        columns.setdefault(zone, ZoneColumn(zone))
        why = static_exclusion(spec, node, cordon_ok) if spec is not None else None
        boxes.setdefault(zone, []).append(NodeBox(node.name, zone, why, on_node.get(node.name, []), running.get(node.name, 0)))
    for zone, col in columns.items():
        nodes = boxes.get(zone, [])
        if len(nodes) <= MAX_NODES:
            col.nodes = nodes
            continue
        ranked = sorted(nodes, key=lambda n: -len(n.pods))  # nodes with the most of these pods first
        keep = {n.name for n in ranked[:MAX_NODES]}
        col.nodes = [n for n in nodes if n.name in keep]
        hidden = [n for n in nodes if n.name not in keep]
        col.hidden = len(hidden)
        col.hidden_unusable = sum(1 for n in hidden if n.why)
        col.hidden_pods = sum(len(n.pods) for n in hidden)
    loose: list[PodMark] = []
    loose_hidden = 0
    for m in marks:
        if m.node:
            continue
        z = m.pinned_zone
        if z is not None and z in columns:
            col = columns[z]
            if len(col.pending) < MAX_PENDING:
                col.pending.append(m)
            else:
                col.pending_hidden += 1
        elif len(loose) < MAX_PENDING:
            loose.append(m)
        else:
            loose_hidden += 1
    counts = []
    zone_of = {n.name: n.zone or NO_ZONE for n in snap.nodes.values()}
    for s in spreads:
        sc = SpreadCount(s["topology_key"], s["max_skew"], s["selector"], dict(s["counts"]), s["global_min"])
        skew = s.get("skew") or {}
        if s["topology_key"] in (LABEL_ZONE, LABEL_ZONE_BETA) and skew:
            for col in columns.values():
                for m in col.pending:
                    if skew_of is None or m.key not in skew_of:
                        continue
                    here = [k for node, k in skew.items() if k is not None and zone_of.get(node) == col.name]
                    if here:
                        sc.if_placed.append((m.key, col.name, min(here)))
        counts.append(sc)
    return ZoneMap(title, subtitle, verdict, ok, list(columns.values()), loose, counts, list(notes or []), loose_hidden)


def _siblings(snap: Snapshot, target: Pod) -> list[Pod]:
    """The pods of the target's controller, and the pods its spread constraints' label selectors
    select in its namespace (what the map shows beside it)."""
    out = []
    selectors = [c.label_selector for c in target.spec.topology_spread_constraints if c.label_selector is not None]
    for p in snap.pods.values():
        if p.key == target.key or p.namespace != target.namespace or p.terminal:
            continue
        same_owner = target.owner is not None and p.owner is not None and (p.owner.kind, p.owner.name) == (target.owner.kind, target.owner.name)
        if same_owner or any(s.matches(p.labels) for s in selectors):
            out.append(p)
    return sorted(out, key=lambda p: p.name)


def for_explain(snap: Snapshot, target: Pod, result: dict) -> ZoneMap:
    """explain's answer for one pod on the map: the pod (Pending, or where it runs), the pods of its
    controller and of its spread selectors, and the spread counts explain reports."""
    zones_of: dict[str, list[str]] = {}
    ok = bool(result["schedulable"])
    bound = target.spec.node_name if target.spec.node_name in snap.nodes else None
    marks = [_mark(snap, target, "running" if bound else "pending", bound, zones_of, "the pod explained")]
    for p in _siblings(snap, target):
        node = p.spec.node_name if p.spec.node_name in snap.nodes else None
        marks.append(_mark(snap, p, "running" if node else "pending", node, zones_of))
    feasible = len(result.get("feasible_nodes") or [])
    subtitle = result["summary"] + (f" {feasible} node(s) fit." if ok and feasible else "")
    return build(
        snap,
        title=f"Pod {result['pod']}",
        subtitle=subtitle,
        verdict="schedulable" if ok else "UNSCHEDULABLE",
        ok=ok,
        marks=marks,
        spec=target.spec,
        spreads=result.get("spread") or [],
        notes=list(result.get("notes") or []),
        skew_of={target.key},
    )


def for_check(snap: Snapshot, outcome: Any, result: dict) -> ZoneMap:
    """check's answer on the map: the running pods kept, the new pods where the verified placement
    puts them (or, unschedulable, Pending), and the spread counts of that placement."""
    zones_of: dict[str, list[str]] = {}
    plans = list(outcome.plans)
    placement: dict[str, str] = dict(outcome.placement)
    marks: list[PodMark] = []
    new: list[Pod] = []
    kept: list[Pod] = []
    for plan in plans:
        for p in plan.keep:
            kept.append(p)
            marks.append(_mark(snap, p, "running", p.spec.node_name, zones_of))
        # its other running pods stay too (an older revision's, during a rollout) and count
        planned = {p.key for p in (*plan.keep, *plan.remove, *plan.new)}
        for p in pods_of_workload(snap, find_workload(snap, plan.ref)):
            if p.key not in planned and is_running(p) and p.spec.node_name in snap.nodes:
                marks.append(_mark(snap, p, "running", p.spec.node_name, zones_of, "old revision"))
        for p in plan.new:
            new.append(p)
            node = placement.get(p.key)
            marks.append(_mark(snap, p, "placed" if node else "pending", node, zones_of, "" if node else "not placed"))
    cluster = cluster_after_plans(snap, plans)
    for p in new:
        node = placement.get(p.key)
        if node:
            cluster.add_pod(replace(p, spec=replace(p.spec, node_name=node)))
    waiting = [p for p in new if p.key not in placement]
    probe = waiting[0] if waiting else new[0] if new else (replace(kept[0], spec=replace(kept[0].spec, node_name="")) if kept else None)
    # the skew each node would get: for the Pending pods a volume pins to one zone
    spreads = spread_counts(probe, cluster, per_node=bool(waiting)) if probe is not None else []
    ok = bool(result["schedulable"])
    targets = ", ".join(f"{w['workload']} x{w['replicas']}" for w in result["workloads"])
    if ok:
        subtitle = f"{len(placement)} pod(s) placed (an order that passes every filter), {len(kept)} running pod(s) kept"
    else:
        why = [e["message"] for e in result["explanation"] if e["constraint"] != "replicas"]
        subtitle = "why: " + "; ".join(why) if why else "unschedulable"
    removed = result.get("removed") or []
    notes = ([f"{len(removed)} pod(s) removed by the plan (not drawn): {', '.join(removed[:8])}"] if removed else []) + list(result.get("notes") or [])
    spec = (new or kept)[0].spec if (new or kept) else None
    return build(snap, title=targets, subtitle=subtitle, verdict="SCHEDULABLE" if ok else "UNSCHEDULABLE", ok=ok,
                 marks=marks, spec=spec, spreads=spreads, notes=notes, skew_of={p.key for p in waiting})


def _pending_box(body: list[str], head: str, pods: Any, hidden: int, where: str) -> None:
    """A box of Pending pods (``head`` opens it), with a count of those not shown."""
    body.append(head)
    body.extend(_pod_html(p) for p in pods)
    if hidden:
        body.append(f'<div class="more">+{hidden} more Pending {where}</div>')
    body.append("</div>")
