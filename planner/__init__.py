"""planner: a constraint-solver placement planner for Kubernetes."""

__version__ = "0.2.0"

# The Kubernetes release whose kube-scheduler plugins, workload controllers and API validation
# planner's rules are ported from (each rule's docstring cites its upstream file). One place:
# `planner --version` prints it, docs/semantics.md explains it.
KUBERNETES_BASELINE = "v1.37"
