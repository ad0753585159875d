"""`planner remediate --emit DIR`: what it writes stays inside DIR and runs only what it says.

* Symlinks planted in DIR (remediate.json, plan-1/runbook.sh), DIR itself a symlink, a folder
  planner did not make, a failure half-way: nothing outside DIR is written or chmodded, a
  user's folder is never deleted, DIR is replaced whole or not at all (no stale plans).
* Hostile values (newlines, ``$(...)``, backticks, quotes, ``;``, control characters) in every
  field Kubernetes validation lets through (the --steps path, annotations, image names) reach
  the runbooks; each runbook is run with bash and a fake kubectl that logs its argv: only the
  runbook's own kubectl commands run, each value one argument, and no canary file appears.
  Where validation forbids the characters (names, namespaces, label values) planner exits 2.
* Values that validation would forbid, given to the emitter directly (defence in depth): still
  quoted, file names kept inside the plan's folder, an unquoted command refused.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
from pathlib import Path
from shlex import quote as q

import pytest
import yaml

from planner.engines.remediation.actions import Action, Cost, ObjectPatch, Plan
from planner.engines.remediation.emit import emit, escape
from planner.engines.remediation.verify import Goal
from planner.engines.workloads import WorkloadRef
from planner.errors import PlannerError, UsageError
from planner.files import MARKER
from tests.conftest import SCENARIOS, run_cli

# every shell metacharacter that could start a command, on several lines
HOSTILE = "x\ntouch CANARY-nl\n$(touch CANARY-sub) `touch CANARY-bt` 'sq\"dq ; touch CANARY-semi & | > CANARY-gt \\ \r\x1b[2J\u2028end"
SEED000 = SCENARIOS / "blue-green-shared-selector-replay.yaml"
SEED001 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"
CONTEXT = "ctx $(touch CANARY-ctx) `touch CANARY-ctx2`; 'q\" & | > x"  # a current context with shell characters


def errors(err: str) -> int:
    return sum(1 for line in err.splitlines() if line.startswith("error"))


def canaries(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.startswith("CANARY")]


@pytest.fixture
def fake_kubectl(tmp_path):
    """A kubectl first on PATH that logs each invocation (argv, cwd) as a JSON line; returns
    (env, calls())."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "kubectl.log"
    exe = bindir / "kubectl"
    exe.write_text(
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        "with open(os.environ['FAKE_KUBECTL_LOG'], 'a') as f:\n"
        "    f.write(json.dumps({'argv': sys.argv[1:], 'cwd': os.getcwd()}) + '\\n')\n"
        "if sys.argv[1:] == ['config', 'current-context']:\n"
        "    sys.stdout.write(os.environ['FAKE_CONTEXT'] + '\\n')\n"
    )
    exe.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "FAKE_KUBECTL_LOG": str(log),
        "FAKE_CONTEXT": CONTEXT,
    }

    def calls() -> list[dict]:
        if not log.exists():
            return []
        out = [json.loads(x) for x in log.read_text().splitlines()]
        log.unlink()
        return out

    return env, calls


def expected_calls(runbook: Path, context: str = CONTEXT) -> list[list[str]]:
    """The kubectl commands of a runbook, read as the shell would read them (one per line), after
    the one that reads the current context; each names the context (``"$KUBE_CONTEXT"``: the
    current one, read once)."""
    out = []
    for line in runbook.read_text().splitlines():
        if line.startswith("kubectl "):
            words = [context if w == "$KUBE_CONTEXT" else w for w in shlex.split(line)]
            assert words[1] == "--context" and words[2] == context, line
            out.append(words[1 : words.index(">")] if ">" in words else words[1:])
    return [["config", "current-context"]] + out if out else []


