"""Hypothesis strategies for SMALL random clusters and workloads (differential tests).

``scenarios()`` draws a ``Scenario``: a planner.snapshot.Snapshot built directly from domain
objects, the workload to scale (``ref``) and the target replica count.  ``Scenario.problem()``
turns it into what a placement search takes: the ClusterState the new pods go into (the plan's
removals applied, its new claims created) and the pods to place, with the plan's ``ordered`` flag.

What is drawn (kept small so that tests/oracle.py finishes in milliseconds):
* 2-6 nodes ``node-<i>`` over 1-3 zones ``zone-a..c`` (the first nodes cover the zones in turn, a
  rare node has no zone label), kubernetes.io/hostname = name, sometimes ``disktype`` ssd/hdd,
  sometimes a ``dedicated=infra:NoSchedule`` taint; cpu 1000/2000/4000m, memory 4/8Gi, pods 110
  (rarely 3);
* the workload ``web`` (app=web, colour, version=v1): a StatefulSet (OrderedReady or Parallel,
  volumeClaimTemplate ``data`` of a WaitForFirstConsumer class that provisions dynamically or --
  sometimes -- is kubernetes.io/no-provisioner so only static PVs serve it) or a Deployment with its
  current ReplicaSet; 1-5 target replicas;
* its template has some of: 0-2 DoNotSchedule (rarely ScheduleAnyway) topology spread constraints
  on zone and/or hostname (maxSkew 1-2, optional minDomains 1-4, nodeAffinityPolicy and
  nodeTaintsPolicy Honor/Ignore, selector app=web, app in (web, cache) or app=web,colour=blue),
  required anti-affinity on hostname or zone, required affinity to app=cache or to itself,
  nodeSelector disktype=ssd, a toleration of the taint, a cpu request;
* 0-3 running replicas of the workload (StatefulSet ordinals drawn from 0-4, each with a bound
  claim pinned to its node's zone) and 0-3 running pods of app=cache (sometimes with required
  hostname anti-affinity against app=web);
* StatefulSets: retained claims of non-running ordinals bound to PVs pinned to a zone or a
  hostname, and 0-3 static Available PVs of the class pinned to a zone or a hostname, some too
  small (at least one with the no-provisioner class);
* about one StatefulSet in three is a seed-001 "trap": a plain zone spread (maxSkew 1, app=web)
  comes first, ordinals 0..k-1 run one per zone in turn, and each higher ordinal's claim is
  retained (pinned to a random zone) with probability 1/2 -- the cases where the order of
  placement matters (Parallel feasible, OrderedReady not).

Roughly (600 derandomized draws): 45% of the placement problems are feasible, 1-2% need a
placement order other than the given one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from planner.controllers.statefulset import new_statefulset_pod
from planner.domain import (
    LABEL_HOSTNAME,
    LABEL_POD_TEMPLATE_HASH,
    LABEL_ZONE,
    Affinity,
    ClaimTemplate,
    Deployment,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerRef,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodAffinityTerm,
    PodSpec,
    PodTemplate,
    ReplicaSet,
    StatefulSet,
    StorageClass,
    Taint,
    Toleration,
    TopologySpreadConstraint,
)
from planner.engines.workloads import Plan, WorkloadRef, apply_plans, plan_workload
from planner.scheduler.framework import ClusterState
from planner.snapshot import Snapshot

Gi = 1024**3
NS = "default"
ZONES = ("zone-a", "zone-b", "zone-c")
APP = "web"
OTHER = "cache"
SC_DYNAMIC = "wffc"
SC_LOCAL = "local-wffc"
CLAIM = "data"
CLAIM_REQUEST = 10 * Gi
RS_HASH = "6f7d9c8b5"
TAINT = Taint("dedicated", "infra", "NoSchedule")

SEL_APP = LabelSelector((("app", APP),))
SEL_BOTH = LabelSelector((), (LabelSelectorRequirement("app", "In", (OTHER, APP)),))
SEL_BLUE = LabelSelector((("app", APP), ("colour", "blue")))
SEL_OTHER = LabelSelector((("app", OTHER),))


@dataclass(frozen=True, eq=False)
class Scenario:
    snapshot: Snapshot
    ref: WorkloadRef
    replicas: int

    def plan(self) -> Plan:
        return plan_workload(self.snapshot, self.ref, self.replicas)

    def problem(self) -> tuple[ClusterState, list[Pod], bool]:
        """(cluster to place into, pods to place in creation order, ordered)."""
        plan = self.plan()
        snap = apply_plans(self.snapshot, [plan])
        return ClusterState.from_snapshot(snap), list(plan.new), plan.ordered

    def verdict_and_replay(self) -> tuple[Any, Any, dict] | None:
        """check's verdict for the scenario's count, and the replay (simulate) scaling the workload
        to it: (verdict, simulator, result); None when check answers unknown."""
        from planner.engines.check import check_replicas
        from planner.engines.replay import Simulator, Step
        from planner.errors import UnknownResult

        try:
            verdict = check_replicas(self.snapshot, [self.ref], self.replicas)
        except UnknownResult:
            return None
        sim = Simulator(self.snapshot, seed=1)
        result = sim.run([Step("scale", {"ref": self.ref, "workload": str(self.ref), "replicas": self.replicas})], [self.ref])
        return verdict, sim, result

    def __repr__(self) -> str:  # what hypothesis prints for a failing example
        s = self.snapshot
        lines = [f"Scenario({self.ref} -> {self.replicas} replicas)"]
        for n in s.nodes.values():
            lines.append(f"  node {n.name} {dict(n.labels)} taints={[str(t) for t in n.taints]} alloc={dict(n.allocatable)}")
        for p in s.pods.values():
            lines.append(f"  pod {p.key} on {p.spec.node_name} {dict(p.labels)} cpu={p.spec.requests.get('cpu', 0)}")
        for c in s.pvcs.values():
            lines.append(f"  pvc {c.key} -> {c.volume_name or '<unbound>'}")
        for v in s.pvs.values():
            lines.append(f"  pv {v.name} class={v.storage_class} claim={v.claim_ref} affinity={v.node_affinity}")
        wl = s.statefulsets.get(self.ref.key) or s.deployments.get(self.ref.key)
        lines.append(f"  workload {wl!r}")
        return "\n".join(lines)


def _pin(key: str, value: str) -> NodeSelector:
    return NodeSelector((NodeSelectorTerm((NodeSelectorRequirement(key, "In", (value,)),)),))


def _rare(draw, one_in: int) -> bool:
    """True about once in ``one_in`` draws; shrinks to False."""
    return draw(st.integers(0, one_in - 1)) == one_in - 1


@st.composite
def nodes(draw) -> list[Node]:
    n_zones = draw(st.integers(1, 3))
    n_nodes = draw(st.integers(2, 6))
    use_disk = draw(st.booleans())
    use_taints = draw(st.booleans())
    out = []
    for i in range(n_nodes):
        name = f"node-{i}"
        labels = {LABEL_HOSTNAME: name}
        zone = ZONES[i] if i < n_zones else draw(st.sampled_from(ZONES[:n_zones]))
        if not _rare(draw, 12):
            labels[LABEL_ZONE] = zone
        if use_disk:
            disk = draw(st.sampled_from(("ssd", "hdd", None)))
            if disk is not None:
                labels["disktype"] = disk
        taints = (TAINT,) if use_taints and draw(st.booleans()) else ()
        alloc = {
            "cpu": draw(st.sampled_from((4000, 2000, 1000))),
            "memory": draw(st.sampled_from((8 * Gi, 4 * Gi))),
            "pods": 3 if _rare(draw, 10) else 110,
            "ephemeral-storage": 100 * Gi,
        }
        out.append(Node(name=name, labels=labels, taints=taints, allocatable=alloc))
    return out


@st.composite
def pod_specs(draw, node_list: list[Node], trap: bool = False) -> PodSpec:
    """The workload template's spec; ``trap``: a plain zone spread (maxSkew 1, app=web) first."""
    spread = []
    if trap:
        spread.append(TopologySpreadConstraint(1, LABEL_ZONE, "DoNotSchedule", SEL_APP))
        keys = [LABEL_HOSTNAME] if draw(st.booleans()) else []
    else:
        n_spread = draw(st.integers(0, 2))
        keys = draw(st.permutations((LABEL_ZONE, LABEL_HOSTNAME)))[:n_spread]
    for key in keys:
        spread.append(
            TopologySpreadConstraint(
                max_skew=draw(st.integers(1, 2)),
                topology_key=key,
                when_unsatisfiable="ScheduleAnyway" if _rare(draw, 8) else "DoNotSchedule",
                label_selector=draw(st.sampled_from((SEL_APP, SEL_BOTH, SEL_BLUE))),
                min_domains=draw(st.one_of(st.none(), st.integers(1, 4))),
                node_affinity_policy=draw(st.sampled_from(("Honor", "Ignore"))),
                node_taints_policy=draw(st.sampled_from(("Ignore", "Honor"))),
            )
        )
    anti: tuple[PodAffinityTerm, ...] = ()
    if _rare(draw, 3):
        anti = (PodAffinityTerm(draw(st.sampled_from((SEL_APP, SEL_BOTH))), draw(st.sampled_from((LABEL_HOSTNAME, LABEL_ZONE)))),)
    aff: tuple[PodAffinityTerm, ...] = ()
    if _rare(draw, 4):
        aff = (PodAffinityTerm(draw(st.sampled_from((SEL_OTHER, SEL_APP))), draw(st.sampled_from((LABEL_ZONE, LABEL_HOSTNAME)))),)
    affinity = Affinity(pod_affinity_required=aff, pod_anti_affinity_required=anti) if anti or aff else None
    has_disk = any(n.labels.get("disktype") == "ssd" for n in node_list)
    node_selector = {"disktype": "ssd"} if has_disk and draw(st.booleans()) else {}
    tolerations: tuple[Toleration, ...] = ()
    if any(n.taints for n in node_list) and not _rare(draw, 3):
        tolerations = (
            draw(st.sampled_from((Toleration("dedicated", "Equal", "infra", "NoSchedule"), Toleration("dedicated", "Exists")))),
        )
    cpu = draw(st.sampled_from((0, 250, 500, 1000)))
    requests = {"cpu": cpu, "memory": 1 * Gi} if cpu else {}
    return PodSpec(
        node_selector=node_selector,
        affinity=affinity,
        tolerations=tolerations,
        topology_spread_constraints=tuple(spread),
        requests=requests,
    )


