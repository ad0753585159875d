"""planner.validation's entry points: every rule of the API server's validation, table-driven.

Each case mutates a valid object and lists the exact messages expected, each a port of an
upstream rule (pkg/apis/core/validation, pkg/apis/apps/validation, ... at the Kubernetes baseline).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planner.validation import apply_defaults, validate_object, validate_objects
from planner.validation.apps import MAX_SURGE_OUT_OF_RANGE
from tests.validation.objects import (
    _DELETE,
    BUILDERS,
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    LABEL_KEY_TOO_MANY_SLASHES,
    LABEL_VALUE,
    NAME_PART,
    PERCENT,
    QUANTITY_FORMAT,
    check,
    deployment,
    node,
    pod,
    storageclass,
)

# --------------------------------------------------------------------------- valid objects pass


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_realistic_objects_are_valid(kind: str) -> None:
    obj = BUILDERS[kind]()
    apply_defaults(obj)
    assert validate_object(obj) == []


def test_valid_objects_without_namespace_default_to_default() -> None:
    obj = deployment()
    del obj["metadata"]["namespace"]
    assert validate_object(copy.deepcopy(obj)) == []
    apply_defaults(obj)
    assert obj["metadata"]["namespace"] == "default"


def test_validate_objects_all_valid() -> None:
    objs = [b() for b in BUILDERS.values()]
    for o in objs:
        apply_defaults(o)
    assert validate_objects(objs) == []


# --------------------------------------------------------------------------- rule table

P = "Pod default/web-0: "
D = "Deployment default/web: "
RS = "ReplicaSet default/web-7d4b9c8f6d: "
SS = "StatefulSet default/web: "
N = "Node worker-1: "
PV = "PersistentVolume local-pv-1: "
PVC = "PersistentVolumeClaim default/www-web-0: "
SC = "StorageClass fast: "
H = "HorizontalPodAutoscaler default/web: "
PDB = "PodDisruptionBudget default/web: "
TPL = "spec.template.spec"
TSC0 = "spec.topologySpreadConstraints[0]"
C0 = "spec.containers[0]"
NA = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
PA = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"

TSC = {
    "maxSkew": 1,
    "topologyKey": "topology.kubernetes.io/zone",
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"app": "web"}},
}


def tsc(**kw: Any) -> dict[str, Any]:
    c = copy.deepcopy(TSC)
    for k, v in kw.items():
        if v is _DELETE:
            c.pop(k, None)
        else:
            c[k] = v
    return c


def term(**kw: Any) -> dict[str, Any]:
    t: dict[str, Any] = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
    t.update(kw)
    return t


def node_affinity(*exprs: dict[str, Any], fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {"matchExpressions": list(exprs)}
    if fields is not None:
        t = {"matchFields": fields}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [t]}}}


CASES: list[tuple[str, str, dict[str, Any], list[str]]] = [
    # ---- metadata: ValidateObjectMeta, NameIsDNSSubdomain / NameIsDNSLabel, ValidateLabels
    (
        "pod name is a DNS subdomain",
        "Pod",
        {"metadata.name": "Web_0"},
        [
            f'Pod default/Web_0: metadata.name: Invalid value: "Web_0": {DNS1123_SUBDOMAIN}',
            # the PVC of an ephemeral volume is named <pod>-<volume>
            f'Pod default/Web_0: spec.volumes[1].name: Invalid value: "scratch": PVC name "Web_0-scratch": {DNS1123_SUBDOMAIN}',
        ],
    ),
    (
        "pod name too long",
        "Pod",
        {"metadata.name": "a" * 254},
        [
            f'Pod default/{"a" * 254}: metadata.name: Invalid value: "{"a" * 254}": must be no more than 253 characters',
            f'Pod default/{"a" * 254}: spec.volumes[1].name: Invalid value: "scratch": PVC name "{"a" * 254}-scratch": must be no more than 253 characters',
        ],
    ),
    (
        "statefulset name is a DNS label",
        "StatefulSet",
        {"metadata.name": "web.v1"},
        ['StatefulSet default/web.v1: metadata.name: Invalid value: "web.v1": must not contain dots'],
    ),
    (
        "name is required",
        "Pod",
        {"metadata.name": _DELETE},
        ["Pod default/<no name>: metadata.name: Required value: name or generateName is required"],
    ),
    (
        "namespace is a DNS label",
        "Pod",
        {"metadata.namespace": "Prod"},
        [f'Pod Prod/web-0: metadata.namespace: Invalid value: "Prod": {DNS1123_LABEL}'],
    ),
    (
        "cluster-scoped objects have no namespace",
        "Node",
        {"metadata.namespace": "default"},
        [N + "metadata.namespace: Forbidden: not allowed on this type"],
    ),
    (
        "label value",
        "Pod",
        {"metadata.labels.app": "-web"},
        [P + f'metadata.labels: Invalid value: "-web": {LABEL_VALUE}'],
    ),
    (
        "label value too long",
        "Pod",
        {"metadata.labels.app": "a" * 64},
        [P + f'metadata.labels: Invalid value: "{"a" * 64}": must be no more than 63 bytes'],
    ),
    (
        "label key with two slashes",
        "Pod",
        {"metadata.labels": {"a/b/c": "x"}},
        [P + f'metadata.labels: Invalid value: "a/b/c": {LABEL_KEY_TOO_MANY_SLASHES}'],
    ),
    (
        "label key with empty prefix",
        "Pod",
        {"metadata.labels": {"/app": "x"}},
        [P + 'metadata.labels: Invalid value: "/app": prefix part must be non-empty'],
    ),
    (
        "label key prefix is a DNS subdomain",
        "Pod",
        {"metadata.labels": {"Example.com/app": "x"}},
        [P + f'metadata.labels: Invalid value: "Example.com/app": prefix part {DNS1123_SUBDOMAIN}'],
    ),
    (
        "label key name part",
        "Pod",
        {"metadata.labels": {"app_": "x"}},
        [P + f'metadata.labels: Invalid value: "app_": {NAME_PART}'],
    ),
    (
        "label key name part too long",
        "Pod",
        {"metadata.labels": {"k" * 64: "x"}},
        [P + f'metadata.labels: Invalid value: "{"k" * 64}": name part must be no more than 63 bytes'],
    ),
    (
        "annotation keys are qualified names",
        "Pod",
        {"metadata.annotations": {"bad key": "x"}},
        [P + f'metadata.annotations: Invalid value: "bad key": {NAME_PART}'],
    ),
    (
        "annotations total size",
        "Pod",
        {"metadata.annotations": {"a": "x" * (256 * 1024)}},
        [P + "metadata.annotations: Too long: may not be more than 262144 bytes"],
    ),
    (
        "owner references",
        "Pod",
        {"metadata.ownerReferences": [{"apiVersion": "", "kind": "", "name": "", "uid": ""}]},
        [
            P + 'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
            P + 'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
            P + 'metadata.ownerReferences.name: Invalid value: "": must not be empty',
            P + 'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
        ],
    ),
    (
        "only one controller owner reference",
        "Pod",
        {
            "metadata.ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "1", "controller": True},
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "2", "controller": True},
            ]
        },
        [
            P
            + 'metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"1","controller":true},'
            '{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"b","uid":"2","controller":true}]: '
            'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b'
        ],
    ),
    (
        "finalizer names",
        "PersistentVolume",
        {"metadata.finalizers": ["protect"]},
        [
            PV
            + 'metadata.finalizers[0]: Invalid value: "protect": name is neither a standard finalizer name nor is it fully qualified'
        ],
    ),
    # ---- label selectors: ValidateLabelSelector, LabelSelectorAsSelector
    (
        "selector operator",
        "Deployment",
        {"spec.selector": {"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["web"]}]}},
        [
            D + 'spec.selector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator',
            D
            + 'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Equals","values":["web"]}]}: invalid label selector',
        ],
    ),
    (
        "selector In needs values",
        "Deployment",
        {"spec.selector": {"matchExpressions": [{"key": "app", "operator": "In"}]}},
        [
            D
            + "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
            D
            + 'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In"}]}: invalid label selector',
        ],
    ),
    (
        "selector Exists takes no values",
        "Deployment",
        {
            "spec.selector": {
                "matchLabels": {"app": "web"},
                "matchExpressions": [{"key": "tier", "operator": "Exists", "values": ["x"]}],
            }
        },
        [
            D
            + "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            D
            + 'spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"Exists","values":["x"]}]}: invalid label selector',
        ],
    ),
    (
        "selector values are label values",
        "Deployment",
        {"spec.selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "a b"]}]}},
        [
            D + f'spec.selector.matchExpressions[0].values[1]: Invalid value: "a b": {LABEL_VALUE}',
            D
            + 'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In","values":["web","a b"]}]}: invalid label selector',
        ],
    ),
    (
        "deployment selector is required",
        "Deployment",
        {"spec.selector": _DELETE},
        [
            D + "spec.selector: Required value",
            D
            + 'spec.template.metadata.labels: Invalid value: {"app":"web","tier":"frontend"}: `selector` does not match template `labels`',
        ],
    ),
    (
        "deployment selector not empty",
        "Deployment",
        {"spec.selector": {}},
        [D + "spec.selector: Invalid value: {}: empty selector is invalid for deployment"],
    ),
    (
        "deployment selector matches the template",
        "Deployment",
        {"spec.selector.matchLabels.app": "api"},
        [
            D
            + 'spec.template.metadata.labels: Invalid value: {"app":"web","tier":"frontend"}: `selector` does not match template `labels`'
        ],
    ),
    # ---- Deployment: ValidateDeploymentSpec, ValidateDeploymentStrategy, ValidateRollingUpdateDeployment
    (
        "deployment replicas",
        "Deployment",
        {"spec.replicas": -1},
        [D + "spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "deployment minReadySeconds",
        "Deployment",
        {"spec.minReadySeconds": -5},
        [D + "spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0"],
    ),
    (
        "deployment revisionHistoryLimit",
        "Deployment",
        {"spec.revisionHistoryLimit": -1},
        [D + "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "progressDeadlineSeconds greater than minReadySeconds",
        "Deployment",
        {"spec.progressDeadlineSeconds": 10, "spec.minReadySeconds": 10},
        [D + "spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"],
    ),
    (
        "strategy type",
        "Deployment",
        {"spec.strategy": {"type": "BlueGreen"}},
        [
            D
            + 'spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"'
        ],
    ),
    (
        "Recreate with rollingUpdate",
        "Deployment",
        {"spec.strategy.type": "Recreate"},
        [D + "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
    ),
    (
        "maxSurge is an int or a percent",
        "Deployment",
        {"spec.strategy.rollingUpdate.maxSurge": "25"},
        [D + f'spec.strategy.rollingUpdate.maxSurge: Invalid value: "25": {PERCENT}'],
    ),
    (
        "maxUnavailable at most 100%",
        "Deployment",
        {"spec.strategy.rollingUpdate.maxUnavailable": "110%"},
        [D + 'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%'],
    ),
    (
        "maxUnavailable past int64 as a percent: more than 100% (strconv.Atoi's out-of-range value)",
        "Deployment",
        {"spec.strategy.rollingUpdate.maxUnavailable": "99999999999999999999%"},
        [D + 'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "99999999999999999999%": must not be greater than 100%'],
    ),
    (
        "maxSurge percent past int64: the controller cannot read it (planner's own check)",
        "Deployment",
        {"spec.strategy.rollingUpdate.maxSurge": "9223372036854775808%"},
        [D + 'spec.strategy.rollingUpdate.maxSurge: Invalid value: "9223372036854775808%": ' + MAX_SURGE_OUT_OF_RANGE],
    ),
    (
        "maxSurge percent of thousands of digits",
        "Deployment",
        {"spec.strategy.rollingUpdate.maxSurge": "1" + "0" * 5000 + "%"},
        [D + 'spec.strategy.rollingUpdate.maxSurge: Invalid value: "1' + "0" * 5000 + '%": ' + MAX_SURGE_OUT_OF_RANGE],
    ),
    (
        "maxUnavailable not negative",
        "Deployment",
        {"spec.strategy.rollingUpdate.maxUnavailable": -1},
        [D + "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "maxUnavailable and maxSurge not both zero",
        "Deployment",
        {"spec.strategy.rollingUpdate": {"maxSurge": "0%", "maxUnavailable": 0}},
        [D + "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"],
    ),
    (
        "template restartPolicy Always",
        "Deployment",
        {f"{TPL}.restartPolicy": "Never"},
        [D + 'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
    ),
    (
        "template activeDeadlineSeconds",
        "Deployment",
        {f"{TPL}.activeDeadlineSeconds": 10},
        [
            D
            + "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"
        ],
    ),
    (
        "template labels are reported at template.labels",
        "Deployment",
        {"spec.template.metadata.labels.tier": "front end"},
        [D + f'spec.template.labels: Invalid value: "front end": {LABEL_VALUE}'],
    ),
    (
        "template pod spec is validated (maxSkew)",
        "Deployment",
        {f"{TPL}.topologySpreadConstraints[0].maxSkew": 0},
        [D + "spec.template.spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"],
    ),
    # ---- ReplicaSet: ValidateReplicaSetSpec
    (
        "replicaset replicas",
        "ReplicaSet",
        {"spec.replicas": -2},
        [RS + "spec.replicas: Invalid value: -2: must be greater than or equal to 0"],
    ),
    (
        "replicaset empty selector (upstream says deployment)",
        "ReplicaSet",
        {"spec.selector": {}},
        [RS + "spec.selector: Invalid value: {}: empty selector is invalid for deployment"],
    ),
    # ---- StatefulSet: ValidateStatefulSetSpec, validateRollingUpdateStatefulSet
    (
        "podManagementPolicy",
        "StatefulSet",
        {"spec.podManagementPolicy": "Random"},
        [SS + "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"],
    ),
    (
        "updateStrategy type",
        "StatefulSet",
        {"spec.updateStrategy": {"type": "Rolling"}},
        [
            SS
            + 'spec.updateStrategy: Invalid value: {"Type":"Rolling","RollingUpdate":null}: must be \'RollingUpdate\' or \'OnDelete\''
        ],
    ),
    (
        "partition not negative",
        "StatefulSet",
        {"spec.updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": -1}}},
        [SS + "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "OnDelete without rollingUpdate",
        "StatefulSet",
        {"spec.updateStrategy": {"type": "OnDelete", "rollingUpdate": {"partition": 1}}},
        [
            SS
            + 'spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":1,"MaxUnavailable":null}: only allowed for updateStrategy \'RollingUpdate\''
        ],
    ),
    (
        "statefulset maxUnavailable not 0",
        "StatefulSet",
        {"spec.updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0}}},
        [SS + "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0"],
    ),
    (
        "statefulset maxUnavailable percent",
        "StatefulSet",
        {"spec.updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "200%"}}},
        [SS + 'spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "200%": must not be greater than 100%'],
    ),
    (
        "persistentVolumeClaimRetentionPolicy",
        "StatefulSet",
        {"spec.persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Keep"}},
        [
            SS
            + 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"'
        ],
    ),
    (
        "ordinals.start",
        "StatefulSet",
        {"spec.ordinals": {"start": -1}},
        [SS + "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "statefulset replicas",
        "StatefulSet",
        {"spec.replicas": -1},
        [SS + "spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "serviceName is a DNS label",
        "StatefulSet",
        {"spec.serviceName": "Web_svc"},
        [SS + f'spec.serviceName: Invalid value: "Web_svc": {DNS1123_LABEL}'],
    ),
    (
        "statefulset empty selector",
        "StatefulSet",
        {"spec.selector": {}},
        [SS + "spec.selector: Invalid value: {}: empty selector is invalid for statefulset"],
    ),
    (
        "statefulset invalid selector (upstream gives no detail)",
        "StatefulSet",
        {"spec.selector": {"matchExpressions": [{"key": "app", "operator": "Is"}]}},
        [
            SS + 'spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator',
            SS + 'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Is"}]}',
        ],
    ),
    (
        "statefulset selector matches the template",
        "StatefulSet",
        {"spec.selector.matchLabels.app": "web"},
        [
            SS
            + 'spec.template.metadata.labels: Invalid value: {"app":"nginx"}: `selector` does not match template `labels`'
        ],
    ),
    (
        "statefulset template spec validated as a pod's (planner)",
        "StatefulSet",
        {f"{TPL}.containers[0].resources.requests.cpu": "-100m"},
        [
            SS
            + 'spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "-100m": must be greater than or equal to 0'
        ],
    ),
    (
        "volumeClaimTemplates need a storage request (planner)",
        "StatefulSet",
        {"spec.volumeClaimTemplates[0].spec.resources": {}},
        [SS + "spec.volumeClaimTemplates[0].spec.resources[storage]: Required value"],
    ),
    (
        "volumeClaimTemplates names (planner)",
        "StatefulSet",
        {"spec.volumeClaimTemplates[0].metadata.name": "WWW"},
        [
            SS
            + f'spec.volumeClaimTemplates[0].metadata.name: Invalid value: "WWW": PVC name "WWW-web-2": {DNS1123_SUBDOMAIN}'
        ],
    ),
    (
        "volumeClaimTemplates name required (planner)",
        "StatefulSet",
        {"spec.volumeClaimTemplates[0].metadata": {}},
        [SS + "spec.volumeClaimTemplates[0].metadata.name: Required value"],
    ),
    # ---- topology spread constraints: validateTopologySpreadConstraints
    (
        "maxSkew > 0",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(maxSkew=0)]},
        [P + f"{TSC0}.maxSkew: Invalid value: 0: must be greater than zero"],
    ),
    (
        "topologyKey required",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(topologyKey="")]},
        [P + f"{TSC0}.topologyKey: Required value: can not be empty"],
    ),
    (
        "whenUnsatisfiable values",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(whenUnsatisfiable="Foo")]},
        [
            P
            + f'{TSC0}.whenUnsatisfiable: Unsupported value: "Foo": supported values: "DoNotSchedule", "ScheduleAnyway"'
        ],
    ),
    (
        "duplicate topologyKey and whenUnsatisfiable",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(), tsc(maxSkew=2)]},
        [
            P
            + f'{TSC0}.{{topologyKey, whenUnsatisfiable}}: Duplicate value: "{{topology.kubernetes.io/zone, DoNotSchedule}}"'
        ],
    ),
    (
        "minDomains > 0",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(minDomains=0)]},
        [P + f"{TSC0}.minDomains: Invalid value: 0: must be greater than zero"],
    ),
    (
        "minDomains only with DoNotSchedule",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(minDomains=2, whenUnsatisfiable="ScheduleAnyway")]},
        [
            P
            + f"{TSC0}.minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"
        ],
    ),
    (
        "nodeAffinityPolicy values",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(nodeAffinityPolicy="Always")]},
        [P + f'{TSC0}.nodeAffinityPolicy: Unsupported value: "Always": supported values: "Honor", "Ignore"'],
    ),
    (
        "nodeTaintsPolicy values",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(nodeTaintsPolicy="")]},
        [P + f'{TSC0}.nodeTaintsPolicy: Unsupported value: "": supported values: "Honor", "Ignore"'],
    ),
    (
        "matchLabelKeys need a labelSelector",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(labelSelector=_DELETE, matchLabelKeys=["app"])]},
        [P + f"{TSC0}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"],
    ),
    (
        "matchLabelKeys are label keys",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(matchLabelKeys=["a/b/c"])]},
        [P + f'{TSC0}.matchLabelKeys[0]: Invalid value: "a/b/c": {LABEL_KEY_TOO_MANY_SLASHES}'],
    ),
    (
        "matchLabelKeys key already in the selector (upstream's path)",
        "Pod",
        {
            "spec.topologySpreadConstraints": [
                tsc(
                    labelSelector={
                        "matchLabels": {"app": "web"},
                        "matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}],
                    },
                    matchLabelKeys=["app"],
                )
            ]
        },
        [P + f'{TSC0}[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector'],
    ),
    (
        "topology spread labelSelector",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(labelSelector={"matchLabels": {"app": "a b"}})]},
        [P + f'{TSC0}.labelSelector.matchLabels: Invalid value: "a b": {LABEL_VALUE}'],
    ),
    # ---- pod (anti-)affinity: validatePodAffinityTerm, validateWeightedPodAffinityTerms
    (
        "pod affinity topologyKey required",
        "Pod",
        {"spec.affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term(topologyKey="")]}}},
        [
            P + f"{PA}[0].topologyKey: Required value: can not be empty",
            P + f'{PA}[0].topologyKey: Invalid value: "": name part must be non-empty',
            P + f'{PA}[0].topologyKey: Invalid value: "": {NAME_PART}',
        ],
    ),
    (
        "pod affinity topologyKey is a label key",
        "Pod",
        {
            "spec.affinity": {
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term(topologyKey="zone!")]}
            }
        },
        [P + f'{PA}[0].topologyKey: Invalid value: "zone!": {NAME_PART}'],
    ),
    (
        "preferred weight 1..100",
        "Pod",
        {
            "spec.affinity": {
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "podAffinityTerm": term()}]
                }
            }
        },
        [
            P
            + "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"
        ],
    ),
    (
        "pod affinity namespaces (upstream's path)",
        "Pod",
        {
            "spec.affinity": {
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term(namespaces=["Team_A"])]}
            }
        },
        [P + f'{PA}[0].namespace: Invalid value: "Team_A": {DNS1123_LABEL}'],
    ),
    (
        "pod affinity namespaceSelector",
        "Pod",
        {
            "spec.affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        term(namespaceSelector={"matchExpressions": [{"key": "team", "operator": "Has"}]})
                    ]
                }
            }
        },
        [
            P
            + f'{PA}[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "Has": not a valid selector operator'
        ],
    ),
    (
        "pod affinity labelSelector",
        "Pod",
        {
            "spec.affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        term(labelSelector={"matchExpressions": [{"key": "app", "operator": "NotIn"}]})
                    ]
                }
            }
        },
        [
            P
            + f"{PA}[0].labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
        ],
    ),
    (
        "matchLabelKeys and mismatchLabelKeys overlap",
        "Pod",
        {
            "spec.affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        term(matchLabelKeys=["tenant"], mismatchLabelKeys=["tenant"])
                    ]
                }
            }
        },
        [
            P
            + f'{PA}[0].matchLabelKeys[0]: Invalid value: "tenant": exists in both matchLabelKeys and mismatchLabelKeys'
        ],
    ),
    (
        "mismatchLabelKeys need a labelSelector",
        "Pod",
        {
            "spec.affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        term(labelSelector=None, mismatchLabelKeys=["tenant"])
                    ]
                }
            }
        },
        [P + f"{PA}[0].mismatchLabelKeys: Forbidden: must not be specified when labelSelector is not set"],
    ),
    # ---- node affinity: ValidateNodeSelector, ValidateNodeSelectorRequirement, ValidateNodeFieldSelectorRequirement
    (
        "node selector terms required",
        "Pod",
        {
            "spec.affinity": {
                "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
            }
        },
        [P + f"{NA}.nodeSelectorTerms: Required value: must have at least one node selector term"],
    ),
    (
        "node selector operator",
        "Pod",
        {"spec.affinity": node_affinity({"key": "zone", "operator": "Equals", "values": ["a"]})},
        [
            P
            + f'{NA}.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator'
        ],
    ),
    (
        "Gt/Lt take one value",
        "Pod",
        {"spec.affinity": node_affinity({"key": "cpu-gen", "operator": "Gt", "values": ["3", "4"]})},
        [
            P
            + f"{NA}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"
        ],
    ),
    (
        "In takes values",
        "Pod",
        {"spec.affinity": node_affinity({"key": "zone", "operator": "In"})},
        [
            P
            + f"{NA}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
        ],
    ),
    (
        "DoesNotExist takes no values",
        "Pod",
        {"spec.affinity": node_affinity({"key": "zone", "operator": "DoesNotExist", "values": ["a"]})},
        [
            P
            + f"{NA}.nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        ],
    ),
    (
        "required node affinity values are label values",
        "Pod",
        {"spec.affinity": node_affinity({"key": "zone", "operator": "In", "values": ["eu west"]})},
        [P + f'{NA}.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "eu west": {LABEL_VALUE}'],
    ),
    (
        "matchFields only metadata.name",
        "Pod",
        {"spec.affinity": node_affinity(fields=[{"key": "metadata.labels", "operator": "In", "values": ["a"]}])},
        [
            P
            + f'{NA}.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.labels": not a valid field selector key'
        ],
    ),
    (
        "matchFields one value",
        "Pod",
        {"spec.affinity": node_affinity(fields=[{"key": "metadata.name", "operator": "NotIn", "values": ["a", "b"]}])},
        [
            P
            + f"{NA}.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
        ],
    ),
    (
        "matchFields operators",
        "Pod",
        {"spec.affinity": node_affinity(fields=[{"key": "metadata.name", "operator": "Exists"}])},
        [
            P
            + f'{NA}.nodeSelectorTerms[0].matchFields[0].operator: Invalid value: "Exists": not a valid selector operator'
        ],
    ),
    (
        "matchFields values are node names",
        "Pod",
        {"spec.affinity": node_affinity(fields=[{"key": "metadata.name", "operator": "In", "values": ["Worker_1"]}])},
        [P + f'{NA}.nodeSelectorTerms[0].matchFields[0].values[0]: Invalid value: "Worker_1": {DNS1123_SUBDOMAIN}'],
    ),
    (
        "preferred node affinity weight; invalid values allowed there",
        "Pod",
        {
            "spec.affinity": {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 101,
                            "preference": {
                                "matchExpressions": [{"key": "zone", "operator": "In", "values": ["eu west"]}]
                            },
                        }
                    ]
                }
            }
        },
        [
            P
            + "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100"
        ],
    ),
    (
        "nodeSelector labels",
        "Pod",
        {"spec.nodeSelector": {"disk": "ssd!"}},
        [P + f'spec.nodeSelector: Invalid value: "ssd!": {LABEL_VALUE}'],
    ),
    (
        "nodeName",
        "Pod",
        {"spec.nodeName": "Worker_1"},
        [P + f'spec.nodeName: Invalid value: "Worker_1": {DNS1123_SUBDOMAIN}'],
    ),
    # ---- resources: ValidateContainerResourceRequirements, ValidateResourceQuantityValue
    (
        "requests <= limits",
        "Pod",
        {f"{C0}.resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}},
        [P + f'{C0}.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
    ),
    (
        "quantities not negative",
        "Pod",
        {f"{C0}.resources.requests.memory": "-1Gi"},
        [P + f'{C0}.resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0'],
    ),
    (
        "quantities parse",
        "Pod",
        {f"{C0}.resources.requests.cpu": "1 core"},
        [P + f'{C0}.resources.requests[cpu]: Invalid value: "1 core": {QUANTITY_FORMAT}'],
    ),
    (
        "resource names: standard or qualified",
        "Pod",
        {f"{C0}.resources.requests.gpu": "1"},
        [
            P
            + f'{C0}.resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
            P + f'{C0}.resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers',
        ],
    ),
    (
        "resource names: not a quota resource",
        "Pod",
        {f"{C0}.resources.requests.pods": "1"},
        [P + f'{C0}.resources.requests[pods]: Invalid value: "pods": must be a standard resource for containers'],
    ),
    (
        "extended resources need a limit",
        "Pod",
        {f"{C0}.resources": {"requests": {"example.com/gpu": "1"}}},
        [P + f"{C0}.resources.limits: Required value: Limit must be set for non overcommitable resources"],
    ),
    (
        "extended resources: request equals limit",
        "Pod",
        {f"{C0}.resources": {"requests": {"example.com/gpu": "1"}, "limits": {"example.com/gpu": "2"}}},
        [P + f'{C0}.resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2'],
    ),
    (
        "extended resources are integers",
        "Pod",
        {f"{C0}.resources": {"limits": {"example.com/gpu": "500m"}}},
        [
            P + f'{C0}.resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
            P + f'{C0}.resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer',
        ],
    ),
    (
        "extended resource name standard",
        "Pod",
        {f"{C0}.resources": {"limits": {"example.com/requests.gpu": "1"}}},
        [],
    ),
    (
        "hugepages are page multiples",
        "Pod",
        {f"{C0}.resources": {"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}}},
        [
            P
            + f'{C0}.resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi',
            P
            + f'{C0}.resources.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi',
        ],
    ),
    (
        "hugepages need cpu or memory",
        "Pod",
        {f"{C0}.resources": {"limits": {"hugepages-2Mi": "4Mi"}}},
        [P + f"{C0}.resources: Forbidden: HugePages require cpu or memory"],
    ),
    (
        "overhead",
        "Pod",
        {"spec.overhead": {"cpu": "-250m"}},
        [P + 'spec.overhead.limits[cpu]: Invalid value: "-250m": must be greater than or equal to 0'],
    ),
    # ---- tolerations: ValidateTolerations, validateTaintEffect
    (
        "empty key needs Exists",
        "Pod",
        {"spec.tolerations": [{"operator": "Equal", "value": "x"}]},
        [
            P
            + 'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"'
        ],
    ),
    (
        "empty key and empty operator",
        "Pod",
        {"spec.tolerations": [{"effect": "NoSchedule"}]},
        [
            P
            + 'spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"'
        ],
    ),
    (
        "tolerationSeconds only with NoExecute",
        "Pod",
        {"spec.tolerations": [{"key": "a", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 30}]},
        [
            P
            + "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"
        ],
    ),
    (
        "Exists with a value",
        "Pod",
        {"spec.tolerations": [{"key": "a", "operator": "Exists", "value": "x"}]},
        [P + "spec.tolerations[0].operator: Invalid value: \"x\": value must be empty when `operator` is 'Exists'"],
    ),
    (
        "toleration operators",
        "Pod",
        {"spec.tolerations": [{"key": "a", "operator": "In", "value": "x"}]},
        [P + 'spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"'],
    ),
    (
        "comparison operators are behind an alpha gate",
        "Pod",
        {"spec.tolerations": [{"key": "a", "operator": "Gt", "value": "3"}]},
        [P + 'spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", "Exists", "Lt", "Gt"'],
    ),
    (
        "toleration effects",
        "Pod",
        {"spec.tolerations": [{"key": "a", "operator": "Exists", "effect": "NoRun"}]},
        [
            P
            + 'spec.tolerations[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'
        ],
    ),
    (
        "toleration value is a label value",
        "Pod",
        {"spec.tolerations": [{"key": "a", "operator": "Equal", "value": "a b"}]},
        [P + f'spec.tolerations[0].operator: Invalid value: "a b": {LABEL_VALUE}'],
    ),
    (
        "toleration key is a label key",
        "Pod",
        {"spec.tolerations": [{"key": "a b", "operator": "Exists"}]},
        [P + f'spec.tolerations[0].key: Invalid value: "a b": {NAME_PART}'],
    ),
    # ---- containers, ports, volumes
    ("containers required", "Pod", {"spec.containers": []}, [P + "spec.containers: Required value"]),
    ("container name required", "Pod", {f"{C0}.name": ""}, [P + f"{C0}.name: Required value"]),
    (
        "container name is a DNS label",
        "Pod",
        {f"{C0}.name": "Web"},
        [P + f'{C0}.name: Invalid value: "Web": {DNS1123_LABEL}'],
    ),
    ("container image required", "Pod", {f"{C0}.image": _DELETE}, [P + f"{C0}.image: Required value"]),
    (
        "pod image whitespace",
        "Pod",
        {f"{C0}.image": " nginx"},
        [P + f'{C0}.image: Invalid value: " nginx": must not have leading or trailing whitespace'],
    ),
    (
        "container names unique across init and regular containers",
        "Pod",
        {"spec.initContainers[0].name": "web"},
        [P + 'spec.initContainers[0].name: Duplicate value: "web"'],
    ),
    (
        "containerPort required",
        "Pod",
        {f"{C0}.ports[0].containerPort": 0},
        [P + f"{C0}.ports[0].containerPort: Required value"],
    ),
    (
        "containerPort range",
        "Pod",
        {f"{C0}.ports[0].containerPort": 70000},
        [P + f"{C0}.ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"],
    ),
    (
        "hostPort range",
        "Pod",
        {f"{C0}.ports[0].hostPort": -1},
        [P + f"{C0}.ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive"],
    ),
    (
        "port protocols",
        "Pod",
        {f"{C0}.ports[0].protocol": "HTTP"},
        [P + f'{C0}.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"'],
    ),
    (
        "port names",
        "Pod",
        {f"{C0}.ports[0].name": "HTTP-"},
        [
            P
            + f'{C0}.ports[0].name: Invalid value: "HTTP-": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
            P + f'{C0}.ports[0].name: Invalid value: "HTTP-": must contain at least one letter (a-z)',
            P + f'{C0}.ports[0].name: Invalid value: "HTTP-": must not begin or end with a hyphen',
        ],
    ),
    (
        "host ports unique across containers",
        "Pod",
        {
            "spec.containers": [
                {"name": "a", "image": "a", "ports": [{"containerPort": 80, "hostPort": 8080}]},
                {"name": "b", "image": "b", "ports": [{"containerPort": 81, "hostPort": 8080}]},
            ]
        },
        [P + 'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
    ),
    (
        "volume claimName required",
        "Pod",
        {"spec.volumes[0].persistentVolumeClaim.claimName": ""},
        [P + "spec.volumes[0].persistentVolumeClaim.claimName: Required value"],
    ),
    (
        "volume names unique",
        "Pod",
        {"spec.volumes[2].name": "www"},
        [P + 'spec.volumes[2].name: Duplicate value: "www"'],
    ),
    (
        "volume names are DNS labels",
        "Pod",
        {"spec.volumes[2].name": "Config"},
        [P + f'spec.volumes[2].name: Invalid value: "Config": {DNS1123_LABEL}'],
    ),
    (
        "one volume type",
        "Pod",
        {"spec.volumes[0].emptyDir": {}},
        [P + "spec.volumes[0].persistentVolumeClaim: Forbidden: may not specify more than 1 volume type"],
    ),
    (
        "ephemeral volumes need a claim template",
        "Pod",
        {"spec.volumes[1].ephemeral": {}},
        [P + "spec.volumes[1].ephemeral.volumeClaimTemplate: Required value"],
    ),
    (
        "ephemeral claim template spec",
        "Pod",
        {"spec.volumes[1].ephemeral.volumeClaimTemplate.spec.accessModes": []},
        [
            P
            + "spec.volumes[1].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least 1 access mode is required"
        ],
    ),
    (
        "ephemeral claim template metadata",
        "Pod",
        {"spec.volumes[1].ephemeral.volumeClaimTemplate.metadata": {"name": "x"}},
        [P + "spec.volumes[1].ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set"],
    ),
    # validateImageVolumeSource: a reference is required (pods since the ImageVolume API, v1.31)
    (
        "image volume reference required",
        "Pod",
        {"spec.volumes[2]": {"name": "config", "image": {"reference": ""}}},
        [P + "spec.volumes[2].image.reference: Required value"],
    ),
    (
        "image volume reference required when absent",
        "Pod",
        {"spec.volumes[2]": {"name": "config", "image": {}}},
        [P + "spec.volumes[2].image.reference: Required value"],
    ),
    (
        "image volume with a reference",
        "Pod",
        {"spec.volumes[2]": {"name": "config", "image": {"reference": "registry.k8s.io/conformance:v1.37.0"}}},
        [],
    ),
    # ... and in pod templates from v1.37 (kubernetes#135989, CHANGELOG-1.37 v1.37.0-alpha.1)
    (
        "template image volume reference required (Deployment)",
        "Deployment",
        {f"{TPL}.volumes": [{"name": "models", "image": {"reference": ""}}]},
        [D + f"{TPL}.volumes[0].image.reference: Required value"],
    ),
    (
        "template image volume reference required (ReplicaSet)",
        "ReplicaSet",
        {f"{TPL}.volumes": [{"name": "models", "image": {"reference": ""}}]},
        [RS + f"{TPL}.volumes[0].image.reference: Required value"],
    ),
    (
        "template image volume reference required (StatefulSet)",
        "StatefulSet",
        {f"{TPL}.volumes": [{"name": "models", "image": {"reference": ""}}]},
        [SS + f"{TPL}.volumes[0].image.reference: Required value"],
    ),
    (
        "template image volume with a reference",
        "Deployment",
        {f"{TPL}.volumes": [{"name": "models", "image": {"reference": "registry.k8s.io/pause:3.10", "pullPolicy": "IfNotPresent"}}]},
        [],
    ),
    (
        "a PVC of an ephemeral volume is not a claim",
        "Pod",
        {"spec.volumes[0].persistentVolumeClaim.claimName": "web-0-scratch"},
        [
            P
            + 'spec.volumes[0].persistentVolumeClaim.claimName: Invalid value: "web-0-scratch": must not reference a PVC that gets created for an ephemeral volume'
        ],
    ),
    # ---- Node: validateNodeTaints (upstream reports them at metadata.taints), ValidateNodeResources
    (
        "taint effects",
        "Node",
        {"spec.taints[0].effect": "NoRun"},
        [
            N
            + 'metadata.taints[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'
        ],
    ),
    ("taint effect required", "Node", {"spec.taints[0].effect": ""}, [N + "metadata.taints[0].effect: Required value"]),
    (
        "taint key",
        "Node",
        {"spec.taints[0].key": "dedicated!"},
        [N + f'metadata.taints[0].key: Invalid value: "dedicated!": {NAME_PART}'],
    ),
    (
        "taint value",
        "Node",
        {"spec.taints[0].value": "d b"},
        [N + f'metadata.taints[0].value: Invalid value: "d b": {LABEL_VALUE}'],
    ),
    (
        "taints unique by key and effect",
        "Node",
        {"spec.taints[1].effect": "NoSchedule", "spec.taints[1].value": "other"},
        [
            N
            + 'metadata.taints[1]: Duplicate value: {"Key":"dedicated","Value":"other","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair'
        ],
    ),
    (
        "unschedulable is a boolean",
        "Node",
        {"spec.unschedulable": "yes"},
        [N + 'spec.unschedulable: Invalid value: "yes": must be of type boolean'],
    ),
    (
        "node capacity not negative",
        "Node",
        {"status.capacity.cpu": "-1"},
        [N + 'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0'],
    ),
    (
        "node pods are integers",
        "Node",
        {"status.allocatable.pods": "1.5"},
        [N + 'status.allocatable.pods: Invalid value: "1500m": must be an integer'],
    ),
    # ---- PersistentVolume: ValidatePersistentVolumeSpec
    (
        "pv capacity required",
        "PersistentVolume",
        {"spec.capacity": _DELETE},
        [
            PV + "spec.capacity: Required value",
            PV + 'spec.capacity: Unsupported value: null: supported values: "storage"',
        ],
    ),
    (
        "pv capacity is only storage",
        "PersistentVolume",
        {"spec.capacity.cpu": "1"},
        [PV + 'spec.capacity: Unsupported value: {"cpu":"1","storage":"100Gi"}: supported values: "storage"'],
    ),
    (
        "pv capacity positive",
        "PersistentVolume",
        {"spec.capacity.storage": "0"},
        [PV + 'spec.capacity[storage]: Invalid value: "0": must be greater than zero'],
    ),
    (
        "pv accessModes required",
        "PersistentVolume",
        {"spec.accessModes": []},
        [PV + "spec.accessModes: Required value"],
    ),
    (
        "pv accessModes values",
        "PersistentVolume",
        {"spec.accessModes": ["ReadWriteSometimes"]},
        [
            PV
            + 'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'
        ],
    ),
    (
        "ReadWriteOncePod alone",
        "PersistentVolume",
        {"spec.accessModes": ["ReadWriteOnce", "ReadWriteOncePod"]},
        [PV + "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"],
    ),
    (
        "pv reclaim policy",
        "PersistentVolume",
        {"spec.persistentVolumeReclaimPolicy": "Keep"},
        [
            PV
            + 'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"'
        ],
    ),
    (
        "pv nodeAffinity required terms",
        "PersistentVolume",
        {"spec.nodeAffinity": {}},
        [PV + "spec.nodeAffinity.required: Required value: must specify required node constraints"],
    ),
    (
        "pv nodeAffinity terms",
        "PersistentVolume",
        {"spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator": "Near"},
        [
            PV
            + 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator'
        ],
    ),
    (
        "local volumes need node affinity",
        "PersistentVolume",
        {"spec.nodeAffinity": _DELETE},
        [PV + "spec.nodeAffinity: Required value: Local volume requires node affinity"],
    ),
    (
        "pv needs a volume source",
        "PersistentVolume",
        {"spec.local": _DELETE},
        [PV + "spec: Required value: must specify a volume type"],
    ),
    # nfs comes before local in upstream's order, so local is the second type
    (
        "pv one volume source",
        "PersistentVolume",
        {"spec.nfs": {"server": "nfs", "path": "/"}},
        [PV + "spec.local: Forbidden: may not specify more than 1 volume type"],
    ),
    (
        "pv volumeMode",
        "PersistentVolume",
        {"spec.volumeMode": "Raw"},
        [PV + 'spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"'],
    ),
    # ---- PersistentVolumeClaim: ValidatePersistentVolumeClaimSpec
    (
        "pvc accessModes",
        "PersistentVolumeClaim",
        {"spec.accessModes": _DELETE},
        [PVC + "spec.accessModes: Required value: at least 1 access mode is required"],
    ),
    (
        "pvc storage request required",
        "PersistentVolumeClaim",
        {"spec.resources": {}},
        [PVC + "spec.resources[storage]: Required value"],
    ),
    (
        "pvc storage request positive",
        "PersistentVolumeClaim",
        {"spec.resources.requests.storage": "0"},
        [PVC + 'spec.resources[storage]: Invalid value: "0": must be greater than zero'],
    ),
    (
        "pvc storageClassName",
        "PersistentVolumeClaim",
        {"spec.storageClassName": "Fast_SSD"},
        [PVC + f'spec.storageClassName: Invalid value: "Fast_SSD": {DNS1123_SUBDOMAIN}'],
    ),
    (
        "pvc volumeMode",
        "PersistentVolumeClaim",
        {"spec.volumeMode": "Raw"},
        [PVC + 'spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"'],
    ),
    (
        "pvc selector",
        "PersistentVolumeClaim",
        {"spec.selector": {"matchExpressions": [{"key": "tier", "operator": "Exists", "values": ["a"]}]}},
        [
            PVC
            + "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        ],
    ),
    # ---- StorageClass: ValidateStorageClass
    ("provisioner required", "StorageClass", {"provisioner": ""}, [SC + "provisioner: Required value"]),
    (
        "provisioner is a qualified name (lower-cased)",
        "StorageClass",
        {"provisioner": "My Provisioner"},
        [SC + f'provisioner: Invalid value: "my provisioner": {NAME_PART}'],
    ),
    (
        "volumeBindingMode values",
        "StorageClass",
        {"volumeBindingMode": "Later"},
        [SC + 'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"'],
    ),
    (
        "reclaimPolicy values",
        "StorageClass",
        {"reclaimPolicy": "Recycle"},
        [SC + 'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"'],
    ),
    (
        "allowedTopologies values required",
        "StorageClass",
        {"allowedTopologies[0].matchLabelExpressions[0].values": []},
        [SC + "allowedTopologies[0].matchLabelExpressions[0].values: Required value"],
    ),
    (
        "allowedTopologies values unique",
        "StorageClass",
        {"allowedTopologies[0].matchLabelExpressions[0].values": ["a", "a"]},
        [SC + 'allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"'],
    ),
    (
        "allowedTopologies keys unique",
        "StorageClass",
        {
            "allowedTopologies[0].matchLabelExpressions": [
                {"key": "zone", "values": ["a"]},
                {"key": "zone", "values": ["b"]},
            ]
        },
        [SC + 'allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "zone"'],
    ),
    (
        "allowedTopologies terms unique",
        "StorageClass",
        {
            "allowedTopologies": [
                {"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]},
                {"matchLabelExpressions": [{"key": "zone", "values": ["a"]}]},
            ]
        },
        [SC + 'allowedTopologies[1].matchLabelExpressions: Duplicate value: ""'],
    ),
    (
        "allowedTopologies keys are label keys",
        "StorageClass",
        {"allowedTopologies[0].matchLabelExpressions[0].key": "zone!"},
        [SC + f'allowedTopologies[0].matchLabelExpressions[0].key: Invalid value: "zone!": {NAME_PART}'],
    ),
    # ---- HorizontalPodAutoscaler (autoscaling/v2): validateHorizontalPodAutoscalerSpec
    (
        "minReplicas >= 1",
        "HorizontalPodAutoscaler",
        {"spec.minReplicas": 0},
        [H + "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"],
    ),
    (
        "maxReplicas >= minReplicas",
        "HorizontalPodAutoscaler",
        {"spec.maxReplicas": 1},
        [H + "spec.maxReplicas: Invalid value: 1: must be greater than or equal to `minReplicas`"],
    ),
    (
        "maxReplicas > 0",
        "HorizontalPodAutoscaler",
        {"spec.maxReplicas": _DELETE},
        [
            H + "spec.maxReplicas: Invalid value: 0: must be greater than 0",
            H + "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
        ],
    ),
    (
        "scaleTargetRef kind required",
        "HorizontalPodAutoscaler",
        {"spec.scaleTargetRef.kind": ""},
        [H + "spec.scaleTargetRef.kind: Required value"],
    ),
    (
        "scaleTargetRef name required",
        "HorizontalPodAutoscaler",
        {"spec.scaleTargetRef.name": _DELETE},
        [H + "spec.scaleTargetRef.name: Required value"],
    ),
    (
        "scaleTargetRef name path segment",
        "HorizontalPodAutoscaler",
        {"spec.scaleTargetRef.name": "a/b"},
        [H + "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'"],
    ),
    # ---- PodDisruptionBudget: ValidatePodDisruptionBudgetSpec
    (
        "minAvailable and maxUnavailable not both",
        "PodDisruptionBudget",
        {"spec.maxUnavailable": 1},
        [
            PDB
            + 'spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"web"}},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set'
        ],
    ),
    (
        "minAvailable percent",
        "PodDisruptionBudget",
        {"spec.minAvailable": "ten"},
        [PDB + f'spec.minAvailable: Invalid value: "ten": {PERCENT}'],
    ),
    (
        "minAvailable <= 100%",
        "PodDisruptionBudget",
        {"spec.minAvailable": "150%"},
        [PDB + 'spec.minAvailable: Invalid value: "150%": must not be greater than 100%'],
    ),
    (
        "maxUnavailable not negative",
        "PodDisruptionBudget",
        {"spec.minAvailable": _DELETE, "spec.maxUnavailable": -1},
        [PDB + "spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"],
    ),
    (
        "unhealthyPodEvictionPolicy",
        "PodDisruptionBudget",
        {"spec.unhealthyPodEvictionPolicy": "Never"},
        [
            PDB
            + 'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"'
        ],
    ),
    (
        "pdb selector",
        "PodDisruptionBudget",
        {"spec.selector.matchLabels": {"app": "w b"}},
        [PDB + f'spec.selector.matchLabels: Invalid value: "w b": {LABEL_VALUE}'],
    ),
    ("pdb names are only path segments", "PodDisruptionBudget", {"metadata.name": "Web_PDB"}, []),
    (
        "pdb name path segment",
        "PodDisruptionBudget",
        {"metadata.name": "a%b"},
        ["PodDisruptionBudget default/a%b: metadata.name: Invalid value: \"a%b\": may not contain '%'"],
    ),
    # ---- Namespace
    (
        "namespace name is a DNS label",
        "Namespace",
        {"metadata.name": "Team_A"},
        [f'Namespace Team_A: metadata.name: Invalid value: "Team_A": {DNS1123_LABEL}'],
    ),
    # ---- wrong JSON types
    (
        "spec of the wrong type",
        "Pod",
        {"spec": ["containers"]},
        [P + 'spec: Invalid value: ["containers"]: must be of type object', P + "spec.containers: Required value"],
    ),
    (
        "container of the wrong type",
        "Pod",
        {"spec.containers[0]": "nginx"},
        [P + 'spec.containers[0]: Invalid value: "nginx": must be of type object'],
    ),
    (
        "labels of the wrong type",
        "Pod",
        {"metadata.labels": ["app"]},
        [P + 'metadata.labels: Invalid value: ["app"]: must be of type object'],
    ),
    (
        "label value not a string",
        "Pod",
        {"metadata.labels.version": 1.5},
        [P + "metadata.labels[version]: Invalid value: 1.5: must be of type string"],
    ),
    (
        "replicas as a string",
        "Deployment",
        {"spec.replicas": "3"},
        [D + 'spec.replicas: Invalid value: "3": must be of type integer'],
    ),
    (
        "replicas out of int32",
        "Deployment",
        {"spec.replicas": 2**31},
        [D + "spec.replicas: Invalid value: 2147483648: must be a 32-bit integer"],
    ),
    (
        "requests of the wrong type",
        "Pod",
        {f"{C0}.resources.requests": "1"},
        [P + f'{C0}.resources.requests: Invalid value: "1": must be of type object'],
    ),
    (
        "quantity of the wrong type",
        "Pod",
        {f"{C0}.resources.requests.cpu": True},
        [P + f"{C0}.resources.requests[cpu]: Invalid value: true: must be of type string or number"],
    ),
    (
        "tolerations of the wrong type",
        "Pod",
        {"spec.tolerations": {"key": "a"}},
        [P + 'spec.tolerations: Invalid value: {"key":"a"}: must be of type array'],
    ),
    (
        "maxSkew null reads as 0",
        "Pod",
        {"spec.topologySpreadConstraints": [tsc(maxSkew=None)]},
        [P + f"{TSC0}.maxSkew: Invalid value: 0: must be greater than zero"],
    ),
    (
        "intstr of the wrong type",
        "Deployment",
        {"spec.strategy.rollingUpdate.maxSurge": [1]},
        [D + "spec.strategy.rollingUpdate.maxSurge: Invalid value: [1]: must be of type integer or string"],
    ),
    (
        "node name not a string",
        "Pod",
        {"spec.nodeName": 7},
        [P + "spec.nodeName: Invalid value: 7: must be of type string"],
    ),
    ("quantities given as numbers", "Pod", {f"{C0}.resources.requests": {"cpu": 0.5, "memory": 134217728}}, []),
    # ---- API versions (a planner check)
    (
        "autoscaling/v2 only",
        "HorizontalPodAutoscaler",
        {"apiVersion": "autoscaling/v1"},
        [H + 'apiVersion: Unsupported value: "autoscaling/v1": supported values: "autoscaling/v2"'],
    ),
]


@pytest.mark.parametrize("name,kind,changes,expected", CASES, ids=[c[0] for c in CASES])
def test_rules(name: str, kind: str, changes: dict[str, Any], expected: list[str]) -> None:
    assert check(kind, changes) == expected


def test_every_kind_and_rule_group_is_covered() -> None:
    kinds = {c[1] for c in CASES}
    assert kinds == set(BUILDERS)


# --------------------------------------------------------------------------- objects as a whole


def test_not_an_object() -> None:
    assert validate_object("pod") == ['object: Invalid value: "pod": must be of type object']  # type: ignore[arg-type]


def test_unknown_kind() -> None:
    (msg,) = validate_object({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"}})
    assert msg.startswith('Service web: kind: Unsupported value: "Service": supported values: "Namespace", "Node", ')


def test_missing_kind() -> None:
    assert validate_object({"metadata": {"name": "x"}}) == ["object x: kind: Required value"]


def test_identical_messages_are_reported_once() -> None:
    """ErrorList.ToAggregate drops repeats: a StorageClass term with no expressions equals each of
    upstream's nil placeholders."""
    sc = storageclass()
    sc["allowedTopologies"] = [{"matchLabelExpressions": []}, {"matchLabelExpressions": []}]
    apply_defaults(sc)
    assert validate_object(sc) == [
        SC + 'allowedTopologies[0].matchLabelExpressions: Duplicate value: ""',
        SC + 'allowedTopologies[1].matchLabelExpressions: Duplicate value: ""',
    ]


