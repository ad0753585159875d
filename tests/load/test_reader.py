"""The input layer as a user meets it: every kind of bad input ends with exit 2 and a reason."""

from __future__ import annotations

import json
import os

import pytest

from planner.errors import InputError
from planner.load import Limits, load_snapshot, read_objects
from planner.load.reader import parse_bytes

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1", "topology.kubernetes.io/zone": "a"}},
    "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p1", "namespace": "default", "labels": {"app": "x"}},
    "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}]},
    "status": {"phase": "Pending"},
}


def _bomb() -> bytes:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
        prev = name
    return ("\n".join(lines) + "\n").encode()


BAD_INPUTS = [
    pytest.param(_bomb(), "alias", id="yaml alias bomb"),
    pytest.param(b"a: " + b"[" * 60000 + b"]" * 60000, "nesting deeper than 256", id="yaml 60k nesting"),
    pytest.param(b"a:\n" + b"".join(b" " * i + b"- \n" for i in range(0, 600, 2)), "nesting deeper", id="yaml block nesting"),
    pytest.param(b"[" * 60000 + b"]" * 60000, "nesting too deep", id="json 60k nesting"),
    pytest.param(os.urandom(64) + b"\x00" + os.urandom(64), "binary data", id="binary garbage"),
    pytest.param(b"kind: Pod\nmetadata: {name: \xff\xfe}\n", "not UTF-8", id="non-utf8"),
    pytest.param(b"", "empty input", id="empty file"),
    pytest.param(b"  \n\n", "empty input", id="whitespace only"),
    pytest.param(json.dumps(NODE).encode() + b" trailing", "invalid JSON", id="json trailing garbage"),
    pytest.param(b'{"kind": "Node", "kind": "Pod"}', 'duplicate key "kind"', id="json duplicate key"),
    pytest.param(b"kind: Node\nkind: Pod\n", 'line 2: duplicate key "kind"', id="yaml duplicate key"),
    pytest.param(b"a: [1, 2\nb: 3", "invalid YAML", id="yaml syntax error"),
    pytest.param(b"- 1\n- 2\n", "must be a mapping", id="not a mapping"),
    pytest.param(b"apiVersion: v1\nmetadata: {name: x}\n", "kind: Required value", id="kind missing"),
    pytest.param(b"a: !!python/object/apply:os.system ['true']\n", "unsupported YAML tag", id="python tag"),
    pytest.param(b"kind: Node\nmetadata:\n  name: !!bool foo\n", "line 3: invalid bool 'foo'", id="explicit bool tag on no bool"),
    pytest.param(b"kind: Node\nmetadata:\n  name: !!int foo\n", "line 3: invalid int 'foo'", id="explicit int tag on no int"),
    pytest.param(b'{"kind": "List", "items": 5}', "items", id="List items not a list"),
    pytest.param(b"kind: Pod\nmetadata: {name: x}\n", "apiVersion: Required value", id="apiVersion missing"),
]


@pytest.mark.parametrize("data,reason", BAD_INPUTS)
def test_bad_input_exit_2_with_reason(cli, tmp_path, data, reason):
    f = tmp_path / "input.yaml"
    f.write_bytes(data)
    for cmd in (["validate", f], ["render", f], ["explain", f, "--pod", "default/p1"]):
        r = cli(cmd)
        assert r.code == 2, (cmd, r)
        assert reason in (r.out + r.err), (cmd, r.out, r.err)
        assert "Traceback" not in r.out + r.err


def test_max_bytes_flag(cli, tmp_path):
    f = tmp_path / "n.json"
    f.write_text(json.dumps(NODE))
    r = cli(["validate", f, "--max-bytes", "10"])
    assert r.code == 2 and "byte limit" in r.out
    assert cli(["validate", f]).code == 0


def test_document_count_bound():
    data = b"".join(b"---\nkind: Foo\n" for _ in range(50))
    with pytest.raises(InputError, match="more than 10 YAML documents"):
        parse_bytes(data, "docs", Limits(max_documents=10))


def test_kubectl_list_json_and_skipped_kinds(cli, tmp_path):
    lst = {"apiVersion": "v1", "kind": "List", "items": [NODE, POD, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}]}
    f = tmp_path / "snap.json"
    f.write_text(json.dumps(lst, indent=4))
    r = cli(["validate", f, "-o", "json"])
    assert r.code == 0, r
    data = json.loads(r.out)
    assert data["valid"] and data["objects"] == {"Node": 1, "Pod": 1}
    assert data["skipped"] == {"Service": 1}
    assert "skipped 1 object(s)" in r.err


