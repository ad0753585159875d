"""A Deployment's template is compared with its ReplicaSets' whole (deployment_util.go
EqualIgnoreHash): a change of an environment variable, a command or a probe is a new template, and
a template written by hand (the API server's defaults not filled in) is the one the API server
stores, so that it is not taken for a new one."""

from __future__ import annotations

import copy
import json

import pytest

from planner.convert import template_rest
from planner.validation.defaults import apply_defaults
from tests.conftest import run_cli

SCENARIO = """\
apiVersion: planner.dev/v1alpha1
kind: Scenario
metadata: {name: env-only-template-change}
nodePools:
- name: n
  count: 4
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    selector: {matchLabels: {app: web}}
    replicas: 4
    strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
        - {name: web, image: "nginx:1.27", env: [{name: MODE, value: new}], resources: {requests: {cpu: "100m"}}}
revisions:
- workload: deployment/web
  name: old
  template:
    spec:
      containers:
      - {name: web, image: "nginx:1.27", env: [{name: MODE, value: old}], resources: {requests: {cpu: "100m"}}}
pods:
%s
"""

# the rollout is over: every pod runs the current template, the old ReplicaSet is at 0
SETTLED = "- {workload: deployment/web, count: 4, nodes: [n-0, n-1, n-2, n-3]}"
# half way: 3 pods of the old template, 2 of the new (maxSurge 1)
HALF_WAY = "- {workload: deployment/web, revision: old, count: 3, nodes: [n-0, n-1, n-2]}\n- {workload: deployment/web, count: 2, nodes: [n-2, n-3]}"


def _simulate(tmp_path, pods: str, *args: str) -> dict:
    f = tmp_path / "s.yaml"
    f.write_text(SCENARIO % pods)
    r = run_cli(["simulate", str(f), "-w", "deployment/web", *args, "-o", "json"])
    assert r.code == 0, r.out + r.err
    return json.loads(r.out)


def _revisions(step: dict) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, p in step["pods"].items():
        rs = name.split("/")[-1].rsplit("-", 1)[0]
        if p["phase"] == "Running":
            out[rs] = out.get(rs, 0) + 1
    return out


def test_a_settled_rollout_of_an_environment_change_stays_settled(tmp_path):
    # was: the old ReplicaSet's template looked equal (only env differs), so it was taken for
    # the new one and the replay rolled every pod back to the old environment
    data = _simulate(tmp_path, SETTLED, "--scale", "4")
    assert data["steps"][0]["events"] == []
    assert all(s["events"] == [] for s in data["steps"])


def test_a_rollout_of_an_environment_change_goes_on_forward(tmp_path):
    # was: the replay scaled the new ReplicaSet to 0 and the old one back up (a rollback)
    data = _simulate(tmp_path, HALF_WAY, "--scale", "4")
    events = data["steps"][0]["events"]
    deleted = {e["pod"].split("/")[1].rsplit("-", 1)[0] for e in events if e["type"] == "deleted"}
    created = {e["pod"].split("/")[1].rsplit("-", 1)[0] for e in events if e["type"] == "created"}
    assert len(deleted) == 1 and len(created) == 1 and deleted != created
    (new_rs,) = created
    assert _revisions(data["steps"][-1]) == {new_rs: 4}
    # the ReplicaSet that grows is the one whose pods run the Deployment's environment
    f = tmp_path / "s.yaml"
    r = run_cli(["render", str(f), "-o", "json"])
    assert r.code == 0, r.err
    rs = {o["metadata"]["name"]: o for o in json.loads(r.out)["items"] if o["kind"] == "ReplicaSet"}
    assert rs[new_rs]["spec"]["template"]["spec"]["containers"][0]["env"] == [{"name": "MODE", "value": "new"}]


def _template(**container: object) -> dict:
    c = {"name": "web", "image": "nginx:1.27", **container}
    return {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [c]}}


def _rest_as_stored(t: dict) -> str:
    """The rest of a template after the loader's defaults (a Deployment carrying it)."""
    obj = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"}, "spec": {"template": copy.deepcopy(t)}}
    apply_defaults(obj)
    return template_rest(obj["spec"]["template"])


@pytest.mark.parametrize(
    "change",
    [
        {"env": [{"name": "MODE", "value": "other"}]},
        {"command": ["/bin/other"]},
        {"livenessProbe": {"httpGet": {"port": 8080}, "periodSeconds": 5}},
        {"volumeMounts": [{"name": "data", "mountPath": "/data"}]},
    ],
)
def test_what_the_scheduler_does_not_read_still_tells_templates_apart(change):
    base = _template(env=[{"name": "MODE", "value": "new"}])
    assert _rest_as_stored(base) != _rest_as_stored({**base, "spec": {"containers": [{**base["spec"]["containers"][0], **change}]}})


def test_labels_annotations_and_images_are_not_part_of_the_rest():
    # the template's own fields hold these (and a replay's --set-image changes them there)
    base = _template()
    other = copy.deepcopy(base)
    other["metadata"]["labels"]["pod-template-hash"] = "abc"
    other["metadata"]["annotations"] = {"kubectl.kubernetes.io/restartedAt": "now"}
    other["spec"]["containers"][0]["image"] = "nginx:1.28"
    assert _rest_as_stored(base) == _rest_as_stored(other)


def test_a_template_written_by_hand_is_the_one_the_api_server_stores():
    by_hand = _template(
        livenessProbe={"httpGet": {"port": 8080}},
        env=[{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
        lifecycle={"preStop": {"httpGet": {"port": 8080}}},
    )
    by_hand["spec"]["volumes"] = [
        {"name": "cfg", "configMap": {"name": "cfg"}},
        {"name": "tok", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
        {"name": "scratch"},
    ]
    stored = _template(
        livenessProbe={"httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"}, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
        env=[{"name": "NODE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}}],
        lifecycle={"preStop": {"httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"}}},
        imagePullPolicy="IfNotPresent",
        terminationMessagePath="/dev/termination-log",
        terminationMessagePolicy="File",
        resources={},
    )
    stored["metadata"]["creationTimestamp"] = None
    stored["spec"].update(
        dnsPolicy="ClusterFirst", restartPolicy="Always", schedulerName="default-scheduler", securityContext={}, terminationGracePeriodSeconds=30,
        serviceAccount="web", serviceAccountName="web",  # v1 conversion writes the deprecated field too
    )
    by_hand["spec"]["serviceAccountName"] = "web"
    stored["spec"]["volumes"] = [
        {"name": "cfg", "configMap": {"name": "cfg", "defaultMode": 420}},
        {"name": "tok", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}]}},
        {"name": "scratch", "emptyDir": {}},
    ]
    assert _rest_as_stored(by_hand) == _rest_as_stored(stored)
