"""Scenario files: a compact description of a cluster that does not exist, expanded into the
ordinary Kubernetes objects ``kubectl get -o yaml`` would show for it.

A scenario (``apiVersion: planner.dev/v1alpha1``, ``kind: Scenario``) names zones, node pools,
storage classes, workload manifests (passed through), the pods the controllers have created (by
shorthand: which workload, which ordinal or how many, where, which revision) and the volumes
(claims bound to zonal PersistentVolumes).  ``expand_scenario`` turns it into Nodes,
StorageClasses, Namespaces, the workloads, ReplicaSets, Pods, PersistentVolumeClaims and
PersistentVolumes, with the labels, ownerReferences, annotations and status the upstream
controllers set; the loader then defaults, validates and converts them like any other input.
Everything is deterministic: names, uids and timestamps derive from the scenario alone.

The format is documented in docs/scenarios.md.  Every problem is reported at once, one line each,
as ``Scenario <name>: <field path>: <upstream-style field error>``.

The modules, in the order an expansion runs through them:

* document.py: the entry points; the top-level fields, ``metadata``, ``description``, the raw
  ``steps``; reads every section below in order and raises the errors collected.
* expect.py: the shape of the ``expect:`` block.
* nodes.py: ``region``, ``zones``, ``nodePools`` -> Node objects; the Topology (every placement
  target, including Nodes given in ``objects``).
* storage_classes.py: ``storageClasses`` -> StorageClass objects; the default class.
* objects.py: ``objects`` passed through (namespace, uid, creationTimestamp added); the Namespace
  objects for namespaces used but not given.
* workloads.py: the Deployments and StatefulSets of ``objects`` (the parts of them the expansion
  reads must have their type), ``KIND/NAME`` references to them, and ``revisions`` (older pod
  templates as merge patches).
* volumes.py: ``volumes`` entries; PersistentVolumeClaims and their PersistentVolumes
  (ClaimWriter); the volumeClaimTemplate a claim without a pod comes from.
* pods.py: ``pods`` entries -> PodPlans (ordinals, counts, placement, phase), and the check that
  a placed StatefulSet pod is in its volumes' zone.
* placement.py: ``zone``/``zones`` -> the node that admits the pod with the fewest pods so far.
* emit.py: once everything read cleanly: the objects, in their order.
* pod_objects.py: Pod objects from PodPlans: Deployment pods (ReplicaSet owner, generateName),
  StatefulSet pods (ordinal names, hostname, their claims), tolerations, status, QoS.
* controller_objects.py: revision names, ReplicaSets, Deployment and StatefulSet status.

Shared by them: fields.py (field errors and typed readers), stamps.py (uids and the clock),
raw.py (tolerant accessors for raw manifests).
"""

from planner.scenario.document import ScenarioExpansion, expand_scenario, is_scenario
from planner.scenario.nodes import MAX_NODES
from planner.scenario.pods import MAX_PODS

__all__ = ["MAX_NODES", "MAX_PODS", "ScenarioExpansion", "expand_scenario", "is_scenario"]
