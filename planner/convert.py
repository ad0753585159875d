"""Decoded, defaulted and validated Kubernetes objects (dicts) -> domain dataclasses.

Runs after planner.validation: shapes are trusted here, values are not re-checked.  Work per pod
is kept small because snapshots hold up to 150,000 pods: sub-structures that repeat across the
pods of one template (affinity, tolerations, spread constraints) are converted once and shared,
keyed by their canonical JSON.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import orjson

from planner.domain import (
    CPU,
    MEMORY,
    Affinity,
    ClaimTemplate,
    ControllerRevision,
    CSINode,
    CSINodeDriver,
    DaemonSet,
    Deployment,
    HorizontalPodAutoscaler,
    HostPort,
    LabelSelector,
    LabelSelectorRequirement,
    LimitRange,
    Namespace,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerRef,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodAffinityTerm,
    PodDisruptionBudget,
    PodSpec,
    PodTemplate,
    PodVolume,
    PreferredSchedulingTerm,
    PriorityClass,
    ReplicaSet,
    RollingUpdateDeployment,
    RuntimeClass,
    StatefulSet,
    StorageClass,
    Taint,
    Toleration,
    TopologySelectorTerm,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from planner.quantity import int_value, milli_value, parse_quantity

_EMPTY: dict = {}
_SHARED_MAX = 1 << 16  # entries of each sharing table (a bound, not a tuning knob)


def _d(v: Any) -> dict:
    return v if isinstance(v, dict) else _EMPTY


def _l(v: Any) -> list:
    return v if isinstance(v, list) else []


def _labels(v: Any) -> dict[str, str]:
    return {str(k): str(x) for k, x in v.items()} if isinstance(v, dict) else {}


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _int64(v: int) -> int:
    """Saturated to int64, as ParseQuantity caps BinarySI: upstream's Value() and MilliValue() are
    int64 (past it, undefined), and the scheduler's arrays are int64 (a DecimalSI 1e308 is no crash)."""
    return min(max(v, _INT64_MIN), _INT64_MAX)


def quantity(name: str, value: Any) -> int:
    """cpu in millicores, everything else in its integer value (rounded up, as upstream)."""
    q = parse_quantity(value)
    return _int64(milli_value(q) if name == CPU else int_value(q))


def resource_list(v: Any) -> dict[str, int]:
    return {str(k): quantity(str(k), x) for k, x in _d(v).items()}


# --------------------------------------------------------------------------- selectors


def label_selector(v: Any) -> LabelSelector | None:
    """None for a null selector (selects nothing), LabelSelector() for {} (selects everything)."""
    if v is None:
        return None
    d = _d(v)
    ml = tuple(sorted((str(k), str(x)) for k, x in _d(d.get("matchLabels")).items()))
    me = tuple(
        LabelSelectorRequirement(str(r.get("key", "")), str(r.get("operator", "")), tuple(str(x) for x in _l(r.get("values"))))
        for r in _l(d.get("matchExpressions"))
    )
    return LabelSelector(ml, me)


def _node_reqs(v: Any) -> tuple[NodeSelectorRequirement, ...]:
    return tuple(
        NodeSelectorRequirement(str(r.get("key", "")), str(r.get("operator", "")), tuple(str(x) for x in _l(r.get("values"))))
        for r in _l(v)
    )


def node_selector_term(v: Any) -> NodeSelectorTerm:
    d = _d(v)
    return NodeSelectorTerm(_node_reqs(d.get("matchExpressions")), _node_reqs(d.get("matchFields")))


def node_selector(v: Any) -> NodeSelector | None:
    if v is None:
        return None
    return NodeSelector(tuple(node_selector_term(t) for t in _l(_d(v).get("nodeSelectorTerms"))))


def _pod_affinity_term(v: Any) -> PodAffinityTerm:
    d = _d(v)
    return PodAffinityTerm(
        label_selector=label_selector(d.get("labelSelector")),
        topology_key=str(d.get("topologyKey", "")),
        namespaces=tuple(str(x) for x in _l(d.get("namespaces"))),
        namespace_selector=label_selector(d.get("namespaceSelector")),
        match_label_keys=tuple(str(x) for x in _l(d.get("matchLabelKeys"))),
        mismatch_label_keys=tuple(str(x) for x in _l(d.get("mismatchLabelKeys"))),
    )


def _weighted_terms(v: Any) -> tuple[WeightedPodAffinityTerm, ...]:
    return tuple(WeightedPodAffinityTerm(int(_d(w).get("weight", 0)), _pod_affinity_term(_d(w).get("podAffinityTerm"))) for w in _l(v))


def _affinity(v: Any) -> Affinity | None:
    if not isinstance(v, dict) or not v:
        return None
    na, pa, paa = _d(v.get("nodeAffinity")), _d(v.get("podAffinity")), _d(v.get("podAntiAffinity"))
    return Affinity(
        node_required=node_selector(na.get("requiredDuringSchedulingIgnoredDuringExecution")),
        node_preferred=tuple(
            PreferredSchedulingTerm(int(_d(p).get("weight", 0)), node_selector_term(_d(p).get("preference")))
            for p in _l(na.get("preferredDuringSchedulingIgnoredDuringExecution"))
        ),
        pod_affinity_required=tuple(_pod_affinity_term(t) for t in _l(pa.get("requiredDuringSchedulingIgnoredDuringExecution"))),
        pod_affinity_preferred=_weighted_terms(pa.get("preferredDuringSchedulingIgnoredDuringExecution")),
        pod_anti_affinity_required=tuple(_pod_affinity_term(t) for t in _l(paa.get("requiredDuringSchedulingIgnoredDuringExecution"))),
        pod_anti_affinity_preferred=_weighted_terms(paa.get("preferredDuringSchedulingIgnoredDuringExecution")),
    )


