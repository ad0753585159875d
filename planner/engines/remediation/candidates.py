"""Candidate actions: what could be changed, derived from why the goal fails.

The failure names the constraint groups (check's minimal explanation for replica goals, the
stuck pods' filter reasons for transitions): spread constraints, volume pins, anti-affinity,
capacity.  Each group suggests the changes below; every one is only a candidate until
planner.engines.remediation.search has applied its patches and verified the goal.

Upstream semantics the patches rely on:

* ``whenUnsatisfiable: ScheduleAnyway`` makes a spread constraint a scoring preference only
  (kube-scheduler podtopologyspread/filtering.go filters DoNotSchedule constraints only);
  ``minDomains`` is only valid with DoNotSchedule (validation.go validateMinDomains), so it is
  removed in the same patch.
* ``matchLabelKeys`` (spread: KEP-3243, beta and on by default since v1.27; pod (anti-)affinity:
  KEP-3633, GA in v1.33): the values of the incoming pod's labels for these keys are ANDed into
  the selector, so with ``pod-template-hash`` (Deployments) or ``controller-revision-hash``
  (StatefulSets) each revision is counted on its own.  A key may not also appear in the
  labelSelector (ValidateMatchLabelKeysAndMismatchLabelKeys).
* Any change under ``spec.template`` is a new revision: the Deployment controller rolls every
  pod (a new ReplicaSet), the StatefulSet controller replaces every pod, highest ordinal first
  (stateful_set_control.go).  Pods still running the old template keep their old terms: their
  required anti-affinity still repels the new pods (InterPodAffinity checks existing pods' terms).
* ``spec.strategy.rollingUpdate`` (deployment/util: maxSurge rounds up, maxUnavailable down;
  both 0 is invalid); ``Recreate`` stops every pod before creating new ones.
* ``podManagementPolicy`` is immutable (apps validation ValidateStatefulSetUpdate allows only
  replicas, template, updateStrategy, minReadySeconds, persistentVolumeClaimRetentionPolicy and
  ordinals to change): the StatefulSet is deleted with ``--cascade=orphan`` (its pods stay,
  without owner) and created again; the new object adopts the pods its selector matches.
* ``persistentVolumeClaimRetentionPolicy.whenScaled: Delete`` (KEP-1847, GA in v1.32): the claims
  of pods removed by a scale-down are deleted with them.
* Deleting a claim: with reclaim policy ``Delete`` the PV and its disk are deleted too; setting
  ``persistentVolumeReclaimPolicy: Retain`` first keeps the volume (Released) for recovery
  ("Change the Reclaim Policy of a PersistentVolume", kubernetes.io docs).  The claim goes once
  no pod uses it (kubernetes.io/pvc-protection finalizer); the StatefulSet controller then
  creates the pod and a new claim from the volumeClaimTemplate (stateful_pod_control.go
  createMissingPersistentVolumeClaims), bound wherever the pod is scheduled.
* Uncordon: ``kubectl uncordon`` clears ``spec.unschedulable`` (kubectl/pkg/drain/cordon.go); the
  NodeUnschedulable filter then passes (nodeunschedulable/node_unschedulable.go) and the node
  lifecycle controller removes its ``node.kubernetes.io/unschedulable`` taint.
* A toleration lets a pod past TaintToleration's filter for NoSchedule/NoExecute taints
  (tainttoleration/taint_toleration.go, v1helper.TolerationsTolerateTaint); it does not steer
  pods to the tainted nodes.
* Requests are what NodeResourcesFit counts (noderesources/fit.go), whatever the pods use; a pod
  whose containers all have requests equal to cpu and memory limits is Guaranteed
  (qos GetPodQOS); an HPA's Utilization target is a percentage of the request
  (podautoscaler/replica_calculator.go GetResourceReplicas).
* The HPA writes the scale subresource itself, clamped to [minReplicas, maxReplicas]
  (podautoscaler/horizontal.go reconcileAutoscaler, normalizeDesiredReplicas).
"""

from __future__ import annotations

import copy
import json
import math
import re
import shlex
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from shlex import quote as q
from typing import Any

from planner.controllers.daemon import daemon_pods_for_node, is_host_network
from planner.controllers.intstr import scaled_value
from planner.controllers.nodegroups import GROUP_LABELS, LABEL_INSTANCE_TYPE, NodeGroup, is_transient_taint, node_groups
from planner.domain import (
    CONTROLLER_LABELS,
    LABEL_CONTROLLER_REVISION_HASH,
    LABEL_HOSTNAME,
    LABEL_POD_TEMPLATE_HASH,
    LABEL_ZONE,
    Deployment,
    Node,
    StatefulSet,
    Taint,
)
from planner.engines.capacity import group_unusable
from planner.engines.remediation.actions import Action, Cost, ObjectPatch
from planner.engines.remediation.jsonpatch import escape
from planner.engines.remediation.verify import Goal, pod_identity
from planner.engines.workloads import WorkloadRef, find_workload, is_running
from planner.matching import find_untolerated_taint, pod_matches_node_selector_and_affinity
from planner.snapshot import Snapshot

# label keys that scope a selector to one release of an app, most specific first
SCOPING_KEYS = (
    "release",
    "app.kubernetes.io/instance",
    "version",
    "app.kubernetes.io/version",
    "color",
    "colour",
    "track",
    "slot",
    "deployment",
)
MAX_ADDED_PER_ZONE = 3  # new nodes per node group (per zone)
NODE_ACTION = "scale-node-group"
CLUSTER_ACTIONS = (NODE_ACTION, "uncordon")  # change nodes, not a workload: proposed once for a replay goal
TSC = "/spec/template/spec/topologySpreadConstraints"
ANTI = "/spec/template/spec/affinity/podAntiAffinity"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


@dataclass
class Failure:
    """Why the goal fails, as the candidates need it."""

    plugins: set[str] = field(default_factory=set)
    pinned: list[tuple[str | None, str]] = field(default_factory=list)  # (pod key or None, claim key)
    text: str = ""
    stuck: list[str] = field(default_factory=list)  # replay goals: the workloads of the stuck pods (str(ref))


@dataclass
class Context:
    """The workload whose objects the candidates change: the goal's, or (replay goals) each
    workload involved in the steps.  ``manifest``: the workload does not exist yet, a ``create:``
    step of the replay makes it from this manifest (``built``: as the replay reads it), so its
    candidates change that manifest before it is applied (``create`` patches: the corrected
    object) and restart nothing."""

    snap: Snapshot
    goal: Goal
    failure: Failure
    target: WorkloadRef | None = None
    manifest: dict | None = None
    built: Deployment | StatefulSet | None = None
    step: int = 0

    @property
    def ref(self) -> WorkloadRef:
        return self.target or self.goal.ref

    @property
    def obj(self) -> Deployment | StatefulSet:
        if self.manifest is not None and self.built is not None:
            return self.built
        return find_workload(self.snap, self.ref)

    @property
    def raw(self) -> dict:
        if self.manifest is not None:
            return self.manifest
        return self.snap.raw[(self.ref.kind, self.ref.key)]

    @property
    def resource(self) -> str:
        return self.ref.kind.lower()

    @cached_property
    def running(self) -> int:
        """The workload's running pods (counted once: each candidate's cost asks for it, and the
        snapshot a context is made for is never changed)."""
        if self.manifest is not None:
            return 0
        return sum(1 for p in self.snap.owned_pods(self.ref.kind, self.ref.key) if is_running(p))

    @property
    def revision_key(self) -> str:
        return LABEL_POD_TEMPLATE_HASH if self.ref.kind == "Deployment" else LABEL_CONTROLLER_REVISION_HASH

    def domains(self, key: str) -> int:
        return len({n.labels[key] for n in self.snap.nodes.values() if key in n.labels})

    def workload_patch(self, ops: list[Any]) -> ObjectPatch:
        return ObjectPatch(self.ref.kind, self.ref.namespace, self.ref.name, "json", ops)

    def roll_effect(self) -> str:
        what = "ReplicaSet" if self.ref.kind == "Deployment" else "revision"
        return (
            f"changes the pod template: rolls every pod of {self.ref.kind} {self.ref.key} (a new {what}; "
            f"{self.running} running pod(s) are replaced under the update strategy)"
        )


