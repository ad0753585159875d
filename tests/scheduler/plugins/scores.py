"""Helpers of the score plugins' table tests (tests/scheduler/plugins/<plugin>/test_scoring.py)."""

from __future__ import annotations

from planner.scheduler import scoring
from tests.builders import cluster, node, pod

K = 1000  # cores -> millicores



def N(name: str, cpu: int = 0, memory: int = 0, **labels: str):
    """A node with exactly the given labels and allocatable cpu (millicores) and memory (bytes)."""
    return node(name, labels, cpu=cpu, memory=memory, hostname_label=False)


def P(name: str = "p", node_name: str = "", labels=None, *, requests=None, ns: str = "default", **kw):
    return pod(name, labels or {}, node_name=node_name, requests=requests, namespace=ns, **kw)


ZERO = {"cpu": 0, "memory": 0}  # a pod with no containers (see the module docstring)


def plugin(name: str, incoming, nodes, existing=(), feasible=None, namespaces=None):
    c = cluster(nodes, existing, namespaces=namespaces)
    names = feasible if feasible is not None else [n.name for n in nodes]
    return scoring.plugin_scores(name, incoming, c, names)
