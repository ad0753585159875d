"""The shared helpers of the controllers.

Upstream: pkg/controller/controller_utils.go (FilterActivePods / IsPodActive, GetPodFromTemplate,
ActivePodsWithRanks and its Less: the order in which a ReplicaSet's pods are deleted),
pkg/api/v1/pod (IsPodReady, IsPodAvailable), k8s.io/apimachinery metav1 (GetControllerOf,
IsControlledBy, Time) and k8s.io/apiserver/pkg/storage/names (SimpleNameGenerator: the names of
the pods a ReplicaSet creates), made deterministic as planner's simulated world needs
(planner.controllers documents that world).
"""

from __future__ import annotations

import hashlib
import math
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta

from planner.domain import OwnerRef, Pod
from planner.revision import SAFE_ALPHANUMS, fnv32a


def is_pod_active(p: Pod) -> bool:
    """controller_utils.go IsPodActive: not Succeeded/Failed and no deletionTimestamp."""
    return not p.terminal and not p.terminating


def is_pod_ready(p: Pod) -> bool:
    """pkg/api/v1/pod/util.go IsPodReady (IsPodReadyConditionTrue of GetPodReadyCondition): the
    pod's Ready condition is "True".

    ``Pod.ready`` carries that condition for a pod read Running on a node (planner.convert).  A
    pod without it (no conditions at all: a hand-written manifest, or a pod the replay created and
    bound, which the replay starts healthy) is Ready when it is Running on a node, as before."""
    if p.ready is not None:
        return p.ready
    return p.phase == "Running" and bool(p.spec.node_name)


def ready_time(p: Pod) -> datetime | None:
    """The Ready condition's lastTransitionTime, None when unknown (a zero time upstream)."""
    return parse_time(p.ready_since) if p.ready_since else None


def available_at(p: Pod, min_ready_seconds: int) -> datetime | None:
    """When an already Ready pod becomes available: the first whole second after its Ready
    condition's lastTransitionTime + minReadySeconds (IsPodAvailable compares with Before, strictly);
    None when it never does (a zero lastTransitionTime) or is not Ready.  A pod whose readiness is
    the replay's own (no Ready condition read) has been Ready long enough: BASE_TIME."""
    if not is_pod_ready(p):
        return None
    if min_ready_seconds <= 0 or p.ready is None:
        return BASE_TIME
    t = ready_time(p)
    if t is None:
        return None
    return t + timedelta(seconds=min_ready_seconds + 1)


def is_pod_available(p: Pod, min_ready_seconds: int = 0, now: datetime | None = None) -> bool:
    """pkg/api/v1/pod/util.go IsPodAvailable: Ready, and either minReadySeconds is 0 or the Ready
    condition's lastTransitionTime is set and lastTransitionTime + minReadySeconds is before now.

    ``now`` None is the replay's settled view: every Ready pod whose lastTransitionTime is known
    has been Ready for minReadySeconds by then (the controllers requeue until it has)."""
    if not is_pod_ready(p):
        return False
    if min_ready_seconds <= 0 or p.ready is None:
        return True
    t = ready_time(p)
    if t is None:
        return False
    return now is None or t + timedelta(seconds=min_ready_seconds) < now


def controlled_by(owner: OwnerRef | None, kind: str, name: str, uid: str) -> bool:
    """metav1.IsControlledBy, by kind and name (and uid when both sides have one)."""
    if owner is None or not owner.controller or owner.kind != kind or owner.name != name:
        return False
    return not owner.uid or not uid or owner.uid == uid


# The epoch of planner.scenario: a snapshot with no timestamps starts there.
BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)


_PARSED: dict[str, datetime | None] = {}
_PARSED_MAX = 1 << 20


def parse_time(ts: str) -> datetime | None:
    """An RFC 3339 creationTimestamp, or None when empty or unreadable (memoised: the controllers
    compare the same timestamps over and over)."""
    try:
        return _PARSED[ts]
    except KeyError:
        pass
    if not ts:
        return None
    try:
        t: datetime | None = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        t = None
    if t is not None and t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[ts] = t
    return t


_URL_NAMESPACE = uuid.NAMESPACE_URL.bytes


def object_uid(kind: str, namespace: str, name: str, created: str) -> str:
    """A deterministic uid; an object re-created under the same name gets a new one.

    ``str(uuid.uuid5(uuid.NAMESPACE_URL, "planner-controllers:<kind>/<namespace>/<name>/<created>"))``,
    formatted straight from the SHA-1 digest (RFC 4122 section 4.3: the first 16 bytes, version
    5, the RFC 4122 variant); tests/controllers/test_controller_utils.py compares the two."""
    h = hashlib.sha1(_URL_NAMESPACE + f"planner-controllers:{kind}/{namespace}/{name}/{created}".encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:32]}"


# apiserver names.SimpleNameGenerator: generateName is cut to 63 - 5 characters, then 5 random ones.
_MAX_GENERATED_NAME_LENGTH = 63 - 5


_STEM_HASHES: dict[str, int] = {}  # stem -> fnv32a(stem), for generate_name
_STEM_HASHES_MAX = 4096