def _tolerations(v: Any) -> tuple[Toleration, ...]:
    out = []
    for t in _l(v):
        t = _d(t)
        secs = t.get("tolerationSeconds")
        out.append(
            Toleration(
                key=str(t.get("key", "") or ""),
                operator=str(t.get("operator", "") or "Equal"),
                value=str(t.get("value", "") or ""),
                effect=str(t.get("effect", "") or ""),
                toleration_seconds=int(secs) if isinstance(secs, int) else None,
            )
        )
    return tuple(out)


def _spread(v: Any) -> tuple[TopologySpreadConstraint, ...]:
    out = []
    for c in _l(v):
        c = _d(c)
        md = c.get("minDomains")
        out.append(
            TopologySpreadConstraint(
                max_skew=int(c.get("maxSkew", 0)),
                topology_key=str(c.get("topologyKey", "")),
                when_unsatisfiable=str(c.get("whenUnsatisfiable", "")),
                label_selector=label_selector(c.get("labelSelector")),
                min_domains=int(md) if isinstance(md, int) else None,
                # nil policies are treated by the scheduler as Honor / Ignore (podtopologyspread/common.go)
                node_affinity_policy=str(c.get("nodeAffinityPolicy") or "Honor"),
                node_taints_policy=str(c.get("nodeTaintsPolicy") or "Ignore"),
                match_label_keys=tuple(str(x) for x in _l(c.get("matchLabelKeys"))),
            )
        )
    return tuple(out)


