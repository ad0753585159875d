"""`planner remediate`: the plans on the seed scenarios, and every printed patch applied with the
real client (`kubectl patch --local`, offline) and the goal verified again on kubectl's result.

Cases: the seeds as bundled, plus two moments the seeds describe but do not bundle, built here
from them: the blue/green overlap of seed 000 (blue still running in zone-a and zone-b, both
releases spreading on app=my_app: there the authors' release-scoped selector is the cure), and
seed 001 under OrderedReady with the HPA's scale to 4 (the replay never creates search-3).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest
import yaml

from models.solve import SolveOptions
from planner.engines.remediation import Goal, remediate
from planner.engines.remediation.actions import ACTION_TYPES, DESTRUCTIVE_TYPES, ObjectPatch
from planner.engines.remediation.jsonpatch import (
    PatchError,
    apply_json_patch,
    apply_merge_patch,
    escape,
    json_equal,
    pointer,
)
from planner.engines.remediation.verify import (
    apply_plan,
    evaluate,
    load_changes,
    object_key,
    original,
    split_patches,
    step_objects,
)
from planner.engines.workloads import parse_workload
from planner.load import load_snapshot
from tests.conftest import SCENARIOS, run_cli

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
OPTS = SolveOptions()


# --------------------------------------------------------------------------- cases


def _overlap() -> Path:
    """Seed 000 at the blue/green overlap: the fixed scenario's placement (blue-0 zone-a, blue-1
    zone-b, green-0 zone-a, green-1's volume in zone-b, green-1 evicted) with the shared selector
    app=my_app of the original.  green-1 in zone-b would make zone-b 2 against zone-c 0."""
    d = yaml.safe_load((SCENARIOS / "blue-green-shared-selector-fixed.yaml").read_text())
    d["metadata"]["name"] = "blue-green-shared-selector-overlap"
    d.pop("expect", None)
    for o in d["objects"]:
        for c in o["spec"]["template"]["spec"]["topologySpreadConstraints"]:
            c["labelSelector"] = {"matchLabels": {"app": "my_app"}}
    return _write("seed-000-overlap.yaml", d)


def _ordered() -> Path:
    """Seed 001 with podManagementPolicy OrderedReady: scaling to 4 never creates search-3."""
    d = yaml.safe_load((SCENARIOS / "hpa-scale-up-retained-volume.yaml").read_text())
    d["metadata"]["name"] = "seed-001-ordered"
    d.pop("expect", None)
    d.pop("steps", None)
    for o in d["objects"]:
        if o["kind"] == "StatefulSet":
            o["spec"]["podManagementPolicy"] = "OrderedReady"
    return _write("seed-001-ordered.yaml", d)


@cache
def _fixtures() -> Path:
    return Path(tempfile.mkdtemp(prefix="planner-remediate-"))


def _write(name: str, doc: dict) -> Path:
    p = _fixtures() / name
    p.write_text(yaml.safe_dump(doc, sort_keys=False))
    return p


CASES = {
    "seed-000": (lambda: SCENARIOS / "blue-green-shared-selector.yaml", "statefulset/green", "replicas", 2),
    "seed-001": (lambda: SCENARIOS / "hpa-scale-up-retained-volume.yaml", "statefulset/search", "replicas", 3),
    "seed-003": (lambda: SCENARIOS / "zone-anti-affinity-six-replicas.yaml", "deployment/az-spread-test-anti", "replicas", 6),
    "seed-004": (lambda: SCENARIOS / "rollout-hostname-anti-affinity.yaml", "deployment/web", "rollout", None),
    "seed-000-overlap": (_overlap, "statefulset/green", "replicas", 2),
    "seed-001-ordered-scale": (_ordered, "statefulset/search", "scale", 4),
    "seed-000-replay": (lambda: SCENARIOS / "blue-green-shared-selector-replay.yaml", "statefulset/blue", "replay", None),
    # an ordinary cluster: a cordoned node, a tainted pool, an HPA-managed StatefulSet of a Helm release
    "ordinary": (lambda: SCENARIOS / "cordoned-node-hpa-helm.yaml", "shop:statefulset/api", "replicas", 6),
    "node-groups": (lambda: SCENARIOS / "daemonsets-node-groups.yaml", "deployment/web", "replicas", 16),
}


@cache
def _path(case: str) -> Path:
    return CASES[case][0]()


@cache
def _snap(case: str):
    return load_snapshot([str(_path(case))])


def _goal(case: str) -> Goal:
    _, w, kind, n = CASES[case]
    ns, _, w = w.rpartition(":")  # "NAMESPACE:KIND/NAME"
    ref = parse_workload(w, ns or None)
    if kind == "replay":  # the scenario's own steps, as `--steps SCENARIO` reads them
        return Goal(ref, kind, None, steps=_snap(case).scenario["steps"], source=str(_path(case)))
    return Goal(ref, kind, n)


@cache
def _outcome(case: str, allow_destructive: bool = False, forbid: tuple[str, ...] = ()):
    return remediate(_snap(case), _goal(case), forbid, allow_destructive, top=10, opts=OPTS)


def _labels(plan) -> set[str]:
    return {a.label() for a in plan.actions}


# --------------------------------------------------------------------------- the seeds


@pytest.mark.parametrize("case", list(CASES))
def test_plans_are_marked_ranked_and_minimal(case):
    out = _outcome(case)
    assert not out.schedulable_now and out.plans, out.failure
    seen_destructive = False
    for p in out.plans:
        for a in p.actions:
            assert a.type in ACTION_TYPES
            assert a.destructive == (a.type in DESTRUCTIVE_TYPES)
            assert a.summary and a.commands and a.patches
        if seen_destructive:
            assert p.destructive, "a non-destructive plan ranks after a destructive one"
        seen_destructive = seen_destructive or p.destructive
        assert p.verified and all(p.verified.values()), p.verified
    keys = [p.rank_key(False) for p in out.plans]
    assert keys == sorted(keys)
    for p in out.plans:  # none a superset of another (cheaper or not)
        for q in out.plans:
            if p is q or not _labels(q) < _labels(p):
                continue
            # the one exception: a selector shared by releases scoped in every one of them (the
            # authors' fix of seed 000); the actions the smaller plan does without say so
            assert all(a.type == "narrow-spread-selector" and a.group for a in p.actions), (_labels(p), _labels(q))
            extra = [a for a in p.actions if a.label() not in _labels(q)]
            assert all(any(e.startswith("not needed for this goal") for e in a.side_effects) for a in extra)
    assert len({frozenset(_labels(p)) for p in out.plans}) == len(out.plans)
    # a plan that changes the goal (scale-to) is never among the plans: it is an alternative
    assert not any(p.changes_goal for p in out.plans) and all(p.changes_goal and p.verified for p in out.alternatives)
    for p in out.plans + out.alternatives:
        for a in p.actions:
            assert bool(a.risks) == a.destructive, (a.label(), a.risks)


def test_seed_001_the_authors_fixes_and_delete_last():
    """The goal is 3 replicas: the plans reach 3 (the spread weakened first); running 4 (what the
    HPA did in the story) changes the goal, so it is an alternative, listed apart; and since an
    HPA manages search it is the HPA's minReplicas, never `kubectl scale` (the HPA would undo it)."""
    out = _outcome("seed-001")
    first = out.plans[0].actions[0]
    assert (first.type, first.params, first.advisory) == ("raise-max-skew", {"topologyKey": "topology.kubernetes.io/zone", "maxSkew": 2}, False)
    assert not any(p.changes_goal for p in out.plans) and all(p.changes_goal for p in out.alternatives)
    [alt] = out.alternatives
    scale = alt.actions[0]
    assert (scale.type, scale.replicas, scale.advisory) == ("scale-to", 4, True)
    assert scale.params == {"replicas": 4, "hpa": "default/search", "minReplicas": 4, "maxReplicas": 6}
    assert [(p.kind, p.name, p.type) for p in scale.patches] == [("HorizontalPodAutoscaler", "search", "json")]
    assert scale.patches[0].body[-1] == {"op": "replace", "path": "/spec/minReplicas", "value": 4}
    assert scale.commands[0].startswith("kubectl patch hpa search -n default --type json")
    assert not any("kubectl scale" in c for p in out.plans + out.alternatives for a in p.actions for c in a.commands)
    types = [p.actions[0].type for p in out.plans]
    assert "set-when-unsatisfiable" in types and "raise-max-skew" in types
    last = out.plans[-1].actions[0]
    assert last.type == "delete-pvc" and last.target == "persistentvolumeclaim/default/data-search-2" and last.destructive
    kinds = [(p.kind, p.type) for p in last.patches]
    # the safeguard first: the PV kept (Retain) before the claim goes
    assert kinds == [("PersistentVolume", "json"), ("PersistentVolumeClaim", "delete"), ("Pod", "delete")]
    assert last.patches[0].body[-1] == {"op": "replace", "path": "/spec/persistentVolumeReclaimPolicy", "value": "Retain"}


