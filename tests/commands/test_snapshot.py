"""`planner snapshot` against a kubectl stand-in (tests/data/kubectl-standin/kubectl) on PATH.

The stand-in answers `kubectl get ... -o json` from a recorded List (generated from the seed-002
scenario's expansion, with a PodDisruptionBudget, in the shape kubectl prints) and refuses every
other verb; every invocation is logged, and the tests check that planner only ever ran `get`.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

STANDIN = ROOT / "tests" / "data" / "kubectl-standin"
RESOURCES = "nodes,pods,pv,pvc,storageclasses,csinodes,deployments,replicasets,statefulsets,daemonsets,hpa,pdb,namespaces,priorityclasses,limitranges,runtimeclasses,controllerrevisions"


@pytest.fixture
def kubectl(tmp_path, monkeypatch):
    """Put the stand-in first on PATH (a copy, executable whatever the checkout did to its mode);
    returns a function giving the logged invocations."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(STANDIN / "kubectl", bindir / "kubectl")
    (bindir / "recorded").symlink_to(STANDIN / "recorded")
    exe = bindir / "kubectl"
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    log = tmp_path / "kubectl.log"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("KUBECTL_STANDIN_LOG", str(log))

    def calls() -> list[list[str]]:
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    return calls


def only_gets(calls: list[list[str]]) -> None:
    assert calls, "kubectl was not run"
    for argv in calls:
        assert argv[0] == "get", f"planner ran kubectl {argv[0]}: only get is allowed"


def kinds(doc: dict) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in doc["items"]:
        out[i["kind"]] = out.get(i["kind"], 0) + 1
    return out


def test_all_namespaces(kubectl):
    r = run_cli(["snapshot", "-A"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["kind"] == "List" and doc["apiVersion"] == "v1"
    assert kinds(doc) == {"Node": 8, "Pod": 15, "Deployment": 2, "ReplicaSet": 2, "PodDisruptionBudget": 1, "Namespace": 2}
    calls = kubectl()
    only_gets(calls)
    assert calls == [["get", RESOURCES, "-o", "json", "--all-namespaces"]]
    assert "snapshot: " in r.err and "15 Pod" in r.err


def test_flags_pass_through(kubectl, tmp_path):
    cfg = tmp_path / "config"
    cfg.write_text("")
    r = run_cli(["snapshot", "--context", "staging", "--kubeconfig", cfg, "-n", "batch", "-o", "json"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    # namespaced kinds from batch only; cluster-scoped kinds in full
    assert {i["metadata"].get("namespace") for i in doc["items"] if i["kind"] not in ("Node", "Namespace")} == {"batch"}
    assert kinds(doc)["Node"] == 8 and kinds(doc)["Pod"] == 5
    assert kubectl() == [["get", RESOURCES, "-o", "json", "--context=staging", f"--kubeconfig={cfg}", "--namespace=batch"]]


def test_context_namespace_by_default(kubectl):
    r = run_cli(["snapshot"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert {i["metadata"].get("namespace") for i in doc["items"] if i["kind"] == "Pod"} == {"default"}
    assert kubectl() == [["get", RESOURCES, "-o", "json"]]


def test_snapshot_feeds_every_command(kubectl, tmp_path):
    r = run_cli(["snapshot", "-A"])
    snap = tmp_path / "snapshot.json"
    snap.write_text(r.out)
    v = run_cli(["validate", snap, "-o", "json"])
    assert v.code == 0 and json.loads(v.out)["valid"], v.out
    a = run_cli(["audit", snap, "-o", "json"])
    assert a.code == 1, a.err
    rules = {f["rule"] for f in json.loads(a.out)["findings"]}
    assert {"spread-skew-exceeded", "zone-loss-below-pdb"} <= rules
    only_gets(kubectl())


def test_kubectl_failure_is_an_error(kubectl):
    r = run_cli(["snapshot", "--context", "broken"])
    assert r.code == 2 and r.out == ""
    assert 'context "broken" does not exist' in r.err


def test_namespace_and_all_namespaces_conflict(kubectl):
    r = run_cli(["snapshot", "-n", "default", "-A"])
    assert r.code == 2 and "not both" in r.err
    assert kubectl() == []


def test_kubectl_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    r = run_cli(["snapshot"])
    assert r.code == 2 and "kubectl not found on PATH" in r.err


def test_not_a_list(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "kubectl"
    exe.write_text('#!/bin/sh\n[ "$1" = get ] || exit 3\necho \'{"kind": "Pod", "metadata": {"name": "x"}}\'\n')
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(bindir))
    r = run_cli(["snapshot"])
    assert r.code == 2 and "not a List" in r.err


def test_standin_refuses_other_verbs(kubectl):
    """The stand-in itself: a verb other than get fails, so a regression cannot pass silently."""
    import subprocess

    exe = shutil.which("kubectl")
    assert exe is not None and Path(exe).name == "kubectl"
    p = subprocess.run([exe, "delete", "pod", "x"], capture_output=True, check=False)
    assert p.returncode == 3 and b"only run kubectl get" in p.stderr


HOSTILE_CONTEXTS = [
    "-x",
    "--all-namespaces",
    "prod cluster",
    "line one\nline two",
    "$(touch CANARY)",
    "`touch CANARY`; touch CANARY2",
    "it's \"quoted\" | touch CANARY3 &",
]


@pytest.mark.parametrize("context", HOSTILE_CONTEXTS)
def test_hostile_context_is_one_argument(kubectl, tmp_path, monkeypatch, context):
    """kubectl gets the context, the kubeconfig path and the namespace as one argv item each, in
    the --flag=VALUE form (a value starting with "-" is not a flag), never through a shell."""
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "my kube\nconfig; $(touch CANARY4) -A"
    cfg.write_text("")
    r = run_cli(["snapshot", f"--context={context}", "--kubeconfig", cfg, "-n", "-A $(touch CANARY5)"])
    assert r.code == 0, r.err
    assert kubectl() == [["get", RESOURCES, "-o", "json", f"--context={context}", f"--kubeconfig={cfg}", "--namespace=-A $(touch CANARY5)"]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["bin", "kubectl.log", cfg.name])  # no canary


def test_context_starting_with_a_dash_as_a_separate_word(kubectl):
    r = run_cli(["snapshot", "--context", "-x", "-A"])
    assert r.code == 0, r.err
    assert kubectl() == [["get", RESOURCES, "-o", "json", "--context=-x", "--all-namespaces"]]


def test_empty_context_is_refused(kubectl):
    r = run_cli(["snapshot", "--context", ""])
    assert r.code == 2 and "--context needs a value" in r.err and len(r.err.strip().splitlines()) == 1
    assert kubectl() == []