class _Memo:
    """Converts a sub-structure once per distinct value (pods of one template share them)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.cache: dict[bytes, Any] = {}

    def __call__(self, v: Any) -> Any:
        if not v:
            return self.fn(v)
        try:
            key = orjson.dumps(v, option=orjson.OPT_SORT_KEYS)
        except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits (a valid quantity): no memo
            return self.fn(v)
        hit = self.cache.get(key)
        if hit is None:
            hit = self.cache[key] = self.fn(v)
        return hit


class Converter:
    """Holds the per-load memo tables; one instance per snapshot load."""

    def __init__(self) -> None:
        self.affinity = _Memo(_affinity)
        self.tolerations = _Memo(_tolerations)
        self.spread = _Memo(_spread)
        self.requests = _Memo(self._requests_uncached)  # -> (effective requests, non-zero requests)
        self.specs: dict[bytes, PodSpec] = {}  # _pod_spec_key -> PodSpec without nodeName and volumes
        # Pods of one controller share their labels, annotations and owner: one object each, not
        # one per pod (150,000 pods' copies are 200 MB).  Read-only, as every domain value is.
        self.maps: dict[tuple[tuple[Any, Any], ...], dict[str, str]] = {}
        self.owners: dict[tuple[str, str, str], OwnerRef] = {}

    def shared_map(self, v: Any) -> dict[str, str]:
        """_labels(v), the same dict for equal mappings (in the same order)."""
        if not isinstance(v, dict) or not v:
            return {}
        try:
            key = tuple(v.items())
            hit = self.maps.get(key)
        except TypeError:  # an unhashable value (validation reports it)
            return _labels(v)
        if hit is None:
            if len(self.maps) >= _SHARED_MAX:
                self.maps.clear()
            hit = self.maps[key] = _labels(v)
        return hit

    def owner(self, md: Mapping[str, Any]) -> OwnerRef | None:
        ref = controller_ref(md)
        if ref is None:
            return None
        key = (ref.kind, ref.name, ref.uid)
        hit = self.owners.get(key)
        if hit is None:
            if len(self.owners) >= _SHARED_MAX:
                self.owners.clear()
            hit = self.owners[key] = ref
        return hit

    # ------------------------------------------------------------------ pod spec

    @staticmethod
    def _requests_uncached(spec: Any) -> tuple[dict[str, int], tuple[int, int]]:
        return effective_requests(_d(spec)), nonzero_requests(_d(spec))

    def pod_spec(self, spec: Mapping[str, Any], pod_name: str = "") -> PodSpec:
        """The pods of one template differ in nodeName and volumes only (for what is read here):
        the rest is converted once per distinct value and shared."""
        key = _pod_spec_key(spec)
        if key is None:
            return self._pod_spec(spec, pod_name)
        base = self.specs.get(key)
        if base is None:
            base = self.specs[key] = self._pod_spec(spec, "", with_volumes=False)
        return PodSpec(
            node_name=sys.intern(str(spec.get("nodeName") or "")),
            node_selector=base.node_selector,
            affinity=base.affinity,
            tolerations=base.tolerations,
            topology_spread_constraints=base.topology_spread_constraints,
            requests=base.requests,
            host_ports=base.host_ports,
            volumes=_volumes(spec, pod_name),
            scheduler_name=base.scheduler_name,
            priority=base.priority,
            images=base.images,
            priority_class_name=base.priority_class_name,
            preemption_policy=base.preemption_policy,
            priority_set=base.priority_set,
            scheduling_gates=base.scheduling_gates,
            runtime_class_name=base.runtime_class_name,
            nonzero=base.nonzero,
        )

    def _pod_spec(self, spec: Mapping[str, Any], pod_name: str, with_volumes: bool = True) -> PodSpec:
        ports: list[HostPort] = []
        images: list[str] = []
        host_network = spec.get("hostNetwork") is True
        containers = _l(spec.get("containers"))
        for i, c in enumerate(containers + _l(spec.get("initContainers"))):
            c = _d(c)
            if "image" in c:
                images.append(str(c["image"]))
            if i >= len(containers) and c.get("restartPolicy") != "Always":
                continue  # NodePorts' getContainerPorts: containers and sidecars only
            for p in _l(c.get("ports")):
                p = _d(p)
                hp = p.get("hostPort")
                if host_network and not hp:
                    hp = p.get("containerPort")  # SetDefaults_Pod: a pod made from a hostNetwork template
                if isinstance(hp, int) and hp > 0:
                    ports.append(HostPort(hp, str(p.get("protocol") or "TCP"), str(p.get("hostIP") or "0.0.0.0")))
        # only what effective_requests reads, so that pods of one template share the memo entry
        req_src = {
            "containers": [{"resources": _d(c).get("resources")} for c in _l(spec.get("containers"))],
            "initContainers": [
                {"resources": _d(c).get("resources"), "restartPolicy": _d(c).get("restartPolicy")} for c in _l(spec.get("initContainers"))
            ],
            "overhead": spec.get("overhead"),
            "resources": spec.get("resources"),
        }
        prio = spec.get("priority")
        requests, nonzero = self.requests(req_src)
        return PodSpec(
            node_name=str(spec.get("nodeName") or ""),
            node_selector=_labels(spec.get("nodeSelector")),
            affinity=self.affinity(spec.get("affinity")),
            tolerations=self.tolerations(spec.get("tolerations")),
            topology_spread_constraints=self.spread(spec.get("topologySpreadConstraints")),
            requests=requests,
            nonzero=nonzero,
            host_ports=tuple(ports),
            volumes=_volumes(spec, pod_name) if with_volumes else (),
            scheduler_name=str(spec.get("schedulerName") or "default-scheduler"),
            priority=int(prio) if isinstance(prio, int) else 0,
            images=tuple(images),
            priority_class_name=str(spec.get("priorityClassName") or ""),
            preemption_policy=str(spec.get("preemptionPolicy") or ""),
            priority_set=isinstance(prio, int) and not isinstance(prio, bool),
            scheduling_gates=tuple(str(_d(g).get("name", "")) for g in _l(spec.get("schedulingGates"))),
            runtime_class_name=str(spec.get("runtimeClassName") or ""),
        )

    def template(self, v: Any) -> PodTemplate:
        d = _d(v)
        md = _d(d.get("metadata"))
        return PodTemplate(
            labels=_labels(md.get("labels")),
            spec=self.pod_spec(_d(d.get("spec"))),
            annotations=_labels(md.get("annotations")),
            rest=template_rest(d),
        )

    # ------------------------------------------------------------------ objects

    def pod(self, o: dict) -> Pod:
        md, spec, st = _d(o.get("metadata")), _d(o.get("spec")), _d(o.get("status"))
        name = str(md.get("name", ""))
        return Pod(
            namespace=sys.intern(str(md.get("namespace") or "default")),
            name=name,
            labels=self.shared_map(md.get("labels")),
            spec=self.pod_spec(spec, name),
            phase=sys.intern(str(st.get("phase") or "Pending")),
            terminating=md.get("deletionTimestamp") is not None,
            owner=self.owner(md),
            uid=str(md.get("uid", "")),
            annotations=self.shared_map(md.get("annotations")),
            creation_timestamp=str(md.get("creationTimestamp") or ""),
            nominated_node_name=str(st.get("nominatedNodeName") or ""),
            start_time=str(st.get("startTime") or ""),
            **_ready_condition(spec, st),
            **_restarts(spec, st),
        )

    def deployment(self, o: dict) -> Deployment:
        md, spec = _d(o.get("metadata")), _d(o.get("spec"))
        strat = _d(spec.get("strategy"))
        stype = str(strat.get("type") or "RollingUpdate")
        ru = _d(strat.get("rollingUpdate"))
        rolling = (
            RollingUpdateDeployment(ru.get("maxSurge", "25%"), ru.get("maxUnavailable", "25%")) if stype == "RollingUpdate" else None
        )
        return Deployment(
            namespace=str(md.get("namespace") or "default"),
            name=str(md.get("name", "")),
            replicas=int(spec.get("replicas", 1)),
            selector=label_selector(spec.get("selector")) or LabelSelector(),
            template=self.template(spec.get("template")),
            strategy_type=stype,
            rolling_update=rolling,
            labels=_labels(md.get("labels")),
            annotations=_labels(md.get("annotations")),
            min_ready_seconds=int(spec.get("minReadySeconds", 0) or 0),
            paused=bool(spec.get("paused", False)),
            revision_history_limit=int(spec.get("revisionHistoryLimit", 10) if spec.get("revisionHistoryLimit") is not None else 10),
            progress_deadline_seconds=int(spec.get("progressDeadlineSeconds", 600) or 600),
            uid=str(md.get("uid", "")),
        )

    def replicaset(self, o: dict) -> ReplicaSet:
        md, spec = _d(o.get("metadata")), _d(o.get("spec"))
        return ReplicaSet(
            namespace=str(md.get("namespace") or "default"),
            name=str(md.get("name", "")),
            replicas=int(spec.get("replicas", 1)),
            selector=label_selector(spec.get("selector")) or LabelSelector(),
            template=self.template(spec.get("template")),
            owner=controller_ref(md),
            labels=_labels(md.get("labels")),
            annotations=_labels(md.get("annotations")),
            uid=str(md.get("uid", "")),
            creation_timestamp=str(md.get("creationTimestamp") or ""),
            min_ready_seconds=int(spec.get("minReadySeconds", 0) or 0),
        )

    def daemonset(self, o: dict) -> DaemonSet:
        """apps/v1 DaemonSet (defaulted: SetDefaults_DaemonSet)."""
        md, spec = _d(o.get("metadata")), _d(o.get("spec"))
        us = _d(spec.get("updateStrategy"))
        ru = _d(us.get("rollingUpdate"))
        mu, ms = ru.get("maxUnavailable"), ru.get("maxSurge")
        return DaemonSet(
            namespace=str(md.get("namespace") or "default"),
            name=str(md.get("name", "")),
            selector=label_selector(spec.get("selector")) or LabelSelector(),
            template=self.template(spec.get("template")),
            update_strategy_type=str(us.get("type") or "RollingUpdate"),
            max_unavailable=mu if isinstance(mu, (int, str)) else 1,
            max_surge=ms if isinstance(ms, (int, str)) else 0,
            min_ready_seconds=int(spec.get("minReadySeconds", 0) or 0),
            labels=_labels(md.get("labels")),
            annotations=_labels(md.get("annotations")),
            uid=str(md.get("uid", "")),
        )

    def statefulset(self, o: dict) -> StatefulSet:
        md, spec, st = _d(o.get("metadata")), _d(o.get("spec")), _d(o.get("status"))
        us = _d(spec.get("updateStrategy"))
        ru = _d(us.get("rollingUpdate"))
        ret = _d(spec.get("persistentVolumeClaimRetentionPolicy"))
        vcts = []
        for t in _l(spec.get("volumeClaimTemplates")):
            t = _d(t)
            tmd, tspec = _d(t.get("metadata")), _d(t.get("spec"))
            req = _d(_d(tspec.get("resources")).get("requests")).get("storage")
            vcts.append(
                ClaimTemplate(
                    name=str(tmd.get("name", "")),
                    labels=_labels(tmd.get("labels")),
                    storage_class=_claim_class(tmd, tspec),
                    request=_int64(int_value(parse_quantity(req))) if req is not None else 0,
                    access_modes=tuple(str(x) for x in _l(tspec.get("accessModes"))),
                    selector=label_selector(tspec.get("selector")),
                    volume_mode=str(tspec.get("volumeMode") or "Filesystem"),
                )
            )
        return StatefulSet(
            namespace=str(md.get("namespace") or "default"),
            name=str(md.get("name", "")),
            replicas=int(spec.get("replicas", 1)),
            selector=label_selector(spec.get("selector")) or LabelSelector(),
            template=self.template(spec.get("template")),
            service_name=str(spec.get("serviceName") or ""),
            pod_management_policy=str(spec.get("podManagementPolicy") or "OrderedReady"),
            update_strategy_type=str(us.get("type") or "RollingUpdate"),
            partition=int(ru.get("partition", 0) or 0),
            max_unavailable=ru.get("maxUnavailable"),
            volume_claim_templates=tuple(vcts),
            retention_when_deleted=str(ret.get("whenDeleted") or "Retain"),
            retention_when_scaled=str(ret.get("whenScaled") or "Retain"),
            ordinals_start=int(_d(spec.get("ordinals")).get("start", 0) or 0),
            min_ready_seconds=int(spec.get("minReadySeconds", 0) or 0),
            labels=_labels(md.get("labels")),
            annotations=_labels(md.get("annotations")),
            current_revision=str(st.get("currentRevision") or ""),
            update_revision=str(st.get("updateRevision") or ""),
            uid=str(md.get("uid", "")),
        )


def _ready_condition(spec: Mapping[str, Any], st: Mapping[str, Any]) -> dict[str, Any]:
    """The pod's Ready condition (pkg/api/v1/pod/util.go GetPodReadyCondition), as Pod.ready and
    Pod.ready_since, for a pod that runs on a node and carries status.conditions: ready when the
    Ready condition's status is "True" (IsPodReadyConditionTrue), not ready when it is anything
    else or missing.  A pod without conditions (a hand-written manifest) and a pod that is not
    Running on a node (the replay binds and starts it) get None: Running on a node means Ready."""
    conds = st.get("conditions")
    if not isinstance(conds, list) or not conds or st.get("phase") != "Running" or not spec.get("nodeName"):
        return {}
    for c in conds:
        if isinstance(c, dict) and c.get("type") == "Ready":
            return {"ready": c.get("status") == "True", "ready_since": str(c.get("lastTransitionTime") or "")}
    return {"ready": False}


def _restarts(spec: Mapping[str, Any], st: Mapping[str, Any]) -> dict[str, Any]:
    """controller_utils.go maxContainerRestarts: the most restarts of a regular container and of a
    sidecar (an init container of restartPolicy Always), as Pod.restarts and Pod.sidecar_restarts
    ({} when none restarted)."""
    out: dict[str, Any] = {}
    n = 0
    for c in _l(st.get("containerStatuses")):
        r = _d(c).get("restartCount")
        if type(r) is int and r > n:
            n = r
    if n > 0:
        out["restarts"] = n
    init_statuses = _l(st.get("initContainerStatuses"))
    if init_statuses:
        sidecars = {_d(c).get("name") for c in _l(spec.get("initContainers")) if _d(c).get("restartPolicy") == "Always"}
        n = 0
        for c in init_statuses:
            r = _d(c).get("restartCount")
            if _d(c).get("name") in sidecars and type(r) is int and r > n:
                n = r
        if n > 0:
            out["sidecar_restarts"] = n
    return out


def _volumes(spec: Mapping[str, Any], pod_name: str) -> tuple[PodVolume, ...]:
    vols: list[PodVolume] = []
    for v in _l(spec.get("volumes")):
        v = _d(v)
        name = str(v.get("name", ""))
        pvc = v.get("persistentVolumeClaim")
        if isinstance(pvc, dict):
            vols.append(PodVolume(name, str(pvc.get("claimName", "")), False, bool(pvc.get("readOnly", False))))
        elif isinstance(v.get("ephemeral"), dict):
            # ephemeral.go: the claim of a generic ephemeral volume is named <pod>-<volume>
            vols.append(PodVolume(name, f"{pod_name}-{name}", True, False))
    return tuple(vols)


def _pod_spec_key(spec: Mapping[str, Any]) -> bytes | None:
    """Everything Converter._pod_spec reads but nodeName and volumes, as JSON (None when it
    is not plain JSON data: converted without the memo)."""
    parts: list[Any] = [
        spec.get("nodeSelector"),
        spec.get("affinity"),
        spec.get("tolerations"),
        spec.get("topologySpreadConstraints"),
        spec.get("overhead"),
        spec.get("resources"),
        spec.get("schedulerName"),
        spec.get("hostNetwork"),
        spec.get("schedulingGates"),
        spec.get("runtimeClassName"),
        spec.get("priority"),
        spec.get("priorityClassName"),
        spec.get("preemptionPolicy"),
    ]
    for c in _l(spec.get("containers")):
        c = _d(c)
        parts.append(("image" in c, c.get("image"), c.get("ports"), c.get("resources")))
    parts.append(0)  # containers | init containers
    for c in _l(spec.get("initContainers")):
        c = _d(c)
        parts.append(("image" in c, c.get("image"), c.get("ports"), c.get("resources"), c.get("restartPolicy")))
    try:
        return orjson.dumps(parts)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _pruned(v: Any) -> Any:
    """``v`` without the empty values (null, {}, [], "") that an object the API server wrote and
    one written by hand differ by while meaning the same (``securityContext: {}``, ``hostPath.type:
    ""``, ``creationTimestamp: null``); false and 0 are kept (a pointer field set to false is not
    one left out)."""
    t = type(v)
    if t is dict:
        out = {}
        for k, x in v.items():
            tx = type(x)
            if tx is dict or tx is list:
                x = _pruned(x)
                if not x:
                    continue
            elif x is None or (tx is str and not x):
                continue
            out[k] = x
        return out
    if t is list:
        return [_pruned(x) if type(x) is dict or type(x) is list else x for x in v]
    return v


def template_rest(t: Mapping[str, Any]) -> str:
    """PodTemplate.rest: a digest of the template (defaulted, its empty values left out) without
    its labels, annotations and containers' images.

    deployment_util.go EqualIgnoreHash deep-compares two templates without pod-template-hash;
    planner's template holds what the scheduler reads, and this digest stands for the rest, so
    that an environment, command or probe change is a new template as it is upstream (a
    Deployment whose template changed only there gets a new ReplicaSet: a rollout).  The fields
    left out are those the template's own fields hold exactly and the replay may change."""
    import hashlib

    md = {k: v for k, v in _d(t.get("metadata")).items() if k not in ("labels", "annotations")}
    spec = dict(_d(t.get("spec")))
    # v1 conversion writes the deprecated serviceAccount as serviceAccountName (and reads it when
    # serviceAccountName is empty): one field, however it was written
    account = spec.pop("serviceAccountName", None) or spec.pop("serviceAccount", None)
    spec.pop("serviceAccount", None)
    if account:
        spec["serviceAccountName"] = account
    for key in ("containers", "initContainers"):
        cs = spec.get(key)
        if type(cs) is list:
            spec[key] = [{k: v for k, v in c.items() if k != "image"} if type(c) is dict else c for c in cs]
    doc = _pruned({**{k: v for k, v in t.items() if k not in ("metadata", "spec")}, "metadata": md, "spec": spec})
    try:
        b = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits: the standard encoder
        import json

        b = json.dumps(doc, sort_keys=True, separators=(",", ":"), default=repr).encode()
    return hashlib.blake2b(b, digest_size=12).hexdigest()


