"""The HTML pages in a real browser: headless Chromium loads each page from a file, offline, and
the DOM it builds (--dump-dom) holds the zones, pods, steps and counts; its screenshot shows the
verdict's colour.  Skipped, saying so, when Chromium is not installed (.ci/run installs it)."""

from __future__ import annotations

import pytest

from planner.pictures.draw import PENDING, RUNNING
from tests.conftest import SCENARIOS, run_cli
from tests.pictures.support import chromium, count_colour, png_pixels, read_page, render

S001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    d = tmp_path_factory.mktemp("pages")
    runs = {
        "map": ["check", S001, "-w", "statefulset/search", "--replicas", "3"],
        "timeline": ["simulate", SCENARIOS / "hpa-scale-down-up-replay.yaml", "-w", "statefulset/search"],
        "curve": ["capacity", S001, "-w", "statefulset/search"],
    }
    out = {}
    for name, argv in runs.items():
        path = d / f"{name}.html"
        r = run_cli([*argv, "--html", path])
        assert r.code in (0, 1) and path.is_file(), r.err
        out[name] = path
    return out


def _dom(browser: str, path) -> object:
    r = render(browser, path, "--dump-dom")
    assert r.returncode == 0, r.stderr.decode(errors="replace")[-2000:]
    dom = r.stdout.decode()
    assert "<body" in dom
    return read_page(dom)


def test_zone_map_renders(pages):
    browser = chromium()
    dom = _dom(browser, pages["map"])
    sections = [a["data-zone"] for tag, a, _ in dom.elements if tag == "section"]
    assert sections == ["zone-a", "zone-b", "zone-c"]
    pods = {a["data-pod"]: a for tag, a, _ in dom.elements if "data-pod" in a}
    assert pods["default/search-2"]["data-state"] == "pending" and pods["default/search-2"]["data-pinned"] == "zone-a"
    assert pods["default/search-0"]["data-state"] == "running"
    bars = {a["data-label"]: a["data-value"] for tag, a, _ in dom.elements if tag == "g" and "data-label" in a}
    assert bars == {"zone-a": "1", "zone-b": "1", "zone-c": "0"}
    assert "UNSCHEDULABLE" in "".join(dom.text)


def test_timeline_renders(pages):
    browser = chromium()
    dom = _dom(browser, pages["timeline"])
    states = [a["data-state"] for tag, a, _ in dom.elements if tag == "td" and "data-state" in a]
    assert states.count("pending") == 1 and states.count("running") == 12 and states.count("gone") == 3
    assert "COMPLETED" in "".join(dom.text)


def test_capacity_curve_renders_and_shows_its_colours(pages, tmp_path):
    browser = chromium()
    dom = _dom(browser, pages["curve"])
    rows = [a["data-schedulable"] for tag, a, _ in dom.elements if tag == "tr" and "data-replicas" in a]
    assert rows == ["true", "false", "true", "true", "true"]
    shot = tmp_path / "curve.png"
    r = render(browser, pages["curve"], f"--screenshot={shot}")
    assert r.returncode == 0 and shot.is_file(), r.stderr.decode(errors="replace")[-2000:]
    px = png_pixels(shot)
    # the bars and the verdict are drawn: green and red pixels on the screen
    assert count_colour(px, RUNNING, 6) > 1000 and count_colour(px, PENDING, 6) > 500
