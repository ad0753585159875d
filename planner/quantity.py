"""Kubernetes resource quantities, exactly as k8s.io/apimachinery/pkg/api/resource parses them.

Port of quantity.go (ParseQuantity, parseQuantityString, CanonicalizeBytes/String, Value,
MilliValue, UnmarshalJSON) and suffix.go, Kubernetes v1.37 (apimachinery v0.37; unchanged since v1.35).  Values are exact
``fractions.Fraction``s; upstream's rounding is reproduced:

* a parsed value that is not a multiple of 1e-9 is rounded up (away from zero) to one, and a
  BinarySI value larger than 2^63-1 is capped there (ParseQuantity's slow path);
* ``Value()``/``MilliValue()`` round up: :func:`int_value` is ceil(q), :func:`milli_value` is
  ceil(q * 1000).  (Upstream's integer fast path gets negative non-integers slightly wrong --
  -1.5 gives 0 -- but negative quantities never pass validation; we return the true ceiling.)

Three entry points:

* :func:`parse` is ParseQuantity itself (no whitespace allowed);
* :func:`decode` is what the API server applies to a quantity field of a JSON/YAML object
  (Quantity.UnmarshalJSON): surrounding whitespace is trimmed, a JSON number is parsed from its
  JSON text, null is zero;
* :func:`parse_quantity` returns decode(v).value -- use it to read quantities out of objects.

One deliberate limit: an exponent above 10,000 (``1e10001``) raises QuantityError instead of building
a number with billions of digits; upstream would accept it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from planner.golang import go_float

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

SPLIT_RE_STRING = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = "quantities must match the regular expression '" + SPLIT_RE_STRING + "'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

_MAX_INT64 = (1 << 63) - 1
_NANO = Fraction(1, 10**9)
_MAX_EXPONENT = 10_000


class QuantityError(ValueError):
    """ParseQuantity's error; str(e) is upstream's message (ErrFormatWrong, ErrSuffix, ErrNumeric)."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity: its exact value, its format, and the string upstream keeps verbatim when
    the input was already canonical (``s`` in resource.Quantity), if any."""

    value: Fraction
    format: str = DECIMAL_SI
    cached: str | None = None

    def string(self) -> str:
        """Quantity.String(): the cached input, or the canonical form."""
        if self.cached is not None:
            return self.cached
        return canonical_string(self.value, self.format)

    def __str__(self) -> str:
        return self.string()


# suffix.go: decimal and binary suffixes.
_DEC_SUFFIX = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC_EXP_TO_SUFFIX = {e: s for s, e in _DEC_SUFFIX.items()}
_BIN_EXP_TO_SUFFIX = {e // 10: s for s, e in _BIN_SUFFIX.items()}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")


def _parse_int64(s: str) -> int | None:
    """strconv.ParseInt(s, 10, 64)."""
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or not all(c in _DIGITS for c in body):
        return None
    v = int(s)
    if v < -(1 << 63) or v > _MAX_INT64:
        return None
    return v


def _interpret(suffix: str) -> tuple[int, int, str] | None:
    """suffixHandler.interpret: (base, exponent, format) or None."""
    if suffix in _DEC_SUFFIX:
        return 10, _DEC_SUFFIX[suffix], DECIMAL_SI
    if suffix in _BIN_SUFFIX:
        return 2, _BIN_SUFFIX[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        parsed = _parse_int64(suffix[1:])
        if parsed is None:
            return None
        exp32 = (parsed + (1 << 31)) % (1 << 32) - (1 << 31)  # Go's int32(parsed)
        return 10, exp32, DECIMAL_EXPONENT
    return None


def _parse_quantity_string(s: str) -> tuple[bool, str, str, str, str]:
    """parseQuantityString: (positive, value, num, denom, suffix)."""
    positive = True
    pos = 0
    end = len(s)
    if pos < end:
        if s[0] == "-":
            positive = False
            pos += 1
        elif s[0] == "+":
            pos += 1
    # strip leading zeros
    while True:
        if pos >= end:
            return positive, "0", "0", "", ""
        if s[pos] == "0":
            pos += 1
        else:
            break
    # numerator
    i = pos
    while i < end and s[i] in _DIGITS:
        i += 1
    if i >= end:
        return positive, s, s[pos:end] or "0", "", ""
    num = s[pos:i] or "0"
    pos = i
    denom = ""
    if s[pos] == ".":
        pos += 1
        i = pos
        while i < end and s[i] in _DIGITS:
            i += 1
        if i >= end:
            return positive, s, num, s[pos:end], ""
        denom = s[pos:i]
        pos = i
    value = s[:pos]
    # suffix: letters, then an optional sign, then digits
    suffix_start = pos
    i = pos
    while i < end and s[i] in _SUFFIX_CHARS:
        i += 1
    if i >= end:
        return positive, value, num, denom, s[suffix_start:end]
    pos = i
    if s[pos] in "+-":
        pos += 1
    i = pos
    while i < end and s[i] in _DIGITS:
        i += 1
    if i >= end:
        return positive, value, num, denom, s[suffix_start:end]
    raise QuantityError(ERR_FORMAT_WRONG)


def parse(s: str) -> Quantity:
    """ParseQuantity."""
    if len(s) == 0:
        raise QuantityError(ERR_FORMAT_WRONG)
    if s == "0":
        return Quantity(Fraction(0), DECIMAL_SI, "0")
    positive, value, num, denom, suf = _parse_quantity_string(s)
    interp = _interpret(suf)
    if interp is None:
        raise QuantityError(ERR_SUFFIX)
    base, exponent, fmt = interp
    if exponent > _MAX_EXPONENT:
        raise QuantityError(f"quantity exponent {exponent} is too large")

    # The integer fast path (exact, no rounding) and the string it keeps verbatim.
    precision = 0
    scale = 0
    mantissa = 1
    if fmt in (DECIMAL_EXPONENT, DECIMAL_SI):
        scale = exponent
        precision = 18 - (len(num) + len(denom))
    elif exponent >= 0 and len(denom) == 0:
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
    else:
        precision = -1
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            v = int(shifted)
            result = v * mantissa
            if result <= _MAX_INT64:
                signed = result if positive else -result
                amount = Fraction(signed) * (Fraction(10) ** scale)
                cached: str | None = None
                if fmt == BINARY_SI:
                    if exponent % 10 == 0 and (v & 0x07) != 0:
                        cached = s
                elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
                    cached = s
                return Quantity(amount, fmt, cached)

    # The slow path: an exact decimal, rounded up to a multiple of 1e-9, BinarySI capped.
    if not any(c in _DIGITS for c in value):
        raise QuantityError(ERR_NUMERIC)
    digits = value.lstrip("+-")
    if digits.startswith("."):
        digits = "0" + digits
    if digits.endswith("."):
        digits += "0"
    amount = Fraction(Decimal(digits))
    if base == 10:
        if exponent < -(len(digits) + 20):
            # |amount| < 1e-9: it rounds up to 1n (exact arithmetic would be pointlessly huge)
            amount = _NANO if amount != 0 else Fraction(0)
        else:
            amount *= Fraction(10) ** exponent
    else:
        amount *= 1 << exponent
    if amount != 0 and (amount / _NANO).denominator != 1:
        amount = Fraction(math.ceil(amount / _NANO)) * _NANO
    if fmt == BINARY_SI and amount > _MAX_INT64:
        amount = Fraction(_MAX_INT64)
    if fmt == BINARY_SI and 0 < amount < 1:
        fmt = DECIMAL_SI
    if not positive:
        amount = -amount
    return Quantity(amount, fmt, None)


def _go_json_number(f: float) -> str:
    """The text encoding/json writes for a float64 (what the API server receives for a YAML float)."""
    if f.is_integer() and abs(f) < 1e21:
        return str(int(f))
    return go_float(f, json=True)


_DECODED: dict[object, Quantity] = {}


def decode(v: str | int | float | None) -> Quantity:
    """Quantity.UnmarshalJSON: a JSON string (whitespace trimmed) or number; null is zero.
    (Results are memoized: a snapshot repeats the same few quantity strings many times.)"""
    if type(v) is str:
        q = _DECODED.get(v)
        if q is None:
            q = parse(v.strip())
            if len(_DECODED) < 100_000:
                _DECODED[v] = q
        return q
    return _decode(v)


def _decode(v: str | int | float | None) -> Quantity:
    if v is None:
        return Quantity(Fraction(0), DECIMAL_SI, None)
    if isinstance(v, bool):
        raise QuantityError(ERR_FORMAT_WRONG)
    if isinstance(v, int):
        return parse(str(v))
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise QuantityError(ERR_FORMAT_WRONG)
        return parse(_go_json_number(v))
    if isinstance(v, str):
        return parse(v.strip())
    raise QuantityError(ERR_FORMAT_WRONG)


def parse_quantity(s: str | int | float) -> Fraction:
    """The exact value of a quantity field as the API server decodes it (see :func:`decode`).
    Raises QuantityError with upstream's message on malformed input."""
    if isinstance(s, Fraction):
        return s
    return decode(s).value


