"""planner.validation.field: field paths and field.Error formatting (apimachinery util/validation/field)."""

from __future__ import annotations

from planner.validation import validate_objects
from planner.validation.field import (
    JSONValue,
    Path,
    Struct,
    duplicate,
    forbidden,
    go_json,
    go_quote,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
    type_error,
)

# --------------------------------------------------------------------------- field.Error formatting


def test_field_paths() -> None:
    assert str(Path("spec").child("template").index(0)) == "spec.template[0]"
    assert str(Path("metadata").child("labels").key("app")) == "metadata.labels[app]"
    assert str(Path("spec", "a").child("b", "c")) == "spec.a.b.c"
    assert str(Path().child("kind")) == "kind"


def test_error_formatting() -> None:
    p = Path("spec").child("x")
    assert str(invalid(p, 0, "must be greater than zero")) == "spec.x: Invalid value: 0: must be greater than zero"
    assert str(invalid(p, 'a"b', "d")) == 'spec.x: Invalid value: "a\\"b": d'
    assert str(invalid(p, True, "d")) == "spec.x: Invalid value: true: d"
    assert str(invalid(p, {"b": "<", "a": 1}, "d")) == 'spec.x: Invalid value: {"a":1,"b":"\\u003c"}: d'
    assert str(invalid(p, Struct(Type="A", B=None), "d")) == 'spec.x: Invalid value: {"Type":"A","B":null}: d'
    assert str(invalid(p, JSONValue("<x>"), "d")) == 'spec.x: Invalid value: "\\u003cx\\u003e": d'
    assert str(required(p)) == "spec.x: Required value"
    assert str(required(p, "detail")) == "spec.x: Required value: detail"
    assert str(forbidden(p, "no")) == "spec.x: Forbidden: no"
    assert str(duplicate(p, "a")) == 'spec.x: Duplicate value: "a"'
    assert (
        str(not_supported(p, "Foo", ["DoNotSchedule", "ScheduleAnyway"]))
        == 'spec.x: Unsupported value: "Foo": supported values: "DoNotSchedule", "ScheduleAnyway"'
    )
    assert str(too_long(p, 10)) == "spec.x: Too long: may not be more than 10 bytes"
    assert str(too_many(p, 5, 2)) == "spec.x: Too many: 5: must have at most 2 items"
    assert str(type_error(p, 5, "string")) == "spec.x: Invalid value: 5: must be of type string"


def test_go_quoting() -> None:
    assert go_quote("a\nb\tc\x01é\u00a0") == '"a\\nb\\tc\\x01é\\u00a0"'
    assert go_json({"k": "\n<&>\u2028"}) == '{"k":"\\n\\u003c\\u0026\\u003e\\u2028"}'
    assert go_json([1.5, 1e21, 1e-7, None]) == "[1.5,1e+21,1e-7,null]"


def test_memo_hit_still_checks_per_pod_names():
    """Pods of one template share a memo entry up to volume, claim and node names; those are
    checked on every hit, so a bad name in the second pod is still reported."""

    def pod(name: str, vol: str, claim: str, node: str) -> dict:
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "nodeName": node,
                "containers": [{"name": "c", "image": "x", "volumeMounts": [{"name": vol, "mountPath": "/d"}]}],
                "volumes": [{"name": vol, "persistentVolumeClaim": {"claimName": claim}}],
            },
        }

    ok = pod("p0", "kube-api-access-abcde", "data-web-0", "node-1")
    bad = pod("p1", "Bad_Name", "data-web-1", "node_2")
    errs = validate_objects([ok, bad])
    assert any("spec.volumes[0].name: Invalid value: \"Bad_Name\"" in e for e in errs), errs
    assert any("spec.nodeName: Invalid value: \"node_2\"" in e for e in errs), errs
    assert not any(e.startswith("Pod default/p0") for e in errs)

