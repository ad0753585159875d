"""TaintToleration's Score, vectorised (equal to scoring.py: pkg/scheduler/framework/plugins/
tainttoleration/taint_toleration.go), on the per-node arrays of planner.scheduler.arrays.
"""

from __future__ import annotations

import numpy as np

from planner.domain import Pod
from planner.scheduler.arrays import MAX, ClusterArrays
from planner.scheduler.plugins.tainttoleration import scoring as tt


def score(arr: ClusterArrays, idx: np.ndarray, pod: Pod) -> np.ndarray:
    """TaintToleration (scoring.py): raw counts only on tainted nodes, then reversed."""
    tols = tt.pre_score(pod, arr.cluster, [])
    hit = arr.intolerable.get(tols)
    if hit is None:
        # per node (0 without taints), for these tolerations: node objects only, kept until a
        # rebuild, with whether any node counts one (none: every node scores MAX, whatever the
        # nodes scored)
        full = np.zeros(arr.n, dtype=np.int64)
        nodes = arr.nodes
        for p in np.flatnonzero(arr.has_taints).tolist():
            full[p] = tt.count_intolerable(nodes[p].taints, tols)
        if len(arr.intolerable) > 256:
            arr.intolerable.clear()
        hit = arr.intolerable[tols] = (full, bool(full.any()))
    full, some = hit
    if not some:
        return np.full(idx.shape, MAX, dtype=np.int64)
    raw = full[arr.sel]
    mx = int(raw.max()) if raw.size else 0
    if mx == 0:
        return np.full(idx.shape, MAX, dtype=np.int64)
    return MAX - (MAX * raw) // mx