def test_seed_000_release_selector_is_tried_and_rejected_here_and_first_at_the_overlap():
    out = _outcome("seed-000")
    assert out.plans[0].actions[0].type == "raise-max-skew"
    assert not any(a.type == "narrow-spread-selector" for p in out.plans for a in p.actions)
    why = next(r["reason"] for r in out.rejected if r["actions"][0].startswith("narrow-spread-selector"))
    assert "skew 2 > maxSkew 1" in why and "release=depl-124" in why
    overlap = _outcome("seed-000-overlap")
    a = overlap.plans[0].actions[0]
    assert a.type == "narrow-spread-selector" and a.params["add_match_labels"] == {"release": "depl-124"}
    assert overlap.plans[0].cost.spread_weakened == 0
    ops = a.patches[0].body
    assert ops[-1] == {"op": "add", "path": "/spec/template/spec/topologySpreadConstraints/0/labelSelector/matchLabels/release", "value": "depl-124"}
    # green-1 is Pending under OrderedReady: the template change deletes it too, or it never rolls
    assert ("Pod", "delete", "green-1") in [(p.kind, p.type, p.name) for p in a.patches]


def test_seed_000_replay_the_authors_fix_on_the_transition():
    """The replay goal (create green, delete blue, evict green-1): scoping green's selector, a change
    of the green manifest before step 1 applies it, ranks first; the authors' fix, both colours
    scoped to their release, is a plan too, before anything that weakens the spread or adds nodes."""
    out = _outcome("seed-000-replay")
    assert not out.schedulable_now and "default/green-1" in out.failure
    first = out.plans[0].actions
    assert [(a.type, a.target, a.params["add_match_labels"]) for a in first] == [
        ("narrow-spread-selector", "statefulset/default/green", {"release": "depl-124"})
    ]
    green = first[0]
    assert [(p.kind, p.name, p.type) for p in green.patches] == [("StatefulSet", "green", "create")]
    assert "the green manifest before it is applied" in green.summary and green.params["step"] == 1
    assert green.cost.pods_restarted == 0 and not green.rolls_template
    tsc = green.patches[0].body["spec"]["template"]["spec"]["topologySpreadConstraints"][0]
    assert tsc["labelSelector"] == {"matchLabels": {"app": "my_app", "release": "depl-124"}}
    assert all(c.startswith("#") for c in green.commands)  # green does not exist yet: nothing to run now
    both = [
        i
        for i, p in enumerate(out.plans)
        if sorted((a.target, a.params.get("add_match_labels")) for a in p.actions if a.type == "narrow-spread-selector")
        == [("statefulset/default/blue", {"release": "depl-123"}), ("statefulset/default/green", {"release": "depl-124"})]
        and len(p.actions) == 2
    ]
    assert len(both) == 1, [[a.label() for a in p.actions] for p in out.plans]
    authors = out.plans[both[0]]
    assert authors.cost.spread_weakened == 0 and authors.cost.money == 0 and not authors.destructive
    assert all(p.cost.spread_weakened == 0 and p.cost.money == 0 for p in out.plans[: both[0]])
    blue = next(a for a in authors.actions if a.target == "statefulset/default/blue")
    assert [p.type for p in blue.patches] == ["json"] and blue.cost.pods_restarted == 2
    assert any(e.startswith("not needed for this goal") for e in blue.side_effects)
    # blue's selector alone changes nothing in this replay (blue's pods are never placed again)
    assert any(r["actions"][0].startswith("narrow-spread-selector statefulset/default/blue") for r in out.rejected)
    # the corrected manifest replaces the step's: green is not created before step 1
    trial, goal = apply_plan(_snap("seed-000-replay"), _goal("seed-000-replay"), [p for a in authors.actions for p in a.patches])
    assert "default/green" not in trial.statefulsets
    created = goal.steps[0]["create"]["spec"]["template"]["spec"]["topologySpreadConstraints"][0]["labelSelector"]
    assert created == {"matchLabels": {"app": "my_app", "release": "depl-124"}}
    assert _goal("seed-000-replay").steps[0]["create"]["spec"]["template"]["spec"]["topologySpreadConstraints"][0]["labelSelector"] == {
        "matchLabels": {"app": "my_app"}
    }


