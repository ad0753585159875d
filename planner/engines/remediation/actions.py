"""What a remediation plan is made of: actions, their patches and commands, and their cost.

The JSON shape is a contract (docs/output.md, schema ``remediate``): an action has ``type``,
``target``, ``destructive``, ``summary``, ``side_effects``, ``patches`` and ``commands``, plus
``params`` (the changed values, for scripts) and ``advisory``.  A patch names one object and is
one of:

* ``json``: an RFC 6902 JSON Patch whose first operations are ``test`` guards, so that the API
  server refuses it when the object changed since the snapshot (``kubectl patch --type json``).
  Lists such as ``topologySpreadConstraints`` are always changed this way, by index with a guard
  on the element: a strategic merge patch merges that list by ``topologyKey`` alone
  (k8s.io/api/core/v1/types.go: ``patchStrategy:"merge" patchMergeKey:"topologyKey"``) and
  silently replaces whichever constraint shares the key;
* ``merge``: an RFC 7386 merge patch (not used for lists);
* ``delete``: the object goes; ``body`` is the whole object as read (a backup);
* ``create``: ``body`` is the whole object to create.

Cost is lexicographic, in the order of the issue: data loss, then availability risk, then spread
weakened, then money, then plain label changes; pods restarted break ties.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import Any

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
    "scale-node-group",
    "add-nodes",  # retired: scale-node-group replaced it; --forbid add-nodes forbids scale-node-group
    "scale-to",
)

# ties of equal cost: plain selectors before matchLabelKeys (spread matchLabelKeys needs v1.27+)
PREFERENCE = (
    "narrow-spread-selector",
    "add-match-label-keys",
    "scale-to",
    "scale-node-group",
    "set-rollout-strategy",
    "raise-max-skew",
    "set-when-unsatisfiable",
    "relax-anti-affinity",
    "set-pvc-retention-policy",
    "set-pod-management-policy",
    "delete-pvc",
)

DESTRUCTIVE_TYPES = ("delete-pvc", "set-pod-management-policy")

COST_FIELDS = ("data_loss", "availability_risk", "spread_weakened", "money", "label_changes", "pods_restarted")

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
    than asked); spread_weakened: units of maxSkew added, or, for a constraint made soft
    (ScheduleAnyway, required -> preferred), the number of domains of its topology key (at least
    2); money: nodes added plus replicas added; label_changes: object fields changed;
    pods_restarted: running pods the change rolls."""

    data_loss: int = 0
    availability_risk: int = 0
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


@dataclass
class ObjectPatch:
    kind: str
    namespace: str | None
    name: str
    type: str  # json | merge | delete | create
    body: Any

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name, "type": self.type, "body": self.body}

    def kubectl(self, file: str | None = None) -> str:
        """The kubectl command that applies this patch (``file``: the body written by --emit)."""
        res = RESOURCE.get(self.kind, self.kind.lower())
        ns = f" -n {shlex.quote(self.namespace)}" if self.namespace else ""
        name = shlex.quote(self.name)
        if self.type in ("json", "merge"):
            if file:
                return f"kubectl patch {res} {name}{ns} --type {self.type} --patch-file {shlex.quote(file)}"
            body = json.dumps(self.body, separators=(",", ":"), ensure_ascii=False)
            return f"kubectl patch {res} {name}{ns} --type {self.type} -p {shlex.quote(body)}"
        if self.type == "delete":
            return f"kubectl delete {res} {name}{ns}"
        return f"kubectl create -f {shlex.quote(file or self.default_file())}"

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
    # search bookkeeping (not printed)
    family: str = ""  # at most one action of a family in a plan; variants of a family are tried cheapest first
    conflict: str = ""  # actions of one conflict group are never combined (they edit the same field)
    rolls_template: bool = False  # changes the workload's pod template: every pod is recreated
    replicas: int | None = None  # scale-to: the count the plan runs
    group: str = ""  # narrow-spread-selector: the same selector, key and scoping label in every workload that shares it

    @property
    def destructive(self) -> bool:
        return self.type in DESTRUCTIVE_TYPES

    def label(self) -> str:
        extra = ", ".join(f"{k}={_short(v)}" for k, v in self.params.items() if k != "manifest_patch")
        return f"{self.type} {self.target}" + (f" ({extra})" if extra else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "target": self.target,
            "destructive": self.destructive,
            "advisory": self.advisory,
            "summary": self.summary,
            "side_effects": list(self.side_effects),
            "params": self.params,
            "patches": [p.to_dict() for p in self.patches],
            "commands": list(self.commands),
        }


def _short(v: Any) -> str:
    if isinstance(v, dict):
        return ",".join(f"{k}={x}" for k, x in v.items())
    if isinstance(v, list):
        return ",".join(str(x) for x in v)
    return str(v)


@dataclass
class Plan:
    actions: list[Action]
    cost: Cost
    verified: dict[str, Any] = field(default_factory=dict)

    @property
    def destructive(self) -> bool:
        return any(a.destructive for a in self.actions)

    def rank_key(self, allow_destructive: bool) -> tuple:
        return (
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
            "verified": self.verified,
            "actions": [a.to_dict() for a in self.actions],
        }
