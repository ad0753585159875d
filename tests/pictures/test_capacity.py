"""The capacity curve: bars as tall as their count, the constraint that limits each failing one,
and each zone's headroom on the nodes the pods may use only."""

from __future__ import annotations

import json

from planner.engines.workloads import parse_workload
from planner.load import load_snapshot
from planner.pictures.capacity import _runs, for_capacity, zone_rooms
from planner.pictures.draw import PENDING, ROOM, RUNNING
from tests.conftest import ROOT, SCENARIOS, run_cli
from tests.pictures.support import count_colour, png_pixels, well_formed

S001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"
DS = SCENARIOS / "daemonsets-node-groups.yaml"


def test_failing_counts_name_their_limiting_constraints():
    r = run_cli(["capacity", S001, "-w", "statefulset/search", "-o", "json"])
    rows = {x["replicas"]: x for x in json.loads(r.out)["replicas"]}
    assert rows[3]["constraints"] == ["VolumeBinding", "PodTopologySpread"]
    assert all(rows[n]["constraints"] == [] for n in (2, 4, 5, 6))


def test_headroom_counts_usable_nodes_only():
    snap = load_snapshot([DS])
    rooms = {z.zone: z for z in zone_rooms(snap, parse_workload("deployment/web", None))}
    a, b = rooms["zone-a"], rooms["zone-b"]
    # zone-a: a GPU node tainted for other pods; zone-b: a cordoned node
    assert (a.nodes, a.usable, b.nodes, b.usable) == (3, 2, 3, 2)
    assert list(a.excluded) == ["taint nvidia.com/gpu=true:NoSchedule"] and list(b.excluded) == ["cordoned"]
    assert a.running == 6 and b.running == 6
    # the usable nodes are full: no room, cpu limits it (the old plot counted the free cpu of the
    # tainted and cordoned nodes as headroom)
    assert (a.more, b.more) == (0, 0) and set(a.limits) == {"cpu"}


def test_runs_group_counts_failing_alike():
    from planner.pictures.capacity import Count

    counts = [Count(1, True, [], ""), Count(2, False, ["InterPodAffinity"], "x"), Count(3, False, ["InterPodAffinity"], "x"),
              Count(4, False, ["NodeResourcesFit"], "y"), Count(6, False, ["NodeResourcesFit"], "y")]
    assert _runs(counts) == [(2, 3, "pod affinity"), (4, 4, "resources"), (6, 6, "resources")]


def test_png_bars_grow_with_the_count(tmp_path):
    png = tmp_path / "c.png"
    r = run_cli(["capacity", S001, "-w", "statefulset/search", "--plot", png])
    assert r.code == 1 and f"wrote {png}" in r.err
    px = png_pixels(png)
    green = count_colour(px, RUNNING)
    red = count_colour(px, PENDING)
    assert red > 1000 and green > 4 * red  # counts 2, 4, 5, 6 green (17 units) against 3 red (3 units)
    assert count_colour(px, ROOM) > 5000


def test_curve_and_html(tmp_path):
    snap = load_snapshot([S001])
    r = run_cli(["capacity", S001, "-w", "statefulset/search", "-o", "json"])
    curve = for_capacity(snap, parse_workload("statefulset/search", None), json.loads(r.out))
    assert [c.replicas for c in curve.counts] == [2, 3, 4, 5, 6] and curve.non_monotonic == [3]
    assert curve.bound == 48 and curve.past is None
    page = tmp_path / "c.html"
    r = run_cli(["capacity", S001, "-w", "statefulset/search", "--html", page])
    p = well_formed(page.read_text())
    rows = [(a["data-replicas"], a["data-schedulable"]) for tag, a, _ in p.elements if tag == "tr" and "data-replicas" in a]
    assert rows == [("2", "true"), ("3", "false"), ("4", "true"), ("5", "true"), ("6", "true")]
    assert "VolumeBinding, PodTopologySpread" in page.read_text()


def test_pod_file_takes_no_picture(tmp_path):
    r = run_cli(["capacity", S001, "--pod-file", ROOT / "examples/pods/worker.yaml", "--html", tmp_path / "x.html"])
    assert r.code == 2 and "--html goes with --workload" in r.err