def test_validate_objects_reports_duplicates() -> None:
    a, b, c, n1, n2 = pod(), pod(), pod(), node(), node()
    c["metadata"]["namespace"] = "other"
    objs = [a, b, c, n1, n2]
    for o in objs:
        apply_defaults(o)
    assert validate_objects(objs) == [
        P
        + 'metadata.name: Duplicate value: "web-0": another Pod named "web-0" in namespace "default" appears earlier in the input',
        N + 'metadata.name: Duplicate value: "worker-1": another Node named "worker-1" appears earlier in the input',
    ]


def test_validate_objects_reports_non_objects() -> None:
    assert validate_objects([["x"]]) == ['item[0]: Invalid value: ["x"]: must be of type object']


def test_never_raises_on_garbage() -> None:
    garbage: list[Any] = [None, 1, "x", [], {}, {"kind": 1}, {"kind": "Pod", "metadata": "x", "spec": 5}]
    for kind in BUILDERS:
        obj = BUILDERS[kind]()
        obj["spec"] = {"template": 3, "selector": [], "containers": {}, "volumes": "x", "updateStrategy": 1}
        obj["metadata"] = {"name": 3, "labels": {"a": None}, "ownerReferences": "x"}
        garbage.append(obj)
    for g in garbage:
        apply_defaults(g)  # type: ignore[arg-type]
        assert all(isinstance(m, str) for m in validate_objects([g]))


def test_memo_does_not_hide_errors() -> None:
    """The memo of valid pod specs: an identical spec but for nodeName still validates nodeName."""
    a, b = pod(), pod()
    b["metadata"]["name"] = "web-1"
    b["spec"]["nodeName"] = "Worker_1"
    b["spec"]["volumes"] = b["spec"]["volumes"][:1] + b["spec"]["volumes"][2:]
    a["spec"]["volumes"] = a["spec"]["volumes"][:1] + a["spec"]["volumes"][2:]
    for o in (a, b):
        apply_defaults(o)
    assert validate_object(a) == []
    assert validate_object(b) == [f'Pod default/web-1: spec.nodeName: Invalid value: "Worker_1": {DNS1123_SUBDOMAIN}']