def generate(ctx: Context, nodes: bool = True) -> list[Action]:
    """Every candidate for the goal, cheapest variant of each family first.  ``nodes``: include
    scale-node-group (a replay goal asks for them once, not per workload)."""
    out: list[Action] = []
    plugins = ctx.failure.plugins
    if "PodTopologySpread" in plugins:
        out += spread_candidates(ctx)
    if "InterPodAffinity" in plugins:
        out += anti_affinity_candidates(ctx)
    if plugins & {"VolumeBinding", "VolumeZone"} and ctx.manifest is None:
        out += delete_pvc_candidates(ctx)
    if ctx.ref.kind == "Deployment":
        out += strategy_candidates(ctx)
    if ctx.ref.kind == "StatefulSet" and ctx.goal.kind in ("replicas", "scale"):
        out += pod_management_candidates(ctx)
        out += retention_candidates(ctx)
    if "TaintToleration" in plugins:
        out += add_toleration_candidates(ctx)
    if "NodeResourcesFit" in plugins:
        out += set_requests_candidates(ctx)
    if nodes and (_nodes_may_help(ctx) or plugins & {"VolumeBinding", "VolumeZone"}):
        out += uncordon_candidates(ctx)
    if nodes and _nodes_may_help(ctx):
        out += scale_node_group_candidates(ctx)
    if ctx.manifest is not None:
        out = [manifest_action(ctx, a) for a in out]
    return out


def replay_generate(snap: Snapshot, goal: Goal, failure: Failure, steps: list, watch: list[WorkloadRef]) -> list[Action]:
    """Candidates of a replay goal: those of every workload involved in the steps, the ones in
    the snapshot (patches, as for any goal) and the ones a ``create:`` step makes (their
    manifests, corrected before they are applied); scale-node-group and uncordon once, for the
    workload of the first stuck pod.  Families and conflicts are per workload."""
    from planner.engines.remediation.verify import step_objects

    made = step_objects(goal)
    built = {(kind, key): obj for st in steps if st.kind == "create" for kind, key, obj in st.args["objects"]}
    contexts: list[Context] = []
    for ref in watch:
        if ref.key in (snap.deployments if ref.kind == "Deployment" else snap.statefulsets):
            contexts.append(Context(snap, goal, failure, target=ref))
        elif (ref.kind, ref.key) in made and (ref.kind, ref.key) in built:
            n, manifest = made[(ref.kind, ref.key)]
            contexts.append(Context(snap, goal, failure, target=ref, manifest=manifest, built=built[(ref.kind, ref.key)], step=n))
    if not contexts:
        return []
    nodes_for = next((c for c in contexts if str(c.ref) in failure.stuck), contexts[0])
    out: list[Action] = []
    for c in contexts:
        for a in generate(c, nodes=c is nodes_for):
            if a.type not in CLUSTER_ACTIONS:
                a.family = f"{c.ref}|{a.family}"
                if not a.conflict.startswith("manifest:"):
                    a.conflict = f"{c.ref}|{a.conflict}"
            out.append(a)
    return out


def manifest_action(ctx: Context, a: Action) -> Action:
    """``a``, made for a workload that a ``create:`` step makes, as a change of that step's
    manifest: the JSON patch ops on the workload are applied to the manifest and the corrected
    object is a ``create`` patch (the object the step will create); ``params.manifest_patch``
    holds the ops, which ``kubectl patch --local -f MANIFEST --type json`` applies to the user's
    own file.  Nothing runs yet: nothing restarts."""
    from planner.engines.remediation.jsonpatch import apply_json_patch

    if a.type in CLUSTER_ACTIONS:
        return a
    body = copy.deepcopy(ctx.manifest) or {}
    ops: list[Any] = []
    rest: list[ObjectPatch] = []
    for p in a.patches:
        if p.type == "json" and (p.kind, p.namespace, p.name) == (ctx.ref.kind, ctx.ref.namespace, ctx.ref.name):
            body = apply_json_patch(body, p.body)
            ops += p.body
        else:
            rest.append(p)
    create = ObjectPatch(ctx.ref.kind, ctx.ref.namespace, ctx.ref.name, "create", body)
    where = f"step {ctx.step} of {ctx.goal.source or 'the steps'}"
    opsj = json.dumps(ops, separators=(",", ":"), ensure_ascii=False)
    commands = [
        f"# {ctx.ref} does not exist yet: {where} creates it. Change its manifest before it is applied:",
        f"# kubectl patch --local -f YOUR-{ctx.ref.name.upper()}-MANIFEST.yaml --type json -p {shlex.quote(opsj)} -o yaml",
        f"# the corrected object, for {where}: {create.kubectl()}",
    ]
    effects = [e for e in a.side_effects if not e.startswith("changes the pod template")]
    effects.insert(0, f"changes the {ctx.ref.name} manifest before it is applied ({where}); nothing running is restarted")
    return replace(
        a,
        summary=f"change the {ctx.ref.name} manifest before it is applied ({where}): {a.summary}",
        patches=[create, *rest],
        commands=commands,
        cost=replace(a.cost, pods_restarted=0),
        side_effects=effects,
        params={**a.params, "manifest_patch": ops, "step": ctx.step},
        conflict=f"manifest:{ctx.ref}",
        rolls_template=False,
    )


# --------------------------------------------------------------------------- spread


def _selector_keys(sel: Any) -> set[str]:
    if not isinstance(sel, dict):
        return set()
    keys = set((sel.get("matchLabels") or {}).keys())
    keys |= {e.get("key") for e in sel.get("matchExpressions") or [] if isinstance(e, dict)}
    return keys


def _scoping_keys(ctx: Context, selector: Any, exclude: set[str]) -> list[str]:
    """Template label keys that would scope ``selector`` to this workload: those that leave out
    pods of other workloads it counts now, else the conventional release/version/colour keys."""
    labels = dict(ctx.obj.template.labels)
    candidates = [k for k in labels if k not in exclude and k not in CONTROLLER_LABELS]
    if not candidates:
        return []
    from planner.convert import label_selector as convert_selector

    try:
        sel = convert_selector(selector) if selector is not None else None
    except Exception:  # a selector validation accepted but we cannot read: no narrowing
        sel = None
    own = {p.key for p in ctx.snap.owned_pods(ctx.ref.kind, ctx.ref.key)}
    foreign = [
        p
        for p in ctx.snap.pods_of_namespace(ctx.ref.namespace)
        if sel is not None and p.key not in own and not p.terminal and sel.matches(p.labels)
    ]
    useful = [k for k in candidates if foreign and any(p.labels.get(k) != labels[k] for p in foreign)]
    conventional = [k for k in SCOPING_KEYS if k in candidates and k not in useful]
    return (useful + conventional)[:3]


