"""`planner explain --pod` table: on a large cluster the nodes of one zone that fail for the same
reasons share a row (amounts as ranges); -o wide lists every node."""

from __future__ import annotations

from planner.commands.explain import MAX_NODE_ROWS, _merged_detail
from tests.conftest import run_cli


def _cluster(tmp_path, nodes: int) -> str:
    """``nodes`` nodes in 2 zones, each with a pod using a different amount of CPU, and a Pending
    pod that fits none."""
    objs = []
    for i in range(nodes):
        zone = "zone-a" if i % 2 == 0 else "zone-b"
        objs.append(f"""- apiVersion: v1
  kind: Node
  metadata: {{name: node-{i}, labels: {{kubernetes.io/hostname: node-{i}, topology.kubernetes.io/zone: {zone}}}}}
  status: {{allocatable: {{cpu: "4", memory: 16Gi, pods: "110"}}}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: used-{i}, namespace: default}}
  spec: {{nodeName: node-{i}, containers: [{{name: c, image: x, resources: {{requests: {{cpu: {100 + 10 * i}m}}}}}}]}}
  status: {{phase: Running}}""")
    objs.append("""- apiVersion: v1
  kind: Pod
  metadata: {name: big, namespace: default}
  spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "8"}}}]}
  status: {phase: Pending}""")
    f = tmp_path / "cluster.yaml"
    f.write_text("apiVersion: v1\nkind: List\nitems:\n" + "\n".join(objs) + "\n")
    return str(f)


def _rows(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("  node-")]


def test_a_large_cluster_has_a_row_per_zone_and_reason_with_ranges(tmp_path):
    path = _cluster(tmp_path, 60)
    r = run_cli(["explain", path, "--pod", "default/big"])
    assert r.code == 1, r.err
    rows = _rows(r.out)
    assert len(rows) == 2, r.out  # one per zone
    assert "node-0 (+29 alike)" in rows[0] and "zone-a" in rows[0]
    # zone-a holds the even nodes: 100m + 10m * i used of 4000m, i = 0, 2, ..., 58
    assert "Insufficient cpu [cpu: requests 8000m, free 3320m..3900m]" in rows[0], rows[0]
    assert "free 3310m..3890m" in rows[1], rows[1]
    assert "60 nodes in 2 group(s)" in r.out and "-o wide: every node" in r.out


def test_wide_and_small_clusters_list_every_node(tmp_path):
    wide = run_cli(["explain", _cluster(tmp_path, 60), "--pod", "default/big", "-o", "wide"])
    assert len(_rows(wide.out)) == 60 and "group(s):" not in wide.out
    small = run_cli(["explain", _cluster(tmp_path, MAX_NODE_ROWS), "--pod", "default/big"])
    rows = _rows(small.out)
    assert len(rows) == MAX_NODE_ROWS and all("alike" not in x for x in rows) and "group(s):" not in small.out
    assert "free 3900m" in rows[0]


def test_merged_detail():
    assert _merged_detail(["taint a=b:NoSchedule"] * 3) == "taint a=b:NoSchedule"
    assert _merged_detail(["cpu: requests 500m, free 100m", "cpu: requests 500m, free -20m", "cpu: requests 500m, free 30m"]) == \
        "cpu: requests 500m, free -20m..100m"
    # a node's own name in it (a hostname spread domain): not merged into a false range
    assert _merged_detail(["kubernetes.io/hostname=node-1: 2 matching", "kubernetes.io/hostname=node-2: 2 matching"]) == \
        "differs by node"
    # amounts in different units are ordered by value and keep their units
    assert _merged_detail(["memory: requests 8.0Gi, free 1.5Gi", "memory: requests 8.0Gi, free 512Mi"]) == "memory: requests 8.0Gi, free 512Mi..1.5Gi"
    assert _merged_detail(["pods: 110 of 110", "pods: 58 of 58"]) == "pods: 58..110 of 58..110"
