"""Verification: a plan's patches applied to the snapshot, the goal checked again.

``apply_patches`` applies the very patches that are printed to the raw objects the snapshot was
read from (``Snapshot.raw``, the API server's defaults already applied), then loads what changed
through the same defaults, validation and conversion as any input (planner.load), and splices
the result into a copy of the snapshot.  A patch whose ``test`` guard fails, or an object the API
server would reject, rejects the plan.  What the controllers do next is left to check and the
replay, with five consequences made explicit because no patch says them:

* a deleted claim releases its PersistentVolume: reclaim policy ``Delete`` deletes it, any
  other leaves it ``Released``, still bound by ``claimRef`` to the old claim's uid, so that no new
  claim binds it (pkg/controller/volume/persistentvolume/pv_controller.go reclaimVolume);
* a change of a workload's pod template increments ``metadata.generation`` (pkg/registry/apps/*/
  strategy.go PrepareForUpdate does so for any spec change), which tells the replay's controllers
  that the status no longer describes the template.  Other spec changes (replicas, strategy) keep
  the generation here: the revision the status names is then still the template's, whereas
  planner's hash of it may differ from the cluster's and would start a rollout that a real
  cluster does not make;
* a Node the plan creates (scale-node-group) runs the DaemonSet pods the DaemonSet controller
  would create for it (pkg/controller/daemon NodeShouldRunDaemonPod, planner.controllers.daemon),
  bound to it, so that its room is counted as ``capacity --add-nodes`` and the replay's
  ``addNodes`` step count it;
* a Node uncordoned loses its node.kubernetes.io/unschedulable taint, as the node lifecycle
  controller removes it (TaintNodesByCondition: _untaint_uncordoned);
* a StatefulSet created again under the name of one deleted with ``--cascade=orphan`` adopts the
  orphaned pods (pkg/controller/statefulset/stateful_set.go adoptOrphanRevisions and
  ClaimPods); planner keeps the old uid so that the pods' owner references resolve as after
  the adoption.

``evaluate`` decides a goal on a snapshot:

* ``replicas``: check (CP-SAT, planner.engines.check) proves the N replicas placeable, and the
  replay (planner.engines.replay: the controllers and kube-scheduler, pod by pod) reaches
  them; a plan that changes the pod template is checked on the state the rollout ends in (every
  pod of the workload recreated from the new template, claims kept), since check keeps running
  pods of older revisions where they are;
* ``rollout`` / ``scale``: the replay of ``kubectl rollout restart`` (or the rollout under way) or
  of the scale completes for the workload: no pod of it Pending, every pod of the current
  revision, the replica count reached.  Pending pods of other workloads do not count;
* ``replay`` (``--steps``): the replay of the goal's steps completes for the workloads involved
  (``involved``): none of their pods Pending at the end, their rollouts done, no drain blocked;
  pods of other workloads count only when the steps made them Pending.  A plan's ``create``
  patch of an object that a ``create:`` step makes is that step's manifest, corrected
  (``split_patches``): the object is still created at its step.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any

from models.solve import SolveOptions
from planner.domain import Pod
from planner.engines.problem import Memo
from planner.engines.remediation.actions import ObjectPatch
from planner.engines.remediation.jsonpatch import PatchError, apply_json_patch, apply_merge_patch
from planner.engines.workloads import WorkloadRef, find_workload
from planner.errors import InputError, UnknownResult, UsageError
from planner.load import RawInput, build_snapshot, validate_raw
from planner.load.admission import resolve_admission
from planner.load.overlay import GENERATION_KINDS, bumped_generation, template_changed
from planner.snapshot import Snapshot

CLUSTER_SCOPED = ("Node", "PersistentVolume", "StorageClass", "Namespace")

TABLES = {
    "Node": "nodes",
    "Pod": "pods",
    "PersistentVolume": "pvs",
    "PersistentVolumeClaim": "pvcs",
    "StorageClass": "storage_classes",
    "Deployment": "deployments",
    "ReplicaSet": "replicasets",
    "StatefulSet": "statefulsets",
    "HorizontalPodAutoscaler": "hpas",
    "PodDisruptionBudget": "pdbs",
    "Namespace": "namespaces",
}


def object_key(kind: str, namespace: str | None, name: str) -> str:
    return name if kind in CLUSTER_SCOPED else f"{namespace or 'default'}/{name}"


@dataclass(frozen=True)
class Goal:
    ref: WorkloadRef
    kind: str  # replicas | rollout | scale | replay
    replicas: int | None = None
    # replay: the steps as written (a scenario's `steps:` or a --steps file) and where they come from
    steps: Any = field(default=None, compare=False, hash=False)
    source: str = ""  # replay: the steps' file; replicas and scale: the option that asked (or "")

    def describe(self) -> str:
        if self.kind == "replicas":
            return f"{self.ref} x{self.replicas}"
        if self.kind == "scale":
            return f"scale {self.ref} to {self.replicas}"
        if self.kind == "replay":
            return f"replay the steps of {self.source} ({self.ref})"
        return f"roll out {self.ref}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "workload": str(self.ref), "replicas": self.replicas}
        if self.kind == "replay":
            out["steps"] = self.source
        return out

    def with_steps(self, steps: Any) -> Goal:
        return replace(self, steps=steps)


@dataclass
class Verdict:
    ok: bool
    reason: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    # check's answer for a replica goal (planner.engines.check.CheckOutcome), when check answered
    checked: Any = field(default=None, repr=False, compare=False)


# --------------------------------------------------------------------------- patches


def apply_patches(snap: Snapshot, patches: list[ObjectPatch]) -> Snapshot:
    """The snapshot with ``patches`` applied, in order; raises PatchError naming what failed.
    A Node the patches create runs the DaemonSet pods the controller would give it (with_daemon_pods)."""
    changed = patched_objects(snap, patches)
    out = load_changes(snap, changed)
    created = [key for (kind, key), obj in changed.items() if kind == "Node" and obj is not None and key not in snap.nodes]
    daemon = with_daemon_pods(out, created) if created else []
    # the patched snapshot shares the unchanged part of the cluster with the one it came from
    # (Snapshot.derive): its scheduler cache and controllers' index are built from theirs
    removed = [snap.pods[key] for (kind, key), _ in changed.items() if kind == "Pod" and key in snap.pods]
    replaced = [key for (kind, key), obj in changed.items() if kind == "Pod" and obj is not None and key in snap.pods]
    # the pods ``out`` has and ``snap`` has not, in ``out``'s order: the patches' new pods (spliced
    # in their order by load_changes), then the DaemonSet pods of the new nodes
    added = [out.pods[key] for (kind, key), obj in changed.items() if kind == "Pod" and obj is not None and key not in snap.pods] + daemon
    if not replaced and all(k in snap.pods for (kind, k), obj in changed.items() if kind == "Pod" and obj is None):
        out.derive(snap, removed, added, [key for (kind, key), _ in changed.items() if kind == "Node"])
    return out


def with_daemon_pods(snap: Snapshot, nodes: list[str]) -> list[Pod]:
    """The pods the DaemonSet controller creates for the new ``nodes`` (planner.controllers.daemon:
    NodeShouldRunDaemonPod), bound to them, added to ``snap`` (and returned), as ``capacity
    --add-nodes`` and the replay's addNodes step count them: a new node's room is what its
    DaemonSets leave."""
    from planner.controllers.daemon import daemon_pods_for_node, is_host_network

    added: list[Pod] = []
    if not snap.daemonsets:
        return added
    for name in nodes:
        node = snap.nodes.get(name)
        if node is None:
            continue
        pods = daemon_pods_for_node(
            node, snap.daemonsets.values(), snap.pods.__contains__, lambda ds: is_host_network(snap.raw.get(("DaemonSet", ds.key)))
        )
        for p in pods:
            snap.pods[p.key] = p
        added.extend(pods)
    return added


def original(snap: Snapshot, kind: str, key: str) -> dict | None:
    """The object as read (planner keeps no raw pods: a pod is its identity)."""
    obj = snap.raw.get((kind, key))
    if obj is None and kind == "Pod" and key in snap.pods:
        return pod_identity(snap.pods[key])
    return obj


def patched_objects(snap: Snapshot, patches: list[ObjectPatch]) -> dict[tuple[str, str], dict | None]:
    """The objects the patches change, after them (None: deleted), with planner's own RFC 6902 /
    7386 engine; tests/engines/test_remediation.py computes the same with ``kubectl patch --local``."""
    changed: dict[tuple[str, str], dict | None] = {}
    for p in patches:
        if p.kind not in TABLES:
            raise PatchError(f"{p.kind} {p.key}: planner does not read this kind")
        key = object_key(p.kind, p.namespace, p.name)
        obj = changed[(p.kind, key)] if (p.kind, key) in changed else original(snap, p.kind, key)
        where = f"{p.kind} {key}"
        if p.type in ("json", "merge"):
            if obj is None:
                raise PatchError(f"{where}: not found")
            try:
                changed[(p.kind, key)] = apply_json_patch(obj, p.body) if p.type == "json" else apply_merge_patch(obj, p.body)
            except PatchError as e:
                raise PatchError(f"{where}: {e}") from None
        elif p.type == "delete":
            if obj is None:
                raise PatchError(f"{where}: not found")
            changed[(p.kind, key)] = None
        elif p.type == "create":
            if obj is not None:
                raise PatchError(f"{where}: already exists")
            changed[(p.kind, key)] = copy.deepcopy(p.body)
        else:
            raise PatchError(f"{where}: unknown patch type {p.type!r}")
    return changed


def load_changes(snap: Snapshot, changed: dict[tuple[str, str], dict | None]) -> Snapshot:
    """Splice changed objects into a copy of ``snap``: what the API server and the controllers do
    at once (generation, adoption, released volumes; module docstring), then planner.load's
    defaults, validation and conversion.  Raises PatchError when the API server would refuse."""
    changed = dict(changed)
    for (kind, key), obj in list(changed.items()):
        old = original(snap, kind, key)
        if obj is None:
            if old is None:
                raise PatchError(f"{kind} {key}: not found")
            if kind == "PersistentVolumeClaim":
                _release(snap, changed, old)
            continue
        obj = copy.deepcopy(obj)
        if kind == "Node" and old is not None:
            _untaint_uncordoned(old, obj)
        md = obj.setdefault("metadata", {})
        old_md = (old or {}).get("metadata") or {}
        if old is not None and old_md.get("uid") and not md.get("uid"):
            if kind == "StatefulSet":
                md["uid"] = old_md["uid"]  # created again: it adopts the orphaned pods
        elif old is not None and kind in GENERATION_KINDS and template_changed(old, obj):
            md["generation"] = bumped_generation(old)  # the rule the overlay of later inputs applies too
        changed[(kind, key)] = obj
    live = [(k, o) for k, o in changed.items() if o is not None]
    raw = RawInput(objects=[copy.deepcopy(o) for _, o in live])
    errors = validate_raw(raw)
    if errors:
        raise PatchError("the API server would reject the result: " + "; ".join(errors))
    try:
        small = build_snapshot(raw)
    except InputError as e:
        raise PatchError("; ".join(e.messages or [str(e)])) from None
    out = snap.copy()
    for (kind, key), obj in changed.items():
        table = getattr(out, TABLES[kind])
        if obj is None:
            table.pop(key, None)
            out.raw.pop((kind, key), None)
        else:
            table[key] = getattr(small, TABLES[kind])[key]
            if (kind, key) in small.raw:
                out.raw[(kind, key)] = small.raw[(kind, key)]
    # the templates changed get what admission gives their pods from the whole cluster's
    # LimitRanges and RuntimeClasses (the small snapshot has none of them)
    resolve_admission(out, {k for k, obj in changed.items() if obj is not None})
    return out


def _untaint_uncordoned(old: dict, node: dict) -> None:
    """A node uncordoned (``spec.unschedulable`` true before, not now) loses the
    node.kubernetes.io/unschedulable taint: the node lifecycle controller keeps that NoSchedule
    taint in step with the field (pkg/controller/nodelifecycle/node_lifecycle_controller.go
    doNoScheduleTaintingPass, TaintNodesByCondition)."""
    if not (old.get("spec") or {}).get("unschedulable") or (node.get("spec") or {}).get("unschedulable"):
        return
    spec = node.get("spec") or {}
    taints = [t for t in spec.get("taints") or [] if not (isinstance(t, dict) and t.get("key") == "node.kubernetes.io/unschedulable")]
    if taints:
        spec["taints"] = taints
    else:
        spec.pop("taints", None)


def _release(snap: Snapshot, changed: dict[tuple[str, str], dict | None], claim: dict) -> None:
    """pv_controller.go reclaimVolume for the claim's volume: Delete removes it, else Released."""
    pv_name = (claim.get("spec") or {}).get("volumeName") or ""
    if not pv_name:
        return
    k = ("PersistentVolume", pv_name)
    pv = changed[k] if k in changed else snap.raw.get(k)
    if pv is None:
        return
    policy = (pv.get("spec") or {}).get("persistentVolumeReclaimPolicy") or "Retain"
    if policy == "Delete":
        changed[k] = None
    else:
        pv = copy.deepcopy(pv)
        pv.setdefault("status", {})["phase"] = "Released"
        changed[k] = pv


