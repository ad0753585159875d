"""The benchmark harness: ``make bench`` runs ``python -m bench.run``.

For each cluster size (50, 500 and 5,000 nodes at 30 pods per node; 3 even zones, plus 6 uneven
zones up to 500 nodes) it generates the snapshot files that are missing (bench.generate, fixed
seeds), then times every phase in its own subprocess, so that the peak memory reported (the
child's ``ru_maxrss`` from ``wait4``, i.e. its VmHWM) belongs to that phase alone:

* ``json.load`` and ``orjson.loads`` of the JSON file (the baselines: a plain and a fast decoder);
* ``load``: ``planner.load.load_snapshot`` of the JSON and of the YAML file;
* ``explain`` of ``bench/bench-pending`` after loading (the explain call timed on its own);
* ``check`` of ``statefulset/bench/bench-sts`` and ``deployment/bench/bench-web`` at
  spec.replicas and at spec.replicas + 10, after loading;
* ``capacity`` of bench-sts over spec.replicas .. spec.replicas + 4, after loading;
* end to end ``planner check FILE --workload ... -o json`` as a subprocess (wall time, interpreter
  start included), compared with ``json.load``.

Results accumulate in bench/out/results.json (one entry per size, the newest run wins) and are
rendered into docs/performance.md and docs/performance.png.  ``--sizes 50,500`` limits the sizes;
``--profile`` also profiles load, explain and check (cProfile) at the largest size run.
Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import generate
from planner.files import write_file, write_with

ROOT = Path(__file__).resolve().parent.parent
OUT = generate.OUT_DIR
RESULTS = OUT / "results.json"
DOC = ROOT / "docs" / "performance.md"
PLOT = ROOT / "docs" / "performance.png"

STS = "statefulset/bench/bench-sts"
WEB = "deployment/bench/bench-web"
PENDING = "bench/bench-pending"
MAX_BYTES = 16 << 30  # the benchmark files are read whatever their size (planner's default is 1 GiB)
DEFAULT_SIZES = (50, 500, 5000)
SIX_ZONES_UP_TO = 500  # 6 uneven zones are run up to this many nodes (time)
PLACEHOLDER = "not timed by bench/ yet (see the commentary)"
PHASE_ORDER = [
    "json", "orjson", "json-nogc", "orjson-nogc", "load-json", "load-stages", "load-yaml", "explain", "check-sts", "check-web",
    "capacity", "simulate", "remediate", "startup-cli", "startup", "e2e-sts", "e2e-web", "e2e-sts-cached", "e2e-web-cached",
]


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def repeats_for(nodes: int) -> int:
    return 5 if nodes <= 50 else 3 if nodes <= 500 else 1


# =========================================================================== child side


def _vmhwm_mib() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(fn: Any, repeat: int) -> tuple[float, float, Any]:
    """(first call, best of ``repeat`` calls, first result).  The first call is what a command
    pays (caches the call builds on the loaded snapshot are warm afterwards)."""
    times, first = [], None
    for i in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
        if i == 0:
            first = out
        del out
    return times[0], min(times), first


def _load(path: str) -> tuple[float, Any]:
    from planner.load import Limits, load_snapshot

    t = time.perf_counter()
    snap = load_snapshot([path], Limits(max_bytes=MAX_BYTES))
    return time.perf_counter() - t, snap


class _Profiler:
    """cProfile around the timed calls when --profile FILE is given (top functions written there)."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.prof = None
        if path:
            import cProfile

            self.prof = cProfile.Profile()

    def __enter__(self) -> _Profiler:
        if self.prof:
            self.prof.enable()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.prof:
            self.prof.disable()

    def write(self, title: str) -> None:
        if not (self.prof and self.path):
            return
        import io
        import pstats

        buf = io.StringIO()
        st = pstats.Stats(self.prof, stream=buf)
        st.strip_dirs()
        buf.write(f"# {title}\n\n## by own time (tottime)\n")
        st.sort_stats("tottime").print_stats(25)
        buf.write("\n## by cumulative time\n")
        st.sort_stats("cumulative").print_stats(30)
        write_file(self.path, buf.getvalue())


