"""What the CP-SAT problem (planner.engines.problem) takes from NodeVolumeLimits.

Filter (filtering.py here; upstream nodevolumelimits/csi.go) admits a pod on a node while, for
every CSI driver of its new volumes, attached + new <= the CSINode's allocatable.count.  Placing
pods one at a time, the last pod with a volume of a driver sees every earlier one, so the final
placement is valid exactly when, per node and driver, the new pods' new volumes fit in
``room = max(limit - attached, 0)`` -- a capacity, volumes per driver per node
(models/nodevolumelimits.py).

Volumes counted per pod: those of the pod alone.  A volume another new pod or a pod already in
the cluster also uses counts once per node upstream (whichever pod brings it first); the model
counts it as 0 -- a relaxation: a placement it admits is still replayed through the Filter
itself (the witness), and an "unschedulable" it proves holds.
"""

from __future__ import annotations

from collections import Counter

from models.problem import VolumeLimit
from planner.domain import Pod
from planner.scheduler.framework import ClusterState
from planner.scheduler.plugins.nodevolumelimits.common import attachable_volumes, volume_limits
from planner.scheduler.plugins.nodevolumelimits.filtering import NAME, attached_counts

__all__ = ["NAME", "VolumeFacts", "volume_facts"]


class VolumeFacts:
    """Per node: the room per driver; per group and node: the new volumes per driver of one pod."""

    def __init__(self, limits: list[dict[str, int]], attached: list[dict[str, int]], needs: list[list[dict[str, int]]]) -> None:
        self.limits = limits  # per node: driver -> allocatable.count
        self.attached = attached  # per node: driver -> unique volumes of its pods
        self.needs = needs  # per group, per node: driver -> new volumes of one pod

    def node_key(self, g_count: int, j: int) -> tuple:
        """What must be equal for nodes of one class."""
        drivers = sorted({d for g in range(g_count) for d in self.needs[g][j]})
        return (
            tuple(tuple(sorted(self.needs[g][j].items())) for g in range(g_count)),
            tuple((d, self.limits[j].get(d), self.attached[j].get(d, 0)) for d in drivers),
        )

    def constraints(self, class_rep: list[int], g_count: int) -> list[VolumeLimit]:
        """One VolumeLimit per driver that some group needs on a class with a limit."""
        out: dict[str, VolumeLimit] = {}
        for c, j in enumerate(class_rep):
            for g in range(g_count):
                for d, k in self.needs[g][j].items():
                    limit = self.limits[j].get(d)
                    if limit is None or k <= 0:
                        continue
                    vl = out.setdefault(d, VolumeLimit(index=0, driver=d))
                    vl.limit[c] = limit
                    vl.attached[c] = self.attached[j].get(d, 0)
                    vl.need[g, c] = k
        res = list(out.values())
        for i, vl in enumerate(res):
            vl.index = i
        return res


def volume_facts(reps: list[Pod], all_new: list[Pod], cluster: ClusterState) -> VolumeFacts | None:
    """None when no node limits a driver some new pod uses (nothing to encode)."""
    if not cluster.csinodes or not any(p.spec.volumes for p in reps):
        return None
    nodes = cluster.node_infos
    limits = [volume_limits(cluster.csinodes.get(ni.name)) for ni in nodes]
    if not any(limits):
        return None
    # volumes shared by several new pods, or with pods already in the cluster: counted as 0
    uses: Counter[str] = Counter()
    for p in all_new:
        mine: dict[str, str] = {}
        attachable_volumes(p, None, cluster, False, mine)
        uses.update(mine.keys())
    attached: list[dict[str, int]] = []
    existing: set[str] = set()
    for ni in nodes:
        on_node, _ = attached_counts(ni, cluster) if ni.pods else ({}, None)
        existing.update(on_node)
        per: dict[str, int] = {}
        for d in on_node.values():
            per[d] = per.get(d, 0) + 1
        attached.append(per)
    needs: list[list[dict[str, int]]] = []
    for rep in reps:
        row: list[dict[str, int]] = []
        memo: dict[object, dict[str, int]] = {}
        for ni in nodes:
            csi_node = cluster.csinodes.get(ni.name)
            key = id(csi_node) if csi_node is not None else None
            hit = memo.get(key)
            if hit is None:
                vols: dict[str, str] = {}
                attachable_volumes(rep, csi_node, cluster, False, vols)
                hit = {}
                for u, d in vols.items():
                    # the unique name without the node's CSINode: the SC path's handle is the same
                    if uses.get(u, 0) > 1 or u in existing:
                        continue
                    hit[d] = hit.get(d, 0) + 1
                memo[key] = hit
            row.append(hit)
        needs.append(row)
    return VolumeFacts(limits, attached, needs)