def generate_name(prefix: str, taken: Callable[[str], bool], start: list[int] | None = None) -> str:
    """storage/names SimpleNameGenerator.GenerateName, made deterministic: the 5-character suffix
    hashes ``<base>/<counter>`` (as planner.scenario does), counting up to the first free name."""
    base = prefix[:_MAX_GENERATED_NAME_LENGTH]
    stem = prefix[:-1] if prefix.endswith("-") else prefix
    # ``start`` (a one-element list) carries the counter between the names of one sync, so that
    # creating n pods probes n names, not n^2/2; each sync starts from 0: the names stay a pure
    # function of the pods that exist
    i = start[0] if start else 0
    # FNV-1a runs byte by byte: the hash of ``<stem>/<i>`` continues from the stem's
    h_stem = _STEM_HASHES.get(stem)
    if h_stem is None:
        if len(_STEM_HASHES) >= _STEM_HASHES_MAX:
            _STEM_HASHES.clear()
        h_stem = _STEM_HASHES[stem] = fnv32a(stem.encode())
    while True:
        h = fnv32a(f"/{i}".encode(), h_stem)
        suffix = ""
        for _ in range(5):
            suffix += SAFE_ALPHANUMS[h % len(SAFE_ALPHANUMS)]
            h //= len(SAFE_ALPHANUMS)
        name = base + suffix
        if not taken(name):
            if start is not None:
                start[0] = i + 1
            return name
        i += 1


# --------------------------------------------------------------------------- ActivePodsWithRanks

# k8s.io/api/core/v1 PodDeletionCost annotation (controller.kubernetes.io/pod-deletion-cost).
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"


def _deletion_cost(p: Pod) -> int:
    """pkg/apis/core/helper GetDeletionCostFromPodAnnotations (an invalid value counts as 0)."""
    v = p.annotations.get(POD_DELETION_COST)
    if v is None:
        return 0
    try:
        return int(v.strip())
    except ValueError:
        return 0


_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


def _log_rank(t: datetime, now: datetime) -> int:
    """controller_utils.go logarithmicRankDiff, one side: floor(log2(now - t in nanoseconds))."""
    d = now - t
    ns = (d.days * 86_400 + d.seconds) * 1_000_000_000 + d.microseconds * 1000
    return int(math.log2(ns)) if ns > 0 else -1


def _after_or_zero(t1: datetime | None, t2: datetime | None) -> bool:
    """controller_utils.go afterOrZero."""
    if t1 is None or t2 is None:
        return t1 is None
    return t1 > t2


def deletion_less(a: Pod, ra: int, b: Pod, rb: int, now: datetime) -> bool | None:
    """controller_utils.go ActivePodsWithRanks.Less: True if ``a`` should be deleted before ``b``;
    None when no rule separates them (the caller breaks the tie by name, for determinism)."""
    # 1. Unassigned < assigned
    if a.spec.node_name != b.spec.node_name and (not a.spec.node_name or not b.spec.node_name):
        return not a.spec.node_name
    # 2. PodPending < PodUnknown < PodRunning
    pa, pb = _PHASE_ORDINAL.get(a.phase, 0), _PHASE_ORDINAL.get(b.phase, 0)
    if pa != pb:
        return pa < pb
    # 3. Not ready < ready
    if is_pod_ready(a) != is_pod_ready(b):
        return not is_pod_ready(a)
    # 4. lower pod-deletion-cost < higher pod-deletion-cost (PodDeletionCost, on by default)
    ca, cb = _deletion_cost(a), _deletion_cost(b)
    if ca != cb:
        return ca < cb
    # 5. Doubled up < not doubled up
    if ra != rb:
        return ra > rb
    # 6. Been ready for empty time < less time < more time (both ready: the latest ready goes
    #    first), on LogarithmicScaleDown's log2 scale, equal ranks ordered by uid.
    if is_pod_ready(a) and is_pod_ready(b):
        ra_t, rb_t = ready_time(a), ready_time(b)
        if ra_t != rb_t:
            return _log_less(ra_t, rb_t, a, b, now)
    # 7. Higher restart counts < lower restart counts (compareMaxContainerRestarts: regular
    #    containers, then sidecars)
    if a.restarts != b.restarts:
        return a.restarts > b.restarts
    if a.sidecar_restarts != b.sidecar_restarts:
        return a.sidecar_restarts > b.sidecar_restarts
    # 8. Empty creation time < newer < older, on LogarithmicScaleDown's log2 scale (on by default),
    #    equal ranks ordered by uid.
    ta, tb = parse_time(a.creation_timestamp), parse_time(b.creation_timestamp)
    if ta != tb:
        return _log_less(ta, tb, a, b, now)
    return None


def _log_less(ta: datetime | None, tb: datetime | None, a: Pod, b: Pod, now: datetime) -> bool | None:
    """Rules 6 and 8 for two different times: afterOrZero when either is zero, else the log2
    ranks (logarithmicRankDiff) with the uid as the tie-break."""
    if ta is None or tb is None:
        return _after_or_zero(ta, tb)
    diff = _log_rank(ta, now) - _log_rank(tb, now)
    if diff == 0:
        if a.uid != b.uid:
            return a.uid < b.uid
        return None
    return diff < 0


def ranking_now(now: datetime, pods: Iterable[Pod], observed: datetime | None = None) -> datetime:
    """The "now" the ranking measures ages from (the controller's is the wall clock): the
    simulated clock, or ``observed`` (about when the snapshot was taken: its nodes' latest
    heartbeat) when that is later, or one second past the latest Ready time of ``pods`` when that
    is later still (the ranking's now is after every time it compares, as the controller's is)."""
    latest = now if observed is None or observed <= now else observed
    for p in pods:
        if p.ready_since:
            t = ready_time(p)
            if t is not None and t >= latest:
                latest = t + timedelta(seconds=1)
    return latest
