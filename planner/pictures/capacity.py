"""The capacity curve: each replica count of the range as a bar as tall as the count, green when
it is schedulable, red when not, labelled with the constraints of its minimal explanation (the
one that limits it); the counts past the cluster's room bound as one span; and each zone's
headroom: the workload's pods running there and how many more pods like them its nodes have room
for, counting only the nodes the pods may use (schedulable, no taint they do not tolerate, their
node affinity), with what limits the room (pod slots, cpu, memory, ...).

The room is RoomBound's arithmetic per node (planner.engines.workloads.room_for), the same that
bounds the counts; it is an upper bound (spread, affinity and volumes may place fewer)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from planner.engines.workloads import WorkloadRef, base_cluster, find_workload, is_running, pods_of_workload, room_for
from planner.pictures import page
from planner.pictures.draw import INK, MUTED, PENDING, ROOM, RUNNING, UNUSABLE, pyplot, short
from planner.priority import resolve_spec
from planner.snapshot import Snapshot

MAX_BARS = 120  # counts drawn one by one; a longer range is drawn as a line

# plugin names, shorter on the bars
SHORT = {
    "PodTopologySpread": "spread",
    "InterPodAffinity": "pod affinity",
    "VolumeBinding": "volume",
    "VolumeZone": "volume zone",
    "NodeResourcesFit": "resources",
    "NodeAffinity": "node affinity",
    "TaintToleration": "taints",
    "NodeUnschedulable": "cordon",
    "NodePorts": "host ports",
    "NodeVolumeLimits": "volume limits",
    "VolumeRestrictions": "volume restrictions",
}


@dataclass
class Count:
    replicas: int
    schedulable: bool
    constraints: list[str]
    reason: str

    @property
    def limit(self) -> str:
        return ", ".join(self.constraints) or ("" if self.schedulable else "unschedulable")


@dataclass
class ZoneRoom:
    zone: str
    nodes: int
    usable: int
    running: int  # the workload's pods running in the zone
    more: int  # more pods like its template the usable nodes have room for
    limits: Counter = field(default_factory=Counter)  # what limits the room, per usable node
    excluded: Counter = field(default_factory=Counter)  # why the other nodes cannot be used

    @property
    def limit(self) -> str:
        return ", ".join(f"{k} ({n})" if len(self.limits) > 1 else k for k, n in self.limits.most_common(2))

    @property
    def unusable_text(self) -> str:
        return "; ".join(f"{n} {why}" for why, n in self.excluded.most_common(3))


@dataclass
class CapacityCurve:
    workload: str
    range_text: str
    counts: list[Count]
    past: tuple[int, int] | None
    bound: int
    bound_message: str
    max_replicas: int | None
    non_monotonic: list[int]
    zones: list[ZoneRoom]
    notes: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{self.workload}: replica counts {self.range_text}"

    @property
    def ok(self) -> bool:
        return all(c.schedulable for c in self.counts) and not self.past

    @property
    def verdict(self) -> str:
        if self.ok:
            return "every count schedulable"
        failing = sum(1 for c in self.counts if not c.schedulable) + (self.past[1] - self.past[0] + 1 if self.past else 0)
        return f"{failing:,} count(s) NOT schedulable"

    @property
    def subtitle(self) -> str:
        top = f"max_replicas {self.max_replicas}" if self.max_replicas is not None else "no count schedulable"
        mono = f"; NOT MONOTONIC: {', '.join(map(str, self.non_monotonic))} fail although a larger count works" if self.non_monotonic else ""
        return f"{top}; the cluster's room bound: {self.bound:,} replicas{mono}"

    # ------------------------------------------------------------------ matplotlib

    def figure(self) -> Any:
        plt = pyplot()
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5.2), gridspec_kw={"width_ratios": [3, 2]})
        colour = RUNNING if self.ok else PENDING
        fig.suptitle(self.title, x=0.02, ha="left", fontsize=13, weight="bold", color=INK)
        fig.text(0.98, 0.955, self.verdict, ha="right", va="center", fontsize=11, weight="bold", color="white",
                 bbox={"boxstyle": "round,pad=0.3", "fc": colour, "ec": colour})
        fig.text(0.02, 0.905, short(self.subtitle, 170), fontsize=8.5, color=MUTED)
        xs = [c.replicas for c in self.counts]
        if len(self.counts) <= MAX_BARS:
            ax.bar(xs, xs, color=[RUNNING if c.schedulable else PENDING for c in self.counts], width=0.8)
            top = max(xs, default=1)
            for first, last, label in _runs(self.counts):
                if first == last:
                    ax.text(first, first + top * 0.02, label, rotation=90, ha="center", va="bottom", fontsize=7.5, color=PENDING)
                else:  # one label over a run of counts that fail for the same reason
                    y = last + top * 0.04
                    ax.plot([first - 0.4, last + 0.4], [y, y], color=PENDING, lw=1)
                    ax.text((first + last) / 2, y + top * 0.01, f"{first}..{last}: {label}", ha="center", va="bottom", fontsize=7.5, color=PENDING)
            if len(xs) <= 30:
                ax.set_xticks(xs)
        else:
            ok = [c.replicas if c.schedulable else 0 for c in self.counts]
            ax.fill_between(xs, ok, step="mid", color=RUNNING, alpha=0.8)
            ax.fill_between(xs, [c.replicas if not c.schedulable else 0 for c in self.counts], step="mid", color=PENDING, alpha=0.8)
        hi = max(xs, default=0)
        if self.past:
            lo_p, hi_p = self.past
            shown_hi = min(hi_p, max(lo_p, hi) + max(3, (hi or 1) // 4))
            ax.axvspan(lo_p - 0.5, shown_hi + 0.5, color=PENDING, alpha=0.15, hatch="//", lw=0)
            ax.text((lo_p + shown_hi) / 2, max(hi, lo_p) * 0.5, f"{lo_p:,}..{hi_p:,}: NO\npast the room bound", ha="center", va="center",
                    fontsize=8, color=PENDING)
            hi = max(hi, shown_hi)
        labelled = any(not c.schedulable for c in self.counts) and len(self.counts) <= MAX_BARS
        ax.set_ylim(0, max(hi, 1) * (1.45 if labelled else 1.1))
        if self.bound <= max(hi, 1) * 1.6:
            ax.axhline(self.bound, color=MUTED, lw=1, ls="--")
            ax.text(min(xs, default=0) - 0.4, self.bound, f" room bound {self.bound:,}", va="bottom", fontsize=7.5, color=MUTED)
        ax.set_xlabel("replicas asked")
        ax.set_ylabel("replicas")
        ax.set_title("schedulable (green) or not (red, with the constraint that limits it)", fontsize=9, color=INK)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        names = [z.zone for z in self.zones]
        running = [z.running for z in self.zones]
        more = [z.more for z in self.zones]
        bx.bar(names, running, color=RUNNING, label="its pods running")
        bx.bar(names, more, bottom=running, color=ROOM, label="room for more (usable nodes)")
        peak = max((r + m for r, m in zip(running, more)), default=1) or 1
        for i, z in enumerate(self.zones):
            text = f"{z.running} running, room for {z.more:,} more\n{z.usable}/{z.nodes} nodes usable"
            if z.limit:
                text += f"\nlimit: {z.limit}"
            if z.excluded:
                text += f"\nnot usable: {short(z.unusable_text, 34)}"
            bx.text(i, z.running + z.more + peak * 0.02, text, ha="center", va="bottom", fontsize=7, color=INK if z.usable else UNUSABLE)
        bx.set_ylim(0, peak * 1.45)
        bx.set_ylabel("pods like the workload's")
        bx.set_title("headroom per zone (nodes the pods may use only)", fontsize=9, color=INK)
        bx.legend(fontsize=7, loc="upper right", frameon=False)
        bx.tick_params(axis="x", labelsize=8)
        for side in ("top", "right"):
            bx.spines[side].set_visible(False)
        fig.tight_layout(rect=(0, 0, 1, 0.88))
        return fig

    # ------------------------------------------------------------------ HTML

    def html(self) -> str:
        out = [f"<p>{page.verdict(self.verdict, self.ok)}</p>"]
        bars = [(str(c.replicas), c.replicas, RUNNING if c.schedulable else PENDING,
                 f"{c.replicas} replicas: " + ("schedulable" if c.schedulable else f"NOT schedulable ({c.limit})"))
                for c in self.counts[:MAX_BARS]]
        out.append("<h2>Replica counts</h2>")
        out.append(page.bars_svg(bars, height=140, bar=28, title="replica counts"))
        out.append('<table class="counts"><thead><tr><th class="num">replicas</th><th>schedulable</th><th>limited by</th><th>why</th></tr></thead><tbody>')
        for c in self.counts:
            yes = '<span class="ok">yes</span>' if c.schedulable else '<span class="bad">NO</span>'
            out.append(f'<tr data-replicas="{c.replicas}" data-schedulable="{str(c.schedulable).lower()}"><td class="num">{c.replicas}</td>'
                       f"<td>{yes}</td><td>{page.esc(c.limit)}</td><td>{page.esc(c.reason)}</td></tr>")
        if self.past:
            out.append(f'<tr><td class="num">{self.past[0]:,}..{self.past[1]:,}</td><td><span class="bad">NO</span></td>'
                       f"<td>NodeResourcesFit</td><td>{page.esc(self.bound_message)}</td></tr>")
        out.append("</tbody></table>")
        out.append("<h2>Headroom per zone (nodes the pods may use only)</h2>")
        out.append('<table class="headroom"><thead><tr><th>zone</th><th class="num">its pods running</th><th class="num">room for more</th>'
                   "<th>usable nodes</th><th>room limited by</th><th>not usable</th></tr></thead><tbody>")
        for z in self.zones:
            out.append(f'<tr data-zone="{page.esc(z.zone)}"><td>{page.esc(z.zone)}</td><td class="num">{z.running}</td><td class="num">{z.more:,}</td>'
                       f"<td>{z.usable}/{z.nodes}</td><td>{page.esc(z.limit)}</td><td>{page.esc(z.unusable_text)}</td></tr>")
        out.append("</tbody></table>")
        out.append(page.notes(self.notes))
        return page.document(self.title, self.subtitle, "\n".join(out))


def _runs(counts: list[Count]) -> list[tuple[int, int, str]]:
    """The failing counts as runs of consecutive counts with the same limiting constraints:
    (first, last, label)."""
    out: list[tuple[int, int, str]] = []
    for c in counts:
        if c.schedulable:
            continue
        label = ", ".join(SHORT.get(k, k) for k in c.constraints) or "unschedulable"
        if out and out[-1][2] == label and out[-1][1] == c.replicas - 1:
            out[-1] = (out[-1][0], c.replicas, label)
        else:
            out.append((c.replicas, c.replicas, label))
    return out


def zone_rooms(snap: Snapshot, ref: WorkloadRef) -> list[ZoneRoom]:
    """Each zone's nodes, those the workload's pods may use, its pods running there, and the room
    for more pods like its template on the usable ones (room_for, node by node)."""
    obj = find_workload(snap, ref)
    spec = resolve_spec(obj.template.spec, snap.priority_classes)
    per_node: dict[str, tuple[bool, int, str]] = {}
    room_for(spec, base_cluster(snap), per_node=per_node)
    zones: dict[str, ZoneRoom] = {}
    for node in sorted(snap.nodes.values(), key=lambda n: (n.zone or "", n.name)):
        z = zones.setdefault(node.zone or "(no zone)", ZoneRoom(node.zone or "(no zone)", 0, 0, 0, 0))
        z.nodes += 1
        usable, k, why = per_node.get(node.name, (False, 0, "not in the scheduler's cache"))
        if usable:
            z.usable += 1
            z.more += k
            z.limits[why] += 1
        else:
            z.excluded[why] += 1
    for p in pods_of_workload(snap, obj):
        if is_running(p):
            n = snap.nodes.get(p.spec.node_name)
            if n is not None:
                zones[n.zone or "(no zone)"].running += 1
    return list(zones.values())


def for_capacity(snap: Snapshot, ref: WorkloadRef, result: dict) -> CapacityCurve:
    """capacity's answer (its JSON shape) for ``ref`` as a curve."""
    counts = [Count(r["replicas"], r["schedulable"], list(r.get("constraints") or []), r["reason"]) for r in result["replicas"]]
    bound = result.get("bound") or {}
    past = bound.get("past")
    rng = result.get("range") or {}
    return CapacityCurve(
        workload=result["workload"],
        range_text=f"{rng.get('min')}..{rng.get('max')} ({rng.get('source')})" if rng else "",
        counts=counts,
        past=(past["min"], past["max"]) if past else None,
        bound=int(bound.get("max_replicas", 0)),
        bound_message=str(bound.get("message", "")),
        max_replicas=result.get("max_replicas"),
        non_monotonic=list(result.get("non_monotonic") or []),
        zones=zone_rooms(snap, ref),
        notes=list(result.get("notes") or []),
    )
