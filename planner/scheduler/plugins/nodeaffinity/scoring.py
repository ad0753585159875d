"""NodeAffinity, Score half: preferredDuringSchedulingIgnoredDuringExecution weights.

A port of kube-scheduler v1.37 pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
(getPodPreferredNodeAffinity, PreScore, Score, NormalizeScore) with
k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
(NewPreferredSchedulingTerms, PreferredSchedulingTerms.Score) and
pkg/scheduler/framework/plugins/helper/normalize_score.go (DefaultNormalizeScore, not reversed).

* PreScore: Skip (0 on every node) when the pod has no preferred terms (the default profile sets
  no ``addedAffinity``).  Terms with weight 0 or without requirements are dropped; a term that
  does not parse makes PreScore fail with an error, which upstream turns into a failed
  scheduling attempt: ``ScoreError`` here (the API server rejects such pods, so only hand-made
  input can hit it).
* Score: the sum of the weights of the terms the node matches (labels and metadata.name fields,
  planner.matching).
* NormalizeScore: ``100 * score // max`` (all 0 when no node matches).
"""

from __future__ import annotations

from planner.domain import NodeSelectorTerm, Pod
from planner.matching import term_parses, terms_match
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo
from planner.scheduler.plugins.tainttoleration.scoring import default_normalize_score

NAME = "NodeAffinity"
MAX_NODE_SCORE = 100


class ScoreError(Exception):
    """A PreScore/Score failure: kube-scheduler fails the scheduling attempt with it."""


def pre_score(
    pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]
) -> tuple[tuple[int, tuple[NodeSelectorTerm, ...]], ...] | object:
    aff = pod.spec.affinity
    if aff is None or not aff.node_preferred:
        return SKIP
    terms = []
    for i, pt in enumerate(aff.node_preferred):
        t = pt.preference
        if pt.weight == 0 or (not t.match_expressions and not t.match_fields):
            continue
        if not term_parses(t):
            raise ScoreError(f"[{i}]: preferred node affinity term does not parse")
        terms.append((pt.weight, (t,)))
    return tuple(terms)


def score(state, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
    out = []
    for ni in nodes:
        node = ni.node
        s = 0
        for weight, term in state:
            if terms_match(term, node):
                s += weight
        out.append(s)
    return out


def normalize(state: object, scores: list[int]) -> list[int]:
    return default_normalize_score(MAX_NODE_SCORE, False, scores)
