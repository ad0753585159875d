"""The replay timeline: the watched workloads' pods x the steps of a replay (simulate), each cell
Running (with its zone), Pending or gone, and under it each step's pods per zone and skew.  A
pod that is deleted and created again under the same name (a StatefulSet's ordinal) keeps its
row: gone at the step between.  The stuck pods' reasons (kube-scheduler's message) follow.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

from planner.pictures import page
from planner.pictures.draw import GONE, INK, MUTED, PENDING, RUNNING, pyplot, short

MAX_ROWS = 60  # pods drawn; pods that were ever Pending first, the rest counted


@dataclass
class Cell:
    state: str  # running | pending | gone
    where: str = ""  # the zone (else the node) of a running pod; of a Pending one, where its volumes pin it


@dataclass
class Row:
    pod: str
    cells: list[Cell]

    @property
    def ever_pending(self) -> bool:
        return any(c.state == "pending" for c in self.cells)


@dataclass
class Timeline:
    title: str
    subtitle: str
    verdict: str
    ok: bool
    steps: list[str]  # "0: the cluster as read", ...
    rows: list[Row]
    hidden: int  # pods not drawn
    zones: dict[str, list[dict[str, int]]]  # workload -> per step, zone -> its pods there
    skew: dict[str, list[Any]]  # workload -> per step, its zone skew
    stuck: list[tuple[str, int, str]]  # (pod, since step, kube-scheduler's message)
    notes: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ matplotlib

    def figure(self) -> Any:
        plt = pyplot()
        from matplotlib.patches import Rectangle

        nsteps = len(self.steps)
        label_w, cell_w, row_h = 2.6, 1.7, 0.32
        zone_rows = sum(2 + len(self._zone_names(w)) for w in self.zones)
        grid_h = (len(self.rows) + (1 if self.hidden else 0)) * row_h
        foot = 0.57 * min(len(self.stuck), 8)
        width = max(8.0, label_w + nsteps * cell_w + 0.4)
        height = 1.9 + grid_h + 0.5 + zone_rows * row_h + foot + 0.3
        fig = plt.figure(figsize=(width, height))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, width)
        ax.set_ylim(0, height)
        ax.axis("off")
        top = height - 0.35
        colour = RUNNING if self.ok else PENDING
        ax.text(0.3, top, self.title, fontsize=13, weight="bold", color=INK, va="center")
        ax.text(width - 0.3, top, self.verdict, fontsize=11, weight="bold", color="white", va="center", ha="right",
                bbox={"boxstyle": "round,pad=0.3", "fc": colour, "ec": colour})
        ax.text(0.3, top - 0.38, short(self.subtitle, int(width * 11)), fontsize=8.5, color=MUTED, va="center")
        y = top - 0.8
        for j, s in enumerate(self.steps):
            x = label_w + j * cell_w
            ax.text(x + cell_w / 2, y - 0.2, _wrap(s, 22), fontsize=7, ha="center", va="center", color=INK)
        y -= 0.55
        for r in self.rows:
            ax.text(label_w - 0.1, y - row_h / 2, short(r.pod.split("/", 1)[1], 30), fontsize=8, ha="right", va="center", color=INK)
            for j, c in enumerate(r.cells):
                x = label_w + j * cell_w
                fc = {"running": RUNNING, "pending": PENDING}.get(c.state, GONE)
                ax.add_patch(Rectangle((x + 0.03, y - row_h + 0.03), cell_w - 0.06, row_h - 0.06, fc=fc, ec="white"))
                text = {"running": short(c.where, 20), "pending": "Pending" + (f" ({short(c.where, 12)})" if c.where else "")}.get(c.state, "")
                ax.text(x + cell_w / 2, y - row_h / 2, text, fontsize=7, ha="center", va="center",
                        color="white" if c.state != "gone" else MUTED, weight="bold" if c.state == "pending" else "normal")
            y -= row_h
        if self.hidden:
            ax.text(label_w, y - row_h / 2, f"+{self.hidden} more pod(s), never Pending (see -o json)", fontsize=7.5, color=MUTED, va="center")
            y -= row_h
        y -= 0.3
        for w in self.zones:
            ax.text(0.3, y - row_h / 2, f"{w}: its pods per zone", fontsize=8, weight="bold", color=INK, va="center")
            y -= row_h
            for z in self._zone_names(w):
                ax.text(label_w - 0.1, y - row_h / 2, z, fontsize=8, ha="right", va="center", color=INK)
                for j, counts in enumerate(self.zones[w]):
                    ax.text(label_w + j * cell_w + cell_w / 2, y - row_h / 2, str(counts.get(z, 0)), fontsize=8, ha="center", va="center")
                y -= row_h
            ax.text(label_w - 0.1, y - row_h / 2, "skew", fontsize=8, ha="right", va="center", color=MUTED)
            for j, k in enumerate(self.skew[w]):
                ax.text(label_w + j * cell_w + cell_w / 2, y - row_h / 2, str(k), fontsize=8, ha="center", va="center", color=MUTED)
            y -= row_h
        for pod, since, why in self.stuck[:8]:
            for line in textwrap.wrap(f"{pod} Pending since step {since}: {why}", int(width * 13))[:2]:
                ax.text(0.3, y - 0.2, line, fontsize=7.5, color=PENDING, va="center")
                y -= 0.25
            y -= 0.07
        return fig

    def _zone_names(self, workload: str) -> list[str]:
        return sorted({z for counts in self.zones[workload] for z in counts})

    # ------------------------------------------------------------------ HTML

    def html(self) -> str:
        out = [f"<p>{page.verdict(self.verdict, self.ok)}</p>", page.legend(["running", "pending", "gone"])]
        out.append('<table class="timeline"><thead><tr><th>pod</th>')
        out.extend(f'<th class="step">{page.esc(s)}</th>' for s in self.steps)
        out.append("</tr></thead><tbody>")
        reasons = {pod: why for pod, _since, why in self.stuck}
        for r in self.rows:
            out.append(f'<tr data-pod="{page.esc(r.pod)}"><th>{page.esc(r.pod)}</th>')
            for c in r.cells:
                text = {"running": c.where, "pending": "Pending" + (f" (volume in {c.where})" if c.where else "")}.get(c.state, "")
                tip = f' title="{page.esc(reasons[r.pod])}"' if c.state == "pending" and r.pod in reasons else ""
                out.append(f'<td class="cell {c.state}" data-state="{c.state}"{tip}>{page.esc(text)}</td>')
            out.append("</tr>")
        out.append("</tbody></table>")
        if self.hidden:
            out.append(f'<p class="more">+{self.hidden} more pod(s), never Pending (see -o json)</p>')
        for w in self.zones:
            out.append(f"<h2>{page.esc(w)}: pods per zone</h2><table><thead><tr><th>zone</th>")
            out.extend(f'<th class="num">step {j}</th>' for j in range(len(self.steps)))
            out.append("</tr></thead><tbody>")
            for z in self._zone_names(w):
                out.append(f"<tr><th>{page.esc(z)}</th>" + "".join(f'<td class="num">{c.get(z, 0)}</td>' for c in self.zones[w]) + "</tr>")
            out.append("<tr><th>skew</th>" + "".join(f'<td class="num">{page.esc(k)}</td>' for k in self.skew[w]) + "</tr>")
            out.append("</tbody></table>")
        if self.stuck:
            out.append("<h2>Stuck</h2><ul>")
            out.extend(f'<li class="bad">{page.esc(pod)} Pending since step {since}: {page.esc(why)}</li>' for pod, since, why in self.stuck)
            out.append("</ul>")
        out.append(page.notes(self.notes))
        return page.document(self.title, self.subtitle, "\n".join(out))


def _wrap(text: str, n: int) -> str:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > n:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    lines.append(cur)
    return "\n".join(lines[:3]) + ("\u2026" if len(lines) > 3 else "")


def _order(pod: str) -> tuple:
    """Natural order: search-2 before search-10."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", pod))


