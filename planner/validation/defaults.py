"""The API server's defaults for the fields planner reads, applied in place to decoded objects.

Ports, at Kubernetes v1.37 with its default feature gates, of:

* pkg/apis/core/v1/defaults.go and zz_generated.defaults.go -- SetDefaults_Pod (requests default
  to limits, hostNetwork host ports), SetDefaults_PodSpec (dnsPolicy, restartPolicy,
  terminationGracePeriodSeconds, schedulerName), SetDefaults_Container (imagePullPolicy,
  terminationMessagePath/Policy), SetDefaults_ContainerPort (protocol TCP), SetDefaults_Volume
  (a volume without a source is an emptyDir), SetDefaults_ResourceList (quantities rounded up to
  milli precision), SetDefaults_PersistentVolume (reclaim policy Retain, volumeMode Filesystem),
  SetDefaults_PersistentVolumeClaimSpec (volumeMode Filesystem), SetDefaults_NodeStatus
  (allocatable defaults to capacity), SetDefaults_Namespace (the kubernetes.io/metadata.name
  label);
* pkg/apis/apps/v1/defaults.go -- SetDefaults_Deployment, SetDefaults_ReplicaSet,
  SetDefaults_DaemonSet (RollingUpdate, maxUnavailable 1,
  maxSurge 0), SetDefaults_StatefulSet (updateStrategy.rollingUpdate.maxUnavailable 1 with the
  MaxUnavailableStatefulSet gate, on by default from v1.37), and the pod-template defaults zz_generated.defaults.go applies to their
  templates (SetDefaults_PodSpec and the container, port, volume and resource-list defaults -- not
  SetDefaults_Pod, which is for pods only);
* pkg/apis/autoscaling/v2/defaults.go -- SetDefaults_HorizontalPodAutoscaler (minReplicas 1, a
  CPU 80% metric when none, behavior rules filled in when a behavior is given);
* pkg/apis/storage/v1/defaults.go -- SetDefaults_StorageClass (reclaimPolicy Delete,
  volumeBindingMode Immediate);
* policy/v1 has no defaulter for PodDisruptionBudget.

Verified *not* defaulted by the API server, so left alone here:

* a toleration's empty operator (validation and ToleratesTaint treat "" as Equal;
  zz_generated.defaults.go has no toleration defaulter);
* topologySpreadConstraints nodeAffinityPolicy / nodeTaintsPolicy (nil; the scheduler's
  PodTopologySpread plugin reads nil as Honor / Ignore);
* pod.spec.priority (set by the Priority admission plugin from priorityClassName, not a default).

Also left alone: status phases (PersistentVolume Pending, PersistentVolumeClaim Pending, Namespace
Active) -- controllers own status and planner reads the phase a snapshot carries -- and the
pod-level resources defaults (spec.resources, which planner does not read).

One addition that is not an API server default: a namespaced object without metadata.namespace
gets "default", which is what kubectl sends for it (the request's namespace).
"""

from __future__ import annotations

from typing import Any

from planner import quantity as qty
from planner.validation.core import POD_VOLUME_SOURCE_KEYS

# pkg/features MaxUnavailableStatefulSet: on by default in v1.37 (kubernetes#139466; off in v1.36).
# The same gate as planner.controllers.statefulset.MAX_UNAVAILABLE_STATEFULSET.
MAX_UNAVAILABLE_STATEFULSET = True

NAMESPACED_KINDS = frozenset(
    (
        "Pod",
        "PersistentVolumeClaim",
        "Deployment",
        "ReplicaSet",
        "StatefulSet",
        "DaemonSet",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "LimitRange",
        "ControllerRevision",
    )
)

LABEL_METADATA_NAME = "kubernetes.io/metadata.name"
_SOURCE_KEYS = frozenset(POD_VOLUME_SOURCE_KEYS)
DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30


def _dict(d: dict, key: str) -> dict | None:  # type: ignore[type-arg]
    """d[key] when it is an object; None otherwise (wrong types are validation's business)."""
    v = d.get(key)
    return v if type(v) is dict else None


def _list(d: dict, key: str) -> list:  # type: ignore[type-arg]
    v = d.get(key)
    return v if type(v) is list else []


