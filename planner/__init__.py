"""planner: a constraint-solver placement planner for Kubernetes."""

__version__ = "0.1.0"
