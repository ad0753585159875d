"""Where a pod given by ``zone``/``zones`` goes: the node of the zone that admits it (not cordoned,
taints tolerated, nodeSelector and required node affinity matched) with the fewest pods the
scenario has placed so far, ties to the earlier node: round robin."""

from __future__ import annotations

from planner.domain import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Toleration
from planner.matching import find_untolerated_taint, labels_match_map, node_selector_matches
from planner.scenario.nodes import NodeRec, Topology
from planner.scenario.raw import d, lst


def pick_node(topo: Topology, zone: str, template: dict) -> NodeRec | None:
    """The node of ``zone`` that admits the pod with the fewest pods placed so far (then by order)."""
    spec = d(template.get("spec"))
    tolerations = _tolerations(spec)
    node_selector = d(spec.get("nodeSelector"))
    required = _required_node_affinity(spec)
    best: NodeRec | None = None
    for rec in topo.nodes:
        if rec.zone != zone or rec.node.unschedulable:
            continue
        if find_untolerated_taint(rec.node.taints, tolerations) is not None:
            continue
        if node_selector and not labels_match_map({str(k): str(v) for k, v in node_selector.items()}, rec.node.labels):
            continue
        if required is not None and not node_selector_matches(required, rec.node):
            continue
        if best is None or rec.placed < best.placed:
            best = rec
    return best


def _tolerations(spec: dict) -> tuple[Toleration, ...]:
    out = []
    for t in lst(spec.get("tolerations")):
        if not isinstance(t, dict):
            continue
        out.append(Toleration(
            key=str(t.get("key") or ""),
            operator=str(t.get("operator") or "Equal"),
            value=str(t.get("value") or ""),
            effect=str(t.get("effect") or ""),
        ))
    return tuple(out)


def _required_node_affinity(spec: dict) -> NodeSelector | None:
    """The pod's required node affinity; None (no constraint) when a part of it is malformed,
    which the scenario reports (workloads.check_template)."""
    aff = spec.get("affinity")
    na = aff.get("nodeAffinity") if isinstance(aff, dict) else None
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(na, dict) else None
    if not isinstance(req, dict) or not _well_formed(req):
        return None
    terms = []
    for t in req.get("nodeSelectorTerms") or []:
        if not isinstance(t, dict):
            continue
        exprs = tuple(
            NodeSelectorRequirement(str(e.get("key", "")), str(e.get("operator", "")), tuple(str(v) for v in e.get("values") or ()))
            for e in t.get("matchExpressions") or [] if isinstance(e, dict)
        )
        fields = tuple(
            NodeSelectorRequirement(str(e.get("key", "")), str(e.get("operator", "")), tuple(str(v) for v in e.get("values") or ()))
            for e in t.get("matchFields") or [] if isinstance(e, dict)
        )
        terms.append(NodeSelectorTerm(exprs, fields))
    return NodeSelector(tuple(terms))


def _well_formed(req: dict) -> bool:
    """nodeSelectorTerms, their matchExpressions and matchFields, and the values are lists
    (or absent)."""
    terms = req.get("nodeSelectorTerms")
    if terms is not None and not isinstance(terms, list):
        return False
    for t in terms or []:
        for key in ("matchExpressions", "matchFields"):
            exprs = t.get(key) if isinstance(t, dict) else None
            if exprs is not None and not isinstance(exprs, list):
                return False
            for e in exprs or []:
                if isinstance(e, dict) and e.get("values") is not None and not isinstance(e.get("values"), list):
                    return False
    return True