def _other_pods(draw, node_list: list[Node]) -> list[Pod]:
    out = []
    anti = _rare(draw, 4)
    for i in range(draw(st.integers(0, 3))):
        node = draw(st.sampled_from(node_list))
        affinity = None
        if anti:
            affinity = Affinity(pod_anti_affinity_required=(PodAffinityTerm(SEL_APP, LABEL_HOSTNAME),))
        cpu = draw(st.sampled_from((0, 500, 1000)))
        spec = PodSpec(node_name=node.name, affinity=affinity, requests={"cpu": cpu} if cpu else {})
        labels = {"app": OTHER, "colour": draw(st.sampled_from(("blue", "green"))), "version": draw(st.sampled_from(("v1", "v2")))}
        out.append(Pod(NS, f"{OTHER}-{i}", labels, spec, phase="Running", owner=OwnerRef("ReplicaSet", f"{OTHER}-rs")))
    return out


def _pv_pin(draw, node_list: list[Node], zones: list[str]) -> NodeSelector:
    if zones and not _rare(draw, 4):
        return _pin(LABEL_ZONE, draw(st.sampled_from(zones)))
    return _pin(LABEL_HOSTNAME, draw(st.sampled_from(node_list)).name)


@st.composite
def scenarios(draw, kinds: tuple[str, ...] = ("StatefulSet", "Deployment"), policies: tuple[str, ...] = ("OrderedReady", "Parallel")) -> Scenario:
    node_list = draw(nodes())
    zones = sorted({n.labels[LABEL_ZONE] for n in node_list if LABEL_ZONE in n.labels})
    kind = draw(st.sampled_from(kinds))
    ref = WorkloadRef(kind, NS, APP)
    # the seed-001 trap: zone spread + claims of missing ordinals retained in (other) zones
    trap = kind == "StatefulSet" and _rare(draw, 3)
    spec = draw(pod_specs(node_list, trap))
    labels = {"app": APP, "colour": draw(st.sampled_from(("blue", "green"))), "version": "v1"}
    template = PodTemplate(labels=labels, spec=spec)
    snap = Snapshot()
    snap.namespaces[NS] = Namespace(NS)
    snap.nodes = {n.name: n for n in node_list}
    for p in _other_pods(draw, node_list):
        snap.pods[p.key] = p

    if kind == "StatefulSet":
        local = not trap and _rare(draw, 4)
        sc = StorageClass(
            SC_LOCAL if local else SC_DYNAMIC,
            provisioner="kubernetes.io/no-provisioner" if local else "ebs.csi.aws.com",
            volume_binding_mode="WaitForFirstConsumer",
        )
        snap.storage_classes[sc.name] = sc
        sts = StatefulSet(
            namespace=NS,
            name=APP,
            replicas=0,
            selector=SEL_APP,
            template=template,
            service_name=APP,
            pod_management_policy=draw(st.sampled_from(policies)),
            volume_claim_templates=(ClaimTemplate(CLAIM, storage_class=sc.name, request=CLAIM_REQUEST, access_modes=("ReadWriteOnce",)),),
            uid="sts-uid",
        )
        if trap:  # seed-001 shape: the first ordinals run, higher ones are (re)created
            running = list(range(draw(st.integers(1, 3))))
            replicas = draw(st.integers(len(running) + 1, 5))
        else:
            running = draw(st.lists(st.integers(0, 4), unique=True, max_size=3))
            replicas = draw(st.integers(1, 5))
        snap.statefulsets[sts.key] = replace(sts, replicas=max(running, default=-1) + 1)

        def claim(ordinal: int, pv: PersistentVolume) -> None:
            name = sts.claim_name(sts.volume_claim_templates[0], ordinal)
            pv = replace(pv, claim_ref=(NS, name), phase="Bound")
            snap.pvs[pv.name] = pv
            c = PersistentVolumeClaim(
                NS, name, labels={"app": APP}, storage_class=sc.name, volume_name=pv.name, phase="Bound",
                request=CLAIM_REQUEST, access_modes=("ReadWriteOnce",),
            )
            snap.pvcs[c.key] = c

        for o in running:
            choices = node_list
            if trap and zones:  # one running replica per zone, in turn
                choices = [n for n in node_list if n.labels.get(LABEL_ZONE) == zones[o % len(zones)]]
            node = draw(st.sampled_from(choices))
            base = new_statefulset_pod(sts, o)
            p = replace(base, spec=replace(base.spec, node_name=node.name), phase="Running")
            snap.pods[p.key] = p
            pin = _pin(LABEL_ZONE, node.labels[LABEL_ZONE]) if LABEL_ZONE in node.labels else _pin(LABEL_HOSTNAME, node.name)
            claim(o, PersistentVolume(f"pv-run-{o}", capacity=CLAIM_REQUEST, storage_class=sc.name,
                                      access_modes=("ReadWriteOnce",), node_affinity=pin))
        for o in range(6):
            if o in running or not (draw(st.booleans()) if trap else _rare(draw, 3)):
                continue
            claim(o, PersistentVolume(f"pv-retained-{o}", capacity=CLAIM_REQUEST, storage_class=sc.name,
                                      access_modes=("ReadWriteOnce",), node_affinity=_pv_pin(draw, node_list, zones)))
        for i in range(draw(st.integers(1 if local else 0, 3))):
            size = draw(st.sampled_from((CLAIM_REQUEST, 20 * Gi, 5 * Gi)))
            pv = PersistentVolume(f"pv-static-{i}", capacity=size, storage_class=sc.name, access_modes=("ReadWriteOnce",),
                                  node_affinity=_pv_pin(draw, node_list, zones))
            snap.pvs[pv.name] = pv
        return Scenario(snap, ref, replicas)

    # Deployment with its current ReplicaSet, so running replicas count as current ones.
    rs_name = f"{APP}-{RS_HASH}"
    rs_template = replace(template, labels={**labels, LABEL_POD_TEMPLATE_HASH: RS_HASH})
    n_own = draw(st.integers(0, 3))
    replicas = draw(st.integers(n_own + 1, 5))
    dep = Deployment(NS, APP, n_own, SEL_APP, template, uid="dep-uid")
    rs = ReplicaSet(NS, rs_name, n_own, SEL_APP, rs_template, owner=OwnerRef("Deployment", APP, "dep-uid"),
                    labels={**labels, LABEL_POD_TEMPLATE_HASH: RS_HASH}, creation_timestamp="2024-01-01T00:00:00Z")
    snap.deployments[dep.key] = dep
    snap.replicasets[rs.key] = rs
    for i in range(n_own):
        node = draw(st.sampled_from(node_list))
        p = Pod(NS, f"{rs_name}-x{i}", dict(rs_template.labels), replace(spec, node_name=node.name), phase="Running",
                owner=OwnerRef("ReplicaSet", rs_name, "", True))
        snap.pods[p.key] = p
    return Scenario(snap, ref, replicas)
