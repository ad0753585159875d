"""k8s.io/apimachinery/pkg/util/intstr: GetScaledValueFromIntOrPercent and ValueOrDefault."""

from __future__ import annotations

from planner.domain import IntOrString


def scaled_value(value: IntOrString | None, total: int, round_up: bool, default: int = 0) -> int:
    """k8s.io/apimachinery/pkg/util/intstr GetScaledValueFromIntOrPercent(ValueOrDefault(value, default)).

    An int is returned as it is; "N%" is N percent of ``total``, rounded up or down.
    """
    if value is None:
        return default
    if isinstance(value, bool):
        raise ValueError(f"invalid value for IntOrString: {value!r}")
    if isinstance(value, int):
        return value
    s = str(value)
    if not s.endswith("%"):
        raise ValueError(f"invalid value for IntOrString: invalid type: string is not a percentage: {s!r}")
    digits = s[:-1]
    body = digits[1:] if digits[:1] in ("+", "-") else digits
    if not body.isascii() or not body.isdigit():
        raise ValueError(f"invalid value for IntOrString: {s!r}")
    magnitude = body.lstrip("0") or "0"
    pct = int(magnitude) if len(magnitude) <= 19 else 1 << 63
    if pct >= 1 << 63:  # strconv.Atoi: value out of range
        raise ValueError(f"invalid value for IntOrString: {s[:40]!r}: value out of range")
    if digits.startswith("-"):
        pct = -pct
    num = pct * total
    return -(-num // 100) if round_up else num // 100
