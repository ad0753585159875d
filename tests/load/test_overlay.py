"""Overlay: the inputs after the snapshot are applied over it as `kubectl apply` would (planner.load.overlay)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from planner.controllers.deployment import find_new_replicaset, replicasets_of
from planner.controllers.informers import indexed
from planner.controllers.statefulset import get_pod_revision, pods_of_statefulset, statefulset_revisions
from planner.engines.workloads import WorkloadRef, plan_workload
from planner.errors import InputError
from planner.load import load_snapshot, read_objects
from planner.load.overlay import bumped_generation, replace_object, template_changed
from tests.conftest import ROOT, SCENARIOS, run_cli

CHART = ROOT / "examples" / "helm" / "web-chart.yaml"
SEED4 = SCENARIOS / "rollout-hostname-anti-affinity.yaml"
SEED1 = SCENARIOS / "hpa-scale-up-retained-volume.yaml"


def _rendered(path: Path) -> list[dict]:
    """The objects of a scenario as `kubectl get -o yaml` prints them (planner render)."""
    r = run_cli(["render", path, "-o", "json"])
    assert r.code == 0, r.err
    return json.loads(r.out)["items"]


def _find(objs: list[dict], kind: str, name: str) -> dict:
    return next(o for o in objs if o["kind"] == kind and o["metadata"]["name"] == name)


def _manifest(obj: dict) -> dict:
    """What a chart renders for a live object: no status, no server metadata, no namespace."""
    out = copy.deepcopy(obj)
    out.pop("status", None)
    md = out["metadata"]
    for k in ("uid", "creationTimestamp", "generation", "resourceVersion", "namespace", "annotations", "ownerReferences"):
        md.pop(k, None)
    return out


def _helm(*objs: dict) -> str:
    """`helm template` output: '---' separators and '# Source:' comments."""
    parts = []
    for o in objs:
        parts.append(f"---\n# Source: chart/templates/{o['kind'].lower()}.yaml\n" + yaml.safe_dump(o, sort_keys=False))
    return "".join(parts)


# --------------------------------------------------------------------------- the rule


def test_replace_keeps_what_the_server_and_controllers_own():
    live = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "a", "uid": "u1", "generation": 4, "resourceVersion": "9",
                     "creationTimestamp": "2024-01-01T00:00:00Z", "labels": {"team": "x"},
                     "annotations": {"deployment.kubernetes.io/revision": "3"}},
        "spec": {"replicas": 7, "paused": False, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}, "creationTimestamp": None},
                              "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}},
        "status": {"observedGeneration": 4, "replicas": 7},
    }
    new = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"chart": "web-1"}, "uid": "forged"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}},
    }
    out, facts = replace_object(live, new)
    md = out["metadata"]
    assert (md["uid"], md["generation"], md["resourceVersion"]) == ("u1", 4, "9")  # the server's
    assert md["labels"] == {"team": "x", "chart": "web-1"}
    assert md["annotations"] == {"deployment.kubernetes.io/revision": "3"}
    assert out["spec"]["replicas"] == 7 and out["spec"]["paused"] is False  # left out by the manifest: kept
    assert out["status"] == live["status"]
    assert any("sets no replicas" in f for f in facts)
    # the template is the same once kubectl's "creationTimestamp: null" and the defaults are set aside
    assert not template_changed(live, out) and not any("revision" in f for f in facts)
    # a new image: a new generation, the status no longer describes the template
    new["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    new["spec"]["replicas"] = 3
    out, facts = replace_object(live, new)
    assert out["metadata"]["generation"] == 5 and out["spec"]["replicas"] == 3
    assert any("previous revision" in f for f in facts) and not any("replicas" in f for f in facts)


def test_bumped_generation_without_one():
    assert bumped_generation({"metadata": {}}) == 2
    assert bumped_generation({"metadata": {}, "status": {"observedGeneration": 6}}) == 7
    assert bumped_generation({"metadata": {"generation": 3}, "status": {"observedGeneration": 6}}) == 4


def test_a_pod_is_kept_or_created_again():
    live = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "uid": "u"},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]},
            "status": {"phase": "Running"}}
    same = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"x": "1"}},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}]}}
    out, facts = replace_object(live, same)
    assert out["spec"]["nodeName"] == "n1" and out["status"] == {"phase": "Running"} and out["metadata"]["labels"] == {"x": "1"}
    assert not facts
    bigger = copy.deepcopy(same)
    bigger["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
    out, facts = replace_object(live, bigger)
    assert "nodeName" not in out["spec"] and "status" not in out and "uid" not in out["metadata"]
    assert any("created again" in f for f in facts)


# --------------------------------------------------------------------------- loading


def test_later_input_replaces_instead_of_duplicate_error(tmp_path):
    objs = _rendered(SEED1)
    sts = _find(objs, "StatefulSet", "search")
    chart = tmp_path / "chart.yaml"
    m = _manifest(sts)
    m["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100m"}}
    chart.write_text(_helm(m))
    with pytest.raises(InputError) as e:
        load_snapshot([str(SEED1), str(chart)], overlay=False)
    assert any("Duplicate value" in msg and "StatefulSet default/search" in msg for msg in e.value.messages)
    told: list[str] = []
    snap = load_snapshot([str(SEED1), str(chart)], notice=told.append)
    assert snap.statefulsets["default/search"].template.spec.requests == {"cpu": 100}
    assert f"note: overlaid 1 object(s) from {chart}: StatefulSet default/search" in told
    assert any("pod template changed" in t for t in told)


def test_statefulset_revisions_after_a_template_change(tmp_path):
    """The running pods are the previous revision; the controller's update revision is the new
    template's; check plans the new pods at it (what the pods' label says)."""
    objs = _rendered(SEED1)
    sts = _find(objs, "StatefulSet", "search")
    before = load_snapshot([str(SEED1)])
    with indexed(before):
        old_current, old_update = statefulset_revisions(before, before.statefulsets["default/search"])
    chart = tmp_path / "chart.yaml"
    same = _manifest(sts)
    chart.write_text(_helm(same))
    snap = load_snapshot([str(SEED1), str(chart)])
    with indexed(snap):
        assert statefulset_revisions(snap, snap.statefulsets["default/search"]) == (old_current, old_update)  # nothing changed
    changed = _manifest(sts)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "search:2"
    chart.write_text(_helm(changed))
    snap = load_snapshot([str(SEED1), str(chart)])
    s = snap.statefulsets["default/search"]
    with indexed(snap):
        current, update = statefulset_revisions(snap, s)
        pods = [p for _, p in pods_of_statefulset(snap, s)]
    assert current == old_current and update != old_update and update.startswith("search-")
    assert pods and all(get_pod_revision(p) != update for p in pods)
    plan = plan_workload(snap, WorkloadRef("StatefulSet", "default", "search"), 4)
    assert plan.new and all(p.labels["controller-revision-hash"] == update for p in plan.new)


def test_deployment_template_change_makes_the_running_pods_old():
    snap = load_snapshot([str(SEED4), str(CHART)])
    d = snap.deployments["default/web"]
    with indexed(snap):
        rss = replicasets_of(snap, d)
    assert rss and find_new_replicaset(d, rss) is None  # no ReplicaSet has the chart's template
    assert d.replicas == 2  # the chart leaves replicas to its HPA: the cluster's count is kept
    assert d.uid == load_snapshot([str(SEED4)]).deployments["default/web"].uid  # its ReplicaSets stay its own
    plan = plan_workload(snap, WorkloadRef("Deployment", "default", "web"), 2)
    assert len(plan.new) == 2 and {p.owner.name for p in plan.new}.isdisjoint({rs.name for rs in rss})
    assert snap.hpas["default/web"].max_replicas == 4 and "default/web" in snap.pdbs  # added


def test_namespace_flag_for_namespace_less_objects(tmp_path):
    objs = _rendered(SEED1)
    m = _manifest(_find(objs, "StatefulSet", "search"))
    m["metadata"]["name"] = "search-b"
    chart = tmp_path / "chart.yaml"
    chart.write_text(_helm(m))
    snap = load_snapshot([str(SEED1), str(chart)], namespace="team-b")
    assert "team-b/search-b" in snap.statefulsets
    assert "default/search" in snap.statefulsets  # the snapshot's objects name theirs: kept
    m["metadata"]["namespace"] = "other"  # an object that names its namespace keeps it
    chart.write_text(_helm(m))
    snap = load_snapshot([str(SEED1), str(chart)], namespace="team-b")
    assert "other/search-b" in snap.statefulsets and "team-b/search-b" not in snap.statefulsets


def test_repeats_within_one_input_are_still_errors(tmp_path):
    objs = _rendered(SEED1)
    m = _manifest(_find(objs, "StatefulSet", "search"))
    chart = tmp_path / "chart.yaml"
    chart.write_text(_helm(m, m))
    with pytest.raises(InputError) as e:
        load_snapshot([str(SEED1), str(chart)])
    assert any("Duplicate value" in msg for msg in e.value.messages)


def test_later_inputs_apply_in_order(tmp_path):
    objs = _rendered(SEED1)
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    ma = _manifest(_find(objs, "StatefulSet", "search"))
    ma["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100m"}}
    mb = copy.deepcopy(ma)
    mb["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "200m"}}
    a.write_text(_helm(ma))
    b.write_text(_helm(mb))
    assert load_snapshot([str(SEED1), str(a), str(b)]).statefulsets["default/search"].template.spec.requests == {"cpu": 200}
    assert load_snapshot([str(SEED1), str(b), str(a)]).statefulsets["default/search"].template.spec.requests == {"cpu": 100}
    # a new object given twice by later inputs: added once, the later version wins
    mb["metadata"]["name"] = ma["metadata"]["name"] = "new"
    a.write_text(_helm(ma))
    b.write_text(_helm(mb))
    raw = read_objects([str(SEED1), str(a), str(b)])
    assert [o for o in raw.objects if o["metadata"].get("name") == "new"][0]["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "200m"}
    }
    assert any(n.startswith(f"added 1 new object(s) from {a}") for n in raw.notes)
    assert any(n.startswith(f"overlaid 1 object(s) from {b}") for n in raw.notes)


def test_helm_from_stdin_end_to_end():
    """`helm template ... | planner check snapshot - -w deployment/web`."""
    chart = CHART.read_bytes()
    assert b"# Source:" in chart and b"namespace:" not in chart
    r = run_cli(["check", SEED4, "-", "-w", "deployment/web", "-o", "json"], stdin=chart)
    assert r.code == 1, r.err
    assert "overlaid 1 object(s) from <stdin>: Deployment default/web" in r.err
    assert "pod template changed" in r.err
    data = json.loads(r.out)
    # the chart's preferred anti-affinity does not help while the old pods run: theirs is required
    assert any(e["constraint"] == "InterPodAffinity" for e in data["explanation"])
    r = run_cli(["check", SEED4, "-", "-w", "deployment/web"], stdin=chart)
    assert r.code == 1 and "UNSCHEDULABLE" in r.out
    r = run_cli(["check", SEED4, "-", "-w", "deployment/web", "--no-overlay"], stdin=chart)
    assert r.code == 2 and "Duplicate value" in r.err
    r = run_cli(["validate", SEED4, CHART, "-o", "json"])
    assert r.code == 0 and any(n.startswith("overlaid 1 object(s)") for n in json.loads(r.out)["notes"])
    r = run_cli(["validate", SEED4, CHART, "--no-overlay"])
    assert r.code == 2


def test_streamed_and_whole_loads_overlay_alike(tmp_path):
    """A large kubectl List is streamed item by item; the overlay gives the same snapshot."""
    from planner import load
    from planner.load.reader import Limits

    items = _rendered(SEED1)
    big = tmp_path / "snap.json"
    big.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4))
    m = _manifest(_find(items, "StatefulSet", "search"))
    m["spec"]["template"]["spec"]["containers"][0]["image"] = "search:2"
    chart = tmp_path / "chart.yaml"
    chart.write_text(_helm(m))
    limits = Limits(json_strict_bytes=1)
    streamed = load_snapshot([str(big), str(chart)], limits)
    whole = load._load_whole([str(big), str(chart)], limits, None)
    assert streamed == whole and streamed.raw[("StatefulSet", "default/search")]["metadata"]["generation"] > 1
