"""`planner audit`: the latent scheduling hazards behind known incidents, found before they page anyone,
and the outage under way (pods Pending now).

Every Deployment and StatefulSet of the audited namespaces is checked by the rules of
planner.engines.audit.rules; each finding names the rule, its severity, the objects involved, an
explanation with the numbers, and the remediate plan that fixes it (``fix``, null when planner
remediate proposes none).  The rules reuse the rest of planner: the filter plugins (explain), the
CP-SAT check over the HPA's range, and the replay (simulate) on a copy of the snapshot.  Which
namespaces and rules: planner.engines.audit.scope; findings the objects' owners ignore:
planner.engines.audit.ignore.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from planner.domain import Deployment, StatefulSet
from planner.engines.audit.model import Context, Finding, Workload
from planner.engines.audit.rules import ERROR, NOTE, RULES, SEVERITIES, WARNING
from planner.engines.audit.scope import Scope
from planner.engines.workloads import WorkloadRef
from planner.snapshot import Snapshot

__all__ = ["ERROR", "NOTE", "RULES", "SEVERITIES", "WARNING", "AuditResult", "Finding", "Scope", "audit", "reaches"]


class AuditResult:
    def __init__(self, findings: list[Finding], workloads: list[str], notes: list[str],
                 suppressed: list[Finding] | None = None, rules: list[str] | None = None) -> None:
        self.findings = findings  # not ignored, errors first
        self.workloads = workloads
        self.notes = notes
        self.suppressed = suppressed or []  # ignored by an annotation (Finding.suppressed says why)
        self.rules = rules if rules is not None else list(RULES)  # the rules that ran


def reaches(severity: str, threshold: str) -> bool:
    return SEVERITIES.index(severity) >= SEVERITIES.index(threshold)


def workloads_of(snap: Snapshot, in_scope: Callable[[str], bool] | Iterable[str] | None) -> list[Workload]:
    """The Deployments and StatefulSets of the namespaces ``in_scope`` accepts (a predicate, or
    the namespaces; None: every namespace)."""
    if in_scope is None:
        in_scope = Scope().hazards
    elif not callable(in_scope):
        in_scope = Scope(include=tuple(in_scope)).hazards
    out = []
    objs: list[Deployment | StatefulSet] = [*snap.deployments.values(), *snap.statefulsets.values()]
    for o in objs:
        if in_scope(o.namespace):
            kind = "StatefulSet" if isinstance(o, StatefulSet) else "Deployment"
            out.append(Workload(snap, WorkloadRef(kind, o.namespace, o.name), o))
    return sorted(out, key=lambda w: (w.ref.namespace, w.ref.kind, w.ref.name))


def audit(
    snap: Snapshot,
    namespaces: Iterable[str] | None = None,
    opts: object = None,
    fixes: bool = True,
    progress: Callable[[str], None] | None = None,
    *,
    scope: Scope | None = None,
    rules: Iterable[str] | None = None,
) -> AuditResult:
    """Run the rules (``rules``: these only; None: every rule) on every workload in scope.

    ``scope`` says which namespaces (planner.engines.audit.scope); without it, ``namespaces``
    (None: every namespace, the cluster's own ones included).  A rule another one depends on runs
    when needed (the rollout replay for selector-counts-other-revisions' severity, the HPA range
    for volumes-concentrated-in-one-domain), but only the selected rules' findings are reported."""
    from planner.engines.audit import dynamic, outages, static
    from planner.engines.audit.ignore import Ignores

    if scope is None:
        scope = Scope(include=tuple(namespaces) if namespaces is not None else None)
    want = set(RULES) if rules is None else set(rules)

    def on(*ids: str) -> bool:
        return any(i in want for i in ids)

    if opts is None:
        from models.solve import SolveOptions

        opts = SolveOptions()
    ctx = Context(snap, opts)
    workloads = workloads_of(snap, scope.hazards)
    ignores = Ignores(snap)
    ignores.check(w.name for w in workloads)
    skipped = [w for w in workloads_of(snap, scope.outages) if not scope.hazards(w.ref.namespace)]
    if skipped:
        nss = sorted({w.ref.namespace for w in skipped})
        ctx.notes.append(f"{len(skipped)} workload(s) in {', '.join(nss)} (the cluster's own namespaces) checked for Pending "
                         f"pods only; -A, or -n {nss[0]}, audits them for every rule")
    if not snap.nodes:
        # manifests alone (helm template output): only the rules about the manifests themselves
        ctx.notes.append("no nodes in the input: only the selector rules ran (give a snapshot of the cluster, planner snapshot, "
                         "for the rules about nodes, volumes, the HPA range, rollouts, zone loss and Pending pods)")
        for w in workloads:
            if on("selector-broader-than-workload"):
                static.selector_broader(ctx, w)
            if on("selector-counts-other-revisions"):
                static.counts_other_revisions(ctx, w, None)
        workloads = []
    from planner import progress as progress_

    auditing = progress_.task("auditing workloads", total=len(workloads), unit="workloads")
    auditing.__enter__()
    for i, w in enumerate(workloads):
        if progress:
            progress(f"auditing {w.name} ({i + 1}/{len(workloads)})")
        auditing.update(done=i, description=f"auditing {w.name}")
        if on("selector-broader-than-workload"):
            static.selector_broader(ctx, w)
        if on("spread-skew-exceeded"):
            static.spread_skew(ctx, w)
        if on("anti-affinity-replicas-exceed-domains"):
            static.anti_affinity_domains(ctx, w)
        if on("retained-claims-pin-ordinals", "volumes-concentrated-in-one-domain"):
            dynamic.retained_claims(ctx, w)
        if on("volumes-concentrated-in-one-domain") and (
            not ctx.has("retained-claims-pin-ordinals", w.name)
            or w.obj.replicas not in ctx.finding("retained-claims-pin-ordinals", w.name).details["unschedulable_replicas"]  # type: ignore[union-attr]
        ):
            static.volumes_concentrated(ctx, w)
        if on("pod-cannot-return-after-eviction"):
            static.pod_cannot_return(ctx, w)
        deadlock = dynamic.rollout_deadlock(ctx, w) if on("rollout-deadlock", "selector-counts-other-revisions") else None
        if on("selector-counts-other-revisions"):
            static.counts_other_revisions(ctx, w, deadlock)
    if on("zone-loss-below-pdb"):
        auditing.update(description="losing each zone")
        dynamic.zone_loss_pdb(ctx, workloads)
    auditing.update(done=len(workloads))
    auditing.close()
    if on("pods-pending"):
        if progress:
            progress("explaining the Pending pods")
        with progress_.task("explaining the Pending pods"):
            ignores.check(f"pod/{p.key}" for p in snap.pods.values() if outages.is_pending(p) and scope.outages(p.namespace))
            outages.pending_pods(ctx, scope.outages)
    audited = [w.name for w in workloads_of(snap, scope.hazards)]
    found = [f for f in ctx.findings if f.rule in want]
    for f in found:
        f.suppressed = ignores.suppression(f)
    findings = sorted((f for f in found if f.suppressed is None),
                      key=lambda f: (-SEVERITIES.index(f.severity), f.objects[0], f.rule, f.message))
    suppressed = sorted((f for f in found if f.suppressed is not None), key=lambda f: (f.objects[0], f.rule, f.message))
    if fixes:
        from planner.engines.audit.fixes import attach_fixes

        to_fix = [f for f in findings if f.severity != NOTE]
        with progress_.task(f"finding fixes for {len(to_fix)} finding(s)"):
            attach_fixes(snap, to_fix, ctx.notes, opts)
    return AuditResult(findings, audited, ctx.notes, suppressed, [r for r in RULES if r in want])
