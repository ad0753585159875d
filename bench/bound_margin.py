"""How much the margin of the cluster's bound costs and buys (docs/semantics.md, "Counts larger
than the cluster can hold").

    python -m bench.bound_margin bench/out/cluster-50n-3z.json [bench/out/cluster-500n-3z.json ...]

For bench-sts and bench-web of each generated snapshot (python -m bench.generate): the bound B
(planner.engines.workloads.room_bound), then for counts B+k past it

* check: the full check (plan the pods, build and solve the model, minimise the why) against the
  arithmetic answer (bound_outcome), and which constraints the full check's why names;
* capacity: a range B-4..B+k collapsed at B (what capacity does) against the same range walked
  count by count (the collapsed run plus a full check of each count past B);
* simulate: the replay scaled to B+k (every replica) against the same replay capped at B+1, as
  simulate does (the answer, the placements and the final zone counts compared);

best of --repeat runs (the capacity and simulate columns: one run), printed as a Markdown table.
The margins are forced per column through planner.engines.workloads.BOUND_SLACK and
planner.engines.replay.STEP_SLACK.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from models.solve import SolveOptions
from planner.engines import capacity as capacity_engine
from planner.engines import check as check_engine
from planner.engines import replay as replay_engine
from planner.engines import workloads
from planner.engines.workloads import find_workload, parse_workload, room_bound
from planner.load import Limits, load_snapshot

WORKLOADS = ("statefulset/bench/bench-sts", "deployment/bench/bench-web")
NEVER = 10**12  # a margin no count reaches: the full answer


def _slack(check: int = 1000, step: int = 0) -> None:
    """check's margin (BOUND_SLACK) and the replay's for a step's count (STEP_SLACK)."""
    workloads.BOUND_SLACK = check
    replay_engine.STEP_SLACK = step


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _why(out: Any) -> str:
    return ", ".join(sorted({e["constraint"] for e in out.explanation if e["constraint"] != "replicas"}))


def measure(path: str, ks: list[int], repeat: int, opts: SolveOptions) -> list[str]:
    snap = load_snapshot([path], Limits(max_bytes=16 << 30))
    rows = [f"### {path.rsplit('/', 1)[-1]} ({len(snap.nodes):,} nodes, {len(snap.pods):,} pods)", "",
            "| workload | count | bound | full check s (why) | arithmetic ms | capacity B-4..count s, walked / collapsed | simulate s, every replica / capped at B+1 (same answer) |",
            "|---|---:|---:|---|---:|---|---|"]
    for w in WORKLOADS:
        ref = parse_workload(w, None)
        b = room_bound(snap, ref, find_workload(snap, ref).replicas)
        bound = b.max_replicas
        for k in ks:
            n = bound + k
            _slack(check=NEVER)
            full_s, full = _best(lambda: check_engine.check_replicas(snap, [ref], n, opts), repeat)  # noqa: B023
            _slack(check=0)
            arith_s, _ = _best(lambda: check_engine.check_replicas(snap, [ref], n, opts), repeat)  # noqa: B023
            cap = ""
            if k <= 100:
                # capacity collapses every count past the bound (no margin); walking them instead
                # costs what checking each one costs: the collapsed run plus a full check per count
                collapsed, _ = _best(lambda: capacity_engine.capacity(snap, ref, (bound - 4, n), False, False, opts), 1)  # noqa: B023
                _slack(check=NEVER)
                per_count = sum(_best(lambda: check_engine.check_replicas(snap, [ref], m, opts), 1)[0]  # noqa: B023
                                for m in range(bound + 1, n + 1))
                cap = f"{collapsed + per_count:.2f} / {collapsed:.2f}"
            step = replay_engine.Step("scale", {"ref": ref, "workload": str(ref), "replicas": n})
            _slack(step=NEVER)
            sim_full, r_full = _best(lambda: replay_engine.Simulator(snap, seed=1).run([step], [ref]), 1)  # noqa: B023
            _slack(step=0)
            sim_cap, r_cap = _best(lambda: replay_engine.Simulator(snap, seed=1).run([step], [ref]), 1)  # noqa: B023
            same = (r_full["completed"], r_full["placements"], r_full["final"]["zones"]) == (r_cap["completed"], r_cap["placements"], r_cap["final"]["zones"])
            rows.append(
                f"| {ref.name} | B+{k:,} = {n:,} | {bound:,} | {full_s:.2f} ({_why(full)}) | {arith_s * 1000:.1f} | {cap or '-'} | "
                f"{sim_full:.2f} / {sim_cap:.2f} ({'yes' if same else 'NO'}; {r_full['placements']:,} / {r_cap['placements']:,} placements) |"
            )
            print(rows[-1], flush=True)
    _slack()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--counts", default="1,10,100,1000", help="k in B+k, comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    ks = [int(x) for x in a.counts.split(",")]
    opts = SolveOptions(workers=1)
    out: list[str] = []
    for f in a.files:
        out += measure(f, ks, a.repeat, opts) + [""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
