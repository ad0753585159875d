"""Field errors and typed readers: every problem in a scenario is one line in the form of
k8s.io/apimachinery/pkg/util/validation/field (``<path>: Invalid value: <value>: <detail>``),
collected, not raised, so that every problem is reported at once."""

from __future__ import annotations

import math
import re
from typing import Any

QUANTITY = re.compile(r"^[+]?(\d+(\.\d*)?|\.\d+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?$")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def fmt(value: Any) -> str:
    """A value as upstream field errors print it: strings quoted, numbers and bools bare."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return type(value).__name__


def type_name(v: Any) -> str:
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return type(v).__name__


def quantity_str(v: Any) -> str:
    return str(v) if not isinstance(v, float) or not math.isfinite(v) or v != int(v) else str(int(v))


class FieldErrors:
    """k8s.io/apimachinery/pkg/util/validation/field error strings."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def invalid(self, path: str, value: Any, detail: str) -> None:
        self.items.append(f"{path}: Invalid value: {fmt(value)}: {detail}")

    def required(self, path: str, detail: str = "") -> None:
        self.items.append(f"{path}: Required value" + (f": {detail}" if detail else ""))

    def unsupported(self, path: str, value: Any, supported: tuple[str, ...] | list[str]) -> None:
        vals = ", ".join(fmt(s) for s in supported)
        self.items.append(f"{path}: Unsupported value: {fmt(value)}: supported values: {vals}")

    def not_found(self, path: str, value: Any) -> None:
        self.items.append(f"{path}: Not found: {fmt(value)}")

    def duplicate(self, path: str, value: Any) -> None:
        self.items.append(f"{path}: Duplicate value: {fmt(value)}")

    def too_many(self, path: str, actual: int, maximum: int) -> None:
        self.items.append(f"{path}: Too many: {actual}: must have at most {maximum} items")

    def forbidden(self, path: str, detail: str) -> None:
        self.items.append(f"{path}: Forbidden: {detail}")


class Fields(FieldErrors):
    """The error list plus typed readers: each reader returns the value, or reports the problem
    and returns None (a default for the tolerant ones)."""

    def integer(self, path: str, v: Any, lo: int = 0, hi: int | None = None) -> int | None:
        if isinstance(v, bool) or not isinstance(v, int):
            self.invalid(path, v, "must be an integer")
            return None
        if v < lo:
            self.invalid(path, v, f"must be greater than or equal to {lo}")
            return None
        if hi is not None and v > hi:
            self.invalid(path, v, f"must be less than or equal to {hi}")
            return None
        return v

    def string(self, path: str, v: Any) -> str | None:
        if not isinstance(v, str) or not v:
            if v is None or v == "":
                self.required(path)
            else:
                self.invalid(path, v, f"must be a string, not {type_name(v)}")
            return None
        return v

    def list_of(self, path: str, v: Any) -> list | None:
        """A list; absent is empty."""
        if v is None:
            return []
        if not isinstance(v, list):
            self.invalid(path, v, f"must be a list, not {type_name(v)}")
            return None
        return v

    def mapping(self, path: str, v: Any) -> dict | None:
        """A mapping; absent is empty."""
        if v is None:
            return {}
        if not isinstance(v, dict):
            self.invalid(path, v, f"must be a mapping, not {type_name(v)}")
            return None
        return v

    def boolean(self, path: str, v: Any, default: bool = False) -> bool:
        if v is None:
            return default
        if not isinstance(v, bool):
            self.invalid(path, v, "must be a boolean")
            return default
        return v

    def keys(self, path: str, entry: dict, allowed: tuple[str, ...]) -> None:
        """Every key of ``entry`` not in ``allowed``: ``Forbidden: unknown field``."""
        for k in entry:
            if k not in allowed:
                self.forbidden(f"{path}.{k}" if path else str(k), "unknown field")

    def quantity(self, path: str, v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            self.invalid(path, v, "must be a quantity such as 4, 500m or 16Gi")
            return None
        s = quantity_str(v)
        if s.startswith("-"):
            self.invalid(path, v, "must be greater than or equal to 0")
            return None
        if not QUANTITY.match(s):
            self.invalid(path, v, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
            return None
        return s

    def labels(self, path: str, v: Any) -> dict[str, str]:
        m = self.mapping(path, v)
        out: dict[str, str] = {}
        for k, val in (m or {}).items():
            if not isinstance(k, str) or not k:
                self.invalid(path, k, "label keys must be non-empty strings")
                continue
            sval = val if isinstance(val, str) else ("true" if val is True else "false" if val is False else str(val))
            if val is None or isinstance(val, (dict, list)) or not LABEL_VALUE.match(sval) or len(sval) > 63:
                self.invalid(f"{path}.{k}", val, "a valid label value must be 63 characters or less, begin and end with an alphanumeric character and contain only alphanumerics, '-', '_' or '.'")
                continue
            out[k] = sval
        return out
