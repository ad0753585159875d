"""The audit's rules: identifiers, severities and the text people (and SARIF viewers) read.

A rule's identifier is a contract (JSON ``rule``, SARIF ``ruleId``, scenario ``expect.audit``
entries, ``--rules``, the ignore annotation, the anchor of its section in docs/audit.md): rules are
added, never renamed.

Severities: ``error`` (pods are Pending, or will be, with nothing to end it), ``warning`` (a
hazard that needs one ordinary event to spring: a rollout, a drain, a scale-up, another release),
``note`` (worth knowing, not a hazard on this cluster as it is; below the default gate).  A rule's
``severity`` is its usual one; ``severities`` says when a finding of the rule is milder or worse.
"""

from __future__ import annotations

from dataclasses import dataclass

NOTE = "note"
WARNING = "warning"
ERROR = "error"
SEVERITIES = (NOTE, WARNING, ERROR)  # in increasing order; SARIF's levels

# Where each rule is documented: the rule's section of docs/audit.md, whose anchor is the rule's
# identifier.  planner has no published documentation URL, so SARIF's helpUri is this path
# relative to planner's repository unless --docs-url gives where docs/audit.md is served.
DOCS_PATH = "docs/audit.md"

# The ignore annotation (docs/audit.md, "Ignoring a finding"): "rule-id[,rule-id...]: reason",
# one such line per reason.
IGNORE_ANNOTATION = "audit.planner.dev/ignore"

# Namespaces of the cluster's own components: by default only the Pending pods there are reported
# (docs/audit.md, "Which namespaces").
SYSTEM_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease")

SPREAD_DOCS = "https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/"
AFFINITY_DOCS = "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/"
DEPLOYMENT_DOCS = "https://kubernetes.io/docs/concepts/workloads/controllers/deployment/"
HPA_DOCS = "https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/"
STS_POLICY_DOCS = "https://kubernetes.io/docs/tutorials/stateful-application/basic-stateful-set/#pod-management-policy"

# The public write-ups the hazards come from (title, author, publication, date)
BLUE_GREEN = '"topology spread constraints and blue/green deployments" (hds, 2023-02-25)'
HPA_PARALLEL = '"topology spread constraints and horizontal pod autoscaling" (hds, 2023-03-20)'
SPREAD_EKS = '"Kubernetes and Resilience (Pod Topology Spread Constraints)" (Pierre Raffa, AWS Tip, 2023-05-16)'
ANTI_AFFINITY_ZONES = ('"How to evenly distribute pods across a topology without using pod anti-affinity?" '
                       "(VMware Tanzu Kubernetes Grid Integrated Edition knowledge base, article 298697)")
