"""The second process of remediate (planner.engines.remediation.ahead): a forked child solves and
verifies ahead; the answer is the one process's, in the same order, with the same rejections;
an answer sent under another key is caught; nothing of it outlives an interrupt."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench import generate
from models.solve import SolveOptions
from planner.engines.remediation import Goal, ahead, remediate
from planner.engines.remediation import search as search_mod
from planner.engines.workloads import cluster_after_plans, find_workload, parse_workload, plan_workload
from planner.load import load_snapshot
from planner.scheduler import runtime
from tests.engines.test_remediation import _goal, _snap

OPTS = SolveOptions()
ROOT = Path(__file__).resolve().parents[2]


_BEFORE: set[int] = set()  # the children this process had when the test began (an earlier test's)


@pytest.fixture(autouse=True)
def _earlier_children():
    """What an earlier test left running or unreaped (a snapshot cache's writer, say) is not this
    test's: _children() leaves it out, whatever order the tests run in."""
    _BEFORE.clear()
    _BEFORE.update(_descendants(os.getpid()))
    yield


def _children() -> set[int]:
    """This process's live children (zombies included: not reaped is left over), but for those it
    had when the test began."""
    return _descendants(os.getpid()) - _BEFORE


def _plain(out) -> dict:
    d = out.to_dict()
    model = d["stats"].get("model")
    if model:
        d["stats"]["model"] = {k: v for k, v in model.items() if "seconds" not in k}
    return d


@pytest.fixture
def counted(monkeypatch):
    """The child's answers the search took (Ahead.lookup found)."""
    used: list[object] = []
    lookup = ahead.Ahead.lookup

    def spy(self, key, until=None):
        found, value = lookup(self, key, until)
        if found:
            used.append(key)
        return found, value

    monkeypatch.setattr(ahead.Ahead, "lookup", spy)
    return used


def _both(monkeypatch, snap, goal, top):
    monkeypatch.setenv(ahead.ENV, "1")
    one = remediate(snap, goal, top=top, opts=OPTS, seed=1)
    monkeypatch.setenv(ahead.ENV, "2")
    two = remediate(snap, goal, top=top, opts=OPTS, seed=1)
    return one, two


@pytest.fixture(scope="module")
def bench_6z(tmp_path_factory):
    """bench's 50-node 6-zone cluster (generated at random, seed 1) and its remediate goal."""
    path = generate.generate(50, 6, 1, ["json"], tmp_path_factory.mktemp("bench"))["json"]
    snap = load_snapshot([str(path)])
    ref = parse_workload("statefulset/bench/bench-sts", None)
    spec = find_workload(snap, ref).replicas
    plan = plan_workload(snap, ref, spec + 1)
    ev = runtime.evaluate(plan.new[0], cluster_after_plans(snap, [plan]))
    return path, snap, Goal(ref, "replicas", spec + sum(1 for n in ev.nodes if n.feasible) + 1)


@pytest.mark.parametrize(("case", "top"), [("ordinary", 3), ("ordinary", 10), ("node-groups", 3), ("seed-003", 5), ("seed-001", 5)])
def test_two_processes_answer_as_one(monkeypatch, counted, case: str, top: int) -> None:
    """The bundled cases (a cordoned node with a rejected plan among the optima; node groups;
    template changes): plans, their order, alternatives, rejections and counts as one process."""
    one, two = _both(monkeypatch, _snap(case), _goal(case), top)
    assert _plain(two) == _plain(one)
    if case == "ordinary":
        assert counted, "the child's answers were not used"
    assert not _children()


def test_two_processes_answer_as_one_on_a_generated_cluster(monkeypatch, counted, bench_6z) -> None:
    _, snap, goal = bench_6z
    one, two = _both(monkeypatch, snap, goal, 3)
    assert _plain(two) == _plain(one)
    assert len(one.plans) == 3
    kinds = {k[0] for k in counted}
    # the next optima and a plan's verification (whole, or its check or replay part: which, depends
    # on how far the child got when this process asked) came from the child
    assert "solve" in kinds and kinds & {"verify", "check", "replay"}, counted


def test_the_child_checks_a_plan_this_process_replays(monkeypatch, counted, bench_6z) -> None:
    """A replica goal's verification is check then the replay, each under its own key
    (Search._verify): the child checks the chain's plans first, and this process, waiting here
    for those checks, replays the plan itself; the answer is the one process's."""
    _, snap, goal = bench_6z
    lookup = ahead.Ahead.lookup

    def waiting(self, key, until=None):
        if key[0] == "verify":  # as if the child had not got to the whole verification yet
            self.tell(key)
            return False, None
        if key[0] == "check":
            while key not in self.done and self.alive:
                self._take(True)
        return lookup(self, key, until)

    monkeypatch.setattr(ahead.Ahead, "lookup", waiting)
    one, two = _both(monkeypatch, snap, goal, 3)
    assert _plain(two) == _plain(one)
    assert any(k[0] == "check" for k in counted), counted


def _wait_for_explanations(monkeypatch) -> None:
    """This process takes every explanation from the child: it waits for the child's answer (or
    its end) before it looks one up (which it would otherwise compute when the child has not
    begun it)."""
    lookup = ahead.Ahead.lookup

    def waiting(self, key, until=None):
        if key[0] == "explain":
            while key not in self.done and self.alive:
                self._take(True)
        return lookup(self, key, until)

    monkeypatch.setattr(ahead.Ahead, "lookup", waiting)


def test_the_child_explains_ahead_as_one_process_would(monkeypatch, counted, bench_6z) -> None:
    """The candidates proven useless alone are explained by the child ahead (the first variant of
    each family the plans found leave, choose._likely_explained): taken, the answer is the one
    process's."""
    _, snap, goal = bench_6z
    _wait_for_explanations(monkeypatch)
    one, two = _both(monkeypatch, snap, goal, 3)
    assert _plain(two) == _plain(one)
    assert sum(k[0] == "explain" for k in counted) >= 2, counted
    assert any(r["reason"].startswith("check: ") for r in _plain(one)["rejected"])


def _rotated(monkeypatch, snap, goal, top: int, rotate) -> tuple:
    """remediate with one process, then with two whose child sends each answer of the kinds
    ``rotate`` picks under the key of the one before it (a queue read in the wrong order)."""
    through = ahead.Worker.through
    last: list[object] = []

    def rotated(self, key, compute, send=lambda v: v, optional=False):
        if not rotate(key[0]):
            return through(self, key, compute, send, optional)
        ahead._write(self.out, ("doing", key))
        value = compute()
        if last:
            ahead._write(self.out, ("done", last[0], send(value)))
        last[:] = [key]
        return value

    monkeypatch.setenv(ahead.ENV, "1")
    one = remediate(snap, goal, top=top, opts=OPTS, seed=1)
    monkeypatch.setenv(ahead.ENV, "2")
    monkeypatch.setattr(ahead.Worker, "through", rotated)
    return one, remediate(snap, goal, top=top, opts=OPTS, seed=1)


def test_an_explanation_under_another_key_is_caught(monkeypatch, bench_6z) -> None:
    """The comparison above fails when the child's explanations come back out of place (each
    sent under the key of the one before it)."""
    _, snap, goal = bench_6z
    _wait_for_explanations(monkeypatch)
    one, two = _rotated(monkeypatch, snap, goal, 3, lambda kind: kind == "explain")
    assert _plain(two) != _plain(one)


def test_explanations_while_waiting_for_the_child_answer_as_one(monkeypatch, bench_6z) -> None:
    """Before the last plan's verification, which it would wait for while the child does it, this
    process explains ahead (Search.while_waiting): here as if the child were always doing it.
    The explanations are taken up to the first whose core search runs out, and the answer is the
    one process's."""
    _, snap, goal = bench_6z
    taken: list[object] = []
    while_waiting = search_mod.Search.while_waiting

    def spy(self, key, jobs, last=lambda v: False, rest=None):
        before = set(self.spare)
        while_waiting(self, key, jobs, last, rest)
        taken.extend(k for k in self.spare if k not in before)

    monkeypatch.setattr(search_mod.Search, "child_doing", lambda self, key: self.ahead is not None)
    monkeypatch.setattr(search_mod.Search, "while_waiting", spy)
    one, two = _both(monkeypatch, snap, goal, 3)
    assert _plain(two) == _plain(one)
    assert any(k[0] == "explain" for k in taken), taken


def test_an_answer_under_another_key_is_caught(monkeypatch) -> None:
    """The comparison above fails when the child's answers come back out of place: here each
    verification or replica count's check is sent under the key of the one before it (the
    rotation a queue read in the wrong order gives): the alternative's count changes.  (Optima
    out of order change the order plans are found in, which the ranking sorts again: the key
    mapping itself is tested below.)"""
    snap, goal = _snap("ordinary"), _goal("ordinary")
    one, two = _rotated(monkeypatch, snap, goal, 10, lambda kind: kind != "solve")
    assert _plain(two) != _plain(one)


def test_answers_are_taken_by_key_whatever_their_order() -> None:
    """Ahead alone: the child answers c, b, a; this process asks a, b, c and gets each its own
    value; a key this process computes itself is skipped by the child."""

    def agenda(w: ahead.Worker) -> None:
        w.through(("solve", "c"), lambda: "C")
        w.through(("solve", "b"), lambda: "B")
        w.through(("solve", "a"), lambda: "A")
        w.mark("chain")
        time.sleep(0.3)  # this process takes ("verify", "x") meanwhile
        w.through(("verify", "x"), lambda: "X", optional=True)
        w.through(("verify", "y"), lambda: "Y", optional=True)

    a = ahead.Ahead.start(agenda)
    assert a is not None
    try:
        assert a.lookup(("solve", "a"), "chain") == (True, "A")
        assert a.lookup(("solve", "b"), "chain") == (True, "B")
        assert a.lookup(("solve", "c"), "chain") == (True, "C")
        assert a.lookup(("solve", "d"), "chain") == (False, None)  # the chain is over without it
        assert a.lookup(("verify", "x")) == (False, None)  # not begun: taken here
        deadline = time.monotonic() + 10
        while ("verify", "y") not in a.done and a.alive and time.monotonic() < deadline:
            a._take(True)
        assert ("verify", "x") not in a.done  # skipped by the child
        assert a.lookup(("verify", "y")) == (True, "Y")
    finally:
        a.close()
    assert not _children()


def test_an_interrupt_leaves_no_child(monkeypatch, bench_6z) -> None:
    _, snap, goal = bench_6z
    me = os.getpid()
    verify = search_mod.Search._verify

    def interrupted(self, actions, *rest):
        if os.getpid() == me and self.ahead is not None:
            assert _children(), "the child had not started"
            raise KeyboardInterrupt
        return verify(self, actions, *rest)

    monkeypatch.setenv(ahead.ENV, "2")
    monkeypatch.setattr(search_mod.Search, "_verify", interrupted)
    with pytest.raises(KeyboardInterrupt):
        remediate(snap, goal, top=3, opts=OPTS, seed=1)
    assert not _children()


def _descendants(pid: int) -> set[int]:
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(d))
    return out


