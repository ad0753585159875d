"""Field paths and field errors, formatted exactly like the API server's.

Port of k8s.io/apimachinery/pkg/util/validation/field (path.go, errors.go) at Kubernetes v1.37,
plus the pieces of Go's fmt/strconv/encoding/json that ``field.Error.Error()`` relies on to render
the bad value:

* strings are printed with ``%q`` (strconv.Quote);
* int64/int32/float64/bool with ``%v``;
* everything else (maps, slices, structs, pointers, intstr.IntOrString, resource.Quantity) with
  ``json.Marshal`` -- map keys sorted, ``<``, ``>`` and ``&`` escaped, struct fields in declaration
  order.  A Python ``dict`` is rendered as a Go map (sorted keys); use :class:`Struct` for a Go
  struct (keys kept in order) and :class:`JSONValue` for a string that upstream passes as a pointer
  or an IntOrString (rendered by json.Marshal, not ``%q``).

It also holds the typed accessors the validators use to read untrusted decoded JSON/YAML: a field of
the wrong JSON type becomes a :func:`type_error` naming the field instead of an exception.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from planner.golang import go_float

# --------------------------------------------------------------------------- paths


class Path:
    """field.Path: ``Path("spec").child("template").index(0).key("app")``.

    Built lazily: a node holds its parent and one segment, and the string is only assembled when
    an error needs it, so descending into a valid object costs one small allocation per level."""

    __slots__ = ("_parent", "_seg", "_s")

    def __init__(self, name: str = "", *more: str) -> None:
        s = name
        for m in more:
            s = f"{s}.{m}" if s else m
        self._parent: Path | None = None
        self._seg = ""
        self._s: str | None = s

    @classmethod
    def _node(cls, parent: Path, seg: str) -> Path:
        p = cls.__new__(cls)
        p._parent = parent
        p._seg = seg
        p._s = None
        return p

    def child(self, name: str, *more: str) -> Path:
        p = Path._node(self, "." + name)
        for m in more:
            p = Path._node(p, "." + m)
        return p

    def index(self, i: int) -> Path:
        return Path._node(self, f"[{i}]")

    def key(self, k: str) -> Path:
        return Path._node(self, f"[{k}]")

    def __str__(self) -> str:
        s = self._s
        if s is None:
            segs = []
            p: Path | None = self
            while p is not None and p._s is None:
                segs.append(p._seg)
                p = p._parent
            base = p._s if p is not None else ""
            s = base or ""
            for seg in reversed(segs):
                if seg[0] == "." and not s:
                    s = seg[1:]
                else:
                    s += seg
            self._s = s
        return s

    def __repr__(self) -> str:
        return f"Path({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Path) and str(other) == str(self)

    def __hash__(self) -> int:
        return hash(str(self))


ROOT = Path()
PathLike = Path | str

# --------------------------------------------------------------------------- error types

# ErrorType values and their ErrorType.String() texts (errors.go).
REQUIRED = "FieldValueRequired"
NOT_FOUND = "FieldValueNotFound"
DUPLICATE = "FieldValueDuplicate"
INVALID = "FieldValueInvalid"
NOT_SUPPORTED = "FieldValueNotSupported"
FORBIDDEN = "FieldValueForbidden"
TOO_LONG = "FieldValueTooLong"
TOO_MANY = "FieldValueTooMany"
INTERNAL = "InternalError"
TYPE_INVALID = "FieldValueTypeInvalid"

_TYPE_TEXT = {
    NOT_FOUND: "Not found",
    REQUIRED: "Required value",
    DUPLICATE: "Duplicate value",
    INVALID: "Invalid value",
    NOT_SUPPORTED: "Unsupported value",
    FORBIDDEN: "Forbidden",
    TOO_LONG: "Too long",
    TOO_MANY: "Too many",
    INTERNAL: "Internal error",
    TYPE_INVALID: "Invalid value",
}
# Types whose body never shows the value (ErrorBody's first case).
_NO_VALUE = frozenset((REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL))


class _Omit:
    """field.omitValue: the error body shows no value."""

    def __repr__(self) -> str:
        return "OMIT"


OMIT = _Omit()


class JSONValue:
    """A bad value that upstream renders with json.Marshal although it is a string (a *string,
    an intstr.IntOrString, a resource.Quantity): ``"25x"`` is escaped as JSON, not as %q."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Struct(dict):  # type: ignore[type-arg]
    """A Go struct for json.Marshal: keys are emitted in insertion (declaration) order."""


