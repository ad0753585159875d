"""`planner simulate`: the controllers and kube-scheduler replayed pod by pod.

Each step changes the cluster (scale, rollout, eviction, drain, zone outage, a second workload,
nodes added, ...); then the world settles: the workload controllers (planner/controllers) act on
what they see, and the scheduler takes the Pending pods one at a time in queue order (priority,
then creation), filters every node (planner/scheduler/plugins), scores the feasible ones with the default
score plugins and weights (planner/scheduler/scoring.py) and binds the best, ties broken by a
seeded random choice as schedule_one.go selectHost does.  Pods that do not fit wait and are
retried whenever the cluster changes (the scheduling queue's unschedulable pods move back on
cluster events).  Pods are ready as soon as they are bound.  The world is stable when neither the
controllers nor the scheduler can change anything; after the last step a stable world with
Pending pods or an unfinished rollout is *stuck*.

Speed (the same answers with less work; ``Simulator(incremental=False)`` runs the full passes, and
tests/engines/test_replay_incremental.py holds both equal): the controllers sync only the objects whose
inputs changed (controllers.reconciler.Reconciler: a dirty set per kind, everything on the first pass); a
StatefulSet's members are kept in ordinal order as its pods come and go, so a sync reads the few
pods it acts on and a scale-up costs linear time in the replicas (controllers/statefulset.py
_Members); the garbage collector looks only at the claims that changed or whose owner did; the
queue is kept as pods are created, bound and deleted; the claims, volumes and classes journal
their changes (scheduler.framework.JournaledDict), so VolumeBinding's PV index follows them and
its PreFilter runs once per pod and scheduling cycle; the filters run on node arrays updated per
bind (fastfilter.py), only numFeasibleNodesToFind nodes are scored, on per-node values kept
across pods (planner/scheduler/arrays.py) that follow the cluster's journal of changed nodes; the
lowest running priority (preemption's shortcut) is kept across settles; the cyclic garbage
collector is paused while the replay runs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from planner.collector import paused
from planner.controllers import reconciler
from planner.controllers.actions import (
    CreateClaim,
    CreatePod,
    CreateReplicaSet,
    DeleteClaim,
    DeletePod,
    ScaleReplicaSet,
)
from planner.controllers.controller_utils import controlled_by
from planner.controllers.daemon import TAINT_NODE_UNSCHEDULABLE, daemon_pods_for_node, is_host_network
from planner.controllers.deployment import rollout_complete
from planner.controllers.disruption import can_evict, preemption_pdbs
from planner.controllers.nodegroups import is_good_template_candidate, node_groups
from planner.controllers.statefulset import statefulset_complete
from planner.domain import Pod, StatefulSet, Taint, is_daemonset_pod, is_mirror_pod
from planner.engines.workloads import (
    BOUND_SLACK,
    WorkloadRef,
    ensure_plannable,
    find_workload,
    is_running,
    owned_by,
    parse_workload,
    rollout_under_way,
    room_bound,
)
from planner.errors import InputError, UsageError
from planner.scenario import MAX_NODES
from planner.scheduler import arrays as score_arrays
from planner.scheduler import runtime
from planner.scheduler.binding import bind_pod
from planner.scheduler.config import SchedulerConfig
from planner.scheduler.fastfilter import FastFilter, supports
from planner.scheduler.framework import NO_PRIORITY, ClusterState, JournaledDict
from planner.scheduler.plugins.defaultpreemption import preemption
from planner.scheduler.plugins.schedulinggates import preenqueue as schedulinggates
from planner.scheduler.queueing import pod_add_may_help
from planner.scheduler.registry import DEFAULT_PROFILE, DEFAULT_SCHEDULER_NAME, Profile
from planner.snapshot import Snapshot

MAX_ROUNDS = 10_000
# A step's count past the cluster's bound is replayed with one replica more than the bound, with
# no margin: the answer, the placements and the zone counts are the same as replaying every
# replica, which costs more (bench/bound_margin.py: 1,000 past the bound at 500 nodes, 37 s
# against 9 s; docs/semantics.md).  (check keeps BOUND_SLACK: its why is worth the cost there.)
STEP_SLACK = 0
MIN_FEASIBLE_NODES_TO_FIND = 100  # schedule_one.go minFeasibleNodesToFind
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int = 0) -> int:
    """schedule_one.go numFeasibleNodesToFind with the default percentageOfNodesToScore (0: adaptive)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage == 0:
        percentage = 50 - num_all_nodes // 125
        if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num = num_all_nodes * percentage // 100
    return max(num, MIN_FEASIBLE_NODES_TO_FIND)


@dataclass
class Step:
    kind: str  # initial | scale | rollout | evict | delete | drain | zone-down | add-nodes | create | patch
    args: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        a = self.args
        if self.kind == "initial":
            return "the cluster as read"
        if self.kind == "scale":
            return f"scale {a['workload']} to {a['replicas']}"
        if self.kind == "rollout":
            return f"roll out {a['workload']}" + (f" with image {a['image']}" if a.get("image") else "")
        if self.kind == "evict":
            return f"evict pod {a['pod']}"
        if self.kind == "delete":
            return f"delete {a['workload']}"
        if self.kind == "drain":
            return f"drain node {a['node']}"
        if self.kind == "zone-down":
            return f"zone {a['zone']} goes down"
        if self.kind == "add-nodes":
            return f"add {a['count']} node(s) in {a['zone']}"
        if self.kind == "create":
            return f"create {a['kind']} {a['key']}"
        if self.kind == "patch":
            return f"change {a['workload']}"
        return self.kind


