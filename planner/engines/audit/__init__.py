"""`planner audit`: the latent scheduling hazards behind known incidents, found before they page anyone.

Every Deployment and StatefulSet of the audited namespaces is checked by the rules of
planner.engines.audit.rules; each finding names the rule, its severity, the objects involved, an
explanation with the numbers, and the remediate plan that fixes it (``fix``, null when planner
remediate proposes none).  The rules reuse the rest of planner: the filter plugins (explain), the
CP-SAT check over the HPA's range, and the replay (simulate) on a copy of the snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from planner.domain import Deployment, StatefulSet
from planner.engines.audit.model import Context, Finding, Workload
from planner.engines.audit.rules import ERROR, RULES, SEVERITIES, WARNING
from planner.engines.workloads import WorkloadRef
from planner.snapshot import Snapshot

__all__ = ["ERROR", "RULES", "SEVERITIES", "WARNING", "AuditResult", "Finding", "audit", "reaches"]


class AuditResult:
    def __init__(self, findings: list[Finding], workloads: list[str], notes: list[str]) -> None:
        self.findings = findings
        self.workloads = workloads
        self.notes = notes


def reaches(severity: str, threshold: str) -> bool:
    return SEVERITIES.index(severity) >= SEVERITIES.index(threshold)


def workloads_of(snap: Snapshot, namespaces: Iterable[str] | None) -> list[Workload]:
    wanted = set(namespaces) if namespaces is not None else None
    out = []
    objs: list[Deployment | StatefulSet] = [*snap.deployments.values(), *snap.statefulsets.values()]
    for o in objs:
        if wanted is None or o.namespace in wanted:
            kind = "StatefulSet" if isinstance(o, StatefulSet) else "Deployment"
            out.append(Workload(snap, WorkloadRef(kind, o.namespace, o.name), o))
    return sorted(out, key=lambda w: (w.ref.namespace, w.ref.kind, w.ref.name))


def audit(
    snap: Snapshot,
    namespaces: Iterable[str] | None = None,
    opts: object = None,
    fixes: bool = True,
    progress: Callable[[str], None] | None = None,
) -> AuditResult:
    """Run every rule on every workload of ``namespaces`` (None: all)."""
    from planner.engines.audit import dynamic, static

    if opts is None:
        from models.solve import SolveOptions

        opts = SolveOptions()
    ctx = Context(snap, opts)
    workloads = workloads_of(snap, namespaces)
    if not snap.nodes:
        # manifests alone (helm template output): only the rules about the manifests themselves
        ctx.notes.append("no nodes in the input: only the selector rules ran (give a snapshot of the cluster, planner snapshot, "
                         "for the rules about nodes, volumes, the HPA range, rollouts and zone loss)")
        for w in workloads:
            static.selector_broader(ctx, w)
            static.counts_other_revisions(ctx, w, None)
        workloads = []
    for i, w in enumerate(workloads):
        if progress:
            progress(f"auditing {w.name} ({i + 1}/{len(workloads)})")
        static.selector_broader(ctx, w)
        static.spread_skew(ctx, w)
        static.anti_affinity_domains(ctx, w)
        dynamic.retained_claims(ctx, w)
        if not ctx.has("retained-claims-pin-ordinals", w.name) or w.obj.replicas not in (
            ctx.finding("retained-claims-pin-ordinals", w.name).details["unschedulable_replicas"]  # type: ignore[union-attr]
        ):
            static.volumes_concentrated(ctx, w)
        static.pod_cannot_return(ctx, w)
        deadlock = dynamic.rollout_deadlock(ctx, w)
        static.counts_other_revisions(ctx, w, deadlock)
    dynamic.zone_loss_pdb(ctx, workloads)
    audited = [w.name for w in workloads_of(snap, namespaces)]
    findings = sorted(ctx.findings, key=lambda f: (-SEVERITIES.index(f.severity), f.objects[0], f.rule, f.message))
    if fixes:
        from planner.engines.audit.fixes import attach_fixes

        attach_fixes(snap, findings, ctx.notes, opts)
    return AuditResult(findings, audited, ctx.notes)
