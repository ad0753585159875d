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
  global minimum the skew is measured from), the pod's own or a profile's List defaults.  Given the
  pods bound since, the pod's own constraints count only when one of them is involved
  (involvedInTopologySpreading: bound, in the pod's namespace) and matches a constraint's selector
  (podLabelsMatchSpreadConstraints); upstream answers QueueSkip otherwise: the counts the filter
  reads are unchanged;
* the volume plugins (VolumeBinding, VolumeRestrictions, VolumeZone, NodeVolumeLimits): binding a
  pod can bind or provision a claim it shares; any pod with volumes is counted here, whatever its
  volumes are.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.domain import Pod, selector_matches
from planner.scheduler.plugins.podtopologyspread.common import DO_NOT_SCHEDULE
from planner.scheduler.plugins.podtopologyspread.filtering import get_constraints
from planner.scheduler.registry import Profile


def pod_add_may_help(pod: Pod, profile: Profile, added: Sequence[Pod] | None = None) -> bool:
    """Whether binding other pods (and nothing else) can make ``pod`` pass a node it failed on,
    under ``profile`` (whose filters must be the default ones: a profile of other filters is
    answered True).  ``added``: the pods bound since it failed, when the caller knows them (None:
    any pod)."""
    if not profile.default_filters:
        return True
    spec = pod.spec
    if spec.volumes:
        return True
    aff = spec.affinity
    if aff is not None and aff.pod_affinity_required:
        return True
    constraints = spec.topology_spread_constraints
    if not constraints:
        return profile.spread_defaults_do_not_schedule
    if not any(c.when_unsatisfiable == DO_NOT_SCHEDULE for c in constraints):
        return False
    if added is None:
        return True
    selectors = [c.selector for c in get_constraints(pod) if c.selector is not None]
    ns = pod.namespace
    return any(p.namespace == ns and p.spec.node_name and any(selector_matches(s, p.labels) for s in selectors) for p in added)


__all__ = ["pod_add_may_help"]
