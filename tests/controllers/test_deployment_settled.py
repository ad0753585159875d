"""The Deployment controller's shortcut for a settled Deployment (deployment._settled) never
changes an answer: with and without it, every sync returns the same actions, on generated bench
clusters and on variants of each Deployment and its ReplicaSets that are one change away from
settled (replicas, paused, strategy, revision and desired-replicas annotations, an old
ReplicaSet with replicas, a template change)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from planner.controllers import deployment as dep
from planner.controllers.deployment import reconcile_deployment
from planner.controllers.informers import indexed

from ..conftest import SCENARIOS


def _both(snap, key):
    out = []
    for shortcut in (True, False):
        dep.SETTLED_SHORTCUT = shortcut
        try:
            with indexed(snap):
                out.append(reconcile_deployment(snap, key))
        finally:
            dep.SETTLED_SHORTCUT = True
    return out


def _variants(snap, key, rng):
    """Copies of ``snap`` with the Deployment or one of its ReplicaSets changed a little."""
    d = snap.deployments[key]
    rss = dep.replicasets_of(snap, d)
    yield snap
    for change in ("replicas+", "replicas-", "paused", "recreate", "template"):
        s = snap.copy()
        if change == "replicas+":
            s.deployments[key] = replace(d, replicas=d.replicas + 1)
        elif change == "replicas-":
            s.deployments[key] = replace(d, replicas=max(d.replicas - 1, 0))
        elif change == "paused":
            s.deployments[key] = replace(d, paused=True, replicas=d.replicas + 1)
        elif change == "recreate":
            s.deployments[key] = replace(d, strategy_type="Recreate")
        else:
            s.deployments[key] = replace(d, template=replace(d.template, annotations={**d.template.annotations, "x": "y"}))
        yield s
    for rs in rss:
        for change in ("no-revision", "revision-0", "revision-junk", "desired", "replicas", "zero"):
            s = snap.copy()
            ann = dict(rs.annotations)
            new = rs
            if change == "no-revision":
                ann.pop(dep.REVISION_ANNOTATION, None)
            elif change == "revision-0":
                ann[dep.REVISION_ANNOTATION] = "0"
            elif change == "revision-junk":
                ann[dep.REVISION_ANNOTATION] = "x"
            elif change == "desired":
                ann[dep.DESIRED_REPLICAS_ANNOTATION] = str(rng.randint(0, 9))
            elif change == "replicas":
                new = replace(rs, replicas=rs.replicas + 1)
            else:
                new = replace(rs, replicas=0)
            s.replicasets[rs.key] = replace(new, annotations=ann)
            yield s
    # a second ReplicaSet with the Deployment's template (FindNewReplicaSet takes the oldest), created
    # before or after the others, with or without replicas
    for created in ("2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z"):
        for replicas in (0, 1, d.replicas):
            s = snap.copy()
            twin = replace(rss[-1] if rss else None, name=f"{d.name}-twin", replicas=replicas, creation_timestamp=created,
                           template=replace(d.template)) if rss else None
            if twin is None:
                continue
            s.replicasets[twin.key] = twin
            yield s


@pytest.fixture(scope="module")
def bench_snapshots(tmp_path_factory):
    from bench import generate
    from planner.load import load_snapshot

    out = tmp_path_factory.mktemp("bench-settled")
    return [load_snapshot([str(generate.generate(n, z, seed, ["json"], out)["json"])]) for n, z, seed in ((10, 3, 1), (12, 6, 5))]


def test_shortcut_answers_as_the_full_sync(bench_snapshots):
    rng = random.Random(1)
    shortcut_taken = 0
    for snap in bench_snapshots:
        for key in sorted(snap.deployments):
            for s in _variants(snap, key, rng):
                a, b = _both(s, key)
                assert a == b, key
                with indexed(s):
                    shortcut_taken += dep._settled(s, s.deployments[key])
    assert shortcut_taken > 50  # the shortcut was exercised, not only bypassed


def test_shortcut_on_the_scenarios():
    from planner.load import load_snapshot

    rng = random.Random(2)
    for path in sorted(SCENARIOS.glob("*.yaml")):
        snap = load_snapshot([str(path)])
        for key in sorted(snap.deployments):
            for s in _variants(snap, key, rng):
                a, b = _both(s, key)
                assert a == b, (path.name, key)
