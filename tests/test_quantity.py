"""planner.quantity against upstream's k8s.io/apimachinery/pkg/api/resource/quantity_test.go.

The tables are transcribed from TestQuantityParse, TestParseQuantityString, TestParseQuantity,
TestQuantityString, TestQuantityParseEmit, TestQuantityParseZero, TestJSONWhitespace and
TestScaledValue (apimachinery v0.35); upstream's decQuantity(m, e, format) is m * 10**e here.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from planner import quantity as q
from planner.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    ERR_FORMAT_WRONG,
    ERR_SUFFIX,
    QuantityError,
    canonical_string,
    int_value,
    milli_value,
    parse,
    parse_quantity,
)

MAX_ALLOWED = Fraction((1 << 63) - 1)


def dec(m: int | float, e: int) -> Fraction:
    return Fraction(m) * Fraction(10) ** e


# TestQuantityParse: (input, value, format)
PARSE_TABLE = [
    ("0", dec(0, 0), DECIMAL_SI),
    ("0n", dec(0, 0), DECIMAL_SI),
    ("0u", dec(0, 0), DECIMAL_SI),
    ("0m", dec(0, 0), DECIMAL_SI),
    ("0Ki", dec(0, 0), BINARY_SI),
    ("0k", dec(0, 0), DECIMAL_SI),
    ("0Mi", dec(0, 0), BINARY_SI),
    ("0M", dec(0, 0), DECIMAL_SI),
    ("0Gi", dec(0, 0), BINARY_SI),
    ("0G", dec(0, 0), DECIMAL_SI),
    ("0Ti", dec(0, 0), BINARY_SI),
    ("0T", dec(0, 0), DECIMAL_SI),
    # Quantity less numbers are allowed
    ("1", dec(1, 0), DECIMAL_SI),
    # Binary suffixes
    ("1Ki", dec(1024, 0), BINARY_SI),
    ("8Ki", dec(8 * 1024, 0), BINARY_SI),
    ("7Mi", dec(7 * 1024 * 1024, 0), BINARY_SI),
    ("6Gi", dec(6 * 1024**3, 0), BINARY_SI),
    ("5Ti", dec(5 * 1024**4, 0), BINARY_SI),
    ("4Pi", dec(4 * 1024**5, 0), BINARY_SI),
    ("3Ei", dec(3 * 1024**6, 0), BINARY_SI),
    ("10Ti", dec(10 * 1024**4, 0), BINARY_SI),
    ("100Ti", dec(100 * 1024**4, 0), BINARY_SI),
    # Decimal suffixes
    ("5n", dec(5, -9), DECIMAL_SI),
    ("4u", dec(4, -6), DECIMAL_SI),
    ("3m", dec(3, -3), DECIMAL_SI),
    ("9", dec(9, 0), DECIMAL_SI),
    ("8k", dec(8, 3), DECIMAL_SI),
    ("50k", dec(5, 4), DECIMAL_SI),
    ("7M", dec(7, 6), DECIMAL_SI),
    ("6G", dec(6, 9), DECIMAL_SI),
    ("5T", dec(5, 12), DECIMAL_SI),
    ("40T", dec(4, 13), DECIMAL_SI),
    ("300T", dec(3, 14), DECIMAL_SI),
    ("2P", dec(2, 15), DECIMAL_SI),
    ("1E", dec(1, 18), DECIMAL_SI),
    # Decimal exponents
    ("1E-3", dec(1, -3), DECIMAL_EXPONENT),
    ("1e3", dec(1, 3), DECIMAL_EXPONENT),
    ("1E6", dec(1, 6), DECIMAL_EXPONENT),
    ("1e9", dec(1, 9), DECIMAL_EXPONENT),
    ("1E12", dec(1, 12), DECIMAL_EXPONENT),
    ("1e15", dec(1, 15), DECIMAL_EXPONENT),
    ("1E18", dec(1, 18), DECIMAL_EXPONENT),
    # Nonstandard but still parsable
    ("1e14", dec(1, 14), DECIMAL_EXPONENT),
    ("1e13", dec(1, 13), DECIMAL_EXPONENT),
    ("1e3", dec(1, 3), DECIMAL_EXPONENT),
    ("100.035k", dec(100035, 0), DECIMAL_SI),
    # Things that look like floating point
    ("0.001", dec(1, -3), DECIMAL_SI),
    ("0.0005k", dec(5, -1), DECIMAL_SI),
    ("0.005", dec(5, -3), DECIMAL_SI),
    ("0.05", dec(5, -2), DECIMAL_SI),
    ("0.5", dec(5, -1), DECIMAL_SI),
    ("0.00050k", dec(5, -1), DECIMAL_SI),
    ("0.00500", dec(5, -3), DECIMAL_SI),
    ("0.05000", dec(5, -2), DECIMAL_SI),
    ("0.50000", dec(5, -1), DECIMAL_SI),
    ("0.5e0", dec(5, -1), DECIMAL_EXPONENT),
    ("0.5e-1", dec(5, -2), DECIMAL_EXPONENT),
    ("0.5e-2", dec(5, -3), DECIMAL_EXPONENT),
    ("0.5e0", dec(5, -1), DECIMAL_EXPONENT),
    ("10.035M", dec(10035, 3), DECIMAL_SI),
    ("1.2e3", dec(12, 2), DECIMAL_EXPONENT),
    ("1.3E+6", dec(13, 5), DECIMAL_EXPONENT),
    ("1.40e9", dec(14, 8), DECIMAL_EXPONENT),
    ("1.53E12", dec(153, 10), DECIMAL_EXPONENT),
    ("1.6e15", dec(16, 14), DECIMAL_EXPONENT),
    ("1.7E18", dec(17, 17), DECIMAL_EXPONENT),
    ("9.01", dec(901, -2), DECIMAL_SI),
    ("8.1k", dec(81, 2), DECIMAL_SI),
    ("7.123456M", dec(7123456, 0), DECIMAL_SI),
    ("6.987654321G", dec(6987654321, 0), DECIMAL_SI),
    ("5.444T", dec(5444, 9), DECIMAL_SI),
    ("40.1T", dec(401, 11), DECIMAL_SI),
    ("300.2T", dec(3002, 11), DECIMAL_SI),
    ("2.5P", dec(25, 14), DECIMAL_SI),
    ("1.01E", dec(101, 16), DECIMAL_SI),
    # Things that saturate/round
    ("3.001n", dec(4, -9), DECIMAL_SI),
    ("1.1E-9", dec(2, -9), DECIMAL_EXPONENT),
    ("0.0000000001", dec(1, -9), DECIMAL_SI),
    ("0.0000000005", dec(1, -9), DECIMAL_SI),
    ("0.00000000050", dec(1, -9), DECIMAL_SI),
    ("0.5e-9", dec(1, -9), DECIMAL_EXPONENT),
    ("0.9n", dec(1, -9), DECIMAL_SI),
    ("0.00000012345", dec(124, -9), DECIMAL_SI),
    ("0.00000012354", dec(124, -9), DECIMAL_SI),
    ("9Ei", MAX_ALLOWED, BINARY_SI),
    ("9223372036854775807Ki", MAX_ALLOWED, BINARY_SI),
    ("12E", dec(12, 18), DECIMAL_SI),
    # We'll accept fractional binary stuff, too.
    ("100.035Ki", dec(10243584, -2), BINARY_SI),
    ("0.5Mi", dec(0.5 * 1024 * 1024, 0), BINARY_SI),
    ("0.05Gi", dec(536870912, -1), BINARY_SI),
    ("0.025Ti", dec(274877906944, -1), BINARY_SI),
    # Things written by trolls
    ("0.000000000001Ki", dec(2, -9), DECIMAL_SI),  # rounds up, changes format
    (".001", dec(1, -3), DECIMAL_SI),
    (".0001k", dec(100, -3), DECIMAL_SI),
    ("1.", dec(1, 0), DECIMAL_SI),
    ("1.G", dec(1, 9), DECIMAL_SI),
]


@pytest.mark.parametrize("text,value,fmt", PARSE_TABLE)
def test_quantity_parse(text: str, value: Fraction, fmt: str) -> None:
    got = parse(text)
    assert got.value == value
    assert got.format == fmt
    assert parse_quantity(text) == value


@pytest.mark.parametrize("text,value,fmt", PARSE_TABLE)
def test_quantity_parse_negative(text: str, value: Fraction, fmt: str) -> None:
    """TestQuantityParse: "Try the negative version of everything"."""
    got = parse("-" + text)
    assert got.value == -value
    assert got.format == fmt


@pytest.mark.parametrize("text,value,fmt", PARSE_TABLE)
def test_quantity_parse_explicit_plus(text: str, value: Fraction, fmt: str) -> None:
    """TestQuantityParse: "Try everything with an explicit +"."""
    got = parse("+" + text)
    assert got.value == value
    assert got.format == fmt


def test_quantity_parse_empty_is_an_error() -> None:
    with pytest.raises(QuantityError) as e:
        parse("")
    assert str(e.value) == ERR_FORMAT_WRONG


# TestQuantityParse's invalid list, with the error each gives.
INVALID = [
    ("1.1.M", ERR_FORMAT_WRONG),
    ("1+1.0M", ERR_FORMAT_WRONG),
    ("0.1mi", ERR_SUFFIX),
    ("0.1am", ERR_FORMAT_WRONG),
    ("aoeu", ERR_FORMAT_WRONG),
    (".5i", ERR_SUFFIX),
    ("1i", ERR_SUFFIX),
    ("-3.01i", ERR_SUFFIX),
    ("-3.01e-", ERR_SUFFIX),
    # trailing whitespace is forbidden
    (" 1", ERR_FORMAT_WRONG),
    ("1 ", ERR_FORMAT_WRONG),
]


@pytest.mark.parametrize("text,message", INVALID)
def test_quantity_parse_invalid(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as e:
        parse(text)
    assert str(e.value) == message


def test_error_message_is_upstreams() -> None:
    assert (
        ERR_FORMAT_WRONG
        == "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    assert issubclass(QuantityError, ValueError)


# TestParseQuantityString: input -> (positive, value, num, denom, suffix)
@pytest.mark.parametrize(
    "text,expected",
    [
        ("0.025Ti", (True, "0.025", "0", "025", "Ti")),
        ("1.025Ti", (True, "1.025", "1", "025", "Ti")),
        ("-1.025Ti", (False, "-1.025", "1", "025", "Ti")),
        (".", (True, ".", "0", "", "")),
        ("-.", (False, "-.", "0", "", "")),
        ("1E-3", (True, "1", "1", "", "E-3")),
    ],
)
def test_parse_quantity_string(text: str, expected: tuple[bool, str, str, str, str]) -> None:
    assert q._parse_quantity_string(text) == expected


def test_quantity_parse_zero() -> None:
    """TestQuantityParseZero."""
    assert parse("0").string() == "0"


# TestParseQuantity: (input, value, canonical string; "" means the input itself)
PARSE_QUANTITY = [
    ("-999999999999999999", "-999999999999999999", ""),
    ("999999999999999999", "999999999999999999", ""),
    ("-999999999999999999.0", "-999999999999999999", "-999999999999999999"),
    ("999999999999999999.1", "999999999999999999.1", "999999999999999999100m"),
    ("-9999999999999999999", "-9999999999999999999", ""),
    ("9999999999999999999", "9999999999999999999", ""),
    ("-1E", "-1000000000000000000", ""),
    ("1E", "1000000000000000000", ""),
    ("1000000000000000000", "1000000000000000000", "1E"),
    ("-1.0E", "-1000000000000000000", "-1E"),
    ("9999999999999999999000m", "9999999999999999999", "9999999999999999999"),
    ("1.0000000000000000001E", "1000000000000000000.1", "1000000000000000000100m"),
    ("1.000000000000000001E", "1000000000000000001", "1000000000000000001"),
    ("-10E", "-10000000000000000000", ""),
    ("10000000000000000000", "10000000000000000000", "10E"),
    ("10000000000000000000000m", "10000000000000000000", "10E"),
    ("10.0000000000000000001E", "10000000000000000000.1", "10000000000000000000100m"),
    ("9223372036854775806.0", "9223372036854775806", "9223372036854775806"),
    ("-9223372036854775808000m", "-9223372036854775808", "-9223372036854775808"),
    ("9223372036854775807.1", "9223372036854775807.1", "9223372036854775807100m"),
    ("9223372036854775808", "9223372036854775808", ""),
]


@pytest.mark.parametrize("text,value,canonical", PARSE_QUANTITY)
def test_parse_quantity_big_values(text: str, value: str, canonical: str) -> None:
    got = parse(text)
    assert got.value == Fraction(value)
    assert got.string() == (canonical or text)


# TestQuantityString: (value, format, canonical string, alternate input with the same canonical)
QUANTITY_STRING = [
    (dec(1024 * 1024 * 1024, 0), BINARY_SI, "1Gi", "1024Mi"),
    (dec(300 * 1024 * 1024, 0), BINARY_SI, "300Mi", "307200Ki"),
    (dec(6 * 1024, 0), BINARY_SI, "6Ki", ""),
    (dec(1001 * 1024**3, 0), BINARY_SI, "1001Gi", "1025024Mi"),
    (dec(1024**4, 0), BINARY_SI, "1Ti", "1024Gi"),
    (dec(5, 0), BINARY_SI, "5", "5000m"),
    (dec(500, -3), BINARY_SI, "500m", "0.5"),
    (dec(1, 9), DECIMAL_SI, "1G", "1000M"),
    (dec(1000, 6), DECIMAL_SI, "1G", "0.001T"),
    (dec(1000000, 3), DECIMAL_SI, "1G", ""),
    (dec(1000000000, 0), DECIMAL_SI, "1G", ""),
    (dec(1, -3), DECIMAL_SI, "1m", "1000u"),
    (dec(80, -3), DECIMAL_SI, "80m", ""),
    (dec(1080, -3), DECIMAL_SI, "1080m", "1.08"),
    (dec(108, -2), DECIMAL_SI, "1080m", "1080000000n"),
    (dec(10800, -4), DECIMAL_SI, "1080m", ""),
    (dec(300, 6), DECIMAL_SI, "300M", ""),
    (dec(1, 12), DECIMAL_SI, "1T", ""),
    (dec(1234567, 6), DECIMAL_SI, "1234567M", ""),
    (dec(1234567, -3), BINARY_SI, "1234567m", ""),
    (dec(3, 3), DECIMAL_SI, "3k", ""),
    (dec(1025, 0), BINARY_SI, "1025", ""),
    (dec(0, 0), DECIMAL_SI, "0", ""),
    (dec(0, 0), BINARY_SI, "0", ""),
    (dec(1, 9), DECIMAL_EXPONENT, "1e9", ".001e12"),
    (dec(1, -3), DECIMAL_EXPONENT, "1e-3", "0.001e0"),
    (dec(1, -9), DECIMAL_EXPONENT, "1e-9", "1000e-12"),
    (dec(80, -3), DECIMAL_EXPONENT, "80e-3", ""),
    (dec(300, 6), DECIMAL_EXPONENT, "300e6", ""),
    (dec(1, 12), DECIMAL_EXPONENT, "1e12", ""),
    (dec(1, 3), DECIMAL_EXPONENT, "1e3", ""),
    (dec(3, 3), DECIMAL_EXPONENT, "3e3", ""),
    (dec(3, 3), DECIMAL_SI, "3k", ""),
    (dec(0, 0), DECIMAL_EXPONENT, "0", "00"),
    (dec(1, -9), DECIMAL_SI, "1n", ""),
    (dec(80, -9), DECIMAL_SI, "80n", ""),
    (dec(1080, -9), DECIMAL_SI, "1080n", ""),
    (dec(108, -8), DECIMAL_SI, "1080n", ""),
    (dec(10800, -10), DECIMAL_SI, "1080n", ""),
    (dec(1, -6), DECIMAL_SI, "1u", ""),
    (dec(80, -6), DECIMAL_SI, "80u", ""),
    (dec(1080, -6), DECIMAL_SI, "1080u", ""),
]


@pytest.mark.parametrize("value,fmt,expect,alternate", QUANTITY_STRING)
def test_quantity_string(value: Fraction, fmt: str, expect: str, alternate: str) -> None:
    assert canonical_string(value, fmt) == expect
    parsed = parse(expect)
    assert parsed.cached == expect  # "did not copy canonical string on parse"
    if alternate:
        alt = parse(alternate)
        assert alt.cached is None
        assert alt.string() == expect
    if value != 0:
        assert canonical_string(-value, fmt) == "-" + expect


# TestQuantityParseEmit
@pytest.mark.parametrize(
    "text,expect",
    [
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
    ],
)
def test_quantity_parse_emit(text: str, expect: str) -> None:
    assert parse(text).string() == expect
    assert parse("-" + text).string() == "-" + expect


# TestJSONWhitespace: the API server trims a quantity's surrounding whitespace and accepts numbers.
@pytest.mark.parametrize(
    "raw,expect",
    [
        (" 1", "1"),
        ("1 ", "1"),
        (1, "1"),
        (10, "10"),
        (-1, "-1"),
        (" -1", "-1"),
        (0.5, "500m"),
        (1.0, "1"),
        (1e-5, "10u"),
    ],
)
def test_json_whitespace_and_numbers(raw: str | int | float, expect: str) -> None:
    assert q.canonical(raw) == expect


def test_null_is_zero() -> None:
    assert parse_quantity(None) == 0  # type: ignore[arg-type]


@pytest.mark.parametrize("raw", [True, [1], {"a": 1}, float("nan"), "1 2"])
def test_decode_rejects_non_quantities(raw: object) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(raw)  # type: ignore[arg-type]


# TestScaledValue (ScaledValue to 0 and to Milli), and Value()/MilliValue() rounding up.
@pytest.mark.parametrize(
    "text,milli,value",
    [
        ("1n", 1, 1),
        ("1u", 1, 1),
        ("1m", 1, 1),
        ("1", 1000, 1),
        ("100m", 100, 1),
        ("1.5", 1500, 2),
        ("0.1m", 1, 1),  # parse keeps 100u; MilliValue rounds it up
        ("1Ki", 1024000, 1024),
        ("128974848", 128974848000, 128974848),
        ("129e6", 129000000000, 129000000),
        ("123Mi", 128974848000, 128974848),
        ("0", 0, 0),
    ],
)
def test_milli_value_and_value_round_up(text: str, milli: int, value: int) -> None:
    assert milli_value(parse_quantity(text)) == milli
    assert int_value(parse_quantity(text)) == value
    assert milli_value(text) == milli
    assert int_value(text) == value


def test_round_up_milli_for_resource_list_defaults() -> None:
    """SetDefaults_ResourceList rounds to milli precision (what kubectl then shows)."""
    assert q.round_up_milli("100m") is None
    r = q.round_up_milli("0.5m")
    assert r is not None and r.string() == "1m"
    r = q.round_up_milli("1.0001")
    assert r is not None and r.string() == "1001m"


def test_upstream_cached_strings_are_kept() -> None:
    """Quantity keeps the input string when it was canonical; the sign and leading zeros stay."""
    assert parse("+1").string() == "+1"
    assert parse("1.").string() == "1."
    assert parse("1500m").string() == "1500m"
    assert parse("1.5").string() == "1500m"
