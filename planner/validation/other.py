"""Validation of HorizontalPodAutoscalers (autoscaling/v2), PodDisruptionBudgets (policy/v1),
StorageClasses and CSINodes (storage.k8s.io/v1).

Ports, at Kubernetes v1.37 (create path, default feature gates), of
pkg/apis/autoscaling/validation/validation.go, pkg/apis/policy/validation/validation.go,
pkg/apis/storage/validation/validation.go, and of the generic metadata check that
k8s.io/apiserver/pkg/registry/rest/create.go BeforeCreate runs for every object (the only name
check a PodDisruptionBudget gets).
"""

from __future__ import annotations

from planner import quantity as qty
from planner.validation.core import (
    Errs,
    is_dns1123_label,
    is_not_more_than_100_percent,
    is_qualified_name,
    is_valid_path_segment_name,
    name_is_dns_subdomain,
    read_resource_list,
    read_selector,
    validate_label_name,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
    validate_path_segment_name,
    validate_positive_int_or_percent,
    validate_resource_name,
    validate_resource_quantity_value,
    validate_tolerations,
)
from planner.validation.field import (
    JSONValue,
    Struct,
    duplicate,
    forbidden,
    get_bool,
    get_int,
    get_int_or_string,
    get_list,
    get_map,
    get_opt_str,
    get_str,
    get_str_list,
    get_str_map,
    invalid,
    list_items,
    not_supported,
    required,
)

SPEC = "spec"
META = "metadata"

# --------------------------------------------------------------------------- HorizontalPodAutoscaler


