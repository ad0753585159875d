"""planner/commands/remediate.py: its progress goes to planner.progress, the reporter every command
uses (counts and the time left on a terminal, nothing on a pipe)."""

from __future__ import annotations

import subprocess
import sys

from models.solve import SolveOptions
from planner import progress
from planner.commands.remediate import remediate_command
from planner.load import Limits
from tests.conftest import ROOT, SCENARIOS
from tests.test_progress import Recorder

S001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"


def test_progress_counts_plans_verified_in_one_task():
    """The search's "verifying plans: <actions>" calls are one task counting the plans found of
    those wanted (--top), its description the plan at work."""
    rec = Recorder()
    with progress.reporting(rec):
        out = remediate_command([S001], "statefulset/search", None, 3, False, None, [], False, 3, None, SolveOptions(), 0, Limits())
    assert out["plans"]
    starts = [(d, total) for d, total, _u in rec.tasks() if d.startswith("verifying plans")]
    assert len(starts) == 1 and starts[0][1] == 3, rec.events  # one task, whatever the plans verified
    described = {d for what, d, _done, _total, _u in rec.events if d.startswith("verifying plans: ")}
    assert len(described) >= 2  # the description follows the plan at work
    dones = [done for what, d, done, _t, _u in rec.events if d.startswith("verifying plans")]
    assert dones == sorted(dones) and max(dones) <= 3
    assert any(d.startswith("building the model") and total == 3 for d, total, _u in rec.tasks())


def test_no_progress_on_a_pipe():
    r = subprocess.run(
        [sys.executable, "-m", "planner", "remediate", str(S001), "-w", "statefulset/search", "--replicas", "3", "--top", "2"],
        cwd=ROOT, capture_output=True, env={"PYTHONPATH": str(ROOT), "PLANNER_PROGRESS_DELAY": "0", "PATH": "/usr/bin:/bin"},
    )
    assert r.returncode == 0, r.stderr
    assert b"verifying" not in r.stderr and b"ETA" not in r.stderr and b"\r" not in r.stderr


def test_table_lists_the_first_rejected_candidates_and_counts_the_rest():
    """A long "tried and rejected" list is cut in the table (JSON keeps every one)."""
    from planner.commands.remediate import REJECTED_SHOWN, render_remediate

    rejected = [{"actions": [f"scale-node-group nodegroup/g/zone-{i}"], "reason": "replay: still Pending"} for i in range(REJECTED_SHOWN + 4)]
    r = {"goal": {"type": "replicas", "workload": "statefulset/default/s", "replicas": 3}, "schedulable_now": False, "plans": [], "failure": "",
         "rejected": rejected, "notes": []}
    text = render_remediate(r)
    assert text.count("\n  - scale-node-group") == REJECTED_SHOWN
    assert "... and 4 more (-o json lists every one)" in text
    r["rejected"] = rejected[:REJECTED_SHOWN]
    assert "more (-o json" not in render_remediate(r)
