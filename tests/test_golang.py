"""planner.golang: floats printed as Go prints them (strconv 'g' shortest for %v; encoding/json)."""

from __future__ import annotations

import pytest

from planner.golang import go_float


@pytest.mark.parametrize(
    "f,v,js",
    [
        (0.0, "0", "0"),
        (-0.0, "-0", "0"),
        (1.5, "1.5", "1.5"),
        (100000.0, "100000", "100000"),
        (1e6, "1e+06", "1000000"),
        (123456789.0, "1.23456789e+08", "123456789"),
        (0.0001, "0.0001", "0.0001"),
        (0.00001, "1e-05", "0.00001"),
        (1e-7, "1e-07", "1e-7"),
        (1e21, "1e+21", "1e+21"),
        (9.99e20, "9.99e+20", "999000000000000000000"),
        (-2.5e-9, "-2.5e-09", "-2.5e-9"),
        (float("inf"), "+Inf", "+Inf"),
    ],
)
def test_go_float(f: float, v: str, js: str) -> None:
    assert go_float(f) == v  # fmt %v
    assert go_float(f, json=True) == js  # encoding/json
