"""`planner simulate`'s table when a transition leaves many pods Pending (a zone lost on a large
cluster): the watched workloads' pods each with their reasons, a few of the others, the rest
grouped by kube-scheduler's message; each step's Pending pods named up to a bound."""

from __future__ import annotations

from planner.commands.simulate import MAX_MESSAGES, MAX_NAMES, MAX_OTHERS, MAX_WATCHED, render_simulate


def _stuck(pod: str, msg: str) -> dict:
    return {"pod": pod, "since_step": 1, "reasons": [msg, f"node-a (+9): {msg}"]}


def _result(others: int) -> dict:
    mine = [_stuck("shop/api-1", "0/3 nodes are available: 3 Insufficient cpu.")]
    rest = [_stuck(f"team/app-{i}", f"0/3 nodes are available: {i % 12} message.") for i in range(others)]
    pending = [s["pod"] for s in mine + rest]
    return {
        "workloads": ["statefulset/shop/api"], "completed": False, "seed": 0,
        "steps": [{"step": 1, "action": "zone zone-a goes down", "events": [], "zones": {}, "skew": {}, "pending": pending}],
        "stuck": mine + rest, "pending_elsewhere": [], "incomplete": ["statefulset/shop/api"], "drain_blocked": [], "notes": [],
        "final": {"pods": {"shop/api-0": {}, "shop/api-1": {}}, "zones": {}, "claims": []},
    }


def test_few_stuck_pods_are_each_shown():
    out = render_simulate(_result(MAX_OTHERS))
    assert out.count("Pending since step 1") == 1 + MAX_OTHERS and "left Pending, by" not in out


def test_many_stuck_pods_are_grouped_by_message():
    n = 200
    out = render_simulate(_result(n))
    lines = out.splitlines()
    assert out.count("Pending since step 1") == 1 + MAX_OTHERS  # api-1 (watched) and the first others
    assert "shop/api-1 Pending since step 1" in out and "node-a (+9): 0/3 nodes are available: 3 Insufficient cpu." in out
    assert f"{n - MAX_OTHERS} more pod(s) of other workloads left Pending" in out
    groups = [ln for ln in lines if ln.startswith("      ") and " pod(s) (" in ln]
    assert len(groups) == MAX_MESSAGES  # 12 messages: the 10 largest shown
    assert sum(int(g.split()[0]) for g in groups) + int(lines[-2].split()[1]) == n - MAX_OTHERS
    assert "under 2 other message(s)" in lines[-2]
    pending = next(ln for ln in lines if ln.strip().startswith("pending:"))
    assert pending.endswith(f"(+{n + 1 - MAX_NAMES} more)") and pending.count(",") == MAX_NAMES - 1


def test_many_stuck_pods_of_the_watched_workload_are_grouped_too():
    r = _result(0)
    r["stuck"] = [_stuck(f"shop/api-{i}", "0/3 nodes are available: 3 Insufficient cpu.") for i in range(50)]
    r["final"]["pods"] = {s["pod"]: {} for s in r["stuck"]}
    out = render_simulate(r)
    assert out.count("Pending since step 1") == MAX_WATCHED
    assert f"{50 - MAX_WATCHED} more pod(s) left Pending" in out and "of other workloads" not in out
    assert f"{50 - MAX_WATCHED} pod(s) (shop/api-{MAX_WATCHED}, " in out
