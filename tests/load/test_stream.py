"""The streamed load (planner.load.stream): a List JSON file decoded item by item must give what
the whole-document load gives -- the same Snapshot, or the same error messages -- whatever the
layout of the file, and must fall back to the whole read whenever the split is not proven."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import orjson
import pytest

import planner.load as load
from bench import generate
from planner.errors import InputError
from planner.load import Limits, load_snapshot, read_objects, stream
from tests.conftest import SCENARIOS, run_cli

# json_strict_bytes=0: every JSON file is one orjson decodes, i.e. one the loader streams
STREAM = Limits(json_strict_bytes=0)

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1", "topology.kubernetes.io/zone": "a"}},
    "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
}


def pod(name: str, node: str = "n1", **spec: object) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "x"}},
        "spec": {
            "nodeName": node,
            "containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}],
            **spec,
        },
        "status": {"phase": "Running"},
    }


class Spy:
    """Counts what the stream handed out and whether the load started over (whole read)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.items = 0
        self.restarts = 0
        items, whole = stream.JsonList.items, load._load_whole

        def counting_items(lst: stream.JsonList):  # type: ignore[no-untyped-def]
            for it in items(lst):
                self.items += 1
                yield it

        def counting_whole(*a):  # type: ignore[no-untyped-def]
            self.restarts += 1
            return whole(*a)

        monkeypatch.setattr(stream.JsonList, "items", counting_items)
        monkeypatch.setattr(load, "_load_whole", counting_whole)


def outcome(fn):  # type: ignore[no-untyped-def]
    try:
        return fn()
    except InputError as e:
        return ("InputError", e.messages)


def both(paths: list[Path], monkeypatch: pytest.MonkeyPatch, limits: Limits = STREAM, overlay: bool = True) -> tuple[object, object, Spy]:
    """(streamed load, whole-document load, spy of the streamed load)."""
    spy = Spy(monkeypatch)
    names = [str(p) for p in paths]
    streamed = outcome(lambda: load_snapshot(names, limits, overlay=overlay))
    monkeypatch.undo()
    whole = outcome(lambda: load._load_whole(names, limits, None, load._Options(overlay=overlay)))
    return streamed, whole, spy


def write_list(path: Path, items: list, *, indent: int | str | None = 4, kind: str = "List", order: str = "sorted") -> Path:
    doc: dict = {"apiVersion": "v1", "items": items, "kind": kind, "metadata": {"resourceVersion": ""}}
    if order == "items-first":
        doc = {"items": items, **{k: v for k, v in doc.items() if k != "items"}}
    elif order == "items-last":
        doc = {**{k: v for k, v in doc.items() if k != "items"}, "items": items}
    path.write_text(json.dumps(doc, indent=indent))
    return path


@pytest.fixture(scope="module")
def bench_objects() -> list[dict]:
    return list(generate.Cluster(8, 3, 5).objects())


# --------------------------------------------------------------------------- same Snapshot


def test_bench_cluster_streamed_equals_whole(tmp_path, monkeypatch, bench_objects):
    f = tmp_path / "cluster.json"
    with open(f, "wb") as out:
        generate.write_json(iter(bench_objects), out)  # kubectl's layout, as bench/out holds it
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole
    assert spy.items == len(bench_objects) and spy.restarts == 0
    assert len(streamed.pods) > 100


@pytest.mark.parametrize("scenario", sorted(p.name for p in SCENARIOS.glob("*.yaml")))
def test_scenarios_rendered_as_a_list(tmp_path, monkeypatch, scenario):
    r = run_cli(["render", SCENARIOS / scenario, "-o", "json"])
    assert r.code == 0, r.err
    f = tmp_path / "rendered.json"
    f.write_text(json.dumps(json.loads(r.out), indent=4))
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole
    assert spy.items == len(json.loads(r.out)["items"]) and spy.restarts == 0


@pytest.mark.parametrize("indent", [1, 2, 4, "\t", "  \t"])
@pytest.mark.parametrize("order", ["sorted", "items-first", "items-last"])
def test_layouts_are_streamed(tmp_path, monkeypatch, bench_objects, indent, order):
    f = write_list(tmp_path / "l.json", bench_objects[:60] + bench_objects[-60:], indent=indent, order=order)
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole
    assert spy.items == 120 and spy.restarts == 0


