"""The controllers' hashes (planner/revision.py), as the scenario format and the replay use them."""

from __future__ import annotations

import copy

from planner.revision import (
    controller_revision_hash,
    controller_revision_name,
    fnv32,
    fnv32a,
    go_json,
    pod_template_hash,
    safe_encode_string,
    statefulset_revision_patch,
)


def test_fnv_test_vectors() -> None:
    # the FNV reference values for "" and "a"
    assert fnv32(b"") == 0x811C9DC5
    assert fnv32a(b"") == 0x811C9DC5
    assert fnv32(b"a") == 0x050C5D7E
    assert fnv32a(b"a") == 0xE40C292C
    assert fnv32a(b"foobar") == 0xBF9CF968


def test_safe_encode_string_maps_digits_like_upstream() -> None:
    # '0'..'9' are 48..57; 48 % 27 = 21 -> '4', ..., 54 % 27 = 0 -> 'b'
    assert safe_encode_string("0123456789") == "456789bcdf"


def test_go_json_is_sorted_compact_and_escapes_like_go() -> None:
    assert go_json({"b": 1, "a": [True, None, 0.5, 2.0], "c": "<&>"}) == '{"a":[true,null,0.5,2],"b":1,"c":"\\u003c\\u0026\\u003e"}'
    assert go_json({"x": "é"}) == '{"x":"é"}'


def test_pod_template_hash_is_stable_and_sensitive() -> None:
    tpl = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx:1.16"}]}}
    h = pod_template_hash(tpl)
    assert h == pod_template_hash(copy.deepcopy(tpl))
    assert set(h) <= set("456789bcdf") and 1 <= len(h) <= 10
    # key order does not matter, content does
    reordered = {"spec": tpl["spec"], "metadata": tpl["metadata"]}
    assert pod_template_hash(reordered) == h
    changed = copy.deepcopy(tpl)
    changed["spec"]["containers"][0]["image"] = "nginx:1.17"
    assert pod_template_hash(changed) != h
    # the collision count is hashed in (as 8 little-endian bytes) only when given
    assert pod_template_hash(tpl, 0) != h
    assert pod_template_hash(tpl, 1) != pod_template_hash(tpl, 0)
    expected = fnv32a((1).to_bytes(4, "little") + bytes(4), fnv32a(go_json(tpl).encode()))
    assert pod_template_hash(tpl, 1) == safe_encode_string(str(expected))


def test_controller_revision_hash_hashes_upstream_patch_bytes() -> None:
    tpl = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    patch = statefulset_revision_patch(tpl)
    assert patch == b'{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"image":"i","name":"c"}]}}}}'
    # FNV-32 (not 32a) of the patch, then the probe (collisionCount) in decimal
    assert controller_revision_hash(tpl) == safe_encode_string(str(fnv32(b"0", fnv32(patch))))
    assert controller_revision_hash(tpl, None) == safe_encode_string(str(fnv32(patch)))
    assert controller_revision_name("search", tpl) == "search-" + controller_revision_hash(tpl)
    assert "$patch" not in tpl  # the caller's template is left alone
