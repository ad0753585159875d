"""Builders and a fake world for the controller tests: a tiny fake scheduler (every Pending pod is
bound to the first node it fits on and turns Running), so these tests do not depend on planner's
scheduler plugins."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from planner.controllers.actions import CreatePod, DeletePod
from planner.controllers.reconciler import apply, reconcile
from planner.domain import (
    LABEL_POD_TEMPLATE_HASH,
    ClaimTemplate,
    Deployment,
    OwnerRef,
    Pod,
    PodDisruptionBudget,
    PodSpec,
    PodTemplate,
    ReplicaSet,
    RollingUpdateDeployment,
    StatefulSet,
)
from planner.snapshot import Snapshot
from tests.builders import Gi, node, sel

# --------------------------------------------------------------------------- builders


def template(app: str, image: str) -> PodTemplate:
    return PodTemplate(labels={"app": app}, spec=PodSpec(images=(image,)))


def deployment(
    replicas: int = 3,
    surge: int | str | None = "25%",
    unavailable: int | str | None = "25%",
    *,
    strategy: str = "RollingUpdate",
    image: str = "v1",
    name: str = "web",
) -> Deployment:
    return Deployment(
        namespace="default",
        name=name,
        replicas=replicas,
        selector=sel({"app": name}),
        template=template(name, image),
        strategy_type=strategy,
        rolling_update=RollingUpdateDeployment(surge, unavailable) if strategy == "RollingUpdate" else None,  # type: ignore[arg-type]
        uid=f"uid-{name}",
    )


def replicaset(d: Deployment, image: str, replicas: int, second: int, revision: int = 1) -> ReplicaSet:
    """A ReplicaSet of ``d`` for ``image``, created at second ``second`` (deployment_util's generateRS)."""
    h = f"h{image}"
    labels = {**d.template.labels, LABEL_POD_TEMPLATE_HASH: h}
    return ReplicaSet(
        namespace=d.namespace,
        name=f"{d.name}-{h}",
        replicas=replicas,
        selector=sel({**dict(d.selector.match_labels), LABEL_POD_TEMPLATE_HASH: h}),
        template=PodTemplate(labels=labels, spec=PodSpec(images=(image,))),
        owner=OwnerRef("Deployment", d.name, d.uid, True),
        labels=labels,
        annotations={
            "deployment.kubernetes.io/revision": str(revision),
            "deployment.kubernetes.io/desired-replicas": str(d.replicas),
        },
        uid=f"uid-{d.name}-{h}",
        creation_timestamp=f"2024-01-01T00:00:{second:02d}Z",
    )


def rs_pods(rs: ReplicaSet, running: int, pending: int = 0, first_node: int = 0) -> list[Pod]:
    """``running`` pods of ``rs`` bound to node-<i> (one per node) and ``pending`` unbound ones."""
    pods = []
    for i in range(running + pending):
        bound = i < running
        pods.append(Pod(
            namespace=rs.namespace,
            name=f"{rs.name}-{i}",
            labels=dict(rs.template.labels),
            spec=replace(rs.template.spec, node_name=f"node-{first_node + i}" if bound else ""),
            phase="Running" if bound else "Pending",
            owner=OwnerRef("ReplicaSet", rs.name, rs.uid, True),
            uid=f"uid-{rs.name}-{i}",
            creation_timestamp="2024-01-01T00:00:01Z",
        ))
    return pods


def snapshot(*objs: object, nodes: int = 0) -> Snapshot:
    s = Snapshot()
    for i in range(nodes):
        n = node(f"node-{i}")
        s.nodes[n.name] = n
    for o in objs:
        if isinstance(o, Deployment):
            s.deployments[o.key] = o
        elif isinstance(o, ReplicaSet):
            s.replicasets[o.key] = o
        elif isinstance(o, StatefulSet):
            s.statefulsets[o.key] = o
        elif isinstance(o, Pod):
            s.pods[o.key] = o
        elif isinstance(o, PodDisruptionBudget):
            s.pdbs[o.key] = o
        elif isinstance(o, list):
            for p in o:
                s.pods[p.key] = p
        else:
            raise TypeError(o)
    return s


# --------------------------------------------------------------------------- the fake world


Fits = Callable[[Snapshot, Pod, str], bool]


def anywhere(snap: Snapshot, pod: Pod, node_name: str) -> bool:
    return True


def hostname_anti_affinity(snap: Snapshot, pod: Pod, node_name: str) -> bool:
    """Required hostname anti-affinity against the pod's own app (seed 004)."""
    app = pod.labels.get("app")
    return not any(
        p.spec.node_name == node_name and p.labels.get("app") == app and not p.terminal
        for p in snap.pods.values()
    )


def schedule(snap: Snapshot, fits: Fits = anywhere) -> bool:
    """The fake scheduler and kubelet: each Pending pod goes to the first node it fits on and runs."""
    moved = False
    for key in sorted(snap.pods):
        pod = snap.pods[key]
        if pod.spec.node_name or pod.terminal:
            continue
        for name in sorted(snap.nodes):
            if fits(snap, pod, name):
                snap.pods[key] = replace(pod, spec=replace(pod.spec, node_name=name), phase="Running")
                moved = True
                break
    return moved


def run(snap: Snapshot, fits: Fits = anywhere, rounds: int = 30, check: Callable[[Snapshot], None] | None = None) -> list:
    """Alternate controller passes and scheduling until nothing changes; returns every action."""
    history: list = []
    for _ in range(rounds):
        actions = reconcile(snap)
        apply(snap, actions)
        history.extend(actions)
        if check is not None:
            check(snap)
        moved = schedule(snap, fits)
        if not actions and not moved:
            return history
    raise AssertionError("the simulated world did not settle")


def pods_of(snap: Snapshot, image: str) -> list[Pod]:
    return [p for p in snap.pods.values() if p.spec.images == (image,)]


def statefulset(
    replicas: int = 3,
    *,
    policy: str = "OrderedReady",
    image: str = "v1",
    when_scaled: str = "Retain",
    when_deleted: str = "Retain",
    partition: int = 0,
    strategy: str = "RollingUpdate",
) -> StatefulSet:
    return StatefulSet(
        namespace="default",
        name="db",
        replicas=replicas,
        selector=sel({"app": "db"}),
        template=template("db", image),
        pod_management_policy=policy,
        update_strategy_type=strategy,
        partition=partition,
        volume_claim_templates=(ClaimTemplate(name="data", request=Gi, access_modes=("ReadWriteOnce",)),),
        retention_when_scaled=when_scaled,
        retention_when_deleted=when_deleted,
        uid="uid-db",
    )


def created_pods(actions: list) -> list[str]:
    return [a.pod.name for a in actions if isinstance(a, CreatePod)]


def deleted_pods(actions: list) -> list[str]:
    return [a.key.split("/", 1)[1] for a in actions if isinstance(a, DeletePod)]


def add_one_by_one(ix: Any, snap: Snapshot) -> Any:
    """``ix`` (an empty Index or TrackedIndex) given every pod, then every ReplicaSet, of ``snap``
    by add_pod and add_replicaset: what the constructors' bulk builds must equal."""
    for p in snap.pods.values():
        ix.add_pod(p)
    for rs in snap.replicasets.values():
        ix.add_replicaset(rs)
    return ix
