"""The audit's rules: identifiers, default severities and the text people (and SARIF viewers) read.

A rule's identifier is a contract (JSON ``rule``, SARIF ``ruleId``, scenario ``expect.audit``
entries): rules are added, never renamed.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"
SEVERITIES = (WARNING, ERROR)  # in increasing order


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str  # the default; a finding may be milder (stated in the rule's help)
    short: str
    full: str
    seed: str  # the reported incident the hazard comes from, in users' words


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
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
            "a reported incident: blue/green StatefulSets share one spread selector",
        ),
        Rule(
            "selector-counts-other-revisions",
            WARNING,
            "A Deployment's spread or anti-affinity selector counts the pods of its old ReplicaSets during a rollout.",
            "The selector of a topologySpreadConstraint or pod anti-affinity term matches every revision of the Deployment "
            "(no matchLabelKeys: [pod-template-hash], no label that changes per revision). During a rolling update the old "
            "pods still count: new pods are spread around pods that are about to be deleted, which leaves the zones "
            "unbalanced after the rollout, and a required anti-affinity refuses the surge pod wherever an old pod runs. "
            "matchLabelKeys: [pod-template-hash] makes each revision spread on its own.",
            "reported incidents: rolling updates left zones unbalanced (a version label in the selector fixed it); a rolling update never ended",
        ),
        Rule(
            "pod-cannot-return-after-eviction",
            ERROR,
            "A running pod, pinned by its volume, could not be scheduled again if it were evicted.",
            "The pod's PersistentVolume pins it to one topology domain, and its spread constraint or pod (anti-)affinity "
            "would refuse that domain once the pod is gone: evaluated with every scheduler filter on the cluster without "
            "the pod (planner explain). A spot interruption, a drain or a node failure leaves it Pending for good.",
            "a reported incident: an evicted green pod can never come back",
        ),
        Rule(
            "volumes-concentrated-in-one-domain",
            ERROR,
            "The StatefulSet's bound volumes pin its replicas to domains its own spread constraint cannot accept.",
            "The replicas' PersistentVolumes (retained or bound) pin them so that, with every replica running, a "
            "DoNotSchedule spread constraint would exceed maxSkew counting the workload's own pods. Whichever replica of "
            "the crowded domain is rescheduled (evicted, drained, rolled) stays Pending while the others run.",
            "a reported incident: both green volumes ended up in one zone",
        ),
        Rule(
            "retained-claims-pin-ordinals",
            ERROR,
            "Replica counts in the HPA's range are unschedulable because retained claims pin ordinals to full domains.",
            "planner check runs every count of the HorizontalPodAutoscaler's range: a count fails because a retained or "
            "bound PersistentVolumeClaim pins an ordinal to a domain its spread constraint refuses at that count. When a "
            "larger count works, the HPA's scale-up passes through a count that sticks (a pod Pending until the HPA asks "
            "for more).",
            "a reported incident: HPA scale-up leaves a Parallel StatefulSet's pod Pending for an hour",
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
            "a reported incident: hard hostname anti-affinity, 2 replicas on 2 nodes, 25%/25%",
        ),
        Rule(
            "anti-affinity-replicas-exceed-domains",
            ERROR,
            "Required pod anti-affinity allows one pod per domain, and the workload wants more pods than there are domains.",
            "A required anti-affinity term against the workload's own pods allows at most one pod per topology domain of the "
            "nodes the pod may use. Replicas beyond that stay Pending for good (error); a warning when only the "
            "HorizontalPodAutoscaler's maximum exceeds the domains. A topology spread constraint (maxSkew 1) spreads as "
            "evenly without the limit.",
            "a reported incident: required zone anti-affinity, 6 replicas, 3 zones",
        ),
        Rule(
            "spread-skew-exceeded",
            WARNING,
            "The pods counted by a spread constraint are already more skewed than its maxSkew.",
            "DoNotSchedule only guards each placement: fast scaling, autoscaled nodes, scale-downs and rollouts leave a "
            "skew beyond maxSkew, and from then on new pods may only go to the least-populated domains (waiting for a node "
            "there if they are full). A ScheduleAnyway constraint only scores and never restores the balance.",
            "a reported incident: skew 2 measured on EKS while scaling",
        ),
        Rule(
            "zone-loss-below-pdb",
            WARNING,
            "Losing one zone leaves the workload below its PodDisruptionBudget, even after its pods are replaced.",
            "For each zone, the zone's nodes and pods are removed and the controllers and scheduler are replayed until the "
            "cluster settles: the pods that come back elsewhere are counted, and fewer healthy pods than the "
            "PodDisruptionBudget's minimum remain (volumes pinned to the lost zone, spread or anti-affinity, capacity). "
            "Every voluntary disruption (drains, node upgrades) is then refused until the zone returns.",
            "reported incidents: a zone outage left workloads below their disruption budgets",
        ),
    )
}


def sarif_name(rule_id: str) -> str:
    """SARIF reportingDescriptor.name: the identifier in PascalCase."""
    return "".join(p.capitalize() for p in rule_id.split("-"))
