"""The zone map of explain and check: what is drawn where (the scene), the PNG and SVG written,
and the HTML page well-formed."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from planner.engines.check import check_replicas
from planner.engines.workloads import parse_workload
from planner.load import load_snapshot
from planner.pictures.draw import PENDING, PINNED, RUNNING
from planner.pictures.zonemap import for_check, for_explain
from tests.conftest import SCENARIOS, run_cli
from tests.pictures.support import count_colour, png_pixels, well_formed

S001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"


def _check_map(replicas: int):
    import json

    snap = load_snapshot([S001])
    out = check_replicas(snap, [parse_workload("statefulset/search", None)], replicas)
    r = run_cli(["check", S001, "-w", "statefulset/search", "--replicas", str(replicas), "-o", "json"])
    return for_check(snap, out, json.loads(r.out))


def _where(zm, key: str):
    for z in zm.zones:
        for n in z.nodes:
            for p in n.pods:
                if p.key == key:
                    return z.name, n.name, p
        for p in z.pending:
            if p.key == key:
                return z.name, None, p
    for p in zm.pending:
        if p.key == key:
            return None, None, p
    raise AssertionError(f"{key} is not on the map")


def test_check_unschedulable_draws_the_pinned_pod_pending_in_its_volumes_zone():
    zm = _check_map(3)
    assert not zm.ok and zm.verdict == "UNSCHEDULABLE"
    assert [z.name for z in zm.zones] == ["zone-a", "zone-b", "zone-c"]
    assert [n.name for n in zm.zones[2].nodes] == ["general-zone-c-0", "general-zone-c-1"]  # every node, empty ones too
    zone, node, pod = _where(zm, "default/search-2")
    assert (zone, node, pod.state, pod.pinned) == ("zone-a", None, "pending", ["zone-a"])
    assert pod.volumes == ["data-search-2 -> pv-data-search-2 (zone-a)"]
    assert _where(zm, "default/search-0")[:2] == ("zone-a", "general-zone-a-0")
    assert _where(zm, "default/search-1")[:2] == ("zone-b", "general-zone-b-0")
    # PodTopologySpread's counts, and the skew search-2 would make where its volume is
    (s,) = zm.spreads
    assert (s.topology_key, s.counts, s.global_min, s.skew, s.ok) == ("topology.kubernetes.io/zone", {"zone-a": 1, "zone-b": 1, "zone-c": 0}, 0, 1, True)
    assert s.if_placed == [("default/search-2", "zone-a", 2)]


def test_check_schedulable_draws_the_placement():
    zm = _check_map(5)
    assert zm.ok and not zm.pending and not any(z.pending for z in zm.zones)
    placed = {p.key: (z.name, n.name) for z in zm.zones for n in z.nodes for p in n.pods if p.state == "placed"}
    assert set(placed) == {"default/search-2", "default/search-3", "default/search-4"}
    assert placed["default/search-2"][0] == "zone-a"  # its volume's zone
    (s,) = zm.spreads
    assert sum(s.counts.values()) == 5 and s.ok and s.if_placed == []


def test_explain_map_marks_the_pod_explained():
    import json

    snap = load_snapshot([S001])
    r = run_cli(["explain", S001, "--pod", "search-2", "-o", "json"])
    zm = for_explain(snap, snap.pods["default/search-2"], json.loads(r.out))
    zone, _node, pod = _where(zm, "default/search-2")
    assert zone == "zone-a" and pod.note == "the pod explained" and pod.state == "pending"
    assert {p.key for z in zm.zones for n in z.nodes for p in n.pods} == {"default/search-0", "default/search-1"}
    assert zm.spreads[0].if_placed == [("default/search-2", "zone-a", 2)]


def test_unusable_nodes_are_marked_with_the_reason():
    import json

    path = SCENARIOS / "daemonsets-node-groups.yaml"
    snap = load_snapshot([path])
    ref = parse_workload("deployment/web", None)
    out = check_replicas(snap, [ref], None)
    r = run_cli(["check", path, "-w", "deployment/web", "-o", "json"])
    zm = for_check(snap, out, json.loads(r.out))
    why = {n.name: n.why for z in zm.zones for n in z.nodes}
    assert why["general-zone-b-2"] == "cordoned"
    assert why["gpu-zone-a-0"].startswith("taint nvidia.com/gpu")
    assert why["general-zone-a-0"] is None


def test_png_and_svg_are_drawn(tmp_path):
    png, svg = tmp_path / "map.png", tmp_path / "map.svg"
    r = run_cli(["check", S001, "-w", "statefulset/search", "--replicas", "3", "--plot", png])
    assert r.code == 1 and f"wrote {png}" in r.err
    pixels = png_pixels(png)
    assert pixels.shape[0] > 400 and pixels.shape[1] > 800
    # the running pods (green), the Pending one (red), the volume pin (orange)
    assert count_colour(pixels, RUNNING) > 2000 and count_colour(pixels, PENDING) > 1000 and count_colour(pixels, PINNED) > 100
    r = run_cli(["check", S001, "-w", "statefulset/search", "--replicas", "3", "--plot", svg])
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    text = svg.read_text()
    assert "search-2" in text and "zone-c" in text  # text kept as text


def test_the_same_picture_gives_the_same_bytes(tmp_path):
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    for p in (a, b):
        run_cli(["explain", S001, "--pod", "search-2", "--plot", p])
    assert a.read_bytes() == b.read_bytes()


def test_html_page_is_well_formed_and_self_contained(tmp_path):
    page = tmp_path / "map.html"
    r = run_cli(["explain", S001, "--pod", "search-2", "--html", page])
    assert r.code == 1 and f"wrote {page}" in r.err
    p = well_formed(page.read_text())
    pods = {a["data-pod"]: (a["data-state"], [x for x in anc]) for tag, a, anc in p.elements if "data-pod" in a}
    assert pods["default/search-2"][0] == "pending"
    zones = [a["data-zone"] for tag, a, _ in p.elements if tag == "section"]
    assert zones == ["zone-a", "zone-b", "zone-c"]
    assert p.find("p", data_if_placed="default/search-2")


def test_picture_flags_are_checked_before_any_work(tmp_path):
    r = run_cli(["explain", SCENARIOS / "zone-anti-affinity-six-replicas.yaml", "-A", "--plot", tmp_path / "x.png"])
    assert r.code == 2 and "zone map of one pod" in r.err
    r = run_cli(["check", S001, "-w", "statefulset/search", "--plot", tmp_path / "x.html"])
    assert r.code == 2 and "--html FILE" in r.err
    r = run_cli(["check", S001, "-w", "statefulset/search", "--html", tmp_path])
    assert r.code == 2 and "is a directory" in r.err
    r = run_cli(["check", S001, "-w", "statefulset/search", "--plot", tmp_path / "m.png", "--html", tmp_path / "m.png"])
    assert r.code == 2 and "same file" in r.err
    assert list(tmp_path.iterdir()) == []


def test_check_draws_the_old_revision_pods_that_stay():
    """A chart's new template: the running pods are the previous revision, stay and count; they
    are drawn where they run, the new pods Pending."""
    import json

    seed4, chart = SCENARIOS / "rollout-hostname-anti-affinity.yaml", SCENARIOS.parent / "examples" / "helm" / "web-chart.yaml"
    snap = load_snapshot([seed4, chart])
    out = check_replicas(snap, [parse_workload("deployment/web", None)], None)
    r = run_cli(["check", seed4, chart, "-w", "deployment/web", "-o", "json"])
    zm = for_check(snap, out, json.loads(r.out))
    running = {p.key: (n.name, p.note) for z in zm.zones for n in z.nodes for p in n.pods}
    assert sorted(v for v in running.values()) == [("node0", "old revision"), ("node1", "old revision")]
    assert [(p.state, p.note) for p in zm.pending] == [("pending", "not placed")] * 2
