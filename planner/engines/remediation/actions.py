"""What a remediation plan is made of: actions, their patches and commands, and their cost.

The JSON shape is a contract (docs/output.md, schema ``remediate``): an action has ``type``,
``target``, ``destructive``, ``summary``, ``side_effects``, ``patches`` and ``commands``, plus
``params`` (the changed values, for scripts), ``advisory``, ``policy_decision`` (add-toleration:
someone set those nodes apart), ``assumes`` (what the action rests on that planner cannot see),
``risks`` (what a destructive step may cost: data, availability) and ``helm`` (the Helm releases
whose objects it patches directly).  A plan has ``changes_goal``: it reaches another goal than the
one asked (scale-to), and is then listed apart, among the alternatives.  A patch names one
object and is one of:

* ``json``: an RFC 6902 JSON Patch whose first operations are ``test`` guards, so that the API
  server refuses it when the object changed since the snapshot (``kubectl patch --type json``).
  Lists such as ``topologySpreadConstraints`` are always changed this way, by index with a guard
  on the element: a strategic merge patch merges that list by ``topologyKey`` alone
  (k8s.io/api/core/v1/types.go: ``patchStrategy:"merge" patchMergeKey:"topologyKey"``) and
  silently replaces whichever constraint shares the key;
* ``merge``: an RFC 7386 merge patch (not used for lists);
* ``delete``: the object goes; ``body`` is the whole object as read (a backup); the runbook
  deletes it only if its uid is still the snapshot's (``kubectl delete --raw`` with
  DeleteOptions.preconditions.uid, planner.engines.remediation.emit);
* ``create``: ``body`` is the whole object to create.

Cost is lexicographic: data loss, then availability risk, then assumptions (what the plan rests
on that planner cannot check: a taint's owners agreeing to a toleration, usage below a lowered
request), then spread weakened, then money, then plain label changes; pods restarted break ties.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

ACTION_TYPES = (
    "delete-pvc",
    "add-match-label-keys",
    "narrow-spread-selector",
    "set-when-unsatisfiable",
    "raise-max-skew",
    "relax-anti-affinity",
    "set-rollout-strategy",
    "set-pod-management-policy",
    "set-pvc-retention-policy",
    "uncordon",
    "add-toleration",
    "set-requests",
    "scale-node-group",
    "add-nodes",  # retired: scale-node-group replaced it; --forbid add-nodes forbids scale-node-group
    "scale-to",
)

# ties of equal cost: plain selectors before matchLabelKeys (spread matchLabelKeys needs v1.27+)
PREFERENCE = (
    "uncordon",
    "narrow-spread-selector",
    "add-match-label-keys",
    "scale-to",
    "scale-node-group",
    "set-rollout-strategy",
    "raise-max-skew",
    "set-when-unsatisfiable",
    "relax-anti-affinity",
    "set-pvc-retention-policy",
    "add-toleration",
    "set-requests",
    "set-pod-management-policy",
    "delete-pvc",
)

DESTRUCTIVE_TYPES = ("delete-pvc", "set-pod-management-policy")
# actions that reach another goal than the one asked: their plans are alternatives, listed apart
GOAL_CHANGING_TYPES = ("scale-to",)

COST_FIELDS = ("data_loss", "availability_risk", "assumptions", "spread_weakened", "money", "label_changes", "pods_restarted")

# kubectl resource names (kubectl api-resources) for the kinds remediate patches
RESOURCE = {
    "Deployment": "deployment",
    "StatefulSet": "statefulset",
    "PersistentVolumeClaim": "pvc",
    "PersistentVolume": "pv",
    "Pod": "pod",
    "Node": "node",
    "HorizontalPodAutoscaler": "hpa",
}


@dataclass(frozen=True)
class Cost:
    """data_loss: claims whose data is deleted; availability_risk: replicas that may be missing
    (more pods down at once during rollouts than the current strategy allows, fewer replicas
    than asked); assumptions: what the plan rests on that planner cannot check (a toleration of
    a taint someone set: a policy decision; requests lowered: usage, of which planner has no
    metrics); spread_weakened: units of maxSkew added, or, for a constraint made soft
    (ScheduleAnyway, required -> preferred), the number of domains of its topology key (at least
    2); money: nodes added plus replicas added; label_changes: object fields changed;
    pods_restarted: running pods the change rolls."""

    data_loss: int = 0
    availability_risk: int = 0
    assumptions: int = 0
    spread_weakened: int = 0
    money: int = 0
    label_changes: int = 0
    pods_restarted: int = 0

    def __add__(self, other: Cost) -> Cost:
        return Cost(*(getattr(self, f) + getattr(other, f) for f in COST_FIELDS))

    def key(self) -> tuple[int, ...]:
        return tuple(getattr(self, f) for f in COST_FIELDS)

    def to_dict(self) -> dict[str, int]:
        return {f: getattr(self, f) for f in COST_FIELDS}


# the REST paths of the kinds remediate deletes (the API's own URLs: kubectl delete --raw)
API_PATHS = {
    "Pod": ("/api/v1", "pods"),
    "PersistentVolumeClaim": ("/api/v1", "persistentvolumeclaims"),
    "PersistentVolume": ("/api/v1", "persistentvolumes"),
    "Node": ("/api/v1", "nodes"),
    "StatefulSet": ("/apis/apps/v1", "statefulsets"),
    "Deployment": ("/apis/apps/v1", "deployments"),
    "HorizontalPodAutoscaler": ("/apis/autoscaling/v2", "horizontalpodautoscalers"),
}


@dataclass
class ObjectPatch:
    kind: str
    namespace: str | None
    name: str
    type: str  # json | merge | delete | create
    body: Any
    # delete only (not in the JSON: the command says it): the propagation policy (Orphan:
    # ``--cascade=orphan``), and whether kubectl waits for the object to be gone
    propagation: str = field(default="", compare=False)
    wait: bool = field(default=True, compare=False)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name, "type": self.type, "body": self.body}

    def kubectl(self, file: str | None = None) -> str:
        """The kubectl command that applies this patch (``file``: the body written by --emit; for a
        delete, the DeleteOptions file written by --emit: see delete_options)."""
        res = RESOURCE.get(self.kind, self.kind.lower())
        ns = f" -n {shlex.quote(self.namespace)}" if self.namespace else ""
        name = shlex.quote(self.name)
        if self.type in ("json", "merge"):
            if file:
                return f"kubectl patch {res} {name}{ns} --type {self.type} --patch-file {shlex.quote(file)}"
            body = json.dumps(self.body, separators=(",", ":"), ensure_ascii=False)
            return f"kubectl patch {res} {name}{ns} --type {self.type} -p {shlex.quote(body)}"
        if self.type == "delete":
            if file and self.uid and self.kind in API_PATHS:
                return f"kubectl delete --raw {shlex.quote(self.api_path())} -f {shlex.quote(file)}"
            flags = " --cascade=orphan" if self.propagation == "Orphan" else ""
            flags += "" if self.wait else " --wait=false"
            return f"kubectl delete {res} {name}{ns}{flags}"
        return f"kubectl create -f {shlex.quote(file or self.default_file())}"

    @property
    def uid(self) -> str:
        """The uid of the object as read ("" when the snapshot recorded none)."""
        md = self.body.get("metadata") if isinstance(self.body, dict) else None
        uid = md.get("uid") if isinstance(md, dict) else None
        return uid if isinstance(uid, str) else ""

    def api_path(self) -> str:
        """The object's REST path, each segment URL-escaped."""
        prefix, plural = API_PATHS[self.kind]
        ns = f"/namespaces/{quote(self.namespace, safe='')}" if self.namespace else ""
        return f"{prefix}{ns}/{plural}/{quote(self.name, safe='')}"

    def delete_options(self) -> dict[str, Any]:
        """meta/v1 DeleteOptions for ``kubectl delete --raw PATH -f FILE``: the API server deletes
        the object only if its uid is still the one read (preconditions.uid; 409 Conflict
        otherwise: an object of the same name made since is left alone), with the propagation
        ``--cascade`` would set."""
        out: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": self.uid}}
        if self.propagation:
            out["propagationPolicy"] = self.propagation
        return out

    def default_file(self) -> str:
        ext = "json" if self.type in ("json", "merge") else "yaml"
        ns = f"{self.namespace}-" if self.namespace else ""
        return f"{self.type}-{RESOURCE.get(self.kind, self.kind.lower())}-{ns}{self.name}.{ext}"