def for_simulate(result: dict, snap: Any = None) -> Timeline:
    """simulate's answer (its JSON shape) as a timeline; ``snap``: the cluster at the end of the
    replay, whose claims say where a Pending pod's volumes pin it (written in its Pending cells)."""
    pins: dict[str, str] = {}
    if snap is not None:
        from planner.pictures.zonemap import volumes

        zones_of: dict[str, list[str]] = {}
        for s in result["steps"]:
            for k, info in s["pods"].items():
                pod = snap.pods.get(k)
                if not info.get("node") and pod is not None and k not in pins:
                    _, pinned = volumes(snap, pod, zones_of)
                    if pinned is not None:
                        pins[k] = ", ".join(pinned) or "no node"
    steps = result["steps"]
    labels = [f"{s['step']}: {s['action']}" for s in steps]
    seen: dict[str, None] = {}
    for s in steps:
        for k in s["pods"]:
            seen.setdefault(k, None)
    rows = []
    for k in sorted(seen, key=_order):
        cells = []
        for s in steps:
            info = s["pods"].get(k)
            if info is None:
                cells.append(Cell("gone"))
            elif info.get("node"):
                cells.append(Cell("running", info.get("zone") or info["node"]))
            else:
                cells.append(Cell("pending", pins.get(k, "")))
        rows.append(Row(k, cells))
    ranked = [r for r in rows if r.ever_pending] + [r for r in rows if not r.ever_pending]
    shown = sorted(ranked[:MAX_ROWS], key=lambda r: _order(r.pod))
    workloads = list(result.get("workloads") or [])
    zones = {w: [dict(s["zones"].get(w) or {}) for s in steps] for w in workloads}
    skew = {w: [s["skew"].get(w) for s in steps] for w in workloads}
    stuck = [(s["pod"], s["since_step"], (s.get("reasons") or [""])[0]) for s in result.get("stuck") or []]
    ok = bool(result["completed"])
    subtitle = (f"{len(steps) - 1} step(s) replayed pod by pod (the controllers and kube-scheduler), seed {result.get('seed', 0)}"
                + ("" if ok else f"; {len(stuck)} pod(s) stuck Pending"))
    return Timeline(
        title=", ".join(workloads) or "replay",
        subtitle=subtitle,
        verdict="COMPLETED" if ok else "STUCK",
        ok=ok,
        steps=labels,
        rows=shown,
        hidden=len(rows) - len(shown),
        zones=zones,
        skew=skew,
        stuck=stuck,
        notes=list(result.get("notes") or []),
    )