def spread_candidates(ctx: Context) -> list[Action]:
    out: list[Action] = []
    spec = (ctx.raw.get("spec") or {}).get("template", {}).get("spec") or {}
    tscs = spec.get("topologySpreadConstraints") or []
    for i, c in enumerate(tscs):
        if not isinstance(c, dict) or c.get("whenUnsatisfiable") != "DoNotSchedule":
            continue
        key, skew = str(c.get("topologyKey")), int(c.get("maxSkew") or 1)
        base = f"{TSC}/{i}"
        guard: list[Any] = [
            {"op": "test", "path": f"{base}/topologyKey", "value": key},
            {"op": "test", "path": f"{base}/whenUnsatisfiable", "value": "DoNotSchedule"},
        ]
        where = f"topologySpreadConstraints[{i}] ({key})"
        soft = max(2, ctx.domains(key))
        restarts = ctx.running
        # set-when-unsatisfiable
        if not any(isinstance(o, dict) and o.get("topologyKey") == key and o.get("whenUnsatisfiable") == "ScheduleAnyway" for o in tscs):
            ops = list(guard)
            changes = 1
            if "minDomains" in c:
                ops += [{"op": "test", "path": f"{base}/minDomains", "value": c["minDomains"]}, {"op": "remove", "path": f"{base}/minDomains"}]
                changes += 1
            ops.append({"op": "replace", "path": f"{base}/whenUnsatisfiable", "value": "ScheduleAnyway"})
            out.append(
                _template_action(
                    ctx,
                    "set-when-unsatisfiable",
                    f"make {where} of {ctx.ref} a preference: whenUnsatisfiable DoNotSchedule -> ScheduleAnyway",
                    ops,
                    Cost(spread_weakened=soft, label_changes=changes, pods_restarted=restarts),
                    [f"the spread on {key} is no longer enforced: kube-scheduler only prefers nodes that lower the skew"]
                    + (["minDomains is removed (valid only with DoNotSchedule)"] if "minDomains" in c else []),
                    {"topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway"},
                    family=f"swu:{i}",
                    conflict=f"spread:{i}",
                )
            )
        # raise-max-skew: a ladder, the smallest value that works wins
        for new in (skew + 1, skew + 2, skew + 3):
            ops = guard + [
                {"op": "test", "path": f"{base}/maxSkew", "value": skew},
                {"op": "replace", "path": f"{base}/maxSkew", "value": new},
            ]
            out.append(
                _template_action(
                    ctx,
                    "raise-max-skew",
                    f"allow more imbalance on {key}: {where} maxSkew {skew} -> {new}",
                    ops,
                    Cost(spread_weakened=new - skew, label_changes=1, pods_restarted=restarts),
                    [f"pods of {ctx.ref} may be up to {new} apart between {key} domains (was {skew})"],
                    {"topologyKey": key, "maxSkew": new},
                    family=f"rms:{i}",
                    conflict=f"spread:{i}",
                )
            )
        selector = c.get("labelSelector")
        in_selector = _selector_keys(selector)
        mlk = list(c.get("matchLabelKeys") or [])
        labels = dict(ctx.obj.template.labels)
        # narrow-spread-selector
        if isinstance(selector, dict):
            for k in _scoping_keys(ctx, selector, in_selector | set(mlk)):
                add: dict[str, Any]
                if "matchLabels" in selector:
                    add = {"op": "add", "path": f"{base}/labelSelector/matchLabels/{escape(k)}", "value": labels[k]}
                else:
                    add = {"op": "add", "path": f"{base}/labelSelector/matchLabels", "value": {k: labels[k]}}
                ops = guard + [{"op": "test", "path": f"{base}/labelSelector", "value": selector}, add]
                out.append(
                    _template_action(
                        ctx,
                        "narrow-spread-selector",
                        f"scope {where} of {ctx.ref} to its own pods: add {k}={labels[k]} to the labelSelector",
                        ops,
                        Cost(label_changes=1, pods_restarted=restarts),
                        [f"pods without {k}={labels[k]} (other releases of the app) no longer count for this spread"],
                        {"topologyKey": key, "add_match_labels": {k: labels[k]}},
                        family=f"nss:{i}:{k}",
                        conflict=f"spread:{i}",
                    )
                )
                out[-1].group = "|".join((ctx.ref.namespace, key, json.dumps(selector, sort_keys=True), k))
        # add-match-label-keys
        for k in [ctx.revision_key] + _scoping_keys(ctx, selector, in_selector | set(mlk) | {ctx.revision_key}):
            if k in mlk or k in in_selector:
                continue
            if mlk:
                ops = guard + [{"op": "test", "path": f"{base}/matchLabelKeys", "value": mlk}, {"op": "add", "path": f"{base}/matchLabelKeys/-", "value": k}]
            else:
                ops = guard + [{"op": "add", "path": f"{base}/matchLabelKeys", "value": [k]}]
            what = "each revision is spread on its own" if k == ctx.revision_key else f"only pods with the same {k} count"
            out.append(
                _template_action(
                    ctx,
                    "add-match-label-keys",
                    f"add matchLabelKeys [{k}] to {where} of {ctx.ref}: {what}",
                    ops,
                    Cost(label_changes=1, pods_restarted=restarts),
                    [f"pods with another value of {k} no longer count for this spread"],
                    {"topologyKey": key, "keys": [k]},
                    family=f"mlk:{i}:{k}",
                    conflict=f"spread:{i}",
                )
            )
    return out


# --------------------------------------------------------------------------- anti-affinity


def anti_affinity_candidates(ctx: Context) -> list[Action]:
    out: list[Action] = []
    spec = (ctx.raw.get("spec") or {}).get("template", {}).get("spec") or {}
    anti = ((spec.get("affinity") or {}).get("podAntiAffinity")) or {}
    required = anti.get(REQUIRED) or []
    preferred = anti.get(PREFERRED)
    for j, term in enumerate(required):
        if not isinstance(term, dict):
            continue
        key = str(term.get("topologyKey"))
        where = f"podAntiAffinity.required[{j}] ({key})"
        # relax-anti-affinity: required -> preferred (weight 100)
        if len(required) == 1:
            ops = [{"op": "test", "path": f"{ANTI}/{REQUIRED}", "value": required}, {"op": "remove", "path": f"{ANTI}/{REQUIRED}"}]
        else:
            ops = [{"op": "test", "path": f"{ANTI}/{REQUIRED}/{j}", "value": term}, {"op": "remove", "path": f"{ANTI}/{REQUIRED}/{j}"}]
        moved = {"weight": 100, "podAffinityTerm": term}
        if isinstance(preferred, list):
            ops.append({"op": "add", "path": f"{ANTI}/{PREFERRED}/-", "value": moved})
        else:
            ops.append({"op": "add", "path": f"{ANTI}/{PREFERRED}", "value": [moved]})
        out.append(
            _template_action(
                ctx,
                "relax-anti-affinity",
                f"make {where} of {ctx.ref} preferred (weight 100) instead of required",
                ops,
                Cost(spread_weakened=max(2, ctx.domains(key)), label_changes=1, pods_restarted=ctx.running),
                [
                    f"pods of {ctx.ref} may share a {key} domain when there is no other room (a failure there takes several)",
                    "pods still running the old template keep the required term and repel new pods until they are replaced",
                ],
                {"topologyKey": key, "weight": 100},
                family=f"raa:{j}",
                conflict=f"anti:{j}",
            )
        )
        # add-match-label-keys on the term: each revision repels only its own pods
        sel = term.get("labelSelector")
        mlk = list(term.get("matchLabelKeys") or [])
        k = ctx.revision_key
        if isinstance(sel, dict) and k not in mlk and k not in _selector_keys(sel):
            base = f"{ANTI}/{REQUIRED}/{j}"
            guard: list[Any] = [{"op": "test", "path": f"{base}/topologyKey", "value": key}, {"op": "test", "path": f"{base}/labelSelector", "value": sel}]
            if mlk:
                ops = guard + [{"op": "test", "path": f"{base}/matchLabelKeys", "value": mlk}, {"op": "add", "path": f"{base}/matchLabelKeys/-", "value": k}]
            else:
                ops = guard + [{"op": "add", "path": f"{base}/matchLabelKeys", "value": [k]}]
            out.append(
                _template_action(
                    ctx,
                    "add-match-label-keys",
                    f"add matchLabelKeys [{k}] to {where} of {ctx.ref}: pods repel only pods of their own revision",
                    ops,
                    Cost(label_changes=1, pods_restarted=ctx.running),
                    ["during a rollout an old and a new pod may share a domain"],
                    {"topologyKey": key, "keys": [k], "term": "podAntiAffinity"},
                    family=f"mlka:{j}",
                    conflict=f"anti:{j}",
                )
            )
    return out


# --------------------------------------------------------------------------- volumes


