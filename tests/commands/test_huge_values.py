"""Huge numbers in every field a user writes, through every command that reads it.

Each case writes one field of a small, valid snapshot (two nodes, a Deployment with an HPA and a
PodDisruptionBudget, a StatefulSet, a PriorityClass, a Pod), of a scenario, of a steps file, or
one command-line argument as a huge number: int32 max and one past it, int64 max and past it,
thousands of digits, ``1e999999``, ``9999999999999999999Ei``, percentages like
``999999999999%``. Every command that reads the field (validate, render, explain, check,
capacity, simulate, remediate, audit) runs in-process and must answer (exit 0 or 1) or reject
the input (exit 2, with a one-line error naming the object and the field), never a traceback nor
an internal error, within a wall-clock bound. The bound (BOUND_SECONDS) is against runaway work
on a loaded machine, not a speed assertion: most answers take well under a second alone. The
nodes are small (room for ten of these pods each), so that what the replays do for counts past
the cluster's bound (one replica more than it, replayed pod by pod) stays small too.

The suite runs each field with the values of SUITE_VALUES (about a minute); PLANNER_HUGE_VALUES=all
runs every value (``make fuzz`` does)."""

from __future__ import annotations

import copy
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import run_cli

BOUND_SECONDS = 20.0

I32 = 2**31 - 1
I64 = 2**63 - 1
DIGITS = "1" + "0" * 5000  # an integer of 5,001 digits (past Python's 4,300-digit str/int limit)

SENTINEL = "ZZHUGEZZ"

NODE = {
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "", "labels": {"topology.kubernetes.io/zone": "", "kubernetes.io/hostname": ""}},
    "status": {
        "capacity": {"cpu": "1", "memory": "2Gi", "pods": "110", "ephemeral-storage": "100Gi"},
        "allocatable": {"cpu": "1", "memory": "2Gi", "pods": "110", "ephemeral-storage": "100Gi"},
    },
}


def _node(name: str, zone: str) -> dict:
    n = copy.deepcopy(NODE)
    n["metadata"] = {"name": name, "labels": {"topology.kubernetes.io/zone": zone, "kubernetes.io/hostname": name}}
    return n


def _pod_spec(image: str) -> dict:
    return {
        "terminationGracePeriodSeconds": 30,
        "containers": [{
            "name": "c", "image": image, "ports": [{"containerPort": 80}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "200m", "memory": "256Mi"}},
        }],
        "topologySpreadConstraints": [{
            "maxSkew": 1, "minDomains": 2, "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": image}},
        }],
        "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}],
    }


