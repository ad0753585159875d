"""The replay's choice of nodes to score (a mask over all nodes, then the first
numFeasibleNodesToFind from the rotating start index) equals a sequential search as
schedule_one.go findNodesThatPassFilters makes it (one worker), nextStartNodeIndex included."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

from planner.engines.replay import Simulator, num_feasible_nodes_to_find


def _sequential(feasible: set[int], n: int, start: int) -> tuple[list[int], int]:
    want = num_feasible_nodes_to_find(n)
    found: list[int] = []
    processed = 0
    for i in range(n):
        idx = (start + i) % n
        processed = i + 1
        if idx in feasible:
            found.append(idx)
            if len(found) == want:
                break
    if not found:
        return [], start  # every node examined: a full turn
    return found, (start + processed) % n


@pytest.mark.parametrize("seed", range(30))
def test_first_feasible_from_the_rotating_index(seed):
    rng = random.Random(seed)
    n = rng.choice((3, 99, 100, 101, 150, 640, 1300))
    sim = SimpleNamespace(cluster=SimpleNamespace(node_infos=[None] * n), next_start=rng.randrange(n))
    for _ in range(20):
        density = rng.choice((0.0, 0.01, 0.2, 0.9, 1.0))
        feasible = {i for i in range(n) if rng.random() < density}
        before = sim.next_start
        want, next_start = _sequential(feasible, n, before)
        got = Simulator._nodes_to_score(sim, np.array(sorted(feasible), dtype=np.int64))  # type: ignore[arg-type]
        if num_feasible_nodes_to_find(n) >= n:
            # every node is examined: the index does not move (0 from the start), and the replay
            # takes the feasible nodes in cluster order
            assert got.tolist() == sorted(feasible) and sim.next_start == before
            continue
        assert got.tolist() == want
        assert sim.next_start == next_start