def pod_identity(pod: Any) -> dict:
    """A pod as a delete patch names it: planner.load keeps no raw pods (they are most of a
    snapshot's memory and never patched), so a pod's delete body is its identity only."""
    md: dict[str, Any] = {"name": pod.name, "namespace": pod.namespace}
    if pod.uid:
        md["uid"] = pod.uid
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md}


# --------------------------------------------------------------------------- goals


def rolled(snap: Snapshot, ref: WorkloadRef) -> Snapshot:
    """The state a rollout of the workload ends in, for check: every pod of it recreated from the
    current template (running pods removed; StatefulSet claims stay, bound where they are)."""
    out = snap.copy()
    d = snap.derivation()
    if ref.kind == "StatefulSet" and d is not None and not (d[1] or d[2] or d[3]) and ref.key in snap.statefulsets and ref.key in d[0].statefulsets:
        # the parent's pods and nodes, the very same objects (a template or a claim changed): its
        # pods of the set, found once on the parent, not by a walk over every pod of each plan
        gone = [snap.pods[k] for k in _rolled_of(d[0], ref)[1]]
    else:
        gone = snap.owned_pods(ref.kind, ref.key)
    for p in gone:
        out.pods.pop(p.key, None)
    base = _rolled_parent(snap, ref, gone)
    if base is not None:
        out.derive(base)  # the same pods and nodes as the parent's rolled state
    else:
        out.derive(snap, gone)
    sts = out.statefulsets.get(ref.key) if ref.kind == "StatefulSet" else None
    if sts is not None:  # the pods come back at the revision of the new template
        from dataclasses import replace

        from planner.controllers.statefulset import statefulset_revisions

        _, update = statefulset_revisions(out, sts)
        out.statefulsets[ref.key] = replace(sts, current_revision=update, update_revision=update)
    return out


