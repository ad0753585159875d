"""What the controllers do, as actions: the API writes of the upstream controllers (pod, ReplicaSet
and claim creations and deletions, a ReplicaSet's scale) that ``planner.controllers.reconciler``
applies to a snapshot.

Upstream: the writes pkg/controller/controller_utils.go RealPodControl (CreatePods, DeletePod),
pkg/controller/deployment/sync.go (ReplicaSets created and scaled) and
pkg/controller/statefulset/stateful_pod_control.go (claims created) make.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Union

from planner.domain import PersistentVolumeClaim, Pod, ReplicaSet


@dataclass(frozen=True)
class CreatePod:
    pod: Pod
    reason: str


@dataclass(frozen=True)
class DeletePod:
    key: str  # "ns/name"
    reason: str


@dataclass(frozen=True)
class CreateReplicaSet:
    rs: ReplicaSet
    reason: str


@dataclass(frozen=True)
class ScaleReplicaSet:
    """An update of a ReplicaSet by the Deployment controller: ``spec.replicas`` and, when not None,
    the ``deployment.kubernetes.io/*`` annotations it writes with the same update
    (deployment_util.go SetReplicasAnnotations; the revision on a rollback)."""

    key: str
    replicas: int
    reason: str
    annotations: Mapping[str, str] | None = None
    min_ready_seconds: int | None = None  # spec.minReadySeconds when the update sets it (getNewReplicaSet)


@dataclass(frozen=True)
class CreateClaim:
    pvc: PersistentVolumeClaim
    reason: str


@dataclass(frozen=True)
class DeleteClaim:
    key: str
    reason: str


Action = Union[CreatePod, DeletePod, CreateReplicaSet, ScaleReplicaSet, CreateClaim, DeleteClaim]