@dataclass
class Action:
    type: str
    target: str  # kind/namespace/name (lower-case kind), or nodes/<zone>
    summary: str
    patches: list[ObjectPatch]
    commands: list[str]
    cost: Cost
    side_effects: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    advisory: bool = False
    policy_decision: bool = False  # add-toleration: lets the pods onto nodes someone set apart
    assumes: list[str] = field(default_factory=list)  # what it rests on that planner cannot see
    risks: list[str] = field(default_factory=list)  # destructive: the data or availability it may cost
    helm: list[dict[str, Any]] = field(default_factory=list)  # Helm-managed objects it patches (helm.py)
    # search bookkeeping (not printed)
    family: str = ""  # at most one action of a family in a plan; variants of a family are tried cheapest first
    conflict: str = ""  # actions of one conflict group are never combined (they edit the same field)
    rolls_template: bool = False  # changes the workload's pod template: every pod is recreated
    replicas: int | None = None  # scale-to: the count the plan runs
    group: str = ""  # narrow-spread-selector: the same selector, key and scoping label in every workload that shares it

    @property
    def destructive(self) -> bool:
        return self.type in DESTRUCTIVE_TYPES

    @property
    def changes_goal(self) -> bool:
        return self.type in GOAL_CHANGING_TYPES

    def label(self) -> str:
        extra = ", ".join(f"{k}={_short(v)}" for k, v in self.params.items() if k != "manifest_patch")
        return f"{self.type} {self.target}" + (f" ({extra})" if extra else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "target": self.target,
            "destructive": self.destructive,
            "advisory": self.advisory,
            "policy_decision": self.policy_decision,
            "assumes": list(self.assumes),
            "risks": list(self.risks),
            "helm": [dict(h) for h in self.helm],
            "summary": self.summary,
            "side_effects": list(self.side_effects),
            "params": self.params,
            "patches": [p.to_dict() for p in self.patches],
            "commands": list(self.commands),
        }


