"""The search for the cheapest verified plans.

The failure (check's minimal explanation for replica goals, the replay's stuck pods for
transitions) names the constraint groups that block the goal; planner.engines.remediation.candidates
turns each into candidate actions.  Then:

* replica goals: one CP-SAT model chooses the actions (planner.engines.remediation.choose,
  models/remediation.py): one literal per candidate, each gating the constraints it changes, its
  effect encoded (node groups by an integer count of new nodes), the objective the ranking's cost
  order.  Its optimum, then the next optima (a verified plan excluded with every plan that
  contains it, a rejected one alone), are verified until ``top`` plans; the candidates it cannot
  weigh (a rollout strategy, the pod management policy) are added to a plan whose replay failed,
  and the candidates it does not model are tried alone as below (``enumerate_plans``);
* transitions (rollout, scale, replayed steps), which the replay decides and no placement model
  does: every candidate, then every pair of candidates that failed alone, cheapest first
  (``enumerate_plans``).

Every plan is verified on the patched snapshot (planner.engines.remediation.verify: check and the
replay for replicas, the replay for rollouts and scaling); the patched snapshots share the
unchanged cluster with the snapshot they came from (Snapshot.derive).

Ranking: a plan that reaches the goal as asked before any that changes it: those (scale-to, another
replica count) are ``alternatives``, listed apart; then every non-destructive plan before every
destructive one (delete-pvc, set-pod-management-policy), unless ``allow_destructive``; then by
cost, then by the number of actions.  Every action that changes a Helm-managed object names its
release (planner.engines.remediation.helm).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from models.solve import SolveOptions
from planner.collector import paused
from planner.engines.problem import Memo
from planner.engines.remediation.actions import ACTION_TYPES, Action, Cost, Plan
from planner.engines.remediation.ahead import Ahead, Worker, digest
from planner.engines.remediation.candidates import (
    MAX_ADDED_PER_ZONE,
    Context,
    Failure,
    generate,
    replay_generate,
    scale_to_action,
)
from planner.engines.remediation.choose import choose, new_nodes_limit
from planner.engines.remediation.helm import annotate_helm
from planner.engines.remediation.jsonpatch import PatchError
from planner.engines.remediation.verify import (
    Goal,
    Verdict,
    apply_plan,
    evaluate,
    involved,
    is_ok_now,
    parse_goal_steps,
    replay_verdict,
    run_goal_steps,
)
from planner.engines.workloads import BOUND_SLACK, ensure_plannable, find_workload, plan_workload
from planner.errors import UnknownResult, UsageError
from planner.snapshot import Snapshot

PLUGINS = (
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
)
MAX_VERIFICATIONS = 120
BUDGET_SECONDS = 300.0  # wall clock for the whole search; past it, what was found is printed
LADDERS = ("scale-node-group", "raise-max-skew", "set-requests")
MAX_SCALE_TRIES = 8
PAIR_VARIANTS = 2


@dataclass
class Outcome:
    goal: Goal
    schedulable_now: bool
    failure: str = ""
    plans: list[Plan] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    alternatives: list[Plan] = field(default_factory=list)  # plans that change the goal (scale-to)

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal.to_dict(),
            "schedulable_now": self.schedulable_now,
            "failure": self.failure,
            "plans": [p.to_dict() for p in self.plans],
            "alternatives": [p.to_dict() for p in self.alternatives],
            "rejected": self.rejected,
            "notes": self.notes,
            "stats": self.stats,
        }


def past_any_plan(snap: Snapshot, goal: Goal) -> str:
    """Why no plan can reach the goal's replica count, or "": a bound no action can lift.  Every
    replica takes a pod slot; the actions change no node's allocatable pod slots and add at most
    so many nodes per node group (and zone, and per the nodes without one: new_nodes_limit for a
    replica goal, whose model counts them, MAX_ADDED_PER_ZONE for a scale goal, enumerated),
    each cloned from a node read, so no plan's cluster has more slots than every node's
    allocatable pods plus that many nodes of the largest.  (Other pods may be scaled away and
    requests changed: only the slots count.)"""
    n = goal.replicas
    if goal.kind not in ("replicas", "scale") or n is None or n <= BOUND_SLACK:
        return ""
    slots = [node.allocatable.get("pods", 0) for node in snap.nodes.values()]
    groups = len(snap.zones) + 1
    per_group = new_nodes_limit(snap) if goal.kind == "replicas" else MAX_ADDED_PER_ZONE
    ceiling = sum(slots) + groups * per_group * max(slots, default=0)
    if n <= ceiling:
        return ""
    return (
        f"{n:,} replicas are past any plan: the {len(slots):,} node(s) have {sum(slots):,} pod slots in all, and adding up to "
        f"{per_group:,} node(s) in each of {groups} zone group(s) (at most {max(slots, default=0):,} slots each) gives at most {ceiling:,}"
    )


def check_forbid(forbid: Iterable[str]) -> list[str]:
    out = []
    for t in forbid:
        if t not in ACTION_TYPES:
            raise UsageError(f"--forbid {t!r}: supported values: {', '.join(ACTION_TYPES)}")
        out.append("scale-node-group" if t == "add-nodes" else t)  # add-nodes: the retired name
    return out


# --------------------------------------------------------------------------- diagnosis


def diagnose(snap: Snapshot, goal: Goal, opts: SolveOptions, seed: int, memo: Memo | None = None, checked: Any = None) -> Failure:
    """What blocks the goal: the plugins named and the claims that pin pods to be placed.
    ``checked``: check's explained answer for the goal on ``snap`` when it was asked already
    (is_ok_now's: the same question), else check is asked here."""
    f = Failure()
    ref = goal.ref
    if goal.kind == "replicas":
        from planner.engines.check import check_replicas

        try:
            out = checked if checked is not None else check_replicas(snap, [ref], goal.replicas, opts, memo=memo)
        except UnknownResult as e:
            f.text = str(e)
            f.plugins = set(PLUGINS)
            out = None
        if out is not None:
            f.plugins = {e["constraint"] for e in out.explanation if e["constraint"] != "replicas"}
            f.text = "; ".join(e["message"] for e in out.explanation if e["constraint"] != "replicas")
        plan = plan_workload(snap, ref, goal.replicas)
        for pod in plan.new:
            for v in pod.spec.volumes:
                _pin(snap, pod.key if pod.key in snap.pods else None, f"{pod.namespace}/{v.claim_name}", f)
        return f
    from planner.engines.replay import Simulator, Step

    if goal.kind == "replay":
        return _diagnose_replay(snap, goal, seed)
    if goal.kind == "rollout":
        steps = [Step("rollout", {"ref": ref, "workload": str(ref), "image": None})]
    else:
        steps = [Step("scale", {"ref": ref, "workload": str(ref), "replicas": goal.replicas})]
    sim = Simulator(snap, seed=seed)
    result = sim.run(steps, [ref], explain_elsewhere=False)  # the workload's stuck pods alone are read
    mine = set(result["final"]["pods"])
    texts = []
    for s in result["stuck"]:
        if s["pod"] not in mine:
            continue
        text = " ".join(s["reasons"])
        texts.append(f"{s['pod']}: {s['reasons'][0] if s['reasons'] else 'Pending'}")
        f.plugins |= {p for p in PLUGINS if p + ":" in text}
        stuck_pod = sim.snap.pods.get(s["pod"])
        if stuck_pod is not None:
            for v in stuck_pod.spec.volumes:
                _pin(snap, stuck_pod.key if stuck_pod.key in snap.pods else None, f"{stuck_pod.namespace}/{v.claim_name}", f)
    if not texts and str(ref) in result["incomplete"]:
        texts.append(f"the rollout of {ref} does not complete")
    f.text = "; ".join(texts)
    return f


def _diagnose_replay(snap: Snapshot, goal: Goal, seed: int) -> Failure:
    """The stuck pods of the replay of the goal's steps: their plugins, the snapshot's claims that
    pin them (claims the steps create are not in the snapshot: nothing to delete beforehand)."""
    f = Failure()
    run = run_goal_steps(snap, goal, seed)
    texts = []
    owner = {k: v["workload"] for k, v in run.result["final"]["pods"].items()}
    for s in run.stuck:
        text = " ".join(s["reasons"])
        texts.append(f"{s['pod']} (Pending from step {s['since_step']}): {s['reasons'][0] if s['reasons'] else 'Pending'}")
        f.plugins |= {p for p in PLUGINS if p + ":" in text}
        if s["pod"] in owner and owner[s["pod"]] not in f.stuck:
            f.stuck.append(owner[s["pod"]])
        pod = run.sim.snap.pods.get(s["pod"])
        if pod is not None:
            for v in pod.spec.volumes:
                _pin(snap, pod.key if pod.key in snap.pods else None, f"{pod.namespace}/{v.claim_name}", f)
    for r in run.result["incomplete"]:
        if r not in f.stuck:  # a workload with stuck pods is incomplete too: the pods say why
            texts.append(f"the rollout of {r} does not complete")
    if run.result["drain_blocked"]:
        texts.append(f"the drain is blocked: {', '.join(run.result['drain_blocked'])}")
    f.text = "; ".join(texts)
    return f


def _pin(snap: Snapshot, pod_key: str | None, claim_key: str, f: Failure) -> None:
    pvc = snap.pvcs.get(claim_key)
    if pvc is None or not pvc.volume_name:
        return
    pv = snap.pvs.get(pvc.volume_name)
    if pv is not None and pv.node_affinity is not None and (pod_key, claim_key) not in f.pinned:
        f.pinned.append((pod_key, claim_key))


# --------------------------------------------------------------------------- search


Progress = Callable[[str, int, int], None]


class Search:
    def __init__(self, snap: Snapshot, goal: Goal, opts: SolveOptions, seed: int, progress: Progress | None = None) -> None:
        self.snap = snap
        self.goal = goal
        self.opts = opts
        self.seed = seed
        self.progress = progress
        self.verifications = 0
        self.deadline = time.monotonic() + BUDGET_SECONDS
        self._phase: tuple[str, int, int] = ("", 0, 0)
        self.memo = Memo()  # what check's problems share across the plans (the same pods, related clusters)
        # the forked child working ahead (planner.engines.remediation.ahead), or in that child its side
        self.ahead: Ahead | None = None
        self.worker: Worker | None = None
        self.ahead_started = False
        # what the child does once the action model's plans are verified (remediate: the other
        # replica counts and the plan of the nearest one), in the child
        self.after_choose: Callable[[], Any] | None = None
        # answers this process computed while it waited for the child (while_waiting), by key
        self.spare: dict[Any, Any] = {}
        # in the child: the answers it computed, by key (see through)
        self.mine: dict[Any, Any] = {}

    def may_start_ahead(self) -> bool:
        """Would start_ahead fork a child now (none started yet, this is not the child, and
        ahead.usable says a second process pays)?"""
        from planner.engines.remediation.ahead import usable

        return not self.ahead_started and self.worker is None and usable(len(self.snap.nodes))

    def start_ahead(self, agenda: Callable[[Worker], None]) -> None:
        """A forked child running ``agenda`` (at most one per search: may_start_ahead decides)."""
        if not self.may_start_ahead():
            return
        self.ahead_started = True

        def run(worker: Worker) -> None:
            self.worker = worker
            self.progress = None
            agenda(worker)

        self.ahead = Ahead.start(run)

    def close(self) -> None:
        if self.ahead is not None:
            self.ahead.close()

    def through(self, key: Any, compute: Callable[[], Any], until: str | None = None, optional: bool | None = None) -> Any:
        """``compute()``, or the child's answer for ``key`` (ahead.Ahead.lookup), or the answer
        computed while waiting for the child (while_waiting).  In the child: its own answer for
        ``key`` when it computed one already (a check it did ahead, asked again by the plan's
        verification), and ``optional`` (by default a verification or an explanation: what the
        child's agenda does not need itself) skipped when this process took it."""
        if self.worker is not None:
            if key in self.mine:
                return self.mine[key]
            value = self.worker.through(key, compute, optional=key[0] in ("verify", "explain") if optional is None else optional)
            if value is not None:
                self.mine[key] = value
            return value
        if key in self.spare:
            return self.spare.pop(key)
        if self.ahead is not None:
            found, value = self.ahead.lookup(key, until)
            if found:
                return value
        return compute()

    def report(self, what: str, done: int, total: int) -> None:
        """Progress: ``what`` is being done, ``done`` of ``total`` (plans wanted, or families to try)."""
        self._phase = (what, done, total)
        if self.progress:
            self.progress(what, done, total)

    @property
    def exhausted(self) -> bool:
        return self.verifications >= MAX_VERIFICATIONS or time.monotonic() > self.deadline

    def verify(self, actions: list[Action], checked_ahead: bool = False) -> Verdict:
        """verify.evaluate of the plan.  ``checked_ahead``: the child working ahead checks it too
        (a plan of the chain it solved, choose._agenda): the replay comes first here, so that the
        two parts run side by side (the verdict is check's when it fails: the replay is then
        wasted)."""
        self.verifications += 1
        v: Verdict = self.through(self.verify_key(actions), lambda: self._verify(actions, checked_ahead))
        return v

    @staticmethod
    def verify_key(actions: list[Action]) -> tuple[str, str]:
        return ("verify", digest(repr([(a.patches, a.replicas, a.rolls_template) for a in actions])))

    def child_doing(self, key: Any) -> bool:
        """Is the child working ahead doing ``key`` now, or a part of it (a verification's check
        or replay: _verify), which this process would wait for?"""
        ahead = self.ahead
        if ahead is None or self.worker is not None:
            return False
        while ahead._take(False):
            pass
        doing: Any = ahead.doing
        if not ahead.alive or doing is None:
            return False
        return bool(doing == key or (key[0] == "verify" and doing[0] in ("check", "check-witness", "replay") and doing[1:] == key[1:]))

    def while_waiting(
        self, key: Any, jobs: Iterable[tuple[Any, Callable[[], Any]]], last: Callable[[Any], bool] = lambda v: False,
        rest: Callable[[], Iterable[Any]] | None = None,
    ) -> None:
        """While the child does ``key``, which this process is about to wait for, the ``jobs``
        ((key, compute) each, answers the search will most likely ask for later, in the order
        it asks), one at a time, each taken from the child, or computed here (the child is told,
        and skips it) and kept for ``through``; none once the child is done with ``key``, nor
        after an answer that ``last`` says ends the series (then the keys ``rest()`` names, or
        the jobs left, are forgone)."""
        it = iter(jobs)
        while self.child_doing(key):  # asked before the next job is made (making one may solve)
            job = next(it, None)
            if job is None:
                return
            k, compute = job
            if k in self.spare:
                continue
            assert self.ahead is not None
            found, value = self.ahead.lookup(k)
            value = self.spare[k] = value if found else compute()
            if last(value):
                self.forgo(rest() if rest is not None else (k for k, _ in it))
                return

    def forgo(self, keys: Iterable[Any]) -> None:
        """Keys the search will not ask for after all: the child skips those it has not begun."""
        ahead = self.ahead
        if ahead is None or self.worker is not None:
            return
        for k in keys:
            if k not in ahead.done and k != ahead.doing:
                ahead.tell(k)

    def _verify(self, actions: list[Action], replay_first: bool = False) -> Verdict:
        """verify.evaluate of the plan; for a replica goal its two parts, check then the replay
        (the replay first with ``replay_first`` while the child works ahead: see verify), each
        under a key of its own (("check", ...), ("replay", ...)), so that this process and the
        child working ahead can each do one part of a plan's verification.  Check's part is its
        model's answer: a placement it finds is not ordered pod by pod through the filters, since
        the replay that follows places every pod through them (the verdict holds when it reaches
        the goal); when it does not, check's witness is ordered (("check-witness", ...)) and its
        answer is the verdict's check part, as verify.evaluate gives it."""
        trial = self._trial(actions)
        if isinstance(trial, Verdict):
            return trial
        snap, goal, n, rolls = trial
        if goal.kind != "replicas":
            v = evaluate(snap, goal, self.opts, self.seed, replicas=n, template_changed=rolls, memo=self.memo)
            return replace(v, checked=None)  # what the callers read (and what the child sends back)
        digest_ = self.verify_key(actions)[1]

        def replay() -> Verdict:
            r: Verdict = self.through(("replay", digest_), lambda: replay_verdict(snap, goal, n, self.seed), optional=False)
            return r

        first = replay() if replay_first and self.ahead is not None and self.ahead.alive and self.worker is None else None
        c = self._check_part(digest_, trial, optional=False)
        if not c.ok:
            return c
        r = first if first is not None else replay()
        if not r.ok:
            # the model placed the pods and the replay did not reach them: check's own answer,
            # its placement ordered pod by pod through the filters (the model's alone is no proof),
            # tells a plan whose pods fit but whose way there fails (repaired) from one that
            # does not fit after all
            c = self._check_part(digest_, trial, optional=False, witness=True)
            if not c.ok:
                return c
        return Verdict(r.ok, r.reason, {**c.detail, **r.detail})

    def check_ahead(self, actions: list[Action]) -> None:
        """In the child: the check part of the plan's verification (_verify), unless this process
        took it; kept for the verification that asks for it."""
        trial = self._trial(actions)
        if not isinstance(trial, Verdict) and trial[1].kind == "replicas":
            self._check_part(self.verify_key(actions)[1], trial, optional=True)

    def _trial(self, actions: list[Action]) -> tuple[Snapshot, Goal, int | None, bool] | Verdict:
        """The snapshot and goal the plan's patches make, its replica count (a scale-to action's)
        and whether it rolls the template; a failed Verdict when the patches do not apply."""
        patches = [p for a in actions for p in a.patches]
        try:
            snap, goal = apply_plan(self.snap, self.goal, patches)
        except PatchError as e:
            return Verdict(False, f"patch: {e}")
        return snap, goal, next((a.replicas for a in actions if a.replicas is not None), None), any(a.rolls_template for a in actions)

    def _check_part(self, digest_: str, trial: tuple[Snapshot, Goal, int | None, bool], optional: bool, witness: bool = False) -> Verdict:
        """check's part of a plan's verification: the model's answer (its placement not ordered
        pod by pod: the replay decides next), or with ``witness`` check's own (its placement
        ordered through the filters), each under a key of its own."""
        snap, goal, n, rolls = trial
        v: Verdict = self.through(
            ("check-witness" if witness else "check", digest_),
            lambda: replace(
                evaluate(snap, goal, self.opts, self.seed, replicas=n, template_changed=rolls, replay=False, memo=self.memo, witness=witness),
                checked=None,
            ),
            optional=optional,
        )
        return v

    def nearest_count(self, ctx: Context) -> int | None:
        """scale-to: the replica count nearest the goal that works (above first: fewer replicas
        than asked is an availability risk), by check for replica goals, by the replay for scaling."""
        goal = self.goal
        n = goal.replicas
        if n is None:
            return None
        hpa = self.snap.hpa_for(goal.ref.kind, goal.ref.namespace, goal.ref.name)
        upper = hpa.max_replicas if hpa is not None else max(2 * n, n + 3)
        tries = 0
        for d in range(1, max(n, upper - n) + 1):
            for m in (n + d, n - d):
                if m < 1 or m > upper:
                    continue
                tries += 1
                if tries > MAX_SCALE_TRIES or self.exhausted:
                    return None
                self.verifications += 1
                ok = self.through(
                    ("count", m),
                    lambda: evaluate(self.snap, goal, self.opts, self.seed, replicas=m, replay=goal.kind != "replicas", explain=False, memo=self.memo).ok,  # noqa: B023
                )
                if ok:
                    return m
        return None


def remediate(
    snap: Snapshot,
    goal: Goal,
    forbid: Iterable[str] = (),
    allow_destructive: bool = False,
    top: int = 5,
    opts: SolveOptions | None = None,
    seed: int = 0,
    progress: Progress | None = None,
) -> Outcome:
    """The cheapest verified plans for the goal.  ``progress(what, done, total)``: what the search
    is doing and how far it is (plans found of those wanted, or families tried of all), for a
    display (planner.progress.callback: ``what`` is "stage: the item at work"); called often,
    never on its own thread."""
    opts = opts or SolveOptions()
    forbidden = set(check_forbid(forbid))
    find_workload(snap, goal.ref)
    beyond = past_any_plan(snap, goal)
    if beyond:  # no plan can exist: refused before any check or replay plans a pod
        return Outcome(goal, False, beyond, notes=["no plan searched: the goal is past what any plan could reach"])
    if goal.kind in ("replicas", "scale") and goal.replicas is not None:
        ensure_plannable(snap, goal.ref, goal.replicas, goal.source or None)  # nodes too large to rule the count out
    search = Search(snap, goal, opts, seed, progress)
    try:
        with paused():  # planner.collector: the plans' problems, clusters and replays are large
            return _remediate(search, forbidden, allow_destructive, top)
    finally:
        search.close()  # the child working ahead, if any: stopped whatever ended the search


def _remediate(search: Search, forbidden: set[str], allow_destructive: bool, top: int) -> Outcome:
    snap, goal, opts, seed = search.snap, search.goal, search.opts, search.seed
    now = is_ok_now(snap, goal, opts, seed, search.memo)
    if now.ok:
        return Outcome(goal, True, "", notes=["nothing to fix: the goal holds on the snapshot as read"])
    failure = diagnose(snap, goal, opts, seed, search.memo, now.checked)
    ctx = Context(snap, goal, failure)
    if goal.kind == "replay":
        steps = parse_goal_steps(snap, goal)
        generated = replay_generate(snap, goal, failure, steps, involved(snap, goal, steps))
    else:
        generated = generate(ctx)
    cands = [a for a in generated if a.type not in forbidden]
    annotate_helm(snap, cands)
    model_stats: dict[str, Any] | None = None
    notes: list[str] = []
    if goal.kind == "replicas":
        if "scale-to" not in forbidden:

            def after_choose() -> None:  # in the child working ahead: the alternative's count and its plan
                m = search.nearest_count(ctx)
                if m is not None:
                    a = scale_to_action(ctx, m)
                    annotate_helm(snap, [a])
                    search.verify([a])

            search.after_choose = after_choose
        # one CP-SAT model chooses the actions (planner.engines.remediation.choose); its optima
        # are verified, cheapest first
        chosen = choose(search, ctx, cands, allow_destructive, top, search.report)
        plans, rejected, model_stats = chosen.plans, chosen.rejected, chosen.stats or None  # None: the model was not built
        notes += chosen.notes
        rest = list(chosen.leftover)
        if "scale-to" not in forbidden and not search.exhausted:
            m = search.nearest_count(ctx)
            if m is not None:
                rest.append(scale_to_action(ctx, m))
                annotate_helm(snap, rest[-1:])
        more, more_rejected, _ = enumerate_plans(search, rest, top, pairs=chosen.fallback)
        plans += more
        rejected += more_rejected
    else:
        if goal.kind == "scale" and "scale-to" not in forbidden:
            m = search.nearest_count(ctx)
            if m is not None:
                cands.append(scale_to_action(ctx, m))
                annotate_helm(snap, cands[-1:])
        plans, rejected, _ = enumerate_plans(search, cands, top)
    plans += shared_selector_plans(search, cands, plans)
    plans.sort(key=lambda p: p.rank_key(allow_destructive))
    alternatives = [p for p in plans if p.changes_goal]
    plans = [p for p in plans if not p.changes_goal]
    if search.exhausted:
        notes.append(
            f"the search stopped after {search.verifications} verifications (limits: {MAX_VERIFICATIONS} verifications, "
            f"{BUDGET_SECONDS:.0f} s); cheaper plans may exist among the candidates not tried"
        )
    if any(p.destructive for p in plans) and not allow_destructive:
        notes.append("destructive plans (marked) rank after every other plan; --allow-destructive ranks them by cost alone")
    if alternatives:
        notes.append(
            "alternatives change the goal (another replica count): they are listed apart, after every plan that reaches the goal as asked"
        )
    return Outcome(
        goal,
        False,
        failure.text,
        plans[:top],
        rejected,
        notes,
        {
            "candidates": len(cands),
            "verifications": search.verifications,
            "plans_found": len(plans),
            "alternatives_found": len(alternatives),
            "screening": None,  # the minimal relaxation sets of earlier releases: the action model replaced them
            "model": model_stats,
        },
        alternatives[:top],
    )


def enumerate_plans(search: Search, cands: list[Action], top: int, pairs: bool = True) -> tuple[list[Plan], list[dict[str, Any]], list[str]]:
    """The enumeration of goals the action model does not decide (transitions: rollouts, scaling,
    replayed steps) and of the candidates it does not encode: each family of candidates alone,
    cheapest first (a ladder's largest variant first: if it fails, no smaller one works), then
    pairs of families that failed alone.  Returns (plans, rejected, the families that failed)."""
    families: dict[str, list[Action]] = {}
    for a in cands:
        families.setdefault(a.family, []).append(a)
    for fam in families.values():
        fam.sort(key=lambda a: a.cost.key())
    order = sorted(families, key=lambda f: (families[f][0].destructive, families[f][0].cost.key(), f))
    plans: list[Plan] = []
    rejected: list[dict[str, Any]] = []
    failed: list[str] = []
    total = len(order)
    for done, name in enumerate(order):
        search.report(f"verifying each change alone: {name.split('|')[-1].split(':')[0]}", done, total)
        found = False
        last = None
        variants = families[name]
        if len(variants) > 1 and variants[0].type in LADDERS:
            # more of it never hurts: if the largest does not work, no smaller one does
            if search.exhausted:
                break
            v = search.verify([variants[-1]])
            if not v.ok:
                failed.append(name)
                rejected.append({"actions": [variants[-1].label()], "reason": v.reason})
                continue
        for a in variants:
            if search.exhausted:
                break
            v = search.verify([a])
            last = (a, v)
            if v.ok:
                plans.append(Plan([a], a.cost, _verified(v)))
                found = True
                break
        if not found:
            failed.append(name)
            if last is not None:
                a, v = last
                rejected.append({"actions": [a.label()], "reason": v.reason})
    # pairs of candidates that failed alone, cheapest first
    if pairs and sum(1 for p in plans if not p.changes_goal) < top:
        combos = []
        for f1, f2 in itertools.combinations(failed, 2):
            a1, a2 = families[f1][0], families[f2][0]
            if a1.conflict == a2.conflict or "scale" in (f1, f2):
                continue
            combos.append(((a1.destructive or a2.destructive), (a1.cost + a2.cost).key(), f1, f2))
        combos.sort()
        for _, _, f1, f2 in combos:
            if search.exhausted or sum(1 for p in plans if not p.changes_goal) >= top:
                break
            for a1, a2 in itertools.product(families[f1][:PAIR_VARIANTS], families[f2][:PAIR_VARIANTS]):
                if search.exhausted:
                    break
                v = search.verify([a1, a2])
                if v.ok:
                    plans.append(Plan([a1, a2], a1.cost + a2.cost, _verified(v)))
                    break
    return plans, rejected, failed


def shared_selector_plans(search: Search, cands: list[Action], plans: list[Plan]) -> list[Plan]:
    """A spread selector that several workloads share (the releases of one app, the blue/green incident): the
    plan that scopes it to its own release in every one of them, each with the label it already
    carries, is what a fix of the chart they come from does.  It is verified and listed even when
    scoping fewer of them reaches the goal (then it is a superset of that plan, and the actions
    the goal does not need say so): it keeps each release from counting the others' pods whenever
    its own pods are placed again, whichever release is the new one."""
    groups: dict[str, dict[str, Action]] = {}
    for a in cands:
        if a.group:
            groups.setdefault(a.group, {}).setdefault(a.target, a)
    out: list[Plan] = []
    for members in groups.values():
        actions = sorted(members.values(), key=lambda a: a.target)
        if len(actions) < 2 or search.exhausted:
            continue
        labels = [{str(v) for v in a.params.get("add_match_labels", {}).values()} for a in actions]
        if any(x == y for i, x in enumerate(labels) for y in labels[i + 1 :]):
            continue  # the same value everywhere: scoping would not separate them
        v = search.verify(actions)
        if not v.ok:
            continue
        enough = [p for p in plans if {id(a) for a in p.actions} < {id(a) for a in actions}]
        if enough:
            needed = {id(a) for p in enough for a in p.actions}
            alone = " + ".join(a.target for a in enough[0].actions)
            actions = [
                a if id(a) in needed else replace(
                    a,
                    side_effects=[
                        *a.side_effects,
                        f"not needed for this goal ({alone} alone reaches it): it scopes the selector in every release that shares "
                        f"it, so that {a.target} does not count the others' pods when its own are placed again",
                    ],
                )
                for a in actions
            ]
        out.append(Plan(actions, sum((a.cost for a in actions), Cost()), _verified(v)))
    return out


def _verified(v: Verdict) -> dict[str, Any]:
    return {k: v.detail[k] for k in ("check", "replay") if k in v.detail}


__all__ = ["Outcome", "remediate", "diagnose", "check_forbid", "Cost"]
