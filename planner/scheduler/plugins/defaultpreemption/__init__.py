"""DefaultPreemption (pkg/scheduler/framework/plugins/defaultpreemption/ and
pkg/scheduler/framework/preemption/): the PostFilter that decides whether a pod no node fits
may evict lower-priority pods, and which.  See preemption.py."""
