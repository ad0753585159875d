"""A List file read by two processes (planner.load.parallel) gives what one process gives: the
same snapshot in the same order, the same notes, the same error messages -- whatever happens to
the child or to the split."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import planner.load as load
from bench import generate
from planner.errors import InputError
from planner.load import Limits, parallel, stream

LIMITS = Limits(json_strict_bytes=0)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("cluster")
    return generate.generate(12, 3, 2, ["json", "compact", "yaml"], out)


class Spy:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.merged: list[bool] = []
        real = parallel._merge

        def merge(sink, theirs):  # type: ignore[no-untyped-def]
            ok = real(sink, theirs)
            self.merged.append(ok)
            return ok

        monkeypatch.setattr(parallel, "_merge", merge)
        monkeypatch.setattr(parallel, "MIN_BYTES", 0)
        monkeypatch.setenv("PLANNER_LOAD_PROCESSES", "")
        monkeypatch.setattr(parallel, "usable", lambda size: True)


def outcome(path: Path, processes: str, monkeypatch: pytest.MonkeyPatch, limits: Limits = LIMITS) -> object:
    monkeypatch.setenv("PLANNER_LOAD_PROCESSES", processes)
    try:
        return load._load_snapshot([str(path)], limits, None, load._Options())
    except InputError as e:
        return ("InputError", e.messages)


def same(path: Path, monkeypatch: pytest.MonkeyPatch, limits: Limits = LIMITS) -> tuple[object, object]:
    with monkeypatch.context() as m:
        m.setattr(parallel, "usable", lambda size: False)
        one = outcome(path, "1", m, limits)
    two = outcome(path, "", monkeypatch, limits)
    assert two == one
    if isinstance(one, load.Snapshot):
        assert isinstance(two, load.Snapshot)
        for name in ("nodes", "pods", "raw", "replicasets", "deployments"):
            assert list(getattr(two, name)) == list(getattr(one, name)), name  # file order
        assert two.notes == one.notes
    return one, two


@pytest.mark.parametrize("fmt", ["json", "compact", "yaml"])
def test_two_processes_give_the_snapshot_of_one(files, fmt, monkeypatch):
    spy = Spy(monkeypatch)
    one, _ = same(files[fmt], monkeypatch)
    assert isinstance(one, load.Snapshot) and len(one.pods) > 300
    assert spy.merged == [True], "the child's half was not used"


def _edit(path: Path, tmp: Path, fn) -> Path:  # type: ignore[no-untyped-def]
    doc = json.loads(path.read_text())
    fn(doc["items"])
    out = tmp / path.name
    with open(out, "wb") as f:
        generate.write_json(iter(doc["items"]), f)
    return out


def test_duplicate_across_the_halves(files, tmp_path, monkeypatch):
    spy = Spy(monkeypatch)
    f = _edit(files["json"], tmp_path, lambda items: items.append(dict(items[3])))  # a Node again, at the end
    one, _ = same(f, monkeypatch)
    assert one[0] == "InputError" and any("Duplicate value" in m for m in one[1])
    assert spy.merged == [False]


def test_invalid_object_in_the_childs_half(files, tmp_path, monkeypatch):
    spy = Spy(monkeypatch)

    def bad(items: list) -> None:  # type: ignore[type-arg]
        items[-5]["metadata"]["name"] = "Not A Name"

    f = _edit(files["json"], tmp_path, bad)
    one, _ = same(f, monkeypatch)
    assert one[0] == "InputError" and any("Not A Name" in m for m in one[1])
    assert spy.merged == []  # the child reported no clean half: read here


def test_child_that_fails_or_dies(files, monkeypatch):
    spy = Spy(monkeypatch)

    def boom(*a):  # type: ignore[no-untyped-def]
        raise RuntimeError("child failed")

    monkeypatch.setattr(parallel, "_child", boom)
    same(files["json"], monkeypatch)
    monkeypatch.setattr(parallel, "_child", lambda *a: os._exit(3))
    same(files["compact"], monkeypatch)
    assert spy.merged == []


def test_split_candidate_inside_an_item(files, monkeypatch):
    # a candidate that is not an item's end: this process reads on past it, alone
    spy = Spy(monkeypatch)
    real = stream.JsonList.split_point

    def inside(self, fraction, window=4 << 20):  # type: ignore[no-untyped-def]
        e, s = real(self, fraction, window)
        return e - 40, s
    monkeypatch.setattr(stream.JsonList, "split_point", inside)
    same(files["json"], monkeypatch)
    assert spy.merged == []


def test_not_used_for_small_files_or_when_asked(monkeypatch):
    assert not parallel.usable(1 << 20)
    monkeypatch.setenv("PLANNER_LOAD_PROCESSES", "1")
    assert not parallel.usable(1 << 40)
    monkeypatch.setenv("PLANNER_LOAD_PROCESSES", "2")
    assert parallel.usable(1 << 40)
    monkeypatch.setenv("PLANNER_LOAD_PROCESSES", "")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (3.5, 1.0, 1.0))  # both CPUs busy already: a second
    assert parallel.usable(1 << 40)  # process still gets its share of them (docs/performance.md)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})  # one CPU to run on: no second process
    assert not parallel.usable(1 << 40)


def test_yaml_document_limit_is_the_whole_files(files, monkeypatch):
    spy = Spy(monkeypatch)
    n = files["yaml"].read_text().count("\n---\n") + 1
    one, _ = same(files["yaml"], monkeypatch, Limits(max_documents=n - 5))  # more than either half holds
    assert one[0] == "InputError" and "YAML documents" in one[1][0]
    assert spy.merged == []


def test_yaml_with_anchors_or_no_marker_is_read_here(files, tmp_path):
    text = files["yaml"].read_text()
    assert parallel.yaml_split(text.encode()) is not None
    assert parallel.yaml_split(text.replace("name: ", "name: &a ", 1).encode()) is None
    assert parallel.yaml_split(text.split("\n---\n")[0].encode()) is None
    assert parallel.yaml_split(files["json"].read_bytes()) is None


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_minus_n_keeps_the_two_processes(files, fmt, tmp_path, monkeypatch):
    """-n (the namespace of namespace-less objects) is filled in by the load's sink: the file is
    still read by two processes, and gives what one process and the overlay's own path give. Was:
    -n sent every object through the overlay's path, one process (16 s instead of 10 s at 5,000
    nodes)."""
    if fmt == "json":
        path = _edit(files["json"], tmp_path, lambda items: [i["metadata"].pop("namespace", None) for i in items if i["metadata"].get("namespace") == "bench"])
    else:
        text = files["yaml"].read_text()
        assert "\n  namespace: bench\n" in text
        path = tmp_path / "cluster.yaml"
        path.write_text(text.replace("\n  namespace: bench\n", "\n"))
    spy = Spy(monkeypatch)

    def load_n(processes: str) -> load.Snapshot:
        monkeypatch.setenv("PLANNER_LOAD_PROCESSES", processes)
        return load._load_snapshot([str(path)], LIMITS, None, load._Options(namespace="bench"))

    with monkeypatch.context() as m:
        m.setattr(parallel, "usable", lambda size: False)
        one = load_n("1")
    two = load_n("")
    assert spy.merged == [True], "the child's half was not used"
    assert two == one and list(two.pods) == list(one.pods)
    if fmt == "json":  # no object of the file names the namespace: -n gives it
        assert not [i for i in json.loads(path.read_text())["items"] if i["metadata"].get("namespace") == "bench"]
    else:
        assert "\n  namespace: bench\n" not in path.read_text()
    assert any(k.startswith("bench/") for k in two.pods)
    assert len([k for k in two.pods if k.startswith("bench/")]) == len([k for k in load._load_snapshot([str(files[fmt])], LIMITS, None, load._Options()).pods if k.startswith("bench/")])
