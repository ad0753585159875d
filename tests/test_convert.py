"""What a pod made from a template asks of a node (planner.convert): the defaults the API server
applies when the pod is created (SetDefaults_Pod) are the pod's, and NodePorts counts the ports
upstream counts."""

from __future__ import annotations

import pytest

from planner.convert import Converter, effective_requests
from planner.domain import HostPort


def _spec(**kw: object) -> dict:
    return {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 8080, "protocol": "TCP"}]}], **kw}


def test_a_host_network_template_makes_pods_with_host_ports():
    # SetDefaults_Pod: with hostNetwork, a port's hostPort defaults to its containerPort
    tpl = Converter().template({"metadata": {"labels": {"app": "a"}}, "spec": _spec(hostNetwork=True)})
    assert tpl.spec.host_ports == (HostPort(8080, "TCP", "0.0.0.0"),)
    plain = Converter().template({"metadata": {"labels": {"app": "a"}}, "spec": _spec()})
    assert plain.spec.host_ports == ()


def test_host_network_is_part_of_the_shared_spec():
    conv = Converter()  # one converter: the pods' specs are shared by their key
    a = conv.pod_spec(_spec())
    b = conv.pod_spec(_spec(hostNetwork=True))
    assert a.host_ports == () and b.host_ports == (HostPort(8080, "TCP", "0.0.0.0"),)


@pytest.mark.parametrize(("restart", "counted"), [(None, False), ("Always", True)])
def test_only_sidecar_init_containers_hold_host_ports(restart, counted):
    # NodePorts' getContainerPorts: containers and restartable init containers (sidecars)
    init = {"name": "i", "image": "busybox", "ports": [{"containerPort": 9000, "hostPort": 9000, "protocol": "TCP"}]}
    if restart:
        init["restartPolicy"] = restart
    spec = Converter().pod_spec({"containers": [{"name": "c", "image": "nginx"}], "initContainers": [init]})
    assert spec.host_ports == ((HostPort(9000, "TCP", "0.0.0.0"),) if counted else ())
    assert "busybox" in spec.images  # its image still counts for ImageLocality


@pytest.mark.parametrize(
    ("pod_resources", "container_requests", "want"),
    [
        # pod-level limits only, no container requests: the requests default to the limits
        ({"limits": {"cpu": "6", "memory": "1Gi"}}, None, {"cpu": 6000, "memory": 1 << 30}),
        # containers ask for cpu: the pod-level cpu request is their aggregate, memory the limit
        ({"limits": {"cpu": "6", "memory": "1Gi"}}, {"cpu": "2"}, {"cpu": 2000, "memory": 1 << 30}),
        # a pod-level request is kept
        ({"limits": {"cpu": "6"}, "requests": {"cpu": "3"}}, {"cpu": "2"}, {"cpu": 3000}),
        # no pod-level limits: nothing defaulted, the containers' requests
        ({"requests": {"memory": "1Gi"}}, {"cpu": "2"}, {"cpu": 2000, "memory": 1 << 30}),
    ],
)
def test_pod_level_limits_default_the_pod_level_requests(pod_resources, container_requests, want):
    c: dict = {"name": "c", "image": "nginx"}
    if container_requests:
        c["resources"] = {"requests": container_requests}
    assert effective_requests({"containers": [c], "resources": pod_resources}) == want


@pytest.mark.parametrize(
    ("containers", "init", "want"),
    [
        # applyNonMissing per container: three containers without requests count 300m / 600Mi
        ([{}, {}, {}], [], (300, 600 << 20)),
        # an explicit zero stays zero; the other resource gets the default
        ([{"requests": {"cpu": "0"}}], [], (0, 200 << 20)),
        # an init container's defaults take part in its peak: max(100m + 100m, 100m init)
        ([{}, {}], [{}], (200, 400 << 20)),
        # a sidecar adds to the sum
        ([{}], [{"restartPolicy": "Always"}], (200, 400 << 20)),
        ([], [], (0, 0)),
    ],
)
def test_nonzero_requests_per_container(containers, init, want):
    def c(i: int, r: dict) -> dict:
        out = {"name": f"c{i}", "image": "x", "resources": {k: v for k, v in r.items() if k == "requests"}}
        if "restartPolicy" in r:
            out["restartPolicy"] = r["restartPolicy"]
        return out

    spec = {"containers": [c(i, r) for i, r in enumerate(containers)], "initContainers": [c(9 + i, r) for i, r in enumerate(init)]}
    assert Converter().pod_spec(spec).nonzero == want