_ROLLED_ATTR = "_planner_remediation_rolled"


def _rolled_parent(snap: Snapshot, ref: WorkloadRef, gone: list) -> Snapshot | None:
    """For a snapshot derived with the same pods and nodes as its parent (Snapshot.derive: a plan
    that changes a template, a claim): the parent's rolled state, made once and kept on the
    parent (only ever a derivation's parent: never changed), whose pods and nodes are those of
    ``snap`` less ``gone``; None otherwise.  The rolled state of every template change then
    shares its scheduler cache and controllers' index with it, not a copy of the parent's each."""
    d = snap.derivation()
    if d is None or d[1] or d[2] or d[3]:
        return None
    base, keys = _rolled_of(d[0], ref)
    return base if [p.key for p in gone] == keys else None


def _rolled_of(parent: Snapshot, ref: WorkloadRef) -> tuple[Snapshot, list[str]]:
    """The rolled state of a derivation's parent and the keys of the workload's pods on it, made
    once and kept on the parent."""
    kept = parent.__dict__.setdefault(_ROLLED_ATTR, {})
    hit: tuple[Snapshot, list[str]] | None = kept.get(ref)
    if hit is None:
        hit = kept[ref] = (rolled(parent, ref), [p.key for p in parent.owned_pods(ref.kind, ref.key)])
    return hit