class Simulator:
    _min_prio: int | None  # the lowest priority of a pod on a node, once counted (_lower_priority_runs)

    def __init__(
        self,
        snap: Snapshot,
        seed: int = 0,
        pod_management: str | None = None,
        progress: Callable[[str], None] | None = None,
        fast: bool = True,
        incremental: bool = True,
        scheduler_config: SchedulerConfig | None = None,
    ) -> None:
        # --scheduler-config: the profiles pods are scheduled by (spec.schedulerName); None: the
        # default profile alone, for pods of default-scheduler
        self.config = scheduler_config
        self._profiles: dict[str, Profile] = (
            dict(scheduler_config.profiles) if scheduler_config is not None else {DEFAULT_SCHEDULER_NAME: DEFAULT_PROFILE}
        )
        with paused():  # as in run(): building the cluster and the indexes makes no cycles
            self._setup(snap, seed, pod_management, progress, fast, incremental)

    def _setup(
        self,
        snap: Snapshot,
        seed: int,
        pod_management: str | None,
        progress: Callable[[str], None] | None,
        fast: bool,
        incremental: bool,
    ) -> None:
        self.snap = snap.copy()
        # the claims, volumes and classes journal their changes: VolumeBinding's PV index and
        # PreFilter results follow them instead of comparing every object
        self.snap.pvcs = JournaledDict(self.snap.pvcs)
        self.snap.pvs = JournaledDict(self.snap.pvs)
        self.snap.storage_classes = JournaledDict(self.snap.storage_classes)
        if pod_management:
            for k, s in list(self.snap.statefulsets.items()):
                self.snap.statefulsets[k] = replace(s, pod_management_policy=pod_management)
        self.use_fast = fast
        self.incremental = incremental
        self.cluster = self._cluster(snap)
        # workload key -> (ref, replicas asked, replicas replayed, what asked, whether as read)
        self.capped: dict[str, tuple[WorkloadRef, int, int, str | None, bool]] = {}
        self.notes: list[str] = []
        self.explain_elsewhere = True  # see run()
        self.step_index = 0
        self.events: list[dict] = []
        tables: tuple[tuple[str, dict[str, Any]], ...] = (("Deployment", self.snap.deployments), ("StatefulSet", self.snap.statefulsets))
        for kind, wl_table in tables:
            for key, obj in list(wl_table.items()):
                if obj.replicas > BOUND_SLACK:  # as read: bounded as a scale step is
                    ref = WorkloadRef(kind, obj.namespace, obj.name)
                    cap = self._capped(ref, obj.replicas, as_read=True)
                    if cap != obj.replicas:
                        wl_table[key] = replace(obj, replicas=cap)
        # incremental: the controllers sync only what changed (reconciler.Reconciler) and the
        # queue is kept as pods come and go; False runs the full passes (the reference the tests
        # hold the incremental replay equal to)
        self.ctrl = reconciler.Reconciler(self.snap, base=snap) if incremental else None
        pods = self.snap.pods
        self._seq: dict[str, int] = {k: i for i, k in enumerate(pods)}  # position in snap.pods
        self._next_seq = len(pods)
        self._unbound: dict[str, None] = {k: None for k, p in pods.items() if not p.spec.node_name}
        self._controller_owned = all(p.owner is None or p.owner.controller for p in pods.values()) and all(
            rs.owner is None or rs.owner.controller for rs in self.snap.replicasets.values()
        )
        self.next_start = 0  # schedule_one.go nextStartNodeIndex
        self._zones: dict[str, tuple[Any, str | None]] = {}  # see _zone
        self.rng = random.Random(seed)
        self.progress = progress
        self.pending_since: dict[str, int] = {}
        self._unschedulable: dict[str, tuple[Pod, FastFilter, int, int]] = {}  # pod key -> its marker when no node passed (_still_unschedulable)
        self.placements = 0
        self._reset_priority()  # see _lower_priority_runs

    # ------------------------------------------------------------------ world

    def _cluster(self, read: Snapshot | None = None) -> ClusterState:
        """The scheduler's cache of self.snap, with the snapshot's own volume dicts (the binder's
        writes are the snapshot's).  ``read``: the snapshot self.snap was copied from, at setup:
        when it holds its base cluster already, or can derive it from the one it was made from
        (Snapshot.derive: a remediation's patched snapshot), a clone of that (copy-on-write), not
        one built from every pod again."""
        if read is not None and (read.__dict__.get("_base_cluster") is not None or read.derivation() is not None):
            cs = read.base_cluster().clone()
            cs.pvcs, cs.pvs, cs.storage_classes = self.snap.pvcs, self.snap.pvs, self.snap.storage_classes
            cs.csinodes = dict(self.snap.csinodes)
        else:
            cs = ClusterState.from_snapshot(self.snap, share_volumes=True)
        self._reset_priority()  # see _lower_priority_runs
        if self.incremental:
            cs.track()  # every change below goes through own() / set_node(): the score caches read the journal
        self.fast = FastFilter(cs) if self.use_fast else None
        self.pos = {ni.name: i for i, ni in enumerate(cs.node_infos)}
        self._names = np.array([ni.name for ni in cs.node_infos], dtype=object)
        return cs

    def _event(self, kind: str, **kw: Any) -> None:
        self.events.append({"type": kind, **kw})

    def _delete_pod(self, key: str, reason: str) -> None:
        pod = self.snap.pods.pop(key, None)
        if pod is None:
            return
        if self.ctrl is not None:
            self.ctrl.pod_removed(pod)
        self._removed(pod, reason)

    def _removed(self, pod: Pod, reason: str) -> None:
        """A pod gone from snap.pods: out of the cluster, the queue and the pending list."""
        key = pod.key
        if pod.spec.node_name:
            if self.fast is not None:
                self.fast.on_delete(pod)
            self.cluster.remove_pod(pod)
        self.pending_since.pop(key, None)
        self._unschedulable.pop(key, None)  # its marker holds a cluster: not kept past the pod
        self._seq.pop(key, None)
        self._unbound.pop(key, None)
        self._event("deleted", pod=key, node=pod.spec.node_name or None, reason=reason)

    def _reconcile(self) -> bool:
        """One controllers' pass, applied; True when they did something."""
        if self.ctrl is None:
            actions = reconciler.reconcile(self.snap)
            if actions:
                self._apply_actions(actions)
            return bool(actions)
        actions, removed = self.ctrl.reconcile()
        if actions:
            # already applied; the replay's own bookkeeping and events, as _apply_actions does them
            gone = {p.key: p for p in removed}
            for a in actions:
                if isinstance(a, DeletePod):
                    pod = gone.pop(a.key, None)
                    if pod is not None:
                        self._removed(pod, a.reason)
            self._report(actions)
        return bool(actions)

    def _apply_actions(self, actions: list) -> None:
        for a in actions:
            if isinstance(a, DeletePod):
                self._delete_pod(a.key, a.reason)
        reconciler.apply(self.snap, [a for a in actions if not isinstance(a, DeletePod)])
        self._report(actions)

    def _report(self, actions: list) -> None:
        for a in actions:
            if isinstance(a, CreatePod):
                key = a.pod.key
                if self.snap.pods.get(key) is a.pod:
                    if key not in self._seq:  # a new key goes to the end of snap.pods
                        self._seq[key] = self._next_seq
                        self._next_seq += 1
                    if a.pod.spec.node_name:
                        self._unbound.pop(key, None)
                    else:
                        self._unbound[key] = None
                self._event("created", pod=a.pod.key, reason=a.reason)
            elif isinstance(a, CreateClaim):
                self._event("claim-created", claim=a.pvc.key, reason=a.reason)
            elif isinstance(a, DeleteClaim):
                self._event("claim-deleted", claim=a.key, reason=a.reason)
            elif isinstance(a, ScaleReplicaSet):
                self._event("scaled", replicaset=a.key, replicas=a.replicas, reason=a.reason)
            elif isinstance(a, CreateReplicaSet):
                self._event("replicaset-created", replicaset=a.rs.key, reason=a.reason)

    def _queue(self) -> list[Pod]:
        """Pending pods in priority, then creation (snap.pods), order."""
        if self.ctrl is None:
            pending = [p for p in self.snap.pods.values() if not p.spec.node_name and not p.terminal and not p.terminating]
            order = {k: i for i, k in enumerate(self.snap.pods)}
            pending.sort(key=lambda p: (-p.spec.priority, order[p.key]))
            return [p for p in pending if p.spec.scheduler_name in self._profiles]
        pods, seq = self.snap.pods, self._seq
        pending = [p for p in map(pods.__getitem__, self._unbound) if not p.terminal and not p.terminating]
        pending.sort(key=lambda p: (-p.spec.priority, seq[p.key]))
        return [p for p in pending if p.spec.scheduler_name in self._profiles]

    def _still_pending(self, pod: Pod) -> None:
        if pod.key not in self.pending_since:
            self.pending_since[pod.key] = self.step_index
            self._event("pending", pod=pod.key)

    def _schedule_pass(self) -> bool:
        """One pass of the scheduling queue: every Pending pod tried once, in order (a pod with
        scheduling gates is never tried: SchedulingGates' PreEnqueue keeps it out, Pending)."""
        moved = False
        for pod in self._queue():
            if schedulinggates.pre_enqueue(pod) is not None:
                self._still_pending(pod)
                continue
            profile = self._profiles[pod.spec.scheduler_name]
            fast = self.fast is not None and profile.default_filters and supports(pod)
            if fast and self._still_unschedulable(pod, profile):
                self._still_pending(pod)
                continue
            if fast:
                assert self.fast is not None
                positions = self.fast.feasible_positions(pod)
            else:
                # a profile whose filters differ from the default's: the filter plugins themselves
                names = runtime.feasible_nodes(pod, self.cluster, profile.filters)
                positions = np.array([self.pos[n] for n in names], dtype=np.int64)
            chosen = self._nodes_to_score(positions, profile.percentage_of_nodes_to_score)
            if not len(chosen):
                if self._preempt(pod):
                    moved = True
                    continue
                self._still_pending(pod)
                if fast and self.incremental:
                    self._unschedulable[pod.key] = self._marker(pod)
                continue
            if len(chosen) == 1:
                host = self._names[chosen[0]]
            else:
                # scoring.score_nodes and select_host, on arrays (the positions are known: the
                # nodes need no names but the one chosen)
                totals = score_arrays.score_positions(pod, self.cluster, None, chosen, profile.scorers)
                host = self._names[chosen[score_arrays.select_index(totals, self.rng)]]
            self._bind(pod, host)
            moved = True
        return moved

    def _marker(self, pod: Pod) -> tuple[Pod, FastFilter, int, int]:
        """What a pod no node passed was tried against: itself (a nomination replaces it), the
        filter's cluster (a node change builds another), the pods deleted from it and the number
        bound to it (see _still_unschedulable; claims, volumes and classes are not read for the
        pods it is asked about: none has volumes; the filters count bound pods only, not other
        pods' nominations)."""
        assert self.fast is not None
        return (pod, self.fast, self.fast.removals, len(self.fast.bound))

    def _still_unschedulable(self, pod: Pod, profile: Profile) -> bool:
        """Whether trying ``pod`` again would find no node and do nothing else, known without
        filtering (the incremental replay; the full one tries it, the reference the tests hold
        this to): it found none before, only pods were bound since (nothing deleted, no node
        changed: its marker is the same), binding the pods bound since cannot help it
        (planner.scheduler.queueing.pod_add_may_help: the scheduling queue keeps it aside
        likewise) and it would not try preemption (which would draw on the random numbers): it
        may not preempt, or no pod of a lower priority runs."""
        mark = self._unschedulable.get(pod.key)
        if mark is None or mark[0] is not pod or mark[1] is not self.fast or mark[2] != mark[1].removals:
            return False
        bound = mark[1].bound
        if pod_add_may_help(pod, profile, bound[mark[3]:]):
            return False
        if len(bound) > mark[3]:  # none of them helps: as if it had been tried with them bound
            self._unschedulable[pod.key] = (pod, mark[1], mark[2], len(bound))
        return not (preemption.may_preempt(pod.spec) and self._lower_priority_runs(pod.spec.priority))

    def _bind(self, pod: Pod, host: str) -> None:
        bound = bind_pod(self.cluster, pod, host)
        if self.fast is not None:
            self.fast.on_bind(bound)
        self.snap.pods[pod.key] = bound
        self._unbound.pop(pod.key, None)
        self._unschedulable.pop(pod.key, None)
        if self.ctrl is not None:
            self.ctrl.pod_changed(bound)
        self.pending_since.pop(pod.key, None)
        self.placements += 1
        if self._min_prio is not None and bound.spec.priority < self._min_prio:
            self._min_prio = bound.spec.priority
        self._event("scheduled", pod=pod.key, node=host, zone=self._zone(host))

    def _reset_priority(self) -> None:
        self._min_prio = None  # see _lower_priority_runs

    def _lower_priority_runs(self, priority: int) -> bool:
        """Whether a pod of a lower priority than ``priority`` runs on a node (preemption's
        shortcut: a pod finds no victim otherwise), from the lowest such priority, kept as the
        replay goes: counted at the first question (from each node's own lowest,
        NodeInfo.min_priority), a bind lowers it when it must (_bind), a deletion leaves it a
        lower bound (at worst a PostFilter that finds nothing), a preemption and a cluster built
        afresh (_cluster: the steps that add pods some other way) count it again."""
        if self._min_prio is None:
            self._min_prio = min([ni.min_priority for ni in self.cluster.node_infos], default=NO_PRIORITY)
        return self._min_prio < priority

    def _preempt(self, pod: Pod) -> bool:
        """DefaultPreemption's PostFilter for a pod no node fits (planner/scheduler/plugins/
        defaultpreemption): when it names a node, its victims are deleted (their controllers
        recreate them, and they queue again), the pod is nominated to the node and, the victims
        being gone at once here (no graceful termination), bound there in what is kube-scheduler's
        next cycle for it (schedule_one.go evaluateNominatedNode: the nominated node is tried
        first, and taken without scoring when it passes the filters).  A pod never preempts pods
        of its own or a higher priority, so preemption cannot loop."""
        if not preemption.may_preempt(pod.spec) or not self._lower_priority_runs(pod.spec.priority):
            return False
        filters = self._filters(pod)
        ev = runtime.evaluate(pod, self.cluster, filters)
        statuses = {n.name: n.failures[0] for n in ev.nodes if n.failures}
        offset = self.rng.randrange(len(self.cluster.node_infos)) if self.cluster.node_infos else 0
        result = preemption.post_filter(pod, self.cluster, statuses, preemption_pdbs(self.snap), offset, filters)
        if result.node is None:
            return False
        node = result.node
        self._event("preempted", pod=pod.key, node=node, zone=self._zone(node),
                    victims=[v.key for v in result.victims], pdb_violations=result.num_pdb_violations)
        for v in result.victims:
            self._delete_pod(v.key, f"preempted by {pod.key} (priority {pod.spec.priority} > {v.spec.priority})")
        self._reset_priority()
        nominated = replace(pod, nominated_node_name=node)
        self.snap.pods[pod.key] = nominated
        if self.ctrl is not None:
            self.ctrl.pod_changed(nominated)
        if preemption.fits_on_node(nominated, self.cluster, node, filters) is None:
            self._bind(nominated, node)
        return True  # else nominated: tried again with the queue

    def _filters(self, pod: Pod) -> Any:
        """The filter plugins of the pod's profile; None (the default list) for the default's."""
        prof = self._profiles.get(pod.spec.scheduler_name)
        if prof is None or prof.filters == DEFAULT_PROFILE.filters:
            return None
        return prof.filters

    def _nodes_to_score(self, positions: np.ndarray, percentage: int = 0) -> np.ndarray:
        """schedule_one.go findNodesThatPassFilters: nodes are examined from nextStartNodeIndex and
        the search stops once numFeasibleNodesToFind nodes passed (adaptive percentage: 50% minus
        1% per 125 nodes, at least 5%, at least 100 nodes); the next pod starts where it stopped.
        ``positions``: the feasible nodes' positions, ascending; returns the positions of the nodes
        to score, in the order they were found."""
        n = len(self.cluster.node_infos)
        if not len(positions):
            return positions  # every node examined: nextStartNodeIndex moves a full turn
        want = num_feasible_nodes_to_find(n, percentage)
        if want >= n:
            return positions
        start = self.next_start
        cut = int(np.searchsorted(positions, start))
        # the first ``want`` of positions[cut:] + positions[:cut]
        tail = len(positions) - cut
        if tail >= want:
            chosen = positions[cut:cut + want]
        else:
            chosen = np.concatenate((positions[cut:], positions[:min(cut, want - tail)]))
        processed = ((int(chosen[-1]) - start) % n) + 1 if len(chosen) == want else n
        self.next_start = (start + processed) % n
        return chosen

    def settle(self) -> None:
        for _ in range(MAX_ROUNDS):
            acted = self._reconcile()
            moved = self._schedule_pass()
            if not acted and not moved:
                return
        raise InputError(f"simulation did not settle after {MAX_ROUNDS} rounds (a controller loop?)")

    # ------------------------------------------------------------------ steps

    def apply_step(self, step: Step) -> None:
        a = step.args
        snap = self.snap
        if step.kind == "initial":
            return
        if step.kind == "scale":
            ref = a["ref"]
            obj = find_workload(snap, ref)
            count = int(a["replicas"])
            hpa = snap.hpa_for(ref.kind, obj.namespace, obj.name) if a.get("hpa") else None
            if hpa is not None and not hpa.min_replicas <= count <= hpa.max_replicas:
                # horizontal.go normalizeDesiredReplicas: the HPA never scales past its bounds
                clamped = min(max(count, hpa.min_replicas), hpa.max_replicas)
                self.notes.append(
                    f"step {self.step_index}: {count:,} replicas asked of {ref}; its HorizontalPodAutoscaler {hpa.key} keeps it within "
                    f"minReplicas {hpa.min_replicas} and maxReplicas {hpa.max_replicas}: scaled to {clamped:,}"
                )
                count = clamped
            table: dict[str, Any] = snap.deployments if ref.kind == "Deployment" else snap.statefulsets
            table[ref.key] = replace(obj, replicas=self._capped(ref, count, source=a.get("source")))
            return
        if step.kind == "rollout":
            ref = a["ref"]
            obj = find_workload(snap, ref)
            tpl = obj.template
            if not a.get("image") and rollout_under_way(snap, obj, self._pods_of(ref)):
                # a rollout is already under way (the template differs from what runs): follow it
                self._event("rollout-in-progress", object=str(ref))
                return
            if a.get("image"):
                spec = replace(tpl.spec, images=tuple(a["image"] for _ in tpl.spec.images) or (a["image"],))
            else:
                spec = tpl.spec
            ann = dict(tpl.annotations)
            ann["kubectl.kubernetes.io/restartedAt"] = f"step-{self.step_index}"  # kubectl rollout restart
            wl_table: dict[str, Any] = snap.deployments if ref.kind == "Deployment" else snap.statefulsets
            wl_table[ref.key] = replace(obj, template=replace(tpl, spec=spec, annotations=ann))
            return
        if step.kind == "evict":
            key = a["pod"]
            if key not in snap.pods:
                raise InputError(f"--evict {key}: no such pod")
            ok, why = can_evict(snap, key)
            if not ok:
                self._event("eviction-refused", pod=key, reason=why)
                return
            self._delete_pod(key, "evicted")
            return
        if step.kind == "delete":
            ref = a["ref"]
            obj = find_workload(snap, ref)
            owned = [p.key for p in snap.pods.values() if owned_by(snap, p, ref)]
            if ref.kind == "Deployment":
                del snap.deployments[ref.key]
                for k in [k for k, rs in snap.replicasets.items() if rs.owner and rs.owner.kind == "Deployment" and rs.owner.name == ref.name and rs.namespace == ref.namespace]:
                    del snap.replicasets[k]
            else:
                del snap.statefulsets[ref.key]
                if isinstance(obj, StatefulSet) and obj.retention_when_deleted == "Delete":
                    for t in obj.volume_claim_templates:
                        for k in [k for k in snap.pvcs if k.startswith(f"{ref.namespace}/{t.name}-{ref.name}-")]:
                            del snap.pvcs[k]
                            self._event("claim-deleted", claim=k, reason="persistentVolumeClaimRetentionPolicy.whenDeleted: Delete")
            for k in owned:
                self._delete_pod(k, f"{ref} deleted")
            return
        if step.kind == "drain":
            name = a["node"]
            node = snap.nodes.get(name)
            if node is None:
                raise InputError(f"--drain {name}: no such node")
            # kubectl drain cordons the node; the node lifecycle controller then taints it
            # node.kubernetes.io/unschedulable:NoSchedule (taintNodeByCondition), which
            # PodTopologySpread's nodeTaintsPolicy: Honor sees
            taints = node.taints
            if not any(t.key == TAINT_NODE_UNSCHEDULABLE and t.effect == "NoSchedule" for t in taints):
                taints = (*taints, Taint(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule"))
            snap.nodes[name] = replace(node, unschedulable=True, taints=taints)
            self.cluster.set_node(name, snap.nodes[name])
            ni = self.cluster.by_name[name]
            if self.fast is not None:
                self.fast = FastFilter(self.cluster)
            self.drain_pending = self._pods_to_drain(list(ni.pods))
            self._drain_round()
            return
        if step.kind == "zone-down":
            zone = a["zone"]
            gone = [n for n, node in snap.nodes.items() if node.zone == zone]
            if not gone:
                raise InputError(f"--zone-down {zone}: no node is in that zone (zones: {', '.join(snap.zones)})")
            for n in gone:
                for p in list(self.cluster.by_name[n].pods):
                    self._delete_pod(p.key, f"zone {zone} down")
                del snap.nodes[n]
                self._event("node-lost", node=n, zone=zone)
            self.cluster = self._cluster()
            return
        if step.kind == "add-nodes":
            self._add_nodes(a)
            return
        if step.kind == "create":
            for kind, key, obj in a["objects"]:
                target = _tables(snap).get(kind) if kind != "Pod" else None
                if target is None:
                    raise InputError(f"steps: create {kind} is not supported")
                target[key] = obj
                self._event("object-created", object=f"{kind} {key}")
            self.cluster = self._cluster()
            for kind, key, obj in a["objects"]:  # bounded as a scale step is
                if kind in ("Deployment", "StatefulSet"):
                    ref = WorkloadRef(kind, obj.namespace, obj.name)
                    cap = self._capped(ref, obj.replicas, source=f"{a.get('source') or 'steps'}: {kind} {key}: spec.replicas")
                    _tables(snap)[kind][key] = replace(obj, replicas=cap)
            return
        if step.kind == "patch":
            ref = a["ref"]
            obj = find_workload(snap, ref)
            table = snap.deployments if ref.kind == "Deployment" else snap.statefulsets
            new = a["apply"](obj)
            new = replace(new, replicas=self._capped(ref, new.replicas, source=a.get("source")))  # bounded as a scale step is
            table[ref.key] = new
            return
        raise UsageError(f"unknown step {step.kind}")

    def _capped(self, ref: WorkloadRef, n: int, as_read: bool = False, source: str | None = None) -> int:
        """The replica count the replay scales to: ``n``, unless it is past the most pods the
        cluster could ever hold (RoomBound, on the cluster as it is now, with lower-priority pods
        counted as evictable): then one more than that bound, which is just as stuck, and the
        workload stays incomplete unless a later step makes room (_recap).  A step's count is
        capped as soon as it is past the bound (STEP_SLACK); a spec.replicas as read only when it
        is more than BOUND_SLACK past (a bound per workload of the cluster on every replay would
        cost more than replaying the few Pending pods that margin allows; docs/semantics.md).  A
        count within the bound that needs more new pods than planner replays at once
        (MAX_PLANNED_PODS: nodes too large for the bound to rule anything out) is an error naming
        ``source`` (what asked: an option or a step; None: spec.replicas as read)."""
        before = self.capped.pop(ref.key, None)
        slack = BOUND_SLACK if as_read else STEP_SLACK
        if n <= max(slack, 1):
            return n
        pods = self._pods_of(ref) if getattr(self, "ctrl", None) is not None else self.snap.pods.values()
        running = [p for p in pods if is_running(p) and owned_by(self.snap, p, ref)]
        # counted until the bound holds ``n`` (within): a count it holds needs no whole bound
        b = room_bound(self.snap, ref, n, preemption=True, cluster=self.cluster, running=running, within=n - slack)
        if n <= b.max_replicas + slack:
            ensure_plannable(self.snap, ref, n, None if as_read else source, running=len(running))
            if before is not None:
                self.notes.append(f"step {self.step_index}: room freed: {ref} replayed with all its {n:,} replicas again")
                self._event("uncapped", object=str(ref), reason=f"room freed: replayed with all {n:,} replicas")
            return n
        # past the bound: every node was counted (room_bound's within), the bound is whole
        cap = b.max_replicas + 1
        self.capped[ref.key] = (ref, n, cap, source, as_read)
        if before is not None and before[2] == cap:
            return cap  # checked again, nothing changed
        self.notes.append(
            (f"{ref} has spec.replicas {n:,} as read" if as_read else f"step {self.step_index}: {ref} scaled to {n:,}") + f", past the cluster's bound ({b.message(n)}); "
            f"replayed with {cap:,} replicas, one more than can ever run: the rest would be Pending too, and the scale completes only if later steps make room"
        )
        self._event("capped", object=str(ref), reason=f"replayed with {cap:,} of {n:,} replicas: at most {b.max_replicas:,} can run")
        return cap

    def _recap(self) -> bool:
        """Each capped workload's count checked again after a step (room freed by a scale-down,
        a deletion, added nodes): raised to what the cluster's bound now allows, or back to the
        count asked.  Returns whether any changed."""
        changed = False
        for key, (ref, n, cap, source, as_read) in list(self.capped.items()):
            table: dict[str, Any] = self.snap.deployments if ref.kind == "Deployment" else self.snap.statefulsets
            obj = table.get(key)
            if obj is None or obj.replicas != cap:  # deleted, or changed by a step since (which capped it afresh)
                self.capped.pop(key, None)
                continue
            new = self._capped(ref, n, as_read=as_read, source=source)
            if new != cap:
                table[key] = replace(obj, replicas=new)
                changed = True
        return changed

    def _pods_to_drain(self, pods: list[Pod]) -> list[str]:
        """`kubectl drain --ignore-daemonsets`: the pods it evicts (k8s.io/kubectl/pkg/drain/
        filters.go GetPodsForDeletion).  mirrorPodFilter skips mirror pods (the
        kubernetes.io/config.mirror annotation: a static pod the API cannot delete) and
        daemonSetFilter skips the pods a DaemonSet controls unless they have finished (the
        DaemonSet controller ignores the cordon and would put them back at once); kubectl
        prints them as warnings, here they are ``drain-skipped`` events."""
        out: list[str] = []
        for p in pods:
            if is_mirror_pod(p):
                self._event("drain-skipped", pod=p.key, node=p.spec.node_name, reason="mirror pod (kubernetes.io/config.mirror): cannot be deleted through the API")
            elif is_daemonset_pod(p) and not p.terminal:
                assert p.owner is not None
                known = "" if f"{p.namespace}/{p.owner.name}" in self.snap.daemonsets else f", DaemonSet {p.owner.name} not in the input"
                self._event("drain-skipped", pod=p.key, node=p.spec.node_name, reason=f"ignoring DaemonSet-managed Pods{known}")
            else:
                out.append(p.key)
        return out

    def _drain_round(self) -> bool:
        """kubectl drain: evict every pod of the node that its PDBs allow; returns progress."""
        progress = False
        remaining = []
        for key in getattr(self, "drain_pending", []):
            if key not in self.snap.pods:
                continue
            ok, why = can_evict(self.snap, key)
            if ok:
                self._delete_pod(key, "drained")
                progress = True
            else:
                remaining.append(key)
                self._event("eviction-refused", pod=key, reason=why)
        self.drain_pending = remaining
        return progress

    def _add_nodes(self, a: dict) -> None:
        """The cluster autoscaler adds ``count`` nodes of a group in ``zone``: the group named
        ``pool`` (its group label's value, or the nodes named ``<pool>-...``), else the zone's
        first group; the template is chosen and sanitised as cluster-autoscaler does
        (planner.controllers.nodegroups) and every new node gets the DaemonSet pods that would
        run on it (planner.controllers.daemon), bound and counted at once."""
        snap = self.snap
        zone, count, pool = a["zone"], int(a["count"]), a.get("pool")
        groups = [g for g in node_groups(snap.nodes.values()) if g.zone == zone]
        if not groups:
            raise InputError(f"addNodes: no node in zone {zone} to clone")
        chosen = None
        if pool is not None:
            chosen = next((g for g in groups if g.name.split("/")[0] == pool), None)
            if chosen is None:  # nodes named <pool>-...: a scenario's nodePool
                named = [g for g in groups if any(n.startswith(f"{pool}-") for n in g.nodes)]
                chosen = next((g for g in named if not g.fallback), named[0] if named else None)
                if chosen is not None:
                    members = [snap.nodes[n] for n in chosen.nodes if n.startswith(f"{pool}-")]
                    good = [n for n in members if is_good_template_candidate(n)]
                    chosen = replace(chosen, template=(good or members)[0], fallback=not good)
        if chosen is None:
            chosen = next((g for g in groups if not g.fallback), groups[0])
        template = chosen.template
        base = f"{pool or template.name.rsplit('-', 1)[0]}-{zone}"
        i = 0
        for _ in range(count):
            while f"{base}-added-{i}" in snap.nodes:
                i += 1
            name = f"{base}-added-{i}"
            node = snap.nodes[name] = chosen.new_node(name)
            self._event("node-added", node=name, zone=zone, group=chosen.name)
            for pod in daemon_pods_for_node(node, snap.daemonsets.values(), snap.pods.__contains__, lambda ds: is_host_network(snap.raw.get(("DaemonSet", ds.key)))):
                snap.pods[pod.key] = pod
                self._seq[pod.key] = self._next_seq
                self._next_seq += 1
                if self.ctrl is not None:
                    self.ctrl.pod_added(pod)
                self._event("created", pod=pod.key, node=name, reason=f"DaemonSet {pod.namespace}/{pod.owner.name if pod.owner else ''}: a pod for the new node")
        self.cluster = self._cluster()

    # ------------------------------------------------------------------ run

    def run(self, steps: list[Step], watch: list[WorkloadRef], explain_elsewhere: bool = True) -> dict:
        """Replay the steps after step 0; the cyclic garbage collector is paused meanwhile, as
        planner.load pauses it: the replay's objects hold no cycles worth collecting, and a full
        collection would walk the whole cluster (0.2 s a time at 5,000 nodes).
        ``explain_elsewhere``: False for a caller that reads no reasons of ``pending_elsewhere``
        (a remediation's verification): their entries then carry none (each is a full
        evaluation of every filter on every node)."""
        self.explain_elsewhere = explain_elsewhere
        with paused():
            if self.ctrl is not None:
                self.ctrl.attach()
            try:
                return self._run(steps, watch)
            finally:
                if self.ctrl is not None:
                    self.ctrl.detach()  # self.snap is the caller's to change from now on

    def _run(self, steps: list[Step], watch: list[WorkloadRef]) -> dict:
        from planner import progress

        records: list[dict] = []
        # the steps, on the progress display when the caller reports progress (simulate does; the
        # replays run inside audit and remediate do not)
        replaying = progress.task("replaying", total=len(steps) + 1, unit="steps") if self.progress else progress.NULL_TASK
        with replaying:
            return self._run_steps(steps, watch, records, replaying)

    def _run_steps(self, steps: list[Step], watch: list[WorkloadRef], records: list[dict], replaying: Any) -> dict:
        for i, step in enumerate([Step("initial")] + steps):
            self.step_index = i
            self.events = []
            replaying.update(done=i, description=f"step {i}: {step.describe()}")
            if self.progress:
                self.progress(f"step {i}: {step.describe()}")
            if self.ctrl is not None:
                before = self.ctrl.tables()
                self.apply_step(step)
                self.ctrl.tables_changed(before)
            else:
                self.apply_step(step)
            self.settle()
            while getattr(self, "drain_pending", None) and self._drain_round():
                self.settle()
            if self.capped:  # room this step freed lets a capped workload grow
                if self.ctrl is not None:
                    tables = self.ctrl.tables()
                    grew = self._recap()
                    self.ctrl.tables_changed(tables)
                else:
                    grew = self._recap()
                if grew:
                    self.settle()
            zones = {str(r): self.zone_counts(r) for r in watch}
            records.append(
                {
                    "step": i,
                    "action": step.describe(),
                    "events": self.events,
                    "zones": zones,
                    "skew": {k: _skew(c) for k, c in zones.items()},
                    "pending": sorted(self.pending_since),
                    "pods": self._final_pods(watch),
                }
            )
        replaying.update(done=len(records))
        # A pod that is Pending at the end is the transition's when it belongs to a watched
        # workload or became Pending during the replay; one Pending since before the first step
        # and of another workload was not put there by what is replayed, and is listed apart.
        stuck = []
        pending_elsewhere = []
        for key, since in sorted(self.pending_since.items(), key=lambda kv: (kv[1], kv[0])):
            pod = self.snap.pods.get(key)
            if pod is None:
                continue
            mine = since > 0 or any(owned_by(self.snap, pod, r) for r in watch)
            if not mine and not self.explain_elsewhere:
                pending_elsewhere.append({"pod": key, "since_step": since, "reasons": []})
                continue
            ev = runtime.evaluate(pod, self.cluster, self._filters(pod))
            entry = {"pod": key, "since_step": since, "reasons": [ev.summary()] + _node_reasons(ev)}
            gated = schedulinggates.pre_enqueue(pod)
            if gated is not None:  # never tried: what blocks it is its gates
                entry["reasons"] = [gated.message, f"once they are removed: {ev.summary()}"] + _node_reasons(ev)
            if mine:
                stuck.append(entry)
            else:
                pending_elsewhere.append(entry)
        incomplete = [str(r) for r in watch if not self.complete(r) or r.key in self.capped]
        drain_blocked = list(getattr(self, "drain_pending", []))
        completed = not stuck and not incomplete and not drain_blocked
        return {
            "completed": completed,
            "steps": records,
            "stuck": stuck,
            "pending_elsewhere": pending_elsewhere,
            "incomplete": incomplete,
            "drain_blocked": drain_blocked,
            # final(watch), as the last step left it (nothing changed since): copies of its record's
            "final": {
                "pods": {k: dict(v) for k, v in records[-1]["pods"].items()},
                "zones": {k: dict(c) for k, c in records[-1]["zones"].items()},
                "claims": sorted(k for k in self.snap.pvcs),
            },
            "placements": self.placements,
            "notes": list(self.notes),
        }

    def complete(self, ref: WorkloadRef) -> bool:
        if ref.key not in (self.snap.deployments if ref.kind == "Deployment" else self.snap.statefulsets):
            return True  # deleted
        if ref.kind == "Deployment":
            return rollout_complete(self.snap, ref.key)
        return statefulset_complete(self.snap, ref.key)

    def _pods_of(self, ref: WorkloadRef) -> Iterable[Pod]:
        """The pods owned_by(snap, p, ref) holds for (in no particular order)."""
        snap = self.snap
        if self.ctrl is None or not self._controller_owned:
            return [p for p in snap.pods.values() if owned_by(snap, p, ref)]
        ix = self.ctrl.index
        if ref.kind == "StatefulSet":
            return ix.owned_pods(snap, ref.namespace, "StatefulSet", ref.name)
        out: list[Pod] = []
        for rs in ix.owned_replicasets(snap, ref.namespace, "Deployment", ref.name):
            out.extend(ix.owned_pods(snap, rs.namespace, "ReplicaSet", rs.name))
        return out

    def _owned(self, ref: WorkloadRef) -> list[Pod]:
        """The pods owned_by(snap, p, ref) holds for (in no particular order): _pods_of's, with
        owned_by's checks made once per ReplicaSet (a Deployment's: the ReplicaSet controlled by
        the Deployment, then each pod by the ReplicaSet) rather than once per pod."""
        snap = self.snap
        if self.ctrl is None or not self._controller_owned or ref.kind != "Deployment":
            return [p for p in self._pods_of(ref) if owned_by(snap, p, ref)]
        dep = snap.deployments.get(ref.key)
        if dep is None:
            return []
        ix = self.ctrl.index
        out: list[Pod] = []
        ns = ref.namespace
        for rs in ix.owned_replicasets(snap, ns, "Deployment", ref.name):
            name, uid = rs.name, rs.uid
            pods = ix.owned_pods(snap, ns, "ReplicaSet", name)
            if rs.namespace != ns or snap.replicasets.get(f"{ns}/{name}") is not rs:
                out.extend(p for p in pods if owned_by(snap, p, ref))  # not where owned_by looks it up
            elif controlled_by(rs.owner, "Deployment", dep.name, dep.uid):
                # owned_by's ReplicaSet is this one for every pod controlled by it (same namespace and name)
                out.extend(p for p in pods if p.namespace == ns and controlled_by(p.owner, "ReplicaSet", name, uid))
        return out

    def _zone(self, node_name: str) -> str | None:
        """The zone of a node of the snapshot (None when it has none or is gone), remembered per
        node object."""
        node = self.snap.nodes.get(node_name) if node_name else None
        if node is None:
            return None
        hit = self._zones.get(node_name)
        if hit is None or hit[0] is not node:
            hit = self._zones[node_name] = (node, node.zone)
        return hit[1]

    def zone_counts(self, ref: WorkloadRef) -> dict[str, int]:
        counts = {z: 0 for z in self.snap.zones}
        for p in self._owned(ref):
            if is_running(p):
                z = self._zone(p.spec.node_name)
                if z is not None:
                    counts[z] = counts.get(z, 0) + 1
        return counts

    def skew(self, ref: WorkloadRef) -> int:
        return _skew(self.zone_counts(ref))

    def _final_pods(self, watch: list[WorkloadRef]) -> dict[str, dict]:
        pods = {}
        for r in watch:
            for p in sorted(self._owned(r), key=lambda p: p.key):
                pods[p.key] = {"node": p.spec.node_name or None, "zone": self._zone(p.spec.node_name), "phase": p.phase, "workload": str(r)}
        return pods

    def final(self, watch: list[WorkloadRef]) -> dict:
        return {
            "pods": self._final_pods(watch),
            "zones": {str(r): self.zone_counts(r) for r in watch},
            "claims": sorted(k for k in self.snap.pvcs),
        }


def _skew(counts: dict[str, int]) -> int:
    """The spread of a workload's running pods over the zones: most minus fewest."""
    return (max(counts.values()) - min(counts.values())) if counts else 0


def _node_reasons(ev: runtime.Evaluation, limit: int = 6) -> list[str]:
    groups: dict[str, list[str]] = {}
    for n in ev.nodes:
        if n.failures:
            text = "; ".join(f"{f.plugin}: {f.message}" for f in n.failures)
            groups.setdefault(text, []).append(n.name)
    out = []
    for text, names in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:limit]:
        who = names[0] if len(names) == 1 else f"{names[0]} (+{len(names) - 1})"
        out.append(f"{who}: {text}")
    return out


# --------------------------------------------------------------------------- steps from files


def parse_steps(raw: Any, snap: Snapshot, namespace: str | None, where: str) -> list[Step]:
    """Steps as scenarios and --steps files write them (docs/simulate.md)."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError(f"{where}: steps: Invalid value: must be a list")
    out: list[Step] = []
    for i, s in enumerate(raw):
        path = f"{where}: steps[{i}]"
        if not isinstance(s, dict) or len(s) == 0:
            raise InputError(f"{path}: Invalid value: must be a mapping with one action")
        try:
            out.extend(_parse_step(s, snap, namespace, path))
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"{path}: Invalid value: {e}") from None
    return out


def _ref(text: str, namespace: str | None) -> WorkloadRef:
    return parse_workload(str(text), namespace)


_INT32_MAX = (1 << 31) - 1


def _count(v: Any, path: str, hi: int = _INT32_MAX) -> int:
    """A count in a step: an integer from 0 to ``hi`` (replicas are an int32, as spec.replicas)."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**63:
        v = int(v)
    if type(v) is not int:
        shown = f"{v[:40]}... ({len(v):,} characters)" if isinstance(v, str) and len(v) > 60 else v
        raise InputError(f"{path}: Invalid value: {shown!r}: must be an integer")
    if not 0 <= v <= hi:
        raise InputError(f"{path}: Invalid value: {v}: must be from 0 to {hi:,}")
    return v


def _parse_step(s: dict, snap: Snapshot, namespace: str | None, path: str) -> list[Step]:
    if "scale" in s:
        where = f"{path}.replicas"
        return [Step("scale", {"ref": _ref(s["scale"], namespace), "workload": s["scale"], "replicas": _count(s.get("replicas"), where), "source": where})]
    if "hpa" in s:  # an HPA-driven sequence: {hpa: statefulset/search, replicas: [4, 2, 3]}
        counts = s.get("replicas")
        if not isinstance(counts, list):
            raise InputError(f"{path}.replicas: Invalid value: must be a list of counts")
        return [Step("scale", {"ref": _ref(s["hpa"], namespace), "workload": s["hpa"], "replicas": _count(n, f"{path}.replicas[{j}]"),
                               "source": f"{path}.replicas[{j}]", "hpa": True}) for j, n in enumerate(counts)]
    if "rollout" in s:
        return [Step("rollout", {"ref": _ref(s["rollout"], namespace), "workload": s["rollout"], "image": s.get("image")})]
    if "evict" in s:
        key = s["evict"] if "/" in str(s["evict"]) else f"{namespace or 'default'}/{s['evict']}"
        return [Step("evict", {"pod": key})]
    if "delete" in s:
        return [Step("delete", {"ref": _ref(s["delete"], namespace), "workload": s["delete"]})]
    if "drain" in s:
        return [Step("drain", {"node": str(s["drain"])})]
    if "zoneDown" in s:
        return [Step("zone-down", {"zone": str(s["zoneDown"])})]
    if "addNodes" in s:
        a = s["addNodes"]
        count = _count(a.get("count", 1), f"{path}.addNodes.count", MAX_NODES)
        return [Step("add-nodes", {"zone": str(a["zone"]), "count": count, "pool": a.get("pool")})]
    if "create" in s:
        objs = _convert_objects(s["create"], path)
        return [Step("create", {"objects": objs, "kind": objs[0][0], "key": objs[0][1], "source": f"{path}.create"})]
    if "apply" in s:
        a = s["apply"]
        ref = _ref(a["workload"], namespace)
        return [Step("patch", {"ref": ref, "workload": a["workload"], "apply": _patcher(snap, ref, a, path), "source": f"{path}.apply.replicas"})]
    raise InputError(f"{path}: Unsupported value: {sorted(s)}: supported actions: scale, hpa, rollout, evict, delete, drain, zoneDown, addNodes, create, apply")


def _convert_objects(manifest: Any, path: str) -> list[tuple[str, str, Any]]:
    from planner.load import RawInput, build_snapshot, validate_raw

    items = manifest if isinstance(manifest, list) else [manifest]
    raw = RawInput(objects=[dict(o) for o in items if isinstance(o, dict)])
    errors = validate_raw(raw)
    if errors:
        raise InputError(*[f"{path}: {e}" for e in errors])
    built = build_snapshot(raw)
    out: list[tuple[str, str, Any]] = []
    for kind, table in (("Node", built.nodes), ("PersistentVolumeClaim", built.pvcs), ("Deployment", built.deployments),
                        ("StatefulSet", built.statefulsets), ("HorizontalPodAutoscaler", built.hpas), ("PodDisruptionBudget", built.pdbs)):
        out.extend((kind, key, obj) for key, obj in table.items())
    if not out:
        raise InputError(f"{path}: create: no object of a kind the replay can create")
    return out


def _tables(snap: Snapshot) -> dict[str, dict[str, Any]]:
    """The snapshot's objects by kind, for the kinds steps create and patch."""
    return {"Deployment": snap.deployments, "StatefulSet": snap.statefulsets, "HorizontalPodAutoscaler": snap.hpas,
            "PodDisruptionBudget": snap.pdbs, "PersistentVolumeClaim": snap.pvcs, "Node": snap.nodes, "Pod": snap.pods}


def _lookup(snap: Snapshot, kind: str, key: str) -> Any:
    return _tables(snap)[kind][key]


def _patcher(snap: Snapshot, ref: WorkloadRef, a: dict, path: str) -> Callable[[Any], Any]:
    """{apply: {workload, replicas?, template? (JSON merge patch on spec.template), spreadSelector?}}."""
    import copy

    from planner.load import RawInput, build_snapshot, validate_raw
    from planner.load.admission import resolve_admission

    raw_obj = snap.raw.get((ref.kind, ref.key))
    if raw_obj is None:
        raise InputError(f"{path}: {ref} has no source object to patch")
    obj = copy.deepcopy(raw_obj)
    spec = obj.setdefault("spec", {})
    if "replicas" in a:
        spec["replicas"] = _count(a["replicas"], f"{path}.apply.replicas")
    if "template" in a:
        spec["template"] = _merge_patch(spec.get("template", {}), a["template"])
    if "spreadSelector" in a:
        for c in spec.get("template", {}).get("spec", {}).get("topologySpreadConstraints", []) or []:
            c["labelSelector"] = {"matchLabels": dict(a["spreadSelector"])}
    raw = RawInput(objects=[obj])
    errors = validate_raw(raw)
    if errors:
        raise InputError(*[f"{path}: {e}" for e in errors])
    small = build_snapshot(raw)
    resolve_admission(small, by=snap)  # the patched template's pods are admitted by the cluster
    new = _lookup(small, ref.kind, ref.key)
    return lambda _old: new


def _merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch (lists replace, null deletes); named lists of containers merge by name."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        elif k == "containers" and isinstance(v, list) and isinstance(out.get(k), list):
            by_name = {c.get("name"): c for c in out[k] if isinstance(c, dict)}
            merged = []
            for c in v:
                base = by_name.get(c.get("name")) if isinstance(c, dict) else None
                merged.append(_merge_patch(base, c) if base is not None else c)
            out[k] = merged
        else:
            out[k] = _merge_patch(out.get(k), v)
    return out