def test_typed_list_items_without_kind(tmp_path):
    lst = {"apiVersion": "v1", "kind": "PodList", "items": [{k: v for k, v in POD.items() if k != "kind"}]}
    f = tmp_path / "pods.json"
    f.write_text(json.dumps(lst))
    raw = read_objects([str(f)])
    assert [o["kind"] for o in raw.objects] == ["Pod"]


def test_helm_template_output_and_directories(cli, tmp_path):
    d = tmp_path / "chart" / "templates"
    d.mkdir(parents=True)
    (d / "a.yaml").write_text("---\n# Source: chart/templates/a.yaml\n---\n" + json.dumps(NODE) + "\n---\n")
    (d / "b.yml").write_text("# Source: chart/templates/b.yml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\nspec:\n  containers:\n  - name: c\n    image: x\n")
    (d / "notes.txt").write_text("not read")
    r = cli(["validate", tmp_path / "chart", "-o", "json"])
    assert r.code == 0, r
    assert json.loads(r.out)["objects"] == {"Node": 1, "Pod": 1}


def test_stdin(cli):
    r = cli(["validate", "-", "-o", "json"], stdin=json.dumps(NODE).encode())
    assert r.code == 0, r
    assert json.loads(r.out)["objects"] == {"Node": 1}


def test_missing_file(cli, tmp_path):
    r = cli(["validate", tmp_path / "nope.yaml"])
    assert r.code == 2 and "no such file" in r.out


def test_effective_requests_and_units(tmp_path):
    pod = json.loads(json.dumps(POD))
    pod["spec"]["initContainers"] = [
        {"name": "init", "image": "x", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}},
        {"name": "sidecar", "image": "x", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}},
    ]
    pod["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "500m", "memory": "128Mi"}}
    pod["spec"]["overhead"] = {"cpu": "10m"}
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, pod]}))
    snap = load_snapshot([str(f)])
    req = snap.pods["default/p1"].spec.requests
    # containers: 500m (request defaulted from limit) + sidecar 100m = 600m; init peak 2000m -> max 2000m; + overhead 10m
    assert req["cpu"] == 2010
    assert req["memory"] == 1024**3
    assert snap.nodes["n1"].allocatable == {"cpu": 4000, "memory": 16 * 1024**3, "pods": 110}


def test_real_cluster_oddities_are_notes_not_errors(tmp_path):
    pod = json.loads(json.dumps(POD))
    pod["spec"]["nodeName"] = "gone-node"
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "default"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, "volumeName": "pv-missing"},
        "status": {"phase": "Bound"},
    }
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, pod, pvc]}))
    snap = load_snapshot([str(f)])
    text = "\n".join(snap.notes)
    assert "pv-missing" in text and "gone-node" in text


def test_directory_of_scenarios_validates_file_by_file(cli):
    from tests.conftest import SCENARIOS

    r = cli(["validate", SCENARIOS, "-o", "json"])
    assert r.code == 0, r.out
    data = json.loads(r.out)
    assert data["valid"] and len(data["files"]) == len(list(SCENARIOS.glob("*.yaml")))


DIGITS = "1" + "0" * 5000


@pytest.mark.parametrize(("text", "value"), [
    ("2147483648", 2147483648),
    ("9223372036854775808", 9223372036854775808),  # a uint64
    ("18446744073709551615", 18446744073709551615),
    ("18446744073709551616", 1.8446744073709552e19),  # past uint64: a float64, as go-yaml's resolver reads it
    ("-9223372036854775809", -9.223372036854776e18),
    ("1" + "0" * 400, "1" + "0" * 400),  # past float64: the string as written
    (DIGITS, DIGITS),  # past Python's 4,300-digit conversion limit (was: "invalid int")
    ("1e400", "1e400"),
    ("-1.5e999", "-1.5e999"),
    (".inf", float("inf")),
])
def test_yaml_numbers_as_kubernetes_reads_them(text, value):
    """sigs.k8s.io/yaml (go-yaml v2's resolve): an integer is an int64 or a uint64, else a float64
    when ParseFloat succeeds, else the plain scalar is a string."""
    (doc,) = parse_bytes(f"a: {text}\n".encode(), "x.yaml", Limits())
    assert doc["a"] == value and type(doc["a"]) is type(value)


