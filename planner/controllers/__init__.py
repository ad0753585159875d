"""The workload controllers, ported from kube-controller-manager, for check and the replay simulator.

The simulated world (docs/semantics.md plus these rules):

* a pod is *ready* when its Ready condition is True (pkg/api/v1/pod/util.go IsPodReady); a pod
  with no conditions (hand-written) and every pod the replay creates and binds is ready as soon
  as it is Running on a node; *available* is ready for minReadySeconds since the Ready
  condition's lastTransitionTime (IsPodAvailable), and the StatefulSet controller waits for it by
  letting the simulated clock pass (docs/semantics.md);
* deleting a pod removes it at once (no graceful termination); a pod already marked terminating
  in the input is honoured as upstream does (not active, not healthy);
* names, uids and creation timestamps are deterministic: a synthetic clock one second past the
  newest object of the snapshot, ReplicaSet pods named ``<rs>-<5 characters>`` from a counter
  hash (as ``planner.scenario`` names them), StatefulSet pods ``<sts>-<ordinal>``.

Modules, each citing its upstream files in its docstring (and above each ported function):

* ``controller_utils``  pkg/controller/controller_utils.go: IsPodActive, pkg/api/v1/pod/util.go
  IsPodReady / IsPodAvailable, GetControllerOf / IsControlledBy, ActivePodsWithRanks (the deletion ranking),
  creation times, deterministic uids and generated names (apiserver storage/names)
* ``intstr``            k8s.io/apimachinery/pkg/util/intstr (percentages of replicas)
* ``informers``         the informers' indexes (client-go tools/cache): Index, TrackedIndex,
  indexed, and the simulated Clock
* ``template_hash``     controller_utils.go ComputeHash and pkg/controller/history: what the
  pod-template-hash and the ControllerRevision names are computed from
* ``actions``           the controllers' writes as values (CreatePod, DeletePod, ...)
* ``deployment``        pkg/controller/deployment/{sync.go, rolling.go, recreate.go,
  util/deployment_util.go}: FindNewReplicaSet, the rollout
* ``replicaset``        pkg/controller/replicaset/replica_set.go: manageReplicas, getPodsToDelete
* ``statefulset``       pkg/controller/statefulset/{stateful_set_control.go,
  stateful_set_utils.go, stateful_pod_control.go}: newVersionedStatefulSetPod,
  getPersistentVolumeClaims, the sync
* ``disruption``        pkg/controller/disruption/disruption.go and
  pkg/registry/core/pod/storage/eviction.go
* ``garbagecollector``  pkg/controller/garbagecollector (claims whose owner is gone) and the
  volume a deleted claim releases (pv_controller.go reclaimVolume)
* ``daemon``            pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod and
  util/daemonset_util.go AddOrUpdateDaemonPodTolerations: the DaemonSet pods a new node runs
* ``nodegroups``        kubernetes/autoscaler cluster-autoscaler: node groups, the template node
  (mixed_nodeinfos_processor.go isNodeGoodTemplateCandidate) and its sanitised copy
  (utils/taints SanitizeTaints, simulator/node_info_utils.go)
* ``reconciler``        the loop: ``reconcile`` (one pass of every controller), ``apply`` and
  ``Reconciler`` (the replay's incremental passes)

Nothing here imports the engines, the commands or the CLI built on it (the import layers in
pyproject.toml, checked by `make lint`).
"""