def evaluate(
    snap: Snapshot,
    goal: Goal,
    opts: SolveOptions,
    seed: int = 0,
    replicas: int | None = None,
    template_changed: bool = False,
    replay: bool = True,
    explain: bool = True,
    memo: Memo | None = None,
    witness: bool = True,
) -> Verdict:
    """Does ``snap`` reach the goal?  ``replicas`` overrides the goal's count (scale-to plans);
    ``explain``: a failing check's reason with check's minimal explanation (False: "unschedulable"
    alone, for a search that needs the verdict only); ``memo``: what check's problems share across
    the plans (planner.engines.problem.Memo); ``witness`` False (with ``replay`` False): check's
    placement is the model's, not ordered pod by pod (check_replicas' ``witness``): the replay
    that follows decides (Search._verify)."""
    n = goal.replicas if replicas is None else replicas
    detail: dict[str, Any] = {}
    if goal.kind == "replicas":
        from planner.engines.capacity import reason_of
        from planner.engines.check import check_replicas

        base = rolled(snap, goal.ref) if template_changed else snap
        try:
            out = check_replicas(base, [goal.ref], n, opts, explain=explain, memo=memo, witness=witness or replay)
        except UnknownResult as e:
            return Verdict(False, str(e), {"check": "unknown"})
        except (InputError, UsageError) as e:
            return Verdict(False, "; ".join(e.messages or [str(e)]), {"check": "error"})
        detail["check"] = out.schedulable
        if not out.schedulable:
            return Verdict(False, f"check: still unschedulable: {reason_of(out)}", detail, out)
        if not replay:
            return Verdict(True, "", detail, out)
    if goal.kind == "replay":
        return _replay_goal(snap, goal, seed, detail)
    return _replay(snap, goal, n, seed, detail)


