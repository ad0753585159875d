"""VolumeBinding's static PVs as a matching: each available PV binds at most one claim.

pkg/scheduler/framework/plugins/volumebinding/binder.go FindPodVolumes: an unbound
WaitForFirstConsumer claim binds an available PV that matches it and the node, or is provisioned
dynamically where the StorageClass allows it on the node.  Where it cannot be provisioned, every
pod placed needs a PV of its own: y[v, k, c] = 1 when PV v serves claim k of a pod on class c.
Whether one class's PVs sit on the right nodes inside the class is left to the witness replay.
"""

from __future__ import annotations

from models.placement import Built


def add_static_claims(b: Built) -> None:
    p = b.problem
    if not p.static_claims:
        return
    m = b.model
    lit = b.guard("volumes", None, "static-pvs")
    uses: dict[str, list] = {}
    for sc in p.static_claims:
        for c, pvs in sc.options.items():
            ys = []
            for v in pvs:
                # y[v, k, c]: PV v serves claim k of one pod placed on class c
                y = m.new_bool_var(f"y[{v},{sc.index},{c}]")
                ys.append(y)
                uses.setdefault(v, []).append(y)
            # every pod of the group on class c needs its own PV there
            m.add(b.x[sc.group, c] <= sum(ys)).only_enforce_if(lit)
    for ys in uses.values():
        m.add(sum(ys) <= 1)
