"""Go's text for numbers, as the API server and kubectl print them (strconv, encoding/json).

Shared by the quantity parser (planner.quantity), the validation messages (planner.validation.field)
and the template hash (planner.revision), which must all print a float exactly as Go does.
"""

from __future__ import annotations

import math
from decimal import Decimal


def go_float(f: float, json: bool = False) -> str:
    """A float64 as Go prints it: ``%v`` (strconv 'g' with the shortest digits: exponent form when
    the exponent is < -4 or >= 6) or, with json=True, as encoding/json writes it (exponent form
    outside [1e-6, 1e21), ``e-07`` cleaned to ``e-7``)."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if (not json and math.copysign(1.0, f) < 0) else "0"
    d = Decimal(repr(f)).normalize()
    sign, digits, exp = d.as_tuple()
    assert isinstance(exp, int)
    e10 = len(digits) + exp - 1
    use_exp = not (1e-6 <= abs(f) < 1e21) if json else (e10 < -4 or e10 >= 6)
    if not use_exp:
        return format(d, "f")
    ds = "".join(str(x) for x in digits)
    m = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    es = f"{e10:+03d}"
    if json and e10 < 0 and e10 > -10:
        es = f"-{-e10}"
    return f"{'-' if sign else ''}{m}e{es}"