def _short(v: Any) -> str:
    """A parameter as a label shows it: ``api=cpu:800m`` for {"api": {"cpu": "800m"}}, ``-`` for
    nothing (an empty list or mapping)."""
    if isinstance(v, dict):
        return ",".join(f"{k}={_inner(x)}" for k, x in v.items()) or "-"
    if isinstance(v, (list, tuple)):
        return ",".join(_inner(x) for x in v) or "-"
    return str(v) or "-"


def _inner(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_inner(x)}" for k, x in v.items()) + "}" if len(v) != 1 else "".join(f"{k}:{_inner(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_inner(x) for x in v) + "]"
    return str(v)


@dataclass
class Plan:
    actions: list[Action]
    cost: Cost
    verified: dict[str, Any] = field(default_factory=dict)

    @property
    def destructive(self) -> bool:
        return any(a.destructive for a in self.actions)

    @property
    def changes_goal(self) -> bool:
        """The plan reaches another goal than the one asked (scale-to: another replica count)."""
        return any(a.changes_goal for a in self.actions)

    def rank_key(self, allow_destructive: bool) -> tuple:
        """A plan that reaches the goal as asked before any that changes it; then every
        non-destructive plan before a destructive one (unless ``allow_destructive``); then cost."""
        return (
            int(self.changes_goal),
            0 if allow_destructive else int(self.destructive),
            self.cost.key(),
            len(self.actions),
            [PREFERENCE.index(a.type) if a.type in PREFERENCE else len(PREFERENCE) for a in self.actions],
            [a.label() for a in self.actions],
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "cost": self.cost.to_dict(),
            "destructive": self.destructive,
            "changes_goal": self.changes_goal,
            "verified": self.verified,
            "actions": [a.to_dict() for a in self.actions],
        }
