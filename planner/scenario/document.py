"""The scenario document: its identity (``apiVersion``, ``kind``, ``metadata.name``), the
top-level fields, ``description`` and the raw ``steps``; ``expand_scenario`` reads every section
in order, reports every problem at once, then emits the objects."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from planner.errors import InputError
from planner.scenario.emit import emit
from planner.scenario.expect import check_expect
from planner.scenario.fields import Fields
from planner.scenario.nodes import read_pools, read_topology
from planner.scenario.objects import read_objects
from planner.scenario.pods import read_pods
from planner.scenario.raw import d
from planner.scenario.stamps import Stamper
from planner.scenario.storage_classes import read_storage_classes
from planner.scenario.volumes import ClaimWriter, read_volumes
from planner.scenario.workloads import read_revisions

API_VERSION = "planner.dev/v1alpha1"
KIND = "Scenario"

TOP_LEVEL_KEYS = (
    "apiVersion", "kind", "metadata", "description", "region", "zones", "nodePools", "storageClasses",
    "objects", "revisions", "pods", "volumes", "expect", "steps",
)


@dataclass
class ScenarioExpansion:
    name: str
    description: str
    objects: list[dict]  # kubectl-shaped objects, in a deterministic order
    expect: dict = field(default_factory=dict)
    steps: list = field(default_factory=list)  # raw, for the replay simulator


def is_scenario(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("apiVersion") == API_VERSION and doc.get("kind") == KIND


def expand_scenario(doc: dict, source: str) -> ScenarioExpansion:
    """Expand a scenario document; raises InputError listing every problem found."""
    nm = d(doc.get("metadata")).get("name")
    name = nm if isinstance(nm, str) and nm else source  # names the scenario in errors, seeds the uids
    f = Fields()
    stamp = Stamper(name)

    if not is_scenario(doc):
        if doc.get("apiVersion") != API_VERSION:
            f.unsupported("apiVersion", doc.get("apiVersion"), (API_VERSION,))
        if doc.get("kind") != KIND:
            f.unsupported("kind", doc.get("kind"), (KIND,))
    f.keys("", doc, TOP_LEVEL_KEYS)
    md = f.mapping("metadata", doc.get("metadata"))
    if md is not None:
        f.string("metadata.name", md.get("name"))
    desc = doc.get("description", "")
    if desc is None:
        desc = ""
    if not isinstance(desc, str):
        f.invalid("description", desc, "must be a string")
        desc = ""
    expect = f.mapping("expect", doc.get("expect")) or {}
    check_expect(f, expect)
    steps = f.list_of("steps", doc.get("steps")) or []  # kept raw: the replay simulator reads them

    topo = read_topology(doc, f)
    read_pools(doc, f, topo, stamp)
    classes = read_storage_classes(doc, f, topo.zones, stamp)
    user_objs, workloads = read_objects(doc, f, stamp, topo, classes)
    read_revisions(doc, f, workloads)
    volumes = read_volumes(doc, f, topo, classes)
    plans = read_pods(doc, f, workloads, topo, volumes)
    _raise_if_any(f, name)
    writer = ClaimWriter(f, stamp, volumes, classes, topo)
    objects = emit(stamp, topo.node_objs, classes.objs, user_objs, workloads, volumes, writer, plans)
    _raise_if_any(f, name)  # claims whose size or zone cannot be known
    return ScenarioExpansion(name, desc.strip(), objects, copy.deepcopy(expect), copy.deepcopy(steps))


def _raise_if_any(f: Fields, name: str) -> None:
    if f.items:
        raise InputError(*[f"Scenario {name}: {m}" for m in f.items])
