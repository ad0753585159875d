"""PodDisruptionBudgets: the disruption controller's status and the eviction API's decision.

Upstream (kubernetes/kubernetes, current stable release):
* pkg/controller/disruption/disruption.go: trySync, getExpectedPodCount, getExpectedScale (the
  finders getPodReplicaSet, getPodDeployment, getPodStatefulSet), countHealthyPods,
  updatePdbStatus (disruptionsAllowed = currentHealthy - desiredHealthy, 0 when negative or when
  no pod is expected), failSafe (disruptionsAllowed 0 when the status cannot be computed);
* pkg/registry/core/pod/storage/eviction.go: EvictionREST.Create (canIgnorePDB, more than one
  budget, spec.unhealthyPodEvictionPolicy: a pod that is not Ready goes at once under AlwaysAllow,
  and under IfHealthyBudget (the default) while currentHealthy >= desiredHealthy > 0), checkAndDecrement (refused with 429 "Cannot
  evict pod as it would violate the pod's disruption budget." when disruptionsAllowed is 0),
  getPodDisruptionBudgets.

minAvailable and maxUnavailable percentages are rounded up (intstr GetScaledValueFromIntOrPercent
with roundUp true), as upstream.

Healthy is Ready (pkg/api/v1/pod/util.go IsPodReady: the pod's Ready condition is True), not
Running: a crash-looping replica, Running with Ready=False, does not count toward the budget
(planner.controllers.controller_utils.is_pod_ready says how a pod without conditions counts).

Simplified: the status is computed from the snapshot on demand (observedGeneration is always
current) and an eviction deletes the pod at once, so status.disruptedPods stays empty;
ReplicationControllers and the generic scale subresource are not looked up as controllers.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.controllers.controller_utils import controlled_by, is_pod_ready
from planner.controllers.intstr import scaled_value
from planner.domain import LabelSelector, Pod, PodDisruptionBudget, selector_matches
from planner.scheduler.plugins.defaultpreemption.preemption import PDBFacts
from planner.snapshot import Snapshot

# eviction.go checkAndDecrement / EvictionREST.Create messages.
EVICTION_REFUSED = "Cannot evict pod as it would violate the pod's disruption budget."
MULTIPLE_BUDGETS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."


@dataclass(frozen=True)
class DisruptionStatus:
    """policy/v1 PodDisruptionBudgetStatus, plus why it could not be computed (failSafe)."""

    current_healthy: int
    desired_healthy: int
    expected_pods: int
    disruptions_allowed: int
    unmanaged_pods: tuple[str, ...] = ()
    error: str = ""


class PodIndex:
    """The snapshot's pods by namespace and, built on first use per namespace, by label (key,
    value): the pods a selector can match are those carrying the rarest of its matchLabels pairs
    (or of its single-value In requirements); each is still matched against the whole selector.
    What a pass over many budgets reads instead of every pod once per budget."""

    SCAN = 64  # namespaces with this few pods are scanned

    def __init__(self, snap: Snapshot) -> None:
        self.by_ns: dict[str, list[Pod]] = {}
        for p in snap.pods.values():
            self.by_ns.setdefault(p.namespace, []).append(p)
        self.pairs: dict[str, dict[tuple[str, str], list[Pod]]] = {}

    def matching(self, namespace: str, selector: LabelSelector | None) -> list[Pod]:
        if selector is None:
            return []
        pods = self.by_ns.get(namespace, [])
        pairs = [*selector.match_labels, *((r.key, r.values[0]) for r in selector.match_expressions if r.operator == "In" and len(r.values) == 1)]
        if pairs and len(pods) > self.SCAN:
            idx = self.pairs.get(namespace)
            if idx is None:
                idx = self.pairs[namespace] = {}
                for p in pods:
                    for kv in p.labels.items():
                        idx.setdefault(kv, []).append(p)
            pods = min((idx.get(kv, []) for kv in pairs), key=len)
        return [p for p in pods if selector.matches(p.labels)]


def pods_for_pdb(snap: Snapshot, pdb: PodDisruptionBudget, index: PodIndex | None = None) -> list[Pod]:
    """disruption.go getPodsForPdb: the namespace's pods the selector matches (a null selector
    matches none), by name.  ``index``: the snapshot's PodIndex, for a pass over many budgets."""
    if index is not None:
        return sorted(index.matching(pdb.namespace, pdb.selector), key=lambda p: p.name)
    return sorted(
        (p for p in snap.pods.values() if p.namespace == pdb.namespace and selector_matches(pdb.selector, p.labels)),
        key=lambda p: p.name,
    )


