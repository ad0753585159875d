"""The DaemonSet controller's node choice (pkg/controller/daemon NodeShouldRunDaemonPod,
util.AddOrUpdateDaemonPodTolerations) and cluster-autoscaler's node groups and template nodes
(mixed_nodeinfos_processor.go isNodeGoodTemplateCandidate, utils/taints SanitizeTaints)."""

from __future__ import annotations

from dataclasses import replace

from planner.controllers.daemon import daemon_pod_tolerations, daemon_pods_for_node, node_should_run_daemon_pod
from planner.controllers.nodegroups import is_good_template_candidate, node_groups
from planner.domain import LABEL_HOSTNAME, DaemonSet, PodSpec, PodTemplate, Taint, Toleration, is_daemonset_pod
from tests.builders import node, sel

GPU_TAINT = Taint("nvidia.com/gpu", "true", "NoSchedule")


def ds(name: str = "agent", **spec_kw) -> DaemonSet:
    spec = PodSpec(requests={"cpu": 200}, **spec_kw)
    return DaemonSet("kube-system", name, sel({"app": name}), PodTemplate({"app": name}, spec), uid=f"uid-{name}")


def test_default_tolerations_let_daemon_pods_onto_cordoned_and_not_ready_nodes() -> None:
    keys = [(t.key, t.effect) for t in daemon_pod_tolerations(PodSpec())]
    assert keys == [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ]
    assert ("node.kubernetes.io/network-unavailable", "NoSchedule") in [(t.key, t.effect) for t in daemon_pod_tolerations(PodSpec(), host_network=True)]
    cordoned = node("n1", taints=[Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")], unschedulable=True)
    assert node_should_run_daemon_pod(cordoned, ds()) == (True, True)


def test_taints_selector_and_node_name() -> None:
    gpu = node("gpu-1", {"nvidia.com/gpu.present": "true"}, taints=[GPU_TAINT])
    plain = node("n1")
    agent = ds()
    plugin = ds("plugin", node_selector={"nvidia.com/gpu.present": "true"}, tolerations=(Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule"),))
    everything = ds("logs", tolerations=(Toleration(operator="Exists"),))
    assert node_should_run_daemon_pod(gpu, agent) == (False, True)  # NoSchedule: may keep running, not start
    assert node_should_run_daemon_pod(gpu, plugin) == (True, True)
    assert node_should_run_daemon_pod(plain, plugin) == (False, False)
    assert node_should_run_daemon_pod(gpu, everything) == (True, True)
    noexec = node("n2", taints=[Taint("dedicated", "x", "NoExecute")])
    assert node_should_run_daemon_pod(noexec, agent) == (False, False)
    pinned = ds("pinned", node_name="other")
    assert node_should_run_daemon_pod(plain, pinned) == (False, False)


def test_daemon_pods_for_a_new_node() -> None:
    gpu = node("gpu-9", {"nvidia.com/gpu.present": "true"}, taints=[GPU_TAINT])
    plugin = ds("plugin", node_selector={"nvidia.com/gpu.present": "true"}, tolerations=(Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule"),))
    pods = daemon_pods_for_node(gpu, [ds(), plugin, ds("logs", tolerations=(Toleration(operator="Exists"),))], lambda key: False)
    assert [p.owner.name for p in pods if p.owner] == ["plugin", "logs"]
    for p in pods:
        assert is_daemonset_pod(p) and p.spec.node_name == "gpu-9" and p.phase == "Running"
        assert p.name.startswith(f"{p.owner.name}-") and len(p.name) == len(p.owner.name) + 6  # type: ignore[union-attr]
        assert p.spec.requests == {"cpu": 200}
    taken = {f"kube-system/{pods[0].name}"}
    again = daemon_pods_for_node(gpu, [plugin], taken.__contains__)
    assert again[0].name != pods[0].name


def test_template_is_a_ready_uncordoned_node_and_drops_transient_taints() -> None:
    g = {"eks.amazonaws.com/nodegroup": "general"}
    nodes = [
        node("big-cordoned", g, zone="a", cpu=16000, unschedulable=True, taints=[Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")]),
        replace(node("not-ready", g, zone="a"), ready=False),
        node("to-delete", g, zone="a", taints=[Taint("ToBeDeletedByClusterAutoscaler", "1", "NoSchedule")]),
        node("unneeded", g, zone="a", taints=[Taint("DeletionCandidateOfClusterAutoscaler", "1", "PreferNoSchedule")]),
        node("ok", g, zone="a", taints=[Taint("dedicated", "web", "NoSchedule")]),
    ]
    assert [is_good_template_candidate(n) for n in nodes] == [False, False, False, False, True]
    (grp,) = node_groups(nodes)
    assert (grp.name, grp.label, grp.zone, grp.template.name, grp.fallback) == ("general", "eks.amazonaws.com/nodegroup", "a", "ok", False)
    new = grp.new_node("general-added-0")
    assert new.labels[LABEL_HOSTNAME] == "general-added-0" and new.labels["eks.amazonaws.com/nodegroup"] == "general"
    assert [t.key for t in new.taints] == ["dedicated"] and not new.unschedulable
    # only cordoned nodes: the last resort, sanitised
    (only,) = node_groups(nodes[:1])
    assert only.fallback and only.template.name == "big-cordoned"
    assert not only.new_node("x").unschedulable and only.new_node("x").taints == ()


def test_groups_by_provider_label_else_zone_and_instance_type() -> None:
    nodes = [
        node("gke-1", {"cloud.google.com/gke-nodepool": "pool-1"}, zone="a"),
        node("k-1", {"karpenter.sh/nodepool": "default"}, zone="a"),
        node("aks-1", {"kubernetes.azure.com/agentpool": "sys"}, zone="b"),
        node("multi-a", {"eks.amazonaws.com/nodegroup": "ng"}, zone="a"),
        node("multi-b", {"eks.amazonaws.com/nodegroup": "ng"}, zone="b"),
        node("bare-1", {"node.kubernetes.io/instance-type": "m5.large"}, zone="a"),
        node("bare-2", {"node.kubernetes.io/instance-type": "m5.large"}, zone="a"),
    ]
    got = {(g.name, g.label, g.zone): g.nodes for g in node_groups(nodes)}
    assert got == {
        ("pool-1", "cloud.google.com/gke-nodepool", "a"): ("gke-1",),
        ("default", "karpenter.sh/nodepool", "a"): ("k-1",),
        ("sys", "kubernetes.azure.com/agentpool", "b"): ("aks-1",),
        ("ng/a", "eks.amazonaws.com/nodegroup", "a"): ("multi-a",),
        ("ng/b", "eks.amazonaws.com/nodegroup", "b"): ("multi-b",),
        ("a/m5.large", "zone/instance-type", "a"): ("bare-1", "bare-2"),
    }
