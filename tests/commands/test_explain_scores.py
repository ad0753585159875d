"""planner explain --scores on the command line: the score table, its order (the JSON's), and a pod
without feasible nodes (no scores, exit 1 as without --scores)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import SCENARIOS, run_cli

S001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"
S002 = SCENARIOS / "zone-spread-scale-up.yaml"
POD = "batch/batch-worker-67876b4f55-rkf8h"  # 3 alike feasible nodes: one row
S003 = SCENARIOS / "zone-anti-affinity-six-replicas-fixed.yaml"
POD3 = "default/az-spread-test-6c77fcdb94-d7r5q"  # 4 feasible nodes, 4 totals


def _score_rows(out: str) -> list[list[str]]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("Scores ("))
    rows = []
    for line in lines[start + 1 :]:
        if not line.startswith("  ") or line.startswith("    "):
            break
        rows.append(line.split())
    return rows


@pytest.mark.parametrize("path,pod", [(S002, POD), (S003, POD3)])
def test_scores_table_follows_the_json(path, pod):
    j = run_cli(["explain", path, "--pod", pod, "--scores", "-o", "json"])
    t = run_cli(["explain", path, "--pod", pod, "--scores"])
    assert j.code == t.code == 0, j.err + t.err
    data = json.loads(j.out)
    scored = [n for n in data["nodes"] if "scores" in n]
    assert len(scored) == len(data["feasible_nodes"]) >= 2
    rows = _score_rows(t.out)
    header, body = rows[0], rows[1:]
    plugins = scored[0]["scores"]
    assert header[:2] == ["NODE", "ZONE"] and header[-1] == "TOTAL" and len(header) == 3 + len(plugins)
    assert header[2] == f"TAINT*{plugins[0]['weight']}"
    # one row per node (or per group of alike nodes: same zone, same scores), in the JSON's order
    groups: dict[tuple, list[str]] = {}
    for n in scored:
        groups.setdefault((n["zone"], tuple(s["score"] for s in n["scores"])), []).append(n["name"])
    assert [r[0] for r in body] == [g[0] for g in groups.values()]
    assert [int(r[-1]) for r in body] == sorted((int(r[-1]) for r in body), reverse=True)
    for row, g in zip(body, groups.values()):
        assert (f"(+{len(g) - 1}" in row) == (len(g) > 1)
    for row in body:
        n = next(x for x in scored if x["name"] == row[0])
        tail = row[-(len(plugins) + 1):]
        assert tail == [str(s["score"]) for s in n["scores"]] + [str(n["total_score"])]
    for s in data["skipped_score_plugins"]:
        assert s in t.out


def test_scores_without_feasible_nodes():
    plain = run_cli(["explain", S001, "--pod", "default/search-2"])
    t = run_cli(["explain", S001, "--pod", "default/search-2", "--scores"])
    j = run_cli(["explain", S001, "--pod", "default/search-2", "--scores", "-o", "json"])
    assert plain.code == t.code == j.code == 1
    assert t.out == plain.out  # nothing to score: the same answer
    data = json.loads(j.out)
    assert data["feasible_nodes"] == [] and "skipped_score_plugins" not in data
    assert all("scores" not in n and "total_score" not in n for n in data["nodes"])
    plain_json = json.loads(run_cli(["explain", S001, "--pod", "default/search-2", "-o", "json"]).out)
    assert data == plain_json


def test_scores_option_is_off_by_default():
    data = json.loads(run_cli(["explain", S002, "--pod", POD, "-o", "json"]).out)
    assert all("scores" not in n for n in data["nodes"]) and "skipped_score_plugins" not in data
