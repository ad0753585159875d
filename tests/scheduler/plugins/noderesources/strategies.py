"""Build a NodeResourcesFit score plugin with a scoring strategy, as a --scheduler-config profile does."""

from __future__ import annotations

from planner.scheduler import scoring
from planner.scheduler.config import parse_config
from tests.builders import cluster


def fit_profile(strategy: dict):
    doc = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": strategy}}]}],
    }
    return parse_config(doc, "test").main


def fit_scores(strategy: dict, incoming, nodes, existing=()):
    prof = fit_profile(strategy)
    c = cluster(nodes, existing)
    return scoring.plugin_scores("NodeResourcesFit", incoming, c, [n.name for n in nodes], prof.scorers)
