"""The replay against check on small random clusters.

* a replica count that check proves unschedulable never completes in the replay;
* a replay that completes placed the pods one at a time through the filters, so check must
  accept the count too, and the state it ends in is one check accepts as it is.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from planner.engines.check import check_replicas
from tests.randomcluster import scenarios

pytestmark = pytest.mark.slow  # differential: checked against a brute force / the replay


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_replay_never_beats_a_proof(sc):
    answered = sc.verdict_and_replay()
    if answered is None:  # check answered unknown
        return
    verdict, sim, result = answered
    if not verdict.schedulable:
        assert not result["completed"], (verdict.explanation, result["steps"][-1])
    if result["completed"]:
        assert verdict.schedulable, result["steps"][-1]
        after = check_replicas(sim.snap, [sc.ref], sc.replicas)
        assert after.schedulable
