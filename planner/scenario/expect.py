"""``expect``: the answers commands must give about the scenario, one section per command.
Checked for shape only (the sections and their entries); tests/test_scenarios.py runs them."""

from __future__ import annotations

from planner.scenario.fields import Fields, type_name

EXPECT_KEYS = ("validate", "explain", "check", "capacity", "simulate", "remediate", "audit")


def check_expect(f: Fields, expect: dict) -> None:
    for k, v in expect.items():
        if k not in EXPECT_KEYS:
            f.unsupported(f"expect.{k}", k, EXPECT_KEYS)
        elif k == "validate":
            f.mapping("expect.validate", v)
        else:
            entries = f.list_of(f"expect.{k}", v) or []
            for i, e in enumerate(entries):
                p = f"expect.{k}[{i}]"
                if not isinstance(e, dict):
                    f.invalid(p, e, f"must be a mapping, not {type_name(e)}")
                elif k == "explain" and ("pod" in e) == ("pod_file" in e):
                    f.required(p, "exactly one of pod or pod_file")