def _as_fraction(q: Fraction | int | str | float) -> Fraction:
    if isinstance(q, Fraction):
        return q
    if isinstance(q, int) and not isinstance(q, bool):
        return Fraction(q)
    return parse_quantity(q)


def milli_value(q: Fraction | int | str | float) -> int:
    """Quantity.MilliValue(): ceil(q * 1000)."""
    return math.ceil(_as_fraction(q) * 1000)


def int_value(q: Fraction | int | str | float) -> int:
    """Quantity.Value(): ceil(q)."""
    return math.ceil(_as_fraction(q))


def canonical_string(value: Fraction, fmt: str = DECIMAL_SI) -> str:
    """Quantity.CanonicalizeBytes: the canonical text of a value in a format."""
    if value == 0:
        return "0"
    if fmt == BINARY_SI:
        if -1024 < value < 1024 or value.denominator != 1:
            fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        n = int(value)
        times = 0
        mag = abs(n)
        while mag >= 1024 and mag % 1024 == 0:
            mag //= 1024
            times += 1
        n = mag if n > 0 else -mag
        return f"{n}{_BIN_EXP_TO_SUFFIX.get(times, '')}"
    # decimal: value = m * 10^e with m an integer without trailing zeros
    m, e = _decimal_parts(value)
    e3 = e - (e % 3)
    m *= 10 ** (e - e3)
    if fmt == DECIMAL_EXPONENT:
        return f"{m}" if e3 == 0 else f"{m}e{e3}"
    return f"{m}{_DEC_EXP_TO_SUFFIX.get(e3, '')}"


def _decimal_parts(value: Fraction) -> tuple[int, int]:
    """value == m * 10**e, m an integer with no factor 10 (value must be a finite decimal)."""
    num, den = value.numerator, value.denominator
    e = 0
    while den != 1:
        if den % 10 == 0:
            den //= 10
        elif den % 5 == 0:
            den //= 5
            num *= 2
        elif den % 2 == 0:
            den //= 2
            num *= 5
        else:
            raise ValueError(f"{value} is not a finite decimal")
        e -= 1
    while num % 10 == 0:
        num //= 10
        e += 1
    return num, e


def canonical(v: str | int | float | None) -> str:
    """String() of the decoded quantity (what upstream prints for it in an error message)."""
    return decode(v).string()


def round_up_milli(v: str | int | float | None) -> Quantity | None:
    """SetDefaults_ResourceList: Quantity.RoundUp(milli).  Returns the rounded quantity when the
    value had sub-milli precision (its string is then the canonical form), None when unchanged."""
    q = decode(v)
    scaled = q.value * 1000
    if scaled.denominator == 1:
        return None
    mag = math.ceil(abs(scaled))
    rounded = Fraction(mag if q.value > 0 else -mag, 1000)
    return Quantity(rounded, q.format, None)
