"""kube-scheduler, ported: the framework, the default profile's plugins and their runners.

What is where (upstream: kubernetes/kubernetes pkg/scheduler/..., Kubernetes v1.37):

* ``framework.py``: NodeInfo, ClusterState (the scheduler's snapshot), Status, SKIP,
  fit_error_summary (framework/interface.go, framework/types.go, FitError).
* ``registry.py``: the typed plugin interfaces (FilterPlugin, ScorePlugin) and the default
  profile's plugins in upstream order, with the score weights (apis/config/v1/default_plugins.go).
* ``config.py``: a KubeSchedulerConfiguration (--scheduler-config) validated and merged into
  per-profile ``registry.Profile`` objects (apis/config/v1 defaults and mergePlugins, the
  framework's expandMultiPointPlugins and getScoreWeights, apis/config/validation).
* ``runtime.py``: evaluate / feasible_nodes, PreFilter and Filter over every node
  (framework/runtime/framework.go, schedule_one.go findNodesThatPassFilters).
* ``scoring.py``: the score phase and selectHost (framework/runtime/framework.go RunScorePlugins,
  schedule_one.go prioritizeNodes, selectHost).
* ``arrays.py``: per-node numpy arrays kept on a ClusterState that the plugins' vectorised score
  kernels read (no upstream counterpart: a speed-up, equal to the reference scores).
* ``fastfilter.py``: the replay's filter phase on node arrays (equal to runtime.feasible_nodes).
* ``binding.py``: bind_pod (the bind, VolumeBinding's PreBind and the provisioner's PV) and
  WitnessFilters (filters for a sequence of placements, PreFilterExtensions.AddPod).
* ``plugins/<plugin>/``: one folder per upstream plugin (framework/plugins/<plugin>/), named as
  upstream: nodeunschedulable, nodename, nodeports, tainttoleration, nodeaffinity, noderesources,
  volumerestrictions, nodevolumelimits, volumebinding, volumezone, podtopologyspread, interpodaffinity, nodedeclaredfeatures,
  imagelocality.  Inside, only the
  files a plugin has: ``common.py`` (helpers its filter and score share), ``filtering.py``
  (PreFilter, Filter), ``scoring.py`` (PreScore, Score, NormalizeScore), ``kernels.py`` (the
  vectorised equivalents), ``problem.py`` (what the CP-SAT problem, planner.engines.problem,
  takes from the plugin).  noderesources names its files as upstream: fit.py (NodeResourcesFit's
  Filter and Score; its scoring strategies), least_allocated.py, most_allocated.py,
  requested_to_capacity_ratio.py, balanced_allocation.py, resource_allocation.py.
  ``plugins/helper/shape_score.py``: BuildBrokenLinearFunction (VolumeBinding and
  RequestedToCapacityRatio).

The CP-SAT encodings of the plugins are in models/ (models/podtopologyspread.py,
models/interpodaffinity.py, models/noderesources.py, models/nodevolumelimits.py, models/volumebinding.py); the plugins'
tests in tests/scheduler/ mirror this layout.
"""