# --------------------------------------------------------------------------- replay goals


def _raw_steps(goal: Goal) -> list:
    return goal.steps if isinstance(goal.steps, list) else []


def step_objects(goal: Goal) -> dict[tuple[str, str], tuple[int, dict]]:
    """The objects the goal's ``create:`` steps make: (kind, key) -> (the replay's step number,
    the manifest as written).  Step numbers are the replay's: step 0 is the cluster as read, an
    ``hpa:`` step counts once per replica count."""
    out: dict[tuple[str, str], tuple[int, dict]] = {}
    n = 0
    for s in _raw_steps(goal):
        if isinstance(s, dict) and "hpa" in s and isinstance(s.get("replicas"), list):
            n += len(s["replicas"])
            continue
        n += 1
        if not isinstance(s, dict) or "create" not in s:
            continue
        items = s["create"] if isinstance(s["create"], list) else [s["create"]]
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("kind"), str):
                continue
            md = item.get("metadata") or {}
            if not isinstance(md, dict) or not md.get("name"):
                continue
            key = object_key(item["kind"], md.get("namespace") or "default", str(md["name"]))
            out.setdefault((item["kind"], key), (n, item))
    return out


def split_patches(snap: Snapshot, goal: Goal, patches: list[ObjectPatch]) -> tuple[list[ObjectPatch], Goal]:
    """A ``create`` patch of an object that a ``create:`` step of the goal makes (and the snapshot
    does not hold) is that step's manifest, corrected: it replaces the manifest in the steps, so
    the object is still created at its step, as the user will apply it.  The other patches apply
    to the snapshot."""
    made = step_objects(goal)
    if not made:
        return list(patches), goal
    live: list[ObjectPatch] = []
    steps: list | None = None
    for p in patches:
        key = object_key(p.kind, p.namespace, p.name)
        if p.type == "create" and (p.kind, key) in made and original(snap, p.kind, key) is None:
            if steps is None:
                steps = copy.deepcopy(_raw_steps(goal))
            _replace_manifest(steps, p.kind, key, p.body)
        else:
            live.append(p)
    return live, (goal.with_steps(steps) if steps is not None else goal)


