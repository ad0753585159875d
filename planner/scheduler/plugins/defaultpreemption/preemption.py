"""DefaultPreemption's PostFilter, ported from Kubernetes v1.37.

Upstream:
* pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go: PostFilter (its
  messages prefixed "preemption: "), PodEligibleToPreemptOthers (preemptionPolicy Never; a
  nominated node still holding a lower-priority pod being preempted), calculateNumCandidates
  (MinCandidateNodesPercentage 10, MinCandidateNodesAbsolute 100), SelectVictimsOnNode (remove
  every lower-priority pod, check the pod fits, then reprieve as many as possible: PDB-violating
  ones first, each group from the most important down), filterPodsWithPDBViolation;
* pkg/scheduler/framework/preemption/preemption.go: Evaluator.Preempt, findCandidates
  (nodesWherePreemptionMightHelp: a node whose filter status is UnschedulableAndUnresolvable is
  left out), DryRunPreemption (from a random offset, stopping once numCandidates candidates, one
  at least non-violating, are found), SelectCandidate / pickOneNodeForPreemption (fewest PDB
  violations, lowest highest-victim priority, smallest sum of priorities (each + MaxInt32 + 1),
  fewest victims, latest start time of the highest-priority victims, then the first);
* pkg/scheduler/util/utils.go MoreImportantPod (higher priority, then earlier start time) and
  GetEarliestPodStartTime.

Pure functions over a ClusterState; the PodDisruptionBudgets come in as ``PDBFacts`` (namespace,
selector, status.disruptionsAllowed), which planner.controllers.disruption computes: the
scheduler layer does not import the controllers.

Simplified: the filters are run without the nominated pods of other preemptors
(RunFilterPluginsWithNominatedPods adds them; the replay binds a preemptor as soon as its victims
are gone, so none is left nominated), and the dry run walks the candidates in order from the
offset rather than in parallel (upstream's parallel search returns whichever candidates finish
first).  Extenders are not modelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from planner.domain import LabelSelector, Pod, PodSpec, selector_matches
from planner.scheduler.framework import SKIP, UNRESOLVABLE, ClusterState, Status

if TYPE_CHECKING:
    from planner.scheduler.registry import FilterPlugin

NAME = "DefaultPreemption"
PREEMPT_NEVER = "Never"
MIN_CANDIDATE_NODES_PERCENTAGE = 10  # DefaultPreemptionArgs defaults (apis/config/v1/defaults.go)
MIN_CANDIDATE_NODES_ABSOLUTE = 100
MAX_INT32 = 2**31 - 1
NO_VICTIMS = "No preemption victims found for incoming pod"
# nodesWherePreemptionMightHelp: the status of a node the filters found unresolvable
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."


@dataclass(frozen=True, slots=True)
class PDBFacts:
    """What preemption reads of a PodDisruptionBudget: namespace, spec.selector and
    status.disruptionsAllowed (status.disruptedPods is always empty in planner)."""

    namespace: str
    name: str
    selector: LabelSelector | None
    disruptions_allowed: int


@dataclass(frozen=True)
class Candidate:
    """preemption.candidate: a node and its victims (most important first), NumPDBViolations."""

    node: str
    victims: tuple[Pod, ...]
    num_pdb_violations: int


@dataclass
class PostFilterResult:
    """The PostFilter's outcome: the nominated node and its victims (None when preemption does
    not help), the message upstream's status carries, and every candidate the dry run found."""

    node: str | None
    victims: tuple[Pod, ...] = ()
    message: str = ""
    eligible: bool = True
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def num_pdb_violations(self) -> int:
        return next((c.num_pdb_violations for c in self.candidates if c.node == self.node), 0)


def pod_priority(pod: Pod) -> int:
    """corev1helpers.PodPriority."""
    return pod.spec.priority


def may_preempt(spec: PodSpec) -> bool:
    """The preemptionPolicy half of PodEligibleToPreemptOthers: a pod (template) whose policy is
    Never never preempts.  Priority and policy are admission's (planner.priority.resolve_spec)."""
    return spec.preemption_policy != PREEMPT_NEVER


def can_evict(preemptor_priority: int, victim: Pod) -> bool:
    """SelectVictimsOnNode's potential victims: pods of a strictly lower priority
    (corev1helpers.PodPriority(pi.Pod) < podPriority); never the preemptor's own priority or higher."""
    return pod_priority(victim) < preemptor_priority


def victims_of(spec: PodSpec, pods: Sequence[Pod]) -> list[Pod]:
    """The pods a pod of ``spec`` may evict among ``pods`` (none when it may not preempt): the one
    rule the replay, explain, check and capacity share."""
    if not may_preempt(spec):
        return []
    priority = spec.priority
    return [p for p in pods if p.spec.priority < priority]  # can_evict, inlined: a pass over every pod