def run_runbooks(out_dir: Path, work: Path, env: dict, calls) -> int:
    """Run every plan's runbook (--yes) from ``work``; check the calls are exactly its commands."""
    ran = 0
    for plan in sorted([*out_dir.glob("plan-*"), *out_dir.glob("alternative-*")]):
        runbook = plan / "runbook.sh"
        assert subprocess.run(["bash", "-n", str(runbook)]).returncode == 0
        for line in runbook.read_text().splitlines():  # every line: a comment, a kubectl command or the script's own
            assert not line.startswith(("touch", "$(", "`", "end", "'")), line
        p = subprocess.run(["bash", str(runbook), "--yes"], cwd=work, env=env, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        got = calls()
        assert [c["argv"] for c in got] == expected_calls(runbook)
        assert all(c["cwd"] == str(plan) for c in got)
        ran += len(got)
    return ran


def _goal(source: str = "steps.yaml") -> Goal:
    return Goal(WorkloadRef("StatefulSet", "default", "web"), "replay", None, steps=[], source=source)


def _plan(actions: list[Action]) -> Plan:
    return Plan(actions, Cost())


def _simple_plan() -> Plan:
    p = ObjectPatch("StatefulSet", "default", "web", "json", [{"op": "test", "path": "/spec/replicas", "value": 1}])
    return _plan([Action("raise-max-skew", "statefulset/default/web", "raise it", [p], [p.kubectl()], Cost())])


# --------------------------------------------------------------------------- symlinks, foreign folders, atomicity


def test_symlink_remediate_json_in_a_fresh_dir_is_refused(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    outside.chmod(0o600)
    out_dir = tmp_path / "fix"
    out_dir.mkdir()
    (out_dir / "remediate.json").symlink_to(outside)
    r = run_cli(["remediate", SEED001, "-w", "statefulset/search", "--replicas", "3", "--emit", out_dir, "-o", "json"])
    assert r.code == 2 and "Traceback" not in r.err
    assert "holds files planner did not write (e.g. 'remediate.json')" in r.err and errors(r.err) == 1
    assert outside.read_text() == "precious\n" and stat.S_IMODE(outside.stat().st_mode) == 0o600
    assert (out_dir / "remediate.json").is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["fix", "outside.txt"]


def test_symlinks_in_a_planner_folder_are_replaced_not_followed(tmp_path):
    out_dir = tmp_path / "fix"
    r = run_cli(["remediate", SEED001, "-w", "statefulset/search", "--replicas", "3", "--emit", out_dir, "--top", "5", "-o", "json"])
    assert r.code == 0, r.err
    n = len(json.loads(r.out)["plans"])
    assert n >= 2
    marker = json.loads((out_dir / MARKER).read_text())
    assert "plan-1/runbook.sh" in marker["files"] and "remediate.json" in marker["files"]
    # a reviewer plants links where planner writes
    outside = tmp_path / "outside.sh"
    outside.write_text("#!/bin/sh\necho precious\n")
    outside.chmod(0o600)
    (out_dir / "plan-1" / "runbook.sh").unlink()
    (out_dir / "plan-1" / "runbook.sh").symlink_to(outside)
    (out_dir / "remediate.json").unlink()
    (out_dir / "remediate.json").symlink_to(outside)
    # emit again, fewer plans: the folder is replaced whole
    r = run_cli(["remediate", SEED001, "-w", "statefulset/search", "--replicas", "3", "--emit", out_dir, "--top", "1", "-o", "json"])
    assert r.code == 0, r.err
    assert outside.read_text() == "#!/bin/sh\necho precious\n" and stat.S_IMODE(outside.stat().st_mode) == 0o600
    assert not (out_dir / "plan-1" / "runbook.sh").is_symlink() and not (out_dir / "remediate.json").is_symlink()
    assert sorted(p.name for p in out_dir.iterdir()) == [MARKER, "alternative-1", "plan-1", "remediate.json"]  # no stale plan-2..
    assert os.access(out_dir / "plan-1" / "runbook.sh", os.X_OK)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fix", "outside.sh"]  # no temporary folder left


def test_dir_that_is_a_symlink_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "fix"
    link.symlink_to(real)
    with pytest.raises(UsageError, match="is a symlink"):
        emit(str(link), {}, [_simple_plan()], _goal())
    assert list(real.iterdir()) == [] and link.is_symlink()
    r = run_cli(["remediate", SEED001, "-w", "statefulset/search", "--replicas", "3", "--emit", link, "-o", "json"])
    assert r.code == 2 and "is a symlink" in r.err and errors(r.err) == 1
    assert list(real.iterdir()) == []


def test_a_users_folder_is_never_replaced(tmp_path):
    out_dir = tmp_path / "fix"
    emit(str(out_dir), {"plans": 1}, [_simple_plan()], _goal())
    # the runbook ran and left a backup beside it: no longer only what planner wrote
    (out_dir / "plan-1" / "pvc-data.backup.yaml").write_text("kind: PersistentVolumeClaim\n")
    with pytest.raises(UsageError, match=r"did not write \(e\.g\. 'plan-1/pvc-data\.backup\.yaml'\)"):
        emit(str(out_dir), {"plans": 2}, [], _goal())
    assert (out_dir / "plan-1" / "pvc-data.backup.yaml").exists() and json.loads((out_dir / "remediate.json").read_text()) == {"plans": 1}
    # a folder without the marker (the user's), and a file in place of the folder
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n")
    with pytest.raises(UsageError, match="did not write"):
        emit(str(mine), {}, [], _goal())
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="not a directory"):
        emit(str(tmp_path / "file"), {}, [], _goal())
    # an empty folder is fine
    (tmp_path / "empty").mkdir()
    emit(str(tmp_path / "empty"), {}, [], _goal())
    assert sorted(p.name for p in (tmp_path / "empty").iterdir()) == [MARKER, "remediate.json"]


def test_a_failure_half_way_leaves_the_old_folder(tmp_path):
    out_dir = tmp_path / "fix"
    emit(str(out_dir), {"run": 1}, [_simple_plan(), _simple_plan()], _goal())
    before = sorted(str(p.relative_to(out_dir)) for p in out_dir.rglob("*"))
    bad = ObjectPatch("Pod", "default", "p", "delete", {})
    broken = _plan([Action("delete-pvc", "pod/default/p", "x", [bad], ["kubectl delete pod p -n default; touch CANARY"], Cost())])
    with pytest.raises(PlannerError, match="not quoted for the shell"):
        emit(str(out_dir), {"run": 2}, [_simple_plan(), broken], _goal())
    assert sorted(str(p.relative_to(out_dir)) for p in out_dir.rglob("*")) == before
    assert json.loads((out_dir / "remediate.json").read_text()) == {"run": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fix"]  # the half-built folder is gone


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("stop", [KeyboardInterrupt, OSError])
def test_ctrl_c_or_an_error_at_any_point_leaves_the_old_folder_or_the_new_one(tmp_path, monkeypatch, stop):
    """Ctrl-C (KeyboardInterrupt) or an I/O error at each file system call --emit makes, in turn:
    DIR is afterwards exactly the old folder, complete, or exactly the new one, complete; never a
    mix, never missing, and no staging folder is left beside it."""
    import planner.files as files

    out_dir = tmp_path / "fix"
    emit(str(out_dir), {"run": 1}, [_simple_plan()], _goal())
    old = _tree(out_dir)
    real = {name: getattr(files.os, name) for name in ("rename", "mkdir", "open", "fchmod", "fsync")}
    real_rmtree = files.shutil.rmtree
    calls = 0

    def counted(fn):  # a stand-in that fails on call number ``fail_at``
        def call(*a, **k):
            nonlocal calls
            calls += 1
            if calls == fail_at:
                raise stop("stopped here") if stop is OSError else stop()
            return fn(*a, **k)
        return call

    fail_at = -1
    emit(str(tmp_path / "count"), {"run": 1}, [_simple_plan()], _goal())
    for name, fn in real.items():
        monkeypatch.setattr(files.os, name, counted(fn))
    calls = 0
    emit(str(tmp_path / "count"), {"run": 2}, [_simple_plan(), _simple_plan()], _goal())  # the calls of a whole run
    total = calls
    assert total > 10
    new = None
    for fail_at in range(1, total + 1):
        calls = 0
        try:
            emit(str(out_dir), {"run": 2}, [_simple_plan(), _simple_plan()], _goal())
        except (KeyboardInterrupt, OSError, PlannerError):
            pass
        with monkeypatch.context() as m:  # look at the result with the real calls
            for name, fn in real.items():
                m.setattr(files.os, name, fn)
            now = _tree(out_dir)
            replaced = json.loads(now["remediate.json"]) == {"run": 2}
            if replaced:
                new = new or now
                assert now == new, f"stopped at call {fail_at}: a partial new folder"
            else:
                assert now == old, f"stopped at call {fail_at}: the old folder changed"
            leftovers = [p for p in tmp_path.iterdir() if p.name not in ("fix", "count")]
            # only a stop while the replaced folder is deleted (DIR already new) may leave it, hidden
            stale = [p.name for p in leftovers if not (replaced and p.name.startswith(".fix.planner-old-"))]
            assert stale == [], f"stopped at call {fail_at}: {stale} left beside DIR"
            for p in leftovers:
                real_rmtree(p)
            # back to the old folder for the next round
            real_rmtree(out_dir)
            emit(str(out_dir), {"run": 1}, [_simple_plan()], _goal())
            assert _tree(out_dir) == old


# --------------------------------------------------------------------------- hostile values


def _hostile_replay_scenario(tmp_path: Path) -> Path:
    """Seed 000's replay with hostile annotations and image names on blue and on the green
    manifest the steps create, in a file whose folder and name carry the hostile text."""
    d = yaml.safe_load(SEED000.read_text())
    d.pop("expect", None)
    green = d["steps"][0]["create"]
    for obj in (d["objects"][1], green):
        obj["metadata"]["annotations"] = {"note": HOSTILE, "example.com/cmd": "$(touch CANARY-ann); `touch CANARY-ann2`"}
        obj["spec"]["template"]["metadata"]["annotations"] = {"note": HOSTILE}
        obj["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example/my-app:1;$(touch CANARY-img)`touch CANARY-img2`'\"\nx"
    folder = tmp_path / "steps $(touch CANARY-dir); `x`"
    folder.mkdir()
    path = folder / ("s" + HOSTILE + ".yaml")
    path.write_text(yaml.safe_dump(d, sort_keys=False))
    return path


def test_hostile_values_reach_the_runbooks_as_data_only(tmp_path, fake_kubectl):
    env, calls = fake_kubectl
    scen = _hostile_replay_scenario(tmp_path)
    out_dir = tmp_path / "fix"
    r = run_cli(["remediate", scen, "-w", "statefulset/blue", "--steps", scen, "--top", "10", "--emit", out_dir, "-o", "json"])
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["goal"]["steps"] == str(scen) and len(data["plans"]) >= 3
    assert json.loads((out_dir / "remediate.json").read_text()) == data
    # the --steps path is in the comments, escaped, on one line
    runbook = (out_dir / "plan-1" / "runbook.sh").read_text()
    assert f"# planner remediate: plan 1 of {len(data['plans'])} for the goal: replay the steps of {escape(str(scen))}" in runbook
    assert "\\ntouch CANARY-nl\\n" in runbook and "\r" not in runbook and "\x1b" not in runbook and "\u2028" not in runbook
    # the corrected green manifest carries the hostile values intact, as data
    create = next(out_dir.glob("plan-1/*-create-statefulset-default-green.yaml"))
    body = yaml.safe_load(create.read_text())
    assert body["metadata"]["annotations"]["note"] == HOSTILE
    assert body["spec"]["template"]["spec"]["containers"][0]["image"].endswith("`touch CANARY-img2`'\"\nx")
    # run every runbook: only its own kubectl commands, each value one argument, no canary
    work = tmp_path / "work"
    work.mkdir()
    assert run_runbooks(out_dir, work, env, calls) >= 1  # the plan that patches blue runs kubectl patch
    assert canaries(tmp_path) == [] and list(work.iterdir()) == []
    written = set(json.loads((out_dir / MARKER).read_text())["files"])
    assert {str(p.relative_to(out_dir)) for p in out_dir.rglob("*") if p.is_file()} == written | {MARKER}


def test_hostile_annotations_and_images_with_a_destructive_runbook(tmp_path, fake_kubectl):
    """Seed 001 with hostile annotations and images everywhere: the delete-pvc plan's runbook
    (backups, patches, deletes, wait) runs exactly its commands; the backups land in its folder."""
    env, calls = fake_kubectl
    d = yaml.safe_load(SEED001.read_text())
    d.pop("expect", None)
    for obj in d.get("objects", []):
        obj.setdefault("metadata", {})["annotations"] = {"note": HOSTILE}
        tmpl = obj.get("spec", {}).get("template")
        if tmpl:
            tmpl.setdefault("metadata", {})["annotations"] = {"note": HOSTILE}
            for c in tmpl["spec"]["containers"]:
                c["image"] = "img:$(touch CANARY-img);`touch CANARY-img2`"
    scen = tmp_path / "seed-001-hostile.yaml"
    scen.write_text(yaml.safe_dump(d, sort_keys=False))
    out_dir = tmp_path / "fix"
    r = run_cli(["remediate", scen, "-w", "statefulset/search", "--replicas", "3", "--top", "10", "--emit", out_dir, "-o", "json"])
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["plans"][-1]["destructive"]
    work = tmp_path / "work"
    work.mkdir()
    assert run_runbooks(out_dir, work, env, calls) >= 5
    assert canaries(tmp_path) == [] and list(work.iterdir()) == []
    last = out_dir / f"plan-{len(data['plans'])}"
    assert (last / "pvc-data-search-2.backup.yaml").exists()  # the runbook's own redirect, in its folder


def _objects(name: str = "web", namespace: str = "default", claim: str = "data-web-0", label: str = "a") -> dict:
    """A kubectl-shaped List: a node, a StatefulSet and a claim."""
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": 1,
            "serviceName": "s",
            "selector": {"matchLabels": {"app": "a"}},
            "template": {"metadata": {"labels": {"app": "a", "note": label}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }
    pvc = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": claim, "namespace": namespace},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}
    return {"apiVersion": "v1", "kind": "List", "items": [node, sts, pvc]}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "web$(touch CANARY)", "metadata.name: Invalid value"),
        ("name", "web\ntouch CANARY", "metadata.name: Invalid value"),
        ("name", "web;touch CANARY", "metadata.name: Invalid value"),
        ("namespace", "ns;touch CANARY", "metadata.namespace: Invalid value"),
        ("namespace", "-x", "metadata.namespace: Invalid value"),
        ("claim", "data`touch CANARY`", "metadata.name: Invalid value"),
        ("label", "v`touch CANARY`", "a valid label must be"),
        ("label", "a b", "a valid label must be"),
        ("label", "$(touch CANARY)", "a valid label must be"),
    ],
)
def test_values_validation_forbids_exit_2(tmp_path, field, value, message):
    """Names and namespaces are DNS labels, label values [A-Za-z0-9._-]: hostile ones exit 2,
    before anything is written."""
    kw = {field: value}
    path = tmp_path / "objects.json"
    path.write_text(json.dumps(_objects(**kw)))
    out_dir = tmp_path / "fix"
    name = value if field == "name" else "web"
    ns = value if field == "namespace" else "default"
    r = run_cli(["remediate", path, "-w", f"statefulset/{name}", "-n", ns, "--replicas", "2", "--emit", out_dir, "-o", "json"])
    assert r.code == 2 and "Traceback" not in r.err and message in r.err, r.err
    assert not out_dir.exists() and canaries(tmp_path) == []


def test_workload_option_with_hostile_text_exit_2(tmp_path):
    out_dir = tmp_path / "fix"
    r = run_cli(["remediate", SEED001, "-w", "statefulset/x$(touch CANARY)", "--replicas", "3", "--emit", out_dir])
    assert r.code == 2 and not out_dir.exists()


def test_emitter_quotes_what_validation_would_forbid(tmp_path, fake_kubectl):
    """Names and namespaces with every hostile character, handed to the emitter directly: the
    commands built as planner builds them keep each value one argument; file names stay in the
    plan's folder; comments stay comments."""
    env, calls = fake_kubectl
    ns, name = "ns " + HOSTILE, "web " + HOSTILE
    patch = ObjectPatch("StatefulSet", ns, name, "json", [{"op": "test", "path": "/metadata/annotations/note", "value": HOSTILE}])
    delete = ObjectPatch("Pod", ns, "../../../" + name, "delete", {"metadata": {"name": name}})
    create = ObjectPatch("StatefulSet", ns, "../../escape", "create", {"metadata": {"name": name, "annotations": {"n": HOSTILE}}})
    action = Action(
        "set-pod-management-policy",
        f"statefulset/{ns}/{name}",
        "summary " + HOSTILE,
        [patch, delete, create],
        [
            patch.kubectl(),
            f"kubectl delete statefulset {q(name)} -n {q(ns)} --cascade=orphan",
            delete.kubectl(),
            f"# the corrected object, for step 1 of {HOSTILE}: {create.kubectl()}",
            create.kubectl(),
            f"kubectl wait --for=delete {q('pvc/' + name)} -n {q(ns)} --timeout=300s",
        ],
        Cost(),
        side_effects=["effect " + HOSTILE],
    )
    out_dir = tmp_path / "fix"
    written = emit(str(out_dir), {}, [_plan([action])], _goal(HOSTILE))
    assert all(Path(w).resolve().is_relative_to(out_dir.resolve()) for w in written)
    names = sorted(p.name for p in (out_dir / "plan-1").iterdir())
    assert all(set(n) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") for n in names)
    assert not (tmp_path / "escape.yaml").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bin", "fix"]
    work = tmp_path / "work"
    work.mkdir()
    assert subprocess.run(["bash", str(out_dir / "plan-1" / "runbook.sh"), "--yes"], cwd=work, env=env, capture_output=True).returncode == 0
    got = [c["argv"] for c in calls()]
    assert got[0] == ["config", "current-context"] and all(g[:2] == ["--context", CONTEXT] for g in got[1:])
    got = [g[2:] for g in got[1:]]
    assert got[0][:2] == ["patch", "statefulset"] and got[0][2] == name and got[0][3:5] == ["-n", ns]
    assert got[1] == ["delete", "statefulset", name, "-n", ns, "--cascade=orphan"]
    assert got[2] == ["delete", "pod", "../../../" + name, "-n", ns]  # no uid in its body: a plain delete, said unguarded
    assert got[3][0:2] == ["create", "-f"] and "/" not in got[3][2] and (out_dir / "plan-1" / got[3][2]).exists()
    assert got[4] == ["wait", "--for=delete", "pvc/" + name, "-n", ns, "--timeout=300s"]
    assert len(got) == 5 and canaries(tmp_path) == [] and list(work.iterdir()) == []
    assert "# NOT GUARDED: the snapshot records no uid for Pod" in (out_dir / "plan-1" / "runbook.sh").read_text()
    # the runbook asks before the destructive step, with the summary escaped
    no = subprocess.run(["bash", str(out_dir / "plan-1" / "runbook.sh")], cwd=work, env=env, input="yes\nno\n", capture_output=True, text=True)
    assert no.returncode == 1 and [c["argv"] for c in calls()] == [["config", "current-context"]]
    confirm = [line for line in (out_dir / "plan-1" / "runbook.sh").read_text().splitlines() if line.startswith("confirm ")]
    # the first asks before changing the cluster of an unpinned (current) context
    assert len(confirm) == 2 and confirm[0].startswith('confirm "No kube-context was pinned') and shlex.split(confirm[1]) == ["confirm", f"Step 1 is destructive: summary {escape(HOSTILE)}."]


@pytest.mark.parametrize(
    "command",
    [
        "kubectl delete pod a;touch CANARY",
        "kubectl delete pod $(touch CANARY)",
        "kubectl delete pod `touch CANARY`",
        "kubectl delete pod a\ntouch CANARY",
        "touch CANARY",
        "kubectl get pvc a -o yaml > ../../outside.yaml",
        "kubectl get pvc a -o yaml > a > b",
    ],
)
def test_unquoted_commands_are_refused(tmp_path, command):
    p = ObjectPatch("Pod", "default", "a", "delete", {})
    plan = _plan([Action("delete-pvc", "pod/default/a", "x", [p], [command], Cost())])
    with pytest.raises(PlannerError, match="not quoted for the shell"):
        emit(str(tmp_path / "fix"), {}, [plan], _goal())
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_escape():
    assert escape("a\nb\r\tc\\d\x00\x1b\x7f\x85\u2028\u202e") == "a\\nb\\r\\tc\\\\d\\x00\\x1b\\x7f\\x85\\u2028\\u202e"
    assert escape("plain text: zone-a, 50%") == "plain text: zone-a, 50%"


def test_a_pinned_context_with_shell_characters_is_one_argument(tmp_path, fake_kubectl):
    """--context with every hostile character: the runbook assigns it quoted, compares it with the
    current context, and passes it to every kubectl command as one argument; a different current
    context stops the runbook before anything runs."""
    env, calls = fake_kubectl
    context = "prod $(touch CANARY-p) `touch CANARY-p2`; 'sq\"dq & | > CANARY-gt"
    for bad in ("prod\ntouch CANARY", "a\x1b[2J", "a\\b", "", "x\u2028y"):
        with pytest.raises(UsageError, match="a kube-context name the runbooks can pin"):
            emit(str(tmp_path / "never"), {}, [_simple_plan()], _goal(), context=bad)
        r = run_cli(["remediate", SEED001, "-w", "statefulset/search", "--replicas", "3", "--context", bad])
        assert r.code == 2 and errors(r.err) == 1 and "Traceback" not in r.err
    assert not (tmp_path / "never").exists()
    out_dir = tmp_path / "fix"
    p = ObjectPatch("StatefulSet", "default", "web", "json", [{"op": "test", "path": "/spec/replicas", "value": 1}])
    d = ObjectPatch("Pod", "default", "web-0", "delete", {"metadata": {"name": "web-0", "uid": "uid-$(touch CANARY-uid)"}})
    action = Action("delete-pvc", "statefulset/default/web", "s", [p, d], [p.kubectl(), d.kubectl()], Cost())
    emit(str(out_dir), {}, [_plan([action])], _goal(), context=context)
    runbook = out_dir / "plan-1" / "runbook.sh"
    assert subprocess.run(["bash", "-n", str(runbook)]).returncode == 0
    work = tmp_path / "work"
    work.mkdir()
    r = subprocess.run(["bash", str(runbook), "--yes"], cwd=work, env={**env, "FAKE_CONTEXT": context}, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = [c["argv"] for c in calls()]
    assert got == expected_calls(runbook, context)
    assert got[1][:4] == ["--context", context, "patch", "statefulset"]
    assert got[2] == ["--context", context, "delete", "--raw", "/api/v1/namespaces/default/pods/web-0", "-f", "01-2-delete-pod-default-web-0.options.json"]
    assert json.loads((out_dir / "plan-1" / "01-2-delete-pod-default-web-0.options.json").read_text())["preconditions"] == {"uid": "uid-$(touch CANARY-uid)"}
    other = subprocess.run(["bash", str(runbook), "--yes"], cwd=work, env=env, capture_output=True, text=True)
    assert other.returncode == 1 and [c["argv"] for c in calls()] == [["config", "current-context"]]
    assert canaries(tmp_path) == [] and list(work.iterdir()) == []