def _replace_manifest(steps: list, kind: str, key: str, body: dict) -> None:
    for s in steps:
        if not isinstance(s, dict) or "create" not in s:
            continue
        many = isinstance(s["create"], list)
        items = s["create"] if many else [s["create"]]
        for i, item in enumerate(items):
            md = (item.get("metadata") or {}) if isinstance(item, dict) else {}
            if isinstance(item, dict) and item.get("kind") == kind and object_key(kind, md.get("namespace") or "default", str(md.get("name"))) == key:
                if many:
                    items[i] = copy.deepcopy(body)
                else:
                    s["create"] = copy.deepcopy(body)
                return


def apply_plan(snap: Snapshot, goal: Goal, patches: list[ObjectPatch]) -> tuple[Snapshot, Goal]:
    """The snapshot and the goal a plan's patches make: patches of objects the goal's steps create
    change those steps' manifests (split_patches), the others the snapshot (apply_patches)."""
    live, goal = split_patches(snap, goal, patches)
    return apply_patches(snap, live), goal


def parse_goal_steps(snap: Snapshot, goal: Goal) -> list:
    from planner.engines.replay import parse_steps

    return parse_steps(goal.steps, snap, goal.ref.namespace, goal.source or "steps")


def _workload_of_pod(snap: Snapshot, key: str, created: dict[str, WorkloadRef]) -> WorkloadRef | None:
    pod = snap.pods.get(key)
    if pod is not None and pod.owner is not None:
        if pod.owner.kind == "StatefulSet":
            return WorkloadRef("StatefulSet", pod.namespace, pod.owner.name)
        rs = snap.replicasets.get(f"{pod.namespace}/{pod.owner.name}") if pod.owner.kind == "ReplicaSet" else None
        if rs is not None and rs.owner is not None and rs.owner.kind == "Deployment":
            return WorkloadRef("Deployment", pod.namespace, rs.owner.name)
        return None
    # a pod an earlier step creates: a StatefulSet's pods are named <set>-<ordinal>
    base, _, ordinal = key.rpartition("-")
    if ordinal.isdigit():
        if base in snap.statefulsets:
            ns, name = base.split("/", 1)
            return WorkloadRef("StatefulSet", ns, name)
        return created.get(base)
    return None


def involved(snap: Snapshot, goal: Goal, steps: list) -> list[WorkloadRef]:
    """The workloads a replay goal is about: the goal's, those the steps name (scale, rollout,
    delete, apply), create, or whose pods they evict."""
    refs: list[WorkloadRef] = [goal.ref]
    created: dict[str, WorkloadRef] = {}
    for st in steps:
        a = st.args
        if isinstance(a.get("ref"), WorkloadRef):
            refs.append(a["ref"])
        if st.kind == "create":
            for kind, key, _ in a["objects"]:
                if kind in ("Deployment", "StatefulSet"):
                    ns, name = key.split("/", 1)
                    created[key] = WorkloadRef(kind, ns, name)
                    refs.append(created[key])
        if st.kind == "evict":
            owner = _workload_of_pod(snap, a["pod"], created)
            if owner is not None:
                refs.append(owner)
    return list(dict.fromkeys(refs))


@dataclass
class ReplayRun:
    result: dict[str, Any]
    sim: Any  # the Simulator after the run (its snapshot: the world the steps end in)
    watch: list[WorkloadRef]
    stuck: list[dict[str, Any]]  # the stuck pods that count against the goal