def child(a: argparse.Namespace) -> None:
    rows: list[dict[str, Any]] = []
    path, repeat, phase = a.file, a.repeat, a.phase
    prof = _Profiler(a.profile)

    def row(name: str, seconds: float | None, answer: str = "", **extra: Any) -> None:
        rows.append({"name": name, "seconds": seconds, "answer": answer, **extra})

    if phase in ("json", "json-nogc"):

        def f() -> Any:
            with open(path, encoding="utf-8") as fh:
                return json.load(fh)

        if phase == "json-nogc":
            gc.disable()
        _, s, d = _timed(f, repeat)
        row("json.load" + (" (cyclic GC disabled)" if phase == "json-nogc" else ""), s, f"{len(d['items'])} items")
    elif phase in ("orjson", "orjson-nogc"):
        import orjson

        def g() -> Any:
            with open(path, "rb") as fh:
                return orjson.loads(fh.read())

        if phase == "orjson-nogc":
            gc.disable()
        _, s, d = _timed(g, repeat)
        row("orjson.loads" + (" (cyclic GC disabled)" if phase == "orjson-nogc" else ""), s, f"{len(d['items'])} items")
    elif phase in ("load-json", "load-yaml"):
        # one load per process: the validation memos would make a second load in-process cheaper
        with prof:
            s, snap = _load(path)
        prof.write(f"load_snapshot({Path(path).name})")
        row(f"load ({phase[5:].upper()})", s, f"{len(snap.nodes)} nodes, {len(snap.pods)} pods")
    elif phase == "load-stages":
        # load_snapshot's stages timed one by one (GC paused as load_snapshot pauses it)
        from planner.load import Limits, build_snapshot, read_objects, validate_raw

        gc.disable()
        t0 = time.perf_counter()
        raw = read_objects([path], Limits(max_bytes=MAX_BYTES))
        t1 = time.perf_counter()
        errors = validate_raw(raw)
        t2 = time.perf_counter()
        snap = build_snapshot(raw)
        t3 = time.perf_counter()
        assert not errors, errors[:3]
        row("load stage: read + decode (read_objects)", t1 - t0, f"{len(raw.objects)} objects")
        row("load stage: defaults + validation (validate_raw)", t2 - t1)
        row("load stage: conversion (build_snapshot)", t3 - t2, f"{len(snap.pods)} pods")
    elif phase == "explain":
        from planner.engines.explain import explain

        lt, snap = _load(path)
        target = snap.pods[PENDING]
        with prof:
            s, best, r = _timed(lambda: explain(snap, target), repeat)
        prof.write(f"explain({PENDING}) after load")
        verdict = "schedulable" if r["schedulable"] else "unschedulable"
        row("explain bench-pending (after load)", s, f"{verdict}: {r['summary']}"[:160], load_seconds=lt, best=best)
    elif phase in ("check-sts", "check-web", "capacity"):
        from models.solve import SolveOptions
        from planner.engines.capacity import capacity
        from planner.engines.check import check_replicas
        from planner.engines.workloads import find_workload, parse_workload
        from planner.errors import UnknownResult

        lt, snap = _load(path)
        opts = SolveOptions()
        if phase != "capacity":
            ref = parse_workload(STS if phase == "check-sts" else WEB, None)
            spec = find_workload(snap, ref).replicas
            # spec.replicas, a few more, and many more ("whatever N": +100 StatefulSet pods, +500 Deployment pods)
            for n in (spec, spec + 10, spec + (100 if phase == "check-sts" else 500)):
                try:
                    with prof:
                        s, best, out = _timed(lambda: check_replicas(snap, [ref], n, opts), repeat)  # noqa: B023
                    ans = "schedulable" if out.schedulable else "unschedulable"
                    st = out.stats
                    if st.get("pods_to_place"):
                        ans += f" ({st['pods_to_place']} to place, {st.get('node_classes')} node classes, {st.get('model')} model)"
                    else:
                        ans += " (nothing to place)"
                except UnknownResult as e:
                    s, best, ans = None, None, f"unknown: {e}"[:160]
                row(f"check {ref.name} N={n} (after load)", s, ans, load_seconds=lt, best=best)
            prof.write(f"check_replicas({ref.name} at N, N+10 and more) after load")
        else:
            ref = parse_workload(STS, None)
            spec = find_workload(snap, ref).replicas
            rng = (spec, spec + 4)
            try:
                with prof:
                    s, best, r = _timed(lambda: capacity(snap, ref, rng, False, False, opts), repeat)
                prof.write("capacity(bench-sts) after load")
                ans = f"max_replicas {r['max_replicas']} of {rng[0]}..{rng[1]}"
            except UnknownResult as e:
                s, best, ans = None, None, f"unknown: {e}"[:160]
            row(f"capacity {ref.name} {rng[0]}..{rng[1]} (after load)", s, ans, load_seconds=lt, counts=rng[1] - rng[0] + 1, best=best)
    elif phase == "simulate":
        from planner.engines.replay import Simulator, Step
        from planner.engines.workloads import find_workload, parse_workload

        lt, snap = _load(path)
        ref = parse_workload(WEB, None)
        spec = find_workload(snap, ref).replicas
        extra = min(2000, max(100, len(snap.nodes) // 2))
        sim = Simulator(snap, seed=1)
        with prof:
            t0 = time.perf_counter()
            r = sim.run([Step("scale", {"ref": ref, "workload": str(ref), "replicas": spec + extra})], [ref])
            s = time.perf_counter() - t0
        prof.write(f"simulate: scale {ref.name} by {extra}")
        rate = r["placements"] / s if s else 0.0
        # What the call spends beside the placements (the controllers' first pass over the cluster
        # as read, the reasons of the pods Pending at the end), from the same replay placing
        # nothing: both again, one after the other, as warm as each other.
        fixed: list[float] = []
        again: list[float] = []
        for _ in range(2):
            for count, into in ((spec, fixed), (spec + extra, again)):
                sim = Simulator(snap, seed=1)
                t0 = time.perf_counter()
                sim.run([Step("scale", {"ref": ref, "workload": str(ref), "replicas": count})], [ref])
                into.append(time.perf_counter() - t0)
        fixed_s, again_s = min(fixed), min(again)
        per = (again_s - fixed_s) / r["placements"] if r["placements"] and again_s > fixed_s else None
        apart = (f"; the same replay placing nothing {_fmt_s(fixed_s)} s, each placement {per * 1e6:.0f} µs"
                 f" ({1 / per:,.0f} placements/s beside that)") if per else ""
        row(
            f"simulate: scale bench-web by {extra} (zone spread), pod by pod",
            s,
            f"{r['placements']} placements, {rate:.0f} placements/s; {'completed' if r['completed'] else 'stuck'}{apart}",
            load_seconds=lt,
            placements=r["placements"],
            fixed_seconds=fixed_s,
            per_placement_seconds=per,
        )
    elif phase == "remediate":
        # The goal: one bench-sts replica more than there are nodes its next pod fits on, besides
        # those its running pods hold (required hostname anti-affinity makes that impossible).
        from models.solve import SolveOptions
        from planner.engines.remediation import Goal, remediate
        from planner.engines.workloads import cluster_after_plans, find_workload, parse_workload, plan_workload
        from planner.scheduler import runtime

        lt, snap = _load(path)
        ref = parse_workload(STS, None)
        spec = find_workload(snap, ref).replicas
        plan = plan_workload(snap, ref, spec + 1)
        ev = runtime.evaluate(plan.new[0], cluster_after_plans(snap, [plan]))
        goal = spec + sum(1 for n in ev.nodes if n.feasible) + 1
        with prof:
            t0 = time.perf_counter()
            out = remediate(snap, Goal(ref, "replicas", goal), [], False, 3, SolveOptions(), 1)
            s = time.perf_counter() - t0
        prof.write(f"remediate bench-sts x{goal}")
        plans = "; ".join(" + ".join(a.type for a in pl.actions) for pl in out.plans) or "no plan"
        row(f"remediate bench-sts to {goal} replicas (top 3 plans)", s, f"{len(out.plans)} verified plan(s): {plans}"[:160], load_seconds=lt)
    else:
        raise SystemExit(f"unknown phase {phase}")
    print(json.dumps({"phase": phase, "rows": rows, "vmhwm_mib": _vmhwm_mib()}))


# =========================================================================== parent side


def _child_env(cache_dir: Path | None = None) -> dict[str, str]:
    """The environment of a phase: the snapshot cache off (every load reads its input), or on in
    ``cache_dir`` (the end-to-end rows: what a user's first and next commands cost)."""
    env = dict(os.environ)
    if cache_dir is None:
        env["PLANNER_CACHE"] = "off"
    else:
        env["PLANNER_CACHE"] = "on"
        env["PLANNER_CACHE_DIR"] = str(cache_dir)
    return env


def _run_child(argv: list[str], timeout: float, env: dict[str, str] | None = None) -> tuple[float, float, int, str]:
    """Run one subprocess; returns (wall seconds, peak RSS MiB from wait4, exit code, stdout)."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, cwd=ROOT, env=env if env is not None else _child_env())
    chunks: list[bytes] = []
    import threading

    def reader() -> None:
        assert proc.stdout is not None
        chunks.append(proc.stdout.read())

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    deadline = time.monotonic() + timeout
    status, ru = 0, None
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if time.monotonic() > deadline:
            proc.kill()  # our own child, by its pid
            pid, status, ru = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    th.join(5)
    rss = ru.ru_maxrss / 1024 if ru is not None else 0.0  # KiB on Linux
    return wall, rss, proc.returncode, b"".join(chunks).decode(errors="replace")


def run_phase(phase: str, path: Path, repeat: int, timeout: float, profile: str | None = None) -> dict[str, Any]:
    """One phase; load phases run ``repeat`` fresh subprocesses (best time, highest peak)."""
    procs = repeat if phase.startswith("load-") else 1
    inner = 1 if phase.startswith("load-") else repeat
    argv = [sys.executable, "-m", "bench.run", "--phase", phase, "--file", str(path), "--repeat", str(inner)]
    if profile:
        argv += ["--profile-out", profile]
    best: dict[str, Any] | None = None
    peak = 0.0
    for _ in range(procs):
        wall, rss, code, out = _run_child(argv, timeout)
        lines = [ln for ln in out.splitlines() if ln.startswith("{")]
        if code != 0 or not lines:
            reason = "timed out" if wall >= timeout else f"exit {code}"
            return {"phase": phase, "rows": [{"name": phase, "seconds": None, "answer": f"failed ({reason})"}], "rss_mib": max(peak, rss), "wall": wall}
        res = json.loads(lines[-1])
        peak = max(peak, res.get("vmhwm_mib") or rss)  # the child's own VmHWM when it reports one
        s = res["rows"][0]["seconds"]
        if best is None or (s is not None and (best["rows"][0]["seconds"] is None or s < best["rows"][0]["seconds"])):
            best = res
    assert best is not None
    best["rss_mib"] = peak
    return best


CACHE_DIR = OUT / "cache"  # the end-to-end rows' snapshot cache folders (emptied per row)


def _wait_for_cache(d: Path, timeout: float) -> float | None:
    """Seconds until the entry the command's writer child writes behind it is in ``d`` (None:
    not within ``timeout``): the next measurement must not share the CPUs with that child."""
    t = time.perf_counter()
    while time.perf_counter() - t < timeout:
        if any(d.glob("*.snap")) and not any(d.glob(".*.tmp")):
            return time.perf_counter() - t
        time.sleep(0.05)
    return None


def _fresh(d: Path) -> Path:
    import shutil

    shutil.rmtree(d, ignore_errors=True)
    return d


def run_e2e(path: Path, workload: str, replicas: int, repeat: int, timeout: float, cached: bool = False) -> dict[str, Any]:
    """``planner check`` end to end.  First command (``cached`` False): each run in an empty cache
    folder, as the first command on a new snapshot, writing the cache behind it (waited for before
    the next run; its writer child is not part of the row).  Next command (``cached``): after one
    such run, every timed run reads the snapshot that run left in the cache."""
    from planner.load import cache

    argv = [sys.executable, "-m", "planner", "check", str(path), "--workload", workload, "--replicas", str(replicas), "-o", "json", "--max-bytes", str(MAX_BYTES)]
    best, rss, answer = None, 0.0, ""
    written: list[float] = []
    d = CACHE_DIR / "e2e"
    cacheable = path.stat().st_size >= cache.MIN_BYTES
    if cached and not cacheable:
        name = f"end to end: planner check --workload {workload.split('/')[0]}/{workload.split('/')[-1]} --replicas {replicas}, next command (snapshot from the cache)"
        return {"phase": "e2e-cached", "rows": [{"name": name, "seconds": None, "answer": f"not cached: inputs under {cache.MIN_BYTES >> 20} MiB"}], "rss_mib": 0.0}
    if cached:
        _fresh(d)
        _run_child(argv, timeout, _child_env(d))
        w = _wait_for_cache(d, min(timeout, 600))
        if w is None:
            answer = "no cache entry written"
    for _ in range(repeat):
        if not cached:
            _fresh(d)
        wall, r, code, out = _run_child(argv, timeout, _child_env(d))
        if not cached and cacheable:
            w = _wait_for_cache(d, min(timeout, 600))
            if w is not None:
                written.append(w)
        rss = max(rss, r)
        if code not in (0, 1):
            answer = f"failed (exit {code})"
            best = None
            break
        try:
            answer = "schedulable" if json.loads(out)["schedulable"] else "unschedulable"
        except (ValueError, KeyError):
            answer = f"exit {code}"
        best = wall if best is None else min(best, wall)
    _fresh(d)
    if written:
        answer += f"; cache written {min(written):.1f} s after it exited"
    name = f"end to end: planner check --workload {workload.split('/')[0]}/{workload.split('/')[-1]} --replicas {replicas}"
    if cached:
        name += ", next command (snapshot from the cache)"
    return {"phase": "e2e-cached" if cached else "e2e", "rows": [{"name": name, "seconds": best, "answer": answer}], "rss_mib": rss}


def run_startup(repeat: int, timeout: float, full: bool = True) -> dict[str, Any]:
    """What every command pays before reading a byte: the interpreter and planner's imports
    (``full``: those of check and explain as well)."""
    mods = "planner.cli, planner.commands.check, planner.commands.explain" if full else "planner.cli"
    argv = [sys.executable, "-c", f"import {mods}"]
    best, rss = None, 0.0
    for _ in range(repeat):
        wall, r, code, _out = _run_child(argv, timeout)
        rss = max(rss, r)
        if code == 0:
            best = wall if best is None else min(best, wall)
    name = "startup: python + planner imports (no input)" if full else "startup: python + import planner.cli (every command)"
    answer = "check's and explain's imports; part of every end-to-end row" if full else "what every command imports before its own"
    return {"phase": "startup" if full else "startup-cli", "rows": [{"name": name, "seconds": best, "answer": answer}], "rss_mib": rss}


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    versions = {}
    for mod in ("orjson", "yaml", "ortools"):
        try:
            m = __import__(mod)
            versions[mod] = getattr(m, "__version__", "?")
        except ImportError:
            versions[mod] = "missing"
    import yaml

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--", "planner", "models"], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip())
    except (OSError, subprocess.SubprocessError):
        commit, dirty = "", False
    touch = None
    try:  # fresh memory costs what the kernel (and a hypervisor) charge per page: large phases pay it per GiB
        code = "import time; t = time.perf_counter(); b = bytearray(1 << 30); print(time.perf_counter() - t)"
        touch = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    return {
        "touch_s_per_gib": touch,
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu": cpu,
        "memory": mem,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "kernel": platform.release(),
        "libyaml": bool(getattr(yaml, "__with_libyaml__", False)),
        "versions": versions,
        "commit": commit + ("+dirty" if dirty else ""),
    }


def ensure_files(nodes: int, zones: int, seed: int, fmts: list[str], mf: str = generate.DEFAULT_MANAGED_FIELDS) -> dict[str, Path]:
    """The snapshot files, generated if missing or stale -- in a subprocess, so that this process
    stays small: a child started by vfork inherits the parent's RSS high-water mark in ru_maxrss."""
    paths = {fmt: OUT / generate.file_name(nodes, zones, seed, fmt, mf) for fmt in fmts}
    missing = [fmt for fmt, p in paths.items() if not generate.up_to_date(p, nodes, zones, seed, mf)]
    if missing:
        fmt = missing[0] if len(missing) == 1 else "both"
        argv = [sys.executable, "-m", "bench.generate", "--nodes", str(nodes), "--zones", str(zones), "--seed", str(seed), "--format", fmt, "--managed-fields", mf]
        subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return paths


def phase_id(p: dict[str, Any]) -> str:
    if p.get("id"):
        return str(p["id"])
    if p["phase"] in ("e2e", "e2e-cached"):
        return ("e2e-sts" if "statefulset" in p["rows"][0]["name"] else "e2e-web") + ("-cached" if p["phase"] == "e2e-cached" else "")
    return str(p["phase"])


# The compact variant (bench.generate --format compact) runs these phases only: the decoders
# (json.load of its own bytes is its baseline), the load, and the end-to-end rows.
COMPACT_PHASES = ("json", "orjson-nogc", "load-json", "e2e-sts", "e2e-web", "e2e-sts-cached", "e2e-web-cached")


def bench_size(nodes: int, zones: int, seed: int, a: argparse.Namespace, variant: str = "") -> dict[str, Any]:
    mf = a.managed_fields
    key = f"{nodes}n-{zones}z" + ("" if mf == generate.DEFAULT_MANAGED_FIELDS else f"-mf{mf.replace('-', '')}") + (f"-{variant}" if variant else "")
    if variant == "compact":
        fmts = ["compact"]
    else:
        fmts = ["json"] + ([] if a.no_yaml else ["yaml"])
    log(f"{key}: snapshot files (generated if missing)")
    paths = ensure_files(nodes, zones, seed, fmts, mf)
    if variant == "compact":
        paths = {"json": paths["compact"]}
    meta = generate.read_meta(paths["json"])
    repeat = a.repeat or repeats_for(nodes)
    phases: list[dict[str, Any]] = []

    def step(name: str, fn: Any) -> dict[str, Any]:
        log(f"{key}: {name} ...")
        t = time.perf_counter()
        r = fn()
        r["id"] = pid
        secs = ", ".join(f"{x['seconds']:.3f}s" if x["seconds"] is not None else x["answer"] for x in r["rows"])
        log(f"{key}: {name}: {secs}; peak {r['rss_mib']:.0f} MiB ({time.perf_counter() - t:.0f}s wall)")
        phases.append(r)
        return r

    j = paths["json"]
    y = paths.get("yaml")
    sts_n, web_n = 6 + 10, 12 + 10  # bench-sts and bench-web have 6 and 12 replicas (bench.generate)
    plan: list[tuple[str, str, Any]] = [
        ("json", "json.load", lambda: run_phase("json", j, repeat, a.timeout)),
        ("orjson", "orjson.loads", lambda: run_phase("orjson", j, repeat, a.timeout)),
        ("json-nogc", "json.load, GC off", lambda: run_phase("json-nogc", j, repeat, a.timeout)),
        ("orjson-nogc", "orjson.loads, GC off", lambda: run_phase("orjson-nogc", j, repeat, a.timeout)),
        ("load-json", "load JSON", lambda: run_phase("load-json", j, repeat, a.timeout)),
        ("load-stages", "load JSON by stage", lambda: run_phase("load-stages", j, 1, a.timeout)),
        ("load-yaml", "load YAML", lambda: run_phase("load-yaml", y, 1 if nodes > 50 else repeat, a.timeout) if y else None),
        ("explain", "explain", lambda: run_phase("explain", j, repeat, a.timeout)),
        ("check-sts", "check bench-sts", lambda: run_phase("check-sts", j, repeat, a.timeout)),
        ("check-web", "check bench-web", lambda: run_phase("check-web", j, repeat, a.timeout)),
        ("capacity", "capacity", lambda: run_phase("capacity", j, repeat, a.timeout)),
        ("simulate", "simulate", lambda: run_phase("simulate", j, 1, a.timeout)),
        ("remediate", "remediate", lambda: run_phase("remediate", j, 1, a.timeout)),
        ("startup-cli", "startup (planner.cli)", lambda: run_startup(repeat, a.timeout, full=False)),
        ("startup", "startup", lambda: run_startup(repeat, a.timeout)),
        ("e2e-sts", "end to end check sts", lambda: run_e2e(j, STS, sts_n, repeat, a.timeout)),
        ("e2e-web", "end to end check web", lambda: run_e2e(j, WEB, web_n, repeat, a.timeout)),
        ("e2e-sts-cached", "end to end check sts, cache", lambda: run_e2e(j, STS, sts_n, repeat, a.timeout, cached=True)),
        ("e2e-web-cached", "end to end check web, cache", lambda: run_e2e(j, WEB, web_n, repeat, a.timeout, cached=True)),
    ]
    only = set(a.only.split(",")) if a.only else None
    skip = set(a.skip.split(",")) if a.skip else set()
    for pid, name, fn in plan:
        if pid == "load-yaml" and y is None:
            continue
        if variant == "compact" and pid not in COMPACT_PHASES:
            continue
        if (only is None or pid in only) and pid not in skip:
            step(name, fn)
    sizes = {fmt: p.stat().st_size for fmt, p in paths.items()}
    return {
        "key": key,
        "nodes": nodes,
        "zones": zones,
        "seed": seed,
        "managed_fields": mf,
        "variant": variant,
        "repeat": repeat,
        "when": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "files": {fmt: str(p.relative_to(ROOT)) for fmt, p in paths.items()},
        "bytes": sizes,
        "meta": meta,
        "phases": phases,
    }


def profile_size(nodes: int, zones: int, seed: int, a: argparse.Namespace) -> dict[str, str]:
    paths = ensure_files(nodes, zones, seed, ["json"])
    out: dict[str, str] = {}
    for phase in ("load-json", "explain", "check-sts", "check-web"):
        dest = OUT / f"profile-{nodes}n-{zones}z-{phase}.txt"
        log(f"profiling {phase} at {nodes} nodes -> {dest.name}")
        run_phase(phase, paths["json"], 1, a.timeout, profile=str(dest))
        if dest.exists():
            out[phase] = str(dest.relative_to(ROOT))
    return out


def load_results() -> dict[str, Any]:
    if RESULTS.exists():
        try:
            return json.loads(RESULTS.read_text())
        except ValueError:
            pass
    return {"runs": {}, "profiles": {}}


# =========================================================================== docs/performance.md

KEEP = ("targets", "profile")  # hand-written blocks kept across renders: <!-- keep:NAME --> ... <!-- /keep:NAME -->


def _kept(doc: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    if not doc.exists():
        return out
    text = doc.read_text()
    for name in KEEP:
        a, b = f"<!-- keep:{name} -->", f"<!-- /keep:{name} -->"
        if a in text and b in text:
            out[name] = text[text.index(a) + len(a): text.index(b)].strip("\n")
    return out


def _fmt_s(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def _rows(run: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for ph in run["phases"]:
        for r in ph["rows"]:
            out.append({**r, "phase": ph["phase"], "rss_mib": ph.get("rss_mib")})
    return out


def _find(run: dict[str, Any], phase: str, prefix: str = "") -> list[dict[str, Any]]:
    return [r for r in _rows(run) if r["phase"] == phase and r["name"].startswith(prefix)]


def _sec(run: dict[str, Any], phase: str, prefix: str = "") -> float | None:
    rs = _find(run, phase, prefix)
    return rs[0]["seconds"] if rs else None


def _table(run: dict[str, Any]) -> list[str]:
    base = _sec(run, "json")
    lines = [
        "| phase | seconds | peak RSS MiB | × json.load | answer |",
        "|---|---:|---:|---:|---|",
    ]
    for r in _rows(run):
        s = r["seconds"]
        ratio = f"{s / base:.2f}" if (s is not None and base) else "–"
        ans = str(r.get("answer", "")).replace("|", "\\|")
        if r.get("best") is not None and s is not None and run["repeat"] > 1:
            ans = (ans + "; " if ans else "") + f"best of {run['repeat']}: {_fmt_s(r['best'])} s"
        if r.get("load_seconds") is not None:
            ans = (ans + "; " if ans else "") + f"after a load of {r['load_seconds']:.2f} s"
        rss = f"{r['rss_mib']:.0f}" if r.get("rss_mib") else "–"
        lines.append(f"| {r['name']} | {_fmt_s(s)} | {rss} | {ratio} | {ans} |")
    if not any(str(r["name"]).startswith("simulate") for r in _rows(run)):
        lines.append(f"| simulate | – | – | – | {PLACEHOLDER} |")
    if not any(str(r["name"]).startswith("remediate") for r in _rows(run)):
        lines.append(f"| remediate | – | – | – | {PLACEHOLDER} |")
    return lines


def _plot(runs: list[dict[str, Any]], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    runs = sorted((r for r in runs if r["zones"] == 3 and r.get("managed_fields", "none") == "none" and not r.get("variant")), key=lambda r: r["nodes"])
    if not runs:
        return False
    series: list[tuple[str, Any]] = [
        ("json.load", lambda r: _sec(r, "json")),
        ("orjson.loads", lambda r: _sec(r, "orjson")),
        ("orjson.loads, GC off", lambda r: _sec(r, "orjson-nogc")),
        ("load JSON", lambda r: _sec(r, "load-json")),
        ("load YAML", lambda r: _sec(r, "load-yaml")),
        ("explain (after load)", lambda r: _sec(r, "explain")),
        ("check bench-sts N+10 (after load)", lambda r: _sec(r, "check-sts", "check bench-sts N=16")),
        ("check bench-web N+10 (after load)", lambda r: _sec(r, "check-web", "check bench-web N=22")),
        ("capacity, 5 counts (after load)", lambda r: _sec(r, "capacity")),
        ("end to end planner check (sts)", lambda r: _sec(r, "e2e", "end to end: planner check --workload statefulset")),
    ]
    mem: list[tuple[str, str]] = [("json.load", "json"), ("orjson.loads", "orjson"), ("load JSON", "load-json"), ("load YAML", "load-yaml"), ("check bench-sts", "check-sts"), ("end to end", "e2e")]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    xs_all = [r["nodes"] for r in runs]
    for label, fn in series:
        pts = [(r["nodes"], fn(r)) for r in runs]
        pts = [(x, y) for x, y in pts if y]
        if pts:
            ax1.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xticks(xs_all)
    ax1.set_xticklabels([f"{n:,}\n{next(r['meta']['pods'] for r in runs if r['nodes'] == n):,} pods" for n in xs_all])
    ax1.set_xlabel("nodes")
    ax1.set_ylabel("seconds")
    ax1.set_title("time per phase (3 zones)")
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=7)
    for label, ph in mem:
        pts = [(r["nodes"], next((p.get("rss_mib") for p in r["phases"] if p["phase"] == ph), None)) for r in runs]
        pts = [(x, y) for x, y in pts if y]
        if pts:
            ax2.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax2.axhline(2048, color="red", linestyle="--", linewidth=1, label="2 GiB target")
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.set_xticks(xs_all)
    ax2.set_xticklabels([f"{n:,}" for n in xs_all])
    ax2.set_xlabel("nodes")
    ax2.set_ylabel("peak RSS (MiB)")
    ax2.set_title("peak memory per phase (own subprocess)")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    try:
        write_with(path, lambda f: fig.savefig(f, format="png", dpi=100, metadata={"Software": None}))
    finally:
        plt.close(fig)
    return True


def _verdict(ok: bool | None) -> str:
    return "–" if ok is None else ("met" if ok else "**not met**")


def _decode(run: dict[str, Any]) -> tuple[float | None, str]:
    """The fast decoder's time: the better of orjson.loads with and without the cyclic GC."""
    cands = [(x, n) for x, n in ((_sec(run, "orjson-nogc"), "orjson.loads, GC off"), (_sec(run, "orjson"), "orjson.loads")) if x]
    return min(cands) if cands else (None, "")


def _ratio_row(add: Any, what: str, secs: float | None, base: float | None, limit: float, base_name: str = "json.load") -> None:
    if secs is None or not base:
        add(what, "not measured", None)
        return
    add(what, f"{_fmt_s(secs)} s vs {base_name} {_fmt_s(base)} s: {secs / base:.2f} ×", secs / base <= limit)


def _placements(r: dict[str, Any]) -> int | None:
    if r.get("placements") is not None:
        return int(r["placements"])
    head = str(r.get("answer", "")).split(" placements", 1)[0]
    return int(head) if head.isdigit() else None


def _targets(runs: dict[str, dict[str, Any]]) -> list[str]:
    """The issue's targets, each with its ratio measured in the same run (the same table)."""
    lines = ["| target | measured | verdict |", "|---|---|---|"]

    def add(target: str, measured: str, ok: bool | None) -> None:
        lines.append(f"| {target} | {measured} | {_verdict(ok)} |")

    for key, label in (("5000n-3z", "kubectl JSON"), ("5000n-3z-compact", "compact JSON")):
        run = runs.get(key)
        if run is None:
            add(f"5,000 nodes, {label}", "not measured (`python -m bench.run --sizes 5000`)", None)
            continue
        j = _sec(run, "json")
        for r in _find(run, "e2e"):
            what = r["name"].replace("end to end: planner ", "")
            _ratio_row(add, f"{what} at 5,000 nodes ({label}), first command: ≤ 1.0 × json.load", r["seconds"], j, 1.0)
            _ratio_row(add, f"{what} at 5,000 nodes ({label}), first command: ≤ 0.5 × json.load (one workload and its nodes)", r["seconds"], j, 0.5)
        for r in _find(run, "e2e-cached"):
            what = r["name"].replace("end to end: planner ", "").replace(", next command (snapshot from the cache)", "")
            _ratio_row(add, f"{what} at 5,000 nodes ({label}), next command (cache): ≤ 0.5 × json.load", r["seconds"], j, 0.5)
        for ph in run["phases"]:
            if ph["phase"] in ("e2e", "e2e-cached"):
                rss = ph.get("rss_mib") or 0
                name = ph["rows"][0]["name"].replace("end to end: planner ", "")
                add(f"peak RSS ≤ 1 GiB at 5,000 nodes ({label}): {name}", f"{rss:,.0f} MiB", rss <= 1024 if rss else None)
    mid = runs.get("500n-3z")
    if mid is not None:
        yl, jl, j = _sec(mid, "load-yaml"), _sec(mid, "load-json"), _sec(mid, "json")
        what = "YAML at 500 nodes within 5 × the JSON time (planner's load of the YAML file vs json.load of the JSON file)"
        if yl and j and jl:
            add(what, f"load (YAML) {_fmt_s(yl)} s vs json.load {_fmt_s(j)} s: {yl / j:.2f} × (vs planner's load of the JSON file, {_fmt_s(jl)} s: {yl / jl:.2f} ×)", yl / j <= 5.0)
        else:
            add(what, "not measured", None)
    else:
        add("YAML at 500 nodes within 5 × the JSON time", "500 nodes not measured", None)
    big = runs.get("5000n-3z")
    sims = _find(big, "simulate") if big else []
    for r in sims:
        n = _placements(r)
        if n and r["seconds"]:
            rate = n / r["seconds"]
            per = r.get("per_placement_seconds")
            beside = (f" (the call, {_fmt_s(r['seconds'])} s, holds {_fmt_s(r['fixed_seconds'])} s the same replay placing nothing"
                      f" takes; each placement beside that: {1 / per:,.0f} placements/s)") if per and r.get("fixed_seconds") else ""
            add("replay ≥ 5,000 placements/s at 5,000 nodes with zone spread", f"{r['name']}: {rate:,.0f} placements/s{beside}", rate >= 5000)
    if not sims:
        add("replay ≥ 5,000 placements/s at 5,000 nodes with zone spread", "not measured", None)
    # remediate's targets: 2 s at 50 and 500 nodes for any number of zones, 10 s at 5,000 nodes, a
    # verified plan found
    for sizes, limit in (((50, 3), (50, 6), (500, 3), (500, 6)), 2.0), (((5000, 3),), 10.0):
        for nodes, zones in sizes:
            run = runs.get(f"{nodes}n-{zones}z")
            what = f"remediate at {nodes:,} nodes, {zones} zones: ≤ {limit:g} s with at least one verified plan"
            rows = _find(run, "remediate") if run else []
            if not rows or rows[0]["seconds"] is None:
                add(what, "not measured", None)
                continue
            r = rows[0]
            found = not str(r.get("answer", "")).startswith("0 verified")
            add(what, f"{_fmt_s(r['seconds'])} s: {str(r.get('answer', '')).split(';')[0]}", r["seconds"] <= limit and found)
    src = big or mid
    for r in (_find(src, "startup-cli") + _find(src, "startup")) if src else []:
        add(f"{r['name']} ≤ 0.4 s", f"{_fmt_s(r['seconds'])} s", r["seconds"] is not None and r["seconds"] <= 0.4)
    return lines


def _profile_excerpt(path: Path, n: int = 22) -> list[str]:
    if not path.exists():
        return []
    text = path.read_text().splitlines()
    out, on, count = [], False, 0
    for line in text:
        if line.startswith("## by own time"):
            on = True
            continue
        if on and line.startswith("## "):
            break
        if on:
            if line.strip().startswith(("ncalls",)) or (line.strip() and line.strip()[0].isdigit()):
                out.append(line.rstrip())
                count += 1
            elif "function calls" in line:
                out.append(line.strip())
            if count >= n:
                break
    return out


def render(results: dict[str, Any], doc: Path, plot: Path) -> None:
    runs = results.get("runs", {})
    ordered = sorted(runs.values(), key=lambda r: (r["nodes"], r["zones"], r.get("managed_fields", "none") != "none", r.get("variant", "")))
    kept = _kept(doc)
    m = results.get("machine") or (ordered[-1]["machine"] if ordered else {})
    L: list[str] = []
    w = L.append
    w("# Performance")
    w("")
    w("Measured by `make bench` (`python -m bench.run`, see bench/run.py); the tables, the plot and the target")
    w("verdicts are generated, the commentary blocks are kept across runs. `python -m bench.run --sizes 50,500`")
    w("limits the sizes; `--profile` adds cProfile runs at the largest size (`--profile-only`: only those);")
    w("`--only PHASE,...` reruns some phases and merges them; `--render-only` rewrites this page.")
    w("")
    w("Every phase runs in its own subprocess; *peak RSS* is that process's high-water mark (`wait4`")
    w("`ru_maxrss`, i.e. VmHWM), interpreter and imports included. *repeat* is 5 at 50 nodes, 3 at 500 and 1 at")
    w("5,000: decoders keep their best of *repeat* calls, loads their best of *repeat* fresh processes (a second")
    w("load in one process would find planner's validation memos warm). \"after load\" rows time only the call")
    w("on an already loaded snapshot, and report its **first** call (what a command pays), with the best of the")
    w("repeated calls beside it; the rows of one phase share one loaded snapshot, in the order listed.")
    w("End-to-end rows are the best wall time of `python -m planner check FILE --workload ... -o json` as a")
    w("subprocess, interpreter start and imports included. *× json.load* divides by the plain `json.load` of")
    w("the same JSON file. The snapshot cache (planner/load/cache.py) is off in every phase but the end-to-end")
    w("rows: a *first command* runs with an empty cache folder (what the first command on a new snapshot pays,")
    w("writing the cache behind it in a child process, which is waited for before the next run and is not part")
    w("of the row); a *next command* reads the snapshot the first one left there (hashing the input in full).")
    w("")
    w("## Machine")
    w("")
    if m:
        w(f"* CPU: {m.get('cpu') or 'unknown'}; `nproc` = {m.get('nproc')}; memory {m.get('memory')}")
        w(f"* Python {m.get('python')} ({m.get('implementation')}), Linux {m.get('kernel')}")
        if m.get("touch_s_per_gib"):
            w(
                f"* fresh memory: {m['touch_s_per_gib']:.2f} s to allocate and zero 1 GiB (`bytearray(1 << 30)` in a new process); "
                "a phase that peaks at N GiB pays about N times that in page faults alone"
            )
        v = m.get("versions", {})
        w(f"* orjson {v.get('orjson')}, PyYAML {v.get('yaml')} (libyaml: {'yes' if m.get('libyaml') else 'no'}), OR-Tools {v.get('ortools')}")
        w(
            f"* planner at commit {m.get('commit') or '?'} in the latest run (each table names its own; `+dirty`: planner/ or "
            "models/ had uncommitted changes while measuring)"
        )
    w("")
    w("## Snapshots")
    w("")
    w("Generated by `python -m bench.generate --nodes N --zones Z --seed 1 --format json|yaml` into bench/out/")
    w("(see the bench/generate.py docstring): kubectl's `List` for")
    w("`kubectl get nodes,pods,pv,pvc,sc,deploy,rs,sts,hpa,pdb,ns -A -o json` (4-space indent, sorted keys) and the")
    w("same objects as multi-document YAML, 30 pods per node. Like kubectl ≥ 1.21 without")
    w("`--show-managed-fields`, the default files carry no `metadata.managedFields`; the `-mfall` variant")
    w("(`--managed-fields all`) carries them on every object. The `-compact` files (`--format compact`) are the")
    w("same List without whitespace: `kubectl get -o json | jq -c`, and the encoding of the API server's own")
    w("responses (`kubectl get --raw`). Half the bytes of the same objects indented: decoding is a smaller share")
    w("of a load there and planner's per-object work a larger one.")
    w("")
    w("| snapshot | nodes | zones | pods | objects | Deployments / ReplicaSets / StatefulSets | JSON MiB | YAML MiB | JSON bytes per object |")
    w("|---|---:|---:|---:|---:|---|---:|---:|---:|")
    for r in ordered:
        mt = r["meta"]
        jb, yb = r["bytes"].get("json"), r["bytes"].get("yaml")
        w(
            f"| {Path(r['files']['json']).stem} | {r['nodes']:,} | {r['zones']} | {mt['pods']:,} | {mt['objects']:,} | "
            f"{mt['deployments']:,} / {mt['replicasets']:,} / {mt['statefulsets']:,} | {jb / 2**20:,.0f} | "
            f"{f'{yb / 2**20:,.0f}' if yb else '–'} | {jb / mt['objects']:,.0f} |"
        )
    w("")
    w("## Results")
    for r in ordered:
        w("")
        mfv = r.get("managed_fields", generate.DEFAULT_MANAGED_FIELDS)
        w(
            f"### {r['nodes']:,} nodes, {r['meta']['pods']:,} pods, {r['zones']} zones"
            + ("" if mfv == generate.DEFAULT_MANAGED_FIELDS else f", managedFields on {mfv} objects")
            + (", compact JSON" if r.get("variant") == "compact" else "")
        )
        w("")
        w(f"Measured {r['when']}, repeat {r['repeat']}, commit {r['machine'].get('commit') or '?'}.")
        w("")
        L.extend(_table(r))
    w("")
    if _plot(list(runs.values()), plot):
        w("![time and peak memory against cluster size](performance.png)")
        w("")
        w("docs/performance.png: seconds (left) and peak RSS (right) per phase against nodes (30 pods per node), 3 zones, log-log.")
    w("")
    w("## Solver settings")
    w("")
    w("check and capacity run with planner's defaults (models/solve.py): **two interleaved** CP-SAT search workers")
    w("(`--workers 2`, deterministic: they take turns in a fixed order),")
    w("a **fixed seed** (`--seed 0`) and a **30 s time limit** per solve (`--time-limit 30`), so identical inputs give")
    w("identical answers. A solve that hits the time limit is answered **unknown** (exit 2), never guessed; so is a")
    w("feasible placement that no order replays through the filters and that is too large for the exact sequenced")
    w("model (docs/semantics.md, \"How it is decided\"). The benchmark reports such a row as `unknown` without a time.")
    w("An unschedulable answer's core is minimised by deletion within the same time limit; each trial is first a plain")
    w("search without presolve bounded to 0.1 deterministic seconds (`models.solve.QUICK_CORE_DTIME`: repeatable), then")
    w("the ordinary solve. capacity walks spec.replicas .. spec.replicas + 4 of bench-sts; `--zone-failure` and")
    w("`--add-nodes` are not timed. remediate asks for bench-sts at one replica more than the nodes its next pod fits")
    w("on (required hostname anti-affinity), top 3 verified plans: every candidate is checked and replayed.")
    w("")
    w("## Targets")
    w("")
    w("From the issue; verdicts computed from the tables above (the 5,000- and 500-node, 3-zone runs, kubectl's")
    w("indented JSON and the compact variant), each ratio from one run: the row's seconds over its own table's")
    w("`json.load` of the same file.")
    w("")
    L.extend(_targets(runs))
    w("")
    w("<!-- keep:targets -->")
    w(kept.get("targets", "_Commentary on the gaps: to be written after a 5,000-node run._"))
    w("<!-- /keep:targets -->")
    w("")
    w("## Profile")
    w("")
    w("<!-- keep:profile -->")
    w(kept.get("profile", "_Run `python -m bench.run --sizes 5000 --profile` and summarise what dominates here._"))
    w("<!-- /keep:profile -->")
    for size_key, files in sorted(results.get("profiles", {}).items()):
        for phase, rel in sorted(files.items()):
            ex = _profile_excerpt(ROOT / rel)
            if not ex:
                continue
            w("")
            w(f"#### cProfile, {phase} at {size_key} (top functions by own time; full listing in {rel}, git-ignored: `--profile-only` writes it)")
            w("")
            w("```")
            L.extend(ex)
            w("```")
    w("")
    doc.parent.mkdir(parents=True, exist_ok=True)
    write_file(doc, "\n".join(L))



def merged_when(old: str, ids: set[str], when: str) -> str:
    """A variant's time stamp once ``--only`` measured the phases ``ids`` again at ``when``: the
    stored stamp, each phase named at its latest time only (an earlier part loses the phases
    measured again, and goes when none is left)."""
    head, *parts = old.split("; ")
    kept = [head]
    for part in parts:
        names, sep, at = part.partition(" at ")
        left = [n for n in names.split(", ") if n not in ids] if sep else [part]
        if left:
            kept.append(f"{', '.join(left)}{sep}{at}")
    return "; ".join([*kept, f"{', '.join(sorted(ids))} at {when}"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description="planner benchmarks (see docs/performance.md)")
    ap.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="node counts, e.g. 50,500 (default 50,500,5000)")
    ap.add_argument("--zones", default=None, help="zone counts, e.g. 3,6 (default: 3, plus 6 up to 500 nodes)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=0, help="repetitions per phase, best kept (default 5/3/1 by size)")
    ap.add_argument("--no-yaml", action="store_true", help="skip the YAML file and its load phase")
    ap.add_argument(
        "--managed-fields", choices=generate.MANAGED_FIELDS, default=generate.DEFAULT_MANAGED_FIELDS,
        help="snapshot variant (bench.generate --managed-fields); results are kept apart from the default's",
    )
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds per phase subprocess")
    ap.add_argument("--profile", dest="do_profile", action="store_true", help="also cProfile load, explain and check at the largest size")
    ap.add_argument("--skip", default="", help="leave out these phases (comma-separated ids, e.g. remediate,load-stages)")
    ap.add_argument("--no-compact", action="store_true", help="skip the compact-JSON variant (run at 500 and 5,000 nodes, 3 zones)")
    ap.add_argument("--only", default="", help="run only these phases (comma-separated ids, e.g. orjson-nogc,check-sts) and merge them into the stored results")
    ap.add_argument("--profile-only", action="store_true", help="only the cProfile runs (at the largest of --sizes), then render")
    ap.add_argument("--render-only", action="store_true", help="only rewrite docs/performance.md from bench/out/results.json")
    # child mode (internal)
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--profile-out", dest="profile", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.phase:
        a.repeat = a.repeat or 1
        child(a)
        return
    results = load_results()
    sizes = [int(s) for s in a.sizes.split(",") if s.strip()]
    if a.profile_only and sizes:
        results["profiles"] = {**results.get("profiles", {}), f"{max(sizes)}n-3z": profile_size(max(sizes), 3, a.seed, a)}
        write_file(RESULTS, json.dumps(results, indent=1))
    elif not a.render_only:
        results["machine"] = machine()
        for nodes in sizes:
            zones = [int(z) for z in a.zones.split(",")] if a.zones else ([3, 6] if nodes <= SIX_ZONES_UP_TO else [3])
            variants = [(z, "") for z in zones]
            if not a.no_compact and nodes >= 500 and 3 in zones and a.managed_fields == generate.DEFAULT_MANAGED_FIELDS:
                variants.append((3, "compact"))
            for z, variant in variants:
                t = time.perf_counter()
                r = bench_size(nodes, z, a.seed, a, variant)
                r["machine"] = results["machine"]
                old = results["runs"].get(r["key"])
                if a.only and old is not None and not r["phases"]:
                    continue  # none of the phases asked for runs on this variant: it stays as stored
                if a.only and old is not None:  # merge: the new phases replace or join the stored ones
                    ids = {phase_id(p) for p in r["phases"]}
                    r["phases"] = [p for p in old["phases"] if phase_id(p) not in ids] + r["phases"]
                    r["phases"].sort(key=lambda p: PHASE_ORDER.index(phase_id(p)) if phase_id(p) in PHASE_ORDER else 99)
                    r["when"] = merged_when(old["when"], ids, r["when"])
                results["runs"][r["key"]] = r
                write_file(RESULTS, json.dumps(results, indent=1))
                log(f"{r['key']}: done in {time.perf_counter() - t:.0f}s")
        if a.do_profile and sizes:
            results["profiles"] = {**results.get("profiles", {}), f"{max(sizes)}n-3z": profile_size(max(sizes), 3, a.seed, a)}
            write_file(RESULTS, json.dumps(results, indent=1))
    render(results, DOC, PLOT)
    log(f"wrote {DOC.relative_to(ROOT)} and {PLOT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
