"""planner/commands/remediate.py: the progress line on a terminal."""

from __future__ import annotations

from planner.commands.remediate import Progress


def test_progress_counts_and_time_left():
    lines: list[str] = []
    p = Progress(lines.append)
    p.start -= 12.0  # 12 s in
    p("building the model of the candidate actions", 0, 3)
    p("verifying scale-node-group", 1, 3)
    p("verifying relax-anti-affinity", 3, 3)
    p("diagnosing", 0, 0)
    assert lines[0] == "remediate: building the model of the candidate actions (0/3)"
    assert lines[1] == "remediate: verifying scale-node-group (1/3, about 24 s left)"
    assert lines[2] == "remediate: verifying relax-anti-affinity (3/3)"
    assert lines[3] == "remediate: diagnosing"


def test_no_progress_on_a_pipe(capsys):
    """planner.output.progress writes only to a terminal: remediate's progress never reaches a pipe."""
    from planner.output import progress

    Progress(progress)("verifying uncordon", 1, 2)
    assert capsys.readouterr().err == ""