ROLLOUT_AFFINITY = '"How can affinity rules break your Kubernetes rolling updates" (Maria Ralli, XM Global, 2021-01-29)'


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # the usual severity; ``severities`` says when a finding is milder or worse
    short: str
    full: str
    incident: str  # what happened to the people who met the hazard, in users' words ("" if none)
    severities: str = ""  # when a finding of this rule is not at ``severity``
    writeups: tuple[str, ...] = ()  # the public write-ups of the incident: title (author, where, date)
    links: tuple[str, ...] = ()  # public documentation of the Kubernetes behaviour involved

    def help_uri(self, docs_url: str | None = None) -> str:
        """The rule's section of docs/audit.md: ``<docs_url>#<id>``, or the path in planner's
        repository when no URL is given."""
        return f"{docs_url or DOCS_PATH}#{self.id}"

    def help_text(self) -> str:
        parts = [self.full]
        if self.severities:
            parts.append(f"Severity: {self.severity}; {self.severities}")
        if self.incident:
            parts.append(f"What happened: {self.incident}")
        if self.writeups:
            parts.append("Write-ups: " + "; ".join(self.writeups) + ".")
        if self.links:
            parts.append("Kubernetes documentation: " + " ".join(self.links))
        parts.append(f"Documentation: {DOCS_PATH}#{self.id} in planner's repository. Ignore a finding with the annotation "
                     f'{IGNORE_ANNOTATION}: "{self.id}: <reason>" on the object.')
        return "\n\n".join(parts)

    def help_markdown(self) -> str:
        parts = [f"**{self.short}**", self.full]
        if self.severities:
            parts.append(f"**Severity**: {self.severity}; {self.severities}")
        if self.incident:
            parts.append(f"**What happened**: {self.incident}")
        if self.writeups:
            parts.append("**Write-ups**: " + "; ".join(f"_{w}_" for w in self.writeups) + ".")
        if self.links:
            parts.append("**Kubernetes documentation**: " + ", ".join(f"<{u}>" for u in self.links))
        parts.append(f"Documented in `{DOCS_PATH}#{self.id}` in planner's repository. To ignore a finding, annotate the "
                     f'object: `{IGNORE_ANNOTATION}: "{self.id}: <reason>"`.')
        return "\n\n".join(parts)


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "pods-pending",
            ERROR,
            "Pods are Pending now: no node accepts them (an outage under way).",
            "Pods that no scheduler has bound to a node (no nodeName) and that are still Pending, grouped by the workload "
            "that owns them (a Deployment through its ReplicaSet, a StatefulSet, a DaemonSet, a Job; a pod without an "
            "owner on its own). Each group carries kube-scheduler's reason, as planner explain gives it for one of its "
            "pods: every filter plugin on every node of the snapshot, and whether preemption would make room. A Pending "
            "pod that passes every filter on some node now is not reported (the scheduler has not placed it yet, or "
            "something the snapshot does not show holds it back, such as a scheduling gate): the run's notes name it.",
            "",
            severities="a warning when preemption would place every one of the pods (lower-priority pods are evicted "
                       "for them).",
            links=(AFFINITY_DOCS,),
        ),
        Rule(
            "selector-broader-than-workload",
            WARNING,
            "A spread or anti-affinity selector counts pods of other workloads or releases.",
            "A topologySpreadConstraint or a pod anti-affinity term of the workload's template selects its own pods with a "
            "selector broader than the workload's own selector, so the pods of other workloads or releases that carry the "
            "same labels (the other colour of a blue/green switch) count as if they were the workload's. While they run, "
            "the new release's pods and WaitForFirstConsumer volumes go wherever the old release left room; once the old "
            "release is gone the new one is left unbalanced, and a pod pinned by its volume may never come back. Scope the "
            "selector to the workload (its release or colour label) or add the release key to matchLabelKeys.",
            "blue/green StatefulSets shared one zone spread selector; the green release put both of its volumes in one "
            "zone while blue still counted, and once blue was gone an evicted green pod could never come back: one pod "
            "Pending for good, then zero pods after a spot eviction, and the on-call engineer woken at 04:00.",
            severities="a note when the term only scores (ScheduleAnyway, preferred anti-affinity), or when nothing else "
                       "carries these labels now and the workload has no volumes to pin it (a StatefulSet's "
                       "volumeClaimTemplates make the placement permanent, so those stay warnings).",
            writeups=(BLUE_GREEN,),
            links=(SPREAD_DOCS,),
        ),
        Rule(
            "selector-counts-other-revisions",
            NOTE,
            "A Deployment's spread or anti-affinity selector counts the pods of its old ReplicaSets during a rollout.",
            "The selector of a topologySpreadConstraint or pod anti-affinity term matches every revision of the Deployment "
            "(no matchLabelKeys: [pod-template-hash], no label that changes per revision). During a rolling update the old "
            "pods still count: new pods are spread around pods that are about to be deleted, which can leave the zones "
            "unbalanced after the rollout, and a required anti-affinity refuses the surge pod wherever an old pod runs. "
            "matchLabelKeys: [pod-template-hash] makes each revision spread on its own.",
            "rolling updates left zones unbalanced (a version label in the selector fixed it); with hard hostname "
            "anti-affinity, 2 replicas on 2 nodes and the default 25%/25% strategy, a rolling update never ended.",
            severities="a warning when the audit's replay of a rollout sticks on the constraint this finding names (a pod "
                       "the rollout made Pending); otherwise a note: most Deployments count their old pods, and the rollout "
                       "completes.",
            writeups=(ANTI_AFFINITY_ZONES, ROLLOUT_AFFINITY),
            links=(SPREAD_DOCS, DEPLOYMENT_DOCS),
        ),
        Rule(
            "pod-cannot-return-after-eviction",
            ERROR,
            "A running pod, pinned by its volume, could not be scheduled again if it were evicted.",
            "The pod's PersistentVolume pins it to one topology domain, and its spread constraint or pod (anti-)affinity "
            "would refuse that domain once the pod is gone: evaluated with every scheduler filter on the cluster without "
            "the pod (planner explain). A spot interruption, a drain or a node failure leaves it Pending for good.",
            "an evicted pod of the green release could never come back: its volume pinned it to a zone its spread "
            "constraint refused.",
            writeups=(BLUE_GREEN,),
            links=(SPREAD_DOCS,),
        ),
        Rule(
            "volumes-concentrated-in-one-domain",
            ERROR,
            "The StatefulSet's bound volumes pin its replicas to domains its own spread constraint cannot accept.",
            "The replicas' PersistentVolumes (retained or bound) pin them so that, with every replica running, a "
            "DoNotSchedule spread constraint would exceed maxSkew counting the workload's own pods. Whichever replica of "
            "the crowded domain is rescheduled (evicted, drained, rolled) stays Pending while the others run.",
            "both volumes of the green release ended up in one zone; one of its two pods stayed Pending from one evening "
            "to the next morning.",
            writeups=(BLUE_GREEN,),
            links=(SPREAD_DOCS,),
        ),
        Rule(
            "retained-claims-pin-ordinals",
            ERROR,
            "Replica counts in the HPA's range are unschedulable because retained claims pin ordinals to full domains.",
            "planner check runs every count of the HorizontalPodAutoscaler's range: a count fails because a retained or "
            "bound PersistentVolumeClaim pins an ordinal to a domain its spread constraint refuses at that count. When a "
            "larger count works, the HPA's scale-up passes through a count that sticks (a pod Pending until the HPA asks "
            "for more).",
            "an HPA scaled a Parallel StatefulSet down and up again; the retained claim of pod 2 pinned it to a zone "
            "that already had its share, and it stayed Pending for an hour until the HPA asked for pod 3.",
            writeups=(HPA_PARALLEL,),
            links=(SPREAD_DOCS, HPA_DOCS, STS_POLICY_DOCS),
        ),
        Rule(
            "rollout-deadlock",
            ERROR,
            "A rollout of the workload would never complete (found by replaying it).",
            "planner simulate replays a rollout of the workload pod by pod, as the workload controllers and kube-scheduler "
            "would: a new pod stays Pending and the controller may not remove an old pod first (maxUnavailable 0 with no "
            "room for the surge pod: CPU, memory, the pod count; or the old pods are what blocks the new ones), a pod "
            "already Pending never runs, or a replica that is not Ready keeps the rollout from finishing, so the rollout "
            "never ends. The audit reports it exactly when planner simulate --rollout says STUCK; a pre-check clears, "
            "without replaying, the rollouts that provably cannot stick.",
            "hard hostname anti-affinity, 2 replicas on 2 nodes and the default 25%/25% strategy: the surge pod had "
            "nowhere to go, no old pod could be removed first, and the rolling update never ended (maxUnavailable 50% "
            "fixed it).",
            writeups=(ROLLOUT_AFFINITY,),
            links=(DEPLOYMENT_DOCS, AFFINITY_DOCS),
        ),
        Rule(
            "anti-affinity-replicas-exceed-domains",
            ERROR,
            "Required pod anti-affinity allows one pod per domain, and the workload wants more pods than there are domains.",
            "A required anti-affinity term against the workload's own pods allows at most one pod per topology domain of the "
            "nodes the pod may use. Replicas beyond that stay Pending for good. A topology spread constraint (maxSkew 1) "
            "spreads as evenly without the limit.",
            "required zone anti-affinity with 6 replicas in 3 zones: 3 pods Pending for good.",
            severities="a warning when only the HorizontalPodAutoscaler's maximum exceeds the domains.",
            writeups=(ANTI_AFFINITY_ZONES,),
            links=(AFFINITY_DOCS, SPREAD_DOCS),
        ),
        Rule(
            "spread-skew-exceeded",
            WARNING,
            "The pods counted by a spread constraint are already more skewed than its maxSkew.",
            "DoNotSchedule only guards each placement: fast scaling, autoscaled nodes, scale-downs and rollouts leave a "
            "skew beyond maxSkew, and from then on new pods may only go to the least-populated domains (waiting for a node "
            "there if they are full).",
            "while scaling fast on autoscaled nodes, a zone spread constraint with maxSkew 1 was measured at skew 2.",
            severities="a note for a ScheduleAnyway constraint: it only scores nodes, so a skew beyond maxSkew refuses no "
                       "pod (nothing restores the balance either).",
            writeups=(SPREAD_EKS,),
            links=(SPREAD_DOCS,),
        ),
        Rule(
            "zone-loss-below-pdb",
            WARNING,
            "Losing one zone leaves the workload below its PodDisruptionBudget, even after its pods are replaced.",
            "For each zone, the zone's nodes and pods are removed and the controllers and scheduler are replayed until the "
            "cluster settles: the pods that come back elsewhere are counted, and fewer healthy pods than the "
            "PodDisruptionBudget's minimum remain (volumes pinned to the lost zone, spread or anti-affinity, capacity). "
            "Every voluntary disruption (drains, node upgrades) is then refused until the zone returns.",
            "",
        ),
    )
}


def sarif_name(rule_id: str) -> str:
    """SARIF reportingDescriptor.name: the identifier in PascalCase."""
    return "".join(p.capitalize() for p in rule_id.split("-"))
