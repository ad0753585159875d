"""Validation of apps/v1 Deployments, ReplicaSets, StatefulSets and DaemonSets.

Port of pkg/apis/apps/validation/validation.go at Kubernetes v1.37, create path.  Two checks go
beyond the API server, because the StatefulSet controller would otherwise fail at run time and
planner must not plan pods that can never exist:

* the StatefulSet pod template's spec is validated as a pod's would be (the API server validates
  only its labels and annotations -- ValidatePodTemplateSpecForStatefulSet has the full check
  commented out -- and the controller's pod creations then fail);
* volumeClaimTemplates are validated as the PVCs the controller creates from them (the API server
  does not validate them at all): a name that makes ``<claim>-<statefulset>-<ordinal>`` a valid
  DNS subdomain, and a valid claim spec (access modes, storage request, ...).

And one for the Deployment controller: a ``maxSurge`` percentage past 64-bit integers
(``99999999999999999999%``, valid for the API server, which bounds only maxUnavailable) makes
intstr.GetScaledValueFromIntOrPercent fail (strconv.Atoi: value out of range) on every sync, so
the Deployment never scales nor rolls out; it is reported as invalid.
"""

from __future__ import annotations

from planner.validation.core import (
    Errs,
    Selector,
    Template,
    int_or_percent_value,
    is_dns1123_label,
    is_not_more_than_100_percent,
    name_is_dns_label,
    name_is_dns_subdomain,
    percent_value,
    read_selector,
    read_template,
    selector_parses,
    validate_annotations,
    validate_label_selector,
    validate_labels,
    validate_nonnegative,
    validate_object_meta,
    validate_pod_spec,
    validate_pod_template_spec,
    validate_positive_int_or_percent,
    validate_pvc_spec,
)
from planner.validation.field import (
    JSONValue,
    Struct,
    forbidden,
    get_bool,
    get_int,
    get_int_or_string,
    get_list,
    get_map,
    get_str,
    get_str_map,
    go_quote,
    invalid,
    list_items,
    not_supported,
    required,
)

SPEC = "spec"
META = "metadata"


def _int_or_string_json(v: int | str | None) -> object:
    """An intstr.IntOrString as json.Marshal writes it (a nil pointer is null)."""
    return JSONValue(v) if isinstance(v, str) else v


def _selector_and_template(
    spec: dict,  # type: ignore[type-arg]
    errs: Errs,
    what: str,
) -> tuple[Selector | None, bool, Template]:
    """The selector checks shared by the three controllers: required, valid (strict), not empty.
    Returns the selector, whether LabelSelectorAsSelector succeeds, and the decoded template."""
    sel = read_selector(spec, "selector", SPEC, errs)
    if sel is None:
        errs.append(required(f"{SPEC}.selector"))
    else:
        validate_label_selector(sel, f"{SPEC}.selector", errs)
        if sel.empty:
            errs.append(invalid(f"{SPEC}.selector", sel.as_json(), f"empty selector is invalid for {what}"))
    return sel, selector_parses(sel), read_template(spec, SPEC, errs)


def _selector_matches_template(sel: Selector | None, tmpl: Template, path: str, errs: Errs) -> None:
    """``if !selector.Empty() && !selector.Matches(template.Labels)``.  A nil selector is
    labels.Nothing(): not empty and matching nothing, so it is reported too."""
    if sel is not None and sel.empty:
        return
    labels = tmpl.labels or {}
    if sel is None or not sel.matches(labels):
        errs.append(invalid(f"{path}.metadata.labels", tmpl.labels, "`selector` does not match template `labels`"))


def _validate_template_for_replica_set(sel: Selector | None, tmpl: Template, path: str, errs: Errs, kind: str) -> None:
    """ValidatePodTemplateSpecForReplicaSet."""
    _selector_matches_template(sel, tmpl, path, errs)
    validate_pod_template_spec(tmpl, path, errs)
    _validate_restart_policy_and_deadline(tmpl, path, errs, kind)


