"""The snapshot cache (planner.load.cache): a hit gives the snapshot the load gives and the same
answers; a stale, foreign or unsafe entry is never used; off when asked; bounded."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import planner.load as load
from bench import generate
from planner.errors import InputError
from planner.load import Limits, cache, load_snapshot
from tests.conftest import run_cli

LIMITS = Limits()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cluster")
    return generate.generate(12, 3, 1, ["json"], out)["json"]


@pytest.fixture
def on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache on, in a folder of this test's, for inputs of any size, written synchronously."""
    d = tmp_path / "cache"
    monkeypatch.setenv("PLANNER_CACHE", "on")
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(d))
    monkeypatch.setattr(cache, "MIN_BYTES", 0)
    monkeypatch.setattr(cache, "write_behind", lambda probe, files, limits, snap, notes: cache.write(probe, files, limits, snap, notes))
    return d


class Loads:
    """Counts the loads that really read the input (not served by the cache)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        real = load._load_snapshot

        def counting(*a):  # type: ignore[no-untyped-def]
            self.n += 1
            return real(*a)

        monkeypatch.setattr(load, "_load_snapshot", counting)


def _entries(d: Path) -> list[Path]:
    return sorted(d.glob("*.snap")) if d.exists() else []


def test_hit_is_the_snapshot_the_load_gives(cluster: Path, on: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loads = Loads(monkeypatch)
    first = load_snapshot([str(cluster)], LIMITS)
    assert loads.n == 1 and len(_entries(on)) == 1
    second = load_snapshot([str(cluster)], LIMITS)
    assert loads.n == 1, "the second load must come from the cache"
    assert second == first and second is not first
    assert second.base_cluster() is not first.base_cluster()
    # the pods of one template still share their converted parts, as a fresh load's do
    assert _shared(second) == _shared(first) and any(_shared(first))


def _shared(snap: load.Snapshot) -> list[bool]:
    by_owner: dict[str, list] = {}
    for p in snap.pods.values():
        if p.owner is not None:
            by_owner.setdefault(p.owner.uid, []).append(p)
    return [ps[0].spec.tolerations is ps[1].spec.tolerations for ps in by_owner.values() if len(ps) > 1]


def test_answers_are_the_same_from_the_cache(cluster: Path, on: Path) -> None:
    args = ["check", str(cluster), "--workload", "deployment/bench-web", "-n", "bench", "--replicas", "14", "-o", "json"]
    cold = run_cli(args)
    assert _entries(on), cold.err
    warm = run_cli(args)
    assert (warm.code, warm.out, warm.err) == (cold.code, cold.out, cold.err)
    ex = ["explain", str(cluster), "--pod", "bench/bench-pending", "-o", "json"]
    assert run_cli(ex).out == run_cli(ex).out


def test_notes_printed_again_on_a_hit(tmp_path: Path, on: Path, monkeypatch: pytest.MonkeyPatch, cluster: Path) -> None:
    doc = json.loads(cluster.read_text())
    doc["items"].append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "bench"}})
    f = tmp_path / "with-configmap.json"
    f.write_text(json.dumps(doc))
    loads = Loads(monkeypatch)
    seen: list[list[str]] = [[], []]
    load_snapshot([str(f)], LIMITS, notice=seen[0].append)
    load_snapshot([str(f)], LIMITS, notice=seen[1].append)
    assert loads.n == 1
    assert seen[0] == seen[1] and any("ConfigMap (1)" in n for n in seen[0])


def test_changed_input_is_read_again(tmp_path: Path, on: Path, monkeypatch: pytest.MonkeyPatch, cluster: Path) -> None:
    f = tmp_path / "c.json"
    f.write_bytes(cluster.read_bytes())
    loads = Loads(monkeypatch)
    load_snapshot([str(f)], LIMITS)
    doc = json.loads(f.read_text())
    node = next(o for o in doc["items"] if o["kind"] == "Node")
    node["metadata"]["labels"]["changed"] = "yes"
    st = f.stat()
    f.write_text(json.dumps(doc))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # same modification time: the bytes decide
    snap = load_snapshot([str(f)], LIMITS)
    assert loads.n == 2
    assert snap.nodes[node["metadata"]["name"]].labels["changed"] == "yes"


def test_entry_whose_key_is_not_the_inputs_is_dropped(cluster: Path, on: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # an entry under the inputs' name whose header holds another key: stale, removed, never used
    files = [str(cluster)]
    load_snapshot(files, LIMITS)
    (entry,) = _entries(on)
    data = entry.read_bytes()
    key = data[len(cache.FORMAT) : len(cache.FORMAT) + 64]
    entry.write_bytes(data.replace(key, b"0" * 64, 1))
    loads = Loads(monkeypatch)
    load_snapshot(files, LIMITS)
    assert loads.n == 1
    assert _entries(on) and _entries(on)[0].read_bytes()[len(cache.FORMAT) :].startswith(key)


def test_unsafe_folder_or_entry_is_not_read(cluster: Path, on: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [str(cluster)]
    load_snapshot(files, LIMITS)
    (entry,) = _entries(on)
    loads = Loads(monkeypatch)
    entry.chmod(0o666)  # others may write it: not ours alone
    load_snapshot(files, LIMITS)
    assert loads.n == 1
    os.chmod(on, 0o777)  # a folder others may write into
    assert cache.read(cache.probe_key(files, LIMITS) or "", files, LIMITS) is None
    os.chmod(on, 0o700)
    # a symlink in place of the entry is not followed
    probe = cache.probe_key(files, LIMITS)
    assert probe is not None
    target = on / "elsewhere"
    (entry,) = _entries(on)
    entry.rename(target)
    entry.symlink_to(target)
    assert cache.read(probe, files, LIMITS) is None


def test_off_stdin_small_and_invalid_inputs_are_not_cached(tmp_path: Path, on: Path, monkeypatch: pytest.MonkeyPatch, cluster: Path) -> None:
    monkeypatch.setenv("PLANNER_CACHE", "off")
    load_snapshot([str(cluster)], LIMITS)
    assert not _entries(on)
    monkeypatch.setenv("PLANNER_CACHE", "on")
    assert cache.probe_key(["-"], LIMITS) is None
    monkeypatch.setattr(cache, "MIN_BYTES", 1 << 40)
    assert cache.probe_key([str(cluster)], LIMITS) is None
    monkeypatch.setattr(cache, "MIN_BYTES", 0)
    assert cache.probe_key([str(cluster)], Limits(max_bytes=10, max_stream_bytes=10)) is None  # larger than the limit: the load refuses it
    bad = tmp_path / "bad.json"
    doc = json.loads(cluster.read_text())
    doc["items"][0]["metadata"]["name"] = "Not_A_Name"
    bad.write_text(json.dumps(doc))
    with pytest.raises(InputError):
        load_snapshot([str(bad)], LIMITS)
    with pytest.raises(InputError):
        load_snapshot([str(bad)], LIMITS)  # read (and reported) every time
    assert not _entries(on)


def test_code_and_limits_are_in_the_key(cluster: Path, on: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [str(cluster)]
    a = cache.probe_key(files, LIMITS)
    assert a == cache.probe_key(files, LIMITS)
    assert a != cache.probe_key(files, Limits(max_bytes=LIMITS.max_bytes - 1))
    assert cache.content_key(files, LIMITS) != cache.content_key(files, Limits(max_depth=10))
    monkeypatch.setattr(cache, "_CODE_DIGEST", b"another planner")
    assert cache.probe_key(files, LIMITS) != a


def test_trim_keeps_the_most_recent_within_bounds(tmp_path: Path) -> None:
    d = tmp_path / "c"
    d.mkdir()
    now = time.time()
    for i in range(5):
        p = d / f"{i:040x}.snap"
        p.write_bytes(b"x" * 100)
        os.utime(p, (now - 100 + i, now - 100 + i))
    old_tmp = d / ".abc.tmp"
    old_tmp.write_bytes(b"")
    os.utime(old_tmp, (now - 7200, now - 7200))
    cache.trim(d, keep=3, max_bytes=1 << 20)
    assert [p.name[-6:] for p in _entries(d)] == ["2.snap", "3.snap", "4.snap"] and not old_tmp.exists()
    cache.trim(d, keep=3, max_bytes=250)
    assert [p.name[-6:] for p in _entries(d)] == ["3.snap", "4.snap"]


def test_written_behind_by_a_child(cluster: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the real write_behind: a forked child writes the entry while the command goes on
    d = tmp_path / "cache"
    monkeypatch.setenv("PLANNER_CACHE", "on")
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(d))
    monkeypatch.setattr(cache, "MIN_BYTES", 0)
    snap = load_snapshot([str(cluster)], LIMITS)
    deadline = time.time() + 60
    while not _entries(d) and time.time() < deadline:
        time.sleep(0.05)
    assert _entries(d), "the child wrote no entry"
    assert oct(d.stat().st_mode & 0o777) == "0o700" and oct(_entries(d)[0].stat().st_mode & 0o777) == "0o600"
    loads = Loads(monkeypatch)
    assert load_snapshot([str(cluster)], LIMITS) == snap and loads.n == 0


def test_the_load_options_are_part_of_the_key(tmp_path: Path, on: Path, monkeypatch: pytest.MonkeyPatch, cluster: Path) -> None:
    """-n (the namespace of namespace-less objects) and the overlay change what a load gives: a
    load with other options never reads an entry written by another's."""
    doc = json.loads(cluster.read_text())
    doc["items"].append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
    pod = next(o for o in doc["items"] if o["kind"] == "Pod")
    bare = json.loads(json.dumps(pod))
    bare["metadata"] = {"name": "bare", "labels": {"x": "y"}}  # no namespace
    bare["spec"].pop("nodeName", None)
    bare["status"] = {"phase": "Pending"}
    doc["items"].append(bare)
    f = tmp_path / "c.json"
    f.write_text(json.dumps(doc))
    loads = Loads(monkeypatch)
    plain = load_snapshot([str(f)], LIMITS)
    in_ns = load_snapshot([str(f)], LIMITS, namespace="team")
    assert loads.n == 2
    assert "default/bare" in plain.pods and "team/bare" in in_ns.pods
    strict = load_snapshot([str(f)], LIMITS, overlay=False)
    assert loads.n == 3 and strict == plain


def test_an_ended_writer_is_collected_by_the_next_load(cluster: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that loads again and again keeps no zombie of a writer that has ended: the next
    load collects it."""
    monkeypatch.setenv("PLANNER_CACHE", "on")
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "MIN_BYTES", 0)
    before = set(cache._WRITERS)  # an earlier test's, if any
    load_snapshot([str(cluster)], LIMITS)
    new = [p for p in cache._WRITERS if p not in before]
    assert len(new) == 1
    pid = new[0]
    deadline = time.time() + 60
    while time.time() < deadline and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.05)  # ended, not yet collected: a zombie
    load_snapshot([str(cluster)], LIMITS)
    assert pid not in cache._WRITERS and not Path(f"/proc/{pid}").exists()
