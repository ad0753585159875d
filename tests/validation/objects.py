"""Valid objects as `kubectl get -o yaml` prints them, upstream's detail strings, and the helpers
the validation tables mutate them with."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from planner.validation import apply_defaults, validate_object

# Upstream's detail strings (k8s.io/apimachinery/pkg/util/validation, api/validate/content).
DNS1123_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
DNS1123_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name' or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue' or 'my_value' or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName' or 'my.name' or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_KEY_TOO_MANY_SLASHES = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName' or 'my.name' or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. "
    "'example.com/MyName')"
)
PERCENT = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%' or '93%', regex used for validation is '[0-9]+%')"
QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


# --------------------------------------------------------------------------- valid objects (kubectl-style)


def deployment() -> dict[str, Any]:
    """`kubectl get deployment web -o yaml`, as decoded."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "annotations": {"deployment.kubernetes.io/revision": "3", "meta.helm.sh/release-name": "shop"},
            "creationTimestamp": "2024-05-01T10:00:00Z",
            "generation": 5,
            "labels": {"app": "web", "app.kubernetes.io/managed-by": "Helm"},
            "name": "web",
            "namespace": "default",
            "resourceVersion": "123456",
            "uid": "0f9e6a3c-1b2d-4c5e-8f7a-9b0c1d2e3f4a",
        },
        "spec": {
            "progressDeadlineSeconds": 600,
            "replicas": 3,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
            "template": {
                "metadata": {"creationTimestamp": None, "labels": {"app": "web", "tier": "frontend"}},
                "spec": {
                    "affinity": {
                        "podAntiAffinity": {
                            "preferredDuringSchedulingIgnoredDuringExecution": [
                                {
                                    "weight": 100,
                                    "podAffinityTerm": {
                                        "labelSelector": {
                                            "matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]
                                        },
                                        "topologyKey": "kubernetes.io/hostname",
                                    },
                                }
                            ]
                        },
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": [
                                    {
                                        "matchExpressions": [
                                            {
                                                "key": "kubernetes.io/arch",
                                                "operator": "In",
                                                "values": ["amd64", "arm64"],
                                            }
                                        ]
                                    }
                                ]
                            }
                        },
                    },
                    "containers": [
                        {
                            "image": "registry.example.com/shop/web:1.2.3",
                            "imagePullPolicy": "IfNotPresent",
                            "name": "web",
                            "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                            "resources": {
                                "limits": {"cpu": "1", "memory": "1Gi"},
                                "requests": {"cpu": "250m", "memory": "512Mi"},
                            },
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "File",
                        }
                    ],
                    "dnsPolicy": "ClusterFirst",
                    "restartPolicy": "Always",
                    "schedulerName": "default-scheduler",
                    "securityContext": {},
                    "terminationGracePeriodSeconds": 30,
                    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}],
                    "topologySpreadConstraints": [
                        {
                            "labelSelector": {"matchLabels": {"app": "web"}},
                            "matchLabelKeys": ["pod-template-hash"],
                            "maxSkew": 1,
                            "topologyKey": "topology.kubernetes.io/zone",
                            "whenUnsatisfiable": "DoNotSchedule",
                        }
                    ],
                },
            },
        },
        "status": {
            "availableReplicas": 3,
            "observedGeneration": 5,
            "readyReplicas": 3,
            "replicas": 3,
            "updatedReplicas": 3,
        },
    }


def replicaset() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": "web-7d4b9c8f6d",
            "namespace": "default",
            "labels": {"app": "web", "pod-template-hash": "7d4b9c8f6d"},
            "annotations": {"deployment.kubernetes.io/revision": "3"},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": "web",
                    "uid": "0f9e6a3c",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web", "pod-template-hash": "7d4b9c8f6d"}},
            "template": {
                "metadata": {"labels": {"app": "web", "pod-template-hash": "7d4b9c8f6d"}},
                "spec": {"containers": [{"name": "web", "image": "web:1"}]},
            },
        },
    }


def statefulset() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "nginx"}},
        "spec": {
            "serviceName": "nginx",
            "replicas": 3,
            "minReadySeconds": 10,
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": {
                "metadata": {"labels": {"app": "nginx"}},
                "spec": {
                    "terminationGracePeriodSeconds": 10,
                    "containers": [
                        {
                            "name": "nginx",
                            "image": "registry.k8s.io/nginx-slim:0.24",
                            "ports": [{"containerPort": 80, "name": "web"}],
                            "volumeMounts": [{"name": "www", "mountPath": "/usr/share/nginx/html"}],
                            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                        }
                    ],
                },
            },
            "volumeClaimTemplates": [
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolumeClaim",
                    "metadata": {"name": "www", "creationTimestamp": None},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "storageClassName": "my-storage-class",
                        "resources": {"requests": {"storage": "1Gi"}},
                    },
                    "status": {"phase": "Pending"},
                }
            ],
        },
    }


def pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web-0",
            "namespace": "default",
            "labels": {
                "app": "web",
                "apps.kubernetes.io/pod-index": "0",
                "statefulset.kubernetes.io/pod-name": "web-0",
            },
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "StatefulSet",
                    "name": "web",
                    "uid": "3c1b",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "containers": [
                {
                    "name": "web",
                    "image": "nginx:1.25",
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                }
            ],
            "initContainers": [{"name": "init", "image": "busybox:1.36", "resources": {"requests": {"cpu": "50m"}}}],
            "nodeName": "worker-1",
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "priority": 0,
            "tolerations": [
                {
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
                {"operator": "Exists"},
            ],
            "volumes": [
                {"name": "www", "persistentVolumeClaim": {"claimName": "www-web-0"}},
                {
                    "name": "scratch",
                    "ephemeral": {
                        "volumeClaimTemplate": {
                            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
                        }
                    },
                },
                {"name": "config", "configMap": {"name": "web-config"}},
            ],
        },
        "status": {"phase": "Running", "podIP": "10.0.0.7"},
    }


def node() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "worker-1",
            "labels": {
                "kubernetes.io/hostname": "worker-1",
                "topology.kubernetes.io/zone": "eu-west-1a",
                "node.kubernetes.io/instance-type": "m5.xlarge",
            },
            "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": {
            "podCIDR": "10.244.1.0/24",
            "taints": [
                {"key": "dedicated", "value": "db", "effect": "NoSchedule"},
                {"key": "dedicated", "value": "db", "effect": "NoExecute"},
            ],
        },
        "status": {
            "capacity": {
                "cpu": "4",
                "memory": "16302360Ki",
                "pods": "110",
                "ephemeral-storage": "101445540Ki",
                "hugepages-2Mi": "0",
            },
            "allocatable": {
                "cpu": "3920m",
                "memory": "15152408Ki",
                "pods": "110",
                "ephemeral-storage": "93492209510",
                "hugepages-2Mi": "0",
            },
        },
    }


def pv() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": "local-pv-1", "finalizers": ["kubernetes.io/pv-protection"]},
        "spec": {
            "capacity": {"storage": "100Gi"},
            "accessModes": ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Delete",
            "storageClassName": "local-storage",
            "local": {"path": "/mnt/disks/ssd1"},
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["worker-1"]}
                            ]
                        }
                    ]
                }
            },
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "default", "name": "www-web-0", "uid": "9a"},
        },
        "status": {"phase": "Bound"},
    }


def pvc() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": "www-web-0",
            "namespace": "default",
            "annotations": {"volume.kubernetes.io/selected-node": "worker-1"},
            "finalizers": ["kubernetes.io/pvc-protection"],
        },
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "storageClassName": "local-storage",
            "volumeMode": "Filesystem",
            "volumeName": "local-pv-1",
        },
        "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "100Gi"}},
    }


def storageclass() -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "fast", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "ebs.csi.aws.com",
        "parameters": {"type": "gp3"},
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowedTopologies": [
            {"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["eu-west-1a", "eu-west-1b"]}]}
        ],
    }


def hpa() -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}},
                }
            ],
        },
    }


def pdb() -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    }


def namespace() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"team": "a"}}}


BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "Deployment": deployment,
    "ReplicaSet": replicaset,
    "StatefulSet": statefulset,
    "Pod": pod,
    "Node": node,
    "PersistentVolume": pv,
    "PersistentVolumeClaim": pvc,
    "StorageClass": storageclass,
    "HorizontalPodAutoscaler": hpa,
    "PodDisruptionBudget": pdb,
    "Namespace": namespace,
}


def _steps(path: str) -> list[str | int]:
    out: list[str | int] = []
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        out.append(int(part[1:-1]) if part.startswith("[") else part)
    return out


_DELETE = object()


def put(obj: dict[str, Any], path: str, value: Any) -> None:
    """Set obj at a dotted path (``spec.template.spec.containers[0].name``); _DELETE removes it."""
    steps = _steps(path)
    cur: Any = obj
    for s in steps[:-1]:
        cur = cur[s]
    if value is _DELETE:
        del cur[steps[-1]]
    else:
        cur[steps[-1]] = value


def check(kind: str, changes: dict[str, Any]) -> list[str]:
    obj = BUILDERS[kind]()
    for path, value in changes.items():
        put(obj, path, value)
    apply_defaults(obj)
    return validate_object(obj)


