"""Validation of core/v1 objects and of the shared pieces (names, labels, selectors, pod specs).

Ports, at Kubernetes v1.37 (the API server's default feature gates), of:

* k8s.io/apimachinery/pkg/util/validation and pkg/api/validate/content (name and label formats);
* k8s.io/apimachinery/pkg/apis/meta/v1/validation (ValidateLabels, ValidateLabelSelector);
* k8s.io/apimachinery/pkg/api/validation (ValidateObjectMeta, NameIs*);
* pkg/apis/core/validation/validation.go (pods, pod specs, nodes, namespaces, PVs, PVCs).

Only the fields planner reads are validated (see the module docstring of planner.validation for
what is left out).  Each function cites the upstream function it ports; detail strings are
upstream's, verbatim.  Objects are validated as on create (no ratcheting of old invalid data).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from planner import quantity as qty
from planner.validation.field import (
    T_ARRAY,
    T_OBJECT,
    T_QUANTITY,
    FieldError,
    JSONValue,
    Struct,
    as_int,
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
    go_quote,
    invalid,
    list_items,
    not_supported,
    required,
    too_long,
    type_error,
)

Errs = list[FieldError]
_ORJSON_OPTS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS
NameFn = Callable[[str, bool], list[str]]

# =========================================================================== string formats
# k8s.io/apimachinery/pkg/util/validation/validation.go and pkg/api/validate/content/*.go


def _blen(s: str) -> int:
    """Go's len(): bytes."""
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


def max_len_error(n: int) -> str:
    """util/validation MaxLenError."""
    return f"must be no more than {n} characters"


def content_max_len_error(n: int) -> str:
    """content.MaxLenError (label keys and values)."""
    return f"must be no more than {n} bytes"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """RegexError."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    ex = " or ".join(f"'{e}'" for e in examples)
    return f"{msg} (e.g. {ex}, regex used for validation is '{fmt}')"


def inclusive_range_error(lo: int, hi: int) -> str:
    return f"must be between {lo} and {hi}, inclusive"


DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_RE = re.compile(DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)


def is_dns1123_label(value: str) -> list[str]:
    """IsDNS1123Label."""
    if len(value) <= 63 and _DNS1123_LABEL_RE.fullmatch(value):
        return []
    errs = []
    if _blen(value) > 63:
        errs.append(max_len_error(63))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str, content: bool = False) -> list[str]:
    """IsDNS1123Subdomain (util/validation); content=True is content.IsDNS1123Subdomain, whose
    length message says "bytes" (used for label-key prefixes)."""
    if len(value) <= 253 and _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        return []
    errs = []
    if _blen(value) > 253:
        errs.append(content_max_len_error(253) if content else max_len_error(253))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_KEY_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
LABEL_VALUE_FMT = "(" + LABEL_KEY_FMT + ")?"
LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_NAME_RE = re.compile(LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)
_VALID_KEY_RE = re.compile(
    "(" + DNS1123_SUBDOMAIN_FMT + "/)?" + LABEL_KEY_FMT
)  # fast path: a valid key (lengths checked separately)
_VALID_KEYS: set[str] = set()
_INVALID_KEYS: dict[str, tuple[str, ...]] = {}


def is_qualified_name(value: str) -> tuple[str, ...]:
    """IsQualifiedName == content.IsLabelKey."""
    if value in _VALID_KEYS:
        return ()
    found = _INVALID_KEYS.get(value)
    if found is not None:
        return found
    errs = _label_key_errors(value)
    if not errs:
        if len(_VALID_KEYS) < 100_000:
            _VALID_KEYS.add(value)
        return ()
    res = tuple(errs)
    if len(_INVALID_KEYS) < 10_000:
        _INVALID_KEYS[value] = res
    return res


def _label_key_errors(value: str) -> list[str]:
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if len(prefix) == 0:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix, content=True))
    else:
        return [
            "a valid label key "
            + regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if len(name) == 0:
        errs.append("name part must be non-empty")
    elif _blen(name) > 63:
        errs.append("name part " + content_max_len_error(63))
    if not _LABEL_NAME_RE.fullmatch(name):
        errs.append("name part " + regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """IsValidLabelValue == content.IsLabelValue."""
    if len(value) <= 63 and _LABEL_VALUE_RE.fullmatch(value):
        return []
    errs = []
    if _blen(value) > 63:
        errs.append(content_max_len_error(63))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


PERCENT_FMT = "[0-9]+%"
PERCENT_ERR = "a valid percent string must be a numeric string followed by an ending '%'"
_PERCENT_RE = re.compile(PERCENT_FMT)


def is_valid_percent(value: str) -> list[str]:
    """IsValidPercent."""
    if _PERCENT_RE.fullmatch(value) and value.isascii():
        return []
    return [regex_error(PERCENT_ERR, PERCENT_FMT, "1%", "93%")]


def is_valid_port_num(port: int) -> list[str]:
    """IsValidPortNum."""
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


_PORT_NAME_CHARSET = re.compile("[-a-z0-9]+")
_PORT_NAME_LETTER = re.compile("[a-z]")


def is_valid_port_name(port: str) -> list[str]:
    """IsValidPortName."""
    errs = []
    if _blen(port) > 15:
        errs.append(max_len_error(15))
    if not _PORT_NAME_CHARSET.fullmatch(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_LETTER.search(port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def is_valid_path_segment_name(name: str) -> list[str]:
    """k8s.io/apimachinery/pkg/api/validation/path IsValidPathSegmentName."""
    for bad in (".", ".."):
        if name == bad:
            return [f"may not be '{bad}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


def _mask_trailing_dash(name: str) -> str:
    """maskTrailingDash (for generateName prefixes)."""
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """apimachinery validation NameIsDNSSubdomain."""
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """apimachinery validation NameIsDNSLabel (also ValidateNamespaceName)."""
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def validate_path_segment_name(name: str, prefix: bool) -> list[str]:
    """path.ValidatePathSegmentName."""
    if prefix:
        return [f"may not contain '{c}'" for c in ("/", "%") if c in name]
    return is_valid_path_segment_name(name)


def _atoi(s: str) -> int:
    """strconv.Atoi with the error ignored: 0 for a syntax error, and for a number out of range
    the largest of its sign (ParseInt's ErrRange value), whatever its number of digits."""
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or not body.isascii() or not body.isdigit():
        return 0
    lo, hi = -(1 << 63), (1 << 63) - 1
    if len(body.lstrip("0")) > 19:
        return lo if s[0] == "-" else hi
    return min(max(int(s), lo), hi)


# =========================================================================== metav1 validation
# k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go


def validate_label_name(name: str, path: str, errs: Errs) -> None:
    """ValidateLabelName."""
    for msg in is_qualified_name(name):
        errs.append(invalid(path, name, msg))


def validate_labels(labels: dict[str, str] | None, path: str, errs: Errs) -> None:
    """ValidateLabels: every error is reported at the map's path (not per key)."""
    if not labels:
        return
    for k, v in labels.items():
        if k not in _VALID_KEYS:
            validate_label_name(k, path, errs)
        if len(v) > 63 or not _LABEL_VALUE_RE.fullmatch(v):
            for msg in is_valid_label_value(v):
                errs.append(invalid(path, v, msg))


class Selector:
    """A decoded metav1.LabelSelector (matchLabels, matchExpressions as (key, operator, values))."""

    __slots__ = ("match_labels", "exprs")

    def __init__(self, match_labels: dict[str, str], exprs: list[tuple[str, str, list[str]]]) -> None:
        self.match_labels = match_labels
        self.exprs = exprs

    @property
    def empty(self) -> bool:
        return not self.match_labels and not self.exprs

    def keys(self) -> list[str]:
        return list(self.match_labels) + [k for k, _, _ in self.exprs]

    def matches(self, labels: dict[str, str]) -> bool:
        """labels.Selector.Matches for LabelSelectorAsSelector(self) (only meaningful when valid)."""
        for k, v in self.match_labels.items():
            if labels.get(k) != v:
                return False
        for k, op, values in self.exprs:
            if op == "In":
                if k not in labels or labels[k] not in values:
                    return False
            elif op == "NotIn":
                if k in labels and labels[k] in values:
                    return False
            elif op == "Exists":
                if k not in labels:
                    return False
            elif op == "DoesNotExist":
                if k in labels:
                    return False
            else:
                return False
        return True

    def as_json(self) -> Struct:
        """json.Marshal of the *metav1.LabelSelector (omitempty fields dropped)."""
        out = Struct()
        if self.match_labels:
            out["matchLabels"] = dict(self.match_labels)
        if self.exprs:
            reqs = []
            for k, op, values in self.exprs:
                r = Struct(key=k, operator=op)
                if values:
                    r["values"] = list(values)
                reqs.append(r)
            out["matchExpressions"] = reqs
        return out


def read_selector(d: dict, key: str, path: str, errs: Errs) -> Selector | None:  # type: ignore[type-arg]
    """Decode a *metav1.LabelSelector field (None when absent or null)."""
    raw = get_map(d, key, path, errs)
    if raw is None:
        return None
    p = f"{path}.{key}"
    labels = get_str_map(raw, "matchLabels", p, errs) or {}
    # the same {key, operator, values} shape as node selector requirements
    exprs = _read_node_selector_requirements(raw, "matchExpressions", p, errs)
    return Selector(labels, exprs)


def validate_label_selector(sel: Selector | None, path: str, errs: Errs, allow_invalid_values: bool = False) -> None:
    """ValidateLabelSelector / ValidateLabelSelectorRequirement."""
    if sel is None:
        return
    validate_labels(sel.match_labels, f"{path}.matchLabels", errs)
    for i, (k, op, values) in enumerate(sel.exprs):
        p = f"{path}.matchExpressions[{i}]"
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(
                    forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
                )
        else:
            errs.append(invalid(f"{p}.operator", JSONValue(op), "not a valid selector operator"))
        validate_label_name(k, f"{p}.key", errs)
        if not allow_invalid_values:
            for vi, v in enumerate(values):
                for msg in is_valid_label_value(v):
                    errs.append(invalid(f"{p}.values[{vi}]", v, msg))


def selector_parses(sel: Selector | None) -> bool:
    """Whether metav1.LabelSelectorAsSelector succeeds (labels.NewRequirement accepts every term)."""
    if sel is None:
        return True
    for k, v in sel.match_labels.items():
        if is_qualified_name(k) or is_valid_label_value(v):
            return False
    for k, op, values in sel.exprs:
        if is_qualified_name(k):
            return False
        if op in ("In", "NotIn"):
            if not values:
                return False
        elif op in ("Exists", "DoesNotExist"):
            if values:
                return False
        else:
            return False
        if any(is_valid_label_value(v) for v in values):
            return False
    return True


# =========================================================================== ObjectMeta
# k8s.io/apimachinery/pkg/api/validation/objectmeta.go (+ core's finalizer check)

TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10)
_STANDARD_FINALIZERS = frozenset(("kubernetes", "orphan", "foregroundDeletion"))