def test_replay_goal_cli_steps_file_and_errors(tmp_path):
    """--steps FILE: a steps file as simulate --steps reads it (a list, or a mapping with steps:,
    such as the scenario itself); the fixed twin's replay completes (exit 0, nothing to fix)."""
    scen = SCENARIOS / "blue-green-shared-selector-replay.yaml"
    steps = tmp_path / "switch.yaml"
    steps.write_text(yaml.safe_dump(yaml.safe_load(scen.read_text())["steps"]))
    r = run_cli(["remediate", scen, "-w", "statefulset/blue", "--steps", steps, "-o", "json", "--top", "10"])
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["goal"] == {"type": "replay", "workload": "statefulset/default/blue", "replicas": None, "steps": str(steps)}
    same = json.loads(run_cli(["remediate", scen, "-w", "statefulset/blue", "--steps", scen, "-o", "json", "--top", "10"]).out)
    def shape(d: dict) -> list:
        return [[(a["type"], a["target"]) for a in p["actions"]] for p in d["plans"]]

    assert shape(data) == shape(same) and data["plans"]
    t = run_cli(["remediate", scen, "-w", "statefulset/blue", "--steps", scen])
    assert t.code == 0 and t.out.startswith(f"the steps of {scen} (statefulset/default/blue): FAILS now")
    assert "change the green manifest before it is applied (step 1 of" in t.out
    fixed = SCENARIOS / "blue-green-shared-selector-replay-fixed.yaml"
    ok = run_cli(["remediate", fixed, "-w", "statefulset/blue", "--steps", fixed, "-o", "json"])
    assert ok.code == 0 and json.loads(ok.out)["schedulable_now"] is True
    # --emit: the corrected green manifest is a file, and the runbook only says when to use it
    out_dir = tmp_path / "fix"
    assert run_cli(["remediate", scen, "-w", "statefulset/blue", "--steps", scen, "--emit", out_dir, "-o", "json"]).code == 0
    runbook = (out_dir / "plan-1" / "runbook.sh").read_text()
    assert "# the corrected object, for step 1 of" in runbook and "kubectl create -f 01-1-create-statefulset-default-green.yaml" in runbook
    assert not any(line.startswith("kubectl") for line in runbook.splitlines())
    body = yaml.safe_load((out_dir / "plan-1" / "01-1-create-statefulset-default-green.yaml").read_text())
    assert body["metadata"]["name"] == "green" and body["spec"]["template"]["metadata"]["labels"]["release"] == "depl-124"
    # errors: exit 2
    empty = tmp_path / "empty.yaml"
    empty.write_text("[]\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {teleport: default/green-1}\n")
    for args in (
        ["--steps", empty],
        ["--steps", bad],
        ["--steps", tmp_path / "missing.yaml"],
        ["--steps", scen, "--rollout"],
        ["--steps", SCENARIOS / "rollout-hostname-anti-affinity-fixed.yaml"],  # a scenario without steps
    ):
        e = run_cli(["remediate", scen, "-w", "statefulset/blue", *args])
        assert e.code == 2 and "Traceback" not in e.err and e.err.strip(), (args, e.err)


