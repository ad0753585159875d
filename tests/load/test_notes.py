"""Notes the loader adds about what a snapshot may be missing."""

from __future__ import annotations

import json

from planner.load import load_snapshot

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def _pod(ns: str, name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]}, "status": {"phase": "Running"}}


def _notes(tmp_path, items) -> list[str]:
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return load_snapshot([str(f)]).notes


def test_pods_of_one_namespace_are_flagged(tmp_path):
    notes = _notes(tmp_path, [NODE, _pod("shop", "a"), _pod("shop", "b")])
    assert any("namespace shop only" in n and "planner snapshot -A" in n for n in notes), notes


def test_a_whole_snapshot_is_not(tmp_path):
    assert not any("only" in n for n in _notes(tmp_path, [NODE, _pod("shop", "a"), _pod("kube-system", "kube-proxy-x")]))
    assert not any("only" in n for n in _notes(tmp_path, [NODE, _pod("shop", "a"), _pod("web", "b")]))
