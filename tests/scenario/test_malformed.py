"""Malformed scenarios: every bad input is a one-line error and exit code 2, never a crash.

A property test mutates the bundled scenarios (a value at a random path replaced by a value of
another type, or a key or item deleted) and runs ``planner validate`` and ``planner render`` on
the result; the crashes it found are kept below as explicit cases with their messages."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_cli
from tests.mutation import DELETE, Path_, set_at
from tests.mutation import paths as all_paths
from tests.scenario.common import GP3, SCENARIOS, ZONES, deploy, errors_of, expand, scenario, sts

REPLACEMENTS: tuple[Any, ...] = ("x", 7, ["x"], {"x": "y"}, None, "", [], {}, True, -1, 1.5, float("inf"))

_DOCS = {p.name: yaml.safe_load(p.read_text()) for p in SCENARIOS}






@st.composite
def mutated_scenarios(draw: st.DrawFn) -> tuple[str, dict, list[tuple[Path_, Any]]]:
    name = draw(st.sampled_from(sorted(_DOCS)))
    doc = copy.deepcopy(_DOCS[name])
    done = []
    for _ in range(draw(st.integers(1, 3))):
        paths = all_paths(doc)
        if not paths:
            break
        path = paths[draw(st.integers(0, len(paths) - 1))]
        value = draw(st.sampled_from((DELETE,) + REPLACEMENTS))
        set_at(doc, path, value)
        done.append((path, "<deleted>" if value is DELETE else value))
    return name, doc, done


def _assert_clean(args: list[str], what: str) -> None:
    r = run_cli(args)
    text = r.out + r.err
    assert r.code in (0, 2), f"{what}: exit {r.code}\n{text[-2000:]}"
    assert "internal error" not in text, f"{what}:\n{text[-2000:]}"
    assert "Traceback" not in text, f"{what}:\n{text[-2000:]}"


@pytest.mark.slow  # a fuzz campaign (tens of seconds)
@settings(max_examples=300, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated_scenarios())
def test_mutated_scenarios_fail_cleanly(case: tuple[str, dict, list[tuple[Path_, Any]]]) -> None:
    name, doc, done = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(yaml.safe_dump(doc, sort_keys=False))
        what = f"{name} with {done}"
        _assert_clean(["validate", path], what)
        _assert_clean(["render", path], what)


def _search(**extra: Any) -> dict:
    """A StatefulSet scenario with its pods placed by zone (placement reads the template)."""
    doc = scenario(
        zones=ZONES,
        nodePools=[{"name": "general", "count": 1}],
        storageClasses=[GP3],
        objects=[sts()],
        pods=[{"workload": "statefulset/search", "ordinal": 0, "zone": "zone-a"}],
    )
    doc.update(extra)
    return doc


def _web(**extra: Any) -> dict:
    doc = scenario(zones=ZONES, nodePools=[{"name": "general", "count": 1}], objects=[deploy()],
                   pods=[{"workload": "deployment/web", "count": 2, "zone": "zone-a"}])
    doc.update(extra)
    return doc


def _set(doc: dict, path: str, value: Any) -> dict:
    """``doc`` with the value at a dotted path (list indexes as numbers) set (DELETE: removed)."""
    keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
    set_at(doc, tuple(keys), value)
    return doc


REQ = "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]}]}]}}}


def _affinity(doc: dict) -> dict:
    doc["objects"][0]["spec"]["template"]["spec"]["affinity"] = copy.deepcopy(AFFINITY)
    return doc


def _revision(template: dict) -> dict:
    return _web(revisions=[{"workload": "deployment/web", "name": "old", "template": template}])


def _user_node(spec: dict) -> dict:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"topology.kubernetes.io/zone": "zone-a"}}, "spec": spec}
    return _web(objects=[deploy(), node])


QUANTITY = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
             "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
# (the input, the error lines `planner validate` prints, in order); each crashed the expansion
# with an internal error before (the last four were reported by validation already, or not at all)
CASES: list[tuple[str, dict, list[str]]] = [
    ("template.metadata string", _set(_web(), "objects.0.spec.template.metadata", "x"),
     ['Scenario t: objects[0].spec.template.metadata: Invalid value: "x": must be a mapping, not a string']),
    ("template.metadata null", _set(_web(), "objects.0.spec.template.metadata", None), [
        "Deployment default/web: spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`",
        'ReplicaSet default/web-65d779b65f: spec.template.metadata.labels: Invalid value: {"pod-template-hash":"65d779b65f"}: '
        "`selector` does not match template `labels`"]),
    ("template.metadata.labels list", _set(_web(), "objects.0.spec.template.metadata.labels", ["x"]),
     ["Scenario t: objects[0].spec.template.metadata.labels: Invalid value: list: must be a mapping, not a list"]),
    ("selector.matchLabels list", _set(_web(), "objects.0.spec.selector.matchLabels", ["x"]),
     ["Scenario t: objects[0].spec.selector.matchLabels: Invalid value: list: must be a mapping, not a list"]),
    ("containers not a list", _set(_web(), "objects.0.spec.template.spec.containers", 7),
     ["Scenario t: objects[0].spec.template.spec.containers: Invalid value: 7: must be a list, not a number"]),
    ("initContainers not a list", _set(_search(), "objects.0.spec.template.spec.initContainers", True),
     ["Scenario t: objects[0].spec.template.spec.initContainers: Invalid value: true: must be a list, not a boolean"]),
    ("tolerations not a list", _set(_web(), "objects.0.spec.template.spec.tolerations", 7),
     ["Scenario t: objects[0].spec.template.spec.tolerations: Invalid value: 7: must be a list, not a number"]),
    ("pod volumes not a list", _set(_search(), "objects.0.spec.template.spec.volumes", 7),
     ["Scenario t: objects[0].spec.template.spec.volumes: Invalid value: 7: must be a list, not a number"]),
    ("nodeSelectorTerms not a list", _set(_affinity(_web()), f"objects.0.{REQ}.nodeSelectorTerms", True),
     [f"Scenario t: objects[0].{REQ}.nodeSelectorTerms: Invalid value: true: must be a list, not a boolean"]),
    ("matchExpressions not a list", _set(_affinity(_web()), f"objects.0.{REQ}.nodeSelectorTerms.0.matchExpressions", 7),
     [f"Scenario t: objects[0].{REQ}.nodeSelectorTerms[0].matchExpressions: Invalid value: 7: must be a list, not a number"]),
    ("values not a list", _set(_affinity(_web()), f"objects.0.{REQ}.nodeSelectorTerms.0.matchExpressions.0.values", -1),
     [f"Scenario t: objects[0].{REQ}.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: -1: must be a list, not a number"]),
    ("volumeClaimTemplates not a list", _set(_search(), "objects.0.spec.volumeClaimTemplates", 1.5),
     ["Scenario t: objects[0].spec.volumeClaimTemplates: Invalid value: 1.5: must be a list, not a number"]),
    ("volumeClaimTemplate accessModes", _set(_search(), "objects.0.spec.volumeClaimTemplates.0.spec.accessModes", True),
     ["Scenario t: objects[0].spec.volumeClaimTemplates[0].spec.accessModes: Invalid value: true: must be a list, not a boolean"]),
    ("volumeClaimTemplate storageClassName", _set(_search(), "objects.0.spec.volumeClaimTemplates.0.spec.storageClassName", ["x"]),
     ["Scenario t: objects[0].spec.volumeClaimTemplates[0].spec.storageClassName: Invalid value: list: must be a string, not a list"]),
    ("revision template.metadata", _revision({"metadata": "x"}),
     ['Scenario t: revisions[0].template.metadata: Invalid value: "x": must be a mapping, not a string']),
    ("volumes accessModes", _search(volumes=[{"claim": "data-search-0", "zone": "zone-a", "accessModes": 7}]),
     ["Scenario t: volumes[0].accessModes: Invalid value: 7: must be a list, not a number"]),
    ("volumes storageClass", _search(volumes=[{"claim": "data-search-0", "zone": "zone-a", "storageClass": ["x"]}]),
     ["Scenario t: volumes[0].storageClass: Invalid value: list: must be a string, not a list"]),
    ("volumes namespace", _search(volumes=[{"claim": "data-search-9", "zone": "zone-a", "namespace": ["x"]}]),
     ["Scenario t: volumes[0].namespace: Invalid value: list: must be a string, not a list"]),
    ("objects Node taints", _user_node({"taints": 7}),
     ["Node n1: spec.taints: Invalid value: 7: must be of type array"]),
    ("revision template.metadata, a pod of it", _web(revisions=[{"workload": "deployment/web", "name": "old", "template": {"metadata": "x"}}],
                                                      pods=[{"workload": "deployment/web", "revision": "old", "zone": "zone-a"}]),
     ['Scenario t: revisions[0].template.metadata: Invalid value: "x": must be a mapping, not a string']),
    ("capacity infinite", _web(nodePools=[{"name": "general", "capacity": {"cpu": float("inf")}}]),
     [f"Scenario t: nodePools[0].capacity.cpu: Invalid value: inf: {QUANTITY}"]),
    ("capacity nan", _web(nodePools=[{"name": "general", "capacity": {"memory": float("nan")}}]),
     [f"Scenario t: nodePools[0].capacity.memory: Invalid value: nan: {QUANTITY}"]),
    ("volumes size infinite", _search(volumes=[{"claim": "data-search-0", "zone": "zone-a", "size": float("inf")}]),
     [f"Scenario t: volumes[0].size: Invalid value: inf: {QUANTITY}"]),
    ("volumeClaimTemplate storage infinite", _set(_search(), "objects.0.spec.volumeClaimTemplates.0.spec.resources.requests.storage", float("inf")), [
        f"StatefulSet default/search: spec.volumeClaimTemplates[0].spec.resources.requests[storage]: Invalid value: +Inf: {QUANTITY}",
        f'PersistentVolumeClaim default/data-search-0: spec.resources.requests[storage]: Invalid value: "inf": {QUANTITY}',
        f'PersistentVolume pv-data-search-0: spec.capacity[storage]: Invalid value: "inf": {QUANTITY}']),
    ("maxSurge a non-ASCII digit", _set(_web(), "objects.0.spec.strategy", {"rollingUpdate": {"maxSurge": "\u00b2"}}),
     ["Deployment default/web: spec.strategy.rollingUpdate.maxSurge: Invalid value: \"\u00b2\": a valid percent string must be a numeric string "
      "followed by an ending '%' (e.g. '1%' or '93%', regex used for validation is '[0-9]+%')"]),
    ("claim ordinal a non-ASCII digit", _search(volumes=[{"claim": "data-search-\u00b2", "zone": "zone-a", "size": "1Gi"}]), [
        f'PersistentVolumeClaim default/data-search-\u00b2: metadata.name: Invalid value: "data-search-\u00b2": {SUBDOMAIN}',
        f'PersistentVolume pv-data-search-\u00b2: metadata.name: Invalid value: "pv-data-search-\u00b2": {SUBDOMAIN}']),
    ("template label infinite", _set(_web(), "objects.0.spec.template.metadata.labels.app", float("inf")),
     ["Scenario t: objects[0].spec.template.metadata.labels.app: Invalid value: inf: must be a finite number"]),
    ("template request nan", _set(_search(), "objects.0.spec.template.spec.containers.0.resources.requests.cpu", float("nan")),
     ["Scenario t: objects[0].spec.template.spec.containers[0].resources.requests.cpu: Invalid value: nan: must be a finite number"]),
    ("revision template infinite", _revision({"spec": {"containers": [{"name": "web", "image": "x", "resources": {"limits": {"cpu": float("-inf")}}}]}}),
     ["Scenario t: revisions[0].template.spec.containers[0].resources.limits.cpu: Invalid value: -inf: must be a finite number"]),
    # not crashes, but read by the expansion: reported the same way
    ("statefulset template labels", _set(_search(), "objects.0.spec.template.metadata.labels", 7),
     ["Scenario t: objects[0].spec.template.metadata.labels: Invalid value: 7: must be a mapping, not a number"]),
    ("statefulset matchLabels", _set(_search(), "objects.0.spec.selector.matchLabels", 1.5),
     ["Scenario t: objects[0].spec.selector.matchLabels: Invalid value: 1.5: must be a mapping, not a number"]),
    ("revision template containers", _revision({"spec": {"containers": 7}}),
     ["Scenario t: revisions[0].template.spec.containers: Invalid value: 7: must be a list, not a number"]),
    ("volumes volumeName", _search(volumes=[{"claim": "data-search-9", "zone": "zone-a", "volumeName": {"x": 1}}]),
     ["Scenario t: volumes[0].volumeName: Invalid value: dict: must be a string, not a mapping"]),
]


@pytest.mark.parametrize(("doc", "lines"), [pytest.param(doc, lines, id=name) for name, doc, lines in CASES])
def test_malformed_workload_is_a_field_error(tmp_path: Path, doc: dict, lines: list[str]) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    r = run_cli(["validate", path])
    assert (r.code, r.err, r.out.splitlines()) == (2, "", [f"invalid: {len(lines)} error(s)", *lines])
    r = run_cli(["render", path])
    assert (r.code, r.out, r.err.splitlines()) == (2, "", [f"error: {m}" for m in lines])


def test_a_well_formed_affinity_still_places() -> None:
    """The checks leave well-formed templates alone: zone-a's node admits the pods."""
    pods = [o for o in expand(_affinity(_web())) if o["kind"] == "Pod"]
    assert [p["spec"]["nodeName"] for p in pods] == ["general-zone-a-0", "general-zone-a-0"]
    assert errors_of(_set(_affinity(_web()), f"objects.0.{REQ}.nodeSelectorTerms.0.matchExpressions.0.values", ["zone-b"])) == [
        'Scenario t: pods[0].zone: Invalid value: "zone-a": no node in this zone admits the pod (taints, nodeSelector, node affinity, cordoned)']