def start_time_key(pod: Pod) -> str:
    """util.GetPodStartTime as a sortable key: status.startTime, else "now" (a pod not started
    yet is the latest)."""
    return pod.start_time or "\uffff"


def more_important_pod(p1: Pod, p2: Pod) -> bool:
    """util.MoreImportantPod: higher priority, then the earlier start time."""
    a, b = pod_priority(p1), pod_priority(p2)
    if a != b:
        return a > b
    return start_time_key(p1) < start_time_key(p2)


def _importance_key(p: Pod) -> tuple[int, str]:
    return (-pod_priority(p), start_time_key(p))


def pod_eligible_to_preempt_others(pod: Pod, cluster: ClusterState, nominated_status: Status | None = None) -> tuple[bool, str]:
    """PodEligibleToPreemptOthers."""
    if not may_preempt(pod.spec):
        return False, NOT_ELIGIBLE_NEVER
    nom = pod.nominated_node_name
    if nom:
        if nominated_status is not None and nominated_status.code == UNRESOLVABLE:
            return True, ""
        ni = cluster.by_name.get(nom)
        if ni is not None:
            prio = pod_priority(pod)
            if any(can_evict(prio, p) and p.terminating for p in ni.pods):
                return False, NOT_ELIGIBLE_TERMINATING
    return True, ""


def calculate_num_candidates(num_nodes: int) -> int:
    """calculateNumCandidates."""
    n = num_nodes * MIN_CANDIDATE_NODES_PERCENTAGE // 100
    n = max(n, MIN_CANDIDATE_NODES_ABSOLUTE)
    return min(n, num_nodes)


def filter_pods_with_pdb_violation(pods: Sequence[Pod], pdbs: Sequence[PDBFacts]) -> tuple[list[Pod], list[Pod]]:
    """filterPodsWithPDBViolation: (violating, non-violating), order kept.  A budget with a nil or
    empty selector matches nothing; each matching pod takes one from its budgets' allowance."""
    allowed = [b.disruptions_allowed for b in pdbs]
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, b in enumerate(pdbs):
                if b.namespace != pod.namespace or b.selector is None or b.selector.empty:
                    continue
                if not selector_matches(b.selector, pod.labels):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


def fits_on_node(pod: Pod, cluster: ClusterState, node: str, plugins: Sequence[FilterPlugin] | None = None) -> Status | None:
    """RunFilterPlugins for one node: PreFilter on the cluster as it is now, then that node's
    Filter; the first failing status, None when the pod fits."""
    if plugins is None:
        from planner.scheduler.registry import FILTER_PLUGINS

        plugins = FILTER_PLUGINS
    ni = cluster.by_name[node]
    active = []
    for mod in plugins:
        state, status = mod.pre_filter(pod, cluster)
        if status is not None:
            return status
        if state is not SKIP:
            active.append((mod, state))
    for mod, state in active:
        st = mod.filter(state, pod, ni)
        if st is not None:
            return st
    return None


def select_victims_on_node(
    pod: Pod, cluster: ClusterState, node: str, pdbs: Sequence[PDBFacts], plugins: Sequence[FilterPlugin] | None = None
) -> tuple[list[Pod], int, Status | None]:
    """SelectVictimsOnNode on a copy of ``cluster``: (victims most important first, the number of
    victims whose PDB is violated, None) or ([], 0, the failing status)."""
    from planner.scheduler.registry import FILTER_PLUGINS  # the registry lists this plugin

    mods = FILTER_PLUGINS if plugins is None else plugins
    work = cluster.clone()
    ni = work.own(node)
    prio = pod_priority(pod)
    potential = [p for p in ni.pods if can_evict(prio, p)]
    for p in potential:
        ni.remove_pod(p)
    if not potential:
        return [], 0, Status(NAME, (NO_VICTIMS,), UNRESOLVABLE)
    st = fits_on_node(pod, work, node, mods)
    if st is not None:
        return [], 0, st
    potential.sort(key=_importance_key)
    violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
    victims: list[Pod] = []

    def reprieve(p: Pod) -> bool:
        ni.add_pod(p)
        fits = fits_on_node(pod, work, node, mods) is None
        if not fits:
            ni.remove_pod(p)
            victims.append(p)
        return fits

    num_violating = 0
    for p in violating:
        if not reprieve(p):
            num_violating += 1
    for p in non_violating:
        reprieve(p)
    if violating and non_violating:
        victims.sort(key=_importance_key)
    return victims, num_violating, None


def nodes_where_preemption_might_help(cluster: ClusterState, statuses: dict[str, Status]) -> list[str]:
    """nodesWherePreemptionMightHelp: every node whose status is not UnschedulableAndUnresolvable
    (a node without a status, one that passed, counts too)."""
    return [ni.name for ni in cluster.node_infos if (st := statuses.get(ni.name)) is None or st.code != UNRESOLVABLE]


