"""planner.controllers.template_hash: a template the loader made of a raw object is known as read
(Snapshot.read_templates) without converting the raw one again; the shortcut must agree with the
conversion it skips, and never take a changed template or object for the one read."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from planner.controllers import template_hash
from planner.load import Limits, load_snapshot

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted((ROOT / "tests" / "data").glob("*.yaml"))


def _with_runtime_class(tmp_path: Path) -> Path:
    text = (ROOT / "tests" / "data" / "limitrange-statefulset-and-deployment.yaml").read_text()
    text = text.replace("      spec:\n        containers: [{name: db", "      spec:\n        runtimeClassName: kata\n        containers: [{name: db")
    text = text.replace("objects:\n", "objects:\n- {apiVersion: node.k8s.io/v1, kind: RuntimeClass, metadata: {name: kata}, handler: kata, overhead: {podFixed: {cpu: 100m}}}\n")
    f = tmp_path / "rc.yaml"
    f.write_text(text)
    return f


def _snapshots(tmp_path: Path):
    for f in [*FILES, _with_runtime_class(tmp_path)]:
        try:
            snap = load_snapshot([str(f)], Limits())
        except Exception:  # noqa: BLE001 - test data of other shapes (bad input on purpose)
            continue
        if snap.statefulsets:
            yield f.name, snap


def test_every_statefulset_read_is_recorded_and_the_conversion_agrees(tmp_path):
    seen = 0
    for name, snap in _snapshots(tmp_path):
        for key, sts in snap.statefulsets.items():
            raw, tpl = snap.read_templates[("StatefulSet", key)]
            assert raw is snap.raw[("StatefulSet", key)] and tpl is sts.template, (name, key)
            t = raw["spec"]["template"]
            # what the shortcut stands for: the raw template, converted and resolved again, is the loader's
            assert template_hash._resolved(template_hash._converted_template(t), t, key, snap) == sts.template, (name, key)
            assert template_hash.template_for_hash(snap, "StatefulSet", key, sts.template) == (t, raw)
            seen += 1
    assert seen >= 10


def test_a_changed_template_or_object_is_not_taken_for_the_one_read(tmp_path):
    snap = load_snapshot([str(_with_runtime_class(tmp_path))], Limits())
    (key, sts), = [(k, s) for k, s in snap.statefulsets.items()]
    raw = snap.raw[("StatefulSet", key)]
    # another template object equal to the one read: still the one read (by the conversion)
    same = replace(sts.template, spec=replace(sts.template.spec))
    assert template_hash.template_for_hash(snap, "StatefulSet", key, same)[1] is raw
    # a changed template: hashed from its domain form
    changed = replace(sts.template, spec=replace(sts.template.spec, priority=sts.template.spec.priority + 1))
    tpl, got = template_hash.template_for_hash(snap, "StatefulSet", key, changed)
    assert got is None and "planner.dev/template" in tpl
    # the object replaced by a patched copy: the copy's template is compared, not the record
    patched = {**raw, "spec": {**raw["spec"], "template": {**raw["spec"]["template"], "spec": {**raw["spec"]["template"]["spec"], "priority": 7}}}}
    snap.raw[("StatefulSet", key)] = patched
    tpl, got = template_hash.template_for_hash(snap, "StatefulSet", key, sts.template)
    assert got is None


def test_copies_share_the_record(tmp_path):
    snap = load_snapshot([str(_with_runtime_class(tmp_path))], Limits())
    c = snap.copy()
    k = next(k for k in c.statefulsets if k.endswith("/db"))
    assert template_hash.template_for_hash(c, "StatefulSet", k, c.statefulsets[k].template)[1] is c.raw[("StatefulSet", k)]