def validate_annotations(annotations: dict[str, str] | None, path: str, errs: Errs) -> None:
    """ValidateAnnotations: keys are qualified names (case-insensitive), total size <= 256 KiB."""
    if not annotations:
        return
    total = 0
    for k, v in annotations.items():
        lk = k.lower()
        if lk not in _VALID_KEYS:
            for msg in is_qualified_name(lk):
                errs.append(invalid(path, k, msg))
        total += _blen(k) + _blen(v)
    if total > TOTAL_ANNOTATION_SIZE_LIMIT_B:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT_B))


def _validate_owner_references(meta: dict, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateOwnerReferences / validateOwnerReference."""
    refs = get_list(meta, "ownerReferences", path, errs)
    if not refs:
        return
    p = f"{path}.ownerReferences"
    first_controller = ""
    decoded: list[Struct] = []
    for i, r in list_items(refs, p, errs):
        ip = f"{p}[{i}]"
        api_version = get_str(r, "apiVersion", ip, errs)
        kind = get_str(r, "kind", ip, errs)
        name = get_str(r, "name", ip, errs)
        uid = get_str(r, "uid", ip, errs)
        controller = get_bool(r, "controller", ip, errs)
        block = get_bool(r, "blockOwnerDeletion", ip, errs)
        ref = Struct(apiVersion=api_version, kind=kind, name=name, uid=uid)
        if controller is not None:
            ref["controller"] = controller
        if block is not None:
            ref["blockOwnerDeletion"] = block
        decoded.append(ref)
        # schema.FromAPIVersionAndKind: "group/version", "version", or unparseable (no version)
        parts = api_version.split("/")
        if len(parts) == 1:
            group, version = "", parts[0]
        elif len(parts) == 2:
            group, version = parts
        else:
            group, version = "", ""
        if not version:
            errs.append(invalid(f"{p}.apiVersion", api_version, "version must not be empty"))
        if not kind:
            errs.append(invalid(f"{p}.kind", kind, "must not be empty"))
        if not name:
            errs.append(invalid(f"{p}.name", name, "must not be empty"))
        if not uid:
            errs.append(invalid(f"{p}.uid", JSONValue(uid), "must not be empty"))
        if group == "" and version == "v1" and kind == "Event":
            errs.append(invalid(p, ref, "/v1, Kind=Event is disallowed from being an owner"))
        if controller:
            cur = f"{kind}/{name}"
            if first_controller:
                errs.append(
                    invalid(
                        p,
                        decoded,
                        'Only one reference can have Controller set to true. Found "true" in references for '
                        f"{first_controller} and {cur}",
                    )
                )
            else:
                first_controller = cur


def validate_object_meta(
    meta: dict | None,  # type: ignore[type-arg]
    namespaced: bool,
    name_fn: NameFn,
    path: str,
    errs: Errs,
) -> None:
    """ValidateObjectMeta (apimachinery ValidateObjectMetaAccessor + core's finalizer-name check)."""
    if meta is None:
        meta = {}
    generate_name = get_str(meta, "generateName", path, errs)
    if generate_name:
        for msg in name_fn(generate_name, True):
            errs.append(invalid(f"{path}.generateName", generate_name, msg))
    name = get_str(meta, "name", path, errs)
    if not name:
        errs.append(required(f"{path}.name", "name or generateName is required"))
    else:
        for msg in name_fn(name, False):
            errs.append(invalid(f"{path}.name", name, msg))
    namespace = get_str(meta, "namespace", path, errs)
    if namespaced:
        if not namespace:
            errs.append(required(f"{path}.namespace"))
        else:
            for msg in name_is_dns_label(namespace, False):
                errs.append(invalid(f"{path}.namespace", namespace, msg))
    elif namespace:
        errs.append(forbidden(f"{path}.namespace", "not allowed on this type"))
    generation = get_int(meta, "generation", path, errs, bits=64)
    if generation is not None and generation < 0:
        errs.append(invalid(f"{path}.generation", generation, "must be greater than or equal to 0"))
    key = _meta_key(meta)
    if key is not None and key in _VALID_META:
        return
    before = len(errs)
    _validate_meta_maps(meta, path, errs)
    if key is not None and len(errs) == before:
        if len(_VALID_META) >= _VALID_SPECS_MAX:
            _VALID_META.clear()
        _VALID_META.add(key)


# Valid (labels, annotations, ownerReferences, finalizers) combinations, as for _VALID_SPECS.
_VALID_META: set[bytes] = set()
_VALID_SPECS_MAX = 8192


def _meta_key(meta: dict) -> bytes | None:  # type: ignore[type-arg]
    parts = {k: meta[k] for k in ("labels", "annotations", "ownerReferences", "finalizers") if meta.get(k) is not None}
    try:
        b = orjson.dumps(parts, option=_ORJSON_OPTS)
    except (TypeError, orjson.JSONEncodeError):
        return None
    return None if b"null" in b else b  # NaN is written as null: keep it out of the memo


def _validate_meta_maps(meta: dict, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """The label, annotation, owner-reference and finalizer parts of ValidateObjectMeta."""
    validate_labels(get_str_map(meta, "labels", path, errs), f"{path}.labels", errs)
    validate_annotations(get_str_map(meta, "annotations", path, errs), f"{path}.annotations", errs)
    _validate_owner_references(meta, path, errs)
    finalizers = get_str_list(meta, "finalizers", path, errs)
    if finalizers:
        fp = f"{path}.finalizers"
        for f in finalizers:  # ValidateFinalizers
            for msg in is_qualified_name(f):
                errs.append(invalid(fp, f, msg))
        if "orphan" in finalizers and "foregroundDeletion" in finalizers:
            errs.append(invalid(fp, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"))
        for i, f in enumerate(finalizers):  # core validateKubeFinalizerName
            if "/" not in f and f not in _STANDARD_FINALIZERS:
                errs.append(
                    invalid(f"{fp}[{i}]", f, "name is neither a standard finalizer name nor is it fully qualified")
                )


# Go field order of metav1.ObjectMeta with its JSON names (validateFieldAllowList).
_OBJECT_META_FIELDS = (
    ("name", "name"),
    ("generateName", "generateName"),
    ("namespace", "namespace"),
    ("selfLink", "selfLink"),
    ("uid", "uID"),
    ("resourceVersion", "resourceVersion"),
    ("generation", "generation"),
    ("creationTimestamp", "creationTimestamp"),
    ("deletionTimestamp", "deletionTimestamp"),
    ("deletionGracePeriodSeconds", "deletionGracePeriodSeconds"),
    ("labels", "labels"),
    ("annotations", "annotations"),
    ("ownerReferences", "ownerReferences"),
    ("finalizers", "finalizers"),
    ("managedFields", "managedFields"),
)


def validate_template_object_meta(meta: dict | None, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateTemplateObjectMeta: only labels and annotations may be set."""
    if meta is None:
        return
    validate_annotations(get_str_map(meta, "annotations", path, errs), f"{path}.annotations", errs)
    validate_labels(get_str_map(meta, "labels", path, errs), f"{path}.labels", errs)
    for json_name, go_name in _OBJECT_META_FIELDS:
        if json_name in ("labels", "annotations"):
            continue
        v = meta.get(json_name)
        if v is not None and v != "" and v != 0 and v != [] and v != {}:
            errs.append(forbidden(f"{path}.{go_name}", "cannot be set"))


# =========================================================================== quantities and resources


def read_quantity(raw: Any, path: str, errs: Errs) -> qty.Quantity | None:
    """Decode a resource.Quantity field; a malformed one is reported with upstream's parse error."""
    if isinstance(raw, (dict, list)) or isinstance(raw, bool):
        errs.append(type_error(path, raw, T_QUANTITY))
        return None
    try:
        return qty.decode(raw)
    except qty.QuantityError as e:
        errs.append(invalid(path, raw, str(e)))
        return None


def read_resource_list(d: dict, key: str, path: str, errs: Errs) -> dict[str, qty.Quantity] | None:  # type: ignore[type-arg]
    """A core.ResourceList: name -> Quantity (bad entries reported and dropped)."""
    raw = get_map(d, key, path, errs)
    if raw is None:
        return None
    p = f"{path}.{key}"
    out: dict[str, qty.Quantity] = {}
    for name, v in raw.items():
        q = read_quantity(v, f"{p}[{str(name)}]", errs)
        if q is not None:
            out[str(name)] = q
    return out


_STANDARD_CONTAINER_RESOURCES = frozenset(("cpu", "memory", "ephemeral-storage"))
_STANDARD_RESOURCES = frozenset(
    (
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    )
)
_INTEGER_RESOURCES = frozenset(
    (
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    )
)


def is_hugepage_resource_name(name: str) -> bool:
    """helper.IsHugePageResourceName."""
    return name.startswith("hugepages-")


def is_native_resource(name: str) -> bool:
    """helper.IsNativeResource: unprefixed or in the kubernetes.io/ namespace."""
    return "/" not in name or "kubernetes.io/" in name


def is_extended_resource_name(name: str) -> bool:
    """helper.IsExtendedResourceName."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def is_overcommit_allowed(name: str) -> bool:
    """helper.IsOvercommitAllowed."""
    return is_native_resource(name) and not is_hugepage_resource_name(name)


def is_integer_resource_name(name: str) -> bool:
    """helper.IsIntegerResourceName."""
    return name in _INTEGER_RESOURCES or is_extended_resource_name(name)


def _is_standard_resource_name(name: str) -> bool:
    """helper.IsStandardResourceName."""
    return name in _STANDARD_RESOURCES or name.startswith("hugepages-") or name.startswith("requests.hugepages-")


def validate_resource_name(name: str, path: str, errs: Errs) -> None:
    """validateResourceName."""
    msgs = is_qualified_name(name)
    for msg in msgs:
        errs.append(invalid(path, JSONValue(name), msg))
    if msgs:
        return
    if "/" not in name and not _is_standard_resource_name(name):
        errs.append(invalid(path, JSONValue(name), "must be a standard resource type or fully qualified"))


def validate_container_resource_name(name: str, path: str, errs: Errs) -> None:
    """validateContainerResourceName."""
    if name in _STANDARD_CONTAINER_RESOURCES:
        return
    validate_resource_name(name, path, errs)
    if "/" not in name:
        if not (name in _STANDARD_CONTAINER_RESOURCES or is_hugepage_resource_name(name)):
            errs.append(invalid(path, JSONValue(name), "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        errs.append(invalid(path, JSONValue(name), "doesn't follow extended resource name standard"))


def validate_resource_quantity_value(name: str, q: qty.Quantity, path: str, errs: Errs) -> None:
    """ValidateResourceQuantityValue: non-negative (ValidateNonnegativeQuantity); integral for
    integer resources."""
    if q.value < 0:
        errs.append(invalid(path, q.string(), "must be greater than or equal to 0"))
    if is_integer_resource_name(name) and qty.milli_value(q.value) % 1000 != 0:
        errs.append(invalid(path, JSONValue(q.string()), "must be an integer"))


def _hugepage_divisible(name: str, q: qty.Quantity) -> bool:
    """helper.IsHugePageResourceValueDivisible."""
    try:
        page = qty.parse(name[len("hugepages-") :])
    except qty.QuantityError:
        return False
    if page.value <= 0 or qty.milli_value(page.value) % 1000 != 0:
        return False
    return qty.int_value(q.value) % qty.int_value(page.value) == 0


def validate_resource_requirements(
    limits: dict[str, qty.Quantity],
    requests: dict[str, qty.Quantity],
    path: str,
    errs: Errs,
    name_fn: Callable[[str, str, Errs], None] = validate_container_resource_name,
) -> None:
    """validateResourceRequirements (ValidateContainerResourceRequirements)."""
    lim_path = f"{path}.limits"
    req_path = f"{path}.requests"
    lim_cpu_mem = req_cpu_mem = lim_huge = req_huge = False
    for name, q in limits.items():
        p = f"{lim_path}[{name}]"
        name_fn(name, p, errs)
        validate_resource_quantity_value(name, q, p, errs)
        if is_hugepage_resource_name(name):
            lim_huge = True
            if not _hugepage_divisible(name, q):
                errs.append(invalid(p, q.string(), f"{q.string()} is not positive integer multiple of {name}"))
        if name in ("cpu", "memory"):
            lim_cpu_mem = True
    for name, q in requests.items():
        p = f"{req_path}[{name}]"
        name_fn(name, p, errs)
        validate_resource_quantity_value(name, q, p, errs)
        lq = limits.get(name)
        if lq is not None:
            if q.value != lq.value and not is_overcommit_allowed(name):
                errs.append(invalid(req_path, q.string(), f"must be equal to {name} limit of {lq.string()}"))
            elif q.value > lq.value:
                errs.append(
                    invalid(req_path, q.string(), f"must be less than or equal to {name} limit of {lq.string()}")
                )
        elif not is_overcommit_allowed(name):
            errs.append(required(lim_path, "Limit must be set for non overcommitable resources"))
        if is_hugepage_resource_name(name):
            req_huge = True
            if not _hugepage_divisible(name, q):
                errs.append(invalid(p, q.string(), f"{q.string()} is not positive integer multiple of {name}"))
        if name in ("cpu", "memory"):
            req_cpu_mem = True
    if not lim_cpu_mem and not req_cpu_mem and (req_huge or lim_huge):
        errs.append(forbidden(path, "HugePages require cpu or memory"))


# =========================================================================== node selectors and affinity


def _read_node_selector_requirements(
    term: dict,
    key: str,
    path: str,
    errs: Errs,  # type: ignore[type-arg]
) -> list[tuple[str, str, list[str]]]:
    lst = get_list(term, key, path, errs)
    out: list[tuple[str, str, list[str]]] = []
    if lst:
        p = f"{path}.{key}"
        for i, r in list_items(lst, p, errs):
            ip = f"{p}[{i}]"
            out.append(
                (
                    get_str(r, "key", ip, errs),
                    get_str(r, "operator", ip, errs),
                    get_str_list(r, "values", ip, errs) or [],
                )
            )
    return out


def validate_node_selector_requirement(
    key: str, op: str, values: list[str], allow_invalid_values: bool, path: str, errs: Errs
) -> None:
    """ValidateNodeSelectorRequirement."""
    if op in ("In", "NotIn"):
        if not values:
            errs.append(required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(
                forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
            )
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(invalid(f"{path}.operator", JSONValue(op), "not a valid selector operator"))
    validate_label_name(key, f"{path}.key", errs)
    if not allow_invalid_values:
        for i, v in enumerate(values):
            for msg in is_valid_label_value(v):
                errs.append(invalid(f"{path}.values[{i}]", v, msg))


def validate_node_field_selector_requirement(key: str, op: str, values: list[str], path: str, errs: Errs) -> None:
    """ValidateNodeFieldSelectorRequirement: only metadata.name, In/NotIn with one value."""
    if op in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(
                required(
                    f"{path}.values",
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
            )
    else:
        errs.append(invalid(f"{path}.operator", JSONValue(op), "not a valid selector operator"))
    if key != "metadata.name":
        errs.append(invalid(f"{path}.key", key, "not a valid field selector key"))
    else:
        for i, v in enumerate(values):
            for msg in name_is_dns_subdomain(v, False):
                errs.append(invalid(f"{path}.values[{i}]", v, msg))


def validate_node_selector_term(term: dict, allow_invalid_values: bool, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateNodeSelectorTerm."""
    for j, (k, op, vals) in enumerate(_read_node_selector_requirements(term, "matchExpressions", path, errs)):
        validate_node_selector_requirement(k, op, vals, allow_invalid_values, f"{path}.matchExpressions[{j}]", errs)
    for j, (k, op, vals) in enumerate(_read_node_selector_requirements(term, "matchFields", path, errs)):
        validate_node_field_selector_requirement(k, op, vals, f"{path}.matchFields[{j}]", errs)


def validate_node_selector(ns: dict, allow_invalid_values: bool, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateNodeSelector: at least one term."""
    tp = f"{path}.nodeSelectorTerms"
    raw = ns.get("nodeSelectorTerms")
    if raw is not None and type(raw) is not list:
        errs.append(type_error(tp, raw, T_ARRAY))
        return
    terms = raw
    if not terms:
        errs.append(required(tp, "must have at least one node selector term"))
        return
    for i, term in list_items(terms, tp, errs):
        validate_node_selector_term(term, allow_invalid_values, f"{tp}[{i}]", errs)


def validate_preferred_scheduling_terms(terms: list, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidatePreferredSchedulingTerms: weight 1..100; values may be invalid label values."""
    for i, t in list_items(terms, path, errs):
        ip = f"{path}[{i}]"
        w = get_int(t, "weight", ip, errs) or 0
        if w <= 0 or w > 100:
            errs.append(invalid(f"{ip}.weight", w, "must be in the range 1-100"))
        pref = get_map(t, "preference", ip, errs) or {}
        validate_node_selector_term(pref, True, f"{ip}.preference", errs)


def validate_match_label_keys_and_mismatch_label_keys(
    path: str, match_keys: list[str], mismatch_keys: list[str], sel: Selector | None, errs: Errs
) -> None:
    """ValidateMatchLabelKeysAndMismatchLabelKeys (note upstream reports a key that is also in the
    selector at ``<path>[i]``, not ``<path>.matchLabelKeys[i]``)."""
    for child, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        if not keys:
            continue
        if sel is None:  # validateLabelKeys
            errs.append(forbidden(f"{path}.{child}", "must not be specified when labelSelector is not set"))
            continue
        for i, k in enumerate(keys):
            validate_label_name(k, f"{path}.{child}[{i}]", errs)
    if sel is not None:
        key_index = {k: i for i, k in enumerate(match_keys)}
        seen = set(sel.match_labels)
        for k, _, _ in sel.exprs:
            at = key_index.get(k)
            if at is not None and k in seen:
                errs.append(invalid(f"{path}[{at}]", k, "exists in both matchLabelKeys and labelSelector"))
            seen.add(k)
    mismatch = set(mismatch_keys)
    for i, k in enumerate(match_keys):
        if k in mismatch:
            errs.append(
                invalid(f"{path}.matchLabelKeys[{i}]", k, "exists in both matchLabelKeys and mismatchLabelKeys")
            )


def _validate_pod_affinity_term(term: dict, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """validatePodAffinityTerm (+ ValidatePodAffinityTermSelector)."""
    sel = read_selector(term, "labelSelector", path, errs)
    validate_label_selector(sel, f"{path}.labelSelector", errs)
    ns_sel = read_selector(term, "namespaceSelector", path, errs)
    validate_label_selector(ns_sel, f"{path}.namespaceSelector", errs)
    for name in get_str_list(term, "namespaces", path, errs) or ():
        for msg in name_is_dns_label(name, False):
            errs.append(invalid(f"{path}.namespace", name, msg))
    match_keys = get_str_list(term, "matchLabelKeys", path, errs) or []
    mismatch_keys = get_str_list(term, "mismatchLabelKeys", path, errs) or []
    validate_match_label_keys_and_mismatch_label_keys(path, match_keys, mismatch_keys, sel, errs)
    topology_key = get_str(term, "topologyKey", path, errs)
    if not topology_key:
        errs.append(required(f"{path}.topologyKey", "can not be empty"))
    validate_label_name(topology_key, f"{path}.topologyKey", errs)


def _validate_pod_affinity(aff: dict, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """validatePodAffinity / validatePodAntiAffinity (+ validateWeightedPodAffinityTerms)."""
    req = get_list(aff, "requiredDuringSchedulingIgnoredDuringExecution", path, errs)
    if req:
        rp = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
        for i, t in list_items(req, rp, errs):
            _validate_pod_affinity_term(t, f"{rp}[{i}]", errs)
    pref = get_list(aff, "preferredDuringSchedulingIgnoredDuringExecution", path, errs)
    if pref:
        pp = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
        for i, wt in list_items(pref, pp, errs):
            ip = f"{pp}[{i}]"
            w = get_int(wt, "weight", ip, errs) or 0
            if w <= 0 or w > 100:
                errs.append(invalid(f"{ip}.weight", w, "must be in the range 1-100"))
            term = get_map(wt, "podAffinityTerm", ip, errs) or {}
            _validate_pod_affinity_term(term, f"{ip}.podAffinityTerm", errs)


def validate_affinity(aff: dict, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """validateAffinity (validateNodeAffinity, validatePodAffinity, validatePodAntiAffinity)."""
    na = get_map(aff, "nodeAffinity", path, errs)
    if na is not None:
        np_ = f"{path}.nodeAffinity"
        req = get_map(na, "requiredDuringSchedulingIgnoredDuringExecution", np_, errs)
        if req is not None:
            validate_node_selector(req, False, f"{np_}.requiredDuringSchedulingIgnoredDuringExecution", errs)
        pref = get_list(na, "preferredDuringSchedulingIgnoredDuringExecution", np_, errs)
        if pref:
            validate_preferred_scheduling_terms(pref, f"{np_}.preferredDuringSchedulingIgnoredDuringExecution", errs)
    pa = get_map(aff, "podAffinity", path, errs)
    if pa is not None:
        _validate_pod_affinity(pa, f"{path}.podAffinity", errs)
    paa = get_map(aff, "podAntiAffinity", path, errs)
    if paa is not None:
        _validate_pod_affinity(paa, f"{path}.podAntiAffinity", errs)


# =========================================================================== taints and tolerations

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def validate_taint_effect(effect: str, allow_empty: bool, path: str, errs: Errs) -> None:
    """validateTaintEffect."""
    if not allow_empty and not effect:
        errs.append(required(path))
        return
    if effect not in TAINT_EFFECTS:
        errs.append(not_supported(path, JSONValue(effect), TAINT_EFFECTS))


def validate_tolerations(tols: list, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateTolerations (TaintTolerationComparisonOperators is alpha and off in v1.35 through v1.37, so Lt/Gt
    are unsupported -- with upstream's list of four values)."""
    for i, t in list_items(tols, path, errs):
        ip = f"{path}[{i}]"
        key = get_str(t, "key", ip, errs)
        op = get_str(t, "operator", ip, errs)
        value = get_str(t, "value", ip, errs)
        effect = get_str(t, "effect", ip, errs)
        seconds = get_int(t, "tolerationSeconds", ip, errs, bits=64)
        if key:
            validate_label_name(key, f"{ip}.key", errs)
        if not key and op != "Exists":
            errs.append(
                invalid(
                    f"{ip}.operator",
                    JSONValue(op),
                    'operator must be Exists when `key` is empty, which means "match all values and all keys"',
                )
            )
        if seconds is not None and effect != "NoExecute":
            errs.append(
                invalid(f"{ip}.effect", JSONValue(effect), "effect must be 'NoExecute' when `tolerationSeconds` is set")
            )
        if op in ("Equal", ""):
            msgs = is_valid_label_value(value)
            if msgs:
                errs.append(invalid(f"{ip}.operator", value, ";".join(msgs)))
        elif op == "Exists":
            if value:
                errs.append(invalid(f"{ip}.operator", value, "value must be empty when `operator` is 'Exists'"))
        elif op in ("Lt", "Gt"):
            errs.append(not_supported(f"{ip}.operator", JSONValue(op), ("Equal", "Exists", "Lt", "Gt")))
        else:
            errs.append(not_supported(f"{ip}.operator", JSONValue(op), ("Equal", "Exists")))
        if effect:
            validate_taint_effect(effect, True, f"{ip}.effect", errs)


# =========================================================================== topology spread

WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")  # sets.List: sorted
NODE_INCLUSION_POLICIES = ("Honor", "Ignore")


def validate_topology_spread_constraints(tscs: list, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """validateTopologySpreadConstraints with v1.37's default gates: MatchLabelKeysInPodTopologySpread
    and MatchLabelKeysInPodTopologySpreadSelectorMerge on, so matchLabelKeys go through
    ValidateMatchLabelKeysAndMismatchLabelKeys; NodeInclusionPolicyInPodTopologySpread is GA."""
    decoded = []
    for i, c in list_items(tscs, path, errs):
        ip = f"{path}[{i}]"
        decoded.append(
            (
                i,
                ip,
                get_int(c, "maxSkew", ip, errs) or 0,
                get_str(c, "topologyKey", ip, errs),
                get_str(c, "whenUnsatisfiable", ip, errs),
                get_int(c, "minDomains", ip, errs),
                get_opt_str(c, "nodeAffinityPolicy", ip, errs),
                get_opt_str(c, "nodeTaintsPolicy", ip, errs),
                get_str_list(c, "matchLabelKeys", ip, errs) or [],
                read_selector(c, "labelSelector", ip, errs),
            )
        )
    for n, (_i, ip, max_skew, key, when, min_domains, na_policy, nt_policy, mlk, sel) in enumerate(decoded):
        if max_skew <= 0:  # ValidatePositiveField
            errs.append(invalid(f"{ip}.maxSkew", max_skew, "must be greater than zero"))
        if not key:  # ValidateTopologyKey
            errs.append(required(f"{ip}.topologyKey", "can not be empty"))
        if when not in WHEN_UNSATISFIABLE:  # ValidateWhenUnsatisfiable
            errs.append(not_supported(f"{ip}.whenUnsatisfiable", JSONValue(when), WHEN_UNSATISFIABLE))
        for rest in decoded[n + 1 :]:  # ValidateSpreadConstraintNotRepeat
            if rest[3] == key and rest[4] == when:
                errs.append(duplicate(f"{ip}.{{topologyKey, whenUnsatisfiable}}", f"{{{key}, {when}}}"))
                break
        if min_domains is not None:  # validateMinDomains
            if min_domains <= 0:
                errs.append(invalid(f"{ip}.minDomains", min_domains, "must be greater than zero"))
            if when != "DoNotSchedule":
                errs.append(
                    invalid(
                        f"{ip}.minDomains",
                        min_domains,
                        f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {when}",
                    )
                )
        for child, pol in (("nodeAffinityPolicy", na_policy), ("nodeTaintsPolicy", nt_policy)):
            if pol is not None and pol not in NODE_INCLUSION_POLICIES:  # validateNodeInclusionPolicy
                errs.append(not_supported(f"{ip}.{child}", JSONValue(pol), NODE_INCLUSION_POLICIES))
        validate_match_label_keys_and_mismatch_label_keys(ip, mlk, [], sel, errs)
        validate_label_selector(sel, f"{ip}.labelSelector", errs)


# =========================================================================== containers and volumes

PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")  # sets.List(supportedPortProtocols): sorted


def _validate_container_ports(ports: list, path: str, errs: Errs) -> list[tuple[int, str, str, int]]:  # type: ignore[type-arg]
    """validateContainerPorts; returns (index, protocol, hostIP, hostPort) for the host port check."""
    names: set[str] = set()
    host_ports: list[tuple[int, str, str, int]] = []
    for i, port in list_items(ports, path, errs):
        ip = f"{path}[{i}]"
        name = get_str(port, "name", ip, errs)
        container_port = get_int(port, "containerPort", ip, errs) or 0
        host_port = get_int(port, "hostPort", ip, errs) or 0
        protocol = get_str(port, "protocol", ip, errs)
        host_ip = get_str(port, "hostIP", ip, errs)
        if name:
            msgs = is_valid_port_name(name)
            if msgs:
                for m in msgs:
                    errs.append(invalid(f"{ip}.name", name, m))
            elif name in names:
                errs.append(duplicate(f"{ip}.name", name))
            else:
                names.add(name)
        if container_port == 0:
            errs.append(required(f"{ip}.containerPort"))
        else:
            for m in is_valid_port_num(container_port):
                errs.append(invalid(f"{ip}.containerPort", container_port, m))
        if host_port != 0:
            for m in is_valid_port_num(host_port):
                errs.append(invalid(f"{ip}.hostPort", host_port, m))
        if not protocol:
            errs.append(required(f"{ip}.protocol"))
        elif protocol not in PORT_PROTOCOLS:
            errs.append(not_supported(f"{ip}.protocol", JSONValue(protocol), PORT_PROTOCOLS))
        if host_port != 0:
            host_ports.append((i, protocol, host_ip, host_port))
    return host_ports


def _validate_container(c: dict, path: str, errs: Errs, is_pod: bool) -> tuple[str, list[tuple[int, str, str, int]]]:  # type: ignore[type-arg]
    """validateContainerCommon (the fields planner reads: name, image, ports, resources), plus the
    pod-only image whitespace check (validateContainerOnlyForPod)."""
    name = get_str(c, "name", path, errs)
    if not name:
        errs.append(required(f"{path}.name"))
    else:
        for m in is_dns1123_label(name):
            errs.append(invalid(f"{path}.name", name, m))
    image = get_str(c, "image", path, errs)
    if not image:
        errs.append(required(f"{path}.image"))
    host_ports: list[tuple[int, str, str, int]] = []
    ports = get_list(c, "ports", path, errs)
    if ports:
        host_ports = _validate_container_ports(ports, f"{path}.ports", errs)
    res = get_map(c, "resources", path, errs)
    if res:
        rp = f"{path}.resources"
        limits = read_resource_list(res, "limits", rp, errs) or {}
        requests = read_resource_list(res, "requests", rp, errs) or {}
        validate_resource_requirements(limits, requests, rp, errs)
    if is_pod and image and len(image) != len(image.strip()):
        errs.append(invalid(f"{path}.image", image, "must not have leading or trailing whitespace"))
    return name, host_ports


def _check_host_port_conflicts(
    per_container: list[tuple[int, list[tuple[int, str, str, int]]]], path: str, errs: Errs
) -> None:
    """AccumulateUniqueHostPorts: "<protocol>/<hostIP>/<port>" must be unique."""
    seen: set[str] = set()
    for ci, ports in per_container:
        for pi, protocol, host_ip, port in ports:
            s = f"{protocol}/{host_ip}/{port}"
            if s in seen:
                errs.append(duplicate(f"{path}[{ci}].ports[{pi}].hostPort", s))
            else:
                seen.add(s)


def _validate_containers(spec: dict, path: str, errs: Errs, is_pod: bool) -> None:  # type: ignore[type-arg]
    """validateContainers and validateInitContainers."""
    cp = f"{path}.containers"
    raw = spec.get("containers")
    containers = raw if type(raw) is list else None
    names: set[str] = set()
    if raw is not None and containers is None:
        errs.append(type_error(cp, raw, T_ARRAY))
    elif not containers:
        errs.append(required(cp))
    else:
        per: list[tuple[int, list[tuple[int, str, str, int]]]] = []
        for i, c in list_items(containers, cp, errs):
            name, hp = _validate_container(c, f"{cp}[{i}]", errs, is_pod)
            if name in names:
                errs.append(duplicate(f"{cp}[{i}].name", name))
            else:
                names.add(name)
            per.append((i, hp))
        _check_host_port_conflicts(per, cp, errs)
    inits = get_list(spec, "initContainers", path, errs)
    if inits:
        ip = f"{path}.initContainers"
        for i, c in list_items(inits, ip, errs):
            name, hp = _validate_container(c, f"{ip}[{i}]", errs, is_pod)
            if name in names:
                errs.append(duplicate(f"{ip}[{i}].name", name))
            elif name:
                names.add(name)
            # upstream checks each init container on its own, as index 0 of a one-element list
            _check_host_port_conflicts([(0, hp)], ip, errs)


# (json key, path name of the "may not specify more than 1 volume type" error), in the order of
# validateVolumeSource.  "downwarAPI" is upstream's spelling.
_POD_VOLUME_SOURCES = (
    ("emptyDir", "emptyDir"),
    ("hostPath", "hostPath"),
    ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"),
    ("nfs", "nfs"),
    ("iscsi", "iscsi"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("persistentVolumeClaim", "persistentVolumeClaim"),
    ("rbd", "rbd"),
    ("cinder", "cinder"),
    ("cephfs", "cephFS"),
    ("quobyte", "quobyte"),
    ("downwardAPI", "downwarAPI"),
    ("fc", "fc"),
    ("flexVolume", "flexVolume"),
    ("configMap", "configMap"),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("storageos", "storageos"),
    ("projected", "projected"),
    ("scaleIO", "scaleIO"),
    ("csi", "csi"),
    ("ephemeral", "ephemeral"),
    ("image", "image"),
)
POD_VOLUME_SOURCE_KEYS = tuple(k for k, _ in _POD_VOLUME_SOURCES)
_POD_VOLUME_SOURCE_ORDER = {k: i for i, (k, _) in enumerate(_POD_VOLUME_SOURCES)}
_POD_VOLUME_SOURCE_PATH = dict(_POD_VOLUME_SOURCES)


def _validate_volume_source(vol: dict, path: str, vol_name: str, pod_name: str | None, errs: Errs) -> Errs:  # type: ignore[type-arg]
    """validateVolumeSource: one volume type; persistentVolumeClaim and ephemeral in detail, and
    validateImageVolumeSource's required reference (v1.37, kubernetes#135989: for pod templates
    too, no longer only for pods); the other sources are not read by planner and are only
    counted."""
    el: Errs = []
    n = 0
    present = [k for k in vol if k in _POD_VOLUME_SOURCE_ORDER and vol[k] is not None]
    if len(present) > 1:
        present.sort(key=_POD_VOLUME_SOURCE_ORDER.__getitem__)
    for key in present:
        err_name = _POD_VOLUME_SOURCE_PATH[key]
        v = vol[key]
        if type(v) is not dict:
            el.append(type_error(f"{path}.{key}", v, T_OBJECT))
            continue
        if n > 0:
            el.append(forbidden(f"{path}.{err_name}", "may not specify more than 1 volume type"))
            continue
        n += 1
        if key == "persistentVolumeClaim":
            if not get_str(v, "claimName", f"{path}.{key}", el):  # validatePersistentClaimVolumeSource
                el.append(required(f"{path}.{key}.claimName"))
            get_bool(v, "readOnly", f"{path}.{key}", el)
        elif key == "ephemeral":
            ep = f"{path}.ephemeral"
            tmpl = get_map(v, "volumeClaimTemplate", ep, el)
            if tmpl is None:  # validateEphemeralVolumeSource
                el.append(required(f"{ep}.volumeClaimTemplate"))
            else:  # ValidatePersistentVolumeClaimTemplate
                tp = f"{ep}.volumeClaimTemplate"
                validate_template_object_meta(get_map(tmpl, "metadata", tp, el), f"{tp}.metadata", el)
                validate_pvc_spec(get_map(tmpl, "spec", tp, el) or {}, f"{tp}.spec", el)
            if pod_name and vol_name:
                pvc_name = f"{pod_name}-{vol_name}"
                for msg in name_is_dns_subdomain(pvc_name, False):
                    el.append(invalid(f"{path}.name", vol_name, f"PVC name {go_quote(pvc_name)}: {msg}"))
        elif key == "image":
            if not get_str(v, "reference", f"{path}.image", el):  # validateImageVolumeSource
                el.append(required(f"{path}.image.reference"))
    if n == 0:
        el.append(required(path, "must specify a volume type"))
    return el


def _validate_volumes(spec: dict, path: str, pod_name: str | None, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateVolumes."""
    vols = get_list(spec, "volumes", path, errs)
    if not vols:
        return
    vp = f"{path}.volumes"
    items = list(list_items(vols, vp, errs))
    created: set[str] = set()
    if pod_name:
        for _, v in items:
            if v.get("ephemeral") is not None and type(v.get("name")) is str:
                created.add(f"{pod_name}-{v['name']}")
    names: set[str] = set()
    for i, v in items:
        ip = f"{vp}[{i}]"
        name = get_str(v, "name", ip, errs)
        el = _validate_volume_source(v, ip, name, pod_name, errs)
        if not name:
            el.append(required(f"{ip}.name"))
        else:
            for m in is_dns1123_label(name):
                el.append(invalid(f"{ip}.name", name, m))
        if name in names:
            el.append(duplicate(f"{ip}.name", name))
        if not el:
            names.add(name)
        else:
            errs.extend(el)
        pvc = v.get("persistentVolumeClaim")
        if type(pvc) is dict and type(pvc.get("claimName")) is str and pvc["claimName"] in created:
            errs.append(
                invalid(
                    f"{ip}.persistentVolumeClaim.claimName",
                    pvc["claimName"],
                    "must not reference a PVC that gets created for an ephemeral volume",
                )
            )


# =========================================================================== pod spec


# Pod specs already found valid, keyed by their JSON without nodeName.  Pods of one controller
# share their spec except for nodeName, so a snapshot of 150,000 pods holds few distinct specs;
# validation is a pure function of the key, so a hit needs only the nodeName check.
_VALID_SPECS: set[tuple[bool, str, bytes]] = set()


_PER_POD_FIELDS = ("nodeName", "hostname", "subdomain")


def _spec_key(spec: dict, pod_name: str | None, is_pod: bool) -> tuple[bool, str, bytes] | None:  # type: ignore[type-arg]
    """The memo key: the spec's JSON without what differs from pod to pod of one controller.

    Besides nodeName (and a StatefulSet pod's hostname), pods of one template differ in their
    volumes' names (the projected service-account volume kube-api-access-<random>) and claim
    names (<template>-<sts>-<ordinal>): every such string is replaced by a positional token that
    no JSON text can contain, so a hit means "the same spec up to these names", and the names
    themselves are checked on every hit (``_check_names``).
    """
    # the per-pod fields are blanked in place for the encoding (a copy of the spec without them
    # costs as much as the encoding), then put back: same dict, same key order
    saved = [(f, spec[f]) for f in _PER_POD_FIELDS if f in spec]
    try:
        for f, _ in saved:
            spec[f] = ""
        b = orjson.dumps(spec, option=_ORJSON_OPTS)
    except (TypeError, orjson.JSONEncodeError):
        return None  # not plain JSON data (non-string keys, dates, huge ints): no memo
    finally:
        for f, v in saved:
            spec[f] = v
    if b"null" in b:
        return None  # orjson writes NaN and Infinity as null: keep such specs out of the memo
    eph = ""
    if pod_name and b'"ephemeral"' in b:
        eph = pod_name  # ephemeral volumes' PVC names depend on the pod's name
    vols = spec.get("volumes")
    if type(vols) is list and vols and not eph:  # ephemeral claims depend on names: no tokens
        names = _volume_strings(vols)
        if names is None:
            return None
        for i, n in enumerate(names):
            b = b.replace(orjson.dumps(n), b'"\x00%d"' % i)
    if b"matchFields" in b:
        # a DaemonSet pod's node affinity names its node (matchFields metadata.name In [node]):
        # a value found once in the key is a token too (checked on every hit, _check_names)
        for i, (_, v) in enumerate(_match_field_values(spec, "")):
            enc = orjson.dumps(v)
            if b.count(enc) == 1:
                b = b.replace(enc, b'"\x01%d"' % i)
    return is_pod, eph, b


def _match_field_values(spec: dict, path: str) -> Iterator[tuple[str, str]]:  # type: ignore[type-arg]
    """(path, value) of each string value of the required node affinity's matchFields."""
    aff = spec.get("affinity")
    na = aff.get("nodeAffinity") if type(aff) is dict else None
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution") if type(na) is dict else None
    terms = req.get("nodeSelectorTerms") if type(req) is dict else None
    if type(terms) is not list:
        return
    tp = f"{path}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    for t, term in enumerate(terms):
        fields = term.get("matchFields") if type(term) is dict else None
        if type(fields) is not list:
            continue
        for j, r in enumerate(fields):
            values = r.get("values") if type(r) is dict else None
            if type(values) is not list:
                continue
            for i, v in enumerate(values):
                if type(v) is str:
                    yield f"{tp}[{t}].matchFields[{j}].values[{i}]", v


def _volume_strings(vols: list) -> list[str] | None:  # type: ignore[type-arg]
    """Volume names and claim names, longest first (so no name is replaced inside another)."""
    out: set[str] = set()
    for v in vols:
        if type(v) is not dict:
            return None
        n = v.get("name")
        if type(n) is str:
            out.add(n)
        pvc = v.get("persistentVolumeClaim")
        if type(pvc) is dict and type(pvc.get("claimName")) is str:
            out.add(pvc["claimName"])
    return sorted(out, key=lambda x: (-len(x), x))


def _check_names(spec: dict, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """On a memo hit: what the key left out (volume and claim names, matchFields values,
    nodeName, hostname), in the order a full validation reports them."""
    vols = spec.get("volumes")
    if type(vols) is list:
        for i, v in enumerate(vols):
            name = v.get("name")
            if type(name) is str:
                for m in is_dns1123_label(name):
                    errs.append(invalid(f"{path}.volumes[{i}].name", name, m))
    if "affinity" in spec:
        for vp, v in _match_field_values(spec, path):
            for msg in name_is_dns_subdomain(v, False):
                errs.append(invalid(vp, v, msg))
    node_name = get_str(spec, "nodeName", path, errs)
    if node_name:
        for msg in name_is_dns_subdomain(node_name, False):
            errs.append(invalid(f"{path}.nodeName", node_name, msg))
    if "hostname" in spec or "subdomain" in spec:
        for f in ("hostname", "subdomain"):
            v = get_str(spec, f, path, errs)
            if v:
                for m in is_dns1123_label(v):
                    errs.append(invalid(f"{path}.{f}", v, m))


def validate_pod_spec(spec: dict, path: str, errs: Errs, pod_name: str | None = None, is_pod: bool = False) -> None:  # type: ignore[type-arg]
    """ValidatePodSpec, restricted to what planner reads: volumes, containers and init containers
    (names, images, ports, resources), nodeSelector, affinity, topologySpreadConstraints,
    nodeName, tolerations, overhead; priority and schedulerName are type-checked only (upstream
    does not validate them on create)."""
    key = _spec_key(spec, pod_name, is_pod)
    if key is not None and key in _VALID_SPECS:
        _check_names(spec, path, errs)
        return
    before = len(errs)
    _validate_pod_spec(spec, path, errs, pod_name, is_pod)
    _check_names_extra = "hostname" in spec or "subdomain" in spec
    if _check_names_extra:
        for f in ("hostname", "subdomain"):
            v = spec.get(f)
            if type(v) is str and v:
                for m in is_dns1123_label(v):
                    errs.append(invalid(f"{path}.{f}", v, m))
    if key is not None and len(errs) == before:
        if len(_VALID_SPECS) >= _VALID_SPECS_MAX:
            _VALID_SPECS.clear()
        _VALID_SPECS.add(key)


def _validate_pod_spec(spec: dict, path: str, errs: Errs, pod_name: str | None, is_pod: bool) -> None:  # type: ignore[type-arg]
    _validate_volumes(spec, path, pod_name, errs)
    _validate_containers(spec, path, errs, is_pod)
    validate_labels(get_str_map(spec, "nodeSelector", path, errs), f"{path}.nodeSelector", errs)
    aff = get_map(spec, "affinity", path, errs)
    if aff:
        validate_affinity(aff, f"{path}.affinity", errs)
    tscs = get_list(spec, "topologySpreadConstraints", path, errs)
    if tscs:
        validate_topology_spread_constraints(tscs, f"{path}.topologySpreadConstraints", errs)
    node_name = get_str(spec, "nodeName", path, errs)
    if node_name:
        for msg in name_is_dns_subdomain(node_name, False):
            errs.append(invalid(f"{path}.nodeName", node_name, msg))
    tols = get_list(spec, "tolerations", path, errs)
    if tols:
        validate_tolerations(tols, f"{path}.tolerations", errs)
    overhead = read_resource_list(spec, "overhead", path, errs)
    if overhead is not None:  # validateOverhead: the overhead checked as the limits of a container
        validate_resource_requirements(overhead, {}, f"{path}.overhead", errs)
    get_int(spec, "priority", path, errs)
    _validate_priority_fields(spec, path, errs)
    get_str(spec, "schedulerName", path, errs)
    get_bool(spec, "hostNetwork", path, errs)
    get_str(spec, "restartPolicy", path, errs)
    gates = get_list(spec, "schedulingGates", path, errs)
    if gates:
        validate_scheduling_gates(gates, f"{path}.schedulingGates", errs)


def validate_scheduling_gates(gates: list, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """validateSchedulingGates: each name a qualified name (reported at the item's path), no
    name twice."""
    seen: set[str] = set()
    for i, g in list_items(gates, path, errs):
        ip = f"{path}[{i}]"
        name = get_str(g, "name", ip, errs) or ""
        for msg in is_qualified_name(name):
            errs.append(invalid(ip, name, msg))
        if name in seen:
            errs.append(duplicate(ip, name))
        seen.add(name)


def _validate_priority_fields(spec: dict, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidatePodSpec: priorityClassName a DNS subdomain (ValidatePriorityClassName), and
    ValidatePreemptionPolicy on spec.preemptionPolicy."""
    name = get_str(spec, "priorityClassName", path, errs)
    if name:
        for msg in name_is_dns_subdomain(name, False):
            errs.append(invalid(f"{path}.priorityClassName", name, msg))
    policy = get_opt_str(spec, "preemptionPolicy", path, errs)
    if policy is not None:
        if policy == "":
            errs.append(required(f"{path}.preemptionPolicy", ""))
        elif policy not in ("PreemptLowerPriority", "Never"):
            errs.append(not_supported(f"{path}.preemptionPolicy", JSONValue(policy), ("PreemptLowerPriority", "Never")))


class Template:
    """A decoded spec.template: its metadata, labels and pod spec."""

    __slots__ = ("present", "meta", "labels", "spec")

    def __init__(self, present: bool, meta: dict, labels: dict[str, str] | None, spec: dict) -> None:  # type: ignore[type-arg]
        self.present = present
        self.meta = meta
        self.labels = labels
        self.spec = spec


def read_template(spec: dict, path: str, errs: Errs) -> Template:  # type: ignore[type-arg]
    """Decode spec.template (a PodTemplateSpec)."""
    tmpl = get_map(spec, "template", path, errs)
    if tmpl is None:
        return Template(False, {}, None, {})
    tp = f"{path}.template"
    meta = get_map(tmpl, "metadata", tp, errs) or {}
    labels = get_str_map(meta, "labels", f"{tp}.metadata", errs)
    return Template(True, meta, labels, get_map(tmpl, "spec", tp, errs) or {})


def validate_pod_template_spec(tmpl: Template, path: str, errs: Errs) -> None:
    """ValidatePodTemplateSpec: labels and annotations (reported at ``<template>.labels`` /
    ``<template>.annotations``, as upstream does for the embedded ObjectMeta) and the pod spec."""
    validate_labels(tmpl.labels, f"{path}.labels", errs)
    validate_annotations(get_str_map(tmpl.meta, "annotations", f"{path}.metadata", errs), f"{path}.annotations", errs)
    validate_pod_spec(tmpl.spec, f"{path}.spec", errs)


# =========================================================================== objects


def _meta(obj: dict, errs: Errs) -> dict:  # type: ignore[type-arg]
    return get_map(obj, "metadata", "", errs) or {}


def _spec(obj: dict, errs: Errs) -> dict:  # type: ignore[type-arg]
    return get_map(obj, "spec", "", errs) or {}


def validate_pod(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidatePodCreate (validatePodMetadataAndSpec): DNS-subdomain name, the pod spec, and the
    pod-only image whitespace check."""
    meta = _meta(obj, errs)
    mp = "metadata"
    validate_object_meta(meta, True, name_is_dns_subdomain, mp, errs)
    name = meta.get("name") if type(meta.get("name")) is str else None
    validate_pod_spec(_spec(obj, errs), "spec", errs, pod_name=name, is_pod=True)
    status = get_map(obj, "status", "", errs)
    if status is not None:
        get_str(status, "phase", "status", errs)
        get_str(status, "nominatedNodeName", "status", errs)


def validate_node_taints(taints: list, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """validateNodeTaints (upstream passes metadata as the path, hence ``metadata.taints[i]``)."""
    seen: dict[str, set[str]] = {}
    for i, t in list_items(taints, path, errs):
        ip = f"{path}[{i}]"
        key = get_str(t, "key", ip, errs)
        value = get_str(t, "value", ip, errs)
        effect = get_str(t, "effect", ip, errs)
        time_added = t.get("timeAdded")
        validate_label_name(key, f"{ip}.key", errs)
        msgs = is_valid_label_value(value)
        if msgs:
            errs.append(invalid(f"{ip}.value", value, ";".join(msgs)))
        validate_taint_effect(effect, False, f"{ip}.effect", errs)
        keys = seen.setdefault(effect, set())
        if key in keys:
            e = duplicate(
                ip,
                Struct(
                    Key=key, Value=value, Effect=effect, TimeAdded=time_added if isinstance(time_added, str) else None
                ),
            )
            e.detail = "taints must be unique by key and effect pair"
            errs.append(e)
            continue
        keys.add(key)


def validate_node(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateNode: DNS-subdomain name (cluster-scoped), taints, spec.unschedulable a boolean,
    and ValidateNodeResources (status.capacity/allocatable quantities non-negative)."""
    meta = _meta(obj, errs)
    mp = "metadata"
    validate_object_meta(meta, False, name_is_dns_subdomain, mp, errs)
    spec = _spec(obj, errs)
    taints = get_list(spec, "taints", "spec", errs)
    if taints:
        validate_node_taints(taints, f"{mp}.taints", errs)
    get_bool(spec, "unschedulable", "spec", errs)
    status = get_map(obj, "status", "", errs)
    if status is not None:
        sp = "status"
        for key in ("capacity", "allocatable"):
            rl = read_resource_list(status, key, sp, errs)
            for name, q in (rl or {}).items():
                # upstream builds this path with field.NewPath("status", key, name): a dotted path
                validate_resource_quantity_value(name, q, f"{sp}.{key}.{name}", errs)


def validate_namespace(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidateNamespace: DNS-label name; spec.finalizers are qualified or standard names."""
    validate_object_meta(_meta(obj, errs), False, name_is_dns_label, "metadata", errs)
    spec = _spec(obj, errs)
    fp = "spec.finalizers"
    for f in get_str_list(spec, "finalizers", "spec", errs) or ():
        for msg in is_qualified_name(f):
            errs.append(invalid(fp, f, msg))
        if "/" not in f and f not in _STANDARD_FINALIZERS:
            errs.append(invalid(fp, f, "name is neither a standard finalizer name nor is it fully qualified"))


ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")  # sorted
VOLUME_MODES = ("Block", "Filesystem")
PV_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")


def _access_modes(spec: dict, path: str, errs: Errs) -> list[str]:  # type: ignore[type-arg]
    return get_str_list(spec, "accessModes", path, errs) or []


def _validate_access_mode_values(modes: list[str], path: str, errs: Errs) -> None:
    """The per-mode part shared by ValidatePersistentVolumeSpec and ValidatePersistentVolumeClaimSpec."""
    rwop = other = False
    for m in modes:
        if m not in ACCESS_MODES:
            errs.append(not_supported(f"{path}.accessModes", JSONValue(m), ACCESS_MODES))
        if m == "ReadWriteOncePod":
            rwop = True
        elif m in ACCESS_MODES:
            other = True
    if rwop and other:
        errs.append(forbidden(f"{path}.accessModes", "may not use ReadWriteOncePod with other access modes"))


def validate_pvc_spec(spec: dict, path: str, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidatePersistentVolumeClaimSpec (access modes, selector, storage request, class name,
    volume mode)."""
    modes = _access_modes(spec, path, errs)
    if not modes:
        errs.append(required(f"{path}.accessModes", "at least 1 access mode is required"))
    sel = read_selector(spec, "selector", path, errs)
    validate_label_selector(sel, f"{path}.selector", errs)
    _validate_access_mode_values(modes, path, errs)
    res = get_map(spec, "resources", path, errs) or {}
    requests = read_resource_list(res, "requests", f"{path}.resources", errs) or {}
    read_resource_list(res, "limits", f"{path}.resources", errs)
    sp = f"{path}.resources[storage]"
    storage = requests.get("storage")
    raw_requests = res.get("requests")
    if storage is None:
        if not (type(raw_requests) is dict and raw_requests.get("storage") is not None):
            errs.append(required(sp))
    elif storage.value <= 0:  # ValidatePositiveQuantityValue
        errs.append(invalid(sp, storage.string(), "must be greater than zero"))
    else:
        validate_resource_quantity_value("storage", storage, sp, errs)
    sc = get_opt_str(spec, "storageClassName", path, errs)
    if sc:
        for msg in name_is_dns_subdomain(sc, False):
            errs.append(invalid(f"{path}.storageClassName", sc, msg))
    vm = get_opt_str(spec, "volumeMode", path, errs)
    if vm is not None and vm not in VOLUME_MODES:
        errs.append(not_supported(f"{path}.volumeMode", JSONValue(vm), VOLUME_MODES))
    get_str(spec, "volumeName", path, errs)


def validate_pvc(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidatePersistentVolumeClaim: DNS-subdomain name and the claim spec."""
    validate_object_meta(_meta(obj, errs), True, name_is_dns_subdomain, "metadata", errs)
    validate_pvc_spec(_spec(obj, errs), "spec", errs)


# (json key, path name) in ValidatePersistentVolumeSpec's order.  flexVolume never reports the
# "more than 1 volume type" error (upstream quirk).
_PV_SOURCES = (
    ("hostPath", "hostPath"),
    ("gcePersistentDisk", "gcePersistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("nfs", "nfs"),
    ("rbd", "rbd"),
    ("quobyte", "quobyte"),
    ("cephfs", "cephFS"),
    ("iscsi", "iscsi"),
    ("cinder", "cinder"),
    ("fc", "fc"),
    ("flexVolume", ""),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("scaleIO", "scaleIO"),
    ("local", "local"),
    ("storageos", "storageos"),
    ("csi", "csi"),
)


def validate_pv(obj: dict, errs: Errs) -> None:  # type: ignore[type-arg]
    """ValidatePersistentVolume (ValidatePersistentVolumeSpec, not inline): access modes,
    capacity (storage only, positive), reclaim policy, node affinity (required terms), one volume
    source (local needs node affinity), storage class name, volume mode."""
    validate_object_meta(_meta(obj, errs), False, name_is_dns_subdomain, "metadata", errs)
    spec = _spec(obj, errs)
    sp = "spec"
    modes = _access_modes(spec, sp, errs)
    if not modes:
        errs.append(required(f"{sp}.accessModes"))
    _validate_access_mode_values(modes, sp, errs)
    raw_cap = spec.get("capacity")
    cap_keys = list(raw_cap) if type(raw_cap) is dict else []
    capacity = read_resource_list(spec, "capacity", sp, errs) or {}
    cp = f"{sp}.capacity"
    if not cap_keys:
        errs.append(required(cp))
    if "storage" not in cap_keys or len(cap_keys) > 1:
        shown = {k: JSONValue(v.string()) for k, v in capacity.items()} if cap_keys else None
        errs.append(not_supported(cp, shown, ("storage",)))
    for name, q in capacity.items():
        if qty.int_value(q.value) < 0:  # validateBasicResource
            errs.append(invalid(f"{cp}[{name}]", qty.int_value(q.value), "must be a valid resource quantity"))
        if q.value <= 0:  # ValidatePositiveQuantityValue
            errs.append(invalid(f"{cp}[{name}]", q.string(), "must be greater than zero"))
    policy = get_str(spec, "persistentVolumeReclaimPolicy", sp, errs)
    if policy and policy not in PV_RECLAIM_POLICIES:
        errs.append(not_supported(f"{sp}.persistentVolumeReclaimPolicy", JSONValue(policy), PV_RECLAIM_POLICIES))
    node_affinity_specified = False
    na = get_map(spec, "nodeAffinity", sp, errs)
    if na is not None:  # validateVolumeNodeAffinity
        node_affinity_specified = True
        nap = f"{sp}.nodeAffinity"
        req = get_map(na, "required", nap, errs)
        if req is not None:
            validate_node_selector(req, False, f"{nap}.required", errs)
        else:
            errs.append(required(f"{nap}.required", "must specify required node constraints"))
    n = 0
    for key, err_name in _PV_SOURCES:
        v = spec.get(key)
        if v is None:
            continue
        if type(v) is not dict:
            errs.append(type_error(f"{sp}.{key}", v, T_OBJECT))
            continue
        if key == "flexVolume":
            n += 1
            continue
        if n > 0:
            errs.append(forbidden(f"{sp}.{err_name}", "may not specify more than 1 volume type"))
            continue
        n += 1
        if key == "local" and not node_affinity_specified:
            errs.append(required(f"{sp}.nodeAffinity", "Local volume requires node affinity"))
    if n == 0:
        errs.append(required(sp, "must specify a volume type"))
    sc = get_str(spec, "storageClassName", sp, errs)
    if sc:
        for msg in name_is_dns_subdomain(sc, False):
            errs.append(invalid(f"{sp}.storageClassName", sc, msg))
    vm = get_opt_str(spec, "volumeMode", sp, errs)
    if vm is not None and vm not in VOLUME_MODES:
        errs.append(not_supported(f"{sp}.volumeMode", JSONValue(vm), VOLUME_MODES))
    claim_ref = get_map(spec, "claimRef", sp, errs)
    if claim_ref is not None:
        for k in ("namespace", "name", "uid"):
            get_str(claim_ref, k, f"{sp}.claimRef", errs)


def int_or_percent_value(v: int | str) -> int:
    """getIntOrPercentValue (apps validation): the percent number, or IntValue() (Atoi for a
    string that is not a percent)."""
    if isinstance(v, str):
        if not is_valid_percent(v):
            return _atoi(v[:-1])
        return _atoi(v)
    return v


def percent_value(v: int | str) -> int | None:
    """getPercentValue: the number of a valid percent string, else None."""
    if isinstance(v, str) and not is_valid_percent(v):
        return _atoi(v[:-1])
    return None


def validate_positive_int_or_percent(v: int | str, path: str, errs: Errs) -> None:
    """ValidatePositiveIntOrPercent (apps validation)."""
    if isinstance(v, str):
        for msg in is_valid_percent(v):
            errs.append(invalid(path, JSONValue(v), msg))
    elif v < 0:
        errs.append(invalid(path, v, "must be greater than or equal to 0"))


def is_not_more_than_100_percent(v: int | str, path: str, errs: Errs) -> None:
    """IsNotMoreThan100Percent."""
    p = percent_value(v)
    if p is not None and p > 100:
        errs.append(invalid(path, JSONValue(v), "must not be greater than 100%"))


def validate_nonnegative(value: int | None, path: str, errs: Errs) -> None:
    """ValidateNonnegativeField."""
    if value is not None and value < 0:
        errs.append(invalid(path, value, "must be greater than or equal to 0"))


__all__ = [
    "Selector",
    "as_int",
    "get_int_or_string",
    "int_or_percent_value",
    "is_not_more_than_100_percent",
    "read_selector",
    "read_template",
    "selector_parses",
    "validate_label_selector",
    "validate_labels",
    "validate_node",
    "validate_namespace",
    "validate_object_meta",
    "validate_pod",
    "validate_pod_spec",
    "validate_pod_template_spec",
    "validate_positive_int_or_percent",
    "validate_pv",
    "validate_pvc",
    "validate_pvc_spec",
]
