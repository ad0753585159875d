"""The replay timeline of simulate: pods x steps, Pending, Running (zone) or gone."""

from __future__ import annotations

import json

from planner.pictures.draw import GONE, PENDING, RUNNING
from planner.pictures.timeline import for_simulate
from tests.conftest import SCENARIOS, run_cli
from tests.pictures.support import count_colour, png_pixels, well_formed

REPLAY = SCENARIOS / "hpa-scale-down-up-replay.yaml"


def _result(*extra: str) -> dict:
    r = run_cli(["simulate", REPLAY, "-w", "statefulset/search", "-o", "json", *extra])
    return json.loads(r.out)


def test_scale_down_and_up_shows_the_pod_pending_between():
    t = for_simulate(_result())
    assert t.ok and t.verdict == "COMPLETED"
    assert t.steps[0] == "0: the cluster as read" and len(t.steps) == 4
    rows = {r.pod: [(c.state, c.where) for c in r.cells] for r in t.rows}
    assert list(rows) == ["default/search-0", "default/search-1", "default/search-2", "default/search-3"]
    # 4 -> 2 -> 3: search-2 is deleted, comes back Pending (its volume is in zone-a), and runs at 4
    assert [s for s, _ in rows["default/search-2"]] == ["running", "gone", "pending", "running"]
    assert rows["default/search-2"][3] == ("running", "zone-a")
    assert [s for s, _ in rows["default/search-3"]] == ["running", "gone", "gone", "running"]
    assert t.zones["statefulset/default/search"][2] == {"zone-a": 1, "zone-b": 1, "zone-c": 0}
    assert t.skew["statefulset/default/search"] == [1, 1, 1, 1]


def test_pending_cells_say_where_the_volume_pins_the_pod(tmp_path):
    page = tmp_path / "t.html"
    r = run_cli(["simulate", REPLAY, "-w", "statefulset/search", "--pod-management", "OrderedReady", "--html", page])
    assert r.code == 1
    p = well_formed(page.read_text())
    cells = [a for tag, a, anc in p.elements if tag == "td" and "data-state" in a]
    assert len(cells) == 16
    text = page.read_text()
    assert "Pending (volume in zone-a)" in text and "STUCK" in text
    assert "default/search-2 Pending since step 2" in text


def test_png_is_drawn(tmp_path):
    png = tmp_path / "t.png"
    r = run_cli(["simulate", REPLAY, "-w", "statefulset/search", "--plot", png])
    assert r.code == 0 and f"wrote {png}" in r.err
    px = png_pixels(png)
    assert count_colour(px, RUNNING) > 5000 and count_colour(px, PENDING) > 500 and count_colour(px, GONE, 3) > 1000


def test_a_long_replay_keeps_the_pods_that_were_pending():
    result = _result()
    # many pods that never wait: only MAX_ROWS are drawn, the Pending one among them
    extra = {f"default/filler-{i}": {"node": "general-zone-a-0", "zone": "zone-a", "phase": "Running"} for i in range(100)}
    for s in result["steps"]:
        s["pods"].update(extra)
    t = for_simulate(result)
    assert len(t.rows) == 60 and t.hidden == 44
    assert "default/search-2" in {r.pod for r in t.rows}
