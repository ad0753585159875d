"""Scenarios are tests: every expectation in every scenario's `expect:` block is checked here.

Entries marked `pending: "issue N"` belong to commands a later issue implements; they are not
collected (test_pending_entries_name_open_work lists them so they cannot be forgotten).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
import yaml

from planner.engines.workloads import parse_workload
from planner.load import load_snapshot

from .conftest import SCENARIOS, run_cli

FILES = sorted(SCENARIOS.glob("*.yaml"))
IMPLEMENTED = {"validate", "explain", "check", "capacity", "simulate", "remediate", "audit"}


def _expect(path: Path) -> dict:
    doc = yaml.safe_load(path.read_text())
    return doc.get("expect") or {}


def _cases():
    for f in FILES:
        exp = _expect(f)
        for section, entries in exp.items():
            if section == "validate":
                yield pytest.param(f, section, entries, id=f"{f.stem}-validate")
                continue
            for i, e in enumerate(entries or []):
                if isinstance(e, dict) and e.get("pending"):
                    continue
                yield pytest.param(f, section, e, id=f"{f.stem}-{section}-{i}")


@cache
def _snapshot(path: Path):
    return load_snapshot([str(path)])


def test_every_scenario_has_expectations():
    assert FILES, "no scenarios bundled"
    for f in FILES:
        exp = _expect(f)
        assert exp.get("validate"), f"{f.name}: no expect.validate"


def test_pending_entries_name_open_work():
    """Pending entries must name the issue that implements them, and only unimplemented commands."""
    for f in FILES:
        for section, entries in _expect(f).items():
            if section == "validate":
                continue
            for e in entries or []:
                if isinstance(e, dict) and e.get("pending"):
                    assert str(e["pending"]).startswith("issue "), (f.name, e)
                    assert section not in IMPLEMENTED, f"{f.name}: {section} is implemented; drop pending from {e}"


@pytest.mark.parametrize("path,section,entry", list(_cases()))
def test_scenario(path: Path, section: str, entry, tmp_path):
    assert section in IMPLEMENTED, f"{path.name}: expectation for {section} without pending marker"
    if section == "validate":
        r = run_cli(["validate", path, "-o", "json"])
        data = json.loads(r.out)
        assert data["valid"] == entry["valid"], data["errors"]
        if "errors" in entry:
            assert data["errors"] == entry["errors"]
        assert r.code == (0 if entry["valid"] else 2)
        return
    if section == "explain":
        _check_explain(path, entry, tmp_path)
    elif section == "check":
        _check_check(path, entry)
    elif section == "capacity":
        _check_capacity(path, entry)
    elif section == "simulate":
        _check_simulate(path, entry)
    elif section == "remediate":
        _check_remediate(path, entry)
    elif section == "audit":
        _check_audit(path, entry)


def _check_explain(path: Path, entry: dict, tmp_path: Path) -> None:
    args = ["explain", path, "-o", "json"]
    if "pod_file" in entry:
        pf = tmp_path / "pod.yaml"
        pf.write_text(yaml.safe_dump(entry["pod_file"]))
        args += ["--pod-file", pf]
    else:
        args += ["--pod", entry["pod"]]
    r = run_cli(args)
    assert r.code in (0, 1), r.err
    data = json.loads(r.out)
    assert r.code == (0 if data["schedulable"] else 1)
    if "schedulable" in entry:
        assert data["schedulable"] == entry["schedulable"], data["summary"]
    if "summary" in entry:
        assert data["summary"] == entry["summary"]
    if "feasible" in entry:
        assert sorted(data["feasible_nodes"]) == sorted(entry["feasible"])
    if "failures" in entry:
        got = {n["name"]: [f["plugin"] for f in n["failures"]] for n in data["nodes"] if n["failures"]}
        assert got == entry["failures"]


def _check_check(path: Path, entry: dict) -> None:
    args = ["check", path, "--workload", entry["workload"], "-o", "json"]
    if "namespace" in entry:
        args += ["-n", entry["namespace"]]
    if "replicas" in entry:
        args += ["--replicas", entry["replicas"]]
    r = run_cli(args)
    assert r.code in (0, 1), r.err
    data = json.loads(r.out)
    assert data["schedulable"] == entry["schedulable"], data["explanation"]
    assert r.code == (0 if entry["schedulable"] else 1)
    if data["schedulable"]:
        assert data["explanation"] == []
    else:
        assert data["explanation"] and data["placement"] == {}
    for needle in entry.get("explanation_contains", []):
        assert any(needle in e["message"] for e in data["explanation"]), (needle, data["explanation"])
    if "preempted" in entry:  # the number of lower-priority pods preempted first
        assert len(data["preempted"]) == entry["preempted"], data["preempted"]
    for needle in entry.get("notes_contain", []):
        assert any(needle in n for n in data["notes"]), (needle, data["notes"])


def _check_capacity(path: Path, entry: dict) -> None:
    args = ["capacity", path, "--workload", entry["workload"], "-o", "json"]
    if "min" in entry and "max" in entry:
        args += ["--range", f"{entry['min']}..{entry['max']}"]
    if "add_nodes" in entry:
        args.append("--add-nodes")
    r = run_cli(args)
    assert r.code in (0, 1), r.err
    data = json.loads(r.out)
    if "max_replicas" in entry:
        assert data["max_replicas"] == entry["max_replicas"], data["replicas"]
    past = data["bound"]["past"]  # the counts past the cluster's bound: NO, in one row
    if "unschedulable_replicas" in entry:
        bad = [x["replicas"] for x in data["replicas"] if not x["schedulable"]]
        bad += list(range(past["min"], past["max"] + 1)) if past else []
        assert bad == entry["unschedulable_replicas"], (data["replicas"], past)
    if "limited_by" in entry:
        reasons = [x["reason"] for x in data["replicas"] if not x["schedulable"]] + ([data["bound"]["message"]] if past else [])
        assert any(entry["limited_by"] in x for x in reasons), (data["replicas"], past)
    if "add_nodes" in entry:
        _check_add_nodes(data["add_nodes"], entry["add_nodes"])


def _check_add_nodes(an: dict, want: dict) -> None:
    """capacity --add-nodes: total, the nodes per group, the DaemonSets on every new node, the
    groups left out, the message."""
    if "total" in want:
        assert an.get("found") and an["total"] == want["total"], an
    if "node_groups" in want:
        assert {g["group"]: g["count"] for g in an["node_groups"]} == want["node_groups"], an
    if "daemonset_pods" in want:
        for g in an["node_groups"]:
            assert g["daemonset_pods"] == want["daemonset_pods"], g
    if "skipped_groups" in want:
        assert [g["group"] for g in an["skipped_groups"]] == want["skipped_groups"], an
    if "message" in want:
        assert an["message"] == want["message"], an


def test_snapshot_loads_each_scenario():
    for f in FILES:
        snap = _snapshot(f)
        assert snap.nodes, f.name
        assert snap.scenario is not None and snap.scenario["name"]
        for key in list(snap.deployments) + list(snap.statefulsets):
            kind = "deployment" if key in snap.deployments else "statefulset"
            parse_workload(f"{kind}/{key}", None)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_render_passes_validate(path: Path):
    """`planner render SCENARIO | planner validate -`: the expansion is valid, kubectl-shaped input."""
    r = run_cli(["render", path])
    assert r.code == 0, r.err
    doc = yaml.safe_load(r.out)
    assert doc["kind"] == "List" and doc["items"]
    v = run_cli(["validate", "-", "-o", "json"], stdin=r.out.encode())
    assert v.code == 0, v.out
    assert json.loads(v.out)["valid"]


def _workload_args(path: Path) -> list[str]:
    snap = _snapshot(path)
    args = []
    for key in snap.deployments:
        args += ["--workload", f"deployment/{key}"]
    for key in snap.statefulsets:
        args += ["--workload", f"statefulset/{key}"]
    return args


def _check_simulate(path: Path, entry: dict) -> None:
    if "rollout" in entry:
        args = ["simulate", path, "--workload", entry["rollout"], "--rollout", "-o", "json"]
    else:
        args = ["simulate", path, *_workload_args(path), "-o", "json"]
    r = run_cli(args)
    assert r.code in (0, 1), r.err
    data = json.loads(r.out)
    assert r.code == (0 if data["completed"] else 1)
    if "completes" in entry:
        assert data["completed"] == entry["completes"], data["stuck"]
    if "stuck_pod" in entry:
        assert entry["stuck_pod"] in [s["pod"] for s in data["stuck"]]
    if "after_step" in entry:
        step = data["steps"][entry["after_step"]]
        if "pod" in entry:
            pod = step["pods"][entry["pod"]]
            if "phase" in entry:
                assert pod["phase"] == entry["phase"], pod
            if "zone" in entry:
                assert pod["zone"] == entry["zone"], pod
        for want in entry.get("events_include", []):
            assert any(all(e.get(k) == v for k, v in want.items()) for e in step["events"]), (want, step["events"])
        for want in entry.get("events_exclude", []):
            assert not any(all(e.get(k) == v for k, v in want.items()) for e in step["events"]), (want, step["events"])
        if "zone_counts" in entry:
            wl = entry["workload"]
            kind, name = wl.split("/", 1)
            key = f"{kind}/default/{name}" if name.count("/") == 0 else wl
            assert step["zones"][key] == entry["zone_counts"], step["zones"]


def _remediate_action_matches(action: dict, want: dict) -> bool:
    """type; and target, params values, policy_decision, advisory and the Helm release named
    (helm_release) where given."""
    if action["type"] != want["type"]:
        return False
    if "target" in want and action["target"] != want["target"]:
        return False
    for flag in ("policy_decision", "advisory"):
        if flag in want and action[flag] != want[flag]:
            return False
    if "helm_release" in want and want["helm_release"] not in [h["release"] for h in action["helm"]]:
        return False
    return all(action["params"].get(k) == v for k, v in (want.get("params") or {}).items())


def _remediate_plan_matches(plan: dict, want: list[dict]) -> bool:
    """The plan is made of exactly these actions (type; target and params where given)."""
    actions = plan["actions"]
    if len(actions) != len(want):
        return False
    used: set[int] = set()
    for w in want:
        i = next((i for i, a in enumerate(actions) if i not in used and _remediate_action_matches(a, w)), None)
        if i is None:
            return False
        used.add(i)
    return True


def _check_remediate(path: Path, entry: dict) -> None:
    """`planner remediate FILE --workload W (--replicas N | --rollout | --scale N | --steps FILE)`
    (`replay: true` gives `--steps FILE`: the goal is the replay of the scenario's own steps): the plans the
    entry lists are among the printed ones (plans_include), others are not (plans_exclude), the
    first and last plans are the ones given, the candidates named in rejected_include were tried
    and rejected, the plans that change the goal are listed apart (alternatives_include,
    alternatives_exclude); always: destructive actions marked, every destructive plan after the
    others, no plan among ``plans`` changes the goal and every alternative does."""
    from planner.engines.remediation.actions import DESTRUCTIVE_TYPES

    args = ["remediate", path, "--workload", entry["workload"], "-o", "json", "--top", entry.get("top", 10)]
    if "namespace" in entry:
        args += ["-n", entry["namespace"]]
    if entry.get("rollout"):
        args.append("--rollout")
    elif entry.get("replay"):
        args += ["--steps", path]
    elif "scale" in entry:
        args += ["--scale", entry["scale"]]
    else:
        args += ["--replicas", entry["replicas"]]
    r = run_cli(args)
    assert r.code in (0, 1), r.err
    data = json.loads(r.out)
    plans = data["plans"]
    assert r.code == (0 if data["schedulable_now"] or plans else 1)
    if "schedulable_now" in entry:
        assert data["schedulable_now"] == entry["schedulable_now"], data["failure"]
    seen_destructive = False
    for p in plans:
        for a in p["actions"]:
            assert a["destructive"] == (a["type"] in DESTRUCTIVE_TYPES), a
        assert p["destructive"] == any(a["destructive"] for a in p["actions"])
        assert not (seen_destructive and not p["destructive"]), "a non-destructive plan ranks after a destructive one"
        seen_destructive = seen_destructive or p["destructive"]
    alternatives = data["alternatives"]
    assert not any(p["changes_goal"] for p in plans) and all(p["changes_goal"] for p in alternatives)
    shown = [[a["type"] + " " + a["target"] for a in p["actions"]] for p in plans]
    shown_alt = [[a["type"] + " " + a["target"] for a in p["actions"]] for p in alternatives]
    for want in entry.get("alternatives_include", []):
        assert any(_remediate_plan_matches(p, want) for p in alternatives), (want, shown_alt)
    for want in entry.get("alternatives_exclude", []):
        assert not any(_remediate_plan_matches(p, want) for p in alternatives), (want, shown_alt)
    for want in entry.get("plans_include", []):
        assert any(_remediate_plan_matches(p, want) for p in plans), (want, shown)
    for want in entry.get("plans_exclude", []):
        assert not any(_remediate_plan_matches(p, want) for p in plans), (want, shown)
    if "first" in entry:
        assert plans and _remediate_plan_matches(plans[0], entry["first"]), (entry["first"], shown)
    if "last" in entry:
        assert plans and _remediate_plan_matches(plans[-1], entry["last"]), (entry["last"], shown)
    rejected = {x["actions"][0].split(" ", 1)[0] for x in data.get("rejected", []) if len(x["actions"]) == 1}
    for t in entry.get("rejected_include", []):
        assert t in rejected, (t, data.get("rejected"))


@cache
def _audit(path: Path) -> tuple[int, dict]:
    r = run_cli(["audit", path, "-o", "json"])
    assert r.code in (0, 1), r.err
    data = json.loads(r.out)
    assert r.code == (1 if any(f["severity"] != "note" for f in data["findings"]) else 0)  # the default gate: warning
    return r.code, data


def _check_audit(path: Path, entry: dict) -> None:
    _, data = _audit(path)
    if "none_of" in entry:
        found = [(f["rule"], f["objects"][0]) for f in data["findings"] if f["rule"] in entry["none_of"]]
        assert not found, found
        return
    hits = [f for f in data["findings"] if f["rule"] == entry["rule"] and entry["object"] in f["objects"]]
    assert hits, [(f["rule"], f["objects"]) for f in data["findings"]]
    details = {k: v for k, v in entry.items() if k not in ("rule", "object")}
    assert any(all(f["details"].get(k) == v for k, v in details.items()) for f in hits), (details, [f["details"] for f in hits])
