"""Placing a pod for real: the scheduler's bind plus what the volume controllers then do.

When a pod with unbound WaitForFirstConsumer claims is scheduled, VolumeBinding's PreBind binds
each claim to the static PV FindPodVolumes chose, or the external provisioner creates a PV in the
node's topology (pkg/scheduler/framework/plugins/volumebinding/binder.go BindPodVolumes; the CSI
provisioner's topology is the node's zone, else the node itself).  Claims of an Immediate class
are provisioned before scheduling; planner lets them follow the pod the same way and says so in
docs/semantics.md.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any

from planner.domain import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    POD_IDENTITY_LABELS,
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    PodSpec,
    reads_pod_identity,
    terms_read_pod_identity,
)
from planner.scheduler.framework import ClusterState, JournaledDict

if TYPE_CHECKING:
    from planner.scheduler.registry import FilterPlugin


_PINS = "_provisioned_pv_affinity"


def provisioned_pv(pvc: PersistentVolumeClaim, node: Node, cluster: ClusterState) -> PersistentVolume:
    sc = cluster.storage_classes.get(pvc.storage_class) if pvc.storage_class is not None else cluster.default_storage_class()
    keys: list[str] = []
    if sc is not None and sc.allowed_topologies:
        keys = sorted({k for t in sc.allowed_topologies for k, _ in t.requirements})
    if not keys:
        keys = [LABEL_ZONE] if LABEL_ZONE in node.labels else [LABEL_HOSTNAME]
    pins = tuple((k, node.labels[k]) for k in keys if k in node.labels)
    # one node affinity object per pin (a zone's volumes share it, as the PreFilter interns them)
    interned = cluster.__dict__.setdefault(_PINS, {})
    affinity = interned.get(pins)
    if affinity is None and pins:
        affinity = interned[pins] = NodeSelector((NodeSelectorTerm(tuple(NodeSelectorRequirement(k, "In", (v,)) for k, v in pins)),))
    return PersistentVolume(
        name=f"pvc-{pvc.namespace}-{pvc.name}",
        capacity=pvc.request,
        storage_class=sc.name if sc is not None else (pvc.storage_class or ""),
        access_modes=pvc.access_modes,
        node_affinity=affinity,
        claim_ref=(pvc.namespace, pvc.name),
        phase="Bound",
        reclaim_policy=sc.reclaim_policy if sc is not None else "Delete",
        volume_mode=pvc.volume_mode,
        # a CSI provisioner's PV carries spec.csi (NodeVolumeLimits counts it by driver and handle)
        csi_driver=sc.provisioner if sc is not None and sc.provisioner and not sc.provisioner.startswith("kubernetes.io/") else "",
        csi_volume_handle=f"pvc-{pvc.namespace}-{pvc.name}" if sc is not None and sc.provisioner else "",
    )


def bind_pod(cluster: ClusterState, pod: Pod, node_name: str, vb_pre_filter: tuple[Any, Any] | None = None) -> Pod:
    """Assign ``pod`` to ``node_name`` in ``cluster`` and bind its unbound claims; returns the bound pod.

    ``vb_pre_filter``: VolumeBinding's PreFilter result for the pod on this very cluster, when the
    caller already has it (WitnessFilters.bind)."""
    from planner.scheduler.plugins.volumebinding import filtering as vb

    node_info = cluster.own(node_name)  # copy-on-write: the clone's own NodeInfo
    node = node_info.node
    state, status = vb_pre_filter if vb_pre_filter is not None else vb.pre_filter(pod, cluster)
    chosen: dict[str, PersistentVolume] = {}
    provision: set[str] = set()
    if status is None and isinstance(state, vb.VolumeBindingState) and not state.trivial:
        volumes, _ = vb.find_pod_volumes(state, node)
        for pvc, pv in volumes.static_bindings:
            chosen[pvc.key] = pv
        provision = {pvc.key for pvc in volumes.dynamic_provisions}
    for vol in pod.spec.volumes:
        key = f"{pod.namespace}/{vol.claim_name}"
        found = cluster.pvcs.get(key)
        if found is None or (found.volume_name and found.volume_name in cluster.pvs):
            continue
        pvc = found
        if key in chosen:
            pv = replace(chosen[key], claim_ref=(pvc.namespace, pvc.name), phase="Bound")
        elif key in provision or not pvc.volume_name:
            pv = provisioned_pv(pvc, node, cluster)  # bound to the claim already
        else:
            continue
        cluster.pvs[pv.name] = pv
        cluster.pvcs[key] = replace(
            pvc,
            volume_name=pv.name,
            phase="Bound",
            annotations={**pvc.annotations, "pv.kubernetes.io/bind-completed": "yes"},
        )
    bound = bound_copy(pod, node_name)
    node_info.add_pod(bound)
    return bound


_POD_FIELDS = tuple(f.name for f in fields(Pod))
_SPEC_FIELDS = tuple(f.name for f in fields(PodSpec))
_pod_values = operator.attrgetter(*_POD_FIELDS)
_spec_values = operator.attrgetter(*_SPEC_FIELDS)


def bound_copy(pod: Pod, node_name: str) -> Pod:
    """``replace(pod, spec=replace(pod.spec, node_name=node_name), phase="Running")`` (the pod as
    the binding leaves it) without the two dataclass constructors: the fields copied one by one
    (every field of Pod and PodSpec is an init field without a __post_init__, so the result is
    equal field for field; tests/scheduler/test_binding.py compares the two)."""
    new, put = object.__new__, object.__setattr__
    spec = new(PodSpec)
    for name, value in zip(_SPEC_FIELDS, _spec_values(pod.spec)):
        put(spec, name, value)
    put(spec, "node_name", node_name)
    bound = new(Pod)
    for name, value in zip(_POD_FIELDS, _pod_values(pod)):
        put(bound, name, value)
    put(bound, "spec", spec)
    put(bound, "phase", "Running")
    return bound


class WitnessFilters:
    """Every filter plugin for one pod on one node, for a sequence of placements: PodTopologySpread's and InterPodAffinity's PreFilter
    states are computed once per pod signature and then kept current with their
    PreFilterExtensions.AddPod (as kube-scheduler does for nominated pods), instead of counting
    the whole cluster again for every pod placed.  Every other plugin runs its PreFilter each time
    (they read the pod and the volume objects, not the other pods).

    The cluster is the caller's to bind into: its claims, volumes and classes are put in
    JournaledDicts (the same objects, as the replay keeps them), so that VolumeBinding's PreFilter,
    run for every pod placed, keeps its PV index current from their journals instead of comparing
    every PV of the cluster again (framework.volumes_version)."""

    def __init__(self, cluster: ClusterState, plugins: Sequence[FilterPlugin] | None = None) -> None:
        from planner.scheduler.plugins.interpodaffinity import filtering as ipa
        from planner.scheduler.plugins.podtopologyspread import filtering as pts
        from planner.scheduler.runtime import filter_plugins

        if type(cluster.pvcs) is not JournaledDict:
            cluster.pvcs = JournaledDict(cluster.pvcs)
        if type(cluster.pvs) is not JournaledDict:
            cluster.pvs = JournaledDict(cluster.pvs)
        if type(cluster.storage_classes) is not JournaledDict:
            cluster.storage_classes = JournaledDict(cluster.storage_classes)
        self.cluster = cluster
        # the profile's filter plugins (--scheduler-config), else the default profile's; the two
        # counting plugins keep their states current (a profile's PodTopologySpread with List
        # defaults is applied to the pods beforehand: planner.scheduler.config.default_pods)
        self.mods = list(plugins) if plugins is not None else filter_plugins()
        self.counting = {pts.NAME: pts, ipa.NAME: ipa}
        self.states: dict[tuple, dict[str, Any]] = {}  # pod signature -> plugin -> (state, status)
        # pod key -> plugin -> (state, status) of the other plugins, until the next placement
        self.own_states: dict[str, dict[str, Any]] = {}
        self.reps: dict[tuple, Pod] = {}
        # Pods of one StatefulSet differ only in their identity labels (pod-name, pod-index); their
        # states are shared unless some selector reads those labels (then every label counts).
        seen: dict[int, bool] = {}  # id(affinity) -> reads identity (pods of a template share theirs)
        self.identity_read = False
        for ni in cluster.node_infos:
            for ep in ni.pods_with_required_anti_affinity:
                aff = ep.spec.affinity
                if aff is None:
                    continue
                hit = seen.get(id(aff))
                if hit is None:
                    hit = seen[id(aff)] = terms_read_pod_identity(aff.pod_anti_affinity_required)
                if hit:
                    self.identity_read = True
                    break
            if self.identity_read:
                break

    def _sig(self, pod: Pod) -> tuple:
        # what the two PreFilters read of the pod
        if self.identity_read or reads_pod_identity(pod):
            labels = tuple(sorted(pod.labels.items()))
        else:
            labels = tuple(sorted((k, v) for k, v in pod.labels.items() if k not in POD_IDENTITY_LABELS))
        return (pod.namespace, labels, pod.spec.affinity,
                pod.spec.topology_spread_constraints, tuple(sorted(pod.spec.node_selector.items())), pod.spec.tolerations)

    def fits(self, pod: Pod, node_name: str) -> list:
        from planner.scheduler.framework import SKIP

        ni = self.cluster.by_name[node_name]
        sig = self._sig(pod)
        cached = self.states.get(sig)
        if cached is None:
            cached = self.states[sig] = {name: mod.pre_filter(pod, self.cluster) for name, mod in self.counting.items()}
            self.reps[sig] = pod
        own = self.own_states.get(pod.key)
        if own is None:
            own = self.own_states[pod.key] = {}
        fails = []
        for mod in self.mods:
            if mod.NAME in cached:
                state, status = cached[mod.NAME]
            else:
                hit = own.get(mod.NAME)
                if hit is None:
                    hit = own[mod.NAME] = mod.pre_filter(pod, self.cluster)
                state, status = hit
            if status is not None:
                fails.append(status)
                continue
            if state is SKIP:
                continue
            st = mod.filter(state, pod, ni)
            if st is not None:
                fails.append(st)
        return fails

    def bind(self, pod: Pod, node_name: str) -> Pod:
        """bind_pod after fits(), reusing its VolumeBinding PreFilter result, then placed()."""
        from planner.scheduler.plugins.volumebinding import filtering as vb

        own = self.own_states.get(pod.key)
        bound = bind_pod(self.cluster, pod, node_name, own.get(vb.NAME) if own is not None else None)
        self.placed(bound)
        return bound

    def placed(self, bound: Pod) -> None:
        """After bind_pod: every cached state learns of the pod (AddPod); the other plugins'
        PreFilter results are dropped (a binding changes the claims and volumes they read)."""
        from planner.scheduler.plugins.interpodaffinity import filtering as ipa
        from planner.scheduler.plugins.podtopologyspread import filtering as pts

        self.own_states.clear()
        node = self.cluster.by_name[bound.spec.node_name].node
        aff = bound.spec.affinity
        if not self.identity_read and aff is not None and terms_read_pod_identity(aff.pod_anti_affinity_required):
            self.identity_read = True  # from now on every label counts: start the states afresh
            self.states.clear()
            self.reps.clear()
            return
        for sig, cached in list(self.states.items()):
            rep = self.reps[sig]
            pts.add_pod(cached[pts.NAME][0], bound, rep, node)
            ipa_state = cached[ipa.NAME][0]
            if ipa.add_pod_needs_prefilter(ipa_state, bound):
                cached[ipa.NAME] = ipa.pre_filter(rep, self.cluster)
            else:
                ipa.add_pod(ipa_state, bound, rep, node, self.cluster)