def validate_hpa(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateHorizontalPodAutoscaler / validateHorizontalPodAutoscalerSpec: DNS-subdomain name
    (ValidateReplicationControllerName); minReplicas >= 1 (HPAScaleToZero is alpha and off);
    maxReplicas > 0 and >= minReplicas; scaleTargetRef kind and name (ValidateCrossVersionObjectReference).
    Metrics and behavior are not read by planner and not validated."""
    validate_object_meta(get_map(obj, "metadata", "", errs) or {}, True, name_is_dns_subdomain, META, errs)
    spec = get_map(obj, "spec", "", errs) or {}
    min_replicas = get_int(spec, "minReplicas", SPEC, errs)
    max_replicas = get_int(spec, "maxReplicas", SPEC, errs) or 0
    if min_replicas is not None and min_replicas < 1:
        errs.append(invalid(f"{SPEC}.minReplicas", min_replicas, "must be greater than or equal to 1"))
    if max_replicas < 1:
        errs.append(invalid(f"{SPEC}.maxReplicas", max_replicas, "must be greater than 0"))
    if min_replicas is not None and max_replicas < min_replicas:
        errs.append(invalid(f"{SPEC}.maxReplicas", max_replicas, "must be greater than or equal to `minReplicas`"))
    rp = f"{SPEC}.scaleTargetRef"
    ref = get_map(spec, "scaleTargetRef", SPEC, errs) or {}
    for key in ("kind", "name"):
        v = get_str(ref, key, rp, errs)
        if not v:
            errs.append(required(f"{rp}.{key}"))
        else:
            for msg in is_valid_path_segment_name(v):
                errs.append(invalid(f"{rp}.{key}", v, msg))
    get_str(ref, "apiVersion", rp, errs)
    get_list(spec, "metrics", SPEC, errs)


# --------------------------------------------------------------------------- PodDisruptionBudget

UNHEALTHY_POD_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")  # sets.NewString(...).List()


def _int_or_string_json(v: int | str | None) -> object:
    return JSONValue(v) if isinstance(v, str) else v


def validate_pdb(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidatePodDisruptionBudget (ValidatePodDisruptionBudgetSpec), then -- only when the spec is
    valid, as BeforeCreate returns first -- the generic metadata check, whose name check is only
    ValidatePathSegmentName (upstream validates no DNS format for PDB names)."""
    spec = get_map(obj, "spec", "", errs) or {}
    spec_errs: Errs = []
    min_available = get_int_or_string(spec, "minAvailable", SPEC, spec_errs)
    max_unavailable = get_int_or_string(spec, "maxUnavailable", SPEC, spec_errs)
    sel = read_selector(spec, "selector", SPEC, spec_errs)
    policy = get_opt_str(spec, "unhealthyPodEvictionPolicy", SPEC, spec_errs)
    if min_available is not None and max_unavailable is not None:
        shown = Struct(
            MinAvailable=_int_or_string_json(min_available),
            Selector=sel.as_json() if sel is not None else None,
            MaxUnavailable=_int_or_string_json(max_unavailable),
            UnhealthyPodEvictionPolicy=JSONValue(policy) if policy is not None else None,
        )
        spec_errs.append(invalid(SPEC, shown, "minAvailable and maxUnavailable cannot be both set"))
    if min_available is not None:
        validate_positive_int_or_percent(min_available, f"{SPEC}.minAvailable", spec_errs)
        is_not_more_than_100_percent(min_available, f"{SPEC}.minAvailable", spec_errs)
    if max_unavailable is not None:
        validate_positive_int_or_percent(max_unavailable, f"{SPEC}.maxUnavailable", spec_errs)
        is_not_more_than_100_percent(max_unavailable, f"{SPEC}.maxUnavailable", spec_errs)
    validate_label_selector(sel, f"{SPEC}.selector", spec_errs)
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        spec_errs.append(
            not_supported(f"{SPEC}.unhealthyPodEvictionPolicy", JSONValue(policy), UNHEALTHY_POD_EVICTION_POLICIES)
        )
    errs.extend(spec_errs)
    if not spec_errs:
        validate_object_meta(get_map(obj, "metadata", "", errs) or {}, True, validate_path_segment_name, META, errs)


# --------------------------------------------------------------------------- StorageClass

RECLAIM_POLICIES = ("Delete", "Retain")  # sets.NewString(...).List()
VOLUME_BINDING_MODES = ("Immediate", "WaitForFirstConsumer")


def _topology_term(term: dict, path: str, errs: Errs) -> dict[str, frozenset[str]]:  # type: ignore[type-arg]
    """ValidateTopologySelectorTerm / validateTopologySelectorLabelRequirement."""
    expr_map: dict[str, frozenset[str]] = {}
    exprs = get_list(term, "matchLabelExpressions", path, errs)
    if not exprs:
        return expr_map
    ep = f"{path}.matchLabelExpressions"
    for i, req in list_items(exprs, ep, errs):
        ip = f"{ep}[{i}]"
        key = get_str(req, "key", ip, errs)
        values = get_str_list(req, "values", ip, errs) or []
        vp = f"{ip}.values"
        if not values:
            errs.append(required(vp))
        seen: set[str] = set()
        for vi, v in enumerate(values):
            if v in seen:
                errs.append(duplicate(f"{vp}[{vi}]", v))
            seen.add(v)
        validate_label_name(key, f"{ip}.key", errs)
        if key in expr_map:
            errs.append(duplicate(f"{ip}.key", key))
        expr_map[key] = frozenset(seen)
    return expr_map


def validate_storageclass(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateStorageClass: DNS-subdomain name (cluster-scoped), provisioner required and a
    qualified name once lower-cased, reclaimPolicy, volumeBindingMode, allowedTopologies.
    (Upstream compares each topology term with len(terms) nil placeholders besides the earlier
    terms, and nil equals empty for its DeepEqual: a term with no expressions is a "duplicate".)"""
    validate_object_meta(get_map(obj, "metadata", "", errs) or {}, False, name_is_dns_subdomain, META, errs)
    root = ""
    provisioner = get_str(obj, "provisioner", root, errs)
    if not provisioner:
        errs.append(required("provisioner"))
    else:
        lp = provisioner.lower()
        for msg in is_qualified_name(lp):
            errs.append(invalid("provisioner", lp, msg))
    get_map(obj, "parameters", root, errs)
    reclaim = get_opt_str(obj, "reclaimPolicy", root, errs)
    if reclaim and reclaim not in RECLAIM_POLICIES:
        errs.append(not_supported("reclaimPolicy", JSONValue(reclaim), RECLAIM_POLICIES))
    mode = get_opt_str(obj, "volumeBindingMode", root, errs)
    if mode is None:
        errs.append(required("volumeBindingMode"))
    elif mode not in VOLUME_BINDING_MODES:
        errs.append(not_supported("volumeBindingMode", JSONValue(mode), VOLUME_BINDING_MODES))
    topologies = get_list(obj, "allowedTopologies", root, errs)
    if topologies:
        tp = "allowedTopologies"
        raw: list[dict[str, frozenset[str]]] = [{} for _ in topologies]
        for i, term in list_items(topologies, tp, errs):
            expr_map = _topology_term(term, f"{tp}[{i}]", errs)
            for t in raw:
                if t == expr_map:
                    errs.append(duplicate(f"{tp}[{i}].matchLabelExpressions", ""))
            raw.append(expr_map)


# --------------------------------------------------------------------------- PriorityClass

# pkg/apis/scheduling/types.go: the system classes every cluster has (SystemPriorityClasses) and
# the highest value a user-defined class may take.
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def validate_preemption_policy(value: object, path: str, errs: Errs) -> None:
    """core/validation ValidatePreemptionPolicy."""
    if value == "":
        errs.append(required(path, ""))
    elif value not in PREEMPTION_POLICIES:
        errs.append(not_supported(path, JSONValue(value), PREEMPTION_POLICIES))


def validate_priorityclass(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """pkg/apis/scheduling/validation/validation.go ValidatePriorityClass: DNS-subdomain name; a
    name with the "system-" prefix must be a known system class with its value and globalDefault
    (pkg/apis/scheduling/v1 IsKnownSystemPriorityClass); any other value at most
    HighestUserDefinablePriority; preemptionPolicy (defaulted to PreemptLowerPriority)."""
    meta = get_map(obj, "metadata", "", errs) or {}
    validate_object_meta(meta, False, name_is_dns_subdomain, META, errs)
    value = get_int(obj, "value", "", errs) or 0
    global_default = get_bool(obj, "globalDefault", "", errs)
    raw_name = meta.get("name")
    name = raw_name if type(raw_name) is str else ""
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        known = SYSTEM_PRIORITY_CLASSES.get(name)
        if known is None:
            why = f"{name} is not a known system priority class"
        elif known != value:
            why = f"value of {name} PriorityClass must be {known}"
        elif bool(global_default):
            why = f"globalDefault of {name} PriorityClass must be false"
        else:
            why = ""
        if why:
            errs.append(forbidden("metadata.name", f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: {why}"))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(forbidden("value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = obj.get("preemptionPolicy")
    if policy is not None:
        if type(policy) is not str:
            get_str(obj, "preemptionPolicy", "", errs)
        else:
            validate_preemption_policy(policy, "preemptionPolicy", errs)
# --------------------------------------------------------------------------- CSINode

CSI_NODE_ID_MAX_LENGTH = 256  # csiNodeIDLongerMaxLength: the create strategy sets AllowLongNodeID


def validate_csinode(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateCSINode (pkg/apis/storage/validation/validation.go): DNS-subdomain name
    (ValidateNodeName, cluster-scoped); per spec.drivers[i] (validateCSINodeDriver): the name a
    DNS subdomain (ValidateCSIDriverName), not repeated (Duplicate), nodeID required and at most
    256 characters (pkg/registry/storage/csinode/strategy.go validates with AllowLongNodeID),
    allocatable.count non-negative (ValidateNonnegativeField), topologyKeys non-empty, unique and
    qualified names."""
    validate_object_meta(get_map(obj, "metadata", "", errs) or {}, False, name_is_dns_subdomain, META, errs)
    spec = get_map(obj, SPEC, "", errs) or {}
    drivers = get_list(spec, "drivers", SPEC, errs) or []
    dp = f"{SPEC}.drivers"
    seen: set[str] = set()
    for i, d in list_items(drivers, dp, errs):
        ip = f"{dp}[{i}]"
        name = get_str(d, "name", ip, errs)
        for msg in name_is_dns_subdomain(name, False):
            errs.append(invalid(f"{ip}.name", name, msg))
        node_id = get_str(d, "nodeID", ip, errs)
        if not node_id:
            errs.append(required(f"{ip}.nodeID", ""))
        if len(node_id) > CSI_NODE_ID_MAX_LENGTH:
            errs.append(invalid(f"{ip}.nodeID", node_id, f"must be {CSI_NODE_ID_MAX_LENGTH} characters or less"))
        alloc = get_map(d, "allocatable", ip, errs)
        if alloc is not None:
            count = get_int(alloc, "count", f"{ip}.allocatable", errs)
            if count is not None and count < 0:
                errs.append(invalid(f"{ip}.allocatable.count", count, "must be greater than or equal to 0"))
        if name in seen:
            errs.append(duplicate(f"{ip}.name", name))
        seen.add(name)
        topo: set[str] = set()
        for key in get_str_list(d, "topologyKeys", ip, errs) or []:
            if not key:
                errs.append(required(ip, key))
            if key in topo:
                errs.append(duplicate(ip, key))
            topo.add(key)
            for msg in is_qualified_name(key):
                errs.append(invalid(ip, key, msg))


# --------------------------------------------------------------------------- LimitRange

# The quantities of a LimitRangeItem, in the order ValidateLimitRange compares them.
_LIMIT_ORDER = (
    ("min", "max", "min value {a} is greater than max value {b}", "min"),
    ("min", "defaultRequest", "min value {a} is greater than default request value {b}", "defaultRequest"),
    ("defaultRequest", "max", "default request value {a} is greater than max value {b}", "defaultRequest"),
    ("defaultRequest", "default", "default request value {a} is greater than default limit value {b}", "defaultRequest"),
    ("min", "default", "min value {a} is greater than default value {b}", "default"),
    ("default", "max", "default value {a} is greater than max value {b}", "default"),
)


def validate_limitrange(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """pkg/apis/core/validation/validation.go ValidateLimitRange, for what planner reads: a
    DNS-subdomain name; each type once; resource names and quantities; no default or default
    request for type Pod; per resource min <= default request <= default <= max (after
    SetDefaults_LimitRangeItem, as the API server compares them)."""
    meta = get_map(obj, "metadata", "", errs) or {}
    validate_object_meta(meta, True, name_is_dns_subdomain, META, errs)
    spec = get_map(obj, SPEC, "", errs) or {}
    limits = get_list(spec, "limits", SPEC, errs) or []
    seen: set[str] = set()
    for i, item in list_items(limits, f"{SPEC}.limits", errs):
        ip = f"{SPEC}.limits[{i}]"
        typ = get_str(item, "type", ip, errs) or ""
        if typ in seen:
            errs.append(duplicate(f"{ip}.type", typ))
        seen.add(typ)
        lists: dict[str, dict[str, qty.Quantity]] = {}
        for key in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            rl = read_resource_list(item, key, ip, errs)
            if rl is None:
                continue
            for name in rl:
                validate_resource_name(name, f"{ip}.{key}[{name}]", errs)
            if typ == "Pod" and key in ("default", "defaultRequest") and rl:
                errs.append(forbidden(f"{ip}.{key}", "may not be specified when `type` is 'Pod'"))
                continue
            lists[key] = rl
        for name in sorted({n for rl in lists.values() for n in rl}):
            for lo, hi, msg, at in _LIMIT_ORDER:
                a, b = lists.get(lo, {}).get(name), lists.get(hi, {}).get(name)
                if a is not None and b is not None and a.value > b.value:
                    shown = a if at == lo else b
                    errs.append(invalid(f"{ip}.{at}[{name}]", shown.string(), msg.format(a=a.string(), b=b.string())))


# --------------------------------------------------------------------------- RuntimeClass


def validate_runtimeclass(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """pkg/apis/node/validation/validation.go ValidateRuntimeClass: a DNS-subdomain name, handler
    a DNS label, overhead.podFixed quantities, scheduling.nodeSelector labels and tolerations."""
    meta = get_map(obj, "metadata", "", errs) or {}
    validate_object_meta(meta, False, name_is_dns_subdomain, META, errs)
    handler = get_str(obj, "handler", "", errs)
    if not handler:
        errs.append(required("handler", ""))
    else:
        for msg in is_dns1123_label(handler):
            errs.append(invalid("handler", handler, msg))
    overhead = get_map(obj, "overhead", "", errs)
    if overhead is not None:
        fixed = read_resource_list(overhead, "podFixed", "overhead", errs) or {}
        for name, q in fixed.items():
            validate_resource_name(name, f"overhead.podFixed[{name}]", errs)
            validate_resource_quantity_value(name, q, f"overhead.podFixed[{name}]", errs)
    sched = get_map(obj, "scheduling", "", errs)
    if sched is not None:
        validate_labels(get_str_map(sched, "nodeSelector", "scheduling", errs), "scheduling.nodeSelector", errs)
        tols = get_list(sched, "tolerations", "scheduling", errs)
        if tols:
            validate_tolerations(tols, "scheduling.tolerations", errs)


# --------------------------------------------------------------------------- ControllerRevision


def validate_controllerrevision(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """pkg/apis/apps/validation/validation.go ValidateControllerRevision: a DNS-subdomain name,
    data present, revision not negative.  The data is raw JSON to the API server: the template a
    StatefulSet's revision holds is read if it can be (planner.convert.controller_revision)."""
    meta = get_map(obj, "metadata", "", errs) or {}
    validate_object_meta(meta, True, name_is_dns_subdomain, META, errs)
    if obj.get("data") is None:
        errs.append(required("data", "data is mandatory"))
    revision = get_int(obj, "revision", "", errs, bits=64)
    if revision is not None and revision < 0:
        errs.append(invalid("revision", revision, "must be greater than or equal to 0"))