def test_seed_004_node_first_then_the_authors_max_unavailable():
    out = _outcome("seed-004")
    got = [(p.actions[0].type, p.actions[0].params) for p in out.plans]
    # the node group of nodes without a group label: zone and instance type (none here); its
    # template is the first ready, uncordoned node (cluster-autoscaler), not the largest
    assert got[0] == (
        "scale-node-group",
        {"group": "(no zone)/(no instance type)", "label": "zone/instance-type", "zone": None, "count": 1, "template": "node0", "daemonset_pods": []},
    )
    assert got[1] == ("set-rollout-strategy", {"maxUnavailable": "50%"})
    assert ("set-rollout-strategy", {"maxSurge": 0, "maxUnavailable": 1}) in got
    assert any(r["actions"][0].startswith("relax-anti-affinity") for r in out.rejected)


def test_seed_003_relaxing_needs_the_old_pods_gone():
    out = _outcome("seed-003")
    combos = [sorted(a.type for a in p.actions) for p in out.plans]
    assert combos[0] == ["relax-anti-affinity", "set-rollout-strategy"]  # reaches the 6 asked for
    # 3 replicas (one per zone) changes the goal: an alternative, after the plans; no HPA here: kubectl scale
    alt = out.alternatives[0].actions[0]
    assert alt.type == "scale-to" and alt.params == {"replicas": 3} and alt.commands[0].startswith("kubectl scale deployment")


def test_ordered_scale_pod_management_is_destructive_and_ranked_by_cost_when_allowed():
    out = _outcome("seed-001-ordered-scale")
    types = [p.actions[0].type for p in out.plans]
    assert "set-pod-management-policy" in types
    i = types.index("set-pod-management-policy")
    assert all(not p.destructive for p in out.plans[:i]) and all(p.destructive for p in out.plans[i:])
    spmp = out.plans[i].actions[0]
    assert [(p.kind, p.type) for p in spmp.patches] == [("StatefulSet", "delete"), ("StatefulSet", "create")]
    assert any("--cascade=orphan" in c for c in spmp.commands)
    assert spmp.patches[1].body["spec"]["podManagementPolicy"] == "Parallel"
    assert "uid" not in spmp.patches[1].body["metadata"] and "status" not in spmp.patches[1].body
    assert spmp.patches[0].propagation == "Orphan" and spmp.risks[0].startswith("availability: between the delete and the create")
    dpvc = next(a for p in out.plans for a in p.actions if a.type == "delete-pvc")
    assert dpvc.risks[0].startswith("data loss:") and dpvc.patches[1].wait is False
    allowed = _outcome("seed-001-ordered-scale", allow_destructive=True)
    assert allowed.plans[0].actions[0].type == "set-pod-management-policy"  # cheapest by cost alone
    assert allowed.plans[-1].actions[0].type == "delete-pvc"  # data loss still costs most


def test_forbid_and_top():
    out = _outcome("seed-001", forbid=("scale-to", "raise-max-skew"))
    types = {a.type for p in out.plans for a in p.actions}
    assert not types & {"scale-to", "raise-max-skew"}
    assert out.plans[0].actions[0].type == "set-when-unsatisfiable"
    r = run_cli(["remediate", _path("seed-001"), "-w", "statefulset/search", "--replicas", "3", "--top", "2", "-o", "json"])
    assert r.code == 0 and len(json.loads(r.out)["plans"]) == 2


def test_json_patches_guard_what_they_change():
    """Every JSON patch starts with test operations, and a change inside topologySpreadConstraints
    or an anti-affinity term is guarded on that very element (never a strategic merge)."""
    for case in CASES:
        for p in _outcome(case).plans:
            for a in p.actions:
                bodies = [x.body for x in a.patches if x.type == "json"]
                if "manifest_patch" in a.params:  # the ops for a manifest a create: step applies
                    bodies.append(a.params["manifest_patch"])
                assert all(x.type in ("json", "merge", "delete", "create") for x in a.patches)
                for ops in bodies:
                    assert ops[0]["op"] == "test", ops
                    tested = [o["path"] for o in ops if o["op"] == "test"]
                    for o in ops:
                        if o["op"] != "test" and "/topologySpreadConstraints/" in o["path"]:
                            i = o["path"].split("/topologySpreadConstraints/")[1].split("/")[0]
                            assert any(t.endswith(f"/topologySpreadConstraints/{i}/topologyKey") for t in tested), ops


# --------------------------------------------------------------------------- kubectl


