"""Which cluster events can make an unschedulable pod schedulable: what the scheduling queue
uses to keep a pod aside until something it could need happens.

Upstream: each filter plugin registers the events that may make a pod it rejected schedulable
(``EventsToRegister``, with a QueueingHint) and pkg/scheduler/backend/queue/scheduling_queue.go
moves a pod out of the unschedulable pods only on such an event.  The replay asks the narrower
question it needs: after pods were only *bound* (an assigned pod added, nothing deleted, no node,
volume or object changed), can a pod that no node passed now pass one?  For the default filter
plugins an added assigned pod only takes room (NodeResourcesFit, NodePorts, the volume limits),
adds matching pods to anti-affinity terms (InterPodAffinity: its own and the existing pods'
required anti-affinity) or leaves the node alone (NodeUnschedulable, NodeName, TaintToleration,
NodeAffinity, NodeDeclaredFeatures, whose AssignedPodAdd events upstream does not register).
Three plugins can accept a node after such an addition:

* InterPodAffinity, for a pod with required pod affinity (interpodaffinity/plugin.go
  isSchedulableAfterPodChange: an added pod matching the pod's affinity terms queues it);
* PodTopologySpread, for DoNotSchedule constraints (podtopologyspread/plugin.go
  isSchedulableAfterPodChange: an added matching pod raises a domain's count, and so possibly the
  global minimum the skew is measured from), the pod's own or a profile's List defaults;
* the volume plugins (VolumeBinding, VolumeRestrictions, VolumeZone, NodeVolumeLimits): binding a
  pod can bind or provision a claim it shares; any pod with volumes is counted here, whatever its
  volumes are.
"""

from __future__ import annotations

from planner.domain import Pod
from planner.scheduler.registry import Profile


def pod_add_may_help(pod: Pod, profile: Profile) -> bool:
    """Whether binding other pods (and nothing else) can make ``pod`` pass a node it failed on,
    under ``profile`` (whose filters must be the default ones: a profile of other filters is
    answered True)."""
    if not profile.default_filters:
        return True
    spec = pod.spec
    if spec.volumes:
        return True
    aff = spec.affinity
    if aff is not None and aff.pod_affinity_required:
        return True
    constraints = spec.topology_spread_constraints
    if any(c.when_unsatisfiable == "DoNotSchedule" for c in constraints):
        return True
    return not constraints and profile.spread_defaults_do_not_schedule


__all__ = ["pod_add_may_help"]