# --------------------------------------------------------------------------- Go formatting


def _go_isprint(ch: str) -> bool:
    return ch == " " or (ch.isprintable() and ch != "\u00ad")


def go_quote(s: str) -> str:
    """strconv.Quote (what %q prints for a string)."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif 0x20 <= c < 0x7F:
            out.append(ch)
        elif c < 0x80:
            esc = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}.get(c)
            out.append(esc if esc else f"\\x{c:02x}")
        elif _go_isprint(ch):
            out.append(ch)
        elif c < 0x10000:
            out.append(f"\\u{c:04x}")
        else:
            out.append(f"\\U{c:08x}")
    out.append('"')
    return "".join(out)


_JSON_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _json_string(s: str) -> str:
    """encoding/json string encoding with HTML escaping (json.Marshal's default)."""
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch in _JSON_SHORT:
            out.append(_JSON_SHORT[ch])
        elif c < 0x20 or ch in "<>&" or c in (0x2028, 0x2029):
            out.append(f"\\u{c:04x}")
        elif 0xD800 <= c <= 0xDFFF:  # a lone surrogate cannot be UTF-8: Go writes U+FFFD
            out.append("\\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def go_json(v: Any) -> str:
    """json.Marshal of a decoded JSON-like value (see the module docstring for dict vs Struct)."""
    if v is None:
        return "null"
    if isinstance(v, JSONValue):
        return go_json(v.value)
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return go_float(v, json=True)
    if isinstance(v, str):
        return _json_string(v)
    if isinstance(v, Struct):
        return "{" + ",".join(f"{_json_string(str(k))}:{go_json(x)}" for k, x in v.items()) + "}"
    if isinstance(v, dict):
        items = sorted((str(k), x) for k, x in v.items())
        return "{" + ",".join(f"{_json_string(k)}:{go_json(x)}" for k, x in items) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(go_json(x) for x in v) + "]"
    if isinstance(v, Path):
        return _json_string(str(v))
    return _json_string(str(v))


def format_value(v: Any) -> str:
    """How ErrorBody renders BadValue."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return go_float(v)
    if isinstance(v, str):
        return go_quote(v)
    return go_json(v)


# --------------------------------------------------------------------------- errors


class FieldError:
    """field.Error: one problem with one field."""

    __slots__ = ("type", "field", "bad_value", "detail")

    def __init__(self, type_: str, field: str, bad_value: Any, detail: str) -> None:
        self.type = type_
        self.field = field
        self.bad_value = bad_value
        self.detail = detail

    def body(self) -> str:
        """Error.ErrorBody()."""
        t = _TYPE_TEXT.get(self.type, f"<unknown error {go_quote(self.type)}>")
        if self.type in _NO_VALUE or self.bad_value is OMIT:
            s = t
        else:
            s = f"{t}: {format_value(self.bad_value)}"
        if self.detail:
            s += f": {self.detail}"
        return s

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"

    def __repr__(self) -> str:
        return f"FieldError({str(self)!r})"


ErrorList = list  # a plain list[FieldError]; kept as a name to mirror field.ErrorList


def invalid(path: PathLike, value: Any, detail: str) -> FieldError:
    return FieldError(INVALID, str(path), value, detail)


def required(path: PathLike, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, str(path), "", detail)


def forbidden(path: PathLike, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, str(path), "", detail)


def duplicate(path: PathLike, value: Any) -> FieldError:
    return FieldError(DUPLICATE, str(path), value, "")


def not_found(path: PathLike, value: Any) -> FieldError:
    return FieldError(NOT_FOUND, str(path), value, "")


def not_supported(path: PathLike, value: Any, valid: Iterable[str]) -> FieldError:
    """field.NotSupported: 'supported values: "A", "B"' (each strconv.Quote'd, in the given order)."""
    vals = list(valid)
    detail = "supported values: " + ", ".join(go_quote(str(x)) for x in vals) if vals else ""
    return FieldError(NOT_SUPPORTED, str(path), value, detail)


def too_long(path: PathLike, max_length: int) -> FieldError:
    """field.TooLong (bytes)."""
    if max_length >= 0:
        msg = f"may not be more than {max_length} {'byte' if max_length == 1 else 'bytes'}"
    else:
        msg = "value is too long"
    return FieldError(TOO_LONG, str(path), "<value omitted>", msg)


def too_many(path: PathLike, actual: int, maximum: int) -> FieldError:
    if maximum >= 0:
        msg = f"must have at most {maximum} {'item' if maximum == 1 else 'items'}"
    else:
        msg = "has too many items"
    return FieldError(TOO_MANY, str(path), actual if actual >= 0 else OMIT, msg)


def type_invalid(path: PathLike, value: Any, detail: str) -> FieldError:
    return FieldError(TYPE_INVALID, str(path), value, detail)


# JSON type names used by type_error.
T_STRING = "string"
T_INTEGER = "integer"
T_BOOLEAN = "boolean"
T_OBJECT = "object"
T_ARRAY = "array"
T_INT_OR_STRING = "integer or string"
T_QUANTITY = "string or number"


def type_error(path: PathLike, value: Any, expected: str) -> FieldError:
    """A field of the wrong JSON type.  The API server fails to decode such an object at all
    (``json: cannot unmarshal ... into Go struct field``); planner reports it per field as
    ``<path>: Invalid value: <value>: must be of type <expected>`` (field.TypeInvalid)."""
    return FieldError(TYPE_INVALID, str(path), _shown(value), f"must be of type {expected}")


def _shown(value: Any) -> Any:
    """A decoded JSON value as the bad value of a type error (containers by JSON)."""
    if isinstance(value, (dict, list)):
        return JSONValue(value)
    return value


def format_errors(errs: Sequence[FieldError]) -> list[str]:
    """The messages, without repeats (ErrorList.ToAggregate drops identical messages)."""
    seen: set[str] = set()
    out: list[str] = []
    for e in errs:
        s = str(e)
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


# --------------------------------------------------------------------------- typed accessors
#
# Each accessor reads ``d[key]`` from a decoded JSON object.  JSON null is the same as absent (Go
# decodes null into the zero value).  A value of the wrong type appends a type_error and reads as
# absent, so validation can go on with the other fields.

# Internally, validators pass paths as plain strings ("spec.containers[0]"): building a string is
# much cheaper than building a Path, and a path is only read when an error is reported.


def _child(path: PathLike, key: str) -> str:
    s = str(path)
    return f"{s}.{key}" if s else key


_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def as_int(v: Any) -> int | None:
    """An integer JSON value (an integral float counts: YAML 1.0 reaches the server as 1)."""
    if type(v) is int:
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return int(v)
    return None


def get_str(d: dict, key: str, path: PathLike, errs: list[FieldError]) -> str:  # type: ignore[type-arg]
    v = d.get(key)
    if v is None:
        return ""
    if type(v) is str:
        return v
    errs.append(type_error(_child(path, key), v, T_STRING))
    return ""


def get_opt_str(d: dict, key: str, path: PathLike, errs: list[FieldError]) -> str | None:  # type: ignore[type-arg]
    """A *string field: None when absent, the string (possibly empty) when present."""
    v = d.get(key)
    if v is None:
        return None
    if type(v) is str:
        return v
    errs.append(type_error(_child(path, key), v, T_STRING))
    return None


def get_int(d: dict, key: str, path: PathLike, errs: list[FieldError], bits: int = 32) -> int | None:  # type: ignore[type-arg]
    v = d.get(key)
    if v is None:
        return None
    i = as_int(v)
    if i is None:
        errs.append(type_error(_child(path, key), v, T_INTEGER))
        return None
    lo, hi = (_INT32_MIN, _INT32_MAX) if bits == 32 else (_INT64_MIN, _INT64_MAX)
    if i < lo or i > hi:
        errs.append(type_invalid(_child(path, key), v if isinstance(v, float) else i, f"must be a {bits}-bit integer"))
        return None
    return i


def get_bool(d: dict, key: str, path: PathLike, errs: list[FieldError]) -> bool | None:  # type: ignore[type-arg]
    v = d.get(key)
    if v is None:
        return None
    if v is True or v is False:
        return v
    errs.append(type_error(_child(path, key), v, T_BOOLEAN))
    return None


def get_map(d: dict, key: str, path: PathLike, errs: list[FieldError]) -> dict | None:  # type: ignore[type-arg]
    v = d.get(key)
    if v is None:
        return None
    if type(v) is dict:
        return v
    errs.append(type_error(_child(path, key), v, T_OBJECT))
    return None


def get_list(d: dict, key: str, path: PathLike, errs: list[FieldError]) -> list | None:  # type: ignore[type-arg]
    v = d.get(key)
    if v is None:
        return None
    if type(v) is list:
        return v
    errs.append(type_error(_child(path, key), v, T_ARRAY))
    return None


def get_str_map(d: dict, key: str, path: PathLike, errs: list[FieldError]) -> dict[str, str] | None:  # type: ignore[type-arg]
    """A map[string]string (labels, annotations, nodeSelector).  Entries whose value is not a
    string are reported (``metadata.labels[version]: Invalid value: 1.5: must be of type string``)
    and left out of the returned map."""
    m = get_map(d, key, path, errs)
    if m is None:
        return None
    for k, v in m.items():
        if type(v) is not str or type(k) is not str:
            break
    else:
        return m
    out: dict[str, str] = {}
    p = _child(path, key)
    for k, v in m.items():
        if type(k) is not str:
            errs.append(type_error(p, k, T_STRING))
            continue
        if v is None:
            out[k] = ""  # JSON null into a map[string]string value is ""
            continue
        if type(v) is not str:
            errs.append(type_error(f"{p}[{k}]", v, T_STRING))
            continue
        out[k] = v
    return out


def get_str_list(d: dict, key: str, path: PathLike, errs: list[FieldError]) -> list[str] | None:  # type: ignore[type-arg]
    """A []string; entries of another type are reported and dropped (null reads as "")."""
    lst = get_list(d, key, path, errs)
    if lst is None:
        return None
    for v in lst:
        if type(v) is not str:
            break
    else:
        return lst
    out: list[str] = []
    p = _child(path, key)
    for i, v in enumerate(lst):
        if v is None:
            out.append("")
        elif type(v) is str:
            out.append(v)
        else:
            errs.append(type_error(f"{p}[{i}]", v, T_STRING))
    return out


def list_items(lst: list, path: PathLike, errs: list[FieldError]) -> Iterable[tuple[int, dict]]:  # type: ignore[type-arg]
    """The object items of a []Struct with their index; other items are reported (null items are
    zero structs in Go and come back as empty dicts)."""
    for i, v in enumerate(lst):
        if type(v) is dict:
            yield i, v
        elif v is None:
            yield i, {}
        else:
            errs.append(type_error(f"{path}[{i}]", v, T_OBJECT))


def get_int_or_string(d: dict, key: str, path: PathLike, errs: list[FieldError]) -> int | str | None:  # type: ignore[type-arg]
    """An intstr.IntOrString (None when absent)."""
    v = d.get(key)
    if v is None:
        return None
    if type(v) is str:
        return v
    i = as_int(v)
    if i is not None and _INT32_MIN <= i <= _INT32_MAX:
        return i
    errs.append(type_error(_child(path, key), v, T_INT_OR_STRING))
    return None