def _ensure_dict(d: dict, key: str) -> dict | None:  # type: ignore[type-arg]
    """d[key], created empty when absent or null; None when it has another type."""
    v = d.get(key)
    if v is None:
        v = {}
        d[key] = v
    return v if type(v) is dict else None


# --------------------------------------------------------------------------- core/v1


_MILLI_EXACT: set[str] = set()  # quantity strings known to need no rounding


def default_resource_list(rl: Any) -> None:
    """SetDefaults_ResourceList: Quantity.RoundUp(milli) on every value (a value with sub-milli
    precision is replaced by its rounded canonical string; malformed values are left for
    validation to report)."""
    if type(rl) is not dict:
        return
    for k, v in rl.items():
        if type(v) is str:
            if v in _MILLI_EXACT:
                continue
        elif type(v) is int or isinstance(v, (bool, dict, list)):
            continue
        try:
            rounded = qty.round_up_milli(v)
        except qty.QuantityError:
            continue
        if rounded is not None:
            rl[k] = rounded.string()
        elif type(v) is str and len(_MILLI_EXACT) < 100_000:
            _MILLI_EXACT.add(v)


def _default_container(c: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_Container, SetDefaults_ContainerPort and the container resource lists."""
    if not c.get("imagePullPolicy"):
        image = c.get("image")
        tag = _image_tag(image) if type(image) is str else ""
        c["imagePullPolicy"] = "Always" if tag == "latest" else "IfNotPresent"
    if not c.get("terminationMessagePath"):
        c["terminationMessagePath"] = "/dev/termination-log"
    if not c.get("terminationMessagePolicy"):
        c["terminationMessagePolicy"] = "File"
    for p in _list(c, "ports"):
        if type(p) is dict and not p.get("protocol"):
            p["protocol"] = "TCP"
    res = _dict(c, "resources")
    if res is not None:
        default_resource_list(res.get("limits"))
        default_resource_list(res.get("requests"))


def _image_tag(image: str) -> str:
    """The tag parsers.ParseImageName finds: "latest" when the reference has neither tag nor
    digest."""
    if "@" in image:
        return ""
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        return last.rsplit(":", 1)[1]
    return "latest"


def default_pvc_spec(spec: Any) -> None:
    """SetDefaults_PersistentVolumeClaimSpec (+ its resource lists)."""
    if type(spec) is not dict:
        return
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    res = _dict(spec, "resources")
    if res is not None:
        default_resource_list(res.get("limits"))
        default_resource_list(res.get("requests"))


def default_pod_spec(spec: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_PodSpec and the nested defaults of zz_generated.defaults.go for a pod spec (used
    for pods and pod templates alike)."""
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS
    if not spec.get("schedulerName"):
        spec["schedulerName"] = DEFAULT_SCHEDULER_NAME
    for v in _list(spec, "volumes"):
        if type(v) is not dict:
            continue
        if not any(k in _SOURCE_KEYS and x is not None for k, x in v.items()):  # SetDefaults_Volume
            v["emptyDir"] = {}
        eph = _dict(v, "ephemeral")
        if eph is not None:
            tmpl = _dict(eph, "volumeClaimTemplate")
            if tmpl is not None:
                default_pvc_spec(tmpl.get("spec"))
    for key in ("initContainers", "containers"):
        for c in _list(spec, key):
            if type(c) is dict:
                _default_container(c)
    default_resource_list(spec.get("overhead"))


def default_pod(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_Pod + default_pod_spec: requests default to limits for every resource with a
    limit and no request (containers and init containers); with hostNetwork, a port's hostPort
    defaults to its containerPort; enableServiceLinks defaults to true."""
    spec = _ensure_dict(obj, "spec")
    if spec is None:
        return
    default_pod_spec(spec)
    for key in ("containers", "initContainers"):
        for c in _list(spec, key):
            if type(c) is not dict:
                continue
            res = _dict(c, "resources")
            limits = _dict(res, "limits") if res is not None else None
            if res is None or limits is None:
                continue
            requests = res.get("requests")
            if requests is None:
                requests = {}
                res["requests"] = requests
            if type(requests) is not dict:
                continue
            for name, value in limits.items():
                if name not in requests:
                    requests[name] = value
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for c in _list(spec, key):
                if type(c) is not dict:
                    continue
                for p in _list(c, "ports"):
                    if type(p) is dict and not p.get("hostPort"):
                        p["hostPort"] = p.get("containerPort")


def default_node(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_NodeStatus (allocatable := capacity when unset) and the status resource lists."""
    status = _dict(obj, "status")
    if status is None:
        return
    default_resource_list(status.get("capacity"))
    default_resource_list(status.get("allocatable"))
    if status.get("allocatable") is None and type(status.get("capacity")) is dict:
        status["allocatable"] = dict(status["capacity"])


def default_namespace(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_Namespace: label kubernetes.io/metadata.name=<name>."""
    meta = _dict(obj, "metadata")
    if meta is None:
        return
    name = meta.get("name")
    if type(name) is str and name:
        labels = _ensure_dict(meta, "labels")
        if labels is not None:
            labels[LABEL_METADATA_NAME] = name


def default_pv(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_PersistentVolume (spec part) and the capacity resource list."""
    spec = _ensure_dict(obj, "spec")
    if spec is None:
        return
    if not spec.get("persistentVolumeReclaimPolicy"):
        spec["persistentVolumeReclaimPolicy"] = "Retain"
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    default_resource_list(spec.get("capacity"))


def default_pvc(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_PersistentVolumeClaimSpec."""
    spec = _ensure_dict(obj, "spec")
    if spec is not None:
        default_pvc_spec(spec)


# --------------------------------------------------------------------------- apps/v1


def _default_http_get(h: Any) -> None:
    """SetDefaults_HTTPGetAction: path "/", scheme HTTP."""
    if type(h) is dict:
        if not h.get("path"):
            h["path"] = "/"
        if not h.get("scheme"):
            h["scheme"] = "HTTP"


def _default_field_ref(ref: Any) -> None:
    """SetDefaults_ObjectFieldSelector: apiVersion v1."""
    if type(ref) is dict and not ref.get("apiVersion"):
        ref["apiVersion"] = "v1"


def _default_template_rest(spec: dict) -> None:  # type: ignore[type-arg]
    """The defaults of zz_generated.defaults.go for what a template holds beyond what the scheduler
    reads: SetDefaults_Probe (timeoutSeconds 1, periodSeconds 10, successThreshold 1,
    failureThreshold 3) and SetDefaults_HTTPGetAction for probes and lifecycle hooks,
    SetDefaults_ObjectFieldSelector for the environment's and downward API's field references,
    the 0644 defaultMode of Secret, ConfigMap, DownwardAPI and projected volumes
    (SetDefaults_SecretVolumeSource and the like) and a service account token's expirationSeconds
    3600 (SetDefaults_ServiceAccountTokenProjection).  Only templates get them: they make a
    template as written the one the API server stores, which matters where two templates are
    compared whole (PodTemplate.rest); nothing planner reads of a pod depends on them."""
    for key in ("initContainers", "containers"):
        for c in _list(spec, key):
            if type(c) is not dict:
                continue
            for probe_key in ("livenessProbe", "readinessProbe", "startupProbe"):
                probe = c.get(probe_key)
                if type(probe) is not dict:
                    continue
                for f, default in (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3)):
                    if not probe.get(f):
                        probe[f] = default
                _default_http_get(probe.get("httpGet"))
            life = c.get("lifecycle")
            if type(life) is dict:
                for hook in ("postStart", "preStop"):
                    h = life.get(hook)
                    if type(h) is dict:
                        _default_http_get(h.get("httpGet"))
            for e in _list(c, "env"):
                vf = e.get("valueFrom") if type(e) is dict else None
                if type(vf) is dict:
                    _default_field_ref(vf.get("fieldRef"))
    for v in _list(spec, "volumes"):
        if type(v) is not dict:
            continue
        for source in ("secret", "configMap", "downwardAPI", "projected"):
            src = v.get(source)
            if type(src) is dict and src.get("defaultMode") is None:
                src["defaultMode"] = 0o644
        _default_downward_api(_dict(v, "downwardAPI"))
        for proj in _list(_dict(v, "projected") or {}, "sources"):
            if type(proj) is not dict:
                continue
            token = proj.get("serviceAccountToken")
            if type(token) is dict and token.get("expirationSeconds") is None:
                token["expirationSeconds"] = 3600
            _default_downward_api(_dict(proj, "downwardAPI"))


def _default_downward_api(source: dict | None) -> None:  # type: ignore[type-arg]
    """A downward API volume's (or projection's) items' field references."""
    for item in _list(source or {}, "items"):
        if type(item) is dict:
            _default_field_ref(item.get("fieldRef"))


def _default_template(spec: dict) -> None:  # type: ignore[type-arg]
    tmpl = _dict(spec, "template")
    if tmpl is None:
        return
    pod_spec = _ensure_dict(tmpl, "spec")
    if pod_spec is not None:
        default_pod_spec(pod_spec)
        _default_template_rest(pod_spec)


def default_deployment(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_Deployment: replicas 1; strategy RollingUpdate with maxUnavailable and maxSurge
    25% (only filled in when the type is RollingUpdate); revisionHistoryLimit 10;
    progressDeadlineSeconds 600."""
    spec = _ensure_dict(obj, "spec")
    if spec is None:
        return
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = _ensure_dict(spec, "strategy")
    if strategy is not None:
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            ru = _ensure_dict(strategy, "rollingUpdate")
            if ru is not None:
                if ru.get("maxUnavailable") is None:
                    ru["maxUnavailable"] = "25%"
                if ru.get("maxSurge") is None:
                    ru["maxSurge"] = "25%"
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    if spec.get("progressDeadlineSeconds") is None:
        spec["progressDeadlineSeconds"] = 600
    _default_template(spec)


def default_replicaset(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_ReplicaSet: replicas 1."""
    spec = _ensure_dict(obj, "spec")
    if spec is None:
        return
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    _default_template(spec)


def default_statefulset(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_StatefulSet: podManagementPolicy OrderedReady; updateStrategy RollingUpdate
    (with an empty rollingUpdate when the type was unset), and for a RollingUpdate with a
    rollingUpdate: partition 0 and, with the MaxUnavailableStatefulSet gate, maxUnavailable 1;
    persistentVolumeClaimRetentionPolicy Retain/Retain (StatefulSetAutoDeletePVC is GA); replicas 1;
    revisionHistoryLimit 10; and the claim templates' PVC spec defaults."""
    spec = _ensure_dict(obj, "spec")
    if spec is None:
        return
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    us = _ensure_dict(spec, "updateStrategy")
    if us is not None:
        if not us.get("type"):
            us["type"] = "RollingUpdate"
            if us.get("rollingUpdate") is None:
                us["rollingUpdate"] = {}
        ru = _dict(us, "rollingUpdate")
        if us["type"] == "RollingUpdate" and ru is not None:
            if ru.get("partition") is None:
                ru["partition"] = 0
            if MAX_UNAVAILABLE_STATEFULSET and ru.get("maxUnavailable") is None:
                ru["maxUnavailable"] = 1
    policy = _ensure_dict(spec, "persistentVolumeClaimRetentionPolicy")
    if policy is not None:
        for key in ("whenDeleted", "whenScaled"):
            if not policy.get(key):
                policy[key] = "Retain"
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    _default_template(spec)
    for t in _list(spec, "volumeClaimTemplates"):
        if type(t) is dict:
            default_pvc_spec(t.get("spec"))


def default_daemonset(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_DaemonSet (pkg/apis/apps/v1/defaults.go): updateStrategy RollingUpdate and, for
    a RollingUpdate, rollingUpdate with maxUnavailable 1 and maxSurge 0 (each only when unset);
    revisionHistoryLimit 10; and the pod-template defaults."""
    spec = _ensure_dict(obj, "spec")
    if spec is None:
        return
    us = _ensure_dict(spec, "updateStrategy")
    if us is not None:
        if not us.get("type"):
            us["type"] = "RollingUpdate"
        if us["type"] == "RollingUpdate":
            ru = _ensure_dict(us, "rollingUpdate")
            if ru is not None:
                if ru.get("maxUnavailable") is None:
                    ru["maxUnavailable"] = 1
                if ru.get("maxSurge") is None:
                    ru["maxSurge"] = 0
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    _default_template(spec)


# --------------------------------------------------------------------------- autoscaling/v2

_SCALE_UP_RULES = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
_SCALE_DOWN_RULES = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def _scaling_rules(given: Any, defaults: dict) -> dict:  # type: ignore[type-arg]
    """GenerateHPAScale{Up,Down}Rules: the defaults with the given non-nil fields copied over."""
    import copy

    out = copy.deepcopy(defaults)
    if type(given) is dict:
        for key in ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"):
            if given.get(key) is not None:
                out[key] = given[key]
    return out


def default_hpa(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_HorizontalPodAutoscaler (autoscaling/v2)."""
    spec = _ensure_dict(obj, "spec")
    if spec is None:
        return
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
            }
        ]
    behavior = _dict(spec, "behavior")
    if behavior is not None:
        behavior["scaleUp"] = _scaling_rules(behavior.get("scaleUp"), _SCALE_UP_RULES)
        behavior["scaleDown"] = _scaling_rules(behavior.get("scaleDown"), _SCALE_DOWN_RULES)


# --------------------------------------------------------------------------- storage/v1


def default_storageclass(obj: dict) -> None:  # type: ignore[type-arg]
    """SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate."""
    if obj.get("reclaimPolicy") is None:
        obj["reclaimPolicy"] = "Delete"
    if obj.get("volumeBindingMode") is None:
        obj["volumeBindingMode"] = "Immediate"


def default_priorityclass(obj: dict) -> None:  # type: ignore[type-arg]
    """pkg/apis/scheduling/v1/defaults.go SetDefaults_PriorityClass: preemptionPolicy
    PreemptLowerPriority."""
    if obj.get("preemptionPolicy") is None:
        obj["preemptionPolicy"] = "PreemptLowerPriority"


def default_limitrange(obj: dict) -> None:  # type: ignore[type-arg]
    """pkg/apis/core/v1/defaults.go SetDefaults_LimitRangeItem, for items of type Container: a
    default limit from max, then a default request from the default limit, then from min."""
    spec = _dict(obj, "spec")
    if spec is None:
        return
    for item in _list(spec, "limits"):
        if type(item) is not dict or item.get("type") != "Container":
            continue
        default = item.get("default")
        if default is None:
            default = item["default"] = {}
        request = item.get("defaultRequest")
        if request is None:
            request = item["defaultRequest"] = {}
        if type(default) is not dict or type(request) is not dict:
            continue
        for source, target in ((item.get("max"), default), (default, request), (item.get("min"), request)):
            if type(source) is dict:
                for k, v in source.items():
                    if k not in target:
                        target[k] = v
        for rl in (default, request):
            default_resource_list(rl)


def default_controllerrevision(obj: dict) -> None:  # type: ignore[type-arg]
    """The template a StatefulSet's revision holds (data.spec.template) defaulted as a template
    (it was written from the stored set, defaulted already: this changes nothing then)."""
    data = _dict(obj, "data")
    spec = _dict(data, "spec") if data is not None else None
    if spec is not None:
        _default_template(spec)


_DEFAULTERS = {
    "Pod": default_pod,
    "Node": default_node,
    "Namespace": default_namespace,
    "PersistentVolume": default_pv,
    "PersistentVolumeClaim": default_pvc,
    "Deployment": default_deployment,
    "ReplicaSet": default_replicaset,
    "StatefulSet": default_statefulset,
    "DaemonSet": default_daemonset,
    "HorizontalPodAutoscaler": default_hpa,
    "StorageClass": default_storageclass,
    "PriorityClass": default_priorityclass,
    "LimitRange": default_limitrange,
    "ControllerRevision": default_controllerrevision,
}


def apply_defaults(obj: dict) -> None:  # type: ignore[type-arg]
    """Apply the API server's defaults for obj["kind"] in place.  Never raises: parts of the wrong
    JSON type are left untouched for validation to report."""
    if type(obj) is not dict:
        return
    kind = obj.get("kind")
    if type(kind) is not str:
        return
    if kind in NAMESPACED_KINDS:
        meta = _ensure_dict(obj, "metadata")
        if meta is not None and not meta.get("namespace"):
            meta["namespace"] = "default"
    fn = _DEFAULTERS.get(kind)
    if fn is not None:
        fn(obj)