def test_json_integer_of_thousands_of_digits():
    """Was: an internal error (Python's int() refuses more than 4,300 digits); now a float, as orjson
    reads every integer past 64 bits (an integer field then rejects it as not an integer)."""
    (doc,) = parse_bytes(f'{{"a": {DIGITS}, "b": 12}}'.encode(), "x.json", Limits())
    assert doc == {"a": float("inf"), "b": 12}


def test_huge_max_bytes_reads_the_input(cli, tmp_path):
    """Was: an internal error (OverflowError: the read asked for --max-bytes bytes at once)."""
    f = tmp_path / "n.json"
    f.write_text(json.dumps(NODE))
    for big in (str(2**63), str(10**30)):
        r = cli(["validate", f, "--max-bytes", big])
        assert r.code == 0, r.out + r.err
    r = cli(["validate", "-", "--max-bytes", str(10**30)], stdin=json.dumps(NODE).encode())
    assert r.code == 0, r.out + r.err


def test_a_status_that_is_not_an_object_is_invalid(cli, tmp_path):
    """Was: remediate and audit failed with an internal error on a PersistentVolume whose status
    was a string (found by the fuzz campaign); no Go struct decodes from it."""
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/x"}}, "status": "x"}
    f = tmp_path / "pv.json"
    f.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": [NODE, pv]}))
    r = cli(["validate", f])
    assert r.code == 2 and 'PersistentVolume pv1: status: Invalid value: "x": must be of type object' in r.out, r.out + r.err


def _node_list(n: int) -> str:
    items = [{**NODE, "metadata": {**NODE["metadata"], "name": f"n{i}"}} for i in range(n)]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4)


def test_a_json_list_read_item_by_item_may_be_larger_than_a_file_read_whole(tmp_path):
    """A kubectl JSON List is read item by item (memory bounded per item): by default it may be
    larger (max_stream_bytes, 8 GiB: a 5,000-node cluster's indented List is 1.6 GiB) than any
    input read whole (max_bytes, 1 GiB), which the same bytes as one object or as YAML are."""
    from planner.load import Limits, load_snapshot

    big = tmp_path / "list.json"
    big.write_text(_node_list(400))
    size = big.stat().st_size
    small = dict(max_bytes=size // 2, json_strict_bytes=1024)  # a List past json_strict_bytes is streamed
    assert len(load_snapshot([str(big)], Limits(**small, max_stream_bytes=size)).nodes) == 400
    with pytest.raises(InputError) as e:  # --max-bytes N: every input at N
        load_snapshot([str(big)], Limits(**small, max_stream_bytes=size // 2))
    assert f"{size} bytes is more than the {size // 2}-byte limit (see --max-bytes)" in str(e.value)
    one = tmp_path / "one.yaml"  # as large, but YAML (read whole): refused, with both limits named
    one.write_text("# " + "x" * size + "\n" + json.dumps(NODE) + "\n")
    with pytest.raises(InputError) as e:
        load_snapshot([str(one)], Limits(**small, max_stream_bytes=2 * size))
    assert f"bytes is more than the {size // 2}-byte limit (a kubectl JSON List file of up to {2 * size} bytes is read item by item" in str(e.value)


def test_max_bytes_flag_bounds_a_json_list_too(cli, tmp_path):
    f = tmp_path / "list.json"
    f.write_text(_node_list(10))
    r = cli(["validate", f, "--max-bytes", "100"])
    assert r.code == 2 and "100-byte limit" in r.out, r.out
    assert cli(["validate", f]).code == 0


def test_a_broken_large_list_reports_its_own_error_not_its_size(tmp_path):
    """A List larger than max_bytes (so read item by item) with an error in one item: the load
    starts over whole, for every error's message, and reads the List up to max_stream_bytes there
    too. Was: the size message of a whole read, hiding the error."""
    items = [{**NODE, "metadata": {**NODE["metadata"], "name": f"n{i}"}} for i in range(600)]
    items.insert(300, "not an object")
    f = tmp_path / "list.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4))
    size = f.stat().st_size
    with pytest.raises(InputError) as e:
        load_snapshot([str(f)], Limits(max_bytes=size // 2, max_stream_bytes=2 * size, json_strict_bytes=1024))
    text = str(e.value)
    assert "items[300]" in text and "byte limit" not in text, text