def _find_controller(snap: Snapshot, pod: Pod) -> tuple[tuple[str, str], int] | None:
    """disruption.go finders (getPodReplicaSet, getPodDeployment, getPodStatefulSet): the pod's
    controller that has a scale, as (identity, spec.replicas)."""
    ref = pod.owner
    assert ref is not None
    key = f"{pod.namespace}/{ref.name}"
    if ref.kind == "ReplicaSet":
        rs = snap.replicasets.get(key)
        if rs is None or (ref.uid and rs.uid and ref.uid != rs.uid):
            return None
        owner = rs.owner
        if owner is not None and owner.controller and owner.kind == "Deployment":  # getPodDeployment
            dkey = f"{rs.namespace}/{owner.name}"
            d = snap.deployments.get(dkey)
            if d is None or not controlled_by(owner, "Deployment", d.name, d.uid):
                return None
            return ("Deployment", dkey), d.replicas
        return ("ReplicaSet", key), rs.replicas  # getPodReplicaSet
    if ref.kind == "StatefulSet":
        sts = snap.statefulsets.get(key)
        if sts is None or (ref.uid and sts.uid and ref.uid != sts.uid):
            return None
        return ("StatefulSet", key), sts.replicas
    return None


def get_expected_scale(snap: Snapshot, pods: list[Pod]) -> tuple[int, tuple[str, ...]]:
    """disruption.go getExpectedScale: the sum of spec.replicas over the pods' controllers, and the
    unmanaged pods (no controller); ValueError when a controller cannot be found."""
    scale: dict[tuple[str, str], int] = {}
    unmanaged: list[str] = []
    for pod in pods:
        if pod.owner is None or not pod.owner.controller:
            unmanaged.append(pod.name)
            continue
        found = _find_controller(snap, pod)
        if found is None:
            raise ValueError(f'found no controllers for pod "{pod.name}"')
        scale[found[0]] = found[1]
    return sum(scale.values()), tuple(unmanaged)


def get_expected_pod_count(snap: Snapshot, pdb: PodDisruptionBudget, pods: list[Pod]) -> tuple[int, int, tuple[str, ...]]:
    """disruption.go getExpectedPodCount: (expectedCount, desiredHealthy, unmanaged pods).

    maxUnavailable: desired = scale - maxUnavailable (rounded up), at least 0; minAvailable as an
    integer: desired = minAvailable over the matching pods; as a percentage of the scale, rounded up.
    """
    if pdb.max_unavailable is not None:
        expected, unmanaged = get_expected_scale(snap, pods)
        max_unavailable = scaled_value(pdb.max_unavailable, expected, True)
        return expected, max(expected - max_unavailable, 0), unmanaged
    if pdb.min_available is not None:
        if isinstance(pdb.min_available, int) and not isinstance(pdb.min_available, bool):
            return len(pods), pdb.min_available, ()
        expected, unmanaged = get_expected_scale(snap, pods)
        return expected, scaled_value(pdb.min_available, expected, True), unmanaged
    return 0, 0, ()


def count_healthy_pods(pods: list[Pod]) -> int:
    """disruption.go countHealthyPods: not being deleted and Ready (apipod.IsPodReady; v1.37 no
    longer looks at minReadySeconds or the phase).  An evicted pod leaves at once here, so none is
    in status.disruptedPods."""
    return sum(1 for p in pods if not p.terminating and is_pod_ready(p))