def test_ctrl_c_during_the_two_process_search_exits_130_and_leaves_no_process(bench_6z) -> None:
    path, snap, goal = bench_6z
    env = {**os.environ, ahead.ENV: "2"}
    p = subprocess.Popen(
        [sys.executable, "-m", "planner", "remediate", str(path), "-w", "statefulset/bench/bench-sts", "--replicas", str(goal.replicas), "--top", "3"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
        # a session of its own, so that the signal goes to its whole group as Ctrl-C at a
        # terminal does (the child included); SIGINT's default handler back (see test_bound)
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    kids: set[int] = set()
    deadline = time.monotonic() + 60
    while not kids and p.poll() is None and time.monotonic() < deadline:
        kids = _descendants(p.pid)
        time.sleep(0.01)
    if not kids:
        p.kill()
        p.wait()
        pytest.skip("the search ended before its second process started")
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert err == "interrupted\n"
    for k in kids:
        assert not Path(f"/proc/{k}").exists(), f"process {k} left behind"


def test_neither_side_waits_on_a_full_pipe() -> None:
    """Both pipes full at once (the child's answers unread while this process tells it about
    keys it computes itself) must not stop both: this process never waits to write.  Was: a
    6-zone plan's patches as keys filled both pipes and the search hung."""

    def agenda(w: ahead.Worker) -> None:
        # a long answer, and a long wait before it during which this process's keys pile up
        w.through(("verify", "slow"), lambda: (time.sleep(1.0), "x" * 200_000)[1])
        w.mark("slow over")

    class Hung(Exception):  # not an OSError, which a write's error handling would swallow
        pass

    def alarm(*_):
        raise Hung("the two processes wait on each other")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(20)
    a = ahead.Ahead.start(agenda)
    assert a is not None
    try:
        # the child busy with the slow key first (on a loaded machine it may start late: this
        # process would then take that key too)
        while a.doing != ("verify", "slow") and a.alive:
            a._take(True)
        for i in range(3000):  # about 200 KiB of keys this process takes while the child is busy
            a.lookup(("verify", ahead.digest(f"taken-{i}")))
        # until the child has marked it over: on a busy machine the child may not even have
        # begun it by now (a plain lookup then answers that this process computes it)
        assert a.lookup(("verify", "slow"), until="slow over") == (True, "x" * 200_000)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        a.close()


def test_while_waiting_makes_no_job_once_the_child_is_done(monkeypatch) -> None:
    """Search.while_waiting asks whether the child still does the key before it makes the next
    job (making one may run a solve: choose._likely_explained), and stops there."""
    made: list[int] = []

    def jobs():
        for i in range(3):
            made.append(i)
            yield ("explain", str(i)), lambda i=i: (f"why {i}", False)

    class Child:
        def lookup(self, key, until=None):
            return False, None

    search = search_mod.Search.__new__(search_mod.Search)
    search.spare, search.ahead = {}, Child()
    doing = [True, False]
    monkeypatch.setattr(search_mod.Search, "child_doing", lambda self, key: doing.pop(0) if doing else False)
    search.while_waiting(("verify", "x"), jobs())
    assert made == [0] and list(search.spare) == [("explain", "0")]


def _guesses(monkeypatch) -> list[bool]:
    """Per early fork of the child (choose._solve_first), whether its guess of the first optimum
    held as proven (Space.chain_trusted)."""
    from planner.engines.remediation import choose

    guessed: list[bool] = []
    real = choose._solve_first

    def spy(search, space, *a, **k):
        res = real(search, space, *a, **k)
        guessed.append(space.chain_trusted)
        return res

    monkeypatch.setattr(choose, "_solve_first", spy)
    return guessed


@pytest.mark.parametrize("case", ["seed-001", "seed-003", "ordinary"])
def test_the_child_starts_on_the_kept_pods_plan(monkeypatch, counted, case: str) -> None:
    """The first optimum (choose._solve_first): the child is forked on the plan of the world of the
    pods kept, before this process proves that no template change is cheaper.  When one is (a
    raised maxSkew cheaper than a deleted claim), the child's chain is not waited for and the
    answer is still the one process's; otherwise its solves are taken."""
    guessed = _guesses(monkeypatch)
    one, two = _both(monkeypatch, _snap(case), _goal(case), 5)
    assert _plain(two) == _plain(one)
    assert len(guessed) == 1  # the two-process run only
    if case == "ordinary":
        assert guessed == [True] and any(k[0] == "solve" for k in counted), counted
    assert not _children()


def test_a_wrong_guess_of_the_first_optimum_happens_in_the_bundled_cases(monkeypatch) -> None:
    """At least one bundled case makes the child's guess wrong (a template change is the cheapest
    plan), so that the path where the child's chain is dropped is exercised above."""
    guessed = _guesses(monkeypatch)
    monkeypatch.setenv(ahead.ENV, "2")
    for case in ("seed-001", "seed-003"):
        remediate(_snap(case), _goal(case), top=5, opts=OPTS, seed=1)
    assert False in guessed, guessed


def test_a_first_optimum_proof_out_of_time_takes_none_of_the_childs_solves(monkeypatch, counted) -> None:
    """The proof that no template change is cheaper runs out of time here (an "unknown", injected
    once in this process): the first optimum is the child's guess but not proven, so the child's
    model (which took the proof as made) differs from this one and none of its solves is taken;
    the answer is the one process's with the same injection."""
    from models import solve as solve_mod
    from models.solve import ActionResult

    me = os.getpid()
    real_once = solve_mod._solve_actions_once

    def run(procs: str):
        fired: list[int] = []

        def once(am, opts, assumptions):
            roll = am.worlds.get("roll")
            options = {lit.index for lit in am.lits.values()} | {-lit.index - 1 for lit in am.lits.values()}
            free = not any(a.index in options or (-a.index - 1) in options for a in assumptions)
            if os.getpid() == me and not fired and roll is not None and free and any(a.index == roll.index for a in assumptions):
                fired.append(1)
                return ActionResult(status="unknown", reason="injected time limit")
            return real_once(am, opts, assumptions)

        monkeypatch.setattr(solve_mod, "_solve_actions_once", once)
        monkeypatch.setenv(ahead.ENV, procs)
        trusted = _guesses(monkeypatch)
        out = remediate(_snap("ordinary"), _goal("ordinary"), top=5, opts=OPTS, seed=1)
        return out, fired, trusted

    one, fired_one, _ = run("1")
    counted.clear()
    two, fired_two, trusted = run("2")
    assert fired_one and fired_two and trusted == [False]
    assert not any(k[0] == "solve" for k in counted), counted
    assert _plain(two) == _plain(one)
    assert not _children()