def dry_run_preemption(
    pod: Pod,
    cluster: ClusterState,
    potential: Sequence[str],
    pdbs: Sequence[PDBFacts],
    offset: int = 0,
    num_candidates: int | None = None,
    plugins: Sequence[FilterPlugin] | None = None,
) -> tuple[list[Candidate], dict[str, Status]]:
    """DryRunPreemption: the non-violating candidates, then the violating ones; the statuses of
    the nodes that are not candidates."""
    n = len(potential)
    want = calculate_num_candidates(n) if num_candidates is None else num_candidates
    non_violating: list[Candidate] = []
    violating: list[Candidate] = []
    statuses: dict[str, Status] = {}
    for i in range(n):
        node = potential[(offset + i) % n]
        victims, num_viol, st = select_victims_on_node(pod, cluster, node, pdbs, plugins)
        if st is None:
            c = Candidate(node, tuple(victims), num_viol)
            (non_violating if num_viol == 0 else violating).append(c)
            if non_violating and len(non_violating) + len(violating) >= want:
                break
        else:
            statuses[node] = st
    return non_violating + violating, statuses


def earliest_start_time(victims: Sequence[Pod]) -> str:
    """util.GetEarliestPodStartTime: the earliest start time of the highest-priority victims."""
    top = max(pod_priority(p) for p in victims)
    return min(start_time_key(p) for p in victims if pod_priority(p) == top)


def pick_one_node_for_preemption(candidates: Sequence[Candidate]) -> str | None:
    """pickOneNodeForPreemption with the default score functions, applied in order while more
    than one node has the best score; then the first of them (candidates in dry-run order)."""
    if not candidates:
        return None
    by_node = {c.node: c for c in candidates}
    funcs = [
        lambda c: -c.num_pdb_violations,
        lambda c: -pod_priority(c.victims[0]) if c.victims else 0,
        lambda c: -sum(pod_priority(p) + MAX_INT32 + 1 for p in c.victims),
        lambda c: -len(c.victims),
    ]
    remaining = list(by_node)
    for f in funcs:
        best = max(f(by_node[n]) for n in remaining)
        remaining = [n for n in remaining if f(by_node[n]) == best]
        if len(remaining) == 1:
            return remaining[0]
    # latestStartTimeScoreFunc: the latest earliest-start-time of the highest-priority victims
    starts = {n: earliest_start_time(by_node[n].victims) if by_node[n].victims else "" for n in remaining}
    latest = max(starts.values())
    return next(n for n in remaining if starts[n] == latest)


def post_filter(
    pod: Pod,
    cluster: ClusterState,
    statuses: dict[str, Status],
    pdbs: Sequence[PDBFacts],
    offset: int = 0,
    plugins: Sequence[FilterPlugin] | None = None,
) -> PostFilterResult:
    """Evaluator.Preempt up to the choice of node (the eviction is the caller's): ``statuses``
    are the filter phase's per-node statuses (a PreFilter rejection: every node's)."""
    nominated = statuses.get(pod.nominated_node_name) if pod.nominated_node_name else None
    ok, why = pod_eligible_to_preempt_others(pod, cluster, nominated)
    if not ok:
        return PostFilterResult(None, message=f"preemption: {why}", eligible=False)
    potential = nodes_where_preemption_might_help(cluster, statuses)
    # the FitError Preempt returns when there is no candidate: every node the filters found
    # unresolvable (nodesWherePreemptionMightHelp) says NOT_HELPFUL, the others why the dry run
    # found no victims there; counted per reason as FitError.Error() does
    hist: dict[str, int] = {}
    if len(potential) < len(cluster.node_infos):
        hist[NOT_HELPFUL] = len(cluster.node_infos) - len(potential)
    # no lower-priority pod anywhere: no node can offer victims (SelectVictimsOnNode's first check)
    prio = pod_priority(pod)
    if potential and not any(can_evict(prio, p) for n in potential for p in cluster.by_name[n].pods):
        hist[NO_VICTIMS] = len(potential)
    elif potential:
        candidates, failed = dry_run_preemption(pod, cluster, potential, pdbs, offset % len(potential), None, plugins)
        if candidates:
            node = pick_one_node_for_preemption(candidates)
            chosen = next(c for c in candidates if c.node == node)
            return PostFilterResult(node, chosen.victims, "", True, candidates)
        for st in failed.values():
            for r in st.reasons:
                hist[r] = hist.get(r, 0) + 1
    parts = ", ".join(sorted(f"{v} {k}" for k, v in hist.items()))
    return PostFilterResult(None, message=f"preemption: 0/{len(cluster.node_infos)} nodes are available: {parts}.")