def base_objects() -> list[dict]:
    web = _pod_spec("web")
    db = _pod_spec("db")
    probe = _pod_spec("probe")
    return [
        _node("n1", "a"),
        _node("n2", "b"),
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default", "uid": "u1"},
         "spec": {"replicas": 2, "minReadySeconds": 5, "progressDeadlineSeconds": 600, "revisionHistoryLimit": 10,
                  "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
                  "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}}, "spec": web}}},
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default", "uid": "u2"},
         "spec": {"replicas": 2, "serviceName": "db", "minReadySeconds": 0, "ordinals": {"start": 0},
                  "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}},
                  "selector": {"matchLabels": {"app": "db"}},
                  "template": {"metadata": {"labels": {"app": "db"}}, "spec": db},
                  "volumeClaimTemplates": [{"metadata": {"name": "data"},
                                            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
         "metadata": {"name": "std", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
         "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"},
        {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 1, "maxReplicas": 4,
                  "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
         "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": "default"}, "spec": probe},
    ]


# --------------------------------------------------------------------------- the cases

OBJECT_NAMES = {
    "Deployment": "Deployment default/web", "StatefulSet": "StatefulSet default/db", "Pod": "Pod default/probe",
    "HorizontalPodAutoscaler": "HorizontalPodAutoscaler default/web", "PodDisruptionBudget": "PodDisruptionBudget default/web",
    "PriorityClass": "PriorityClass high", "Node": "Node n1",
}
POD_SPEC = {"Deployment": ("spec", "template", "spec"), "StatefulSet": ("spec", "template", "spec"), "Pod": ("spec",)}

Edit = tuple[str, tuple[Any, ...], str]  # (kind, path in the object, the value as YAML text)


@dataclass(frozen=True)
class Case:
    id: str
    edits: tuple[Edit, ...]
    field: str | tuple[str, ...]  # the field an exit-2 message must name (or one of these)
    workload: str = "deployment/web"
    objects: tuple[str, ...] = ()  # the objects an exit-2 message may name (default: the edited ones)


def _ints(bits: int = 32) -> list[tuple[str, str]]:
    """Integer values at and past the field's range (int32 or int64), past Python's 4,300-digit
    conversion limit, and an integral float of 309 digits."""
    if bits == 64:
        return [("int64-max", str(I64)), ("int64-max+1", str(I64 + 1)), ("int64-min-1", str(-(I64 + 2))), ("5001-digits", DIGITS)]
    return [("int32-max", str(I32)), ("int32-max+1", str(I32 + 1)), ("5001-digits", DIGITS), ("float-1e308", "1.0e+308")]


PERCENTS = [("percent-12-digits", '"999999999999%"'), ("percent-5001-digits", f'"{DIGITS}%"'),
            ("percent-int64-max+1", f'"{I64 + 1}%"')]
QUANTITIES = [("5001-digits", f'"{DIGITS}"'), ("1e999999", '"1e999999"'), ("9999999999999999999Ei", '"9999999999999999999Ei"'),
              ("number-5001-digits", DIGITS), ("1e-999999", '"1e-999999"')]


def _pod_cases() -> list[Case]:
    """Pod-spec fields: written in the Deployment's template (read by every command through it)
    and in the probe Pod's spec (explain's pod)."""
    out: list[Case] = []
    fields: list[tuple[str, tuple[Any, ...], list[tuple[str, str]]]] = [
        ("terminationGracePeriodSeconds", ("terminationGracePeriodSeconds",), _ints(64)),
        ("priority", ("priority",), _ints()),
        ("containerPort", ("containers", 0, "ports", 0, "containerPort"), _ints()),
        ("hostPort", ("containers", 0, "ports", 0, "hostPort"), _ints()),
        ("maxSkew", ("topologySpreadConstraints", 0, "maxSkew"), _ints()),
        ("minDomains", ("topologySpreadConstraints", 0, "minDomains"), _ints()),
        ("tolerationSeconds", ("tolerations", 0, "tolerationSeconds"), _ints(64)),
        ("activeDeadlineSeconds", ("activeDeadlineSeconds",), _ints(64)),
    ]
    for name, path, vals in fields:
        for vid, v in vals:
            for kind in ("Deployment", "Pod"):
                if name == "activeDeadlineSeconds" and kind != "Pod":
                    continue  # forbidden in a Deployment's template whatever its value
                out.append(Case(f"{kind}.{name}={vid}", ((kind, POD_SPEC[kind] + path, v),), name))
    for res in ("requests", "limits"):
        for r in ("cpu", "memory", "example.com/widget"):
            for vid, v in QUANTITIES:
                for kind in ("Deployment", "Pod"):
                    edits: tuple[Edit, ...] = ((kind, POD_SPEC[kind] + ("containers", 0, "resources", res, r), v),)
                    if r == "example.com/widget":  # an extended resource's request must equal its limit
                        other = "limits" if res == "requests" else "requests"
                        edits += ((kind, POD_SPEC[kind] + ("containers", 0, "resources", other, r), v),)
                    # a limit below the request is reported on the requests
                    out.append(Case(f"{kind}.{res}.{r}={vid}", edits, ("requests", "limits")))
    return out


def _workload_cases() -> list[Case]:
    out: list[Case] = []
    for vid, v in _ints():
        out.append(Case(f"Deployment.replicas={vid}", (("Deployment", ("spec", "replicas"), v),), "spec.replicas"))
        out.append(Case(f"StatefulSet.replicas={vid}", (("StatefulSet", ("spec", "replicas"), v),), "spec.replicas", "statefulset/db"))
        for f in ("minReadySeconds", "progressDeadlineSeconds", "revisionHistoryLimit"):
            # progressDeadlineSeconds must be greater than minReadySeconds
            out.append(Case(f"Deployment.{f}={vid}", (("Deployment", ("spec", f), v),), (f"spec.{f}", "spec.progressDeadlineSeconds")))
        out.append(Case(f"StatefulSet.minReadySeconds={vid}", (("StatefulSet", ("spec", "minReadySeconds"), v),), "spec.minReadySeconds", "statefulset/db"))
        out.append(Case(f"StatefulSet.ordinals.start={vid}", (("StatefulSet", ("spec", "ordinals", "start"), v),), "spec.ordinals.start", "statefulset/db"))
        out.append(Case(f"StatefulSet.partition={vid}", (("StatefulSet", ("spec", "updateStrategy", "rollingUpdate", "partition"), v),),
                        "spec.updateStrategy.rollingUpdate.partition", "statefulset/db"))
    for vid, v in [*_ints(), *PERCENTS]:
        for f in ("maxSurge", "maxUnavailable"):
            out.append(Case(f"Deployment.{f}={vid}", (("Deployment", ("spec", "strategy", "rollingUpdate", f), v),), f"spec.strategy.rollingUpdate.{f}"))
        out.append(Case(f"StatefulSet.maxUnavailable={vid}", (("StatefulSet", ("spec", "updateStrategy", "rollingUpdate", "maxUnavailable"), v),),
                        "spec.updateStrategy.rollingUpdate.maxUnavailable", "statefulset/db"))
    # the largest valid StatefulSet: ordinals from int32 max, replicas int32 max
    out.append(Case("StatefulSet.ordinals.start+replicas=int32-max", (("StatefulSet", ("spec", "ordinals", "start"), str(I32)),
                                                                        ("StatefulSet", ("spec", "replicas"), str(I32))),
                    "spec", "statefulset/db"))
    out.append(Case("StatefulSet.ordinals.start=int32-max-1,replicas=2", (("StatefulSet", ("spec", "ordinals", "start"), str(I32 - 1)),),
                    "spec", "statefulset/db"))
    for vid, v in QUANTITIES:
        out.append(Case(f"StatefulSet.volumeClaimTemplate.storage={vid}",
                        (("StatefulSet", ("spec", "volumeClaimTemplates", 0, "spec", "resources", "requests", "storage"), v),),
                        "storage", "statefulset/db"))
    return out


def _policy_cases() -> list[Case]:
    out: list[Case] = []
    for vid, v in _ints():
        out.append(Case(f"HPA.minReplicas={vid}", (("HorizontalPodAutoscaler", ("spec", "minReplicas"), v),), ("spec.minReplicas", "spec.maxReplicas")))
        out.append(Case(f"HPA.maxReplicas={vid}", (("HorizontalPodAutoscaler", ("spec", "maxReplicas"), v),), "spec.maxReplicas"))
        out.append(Case(f"HPA.min-and-max={vid}", (("HorizontalPodAutoscaler", ("spec", "minReplicas"), v),
                                               ("HorizontalPodAutoscaler", ("spec", "maxReplicas"), v)), "spec."))
        out.append(Case(f"PriorityClass.value={vid}", (("PriorityClass", ("value",), v),
                                                        ("Deployment", ("spec", "template", "spec", "priorityClassName"), '"high"')), "value"))
    for vid, v in [*_ints(), *PERCENTS]:
        out.append(Case(f"PDB.minAvailable={vid}", (("PodDisruptionBudget", ("spec", "minAvailable"), v),), "spec.minAvailable"))
        out.append(Case(f"PDB.maxUnavailable={vid}", (("PodDisruptionBudget", ("spec", "minAvailable"), "null"),
                                                      ("PodDisruptionBudget", ("spec", "maxUnavailable"), v)), "spec.maxUnavailable"))
    return out


def _node_cases() -> list[Case]:
    out: list[Case] = []
    for where in ("allocatable", "capacity"):
        for r in ("cpu", "memory", "pods"):
            for vid, v in QUANTITIES:
                out.append(Case(f"Node.{where}.{r}={vid}", (("Node", ("status", where, r), v),), f"status.{where}"))
    # a node that could hold any count (every resource huge), and the workload asking int32 max:
    # the cluster's bound rules nothing out, and planner refuses to plan that many pods
    huge_node = ("status", "spec.replicas", "spec.maxReplicas")
    names = (OBJECT_NAMES["Node"], OBJECT_NAMES["Deployment"], OBJECT_NAMES["StatefulSet"], OBJECT_NAMES["HorizontalPodAutoscaler"])
    for vid, v in QUANTITIES[:3]:
        edits: tuple[Edit, ...] = tuple(("Node", ("status", w, r), v) for w in ("allocatable", "capacity") for r in ("cpu", "memory", "pods"))
        out.append(Case(f"Node.everything={vid},replicas=int32-max", (*edits, ("Deployment", ("spec", "replicas"), str(I32))), huge_node, objects=names))
        out.append(Case(f"Node.everything={vid},sts-replicas=int32-max", (*edits, ("StatefulSet", ("spec", "replicas"), str(I32))),
                        huge_node, "statefulset/db", objects=names))
        out.append(Case(f"Node.everything={vid},hpa-max=int32-max", (*edits, ("HorizontalPodAutoscaler", ("spec", "maxReplicas"), str(I32))),
                        huge_node, objects=names))
        out.append(Case(f"Node.everything={vid},hpa-min-and-max=int32-max", (*edits, ("HorizontalPodAutoscaler", ("spec", "maxReplicas"), str(I32)),
                                                                          ("HorizontalPodAutoscaler", ("spec", "minReplicas"), str(I32))),
                        huge_node, objects=names))
    return out


OBJECT_CASES = [*_workload_cases(), *_policy_cases(), *_pod_cases(), *_node_cases()]

# The suite runs every field with one value of each kind of trouble (valid but at the top of the
# range, past the range, past Python's digit limit); PLANNER_HUGE_VALUES=all runs every value of
# every field (make fuzz does), about four times as long.
ALL = os.environ.get("PLANNER_HUGE_VALUES") == "all"
SUITE_VALUES = ("int32-max", "int64-max", "int64-max+1", "5001-digits", "9999999999999999999Ei", "percent-12-digits",
                "percent-5001-digits")


def in_suite(case_id: str) -> bool:
    """Run by default: the case's value is one of SUITE_VALUES, or it is a replica count, or a
    combination of values."""
    if ALL or "=" not in case_id or "," in case_id or "eplicas=" in case_id:  # replica counts: every value
        return True
    return case_id.split("=", 1)[1] in SUITE_VALUES


def selected(cases: list[Any]) -> list[Any]:
    return [c for c in cases if in_suite(c.id)]


def write_snapshot(case: Case, path: Path) -> None:
    """The base snapshot with the case's values written as YAML text (a value of thousands of
    digits cannot go through yaml.safe_dump: Python refuses to print it)."""
    objs = base_objects()
    by_kind = {}
    for o in objs:
        by_kind.setdefault(o["kind"], o)
    literals: list[str] = []
    for kind, fpath, text in case.edits:
        node: Any = by_kind[kind]
        for k in fpath[:-1]:
            node = node.setdefault(k, {}) if isinstance(k, str) else node[k]
        node[fpath[-1]] = f"{SENTINEL}{len(literals)}"
        literals.append(text)
    out = yaml.safe_dump_all(objs, sort_keys=False, width=1 << 20)
    for i in reversed(range(len(literals))):
        out = out.replace(f"{SENTINEL}{i}", literals[i])
    path.write_text(out)


def commands(f: str, workload: str) -> list[list[str]]:
    quick = ["--time-limit", "10", "--workers", "1"]
    return [
        ["validate", f],
        ["render", f],
        ["explain", f, "--pod", "default/probe"],
        ["check", f, "-w", workload, *quick],
        ["capacity", f, "-w", workload, "--add-nodes", *quick],
        ["simulate", f, "-w", workload, "--rollout"],
        ["remediate", f, "-w", workload, "--rollout", "--top", "2", "--time-limit", "10"],
        ["audit", f],
    ]


def run_timed(args: list[str]) -> tuple[Any, float]:
    t = time.monotonic()
    r = run_cli(args)
    return r, time.monotonic() - t


def assert_answered_or_rejected(args: list[str], r: Any, took: float, names: tuple[str, ...], field: str | tuple[str, ...]) -> None:
    what = f"planner {' '.join(a if len(a) < 60 else a[:20] + '...' for a in args)}"
    text = r.out + r.err
    assert r.code in (0, 1, 2), f"{what}: exit {r.code}\n{text[-3000:]}"
    assert "Traceback" not in text and "internal error" not in text, f"{what}:\n{text[-3000:]}"
    assert took < BOUND_SECONDS, f"{what}: {took:.1f} s"
    if r.code == 2:
        # errors: "error: ..." lines on stderr; validate lists them on stdout under "invalid: N error(s)"
        lines = r.err.splitlines() + (r.out.splitlines()[1:] if args[0] == "validate" else [])
        errors = [line for line in lines if not line.startswith("note:")]
        assert errors, f"{what}: exit 2 without an error line\n{r.err[-3000:]}"
        assert all(len(e) < 20000 for e in errors), f"{what}: an error line of {max(map(len, errors))} characters"
        fields = (field,) if isinstance(field, str) else field
        assert any(any(n in e for n in names) and any(f in e for f in fields) for e in errors), \
            f"{what}: no error names {names} and {fields}\n{r.err[-3000:]}"


@pytest.mark.slow  # about 7 commands x 500 cases
@pytest.mark.parametrize("case", selected(OBJECT_CASES), ids=lambda c: c.id)
def test_huge_value_in_a_field(tmp_path: Path, case: Case) -> None:
    f = tmp_path / "snapshot.yaml"
    write_snapshot(case, f)
    names = case.objects or tuple(OBJECT_NAMES[k] for k, _, _ in case.edits)
    run_all(commands(str(f), case.workload), names, case.field)


LOADERS = ("validate", "render", "check")  # read_objects + validation, and load_snapshot (every other command)


def run_all(args_list: list[list[str]], names: tuple[str, ...], field: str | tuple[str, ...]) -> None:
    """Every command in turn.  An input that validation rejects is rejected by every command the
    same way (one loader, before any engine): unless PLANNER_HUGE_VALUES=all, only validate,
    render and check run then, which cover the two ways the commands read their input."""
    rejected = False
    for args in args_list:
        if rejected and not ALL and args[0] not in LOADERS:
            continue
        r, took = run_timed(args)
        assert_answered_or_rejected(args, r, took, names, field)
        rejected = rejected or (args[0] == "validate" and r.code == 2)


# --------------------------------------------------------------------------- scenarios and steps

SCENARIO = {
    "apiVersion": "planner.dev/v1alpha1", "kind": "Scenario", "metadata": {"name": "huge"},
    "zones": ["a", "b"],
    "nodePools": [{"name": "general", "count": 1, "capacity": {"cpu": "1", "memory": "2Gi", "pods": "110"}}],
    "storageClasses": [{"name": "std", "default": True}],
    "objects": [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                  "template": {"metadata": {"labels": {"app": "web"}},
                               "spec": {"containers": [{"name": "c", "image": "web", "resources": {"requests": {"cpu": "100m"}}}]}}}},
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
         "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                  "template": {"metadata": {"labels": {"app": "db"}},
                               "spec": {"containers": [{"name": "c", "image": "db", "resources": {"requests": {"cpu": "100m"}}}]}},
                  "volumeClaimTemplates": [{"metadata": {"name": "data"},
                                            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe"},
         "spec": {"containers": [{"name": "c", "image": "probe"}]}},
    ],
    "pods": [{"workload": "deployment/web", "count": 2, "zones": ["a", "b"]},
             {"workload": "statefulset/db", "ordinals": [0, 1], "zones": ["a", "b"]}],
    "volumes": [{"claim": "data-db-5", "zone": "a"}],
    "steps": [{"scale": "deployment/web", "replicas": 3}],
}


@dataclass(frozen=True)
class FileCase:
    """A value written at ``path`` of a scenario (``doc``) or of a steps file."""

    id: str
    doc: str  # "scenario" | "steps"
    path: tuple[Any, ...]
    value: str
    field: str | tuple[str, ...]


def _scenario_cases() -> list[FileCase]:
    out: list[FileCase] = []
    ints = [("int32-max", str(I32)), ("int64-max+1", str(I64 + 1)), ("5001-digits", DIGITS)]
    for vid, v in ints:
        out += [
            FileCase(f"nodePools.count={vid}", "scenario", ("nodePools", 0, "count"), v, "nodePools[0].count"),
            FileCase(f"nodePools.zones.count={vid}", "scenario", ("nodePools", 0), f"{{name: general, zones: {{a: {v}}}}}", "nodePools[0].zones"),
            FileCase(f"pods.count={vid}", "scenario", ("pods", 0, "count"), v, "pods[0].count"),
            FileCase(f"pods.ordinals={vid}", "scenario", ("pods", 1, "ordinals"), f"[0, {v}]", "pods[1].ordinals"),
            FileCase(f"pods.ordinal={vid}", "scenario", ("pods", 1), f"{{workload: statefulset/db, ordinal: {v}, zone: a}}", "pods[1].ordinal"),
            FileCase(f"objects.replicas={vid}", "scenario", ("objects", 0, "spec", "replicas"), v, "spec.replicas"),
            FileCase(f"objects.sts.replicas={vid}", "scenario", ("objects", 1, "spec", "replicas"), v, "spec.replicas"),
            FileCase(f"volumes.claim-ordinal={vid}", "scenario", ("volumes", 0, "claim"), f"data-db-{v}", "volumes[0]"),
            FileCase(f"steps.scale={vid}", "steps", (0, "replicas"), v, "replicas"),
            FileCase(f"steps.hpa={vid}", "steps", (0,), f"{{hpa: deployment/web, replicas: [{v}, 1]}}", "replicas"),
            FileCase(f"steps.apply.replicas={vid}", "steps", (0,), f"{{apply: {{workload: deployment/web, replicas: {v}}}}}", "replicas"),
            FileCase(f"steps.addNodes.count={vid}", "steps", (0,), f"{{addNodes: {{zone: a, count: {v}}}}}", "count"),
            FileCase(f"scenario.steps.scale={vid}", "scenario", ("steps", 0, "replicas"), v, "replicas"),
        ]
    for vid, v in QUANTITIES:
        out += [
            # a pool's quantities are validated on the nodes it expands into (Node general-a-0)
            FileCase(f"nodePools.capacity.cpu={vid}", "scenario", ("nodePools", 0, "capacity", "cpu"), v, ("nodePools[0].capacity", "status.capacity")),
            FileCase(f"nodePools.capacity.pods={vid}", "scenario", ("nodePools", 0, "capacity", "pods"), v, ("nodePools[0].capacity", "status.capacity")),
            FileCase(f"nodePools.allocatable.memory={vid}", "scenario", ("nodePools", 0, "allocatable"), f"{{memory: {v}}}",
                     ("nodePools[0].allocatable", "status.allocatable")),
            FileCase(f"volumes.size={vid}", "scenario", ("volumes", 0, "size"), v, ("volumes[0].size", "storage")),
        ]
    return out


SCENARIO_CASES = _scenario_cases()


def write_file_case(case: FileCase, tmp: Path) -> tuple[str, str | None]:
    """(the scenario file, the steps file or None)."""
    scenario = copy.deepcopy(SCENARIO)
    steps: list[Any] = [{"scale": "deployment/web", "replicas": 3}]
    doc: Any = scenario if case.doc == "scenario" else steps
    node = doc
    for k in case.path[:-1]:
        node = node[k]
    node[case.path[-1]] = SENTINEL + "0"

    def dump(d: Any) -> str:
        return yaml.safe_dump(d, sort_keys=False, width=1 << 20).replace(SENTINEL + "0", case.value)

    f = tmp / "scenario.yaml"
    f.write_text(dump(scenario) if case.doc == "scenario" else yaml.safe_dump(scenario, sort_keys=False, width=1 << 20))
    if case.doc != "steps":
        return str(f), None
    s = tmp / "steps.yaml"
    s.write_text(dump(steps))
    return str(f), str(s)


def file_commands(f: str, steps: str | None) -> list[list[str]]:
    quick = ["--time-limit", "10", "--workers", "1"]
    if steps is not None:
        return [["simulate", f, "-w", "deployment/web", "--steps", steps],
                ["remediate", f, "-w", "deployment/web", "--steps", steps, "--top", "2", "--time-limit", "10"]]
    return [
        ["validate", f],
        ["render", f],
        ["explain", f, "--pod", "default/probe"],
        ["check", f, "-w", "statefulset/db", *quick],
        ["capacity", f, "-w", "deployment/web", "--add-nodes", *quick],
        ["simulate", f, "-w", "deployment/web", "--steps", f],
        ["remediate", f, "-w", "deployment/web", "--steps", f, "--top", "2", "--time-limit", "10"],
        ["audit", f],
    ]


FILE_NAMES = ("Scenario huge", "scenario.yaml", "steps.yaml", "Deployment default/web", "StatefulSet default/db", "Node general-",
              "PersistentVolumeClaim default/", "PersistentVolume pv-")


@pytest.mark.slow
@pytest.mark.parametrize("case", selected(SCENARIO_CASES), ids=lambda c: c.id)
def test_huge_value_in_a_scenario_or_steps_file(tmp_path: Path, case: FileCase) -> None:
    f, steps = write_file_case(case, tmp_path)
    run_all(file_commands(f, steps), FILE_NAMES, case.field)


# --------------------------------------------------------------------------- command-line arguments

@dataclass(frozen=True)
class ArgCase:
    id: str
    args: tuple[str, ...]  # after the snapshot
    command: str
    option: str  # the option an exit-2 message must name
    huge_node: bool = False  # on the snapshot whose first node could hold any count (not the two small nodes)


HUGE_NODE = Case("huge node", tuple(("Node", ("status", w, r), '"9999999999999999999Ei"') for w in ("allocatable", "capacity") for r in ("cpu", "memory", "pods")), "")


def _arg_cases() -> list[ArgCase]:
    out: list[ArgCase] = []
    for w in ("deployment/web", "statefulset/db"):  # counts the cluster's bound does not answer
        out += [
            ArgCase(f"huge node: check --replicas int32-max {w}", ("-w", w, "--replicas", str(I32)), "check", "--replicas", True),
            ArgCase(f"huge node: simulate --scale int32-max {w}", ("-w", w, "--scale", str(I32)), "simulate", "--scale", True),
            ArgCase(f"huge node: remediate --replicas int32-max {w}", ("-w", w, "--replicas", str(I32)), "remediate", "--replicas", True),
            ArgCase(f"huge node: remediate --scale int32-max {w}", ("-w", w, "--scale", str(I32)), "remediate", "--scale", True),
            ArgCase(f"huge node: capacity --range near int32-max {w}", ("-w", w, "--range", f"{I32 - 5}..{I32}"), "capacity", "--range", True),
            ArgCase(f"huge node: capacity --range 1..int32-max {w}", ("-w", w, "--range", f"1..{I32}"), "capacity", "--range", True),
        ]
    ints = [("int32-max", str(I32)), ("int32-max+1", str(I32 + 1)), ("int64-max+1", str(I64 + 1)), ("5001-digits", DIGITS)]
    for w in ("deployment/web", "statefulset/db"):
        for vid, v in ints:
            out += [
                ArgCase(f"check --replicas {vid} {w}", ("-w", w, "--replicas", v), "check", "--replicas"),
                ArgCase(f"simulate --scale {vid} {w}", ("-w", w, "--scale", v), "simulate", "--scale"),
                ArgCase(f"remediate --replicas {vid} {w}", ("-w", w, "--replicas", v), "remediate", "--replicas"),
                ArgCase(f"remediate --scale {vid} {w}", ("-w", w, "--scale", v), "remediate", "--scale"),
                ArgCase(f"capacity --range 1..{vid} {w}", ("-w", w, "--range", f"1..{v}", "--add-nodes"), "capacity", "--range"),
                ArgCase(f"capacity --range {vid}..{vid} {w}", ("-w", w, "--range", f"{v}..{v}", "--add-nodes"), "capacity", "--range"),
            ]
    for vid, v in ints:
        out += [
            ArgCase(f"remediate --top {vid}", ("-w", "deployment/web", "--rollout", "--top", v), "remediate", "--top"),
            ArgCase(f"check --seed {vid}", ("-w", "deployment/web", "--seed", v), "check", "--seed"),
            ArgCase(f"capacity --seed {vid}", ("-w", "deployment/web", "--seed", v), "capacity", "--seed"),
            ArgCase(f"simulate --seed {vid}", ("-w", "deployment/web", "--scale", "3", "--seed", v), "simulate", "--seed"),
            ArgCase(f"remediate --seed {vid}", ("-w", "deployment/web", "--rollout", "--seed", v), "remediate", "--seed"),
            ArgCase(f"check --workers {vid}", ("-w", "deployment/web", "--workers", v), "check", "--workers"),
            ArgCase(f"validate --max-bytes {vid}", ("--max-bytes", v), "validate", "--max-bytes"),
            ArgCase(f"audit --max-bytes {vid}", ("--max-bytes", v), "audit", "--max-bytes"),
        ]
    for vid, v in [("1e308", "1e308"), ("inf", "inf"), ("5001-digits", DIGITS)]:
        out.append(ArgCase(f"check --time-limit {vid}", ("-w", "deployment/web", "--time-limit", v), "check", "--time-limit"))
    return out


ARG_CASES = _arg_cases()


@pytest.mark.slow
@pytest.mark.parametrize("case", ARG_CASES, ids=lambda c: c.id)
def test_huge_command_line_argument(tmp_path: Path, case: ArgCase) -> None:
    f = tmp_path / "snapshot.yaml"
    write_snapshot(HUGE_NODE if case.huge_node else Case("base", (), ""), f)
    args = [case.command, str(f), *case.args]
    r, took = run_timed(args)
    assert_answered_or_rejected(args, r, took, (case.option,), case.option)