def disruption_status(snap: Snapshot, pdb_key: str, index: PodIndex | None = None) -> DisruptionStatus:
    """disruption.go trySync and updatePdbStatus (failSafe on an error)."""
    pdb = snap.pdbs.get(pdb_key)
    if pdb is None:
        return DisruptionStatus(0, 0, 0, 0, error=f'poddisruptionbudgets "{pdb_key}" not found')
    pods = pods_for_pdb(snap, pdb, index)
    healthy = count_healthy_pods(pods)
    try:
        expected, desired, unmanaged = get_expected_pod_count(snap, pdb, pods)
    except ValueError as e:
        return DisruptionStatus(healthy, 0, 0, 0, error=str(e))
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    return DisruptionStatus(healthy, desired, expected, allowed, unmanaged)


def disruptions_allowed(snap: Snapshot, pdb_key: str, index: PodIndex | None = None) -> int:
    """status.disruptionsAllowed of the PodDisruptionBudget ``pdb_key`` ("ns/name")."""
    return disruption_status(snap, pdb_key, index).disruptions_allowed


def pdbs_for_pod(snap: Snapshot, pod: Pod) -> list[PodDisruptionBudget]:
    """eviction.go getPodDisruptionBudgets: the namespace's budgets whose selector matches the pod."""
    return sorted(
        (b for b in snap.pdbs.values() if b.namespace == pod.namespace and selector_matches(b.selector, pod.labels)),
        key=lambda b: b.name,
    )


def can_ignore_pdb(pod: Pod) -> bool:
    """eviction.go canIgnorePDB: Succeeded, Failed and Pending pods, and pods being deleted."""
    return pod.phase in ("Succeeded", "Failed", "Pending") or pod.terminating


@dataclass(frozen=True)
class EvictionDecision:
    allowed: bool
    reason: str = ""  # the API's message when refused
    cause: str = ""  # the status cause (DisruptionBudget), when there is one
    budget: str = ""  # "ns/name" of the budget that decided


def check_eviction(snap: Snapshot, pod_key: str) -> EvictionDecision:
    """eviction.go EvictionREST.Create up to the delete: may the pod be evicted now?"""
    pod = snap.pods.get(pod_key)
    if pod is None:
        return EvictionDecision(False, f'pods "{pod_key.split("/", 1)[-1]}" not found')
    if can_ignore_pdb(pod):
        return EvictionDecision(True)
    budgets = pdbs_for_pod(snap, pod)
    if len(budgets) > 1:
        return EvictionDecision(False, MULTIPLE_BUDGETS)
    if not budgets:
        return EvictionDecision(True)
    pdb = budgets[0]
    st = disruption_status(snap, pdb.key)
    if not is_pod_ready(pod):
        # a pod that is not Ready does not count toward currentHealthy: evicting it takes nothing
        # from the budget.  AlwaysAllow lets it go at once; IfHealthyBudget (and unset) only while
        # the budget holds.
        if pdb.unhealthy_pod_eviction_policy == "AlwaysAllow":
            return EvictionDecision(True, budget=pdb.key)
        if st.current_healthy >= st.desired_healthy and st.desired_healthy > 0:
            return EvictionDecision(True, budget=pdb.key)
    if st.disruptions_allowed == 0:
        return EvictionDecision(
            False,
            EVICTION_REFUSED,
            f"The disruption budget {pdb.name} needs {st.desired_healthy} healthy pods and has {st.current_healthy} currently",
            pdb.key,
        )
    return EvictionDecision(True, budget=pdb.key)


def can_evict(snap: Snapshot, pod_key: str) -> tuple[bool, str]:
    """(allowed, reason): the reason is the eviction API's message when refused, "" otherwise."""
    d = check_eviction(snap, pod_key)
    return d.allowed, d.reason


def preemption_pdbs(snap: Snapshot) -> list[PDBFacts]:
    """What DefaultPreemption reads of every budget (its PDB lister): the selector and
    status.disruptionsAllowed as the disruption controller computes it now (the pods indexed
    once for every budget: PodIndex)."""
    if not snap.pdbs:
        return []
    index = PodIndex(snap)
    return [
        PDBFacts(b.namespace, b.name, b.selector, disruptions_allowed(snap, key, index))
        for key, b in sorted(snap.pdbs.items())
    ]