def delete_pvc_candidates(ctx: Context) -> list[Action]:
    out: list[Action] = []
    obj = ctx.obj
    if not isinstance(obj, StatefulSet):
        return out  # a Deployment's claim is named in its template: deleting it cannot move the pod
    prefixes = tuple(f"{t.name}-{obj.name}-" for t in obj.volume_claim_templates)
    seen: set[str] = set()
    for pod_key, claim_key in ctx.failure.pinned:
        if claim_key in seen:
            continue
        seen.add(claim_key)
        pvc = ctx.snap.pvcs.get(claim_key)
        if pvc is None or not pvc.name.startswith(prefixes):
            continue
        patches: list[ObjectPatch] = []
        commands = [f"kubectl get pvc {q(pvc.name)} -n {q(pvc.namespace)} -o yaml > {q(f'pvc-{pvc.name}.backup.yaml')}"]
        effects: list[str] = []
        pv = ctx.snap.pvs.get(pvc.volume_name) if pvc.volume_name else None
        changes = 0
        if pv is not None:
            if pv.reclaim_policy != "Retain":
                ops = [
                    {"op": "test", "path": "/spec/persistentVolumeReclaimPolicy", "value": pv.reclaim_policy},
                    {"op": "replace", "path": "/spec/persistentVolumeReclaimPolicy", "value": "Retain"},
                ]
                p = ObjectPatch("PersistentVolume", None, pv.name, "json", ops)
                patches.append(p)
                commands.append(p.kubectl())
                changes += 1
                effects.append(
                    f"deletes the data on PV {pv.name} unless its reclaim policy is set to Retain first (the first patch does; "
                    f"the PV is then kept, Released, until you delete it)"
                )
            else:
                effects.append(f"PV {pv.name} has reclaim policy Retain: it is kept (Released) with the old data until you delete it")
        raw_pvc = ctx.snap.raw.get(("PersistentVolumeClaim", claim_key))
        patches.append(ObjectPatch("PersistentVolumeClaim", pvc.namespace, pvc.name, "delete", raw_pvc, wait=False))
        commands.append(patches[-1].kubectl())
        pod = ctx.snap.pods.get(pod_key) if pod_key else None
        if pod is not None:
            patches.append(ObjectPatch("Pod", pod.namespace, pod.name, "delete", ctx.snap.raw.get(("Pod", pod.key)) or pod_identity(pod)))
            commands.append(patches[-1].kubectl())
            effects.append(f"pod {pod.key} is recreated by the StatefulSet controller with a new, empty claim {pvc.name}")
        commands.append(f"kubectl wait --for=delete {q('pvc/' + pvc.name)} -n {q(pvc.namespace)} --timeout=300s")
        effects.append(
            "if the controller recreates the pod before the old claim is gone, the pod waits for it: delete the pod once more "
            "after the claim is gone"
        )
        where = pod.name if pod is not None else f"ordinal {pvc.name.rsplit('-', 1)[-1]}"
        out.append(
            Action(
                type="delete-pvc",
                target=f"persistentvolumeclaim/{claim_key}",
                summary=f"delete PVC {claim_key}" + (f" and pod {pod.key}" if pod is not None else "")
                + f": the StatefulSet controller recreates {where} with a new volume wherever it can be scheduled",
                patches=patches,
                commands=commands,
                cost=Cost(data_loss=1, label_changes=changes, pods_restarted=1 if pod is not None and is_running(pod) else 0),
                side_effects=effects,
                params={"claim": claim_key, "pv": pv.name if pv else None},
                risks=[
                    f"data loss: the data of claim {claim_key} is gone for the workload: the pod starts on a new, empty volume"
                    + (f" (PV {pv.name} is kept, Released, for recovery by hand)" if pv is not None else ""),
                    f"availability: {where} is down until the new pod and its new volume are up, and its data must be rebuilt "
                    "(replication, restore)",
                ],
                family=f"dpvc:{claim_key}",
                conflict=f"dpvc:{claim_key}",
            )
        )
    return out


# --------------------------------------------------------------------------- rollout strategy


def _percent(k: int, total: int) -> str:
    return f"{math.ceil(100 * k / total)}%"


def strategy_candidates(ctx: Context) -> list[Action]:
    obj = ctx.obj
    assert isinstance(obj, Deployment)
    raw_strategy = (ctx.raw.get("spec") or {}).get("strategy") or {}
    if raw_strategy.get("type") != "RollingUpdate" or obj.rolling_update is None:
        return []
    r = ctx.goal.replicas if ctx.goal.kind in ("replicas", "scale") and ctx.goal.replicas else obj.replicas
    if r <= 0:
        return []
    ru = raw_strategy.get("rollingUpdate") or {}
    s, u = ru.get("maxSurge"), ru.get("maxUnavailable")
    su = scaled_value(s, r, True)
    uu = scaled_value(u, r, False)
    out: list[Action] = []
    head: list[Any] = [{"op": "test", "path": "/spec/strategy/type", "value": "RollingUpdate"}]
    for k in (uu + 1, uu + 2):
        if k > r:
            break
        value: int | str = _percent(k, r) if isinstance(u, str) else k
        ops = head + [
            {"op": "test", "path": "/spec/strategy/rollingUpdate/maxUnavailable", "value": u},
            {"op": "replace", "path": "/spec/strategy/rollingUpdate/maxUnavailable", "value": value},
        ]
        out.append(
            Action(
                type="set-rollout-strategy",
                target=str(ctx.ref),
                summary=f"let rollouts of {ctx.ref} take {k} pod(s) down at once: maxUnavailable {u} -> {value} ({k} of {r})",
                patches=[ctx.workload_patch(ops)],
                commands=[ctx.workload_patch(ops).kubectl()],
                cost=Cost(availability_risk=k - uu, label_changes=1),
                side_effects=[f"during every rollout up to {k} of {r} pod(s) of {ctx.ref} may be unavailable (was {uu})"],
                params={"maxUnavailable": value},
                family="rs-unavailable",
                conflict="strategy",
            )
        )
    if su > 0:
        nu = max(uu, 1)
        ops = head + [
            {"op": "test", "path": "/spec/strategy/rollingUpdate/maxSurge", "value": s},
            {"op": "test", "path": "/spec/strategy/rollingUpdate/maxUnavailable", "value": u},
            {"op": "replace", "path": "/spec/strategy/rollingUpdate/maxSurge", "value": 0},
            {"op": "replace", "path": "/spec/strategy/rollingUpdate/maxUnavailable", "value": nu},
        ]
        out.append(
            Action(
                type="set-rollout-strategy",
                target=str(ctx.ref),
                summary=f"roll {ctx.ref} without surge pods: maxSurge {s} -> 0, maxUnavailable {u} -> {nu} (an old pod goes before its replacement comes)",
                patches=[ctx.workload_patch(ops)],
                commands=[ctx.workload_patch(ops).kubectl()],
                cost=Cost(availability_risk=nu - uu, label_changes=2),
                side_effects=[f"during every rollout {nu} of {r} pod(s) of {ctx.ref} may be unavailable and no extra pod is created"],
                params={"maxSurge": 0, "maxUnavailable": nu},
                family="rs-nosurge",
                conflict="strategy",
            )
        )
    ops = [{"op": "test", "path": "/spec/strategy", "value": raw_strategy}, {"op": "replace", "path": "/spec/strategy", "value": {"type": "Recreate"}}]
    out.append(
        Action(
            type="set-rollout-strategy",
            target=str(ctx.ref),
            summary=f"roll {ctx.ref} with the Recreate strategy: every old pod is stopped before new ones start",
            patches=[ctx.workload_patch(ops)],
            commands=[ctx.workload_patch(ops).kubectl()],
            cost=Cost(availability_risk=r - uu, label_changes=1),
            side_effects=[f"every rollout of {ctx.ref} is an outage: all {r} pods stop before the new ones start"],
            params={"type": "Recreate"},
            family="rs-recreate",
            conflict="strategy",
        )
    )
    return out


# --------------------------------------------------------------------------- StatefulSet policies


def _recreate_body(raw: dict) -> dict:
    body = copy.deepcopy(raw)
    body.pop("status", None)
    md = body.get("metadata") or {}
    for k in ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"):
        md.pop(k, None)
    return body


def pod_management_candidates(ctx: Context) -> list[Action]:
    obj = ctx.obj
    if not isinstance(obj, StatefulSet) or obj.pod_management_policy != "OrderedReady":
        return []
    raw = ctx.raw
    body = _recreate_body(raw)
    body["spec"]["podManagementPolicy"] = "Parallel"
    delete = ObjectPatch("StatefulSet", obj.namespace, obj.name, "delete", raw, propagation="Orphan")
    create = ObjectPatch("StatefulSet", obj.namespace, obj.name, "create", body)
    return [
        Action(
            type="set-pod-management-policy",
            target=str(ctx.ref),
            summary=f"recreate {ctx.ref} with podManagementPolicy Parallel (an immutable field): delete it with --cascade=orphan, create it again",
            patches=[delete, create],
            commands=[
                f"kubectl get statefulset {q(obj.name)} -n {q(obj.namespace)} -o yaml > {q(f'statefulset-{obj.name}.backup.yaml')}",
                delete.kubectl(),
                create.kubectl(),
            ],
            cost=Cost(label_changes=1),
            side_effects=[
                f"StatefulSet {obj.key} is deleted and created again; its pods keep running, orphaned, until the new object adopts them",
                "while it is gone nothing recreates a pod that fails; claims and their data stay",
                "pods are then created and deleted in parallel, not one ordinal at a time",
            ],
            params={"podManagementPolicy": "Parallel"},
            risks=[
                f"availability: between the delete and the create nothing recreates a pod of {obj.key} that fails or is "
                "evicted, and a failed create leaves its pods without a controller until it is created again from the backup",
            ],
            family="spmp",
            conflict="spmp",
        )
    ]