def _validate_restart_policy_and_deadline(tmpl: Template, path: str, errs: Errs, kind: str) -> None:
    sp = f"{path}.spec"
    policy = get_str(tmpl.spec, "restartPolicy", sp, [])
    if policy != "Always":
        errs.append(not_supported(f"{sp}.restartPolicy", JSONValue(policy), ("Always",)))
    if get_int(tmpl.spec, "activeDeadlineSeconds", sp, errs, bits=64) is not None:
        errs.append(forbidden(f"{sp}.activeDeadlineSeconds", f"activeDeadlineSeconds in {kind} is not Supported"))


# --------------------------------------------------------------------------- Deployment


_INT64_MAX = (1 << 63) - 1
MAX_SURGE_OUT_OF_RANGE = (
    "out of range: the Deployment controller reads the percentage as a 64-bit integer (strconv.Atoi: value out of "
    "range) and fails every sync, so the Deployment would never scale or roll out"
)


def _validate_deployment_strategy(spec: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateDeploymentStrategy / ValidateRollingUpdateDeployment."""
    path = f"{SPEC}.strategy"
    strategy = get_map(spec, "strategy", SPEC, errs) or {}
    typ = get_str(strategy, "type", path, errs)
    ru = get_map(strategy, "rollingUpdate", path, errs)
    rp = f"{path}.rollingUpdate"
    max_unavailable = get_int_or_string(ru, "maxUnavailable", rp, errs) if ru is not None else None
    max_surge = get_int_or_string(ru, "maxSurge", rp, errs) if ru is not None else None
    # the internal RollingUpdateDeployment holds values, not pointers: unset is 0
    mu: int | str = 0 if max_unavailable is None else max_unavailable
    ms: int | str = 0 if max_surge is None else max_surge
    if typ == "Recreate":
        if ru is not None:
            errs.append(forbidden(rp, "may not be specified when strategy `type` is 'Recreate'"))
    elif typ == "RollingUpdate":
        if ru is None:
            errs.append(required(rp, "this should be defaulted and never be nil"))
        else:
            validate_positive_int_or_percent(mu, f"{rp}.maxUnavailable", errs)
            validate_positive_int_or_percent(ms, f"{rp}.maxSurge", errs)
            if int_or_percent_value(mu) == 0 and int_or_percent_value(ms) == 0:
                errs.append(
                    invalid(f"{rp}.maxUnavailable", _int_or_string_json(mu), "may not be 0 when `maxSurge` is 0")
                )
            is_not_more_than_100_percent(mu, f"{rp}.maxUnavailable", errs)
            # planner's own check (see the module docstring): maxSurge has no upper bound
            p = percent_value(ms)
            if p is not None and p >= _INT64_MAX:
                errs.append(invalid(f"{rp}.maxSurge", _int_or_string_json(ms), MAX_SURGE_OUT_OF_RANGE))
    else:
        shown = Struct(
            Type=typ,
            RollingUpdate=None
            if ru is None
            else Struct(MaxUnavailable=_int_or_string_json(mu), MaxSurge=_int_or_string_json(ms)),
        )
        errs.append(not_supported(path, shown, ("Recreate", "RollingUpdate")))


def validate_deployment(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateDeployment / ValidateDeploymentSpec."""
    validate_object_meta(get_map(obj, "metadata", "", errs) or {}, True, name_is_dns_subdomain, META, errs)
    spec = get_map(obj, "spec", "", errs) or {}
    validate_nonnegative(get_int(spec, "replicas", SPEC, errs), f"{SPEC}.replicas", errs)
    sel, parses, tmpl = _selector_and_template(spec, errs, "deployment")
    if not parses:
        errs.append(invalid(f"{SPEC}.selector", sel.as_json() if sel else None, "invalid label selector"))
    else:
        _validate_template_for_replica_set(sel, tmpl, f"{SPEC}.template", errs, "ReplicaSet")
    _validate_deployment_strategy(spec, errs)
    min_ready = get_int(spec, "minReadySeconds", SPEC, errs) or 0
    validate_nonnegative(min_ready, f"{SPEC}.minReadySeconds", errs)
    validate_nonnegative(get_int(spec, "revisionHistoryLimit", SPEC, errs), f"{SPEC}.revisionHistoryLimit", errs)
    pds = get_int(spec, "progressDeadlineSeconds", SPEC, errs)
    if pds is not None:
        validate_nonnegative(pds, f"{SPEC}.progressDeadlineSeconds", errs)
        if pds <= min_ready:
            errs.append(invalid(f"{SPEC}.progressDeadlineSeconds", pds, "must be greater than minReadySeconds"))
    get_bool(spec, "paused", SPEC, errs)


# --------------------------------------------------------------------------- ReplicaSet


def validate_replicaset(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateReplicaSet / ValidateReplicaSetSpec (its empty-selector message says "deployment",
    as upstream's does)."""
    validate_object_meta(get_map(obj, "metadata", "", errs) or {}, True, name_is_dns_subdomain, META, errs)
    spec = get_map(obj, "spec", "", errs) or {}
    validate_nonnegative(get_int(spec, "replicas", SPEC, errs), f"{SPEC}.replicas", errs)
    validate_nonnegative(get_int(spec, "minReadySeconds", SPEC, errs), f"{SPEC}.minReadySeconds", errs)
    sel, parses, tmpl = _selector_and_template(spec, errs, "deployment")
    if not parses:
        errs.append(invalid(f"{SPEC}.selector", sel.as_json() if sel else None, "invalid label selector"))
    else:
        _validate_template_for_replica_set(sel, tmpl, f"{SPEC}.template", errs, "ReplicaSet")


# --------------------------------------------------------------------------- StatefulSet

RETENTION_POLICIES = ("Retain", "Delete")


def _validate_statefulset_update_strategy(spec: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """The updateStrategy switch of ValidateStatefulSetSpec and validateRollingUpdateStatefulSet:
    partition not negative; maxUnavailable (kept on create and defaulted to 1 now that the
    MaxUnavailableStatefulSet gate is on by default, v1.37) an int or a percentage, not 0, at most
    100%."""
    path = f"{SPEC}.updateStrategy"
    us = get_map(spec, "updateStrategy", SPEC, errs) or {}
    typ = get_str(us, "type", path, errs)
    ru = get_map(us, "rollingUpdate", path, errs)
    rp = f"{path}.rollingUpdate"
    partition = get_int(ru, "partition", rp, errs) if ru is not None else None
    max_unavailable = get_int_or_string(ru, "maxUnavailable", rp, errs) if ru is not None else None
    ru_json = (
        None if ru is None else Struct(Partition=partition or 0, MaxUnavailable=_int_or_string_json(max_unavailable))
    )
    if typ == "":
        errs.append(required(path))
    elif typ == "OnDelete":
        if ru is not None:
            errs.append(invalid(rp, ru_json, "only allowed for updateStrategy 'RollingUpdate'"))
    elif typ == "RollingUpdate":
        if ru is not None:
            validate_nonnegative(partition or 0, f"{rp}.partition", errs)
            if max_unavailable is not None:
                mp = f"{rp}.maxUnavailable"
                validate_positive_int_or_percent(max_unavailable, mp, errs)
                if int_or_percent_value(max_unavailable) == 0:
                    errs.append(invalid(mp, _int_or_string_json(max_unavailable), "cannot be 0"))
                is_not_more_than_100_percent(max_unavailable, mp, errs)
    else:
        errs.append(invalid(path, Struct(Type=typ, RollingUpdate=ru_json), "must be 'RollingUpdate' or 'OnDelete'"))


def _validate_volume_claim_templates(spec: dict, sts_name: str, replicas: int, start: int, errs: Errs) -> None:  # type: ignore[type-arg]
    """Planner's own check (see the module docstring): each claim template as the PVCs
    ``<claim>-<statefulset>-<ordinal>`` the controller will create."""
    lst = get_list(spec, "volumeClaimTemplates", SPEC, errs)
    if not lst:
        return
    path = f"{SPEC}.volumeClaimTemplates"
    last = start + max(replicas, 1) - 1
    seen: set[str] = set()
    for i, t in list_items(lst, path, errs):
        ip = f"{path}[{i}]"
        meta = get_map(t, "metadata", ip, errs) or {}
        mp = f"{ip}.metadata"
        name = get_str(meta, "name", mp, errs)
        if not name:
            errs.append(required(f"{mp}.name"))
        else:
            pvc_name = f"{name}-{sts_name}-{last}"
            for msg in name_is_dns_subdomain(pvc_name, False):
                errs.append(invalid(f"{mp}.name", name, f"PVC name {go_quote(pvc_name)}: {msg}"))
            if name in seen:
                errs.append(invalid(f"{mp}.name", name, "must be unique: another volumeClaimTemplate has this name"))
            seen.add(name)
        validate_labels(get_str_map(meta, "labels", mp, errs), f"{mp}.labels", errs)
        validate_annotations(get_str_map(meta, "annotations", mp, errs), f"{mp}.annotations", errs)
        validate_pvc_spec(get_map(t, "spec", ip, errs) or {}, f"{ip}.spec", errs)


def validate_statefulset(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateStatefulSet / ValidateStatefulSetSpec (create: serviceName must be a DNS label,
    PR #130233, v1.33), plus planner's template and claim-template checks."""
    meta = get_map(obj, "metadata", "", errs) or {}
    validate_object_meta(meta, True, name_is_dns_label, META, errs)
    spec = get_map(obj, "spec", "", errs) or {}
    pmp = get_str(spec, "podManagementPolicy", SPEC, errs)
    if pmp == "":
        errs.append(required(f"{SPEC}.podManagementPolicy"))
    elif pmp not in ("OrderedReady", "Parallel"):
        errs.append(invalid(f"{SPEC}.podManagementPolicy", JSONValue(pmp), "must be 'OrderedReady' or 'Parallel'"))
    _validate_statefulset_update_strategy(spec, errs)
    policy = get_map(spec, "persistentVolumeClaimRetentionPolicy", SPEC, errs)
    if policy is not None:  # ValidatePersistentVolumeClaimRetentionPolicy
        pp = f"{SPEC}.persistentVolumeClaimRetentionPolicy"
        for key in ("whenDeleted", "whenScaled"):
            v = get_str(policy, key, pp, errs)
            if v not in RETENTION_POLICIES:
                errs.append(not_supported(f"{pp}.{key}", JSONValue(v), RETENTION_POLICIES))
    replicas = get_int(spec, "replicas", SPEC, errs)
    validate_nonnegative(replicas, f"{SPEC}.replicas", errs)
    validate_nonnegative(get_int(spec, "minReadySeconds", SPEC, errs), f"{SPEC}.minReadySeconds", errs)
    start = 0
    ordinals = get_map(spec, "ordinals", SPEC, errs)
    if ordinals is not None:
        start = get_int(ordinals, "start", f"{SPEC}.ordinals", errs) or 0
        validate_nonnegative(start, f"{SPEC}.ordinals.start", errs)
    service_name = get_str(spec, "serviceName", SPEC, errs)
    if service_name:
        for msg in is_dns1123_label(service_name):
            errs.append(invalid(f"{SPEC}.serviceName", service_name, msg))
    sel, parses, tmpl = _selector_and_template(spec, errs, "statefulset")
    tp = f"{SPEC}.template"
    if not parses:
        errs.append(invalid(f"{SPEC}.selector", sel.as_json() if sel else None, ""))
    else:  # ValidatePodTemplateSpecForStatefulSet
        _selector_matches_template(sel, tmpl, tp, errs)
        validate_labels(tmpl.labels, f"{tp}.labels", errs)
        validate_annotations(get_str_map(tmpl.meta, "annotations", f"{tp}.metadata", errs), f"{tp}.annotations", errs)
    _validate_restart_policy_and_deadline(tmpl, tp, errs, "StatefulSet")
    # planner's own checks
    validate_pod_spec(tmpl.spec, f"{tp}.spec", errs)
    raw_name = meta.get("name")
    name = raw_name if type(raw_name) is str else ""
    _validate_volume_claim_templates(spec, name, replicas or 0, start if start >= 0 else 0, errs)


# --------------------------------------------------------------------------- DaemonSet


def _validate_daemonset_update_strategy(spec: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateDaemonSetUpdateStrategy / ValidateRollingUpdateDaemonSet (pkg/apis/apps/validation/
    validation.go): a RollingUpdate needs rollingUpdate; maxUnavailable and maxSurge positive ints
    or percentages, at most 100%, exactly one of them non-zero (the internal type holds values:
    unset is 0)."""
    path = f"{SPEC}.updateStrategy"
    us = get_map(spec, "updateStrategy", SPEC, errs) or {}
    typ = get_str(us, "type", path, errs)
    ru = get_map(us, "rollingUpdate", path, errs)
    rp = f"{path}.rollingUpdate"
    max_unavailable = get_int_or_string(ru, "maxUnavailable", rp, errs) if ru is not None else None
    max_surge = get_int_or_string(ru, "maxSurge", rp, errs) if ru is not None else None
    mu: int | str = 0 if max_unavailable is None else max_unavailable
    ms: int | str = 0 if max_surge is None else max_surge
    if typ == "OnDelete":
        return
    if typ == "RollingUpdate":
        if ru is None:
            errs.append(required(rp))
            return
        validate_positive_int_or_percent(mu, f"{rp}.maxUnavailable", errs)
        validate_positive_int_or_percent(ms, f"{rp}.maxSurge", errs)
        is_not_more_than_100_percent(mu, f"{rp}.maxUnavailable", errs)
        is_not_more_than_100_percent(ms, f"{rp}.maxSurge", errs)
        has_unavailable = int_or_percent_value(mu) != 0
        has_surge = int_or_percent_value(ms) != 0
        if has_unavailable and has_surge:
            errs.append(invalid(f"{rp}.maxSurge", _int_or_string_json(ms), "may not be set when maxUnavailable is non-zero"))
        elif not has_unavailable and not has_surge:
            errs.append(required(f"{rp}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
        return
    shown = Struct(
        Type=typ,
        RollingUpdate=None
        if ru is None
        else Struct(MaxUnavailable=_int_or_string_json(mu), MaxSurge=_int_or_string_json(ms)),
    )
    errs.append(not_supported(path, shown, ("RollingUpdate", "OnDelete")))


def validate_daemonset(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateDaemonSet / ValidateDaemonSetSpec (pkg/apis/apps/validation/validation.go,
    Kubernetes v1.37, create path): a DNS-subdomain name (ValidateDaemonSetName); the selector
    valid, matching the template's labels (a null selector matches nothing) and not empty; the
    template validated as a pod's, restartPolicy Always, no activeDeadlineSeconds;
    minReadySeconds, templateGeneration and revisionHistoryLimit not negative; the update
    strategy."""
    validate_object_meta(get_map(obj, "metadata", "", errs) or {}, True, name_is_dns_subdomain, META, errs)
    spec = get_map(obj, "spec", "", errs) or {}
    sel = read_selector(spec, "selector", SPEC, errs)
    if sel is not None:
        validate_label_selector(sel, f"{SPEC}.selector", errs)
    tmpl = read_template(spec, SPEC, errs)
    tp = f"{SPEC}.template"
    if selector_parses(sel):
        _selector_matches_template(sel, tmpl, tp, errs)
    if sel is not None and sel.empty:
        errs.append(invalid(f"{SPEC}.selector", sel.as_json(), "empty selector is invalid for daemonset"))
    validate_pod_template_spec(tmpl, tp, errs)
    _validate_restart_policy_and_deadline(tmpl, tp, errs, "DaemonSet")
    validate_nonnegative(get_int(spec, "minReadySeconds", SPEC, errs), f"{SPEC}.minReadySeconds", errs)
    validate_nonnegative(get_int(spec, "templateGeneration", SPEC, errs, bits=64), f"{SPEC}.templateGeneration", errs)
    _validate_daemonset_update_strategy(spec, errs)
    validate_nonnegative(get_int(spec, "revisionHistoryLimit", SPEC, errs), f"{SPEC}.revisionHistoryLimit", errs)