def _kubectl_patch(obj: dict, patch_type: str, body, tmp_path: Path) -> dict:
    f = tmp_path / "object.json"
    f.write_text(json.dumps(obj))
    r = subprocess.run(
        [KUBECTL, "patch", "--local", "-f", str(f), "--type", patch_type, "-p", json.dumps(body), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@needs_kubectl
@pytest.mark.parametrize("case", list(CASES))
def test_every_patch_applies_with_kubectl_and_reaches_the_goal(case, tmp_path):
    """The printed patches, applied by kubectl to the objects as read, give planner's own result,
    and the snapshot built from kubectl's objects reaches the goal (check and the replay)."""
    snap, goal = _snap(case), _goal(case)
    out = _outcome(case)
    for plan in out.plans + out.alternatives:
        printed = plan.to_dict()
        changed: dict = {}
        # a replay goal's create: steps: the corrected manifest replaces the step's (kubectl
        # patch --local applies the action's manifest_patch to the manifest as written)
        made = step_objects(goal)
        patches = [ObjectPatch(**p) for act in printed["actions"] for p in act["patches"]]
        live, replay_goal = split_patches(snap, goal, patches)
        for act in printed["actions"]:
            if "manifest_patch" in act["params"]:
                creates = [p for p in act["patches"] if p["type"] == "create"]
                assert len(creates) == 1 and not any(p["type"] == "json" for p in act["patches"]), act["patches"]
                c = creates[0]
                _, manifest = made[(c["kind"], object_key(c["kind"], c["namespace"], c["name"]))]
                assert _kubectl_patch(manifest, "json", act["params"]["manifest_patch"], tmp_path) == c["body"]
                assert "before it is applied" in act["summary"] and act["summary"].startswith(f"change the {c['name']} manifest")
            for p in act["patches"]:
                if not any(p == q.to_dict() for q in live):
                    continue
                key = object_key(p["kind"], p["namespace"], p["name"])
                cur = changed[(p["kind"], key)] if (p["kind"], key) in changed else original(snap, p["kind"], key)
                if p["type"] in ("json", "merge"):
                    assert cur is not None, p
                    got = _kubectl_patch(cur, p["type"], p["body"], tmp_path)
                    mine = apply_json_patch(cur, p["body"]) if p["type"] == "json" else apply_merge_patch(cur, p["body"])
                    assert got == mine, (p["kind"], p["name"])
                    changed[(p["kind"], key)] = got
                elif p["type"] == "delete":
                    assert cur is not None, p
                    changed[(p["kind"], key)] = None
                else:
                    assert cur is None, p
                    # kubectl decodes the body as an object of its kind (an empty merge changes nothing)
                    assert _kubectl_patch(p["body"], "merge", {}, tmp_path)["metadata"]["name"] == p["name"]
                    changed[(p["kind"], key)] = p["body"]
        trial = load_changes(snap, changed)
        n = next((a.replicas for a in plan.actions if a.replicas is not None), None)
        rolls = any(a.rolls_template for a in plan.actions)
        v = evaluate(trial, replay_goal, OPTS, 0, replicas=n, template_changed=rolls)
        assert v.ok, ([a.label() for a in plan.actions], v.reason)


@needs_kubectl
def test_a_stale_object_is_refused_by_the_test_guard(tmp_path):
    """A patch made for maxSkew 1 does not apply once someone changed maxSkew: kubectl fails."""
    snap = _snap("seed-001")
    plan = next(p for p in _outcome("seed-001").plans if p.actions[0].type == "raise-max-skew")
    patch = plan.actions[0].patches[0]
    obj = json.loads(json.dumps(original(snap, "StatefulSet", "default/search")))
    obj["spec"]["template"]["spec"]["topologySpreadConstraints"][0]["maxSkew"] = 3
    f = tmp_path / "sts.json"
    f.write_text(json.dumps(obj))
    r = subprocess.run([KUBECTL, "patch", "--local", "-f", str(f), "--type", "json", "-p", json.dumps(patch.body), "-o", "json"], capture_output=True, text=True)
    assert r.returncode != 0 and "test failed" in r.stderr
    with pytest.raises(PatchError):
        apply_json_patch(obj, patch.body)


# --------------------------------------------------------------------------- the command


def test_cli_json_table_and_exit_codes():
    s001 = _path("seed-001")
    r = run_cli(["remediate", s001, "--workload", "statefulset/search", "--replicas", "3", "-o", "json"])
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["goal"] == {"type": "replicas", "workload": "statefulset/default/search", "replicas": 3}
    assert data["schedulable_now"] is False and data["plans"]
    t = run_cli(["remediate", s001, "--workload", "statefulset/search", "--replicas", "3"])
    assert t.code == 0 and "plan 1" in t.out and "DESTRUCTIVE" in t.out and "kubectl patch statefulset search" in t.out
    # nothing to fix: exit 0, no plans
    ok = run_cli(["remediate", s001, "--workload", "statefulset/search", "--replicas", "4", "-o", "json"])
    assert ok.code == 0 and json.loads(ok.out)["schedulable_now"] is True and json.loads(ok.out)["plans"] == []
    fixed = run_cli(["remediate", SCENARIOS / "rollout-hostname-anti-affinity-fixed.yaml", "-w", "deployment/web", "--rollout", "-o", "json"])
    assert fixed.code == 0 and json.loads(fixed.out)["schedulable_now"] is True
    # no plan: exit 1
    every = [x for t_ in ACTION_TYPES for x in ("--forbid", t_)]
    none = run_cli(["remediate", s001, "--workload", "statefulset/search", "--replicas", "3", "-o", "json", *every])
    assert none.code == 1 and json.loads(none.out)["plans"] == []
    # errors: exit 2, one line, no traceback
    for bad in (
        ["--replicas", "3", "--rollout"],
        [],
        ["--replicas", "3", "--forbid", "delete-everything"],
    ):
        e = run_cli(["remediate", s001, "--workload", "statefulset/search", *bad])
        assert e.code == 2 and "Traceback" not in e.err and e.err.strip(), (bad, e.err)
    missing = run_cli(["remediate", s001, "--workload", "statefulset/nope", "--replicas", "3"])
    assert missing.code == 2 and "not found" in missing.err


def _recording_kubectl(tmp_path: Path, current: str = "prod-eu") -> tuple[dict, Path]:
    """A kubectl first on PATH that only records its arguments; ``config current-context`` prints
    ``current``."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    log = tmp_path / "kubectl.log"
    fake = bindir / "kubectl"
    fake.write_text(f'#!/usr/bin/env bash\necho "$*" >> {log}\nif [ "$1" = config ]; then echo {current}; fi\n')
    fake.chmod(0o755)
    return {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"}, log


def test_emit_writes_patches_and_a_guarded_runbook(tmp_path):
    out_dir = tmp_path / "fix"
    r = run_cli(
        ["remediate", _path("seed-001"), "-w", "statefulset/search", "--replicas", "3", "--emit", out_dir, "--context", "prod-eu", "-o", "json"]
    )
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert json.loads((out_dir / "remediate.json").read_text()) == data and data["context"] == "prod-eu"
    n = len(data["plans"])
    assert sorted(p.name for p in out_dir.glob("plan-*")) == [f"plan-{i}" for i in range(1, n + 1)]
    # the alternative (the HPA's minReplicas: another goal) has its own folder
    assert sorted(p.name for p in out_dir.glob("alternative-*")) == ["alternative-1"]
    alt = (out_dir / "alternative-1" / "runbook.sh").read_text()
    assert "an ALTERNATIVE: this plan changes the goal" in alt and "kubectl --context prod-eu patch hpa search -n default" in alt
    last = out_dir / f"plan-{n}"
    assert data["plans"][-1]["destructive"]
    runbook = last / "runbook.sh"
    text = runbook.read_text()
    assert os.access(runbook, os.X_OK)
    assert subprocess.run(["bash", "-n", str(runbook)]).returncode == 0
    # every kubectl command names the context; every delete is guarded by the object's uid
    commands = [ln for ln in text.splitlines() if ln.startswith("kubectl ")]
    assert commands and all(ln.startswith("kubectl --context prod-eu ") for ln in commands)
    assert text.index("confirm ") < text.index("kubectl --context prod-eu delete --raw /api/v1/namespaces/default/persistentvolumeclaims/data-search-2")
    assert not any(" delete pvc " in ln or " delete pod " in ln for ln in commands)
    pvc_uid = data["plans"][-1]["actions"][0]["patches"][1]["body"]["metadata"]["uid"]
    options = json.loads((last / "01-2-delete-pvc-default-data-search-2.options.json").read_text())
    assert options == {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": pvc_uid}}
    assert f"is deleted only if its uid is still {pvc_uid}" in text
    pv_patch = json.loads((last / "01-1-json-pv-pv-data-search-2.json").read_text())
    assert pv_patch == data["plans"][-1]["actions"][0]["patches"][0]["body"]
    # run it against a kubectl that only records its arguments
    env, log = _recording_kubectl(tmp_path)
    no = subprocess.run(["bash", str(runbook)], input="no\n", capture_output=True, text=True, env=env)
    assert no.returncode == 1 and log.read_text().splitlines() == ["config current-context"]  # stopped before the destructive step
    log.unlink()
    yes = subprocess.run(["bash", str(runbook), "--yes"], capture_output=True, text=True, env=env)
    assert yes.returncode == 0, yes.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "config current-context"
    assert calls[2].startswith("--context prod-eu patch pv pv-data-search-2 --type json --patch-file 01-1-json-pv-pv-data-search-2.json")
    assert "--context prod-eu delete --raw /api/v1/namespaces/default/persistentvolumeclaims/data-search-2 -f 01-2-delete-pvc-default-data-search-2.options.json" in calls
    assert "--context prod-eu delete --raw /api/v1/namespaces/default/pods/search-2 -f 01-3-delete-pod-default-search-2.options.json" in calls
    # another current context: the pinned runbook refuses to start, nothing runs
    log.unlink()
    env2, _ = _recording_kubectl(tmp_path, current="staging")
    other = subprocess.run(["bash", str(runbook), "--yes"], capture_output=True, text=True, env=env2)
    assert other.returncode == 1 and "written for the kube-context prod-eu, but the current context is 'staging'" in other.stderr
    assert log.read_text().splitlines() == ["config current-context"]
    # the non-destructive plans need no confirmation
    assert "confirm " not in (out_dir / "plan-1" / "runbook.sh").read_text().split("}\n", 1)[1]


def test_emit_without_a_context_says_none_was_pinned(tmp_path):
    """No --context: the runbook says no context was pinned, names the current one and asks; with
    --yes it goes on, every command naming the context it read at the start."""
    out_dir = tmp_path / "fix"
    r = run_cli(["remediate", _path("seed-001"), "-w", "statefulset/search", "--replicas", "3", "--emit", out_dir, "-o", "json"])
    assert r.code == 0 and json.loads(r.out)["context"] is None
    runbook = out_dir / "plan-1" / "runbook.sh"
    text = runbook.read_text()
    assert "# kube-context: NONE WAS PINNED" in text
    assert all(ln.startswith('kubectl --context "$KUBE_CONTEXT" ') for ln in text.splitlines() if ln.startswith("kubectl "))
    env, log = _recording_kubectl(tmp_path, current="whatever-is-current")
    no = subprocess.run(["bash", str(runbook)], input="no\n", capture_output=True, text=True, env=env)
    assert no.returncode == 1 and "the cluster of the current context, whatever-is-current" in no.stderr
    assert log.read_text().splitlines() == ["config current-context"]
    log.unlink()
    yes = subprocess.run(["bash", str(runbook), "--yes"], capture_output=True, text=True, env=env)
    assert yes.returncode == 0, yes.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "config current-context" and calls[1].startswith("--context whatever-is-current patch statefulset search -n default")
    for bad in ("", "a\nb"):
        e = run_cli(["remediate", _path("seed-001"), "-w", "statefulset/search", "--replicas", "3", "--context", bad])
        assert e.code == 2 and "--context" in e.err and "Traceback" not in e.err


@needs_kubectl
def test_guarded_delete_with_the_real_kubectl(tmp_path):
    """kubectl v1.32 itself sends the runbook's DeleteOptions (preconditions.uid) as the body of
    the DELETE (`kubectl delete --raw PATH -f FILE`), and stops (exit 1) when the API server
    answers 409 Conflict: a stand-in API server on localhost answers as the real one does."""
    import http.server
    import threading

    seen: list[tuple[str, str, dict]] = []

    class Api(http.server.BaseHTTPRequestHandler):
        def do_DELETE(self):  # noqa: N802 (http.server's name)
            if self.headers.get("Transfer-Encoding") == "chunked":
                body = b""
                while (size := int(self.rfile.readline().strip(), 16)) > 0:
                    body += self.rfile.read(size)
                    self.rfile.readline()
                self.rfile.readline()
            else:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            opts = json.loads(body or b"{}")
            seen.append((self.path, str(self.headers.get("Content-Type")), opts))
            ok = opts.get("preconditions", {}).get("uid") == "uid-as-read"
            status = {"kind": "Status", "apiVersion": "v1", "status": "Success" if ok else "Failure", "code": 200 if ok else 409}
            if not ok:
                status.update(reason="Conflict", message="Precondition failed: UID in precondition: uid-old, UID in object meta: uid-as-read")
            self.send_response(200 if ok else 409)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(status).encode())

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        kubeconfig = tmp_path / "kubeconfig"
        kubeconfig.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "c", "cluster": {"server": f"http://127.0.0.1:{server.server_port}"}}],
                    "users": [{"name": "u", "user": {}}],
                    "contexts": [{"name": "prod-eu", "context": {"cluster": "c", "user": "u"}}],
                    "current-context": "prod-eu",
                }
            )
        )
        env = {**os.environ, "KUBECONFIG": str(kubeconfig)}
        for uid, code in (("uid-as-read", 0), ("uid-old", 1)):
            p = ObjectPatch("PersistentVolumeClaim", "default", "data-web-0", "delete", {"metadata": {"name": "data-web-0", "uid": uid}}, wait=False)
            f = tmp_path / "options.json"
            f.write_text(json.dumps(p.delete_options()))
            cmd = p.kubectl(file=str(f))
            assert cmd == f"kubectl delete --raw /api/v1/namespaces/default/persistentvolumeclaims/data-web-0 -f {f}"
            words = cmd.split()
            r = subprocess.run([KUBECTL, "--context", "prod-eu", *words[1:]], capture_output=True, text=True, env=env, timeout=60)
            assert r.returncode == code, r.stderr
        assert [(path, opts["preconditions"]["uid"]) for path, _, opts in seen] == [
            ("/api/v1/namespaces/default/persistentvolumeclaims/data-web-0", "uid-as-read"),
            ("/api/v1/namespaces/default/persistentvolumeclaims/data-web-0", "uid-old"),
        ]
        assert "Conflict" in r.stderr or "Precondition failed" in r.stderr
        orphan = ObjectPatch("StatefulSet", "default", "web", "delete", {"metadata": {"uid": "uid-as-read"}}, propagation="Orphan")
        assert orphan.api_path() == "/apis/apps/v1/namespaces/default/statefulsets/web"
        assert orphan.delete_options()["propagationPolicy"] == "Orphan"
    finally:
        server.shutdown()


# --------------------------------------------------------------------------- RFC 6902 / 7386


def test_json_patch_rfc6902_examples():
    doc = {"foo": "bar", "baz": [1, 2], "a/b": {"m~n": 1}}
    assert apply_json_patch(doc, [{"op": "add", "path": "/qux", "value": 1}])["qux"] == 1
    assert apply_json_patch(doc, [{"op": "add", "path": "/baz/1", "value": 9}])["baz"] == [1, 9, 2]
    assert apply_json_patch(doc, [{"op": "add", "path": "/baz/-", "value": 3}])["baz"] == [1, 2, 3]
    assert "foo" not in apply_json_patch(doc, [{"op": "remove", "path": "/foo"}])
    assert apply_json_patch(doc, [{"op": "replace", "path": "/foo", "value": 0}])["foo"] == 0
    moved = apply_json_patch(doc, [{"op": "move", "from": "/foo", "path": "/bar"}])
    assert "foo" not in moved and moved["bar"] == "bar"
    assert apply_json_patch(doc, [{"op": "copy", "from": "/baz", "path": "/c"}])["c"] == [1, 2]
    assert apply_json_patch(doc, [{"op": "test", "path": "/a~1b/m~0n", "value": 1.0}]) == doc
    assert pointer("a/b", "m~n") == "/a~1b/m~0n" and escape("~/") == "~0~1"
    for bad in (
        [{"op": "test", "path": "/foo", "value": "baz"}],
        [{"op": "replace", "path": "/nope", "value": 1}],
        [{"op": "remove", "path": "/baz/2"}],
        [{"op": "add", "path": "/baz/01", "value": 1}],
        [{"op": "add", "path": "/x/y", "value": 1}],
    ):
        with pytest.raises(PatchError):
            apply_json_patch(doc, bad)
    # a failed test leaves the document untouched
    with pytest.raises(PatchError):
        apply_json_patch(doc, [{"op": "add", "path": "/new", "value": 1}, {"op": "test", "path": "/foo", "value": 1}])
    assert "new" not in doc
    assert json_equal({"a": [1, {"b": 2}]}, {"a": [1.0, {"b": 2}]}) and not json_equal(True, 1)


def test_merge_patch_rfc7386_examples():
    assert apply_merge_patch({"a": "b"}, {"a": "c"}) == {"a": "c"}
    assert apply_merge_patch({"a": "b"}, {"b": "c"}) == {"a": "b", "b": "c"}
    assert apply_merge_patch({"a": "b"}, {"a": None}) == {}
    assert apply_merge_patch({"a": [{"b": "c"}]}, {"a": [1]}) == {"a": [1]}
    assert apply_merge_patch({"e": None}, {"a": 1}) == {"e": None, "a": 1}
    assert apply_merge_patch({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}) == {"a": {"b": "d"}}


def test_the_action_model_proposes_the_cheapest_first():
    """One CP-SAT model over the candidates (planner.engines.remediation.choose): seed 001 at 3
    replicas; its optimum, maxSkew +1 (the ladder's smallest: +2 and +3 are variants of the same
    change and never listed once it works), is the first plan; delete-pvc (data loss) comes last;
    a plan is proposed only when it is the cheapest left, so only a handful are verified."""
    out = _outcome("seed-001")
    model = out.stats["model"]
    assert model["options"] >= 4 and model["worlds"] == 2 and out.stats["screening"] is None
    skews = [a.params["maxSkew"] for p in out.plans for a in p.actions if a.type == "raise-max-skew"]
    assert skews == [2]
    assert out.plans[0].actions[0].type == "raise-max-skew" and out.plans[-1].actions[0].type == "delete-pvc"
    assert model["proposed"] == len(out.plans) + model["rejected"]
    assert out.stats["verifications"] <= model["proposed"] + 8  # + scale-to's counts, by check


def test_a_plan_the_replay_rejects_is_repaired_with_a_rollout_strategy():
    """seed 003: relaxing the term places the 6 pods for check, but the replay sticks (the running
    pods keep the required term during the rollout): rejected with the replay's reason, then tried
    with each rollout strategy, which the check model does not see; Recreate works."""
    out = _outcome("seed-003")
    why = next(r["reason"] for r in out.rejected if r["actions"] == [a.label() for a in out.plans[0].actions if a.type == "relax-anti-affinity"])
    assert why.startswith("replay:")
    assert [a.type for a in out.plans[0].actions] == ["relax-anti-affinity", "set-rollout-strategy"]


def test_labels_show_nested_and_empty_parameters_plainly():
    """A rejected candidate's label (table and JSON ``rejected[].actions``) shows nested values as
    key:value, never a Python repr, and an empty value as -."""
    from planner.engines.remediation.actions import Action, Cost

    a = Action("set-requests", "statefulset/shop/api", "", [], [], Cost(), params={"requests": {"api": {"cpu": "800m"}}, "factor": "50%", "pods": [], "note": ""})
    assert a.label() == "set-requests statefulset/shop/api (requests=api=cpu:800m, factor=50%, pods=-, note=-)"
    b = Action("set-requests", "statefulset/shop/api", "", [], [], Cost(), params={"requests": {"api": {"cpu": "800m", "memory": "1Gi"}}})
    assert "requests=api={cpu:800m,memory:1Gi}" in b.label() and "'" not in b.label()


def test_verification_orders_checks_witness_only_when_the_replay_fails(monkeypatch):
    """A plan's check part is the model's answer (its placement not ordered pod by pod: the replay
    places every pod through the filters next); only the plan whose replay fails (seed 003's
    relaxed term alone) has check's witness ordered, for the check part of its verdict (then
    repaired), and the plans printed carry check and replay both true."""
    import planner.engines.remediation.search as search_mod

    monkeypatch.setenv("PLANNER_REMEDIATE_PROCESSES", "1")  # every verification in this process
    asked: list[tuple[bool, bool]] = []  # (witness, the verdict's ok) of each check part
    real = search_mod.evaluate

    def spy(*a, **k):
        v = real(*a, **k)
        if k.get("replay") is False and "witness" in k:
            asked.append((k["witness"], v.ok))
        return v

    monkeypatch.setattr(search_mod, "evaluate", spy)
    out = remediate(load_snapshot([str(_path("seed-003"))]), _goal("seed-003"), (), False, top=10, opts=OPTS)  # not _outcome's, kept
    assert [a.type for a in out.plans[0].actions] == ["relax-anti-affinity", "set-rollout-strategy"]
    assert all(p.verified == {"check": True, "replay": True} for p in out.plans)
    assert (True, True) in asked  # the relaxed term alone: placed by check's witness, not by the replay
    assert sum(1 for w, _ in asked if w) < sum(1 for w, _ in asked if not w)
