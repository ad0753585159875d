"""Self-contained HTML pages: one document with its CSS inline and its charts as inline SVG; no
script, no font, image or style sheet fetched from anywhere (it opens the same offline, from a
CI artifact or an email)."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from planner.pictures.draw import GONE, INK, MUTED, PENDING, PINNED, PLACED, ROOM, RUNNING, UNUSABLE

CSS = f"""
:root {{ color-scheme: light; }}
body {{ font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: {INK};
  margin: 24px; background: #fafafa; }}
h1 {{ font-size: 20px; margin: 0 0 4px; }}
h2 {{ font-size: 16px; margin: 24px 0 8px; }}
p.sub {{ margin: 0 0 16px; color: {MUTED}; }}
.verdict {{ font-weight: 700; padding: 1px 8px; border-radius: 4px; color: #fff; }}
.verdict.yes {{ background: {RUNNING}; }}
.verdict.no {{ background: {PENDING}; }}
.legend {{ display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0 16px; color: {MUTED}; }}
.legend span::before {{ content: ""; display: inline-block; width: 12px; height: 12px; margin-right: 4px;
  vertical-align: -2px; border-radius: 2px; background: var(--c); border: 2px solid var(--b, transparent); }}
.zones {{ display: flex; gap: 12px; align-items: flex-start; overflow-x: auto; }}
.zone {{ flex: 1 1 0; min-width: 220px; background: #fff; border: 1px solid #ddd; border-radius: 8px; padding: 8px; }}
.zone > h3 {{ margin: 0 0 8px; font-size: 15px; }}
.node {{ border: 1px solid #ccc; border-radius: 6px; padding: 6px; margin: 0 0 8px; background: #fff; }}
.node.unusable {{ background: repeating-linear-gradient(45deg, #f5f5f5, #f5f5f5 6px, #e8e8e8 6px, #e8e8e8 12px); }}
.node h4 {{ margin: 0 0 4px; font-size: 13px; font-weight: 600; }}
.node .why, .more, .none {{ color: {MUTED}; font-size: 12px; }}
.pod {{ display: block; margin: 3px 0; padding: 3px 6px; border-radius: 4px; color: #fff; font-size: 12px;
  border: 2px solid transparent; word-break: break-all; }}
.pod.running {{ background: {RUNNING}; }}
.pod.placed {{ background: {PLACED}; }}
.pod.pending {{ background: {PENDING}; }}
.pod.pinned {{ border: 2px dashed {PINNED}; }}
.pod .vol {{ display: block; font-size: 11px; opacity: .9; }}
.pendingbox {{ border: 2px dashed {PENDING}; border-radius: 6px; padding: 6px; margin: 0 0 8px; }}
.pendingbox h4 {{ margin: 0 0 4px; font-size: 13px; color: {PENDING}; }}
table {{ border-collapse: collapse; background: #fff; }}
th, td {{ border: 1px solid #ddd; padding: 4px 8px; text-align: left; font-size: 13px; vertical-align: top; }}
th {{ background: #f0f0f0; }}
td.cell {{ min-width: 84px; text-align: center; }}
td.running {{ background: {RUNNING}; color: #fff; }}
td.pending {{ background: {PENDING}; color: #fff; font-weight: 700; }}
td.gone {{ background: {GONE}; color: {MUTED}; }}
td.num, th.num {{ text-align: right; }}
.ok {{ color: {RUNNING}; font-weight: 700; }}
.bad {{ color: {PENDING}; font-weight: 700; }}
ul.notes {{ color: {MUTED}; }}
svg text {{ font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }}
"""

LEGEND = {
    "running": ("Running", RUNNING, None),
    "placed": ("placed by the answer", PLACED, None),
    "pending": ("Pending", PENDING, None),
    "pinned": ("a volume pins it to a zone", "#fff", PINNED),
    "gone": ("no such pod", GONE, None),
    "unusable": ("node the pod may not use", UNUSABLE, None),
    "room": ("room for more pods", ROOM, None),
}


def esc(text: object) -> str:
    return escape(str(text), quote=True)


def legend(keys: Iterable[str]) -> str:
    parts = []
    for k in keys:
        label, colour, border = LEGEND[k]
        style = f"--c:{colour}" + (f";--b:{border}" if border else "")
        parts.append(f'<span style="{style}">{esc(label)}</span>')
    return '<div class="legend">' + "".join(parts) + "</div>"


def verdict(text: str, ok: bool) -> str:
    return f'<span class="verdict {"yes" if ok else "no"}">{esc(text)}</span>'


def notes(items: Iterable[str]) -> str:
    items = list(items)
    if not items:
        return ""
    return "<h2>Notes</h2><ul class=\"notes\">" + "".join(f"<li>{esc(n)}</li>" for n in items) + "</ul>"


def document(title: str, subtitle: str, body: str) -> str:
    """A whole HTML document: ``body`` is already HTML."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="planner">\n'
        f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f"<h1>{esc(title)}</h1>\n<p class=\"sub\">{esc(subtitle)}</p>\n{body}\n</body>\n</html>\n"
    )


def bars_svg(values: list[tuple[str, int, str, str]], height: int = 120, bar: int = 36, title: str = "") -> str:
    """A small vertical bar chart as inline SVG: (label, value, colour, tooltip) per bar, the value
    written above each bar."""
    top = max((v for _, v, _, _ in values), default=0) or 1
    gap = 12
    width = len(values) * (bar + gap) + gap
    h = height + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{h}" viewBox="0 0 {width} {h}" role="img"'
             + (f' aria-label="{esc(title)}"' if title else "") + ">"]
    for i, (label, v, colour, tip) in enumerate(values):
        x = gap + i * (bar + gap)
        bh = round(height * v / top) if v else 0
        y = 16 + height - bh
        parts.append(f'<g class="bar" data-label="{esc(label)}" data-value="{v}"><title>{esc(tip)}</title>'
                     f'<rect x="{x}" y="{y}" width="{bar}" height="{max(bh, 1)}" fill="{colour}"/>'
                     f'<text x="{x + bar / 2}" y="{y - 3}" font-size="11" text-anchor="middle">{v}</text>'
                     f'<text x="{x + bar / 2}" y="{16 + height + 14}" font-size="11" text-anchor="middle">{esc(label[:12])}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