def controller_ref(md: Mapping[str, Any]) -> OwnerRef | None:
    """metav1.GetControllerOf: the ownerReference with controller: true."""
    for r in _l(md.get("ownerReferences")):
        r = _d(r)
        if r.get("controller") is True:
            return OwnerRef(str(r.get("kind", "")), str(r.get("name", "")), str(r.get("uid", "")), True)
    return None


def _add(into: dict[str, int], res: Mapping[str, int]) -> None:
    for k, v in res.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, int], res: Mapping[str, int]) -> None:
    for k, v in res.items():
        if v > into.get(k, 0):
            into[k] = v


# pkg/scheduler/util/pod_resources.go DefaultMilliCPURequest and DefaultMemoryRequest: what the
# scoring (resource_allocation.go calculatePodResourceRequest, NodeInfo.NonZeroRequested) counts
# for a container without a cpu (memory) request: PodResourcesOptions.NonMissingContainerRequests.
NON_MISSING = {CPU: 100, MEMORY: 200 * 1024 * 1024}


def _container_requests(
    c: Mapping[str, Any], admitted: Mapping[str, int] | None = None, non_missing: Mapping[str, int] | None = None
) -> dict[str, int]:
    r = _d(c.get("resources"))
    reqs = resource_list(r.get("requests"))
    # core/v1 defaults.go SetDefaults_Pod: a limit without a request defaults the request.
    for k, v in resource_list(r.get("limits")).items():
        reqs.setdefault(k, v)
    if admitted:  # then the LimitRanger admission plugin: its default requests for the rest
        for k, v in admitted.items():
            reqs.setdefault(k, v)
    if non_missing:  # applyNonMissing: the scoring's defaults for what is still missing
        for k, v in non_missing.items():
            reqs.setdefault(k, v)
    return reqs