def retention_candidates(ctx: Context) -> list[Action]:
    obj = ctx.obj
    if not isinstance(obj, StatefulSet) or ctx.goal.kind != "scale" or obj.retention_when_scaled != "Retain" or ctx.goal.replicas is None:
        return []
    n = ctx.goal.replicas
    doomed = [
        k
        for k in ctx.snap.pvcs
        for t in obj.volume_claim_templates
        if k.startswith(f"{obj.namespace}/{t.name}-{obj.name}-") and k.rsplit("-", 1)[-1].isdigit() and int(k.rsplit("-", 1)[-1]) >= n
    ]
    raw_policy = (ctx.raw.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {}
    ops = [
        {"op": "test", "path": "/spec/persistentVolumeClaimRetentionPolicy", "value": raw_policy},
        {"op": "replace", "path": "/spec/persistentVolumeClaimRetentionPolicy", "value": {**raw_policy, "whenScaled": "Delete"}},
    ]
    p = ctx.workload_patch(ops)
    return [
        Action(
            type="set-pvc-retention-policy",
            target=str(ctx.ref),
            summary=f"delete the claims of pods a scale-down removes: persistentVolumeClaimRetentionPolicy.whenScaled Retain -> Delete on {ctx.ref}",
            patches=[p],
            commands=[p.kubectl()],
            cost=Cost(data_loss=len(doomed), label_changes=1),
            side_effects=[
                "a scale-down deletes the claims (and, with reclaim policy Delete, the data) of the ordinals it removes",
                "claims retained before the change keep no owner and stay",
            ],
            params={"whenScaled": "Delete"},
            family="spvc",
            conflict="spvc",
        )
    ]


# --------------------------------------------------------------------------- uncordon


UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
MAX_UNCORDON = 6  # cordoned nodes proposed, most room first
# taints that say a node is on its way out (a drain, a scale-down, a disruption): never uncordoned
DRAINING_TAINTS = (
    "ToBeDeletedByClusterAutoscaler",
    "DeletionCandidateOfClusterAutoscaler",
    "karpenter.sh/disrupted",
    "karpenter.sh/disruption",
)


def uncordon_blocker(node: Node, raw: dict | None) -> str | None:
    """Why a cordoned node is not proposed for uncordon (None: it may be).  planner cannot see
    why a node was cordoned; it only refuses the nodes whose state says they are unhealthy or on
    their way out: NotReady (the Ready condition False), marked for deletion (deletionTimestamp),
    tainted by a scale-down or a disruption (cluster-autoscaler's ToBeDeletedByClusterAutoscaler and
    DeletionCandidateOfClusterAutoscaler, Karpenter's karpenter.sh/disrupted) or by the node
    lifecycle controller for a condition other than the cordon itself (not-ready, unreachable,
    memory/disk/pid pressure, network-unavailable, out-of-service, an uninitialized or shut-down
    cloud node)."""
    if not node.unschedulable:
        return "not cordoned"
    if node.ready is False:
        return "NotReady"
    if ((raw or {}).get("metadata") or {}).get("deletionTimestamp"):
        return "being deleted"
    for t in node.taints:
        if t.key in DRAINING_TAINTS:
            return f"tainted {t.key} (a scale-down or disruption under way)"
        if is_transient_taint(t) and t.key != UNSCHEDULABLE_TAINT:
            return f"tainted {t.key}"
    return None


def _used(snap: Snapshot) -> dict[str, dict[str, int]]:
    """Requests of the pods bound to each node (terminal pods hold nothing)."""
    used: dict[str, dict[str, int]] = {}
    for p in snap.pods.values():
        if not p.spec.node_name or p.terminal:
            continue
        u = used.setdefault(p.spec.node_name, {"pods": 0})
        u["pods"] += 1
        for r, v in p.spec.requests.items():
            u[r] = u.get(r, 0) + v
    return used


def uncordon_candidates(ctx: Context) -> list[Action]:
    """A cordoned node the workload's pods could use once it is schedulable again: the taints
    other than the cordon's own tolerated, the node selector and required node affinity matched,
    room for one pod (requests against allocatable); nodes that are NotReady or on their way out
    are never proposed (uncordon_blocker).  The patch removes ``spec.unschedulable``, as
    ``kubectl uncordon`` does (kubectl/pkg/drain/cordon.go: a merge patch dropping the field),
    guarded on the node's uid and on the cordon; the node lifecycle controller then removes the
    node.kubernetes.io/unschedulable taint (verify.load_changes)."""
    snap = ctx.snap
    cordoned = [n for n in snap.nodes.values() if n.unschedulable]
    if not cordoned:
        return []
    spec = ctx.obj.template.spec
    need = dict(spec.requests)
    used = _used(snap)
    found: list[tuple[int, str, Node]] = []
    for node in cordoned:
        if uncordon_blocker(node, snap.raw.get(("Node", node.name))) is not None:
            continue
        taints = [t for t in node.taints if t.key != UNSCHEDULABLE_TAINT]
        if find_untolerated_taint(taints, spec.tolerations) is not None or not pod_matches_node_selector_and_affinity(spec, node):
            continue
        u = used.get(node.name, {})
        free = {r: node.allocatable.get(r, 0) - u.get(r, 0) for r in set(need) | {"pods"}}
        if free["pods"] < 1 or any(free[r] < v for r, v in need.items() if v > 0):
            continue
        found.append((-free.get("cpu", 0), node.name, node))
    out: list[Action] = []
    for _, _, node in sorted(found)[:MAX_UNCORDON]:
        ops: list[Any] = []
        if node.uid:
            ops.append({"op": "test", "path": "/metadata/uid", "value": node.uid})
        ops += [{"op": "test", "path": "/spec/unschedulable", "value": True}, {"op": "remove", "path": "/spec/unschedulable"}]
        p = ObjectPatch("Node", None, node.name, "json", ops)
        zone = f" in {node.zone}" if node.zone else ""
        out.append(
            Action(
                type="uncordon",
                target=f"node/{node.name}",
                summary=f"uncordon node {node.name}{zone}: it is Ready, cordoned, and has room for pods of {ctx.ref}",
                patches=[p],
                commands=[f"# the same as kubectl uncordon {node.name}, refused if the node was replaced or uncordoned since the snapshot", p.kubectl()],
                cost=Cost(label_changes=1),
                side_effects=[
                    f"node {node.name} takes new pods again: any Pending pod that fits may land there, not only those of {ctx.ref}",
                    f"the node lifecycle controller removes its {UNSCHEDULABLE_TAINT} taint",
                ],
                params={"node": node.name, "zone": node.zone},
                assumes=[
                    f"the reason {node.name} was cordoned no longer holds: planner cannot see why it was (a drain or an upgrade "
                    "under way, a fault being investigated); the snapshot shows it Ready, not being deleted, and without a "
                    "drain, scale-down or node-condition taint"
                ],
                family=f"uncordon:{node.name}",
                conflict=f"uncordon:{node.name}",
            )
        )
    return out


# --------------------------------------------------------------------------- add-toleration


MAX_TOLERATION_SETS = 4
CONTROL_PLANE_TAINTS = ("node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master")


def tolerable(t: Taint) -> bool:
    """May add-toleration propose tolerating this taint?  Never a taint the cluster sets for a
    node's state (node.kubernetes.io/*: not-ready, unreachable, unschedulable, pressure, ...;
    cluster-autoscaler's and the cloud provider's transient ones: is_transient_taint): tolerating
    those puts pods on nodes that are failing, cordoned or going away.  Never the control plane's."""
    return not (t.key.startswith("node.kubernetes.io/") or is_transient_taint(t) or t.key in CONTROL_PLANE_TAINTS or t.key in DRAINING_TAINTS)


def _toleration(t: Taint) -> dict[str, Any]:
    if t.value:
        return {"key": t.key, "operator": "Equal", "value": t.value, "effect": t.effect}
    return {"key": t.key, "operator": "Exists", "effect": t.effect}


def _taint_text(t: Taint) -> str:
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


def add_toleration_candidates(ctx: Context) -> list[Action]:
    """Tolerations for the taints that keep the workload's pods off schedulable nodes they
    otherwise match (node selector, required node affinity): one candidate per set of taints a
    node carries, the sets of the most nodes first.  A toleration is a policy decision (someone
    set those nodes apart) and only permits, never attracts (TaintToleration filters,
    tainttoleration/taint_toleration.go); flagged as such.  Taints of a node's state are never
    tolerated (tolerable)."""
    spec = ctx.obj.template.spec
    sets: dict[tuple[Taint, ...], list[str]] = {}
    for node in ctx.snap.nodes.values():
        if node.unschedulable or node.ready is False:
            continue
        taints = tuple(t for t in node.taints if t.effect in ("NoSchedule", "NoExecute") and find_untolerated_taint([t], spec.tolerations) is not None)
        if not taints or not all(tolerable(t) for t in taints) or not pod_matches_node_selector_and_affinity(spec, node):
            continue
        sets.setdefault(tuple(sorted(set(taints), key=lambda t: (t.key, t.value, t.effect))), []).append(node.name)
    if not sets:
        return []
    raw_spec = ((ctx.raw.get("spec") or {}).get("template") or {}).get("spec") or {}
    raw_tols = raw_spec.get("tolerations")
    labels = (((ctx.raw.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}
    generation = (ctx.raw.get("metadata") or {}).get("generation")
    out: list[Action] = []
    ranked = sorted(sets.items(), key=lambda kv: (-len(kv[1]), [_taint_text(t) for t in kv[0]]))
    for taints, nodes in ranked[:MAX_TOLERATION_SETS]:
        tols = [_toleration(t) for t in taints]
        guard: list[Any] = [{"op": "test", "path": "/spec/template/metadata/labels", "value": labels}]
        if isinstance(generation, int):
            guard.insert(0, {"op": "test", "path": "/metadata/generation", "value": generation})
        if isinstance(raw_tols, list):
            ops = guard + [{"op": "test", "path": "/spec/template/spec/tolerations", "value": raw_tols}]
            ops += [{"op": "add", "path": "/spec/template/spec/tolerations/-", "value": t} for t in tols]
        else:
            ops = guard + [{"op": "add", "path": "/spec/template/spec/tolerations", "value": tols}]
        text = ", ".join(_taint_text(t) for t in taints)
        shown = ", ".join(nodes[:3]) + (f" and {len(nodes) - 3} more" if len(nodes) > 3 else "")
        a = _template_action(
            ctx,
            "add-toleration",
            f"let the pods of {ctx.ref} tolerate {text} (a policy decision: {len(nodes)} node(s) carry it: {shown})",
            ops,
            Cost(assumptions=1, label_changes=len(tols), pods_restarted=ctx.running),
            [
                f"a policy decision: the taint {text} sets {len(nodes)} node(s) apart ({shown}), e.g. a dedicated or special-hardware "
                f"pool; pods of {ctx.ref} may then run there beside the pods it was kept for",
                "a toleration permits, it does not attract: the pods still go wherever else they fit first (add a node affinity to "
                "steer them)",
            ]
            + (["NoExecute tolerated without tolerationSeconds: the pods stay however long the taint does"] if any(t.effect == "NoExecute" for t in taints) else []),
            {"tolerations": tols, "nodes": len(nodes)},
            family=f"tol:{text}",
            conflict="tolerations",
        )
        a.policy_decision = True
        a.assumes = [f"the owners of the nodes tainted {text} agree that {ctx.ref} runs there: the taint is a policy planner cannot judge"]
        out.append(a)
    return out


# --------------------------------------------------------------------------- set-requests


REQUEST_FACTORS = (Fraction(3, 4), Fraction(1, 2))  # the requests lowered to 3/4, then 1/2: the smallest that works


def _format_request(resource: str, value: int) -> str:
    """cpu in millicores ("750m", "2"), memory in whole MiB ("3Gi", "768Mi")."""
    if resource == "cpu":
        return str(value // 1000) if value % 1000 == 0 else f"{value}m"
    mib = value // 2**20
    return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"


def _lowered(resource: str, old: int, f: Fraction) -> int:
    if resource == "cpu":
        return max(1, math.floor(old * f))
    return max(2**20, math.floor(old * f) // 2**20 * 2**20)


def _short_resources(ctx: Context) -> list[str]:
    """The resources NodeResourcesFit found short: those the failure names (cpu, memory), else both."""
    text = ctx.failure.text
    named = [r for r in ("cpu", "memory") if re.search(rf"\b{r}\b", text)]
    return named or ["cpu", "memory"]


def _guaranteed(containers: list) -> bool:
    """The Guaranteed QoS class (pkg/apis/core/helper/qos GetPodQOS): every container has cpu and
    memory limits, and its requests (defaulted to the limits) equal them."""
    from planner.convert import quantity

    for c in containers:
        res = (c.get("resources") or {}) if isinstance(c, dict) else {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for r in ("cpu", "memory"):
            if r not in lim or quantity(r, req.get(r, lim[r])) != quantity(r, lim[r]):
                return False
    return bool(containers)


def set_requests_candidates(ctx: Context) -> list[Action]:
    """The workload's container requests of the resources found short lowered to 3/4, then 1/2 of
    what they are (the first that works).  Advisory: planner has no usage metrics, so whether the
    pods use less than the new requests is an assumption it names; a pod using more than it
    requests competes for the node's spare (cpu is throttled under contention; memory over the
    request makes it among the first evicted under memory pressure, kubelet eviction ranking)."""
    raw_spec = ((ctx.raw.get("spec") or {}).get("template") or {}).get("spec") or {}
    containers = raw_spec.get("containers") or []
    from planner.convert import quantity

    short = [r for r in _short_resources(ctx) if any(r in ((c.get("resources") or {}).get("requests") or {}) for c in containers if isinstance(c, dict))]
    if not short:
        return []
    hpa = ctx.snap.hpa_for(ctx.ref.kind, ctx.ref.namespace, ctx.ref.name) if ctx.manifest is None else None
    hpa_raw = ctx.snap.raw.get(("HorizontalPodAutoscaler", hpa.key)) if hpa is not None else None
    util = {
        str((m.get("resource") or {}).get("name"))
        for m in ((hpa_raw or {}).get("spec") or {}).get("metrics") or []
        if isinstance(m, dict) and m.get("type") == "Resource" and ((m.get("resource") or {}).get("target") or {}).get("type") == "Utilization"
    }
    guaranteed = _guaranteed(containers)
    out: list[Action] = []
    for f in REQUEST_FACTORS:
        ops: list[Any] = []
        changed: dict[str, dict[str, str]] = {}
        for i, c in enumerate(containers):
            if not isinstance(c, dict):
                continue
            req = (c.get("resources") or {}).get("requests") or {}
            for r in short:
                if r not in req:
                    continue
                old = quantity(r, req[r])
                new = _lowered(r, old, f)
                if new >= old:
                    continue
                base = f"/spec/template/spec/containers/{i}"
                if not any(o["path"] == f"{base}/name" for o in ops):
                    ops.append({"op": "test", "path": f"{base}/name", "value": c.get("name")})
                ops += [
                    {"op": "test", "path": f"{base}/resources/requests/{r}", "value": req[r]},
                    {"op": "replace", "path": f"{base}/resources/requests/{r}", "value": _format_request(r, new)},
                ]
                changed.setdefault(str(c.get("name")), {})[r] = f"{req[r]} -> {_format_request(r, new)}"
        if not changed:
            continue
        what = "; ".join(f"{name}: {', '.join(f'{r} {v}' for r, v in rs.items())}" for name, rs in changed.items())
        pct = f"{f.numerator * 100 // f.denominator}%"
        effects = [
            f"the scheduler reserves less for each pod of {ctx.ref} ({what}): nodes pack more of them",
            "a pod that uses more than its request competes for the node's spare: cpu is throttled under contention; memory "
            "above the request puts it among the first evicted when the node runs short",
        ]
        if guaranteed:
            effects.append("requests below limits: the pods are no longer of the Guaranteed QoS class (Burstable: evicted before Guaranteed pods)")
        lowered_util = sorted(util & set(short))
        if hpa is not None and lowered_util:
            effects.append(
                f"HorizontalPodAutoscaler {hpa.key} scales on {', '.join(lowered_util)} utilization, a percentage of the request: the "
                "same use reads higher, so it runs more replicas"
            )
        a = _template_action(
            ctx,
            "set-requests",
            f"lower the requests of {ctx.ref} to {pct} ({what}) (advisory: only if the pods use less)",
            ops,
            Cost(assumptions=1, label_changes=sum(len(v) for v in changed.values()), pods_restarted=ctx.running),
            effects,
            {"requests": {name: {r: v.split(" -> ")[1] for r, v in rs.items()} for name, rs in changed.items()}, "factor": pct},
            family=f"req:{'+'.join(short)}",
            conflict="requests",
        )
        a.advisory = True
        a.assumes = [
            f"the pods of {ctx.ref} use less than the new requests ({what}) at their peaks: planner has no usage metrics; check "
            "them first (kubectl top pod, your monitoring: the peak, not the average)"
        ]
        out.append(a)
    return out


# --------------------------------------------------------------------------- nodes


def _nodes_may_help(ctx: Context) -> bool:
    if ctx.goal.kind == "rollout":
        return True
    p = ctx.failure.plugins
    if p & {"NodeResourcesFit", "InterPodAffinity", "NodePorts", "TaintToleration", "NodeAffinity", "NodeUnschedulable"}:
        return True
    if "PodTopologySpread" in p:
        spec = ctx.obj.template.spec
        return any(c.topology_key == LABEL_HOSTNAME for c in spec.topology_spread_constraints)
    return False


def template_node(ctx: Context, zone: str | None) -> Node | None:
    """The node a new node of ``zone`` is built from: the template of the first node group there
    whose new nodes the workload's pods may use (usable_node_groups: cluster-autoscaler's choice,
    a ready, uncordoned node without a transient taint, never merely the largest)."""
    return next((g.template for g in usable_node_groups(ctx) if g.zone == zone), None)


def usable_node_groups(ctx: Context) -> list[NodeGroup]:
    """The node groups (planner.controllers.nodegroups, per zone, by name) whose new nodes the
    workload's pods could use."""
    spec = ctx.obj.template.spec
    return [g for g in node_groups(ctx.snap.nodes.values()) if group_unusable(g, spec) is None]


def _clone_body(ctx: Context, node: Node, name: str) -> dict:
    """The Node object of a new node built from ``node``, as cluster-autoscaler's
    SanitizedTemplateNodeInfoFromNodeInfo makes it: the labels with a fresh hostname, the taints
    without the transient ones (this node's state, not its group's: not-ready, unschedulable,
    ToBeDeletedByClusterAutoscaler, ...), schedulable, capacity and allocatable only."""
    raw = copy.deepcopy(ctx.snap.raw.get(("Node", node.name)) or {"apiVersion": "v1", "kind": "Node", "metadata": {"name": node.name}})
    md = raw.get("metadata") or {}
    labels = dict(md.get("labels") or {})
    labels[LABEL_HOSTNAME] = name
    raw["metadata"] = {"name": name, "labels": labels}
    spec = raw.get("spec") or {}
    for k in ("providerID", "podCIDR", "podCIDRs", "unschedulable", "externalID", "configSource"):
        spec.pop(k, None)
    taints = [t for t in spec.get("taints") or [] if not (isinstance(t, dict) and _transient(t))]
    if taints:
        spec["taints"] = taints
    else:
        spec.pop("taints", None)
    raw["spec"] = spec
    st = raw.get("status") or {}
    raw["status"] = {k: st[k] for k in ("capacity", "allocatable") if k in st}
    return raw


def _transient(t: dict) -> bool:
    return is_transient_taint(Taint(key=str(t.get("key") or ""), value=str(t.get("value") or ""), effect=str(t.get("effect") or "")))


# how a node group is scaled, by the label it was read from: advisory lines (a node group is scaled
# by its cloud provider or autoscaler; kubectl never creates machines)
def _scale_instructions(ctx: Context, g: NodeGroup, count: int) -> list[str]:
    name = g.template.labels.get(g.label, g.name) if g.label in GROUP_LABELS else g.name
    zone = f" in {g.zone}" if g.zone else ""
    # the group as its provider sizes it: every node labelled alike, whatever its zone (planner
    # treats each zone's part as a group of its own; the provider picks the zone of a node it
    # adds). Sizes are said relative to now: a plan may add nodes to several parts of one group.
    members = [n for n in ctx.snap.nodes.values() if n.labels.get(g.label) == name] if g.label in GROUP_LABELS else []
    whole = len(members) or len(g.nodes)
    zones = sorted({n.zone or "" for n in members})
    spans = len(zones) > 1
    across = f"{name} spans {', '.join(z or '(no zone)' for z in zones)}" if spans else ""
    n_is = "N: its nodes now plus every node this plan adds to it"
    if g.label == "eks.amazonaws.com/nodegroup":
        if spans:
            how = [
                f"# EKS managed node group {across}: its desired size is the whole group's ({whole} node(s) now); raise it by "
                f"{count}, e.g. aws eks update-nodegroup-config --cluster-name CLUSTER --nodegroup-name {name} "
                f"--scaling-config desiredSize=N ({n_is}; keep maxSize at least N); its Auto Scaling group picks the zone "
                f"of each new node (it balances the zones), and they must be{zone}: a node group per zone makes sure "
                "(cluster-autoscaler then grows the zone's group for the Pending pods)"
            ]
        else:
            how = [
                f"# EKS managed node group {name}: raise its desired size by {count} ({whole} node(s) now), e.g. aws eks "
                f"update-nodegroup-config --cluster-name CLUSTER --nodegroup-name {name} --scaling-config desiredSize=N "
                f"({n_is}; keep maxSize at least N; or eksctl scale nodegroup); cluster-autoscaler does the same for Pending pods"
            ]
    elif g.label == "cloud.google.com/gke-nodepool":
        if spans:
            how = [
                f"# GKE node pool {across}: its cluster autoscaler grows the zone the Pending pods need (enable it on the "
                f"pool, or raise its maximum); a manual gcloud container clusters resize CLUSTER --node-pool {name} "
                f"--num-nodes N sets N nodes in every zone of the pool, not{zone} alone"
            ]
        else:
            how = [
                f"# GKE node pool {name}: grow it by {count} ({whole} node(s) now), e.g. gcloud container clusters resize "
                f"CLUSTER --node-pool {name} --num-nodes N ({n_is}), or raise the pool's autoscaling maximum"
            ]
    elif g.label == "karpenter.sh/nodepool":
        how = [
            f"# Karpenter NodePool {name}: Karpenter launches the nodes for the Pending pods; make sure the NodePool's "
            f"spec.limits leave room for {count} more node(s) like {g.template.name}{zone}"
        ]
    elif g.label in ("kubernetes.azure.com/agentpool", "agentpool"):
        if spans:
            how = [
                f"# AKS agent pool {across}: its node count is the whole pool's ({whole} node(s) now); raise it by "
                f"{count}, e.g. az aks nodepool scale --resource-group RG --cluster-name CLUSTER --name {name} "
                f"--node-count N ({n_is}), or its autoscaler's max-count; the scale set picks the zone of each new "
                f"node (it balances the zones), and they must be{zone}: an agent pool per zone makes sure"
            ]
        else:
            how = [
                f"# AKS agent pool {name}: grow it by {count} ({whole} node(s) now), e.g. az aks nodepool scale "
                f"--resource-group RG --cluster-name CLUSTER --name {name} --node-count N ({n_is}), or raise the "
                "pool's autoscaler max-count"
            ]
    else:
        itype = g.template.labels.get(LABEL_INSTANCE_TYPE) or "the same instance type"
        how = [
            f"# no node group label: add {count} node(s) like {g.template.name} ({itype}){zone} through your cloud "
            "provider or cluster autoscaler; a kubelet registers each Node"
        ]
    return how + ["# kubectl does not create machines: the Node objects of this plan are what the new nodes will look like"]


@dataclass
class GroupSpec:
    """A node group the workload's pods could use, as a plan scales it: the names its new nodes
    get (in order) and the DaemonSet pods each runs."""

    group: NodeGroup
    names: list[str]
    ds_pods: list[str]


def node_group_specs(ctx: Context, limit: int = MAX_ADDED_PER_ZONE) -> list[GroupSpec]:
    """The node groups whose new nodes the workload's pods could use (usable_node_groups), in the
    zones of the claims that pin them if any, with ``limit`` names for new nodes each."""
    pinned_zones = set()
    for _, claim in ctx.failure.pinned:
        pvc = ctx.snap.pvcs.get(claim)
        pv = ctx.snap.pvs.get(pvc.volume_name) if pvc and pvc.volume_name else None
        if pv is not None and pv.node_affinity is not None:
            for t in pv.node_affinity.terms:
                for r in t.match_expressions:
                    if r.key == LABEL_ZONE and r.operator == "In":
                        pinned_zones |= set(r.values)
    snap = ctx.snap
    host_network = lambda ds: is_host_network(snap.raw.get(("DaemonSet", ds.key)))  # noqa: E731
    out: list[GroupSpec] = []
    for g in usable_node_groups(ctx):
        if pinned_zones and g.zone not in pinned_zones:
            continue
        taken = set(snap.nodes)
        names: list[str] = []
        i = 0
        while len(names) < limit:
            name = f"{g.template.name}-added-{i}"
            i += 1
            if name not in taken:
                names.append(name)
        daemon = daemon_pods_for_node(g.new_node(names[0]), snap.daemonsets.values(), snap.pods.__contains__, host_network)
        out.append(GroupSpec(g, names, sorted(f"{p.namespace}/{p.owner.name}" for p in daemon if p.owner)))
    return out


def scale_node_group_action(ctx: Context, spec: GroupSpec, count: int) -> Action:
    """``count`` new nodes of the group, as ``capacity --add-nodes`` adds them: the group's
    sanitised template (cluster-autoscaler's choice) and, once verify applies the Node, the
    DaemonSet pods it would run."""
    g, names, ds_pods = spec.group, spec.names, spec.ds_pods
    patches = [ObjectPatch("Node", None, nm, "create", _clone_body(ctx, g.template, nm)) for nm in names[:count]]
    effects = [f"{count} more node(s) to pay for"]
    if ds_pods:
        effects.append(f"each new node runs the DaemonSet pods {', '.join(ds_pods)}, whose requests are taken from its room")
    if g.fallback:
        effects.append(f"no node of the group is ready and schedulable: the template is {g.template.name} as it would be once ready")
    return Action(
        type="scale-node-group",
        target=f"nodegroup/{g.name}",
        summary=f"add {count} node(s) to {g.describe()}",
        patches=patches,
        commands=[f"# add {count} node(s) to {g.describe()}, built from {g.template.name}", *_scale_instructions(ctx, g, count)],
        cost=Cost(money=count),
        side_effects=effects,
        params={
            "group": g.name,
            "label": g.label,
            "zone": g.zone,
            "count": count,
            "template": g.template.name,
            "daemonset_pods": ds_pods,
        },
        advisory=True,
        family=group_family(g),
        conflict=group_family(g),
    )


def group_family(g: NodeGroup) -> str:
    return f"group:{g.label}:{g.name}:{g.zone}"


def scale_node_group_candidates(ctx: Context) -> list[Action]:
    """1 to MAX_ADDED_PER_ZONE new nodes of each node group whose nodes the workload's pods could
    use (scale_node_group_action)."""
    return [scale_node_group_action(ctx, spec, count) for spec in node_group_specs(ctx) for count in range(1, MAX_ADDED_PER_ZONE + 1)]


# --------------------------------------------------------------------------- scale-to


def scale_to_action(ctx: Context, n: int) -> Action:
    """Run ``n`` replicas instead of the goal's: an alternative (it changes the goal), listed apart.
    A workload a HorizontalPodAutoscaler targets is held there through the HPA (hpa_bounds_action):
    ``kubectl scale`` would be undone at the HPA's next sync, since the HPA writes the scale
    subresource itself (pkg/controller/podautoscaler/horizontal.go reconcileAutoscaler)."""
    obj = ctx.obj
    current = obj.replicas
    goal = ctx.goal.replicas if ctx.goal.replicas is not None else current
    cost = Cost(money=n - goal, label_changes=1) if n > goal else Cost(availability_risk=goal - n, label_changes=1)
    hpa = ctx.snap.hpa_for(ctx.ref.kind, ctx.ref.namespace, ctx.ref.name) if ctx.manifest is None else None
    if hpa is not None:
        return hpa_bounds_action(ctx, hpa, n, goal, cost)
    ops = [{"op": "test", "path": "/spec/replicas", "value": current}, {"op": "replace", "path": "/spec/replicas", "value": n}]
    p = ctx.workload_patch(ops)
    return Action(
        type="scale-to",
        target=str(ctx.ref),
        summary=f"scale {ctx.ref} to {n}, the nearest replica count that works (advisory: the goal was {goal})",
        patches=[p],
        commands=[f"kubectl scale {ctx.resource} {q(obj.name)} -n {q(obj.namespace)} --current-replicas={current} --replicas={n}"],
        cost=cost,
        side_effects=[f"advisory: runs {n} replica(s) instead of the {goal} asked for"],
        params={"replicas": n},
        advisory=True,
        family="scale",
        conflict="scale",
        replicas=n,
    )


def hpa_bounds_action(ctx: Context, hpa: Any, n: int, goal: int, cost: Cost) -> Action:
    """scale-to for a workload an HPA manages: its bounds patched so that it runs ``n``.  More
    replicas than asked: ``minReplicas`` n (and ``maxReplicas`` at least n); fewer: ``maxReplicas``
    n (and ``minReplicas`` at most n).  The HPA clamps its desired count to [minReplicas,
    maxReplicas] (horizontal.go normalizeDesiredReplicas), so the bound holds the count whatever
    the metrics say on that side, and the HPA keeps scaling on the other."""
    raw = ctx.snap.raw.get(("HorizontalPodAutoscaler", hpa.key)) or {}
    spec = raw.get("spec") or {}
    lo, hi = spec.get("minReplicas", hpa.min_replicas), spec.get("maxReplicas", hpa.max_replicas)
    ref = spec.get("scaleTargetRef") or {"kind": ctx.ref.kind, "name": ctx.ref.name}
    ops: list[Any] = [
        {"op": "test", "path": "/spec/scaleTargetRef", "value": ref},
        {"op": "test", "path": "/spec/minReplicas", "value": lo},
        {"op": "test", "path": "/spec/maxReplicas", "value": hi},
    ]
    new_lo, new_hi = (max(lo, n), max(hi, n)) if n > goal else (min(lo, n), min(hi, n))
    changes = []
    if new_lo != lo:
        ops.append({"op": "replace", "path": "/spec/minReplicas", "value": new_lo})
        changes.append(f"minReplicas {lo} -> {new_lo}")
    if new_hi != hi:
        ops.append({"op": "replace", "path": "/spec/maxReplicas", "value": new_hi})
        changes.append(f"maxReplicas {hi} -> {new_hi}")
    p = ObjectPatch("HorizontalPodAutoscaler", hpa.namespace, hpa.name, "json", ops)
    side = "or more" if n > goal else "or fewer"
    effects = [
        f"advisory: runs {n} replica(s) instead of the {goal} asked for",
        f"HorizontalPodAutoscaler {hpa.key} manages the replicas of {ctx.ref}: `kubectl scale` would be undone at its next sync, "
        f"so its bounds change instead ({', '.join(changes) or 'no change'}); it keeps {n} {side} and still scales on its metrics",
    ]
    return Action(
        type="scale-to",
        target=str(ctx.ref),
        summary=f"keep {ctx.ref} at {n} replicas {side} through its HorizontalPodAutoscaler {hpa.name}: "
        f"{', '.join(changes) or 'its bounds already do'} (advisory: the goal was {goal})",
        patches=[p],
        commands=[p.kubectl()],
        cost=replace(cost, label_changes=max(1, len(changes))),
        side_effects=effects,
        params={"replicas": n, "hpa": hpa.key, "minReplicas": new_lo, "maxReplicas": new_hi},
        advisory=True,
        family="scale",
        conflict="scale",
        replicas=n,
    )


# --------------------------------------------------------------------------- helpers


def forced_rollback_pods(ctx: Context) -> list:
    """Pods an OrderedReady StatefulSet must lose before a new template can reach them: created,
    not Running and Ready, not terminating.  stateful_set_control.go processReplica stops at the
    first such pod under OrderedReady, before the rolling update is reached; the StatefulSet docs
    ("Forced rollback", kubernetes.io/docs/concepts/workloads/controllers/statefulset/) tell the
    user to delete them after fixing the template.  Deleting a Pending pod loses nothing."""
    obj = ctx.obj
    if not isinstance(obj, StatefulSet) or obj.pod_management_policy != "OrderedReady":
        return []
    from planner.controllers.statefulset import is_running_and_ready

    return sorted(
        (p for p in ctx.snap.owned_pods(ctx.ref.kind, ctx.ref.key) if not p.terminating and not p.terminal and not is_running_and_ready(p)),
        key=lambda p: p.name,
    )



def _template_action(
    ctx: Context,
    type_: str,
    summary: str,
    ops: list[Any],
    cost: Cost,
    effects: list[str],
    params: dict,
    family: str,
    conflict: str,
) -> Action:
    p = ctx.workload_patch(ops)
    patches, commands = [p], [p.kubectl()]
    effects = [ctx.roll_effect(), *effects]
    stuck = forced_rollback_pods(ctx)
    for pod in stuck:
        patches.append(ObjectPatch("Pod", pod.namespace, pod.name, "delete", ctx.snap.raw.get(("Pod", pod.key)) or pod_identity(pod)))
        commands.append(patches[-1].kubectl())
    if stuck:
        effects.append(
            f"deletes the Pending pod(s) {', '.join(p.name for p in stuck)}: under OrderedReady the StatefulSet controller waits "
            "for them forever and never replaces them with the new template (the 'forced rollback' of the StatefulSet docs)"
        )
    return Action(
        type=type_,
        target=str(ctx.ref),
        summary=summary,
        patches=patches,
        commands=commands,
        cost=cost,
        side_effects=effects,
        params=params,
        family=family,
        conflict=conflict,
        rolls_template=True,
    )