@pytest.mark.parametrize("order", ["sorted", "items-first", "items-last"])
def test_compact_json_is_streamed(tmp_path, monkeypatch, bench_objects, order):
    # the API server's own encoding (kubectl get --raw, jq -c): no line to go by
    f = write_list(tmp_path / "c.json", bench_objects, indent=None, order=order)
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole
    assert spy.items == len(bench_objects) and spy.restarts == 0
    # StorageClasses' first key (allowVolumeExpansion) is not the others' (apiVersion): they come
    # within the piece of the item before them, and must all be there
    assert len(streamed.storage_classes) == sum(o["kind"] == "StorageClass" for o in bench_objects) > 0
    g = tmp_path / "tight.json"  # no whitespace at all
    g.write_text(json.dumps(json.loads(f.read_text()), separators=(",", ":")))
    streamed, whole, spy = both([g], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and spy.items == len(bench_objects)


def test_compact_candidates_inside_items(tmp_path, monkeypatch):
    # items whose first key (metadata, as in the API server's own lists) also starts objects
    # nested in them, and "}]" inside items: candidate ends that do not decode, then the real end
    def first_metadata(o: dict) -> dict:
        return {"metadata": o["metadata"], **{k: v for k, v in o.items() if k != "metadata"}}

    def nested(name: str) -> dict:
        p = pod(name)
        p["spec"]["volumes"] = [
            {"name": "a", "ephemeral": {"volumeClaimTemplate": {"metadata": {"annotations": {"x": "}]"}}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}},
            {"name": "b", "ephemeral": {"volumeClaimTemplate": {"metadata": {"labels": {"y": "1"}}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}},
        ]
        return first_metadata(p)

    items = [first_metadata(NODE)] + [nested(f"p{i}") for i in range(30)]
    f = tmp_path / "typed.json"
    f.write_text(json.dumps({"apiVersion": "v1", "items": items, "kind": "List"}, separators=(",", ":")))
    assert '},{"metadata":' in f.read_text().split('"items":[', 1)[1].split('},{"metadata":{"name":"p1"')[0][20:]
    streamed, whole, spy = both([f], monkeypatch)
    assert streamed == whole and spy.restarts == 0 and spy.items == 31
    assert isinstance(streamed, load.Snapshot) and len(streamed.pods) == 30


def test_compact_item_that_never_decodes_starts_over(tmp_path, monkeypatch, bench_objects):
    f = write_list(tmp_path / "c.json", bench_objects[:40], indent=None)
    text = f.read_text()
    i = text.index('"kind": "Pod"')
    f.write_text(text[:i] + '"kind": "Pod",,' + text[i + len('"kind": "Pod",') :])
    streamed, whole, spy = both([f], monkeypatch)
    assert streamed == whole and streamed[0] == "InputError" and spy.restarts == 1


def test_small_files_keep_the_strict_decoder(tmp_path, monkeypatch):
    f = tmp_path / "dup.json"
    f.write_text('{\n    "apiVersion": "v1",\n    "items": [\n        ' + json.dumps(NODE) + '\n    ],\n    "kind": "List",\n    "kind": "List"\n}\n')
    streamed, whole, spy = both([f], monkeypatch, Limits())
    assert streamed == whole and streamed[0] == "InputError" and 'duplicate key "kind"' in streamed[1][0]
    assert spy.items == 0


def test_empty_items(tmp_path, monkeypatch):
    f = write_list(tmp_path / "e.json", [])
    streamed, whole, spy = both([f], monkeypatch)
    assert streamed == whole == ("InputError", [load._NO_OBJECTS])
    g = write_list(tmp_path / "n.json", [NODE])
    streamed, whole, spy = both([f, g], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and list(streamed.nodes) == ["n1"]


def test_list_of_lists_and_typed_lists(tmp_path, monkeypatch):
    inner = {"apiVersion": "v1", "kind": "List", "items": [pod("a"), pod("b")]}
    typed = {"apiVersion": "v1", "kind": "PodList", "items": [{k: v for k, v in pod("c").items() if k != "kind"}]}
    f = write_list(tmp_path / "l.json", [NODE, inner, typed, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}])
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole
    assert sorted(streamed.pods) == ["default/a", "default/b", "default/c"] and spy.restarts == 0
    # a PodList whose items omit kind: the frame's kind is known before the items are read
    g = write_list(tmp_path / "p.json", [{k: v for k, v in pod("d").items() if k != "kind"}], kind="PodList")
    streamed, whole, spy = both([g, f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and "default/d" in streamed.pods
    assert spy.items == 5 and spy.restarts == 0


def test_skipped_kinds_notice(tmp_path, bench_objects):
    f = write_list(tmp_path / "l.json", [NODE, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}])
    seen: list[str] = []
    load_snapshot([str(f)], STREAM, notice=seen.append)
    assert seen == ["note: skipped 1 object(s) of kinds planner does not read: Service (1)"]


# --------------------------------------------------------------------------- same errors


def test_validation_errors_and_duplicates(tmp_path, monkeypatch):
    bad = pod("b", containers=[{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "-1"}}}])
    f = write_list(tmp_path / "l.json", [NODE, pod("a"), bad, pod("a"), {**NODE, "spec": {"taints": [{"key": "k"}]}}])
    streamed, whole, spy = both([f], monkeypatch)
    assert streamed == whole and streamed[0] == "InputError" and spy.restarts == 0
    msgs = streamed[1]
    assert any("Duplicate value" in m and "Pod default/a" in m for m in msgs)
    assert any("Node n1" in m and "Duplicate value" in m for m in msgs)
    assert any(m.startswith("Pod default/b: spec.containers[0].resources.requests[cpu]") for m in msgs)
    # across files, one streamed and one YAML: --no-overlay
    y = tmp_path / "more.yaml"
    y.write_text(json.dumps(pod("b")))
    g = write_list(tmp_path / "g.json", [NODE, pod("a")])
    streamed, whole, spy = both([g, y, g], monkeypatch, overlay=False)
    assert streamed == whole and streamed[0] == "InputError" and len(streamed[1]) == 2
    # overlaid (the default): the last file's objects replace the first's, streamed or not
    streamed, whole, spy = both([g, y, g], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and sorted(streamed.pods) == ["default/a", "default/b"]
    assert spy.restarts == 0


def test_malformed_item(tmp_path, monkeypatch, bench_objects):
    f = write_list(tmp_path / "l.json", bench_objects[:40])
    text = f.read_text()
    i = text.index('"kind": "Pod"')
    f.write_text(text[:i] + '"kind": "Pod",,' + text[i + len('"kind": "Pod",') :])
    streamed, whole, spy = both([f], monkeypatch)
    assert streamed == whole and streamed[0] == "InputError"
    (msg,) = streamed[1]
    assert msg.startswith(f"{f}: line {text[:i].count(chr(10)) + 1}, column ") and "invalid JSON" in msg
    assert spy.restarts == 1  # the message is the whole read's


@pytest.mark.parametrize("mutate", ["truncated", "garbage after", "nul", "not utf-8", "item not an object", "no comma"])
def test_broken_files_give_the_whole_reads_message(tmp_path, monkeypatch, bench_objects, mutate):
    f = write_list(tmp_path / "l.json", bench_objects[:30])
    data = f.read_bytes()
    mid = data.index(b'\n        },\n', len(data) // 2)
    data = {
        "truncated": data[: len(data) - 40],
        "garbage after": data + b"x",
        "nul": data[:mid] + b"\x00" + data[mid:],
        "not utf-8": data[:mid] + b'\n,"x": "\xff"' + data[mid:],
        "item not an object": data[: mid + 11] + b"        5,\n" + data[mid + 11 :],
        "no comma": data[: mid + 10] + data[mid + 11 :],
    }[mutate]
    f.write_bytes(data)
    streamed, whole, spy = both([f], monkeypatch)
    assert streamed == whole and streamed[0] == "InputError", (streamed, whole)
    assert len(streamed[1]) == 1 and streamed[1][0].startswith(f"{f}: ")


def test_depth_limit_holds_inside_items(tmp_path, monkeypatch):
    """orjson rejects more than 1,024 levels counted from the document: an item two levels down
    that a lone decode would accept must still be rejected."""

    def deep(path: Path, levels: int) -> tuple[Path, str]:
        p = pod("deep")
        p["spec"]["x"] = "X"
        write_list(path, [NODE, p], indent=1)
        nest = "[" * levels + "]" * levels
        path.write_text(path.read_text().replace('"X"', nest))
        return path, json.dumps(p, indent=1).replace('"X"', nest)

    # the document, items, the item and its spec are 4 levels: 1020 more in spec.x make 1024
    ok, _ = deep(tmp_path / "ok.json", 1020)
    assert orjson.loads(ok.read_bytes())
    streamed, whole, spy = both([ok], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and spy.restarts == 0 and spy.items == 2
    bad, item = deep(tmp_path / "bad.json", 1021)
    assert orjson.loads(item)  # alone, the item decodes
    streamed, whole, spy = both([bad], monkeypatch)
    assert streamed == whole and streamed[0] == "InputError" and "nesting too deep: more than 1024 levels" in streamed[1][0]


def test_items_key_that_is_not_the_top_level_one(tmp_path, monkeypatch):
    """The first "items": [ in the file belongs to another object: the frame does not verify."""
    doc = {"apiVersion": "v1", "metadata": {"items": [NODE]}, "kind": "List", "items": [pod("a"), pod("b")]}
    f = tmp_path / "l.json"
    f.write_text(json.dumps(doc, indent=4))
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and spy.items == 0
    assert sorted(streamed.pods) == ["default/a", "default/b"] and not streamed.nodes
    # two top-level items keys: a decoder keeps the last one
    f.write_text('{\n    "items": [\n        ' + json.dumps(NODE) + '\n    ],\n    "kind": "List",\n    "items": [\n        '
                 + json.dumps(pod("a")) + '\n    ]\n}\n')
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and list(streamed.pods) == ["default/a"]


def test_a_sentinel_in_the_file_does_not_fool_the_frame(tmp_path, monkeypatch):
    """The frame is verified by the one sentinel it holds: a file holding the sentinel string
    itself cannot make another array pass for the items."""
    f = tmp_path / "l.json"
    f.write_text(json.dumps({"a": {"items": [pod("a")], "b": 1}, "kind": "List", "items": [stream._SENTINEL]}, indent=4))
    streamed, whole, spy = both([f], monkeypatch)
    assert streamed == whole and streamed[0] == "InputError" and "must be a mapping" in streamed[1][0]
    assert spy.items == 0


def test_not_a_list_is_read_whole(tmp_path, monkeypatch):
    f = tmp_path / "l.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", "items": [NODE], **{k: v for k, v in pod("a").items() if k not in ("kind",)}}, indent=4))
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and spy.items == 0 and list(streamed.pods) == ["default/a"]
    f.write_text(json.dumps({"apiVersion": "v1", "items": [NODE]}, indent=4))
    streamed, whole, spy = both([f], monkeypatch)
    assert streamed == whole == ("InputError", [f"{f}: kind: Required value"])


def test_inconsistent_indentation_starts_over(tmp_path, monkeypatch):
    """An item with a line that closes at the items' indentation inside it: the split is found
    wrong (the piece does not decode) and the load starts over with the whole read."""
    f = tmp_path / "l.json"
    odd = json.dumps(pod("b"), indent=4).replace("\n    }", "\n}", 1)
    f.write_text('{\n"apiVersion": "v1",\n"items": [\n' + json.dumps(pod("a"), indent=4) + ",\n" + odd + "\n],\n\"kind\": \"List\"\n}\n")
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and sorted(streamed.pods) == ["default/a", "default/b"]
    assert spy.restarts == 1


def test_yaml_documents_one_at_a_time(tmp_path, monkeypatch, bench_objects):
    f = tmp_path / "c.yaml"
    with open(f, "wb") as out:
        generate.write_yaml(iter(bench_objects), out)
    streamed, whole, spy = both([f], monkeypatch)
    assert isinstance(streamed, load.Snapshot) and streamed == whole and spy.restarts == 0
    assert len(streamed.pods) > 100


@pytest.mark.parametrize(
    "text",
    [
        "kind: Node\napiVersion: v1\nmetadata: {name: a}\n---\nkind: Node\napiVersion: v1\nmetadata: {name: b}\n---\na: [1, 2\n",
        "kind: Node\napiVersion: v1\nmetadata: {name: a}\n---\napiVersion: v1\nmetadata: {name: b}\n---\nkind: Node\n",
        "kind: Node\napiVersion: v1\nmetadata: {name: a}\n---\nkind: Node\n---\nx: !!python/name:os.system\n",
        "apiVersion: v1\nmetadata: {name: b}\n",
        "kind: Node\napiVersion: v1\nmetadata: {name: a}\n---\n- 1\n",
        "---\nkind: Node\napiVersion: v1\nmetadata: {name: a}\n---\n",
    ],
)
def test_yaml_errors_are_the_whole_reads(tmp_path, monkeypatch, text):
    f = tmp_path / "a.yaml"
    f.write_text(text)
    g = write_list(tmp_path / "b.json", [pod("p")])
    streamed, whole, spy = both([f, g], monkeypatch)
    assert streamed == whole


def test_one_scenario_only_whatever_the_order_of_errors(tmp_path, monkeypatch):
    scenario = (SCENARIOS / "hpa-scale-up-retained-volume.yaml").read_text()
    f = tmp_path / "a.yaml"
    # a scenario (flattened when the next document is read), then one that does not parse
    f.write_text(scenario + "\n---\nkind: Service\n---\na: [1, 2\n")
    streamed, whole, spy = both([f, SCENARIOS / "rollout-hostname-anti-affinity.yaml"], monkeypatch)
    assert streamed == whole and streamed[0] == "InputError" and len(streamed[1]) == 1 and "invalid YAML" in streamed[1][0]


# --------------------------------------------------------------------------- the splitter itself


@pytest.mark.parametrize("chunk", [1, 7, 64, 4096])
def test_split_at_any_chunk_size(tmp_path, bench_objects, chunk):
    """Chunk boundaries anywhere (inside an item, a separator, the whitespace): the items are
    the whole decode's."""
    objs = copy.deepcopy(bench_objects[:25])
    f = tmp_path / "l.json"
    text = json.dumps({"apiVersion": "v1", "items": objs, "kind": "List"}, indent=4)
    text = text.replace("\n    ],", "\n    \n\n    ],").replace("},\n        {", "}\n        ,\n\n        {")
    f.write_text(text)
    with stream.JsonList.open(str(f), f.stat().st_size, chunk) as lst:
        assert lst.frame == {"apiVersion": "v1", "kind": "List"}
        assert list(lst.items()) == orjson.loads(f.read_bytes())["items"]


@pytest.mark.parametrize("chunk", [1, 7, 64, 4096])
@pytest.mark.parametrize("before_q", ["", " \n\t "])
def test_compact_last_item_at_any_chunk_size(tmp_path, bench_objects, chunk, before_q):
    """Compact JSON: the last item ends at the "}" before the items' closing "]" (whitespace
    between or not), even when it holds candidate ends of its own (two owner references: a
    nested "},{\"apiVersion\":"), at any chunk boundary."""
    objs = copy.deepcopy(bench_objects[:12])
    owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "u1"}
    objs[-1]["metadata"]["ownerReferences"] = [owner, {**owner, "name": "b", "uid": "u2"}]
    text = json.dumps({"apiVersion": "v1", "items": objs, "kind": "List"}, separators=(",", ":"))
    assert text.count('},{"apiVersion":') == len(objs)  # the items' own separators and one nested
    i = text.rindex("}]")
    f = tmp_path / "c.json"
    f.write_text(text[: i + 1] + before_q + text[i + 1 :])
    with stream.JsonList.open(str(f), f.stat().st_size, chunk) as lst:
        assert lst.compact
        assert list(lst.items()) == orjson.loads(f.read_bytes())["items"]


def test_a_wrong_split_is_never_used(tmp_path):
    f = tmp_path / "l.json"
    f.write_text('{\n    "items": [\n        {"a": "\\n        }"},\n        {"b": [\n        }\n    ],\n    "kind": "List"\n}\n')
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(f.read_bytes())
    with stream.JsonList.open(str(f), f.stat().st_size) as lst, pytest.raises(stream.Broken):
        list(lst.items())


def test_read_objects_stays_whole(tmp_path, bench_objects):
    f = write_list(tmp_path / "l.json", bench_objects[:20])
    raw = read_objects([str(f)], STREAM)
    assert raw.objects == bench_objects[:20]


# --------------------------------------------------------------------------- memos


def test_daemonset_pods_share_the_validation_memo_and_keep_their_errors():
    from planner.validation import core, validate_object

    def ds_pod(name: str, node: str) -> dict:
        aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}
        return pod(name, node if node.islower() else "n1", affinity=aff)

    core._VALID_SPECS.clear()
    assert validate_object(ds_pod("a", "node-1")) == []
    n = len(core._VALID_SPECS)
    assert validate_object(ds_pod("b", "node-2")) == [] and len(core._VALID_SPECS) == n  # a hit
    bad = ds_pod("c", "Bad_Node")
    hit = validate_object(bad)
    core._VALID_SPECS.clear()
    assert hit == validate_object(bad) != []  # the same message as a full validation
    assert "matchFields[0].values[0]: Invalid value" in hit[0]


def test_converter_shares_pod_specs_but_not_per_pod_fields():
    from planner.convert import Converter

    conv = Converter()
    vols = [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}}, {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}}]
    a = conv.pod(pod("web-0", "n1", volumes=vols))
    vols1 = copy.deepcopy(vols)
    vols1[0]["persistentVolumeClaim"]["claimName"] = "data-web-1"
    b = conv.pod(pod("web-1", "n2", volumes=vols1))
    assert a.spec.requests is b.spec.requests and a.spec.node_name == "n1" and b.spec.node_name == "n2"
    assert [v.claim_name for v in b.spec.volumes] == ["data-web-1", "web-1-scratch"]
    fresh = Converter()._pod_spec(pod("web-1", "n2", volumes=vols1)["spec"], "web-1")
    assert b.spec == fresh
    c = conv.pod(pod("web-2", "n2", volumes=vols1, nodeSelector={"disk": "ssd"}))
    assert c.spec.node_selector == {"disk": "ssd"} and b.spec.node_selector == {}