def nonzero_requests(
    spec: Mapping[str, Any], container_defaults: Mapping[str, int] | None = None, overhead: Mapping[str, int] | None = None
) -> tuple[int, int]:
    """PodSpec.nonzero: (milli-cpu, memory) of resourcehelper.PodRequests with
    NonMissingContainerRequests (NON_MISSING per container and init container, before the
    sidecar and init-container aggregation; pod-level requests and overhead as effective_requests)."""
    r = effective_requests(spec, container_defaults, overhead, NON_MISSING)
    return r.get(CPU, 0), r.get(MEMORY, 0)


def effective_requests(
    spec: Mapping[str, Any],
    container_defaults: Mapping[str, int] | None = None,
    overhead: Mapping[str, int] | None = None,
    non_missing: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """k8s.io/component-helpers/resource/helpers.go PodRequests (what NodeResourcesFit uses).

    Sum of containers; restartable init containers (sidecars, restartPolicy Always) add to the
    sum and to every later init container's peak; the result is the max of that sum and the
    largest init container peak; pod-level spec.resources.requests (PodLevelResources) replace
    the container aggregate for the resources they set, pod-level limits defaulting them as the
    API server does (defaultPodRequests); spec.overhead is added last.

    ``container_defaults``: the LimitRange default requests admission gives every container
    without its own (planner.load.admission); ``overhead``: the RuntimeClass's, for a spec without
    one (the RuntimeClass admission plugin sets it); ``non_missing``: NonMissingContainerRequests
    (NON_MISSING: the scoring's), which do not take part in the pod-level defaults (the API server
    set those when it stored the pod).
    """
    reqs = _aggregate(spec, container_defaults, non_missing)
    pod_resources = _d(spec.get("resources"))
    pod_level = resource_list(_d(pod_resources.get("requests")))
    pod_limits = resource_list(_d(pod_resources.get("limits")))
    if pod_limits:
        # core/v1 defaults.go defaultPodRequests (SetDefaults_Pod, PodLevelResources on by
        # default since v1.34): with pod-level limits, a supported resource without a pod-level
        # request takes the containers' aggregate request, else the pod-level limit
        aggregate = reqs if not non_missing else _aggregate(spec, container_defaults, None)
        for k, v in [*aggregate.items(), *pod_limits.items()]:
            if k not in pod_level and (k in ("cpu", "memory") or k.startswith("hugepages-")):
                pod_level[k] = v
    for k, v in pod_level.items():
        reqs[k] = v
    _add(reqs, resource_list(spec.get("overhead")) if spec.get("overhead") or overhead is None else dict(overhead))
    return reqs


def _aggregate(spec: Mapping[str, Any], container_defaults: Mapping[str, int] | None, non_missing: Mapping[str, int] | None) -> dict[str, int]:
    """helpers.go AggregateContainerRequests (aggregateContainerResourcesByFn)."""
    reqs: dict[str, int] = {}
    for c in _l(spec.get("containers")):
        _add(reqs, _container_requests(_d(c), container_defaults, non_missing))
    restartable: dict[str, int] = {}
    init_peak: dict[str, int] = {}
    for c in _l(spec.get("initContainers")):
        c = _d(c)
        creq = _container_requests(c, container_defaults, non_missing)
        if c.get("restartPolicy") == "Always":
            _add(reqs, creq)
            _add(restartable, creq)
            peak = dict(restartable)
        else:
            peak = dict(creq)
            _add(peak, restartable)
        _max(init_peak, peak)
    _max(reqs, init_peak)
    return reqs


def _claim_class(md: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    """storage/util GetPersistentVolumeClaimClass: the beta annotation wins over the field."""
    ann = _d(md.get("annotations"))
    if "volume.beta.kubernetes.io/storage-class" in ann:
        return str(ann["volume.beta.kubernetes.io/storage-class"])
    sc = spec.get("storageClassName")
    return None if sc is None else str(sc)


def node(o: dict, notes: list[str]) -> Node:
    md, spec, st = _d(o.get("metadata")), _d(o.get("spec")), _d(o.get("status"))
    name = str(md.get("name", ""))
    alloc_src = st.get("allocatable")
    if not isinstance(alloc_src, dict) or not alloc_src:
        alloc_src = st.get("capacity")
        if isinstance(alloc_src, dict) and alloc_src:
            notes.append(f"Node {name}: no status.allocatable; using status.capacity as the kubelet would report it")
        else:
            notes.append(f"Node {name}: no status.allocatable or status.capacity: the scheduler sees no room on it")
    taints = tuple(
        Taint(str(_d(t).get("key", "")), str(_d(t).get("value", "") or ""), str(_d(t).get("effect", ""))) for t in _l(spec.get("taints"))
    )
    return Node(
        name=name,
        labels=_labels(md.get("labels")),
        taints=taints,
        unschedulable=bool(spec.get("unschedulable", False)),
        allocatable=resource_list(alloc_src),
        uid=str(md.get("uid", "")),
        ready=_node_ready(st),
        heartbeat=max((str(_d(c).get("lastHeartbeatTime")) for c in _l(st.get("conditions")) if _d(c).get("lastHeartbeatTime")), default=""),
        images=_node_images(st),
    )


def _node_images(st: Mapping[str, Any]) -> dict[str, int]:
    """status.images as name -> sizeBytes (every name of an image stands for it; the first
    image to report a name gives its size)."""
    out: dict[str, int] = {}
    for img in _l(st.get("images")):
        img = _d(img)
        size = img.get("sizeBytes")
        size = size if isinstance(size, int) and not isinstance(size, bool) else 0
        for n in _l(img.get("names")):
            if isinstance(n, str) and n not in out:
                out[sys.intern(n)] = size
    return out


def _node_ready(st: Mapping[str, Any]) -> bool | None:
    """status.conditions[type=Ready] is True (None when the node reports no Ready condition)."""
    for c in _l(st.get("conditions")):
        c = _d(c)
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return None


def persistent_volume(o: dict) -> PersistentVolume:
    md, spec, st = _d(o.get("metadata")), _d(o.get("spec")), _d(o.get("status"))
    cref = spec.get("claimRef")
    claim = None
    claim_uid = ""
    if isinstance(cref, dict) and cref.get("name"):
        claim = (str(cref.get("namespace") or "default"), str(cref["name"]))
        claim_uid = str(cref.get("uid", ""))
    ann = _d(md.get("annotations"))
    sc = ann.get("volume.beta.kubernetes.io/storage-class", spec.get("storageClassName", ""))
    cap = _d(spec.get("capacity")).get("storage")
    return PersistentVolume(
        name=str(md.get("name", "")),
        labels=_labels(md.get("labels")),
        capacity=_int64(int_value(parse_quantity(cap))) if cap is not None else 0,
        storage_class=str(sc or ""),
        access_modes=tuple(str(x) for x in _l(spec.get("accessModes"))),
        node_affinity=node_selector(_d(spec.get("nodeAffinity")).get("required")),
        claim_ref=claim,
        claim_uid=claim_uid,
        phase=str(st.get("phase") or ("Bound" if claim else "Available")),
        reclaim_policy=str(spec.get("persistentVolumeReclaimPolicy") or "Retain"),
        volume_mode=str(spec.get("volumeMode") or "Filesystem"),
        uid=str(md.get("uid", "")),
        csi_driver=str(_d(spec.get("csi")).get("driver") or ""),
        csi_volume_handle=str(_d(spec.get("csi")).get("volumeHandle") or ""),
    )


def persistent_volume_claim(o: dict) -> PersistentVolumeClaim:
    md, spec, st = _d(o.get("metadata")), _d(o.get("spec")), _d(o.get("status"))
    req = _d(_d(spec.get("resources")).get("requests")).get("storage")
    return PersistentVolumeClaim(
        namespace=str(md.get("namespace") or "default"),
        name=str(md.get("name", "")),
        labels=_labels(md.get("labels")),
        storage_class=_claim_class(md, spec),
        volume_name=str(spec.get("volumeName") or ""),
        phase=str(st.get("phase") or "Pending"),
        request=_int64(int_value(parse_quantity(req))) if req is not None else 0,
        access_modes=tuple(str(x) for x in _l(spec.get("accessModes"))),
        selector=label_selector(spec.get("selector")),
        volume_mode=str(spec.get("volumeMode") or "Filesystem"),
        annotations=_labels(md.get("annotations")),
        owner=controller_ref(md),
        uid=str(md.get("uid", "")),
        terminating=md.get("deletionTimestamp") is not None,
    )


def storage_class(o: dict) -> StorageClass:
    md = _d(o.get("metadata"))
    ann = _d(md.get("annotations"))
    default = (
        ann.get("storageclass.kubernetes.io/is-default-class") == "true"
        or ann.get("storageclass.beta.kubernetes.io/is-default-class") == "true"
    )
    topo = []
    for t in _l(o.get("allowedTopologies")):
        reqs = tuple(
            (str(_d(e).get("key", "")), tuple(str(x) for x in _l(_d(e).get("values"))))
            for e in _l(_d(t).get("matchLabelExpressions"))
        )
        topo.append(TopologySelectorTerm(reqs))
    return StorageClass(
        name=str(md.get("name", "")),
        provisioner=str(o.get("provisioner", "")),
        volume_binding_mode=str(o.get("volumeBindingMode") or "Immediate"),
        allowed_topologies=tuple(topo),
        reclaim_policy=str(o.get("reclaimPolicy") or "Delete"),
        is_default=default,
    )


def csi_node(o: dict) -> CSINode:
    """storage.k8s.io/v1 CSINode: spec.drivers[].name, nodeID, allocatable.count, and the
    migrated-plugins annotation (pkg/scheduler/framework/plugins/nodevolumelimits/utils.go
    isCSIMigrationOn reads it)."""
    md, spec = _d(o.get("metadata")), _d(o.get("spec"))
    drivers = []
    for d in _l(spec.get("drivers")):
        d = _d(d)
        count = _d(d.get("allocatable")).get("count")
        drivers.append(CSINodeDriver(str(d.get("name", "")), str(d.get("nodeID", "")), int(count) if count is not None else None))
    mpa = str(_d(md.get("annotations")).get("storage.alpha.kubernetes.io/migrated-plugins") or "")
    return CSINode(
        name=str(md.get("name", "")),
        drivers=tuple(drivers),
        migrated_plugins=frozenset(x for x in mpa.split(",") if x),
    )


def hpa(o: dict) -> HorizontalPodAutoscaler:
    md, spec = _d(o.get("metadata")), _d(o.get("spec"))
    ref = _d(spec.get("scaleTargetRef"))
    mn = spec.get("minReplicas")
    return HorizontalPodAutoscaler(
        namespace=str(md.get("namespace") or "default"),
        name=str(md.get("name", "")),
        target_kind=str(ref.get("kind", "")),
        target_name=str(ref.get("name", "")),
        min_replicas=int(mn) if isinstance(mn, int) else 1,
        max_replicas=int(spec.get("maxReplicas", 1)),
        target_api_version=str(ref.get("apiVersion", "apps/v1")),
    )


def pdb(o: dict) -> PodDisruptionBudget:
    md, spec = _d(o.get("metadata")), _d(o.get("spec"))
    return PodDisruptionBudget(
        namespace=str(md.get("namespace") or "default"),
        name=str(md.get("name", "")),
        selector=label_selector(spec.get("selector")),
        min_available=spec.get("minAvailable"),
        max_unavailable=spec.get("maxUnavailable"),
        unhealthy_pod_eviction_policy=str(spec.get("unhealthyPodEvictionPolicy") or ""),
    )


def priority_class(o: dict) -> PriorityClass:
    """scheduling.k8s.io/v1 PriorityClass (defaulted: preemptionPolicy PreemptLowerPriority)."""
    md = _d(o.get("metadata"))
    value = o.get("value")
    return PriorityClass(
        name=str(md.get("name", "")),
        value=int(value) if isinstance(value, int) else 0,
        global_default=o.get("globalDefault") is True,
        preemption_policy=str(o.get("preemptionPolicy") or "PreemptLowerPriority"),
    )


def controller_revision(o: dict, conv: Converter | None = None) -> ControllerRevision:
    """apps/v1 ControllerRevision: its owner, revision number and, for a StatefulSet's (data
    {"spec": {"template": ...}}, stateful_set_utils.go getPatch), the pod template; a template
    that cannot be read is None (the API server keeps data as raw JSON: nothing validated it)."""
    md = _d(o.get("metadata"))
    t = _d(_d(_d(o.get("data")).get("spec")).get("template"))
    template = None
    if t:
        try:
            template = (conv or Converter()).template({k: v for k, v in t.items() if k != "$patch"})
        except (TypeError, ValueError, AttributeError, KeyError, ArithmeticError):
            template = None
    rev = o.get("revision")
    return ControllerRevision(
        namespace=str(md.get("namespace") or "default"),
        name=str(md.get("name", "")),
        owner=controller_ref(md),
        revision=rev if isinstance(rev, int) and not isinstance(rev, bool) else 0,
        template=template,
    )


def limit_range_defaults(limit_ranges: Mapping[str, LimitRange], namespace: str) -> dict[str, int]:
    """The default requests LimitRanger gives a container in ``namespace``: its LimitRanges in
    name order, each setting only what the ones before did not (plugin/pkg/admission/limitranger
    PodMutateLimitFunc, mergeContainerResources)."""
    out: dict[str, int] = {}
    for _, lr in sorted((k, lr) for k, lr in limit_ranges.items() if lr.namespace == namespace):
        for k, v in lr.default_request.items():
            out.setdefault(k, v)
    return out


def admitted(
    spec: PodSpec, raw_spec: Mapping[str, Any], defaults: Mapping[str, int], runtime_classes: Mapping[str, RuntimeClass]
) -> tuple[PodSpec, str]:
    """(``spec`` -- a template's or a manifest's, converted from ``raw_spec`` -- as the LimitRanger
    and RuntimeClass admission plugins make a new pod's, "") or, where admission would refuse
    such a pod, (``spec`` with only the LimitRange defaults, why).  ``defaults``:
    limit_range_defaults of the pod's namespace.  RuntimeClass admission
    (plugin/pkg/admission/runtimeclass): overhead.podFixed as spec.overhead (a pod with its own
    overhead keeps it), the class's nodeSelector merged into the pod's (a key set to another value
    is a conflict admission refuses) and its tolerations added."""
    rc_name = spec.runtime_class_name
    rc = runtime_classes.get(rc_name) if rc_name else None
    why = ""
    if rc_name and rc is None:
        why = f"RuntimeClass {rc_name} was not read: its overhead and scheduling are not applied"
    elif rc is not None and any(spec.node_selector.get(k, v) != v for k, v in rc.node_selector.items()):
        why = f"its nodeSelector conflicts with RuntimeClass {rc.name}'s scheduling.nodeSelector: admission would refuse its pods"
        rc = None
    if not defaults and rc is None:
        return spec, why
    overhead = rc.overhead if rc is not None and rc.overhead and not raw_spec.get("overhead") else None
    requests = effective_requests(raw_spec, defaults or None, overhead)
    nonzero = nonzero_requests(raw_spec, defaults or None, overhead)
    node_selector, tolerations = spec.node_selector, spec.tolerations
    if rc is not None:
        node_selector = {**rc.node_selector, **spec.node_selector}
        tolerations = spec.tolerations + tuple(t for t in rc.tolerations if t not in spec.tolerations)
    same = requests == dict(spec.requests) and nonzero == spec.nonzero
    if same and node_selector == dict(spec.node_selector) and tolerations == spec.tolerations:
        return spec, why
    return replace(spec, requests=requests, nonzero=nonzero, node_selector=node_selector, tolerations=tolerations), why


def limit_range(o: dict) -> LimitRange:
    """v1 LimitRange (defaulted: SetDefaults_LimitRangeItem): the default requests of its
    Container items (defaultContainerResourceRequirements reads them in order, each overwriting
    the one before: the last item to set a resource wins)."""
    md = _d(o.get("metadata"))
    req: dict[str, int] = {}
    for item in _l(_d(o.get("spec")).get("limits")):
        item = _d(item)
        if item.get("type") == "Container":
            req.update(resource_list(item.get("defaultRequest")))
    return LimitRange(namespace=str(md.get("namespace") or "default"), name=str(md.get("name", "")), default_request=req)


def runtime_class(o: dict, conv: Converter | None = None) -> RuntimeClass:
    """node.k8s.io/v1 RuntimeClass: overhead.podFixed, scheduling.nodeSelector and tolerations."""
    md = _d(o.get("metadata"))
    sched = _d(o.get("scheduling"))
    return RuntimeClass(
        name=str(md.get("name", "")),
        overhead=resource_list(_d(o.get("overhead")).get("podFixed")),
        node_selector=_labels(sched.get("nodeSelector")),
        tolerations=(conv or Converter()).tolerations(sched.get("tolerations")),
    )


def namespace(o: dict) -> Namespace:
    md = _d(o.get("metadata"))
    return Namespace(name=str(md.get("name", "")), labels=_labels(md.get("labels")))
