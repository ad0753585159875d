"""--scheduler-config: a KubeSchedulerConfiguration read, validated (upstream's wording, one line
each, exit 2), merged with the defaults as default_plugins.go mergePlugins does, and followed by
the replay (simulate), explain and check's notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.scheduler.config import merge_plugin_set, parse_config
from planner.scheduler.registry import DEFAULT_PROFILE, FILTER_PLUGINS, SCORE_PLUGINS
from tests.conftest import run_cli

DATA = Path(__file__).resolve().parents[1] / "data" / "schedcfg"
CLUSTER = DATA / "three-nodes.yaml"  # node-2 runs a 2-cpu pod; deployment/web (500m, 1Gi) at 0


def cfg(*profiles: dict, **top) -> dict:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "profiles": list(profiles), **top}


def errors(doc: dict) -> list[str]:
    with pytest.raises(InputError) as e:
        parse_config(doc, "c.yaml")
    return e.value.messages


def write(tmp_path: Path, doc: dict, name: str = "sched.yaml") -> Path:
    import yaml

    p = tmp_path / name
    p.write_text(yaml.safe_dump(doc) if name.endswith(".yaml") else json.dumps(doc))
    return p


GKE = cfg({
    "schedulerName": "default-scheduler",
    "plugins": {"score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}],
                          "enabled": [{"name": "NodeResourcesFit", "weight": 5}]}},
    "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {
        "type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}}],
})


# --------------------------------------------------------------------------- parsing and merging


def test_empty_config_is_the_default_profile():
    c = parse_config(cfg(), "c")
    p = c.main
    assert p.scheduler_name == "default-scheduler"
    assert p.filters == FILTER_PLUGINS and p.scorers == SCORE_PLUGINS
    assert p.default_filters and p.fit_strategy.is_default
    assert p.weights == DEFAULT_PROFILE.weights


def test_merge_plugin_set_as_upstream():
    default = [("A", 1), ("B", 2), ("C", 3)]
    assert merge_plugin_set(default, [], ["B"]) == [("A", 1), ("C", 3)]
    assert merge_plugin_set(default, [("B", 7), ("D", 1)], []) == [("A", 1), ("B", 7), ("C", 3), ("D", 1)]
    assert merge_plugin_set(default, [("D", 1)], ["*"]) == [("D", 1)]


def test_weights_disable_and_star():
    p = parse_config(cfg({"plugins": {"score": {"enabled": [{"name": "PodTopologySpread", "weight": 7}, {"name": "ImageLocality"}],
                                                "disabled": [{"name": "TaintToleration"}]}}}), "c").main
    w = p.weights
    assert "TaintToleration" not in w and w["PodTopologySpread"] == 7 and w["ImageLocality"] == 1  # 0 is 1
    # expandMultiPointPlugins: the plugins also enabled at Score come first, in their order
    assert [s.name for s in p.scorers][:2] == ["PodTopologySpread", "ImageLocality"]
    p = parse_config(cfg({"plugins": {"score": {"disabled": [{"name": "*"}], "enabled": [{"name": "NodeResourcesFit", "weight": 2}]}}}), "c").main
    assert p.weights == {"NodeResourcesFit": 2}
    p = parse_config(cfg({"plugins": {"filter": {"disabled": [{"name": "NodePorts"}, {"name": "TaintToleration"}]}}}), "c").main
    assert "NodePorts" not in p.filter_names and "TaintToleration" not in p.filter_names
    assert "TaintToleration" in p.weights  # disabled at Filter only
    assert not p.default_filters


def test_profiles_by_scheduler_name_and_json(tmp_path):
    from planner.load import read_scheduler_config

    doc = cfg({"schedulerName": "default-scheduler"}, {"schedulerName": "packer", "pluginConfig": GKE["profiles"][0]["pluginConfig"]})
    c = read_scheduler_config(str(write(tmp_path, doc, "s.json")))
    assert list(c.profiles) == ["default-scheduler", "packer"]
    assert c.profile_for(None) is c.main and c.profile_for("packer").fit_strategy.type == "MostAllocated"
    assert c.profile_for("other") is None


@pytest.mark.parametrize("doc,want", [
    (cfg({"plugins": {"score": {"enabled": [{"name": "Foo"}]}}}),
     'c.yaml: profiles[0].plugins.score: ScorePlugin "Foo" does not exist'),
    (cfg({"plugins": {"filter": {"enabled": [{"name": "ImageLocality"}]}}}),
     'c.yaml: profiles[0].plugins.filter: plugin "ImageLocality" does not extend FilterPlugin plugin'),
    (cfg({"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Bogus"}}}]}),
     'c.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Bogus": supported values: '
     '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'),
    (cfg({"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 101}]}}}]}),
     "c.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range [1, 100]"),
    (cfg({"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "RequestedToCapacityRatio"}}}]}),
     "c.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.shape: Required value: at least one point must be specified"),
    (cfg({"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "RequestedToCapacityRatio",
          "requestedToCapacityRatio": {"shape": [{"utilization": 50, "score": 1}, {"utilization": 50, "score": 2}]}}}}]}),
     "c.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.shape[1].utilization: Invalid value: 50: utilization values must be sorted in increasing order"),
    (cfg({"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "RequestedToCapacityRatio",
          "requestedToCapacityRatio": {"shape": [{"utilization": 101, "score": 11}]}}}}]}),
     "c.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]"),
    (cfg({"schedulerName": "a"}, {"schedulerName": "a"}), 'c.yaml: profiles[1].schedulerName: Duplicate value: "a"'),
    (cfg({"schedulerName": "a"}, {}), "c.yaml: profiles[1].schedulerName: Required value"),
    (cfg({"pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}}]}),
     'c.yaml: profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty'),
    (cfg(percentageOfNodesToScore=120), "c.yaml: percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]"),
])
def test_validation_errors(doc, want):
    assert want in errors(doc)


def test_wrong_version_and_cli_exit_2(tmp_path):
    assert "no kind" in errors({"apiVersion": "kubescheduler.config.k8s.io/v1beta3", "kind": "KubeSchedulerConfiguration"})[0]
    bad = write(tmp_path, cfg({"plugins": {"score": {"enabled": [{"name": "Foo"}]}}}))
    r = run_cli(["simulate", CLUSTER, "-w", "deployment/web", "--scale", "2", "--scheduler-config", bad])
    assert r.code == 2 and 'ScorePlugin "Foo" does not exist' in r.err
    assert all(line.startswith("error:") for line in r.err.strip().splitlines())


# --------------------------------------------------------------------------- replay, explain, check


def _placements(args: list) -> dict[str, str]:
    r = run_cli(["simulate", CLUSTER, "-w", "deployment/web", "--scale", "3", "-o", "json", *args])
    assert r.code == 0, r.err
    d = json.loads(r.out)
    return {k: v["node"] for k, v in d["final"]["pods"].items()}


def test_most_allocated_packs_where_the_default_spreads(tmp_path):
    default = _placements([])
    assert sorted(default.values()) == ["node-1", "node-2", "node-3"]  # LeastAllocated + spreading
    packed = _placements(["--scheduler-config", write(tmp_path, GKE)])
    assert set(packed.values()) == {"node-2"}  # MostAllocated: the fullest node


def test_scheduler_name_picks_the_profile(tmp_path):
    # the default profile under default-scheduler, the packer under another name: pods of
    # default-scheduler still spread
    doc = cfg({"schedulerName": "default-scheduler"}, {**GKE["profiles"][0], "schedulerName": "packer"})
    assert sorted(_placements(["--scheduler-config", write(tmp_path, doc)]).values()) == ["node-1", "node-2", "node-3"]


def test_disabled_filter_is_not_run(tmp_path):
    full = json.loads(run_cli(["explain", CLUSTER, "--pod-file", _big_pod(tmp_path), "-o", "json"]).out)
    assert not full["schedulable"]
    doc = cfg({"plugins": {"filter": {"disabled": [{"name": "NodeResourcesFit"}]}}})
    r = run_cli(["explain", CLUSTER, "--pod-file", _big_pod(tmp_path), "-o", "json", "--scheduler-config", write(tmp_path, doc)])
    assert r.code == 0 and json.loads(r.out)["schedulable"]


def _big_pod(tmp_path: Path) -> Path:
    p = tmp_path / "big.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: default}\nspec:\n"
                 "  containers: [{name: c, image: x, resources: {requests: {cpu: '64'}}}]\n")
    return p


def _pod(tmp_path: Path) -> Path:
    p = tmp_path / "pod.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: q, namespace: default}\nspec:\n"
                 "  containers: [{name: c, image: x, resources: {requests: {cpu: 500m, memory: 1Gi}}}]\n")
    return p


def test_explain_scores_show_the_profile_weights(tmp_path):
    r = run_cli(["explain", CLUSTER, "--pod-file", _pod(tmp_path), "--scores", "-o", "json", "--scheduler-config", write(tmp_path, GKE)])
    assert r.code == 0, r.err
    d = json.loads(r.out)
    weights = {s["plugin"]: s["weight"] for s in d["nodes"][0]["scores"]}
    assert weights["NodeResourcesFit"] == 5 and "NodeResourcesBalancedAllocation" not in weights
    assert d["nodes"][0]["name"] == "node-2"  # the fullest node ranks first
    t = run_cli(["explain", CLUSTER, "--pod-file", _pod(tmp_path), "--scores", "--scheduler-config", write(tmp_path, GKE)])
    assert "FIT*5" in t.out and "BALANCED" not in t.out
    plain = json.loads(run_cli(["explain", CLUSTER, "--pod-file", _pod(tmp_path), "--scores", "-o", "json"]).out)
    assert {s["plugin"]: s["weight"] for s in plain["nodes"][0]["scores"]}["NodeResourcesFit"] == 1


def test_list_default_do_not_schedule_constraints_filter(tmp_path):
    # a hostname maxSkew 1 DoNotSchedule default: three replicas of web go one per node
    doc = cfg({**GKE["profiles"][0], "pluginConfig": GKE["profiles"][0]["pluginConfig"] + [
        {"name": "PodTopologySpread", "args": {"defaultingType": "List", "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule"}]}}]})
    assert sorted(_placements(["--scheduler-config", write(tmp_path, doc)]).values()) == ["node-1", "node-2", "node-3"]
    r = run_cli(["check", CLUSTER, "-w", "deployment/web", "--replicas", "2", "-o", "json", "--scheduler-config", write(tmp_path, doc)])
    notes = json.loads(r.out)["notes"]
    assert any("DoNotSchedule default spread constraints (kubernetes.io/hostname maxSkew 1)" in n for n in notes)
    assert any("scoring" in n for n in notes)


def test_check_notes_disabled_filters(tmp_path):
    doc = cfg({"plugins": {"filter": {"disabled": [{"name": "NodePorts"}]}}})
    r = run_cli(["check", CLUSTER, "-w", "deployment/web", "--replicas", "2", "-o", "json", "--scheduler-config", write(tmp_path, doc)])
    assert r.code == 0, r.err
    assert any("disables the filter(s) NodePorts" in n for n in json.loads(r.out)["notes"])