def run_goal_steps(snap: Snapshot, goal: Goal, seed: int) -> ReplayRun:
    """The replay of the goal's steps on ``snap``, watching the workloads involved.  Raises
    InputError / UsageError when the steps do not apply (a corrected manifest the API server
    would refuse, a workload a step names that a plan deleted)."""
    from planner.engines.replay import Simulator

    steps = parse_goal_steps(snap, goal)
    watch = involved(snap, goal, steps)
    sim = Simulator(snap, seed=seed)
    result = sim.run(steps, watch)
    mine = set(result["final"]["pods"])
    # Pending pods of other workloads count once the steps made them Pending (a drain, a zone
    # lost); those already Pending in the cluster as read do not (as for the other transitions)
    stuck = [s for s in result["stuck"] if s["pod"] in mine or s["since_step"] > 0]
    return ReplayRun(result, sim, watch, stuck)


def _replay_goal(snap: Snapshot, goal: Goal, seed: int, detail: dict[str, Any]) -> Verdict:
    try:
        run = run_goal_steps(snap, goal, seed)
    except (InputError, UsageError) as e:
        detail["replay"] = False
        return Verdict(False, "replay: " + "; ".join(e.messages or [str(e)]), detail)
    r = run.result
    ok = not run.stuck and not r["incomplete"] and not r["drain_blocked"]
    detail["replay"] = ok
    detail["replay_placements"] = r["placements"]
    if ok:
        return Verdict(True, "", detail)
    if run.stuck:
        s = run.stuck[0]
        why = s["reasons"][0] if s["reasons"] else "Pending"
        return Verdict(False, f"replay: {s['pod']} stays Pending from step {s['since_step']}: {why}", detail)
    if r["incomplete"]:
        return Verdict(False, f"replay: the rollout of {r['incomplete'][0]} does not complete", detail)
    return Verdict(False, f"replay: the drain is blocked by PodDisruptionBudgets ({', '.join(r['drain_blocked'])})", detail)


def _replay(snap: Snapshot, goal: Goal, n: int | None, seed: int, detail: dict[str, Any]) -> Verdict:
    from planner.engines.replay import Simulator, Step

    ref = goal.ref
    steps: list[Step] = []
    if goal.kind == "rollout":
        steps.append(Step("rollout", {"ref": ref, "workload": str(ref), "image": None}))
    else:
        steps.append(Step("scale", {"ref": ref, "workload": str(ref), "replicas": n}))
    try:
        sim = Simulator(snap, seed=seed)
        result = sim.run(steps, [ref], explain_elsewhere=False)  # the workload's pods alone are read
        want = n if n is not None else find_workload(sim.snap, ref).replicas
    except (InputError, UsageError) as e:
        detail["replay"] = False
        return Verdict(False, "replay: " + "; ".join(e.messages or [str(e)]), detail)
    pods = {k: v for k, v in result["final"]["pods"].items()}
    running = [k for k, v in pods.items() if v["node"] and v["phase"] == "Running"]
    stuck = [s for s in result["stuck"] if s["pod"] in pods]
    incomplete = str(ref) in result["incomplete"]
    ok = not stuck and not incomplete and len(running) == want and len(pods) == want
    detail["replay"] = ok
    detail["replay_placements"] = result["placements"]
    if ok:
        return Verdict(True, "", detail)
    if stuck:
        s = stuck[0]
        why = s["reasons"][0] if s["reasons"] else "Pending"
        return Verdict(False, f"replay: {s['pod']} stays Pending: {why}", detail)
    if incomplete:
        return Verdict(False, f"replay: the rollout of {ref} does not complete", detail)
    return Verdict(False, f"replay: {len(running)} of {want} replicas run", detail)


def replay_verdict(snap: Snapshot, goal: Goal, replicas: int | None, seed: int) -> Verdict:
    """The replay part of ``evaluate`` for a replica goal whose check passed (its detail: the
    replay's alone); ``replicas`` overrides the goal's count, as there."""
    return _replay(snap, goal, goal.replicas if replicas is None else replicas, seed, {})


def is_ok_now(snap: Snapshot, goal: Goal, opts: SolveOptions, seed: int, memo: Memo | None = None) -> Verdict:
    """The goal on the snapshot as read: check alone for replicas (what `planner check` answers),
    the replay for transitions (what `planner simulate` answers)."""
    return evaluate(snap, goal, opts, seed, replay=goal.kind != "replicas", memo=memo)
