"""Overlay: the inputs given after the snapshot are applied to it, as ``kubectl apply -f`` (or
``helm upgrade``) would apply them to the cluster it was read from.

An object of a later input replaces the object of the same kind, namespace and name that an
earlier input holds; objects that match none are added.  What the replacement holds is the
later manifest, plus what the API server and the controllers keep of the object it replaces,
since no manifest sets it (``replace_object``):

* ``metadata.uid``, ``creationTimestamp``, ``resourceVersion``, ``generation``,
  ``deletionTimestamp`` and ``deletionGracePeriodSeconds`` are the live object's (the server
  sets them); ``ownerReferences``, when the manifest gives none, too;
* labels and annotations the manifest does not set are kept (controllers write some, e.g. the
  Deployment controller's ``deployment.kubernetes.io/revision``), the manifest's win;
* ``spec``: a top-level field the manifest leaves out keeps its live value: ``kubectl apply``
  and ``helm upgrade`` leave a field that no manifest ever set as it is, such as the
  ``replicas`` of a workload an HPA scales (charts leave it out), a claim's ``volumeName``, a
  PersistentVolume's ``claimRef`` or a node's taints;
* ``status``: the manifest's when it has one (a hand-written what-if, or an edited
  ``kubectl get`` of the object), else the live one;
* a change of a workload's pod template (Deployment, StatefulSet, ReplicaSet) increments
  ``metadata.generation`` (``template_changed`` / ``bumped_generation``, the rule
  planner.engines.remediation.verify applies to its patches too): the status then no longer
  describes the template, so the controllers (planner.controllers) see the running pods as the
  previous revision, exactly as after ``kubectl apply`` of a new image;
* a Pod cannot change in place (its spec is immutable): a manifest with the live pod's spec
  (after the defaults, its binding filled in) leaves the pod as it runs, any other is the pod
  deleted and created again from the manifest (Pending unless the manifest binds it).

``-n NS`` puts namespace-less objects of every input into NS, as ``kubectl apply -n NS -f`` does
(``apply_namespace``).
"""

from __future__ import annotations

import copy
from typing import Any

from planner.validation.defaults import NAMESPACED_KINDS, apply_defaults

__all__ = [
    "GENERATION_KINDS",
    "Overlay",
    "apply_namespace",
    "bumped_generation",
    "identity",
    "replace_object",
    "template_changed",
]

# The kinds whose pod template change increments metadata.generation and makes a new revision
# (pkg/registry/apps/{deployment,statefulset,replicaset}/strategy.go PrepareForUpdate).
GENERATION_KINDS = ("Deployment", "StatefulSet", "ReplicaSet")
REPLICA_KINDS = GENERATION_KINDS
# metadata the API server sets; a manifest cannot change them
SERVER_METADATA = ("uid", "creationTimestamp", "resourceVersion", "generation", "deletionTimestamp", "deletionGracePeriodSeconds")


def _md(o: dict) -> dict:
    m = o.get("metadata")
    return m if isinstance(m, dict) else {}


def identity(o: dict) -> tuple[str, str, str] | None:
    """(kind, namespace, name), the namespace "" for cluster-scoped kinds and "default" for a
    namespaced object without one; None when the object has no usable name (validation says why)."""
    kind = o.get("kind")
    md = _md(o)
    name = md.get("name")
    if not isinstance(kind, str) or not isinstance(name, str) or not name:
        return None
    if kind not in NAMESPACED_KINDS:
        return kind, "", name
    ns = md.get("namespace")
    return kind, ns if isinstance(ns, str) and ns else "default", name


def describe(ident: tuple[str, str, str]) -> str:
    kind, ns, name = ident
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"


def apply_namespace(o: dict, namespace: str | None) -> None:
    """``kubectl apply -n NAMESPACE``: a namespaced object without metadata.namespace gets it.
    An object that names its namespace keeps it: kubectl apply would refuse a mismatch, but the
    inputs are also snapshots split over several files, which hold every namespace."""
    if not namespace or o.get("kind") not in NAMESPACED_KINDS:
        return
    md = o.get("metadata")
    if isinstance(md, dict) and not md.get("namespace"):
        md["namespace"] = namespace


def _defaulted(o: dict) -> dict:
    c = copy.deepcopy(o)
    apply_defaults(c)
    return c


def _template(o: dict) -> Any:
    spec = o.get("spec")
    t = spec.get("template") if isinstance(spec, dict) else None
    if isinstance(t, dict):
        t = dict(t)
        md = t.get("metadata")
        if isinstance(md, dict) and "creationTimestamp" in md and md["creationTimestamp"] is None:
            # kubectl get prints the template's creationTimestamp: null, which a manifest leaves out
            t["metadata"] = {k: v for k, v in md.items() if k != "creationTimestamp"}
    return t


def template_changed(old: dict, new: dict) -> bool:
    """Does ``new`` change the pod template of ``old`` (both as the API server stores them: the
    defaults applied to copies)?  What makes the apps strategies' PrepareForUpdate increment
    metadata.generation, and the controllers make a new revision."""
    return _template(_defaulted(old)) != _template(_defaulted(new))


def bumped_generation(old: dict) -> int:
    """metadata.generation after a spec change of ``old``: its generation + 1 (its
    status.observedGeneration + 1, or 2, when it has none)."""
    md = _md(old)
    status = old.get("status") if isinstance(old.get("status"), dict) else {}
    observed = status.get("observedGeneration") if isinstance(status, dict) else None
    gen = md.get("generation")
    base = gen if isinstance(gen, int) and not isinstance(gen, bool) else observed if isinstance(observed, int) and not isinstance(observed, bool) else 1
    return base + 1


def replace_object(live: dict, new: dict) -> tuple[dict, list[str]]:
    """The object the API server holds once ``new`` is applied over ``live`` (module doc), and
    what is worth telling about it (kept fields, a new revision, a re-created pod)."""
    out = copy.deepcopy(new)
    md = out.get("metadata")
    if not isinstance(md, dict):
        return out, []  # validation reports it
    live_md = _md(live)
    facts: list[str] = []
    kind = out.get("kind")
    spec, live_spec = out.get("spec"), live.get("spec")
    if isinstance(live_spec, dict) and (spec is None or isinstance(spec, dict)):
        merged = dict(spec or {})
        kept = [k for k in live_spec if k not in merged]
        for k in kept:
            merged[k] = copy.deepcopy(live_spec[k])
        out["spec"] = merged
        if kind in REPLICA_KINDS and "replicas" in kept:
            facts.append(f"the manifest sets no replicas: the cluster's {live_spec['replicas']} are kept, as kubectl apply and helm upgrade keep them")
    if kind == "Pod" and _defaulted(out).get("spec") != _defaulted(live).get("spec"):
        # a pod's spec cannot change: the pod is deleted and created again from the manifest
        facts.append("its spec differs from the running pod's: the pod is created again from the manifest")
        return copy.deepcopy(new), facts
    for k in SERVER_METADATA:
        if k in live_md:
            md[k] = copy.deepcopy(live_md[k])
        else:
            md.pop(k, None)
    if not md.get("ownerReferences") and live_md.get("ownerReferences"):
        md["ownerReferences"] = copy.deepcopy(live_md["ownerReferences"])
    for k in ("labels", "annotations"):
        old_map, new_map = live_md.get(k), md.get(k)
        if isinstance(old_map, dict) and (new_map is None or isinstance(new_map, dict)):
            md[k] = {**old_map, **(new_map or {})}
    if not out.get("status") and "status" in live:
        out["status"] = copy.deepcopy(live["status"])
    if kind in GENERATION_KINDS and template_changed(live, out):
        md["generation"] = bumped_generation(live)
        facts.append("pod template changed: its running pods are now of the previous revision")
    return out, facts


class Overlay:
    """The objects of the inputs given after the snapshot, by identity, each waiting for the
    object it replaces (``take``); ``rest`` gives the ones that replaced nothing.  An object that
    repeats one of the same input is not an overlay: it is kept apart (``rest``) for validation
    to report as the duplicate it is."""

    def __init__(self) -> None:
        # identity -> the versions of the later inputs, in input order: (object, source)
        self.pending: dict[tuple[str, str, str], list[tuple[dict, str]]] = {}
        self.repeated: list[dict] = []
        self.facts: dict[tuple[str, str, str], list[str]] = {}
        self.replaced: dict[str, list[str]] = {}  # source -> objects replaced
        self.added: dict[str, list[str]] = {}  # source -> objects added
        self.sources: list[str] = []

    def add(self, o: dict, source: str) -> None:
        if source not in self.sources:
            self.sources.append(source)
        ident = identity(o)
        if ident is None:
            self.repeated.append(o)
            return
        layers = self.pending.setdefault(ident, [])
        if layers and layers[-1][1] == source:
            self.repeated.append(o)
        else:
            layers.append((o, source))

    def _apply(self, ident: tuple[str, str, str], live: dict, layers: list[tuple[dict, str]]) -> dict:
        for new, source in layers:
            live, facts = replace_object(live, new)
            self.facts.setdefault(ident, []).extend(facts)
            self.replaced.setdefault(source, []).append(describe(ident))
        return live

    def take(self, live: dict) -> dict:
        """``live`` (an object of the snapshot) or the object that replaces it."""
        ident = identity(live)
        if ident is None or ident not in self.pending:
            return live
        return self._apply(ident, live, self.pending.pop(ident))

    def rest(self) -> list[dict]:
        """The objects that replaced nothing (added; a later input's version applied over an
        earlier input's), then the repeated ones."""
        out: list[dict] = []
        for ident, layers in self.pending.items():
            first, source = layers[0]
            self.added.setdefault(source, []).append(describe(ident))
            out.append(self._apply(ident, first, layers[1:]))
        self.pending.clear()
        return out + self.repeated

    def notes(self) -> list[str]:
        """What the overlay did, for people: per input, the objects it replaced and added, and
        what is worth knowing about each replacement."""
        out: list[str] = []
        for src in self.sources:
            replaced, added = self.replaced.get(src, []), self.added.get(src, [])
            if replaced:
                out.append(f"overlaid {len(replaced)} object(s) from {src}: {_few(replaced)}")
            if added:
                out.append(f"added {len(added)} new object(s) from {src}: {_few(added)}")
        for ident, facts in self.facts.items():
            for f in dict.fromkeys(facts):
                out.append(f"{describe(ident)}: {f}")
        return out


def _few(names: list[str], k: int = 6) -> str:
    return ", ".join(names[:k]) + (f" and {len(names) - k} more" if len(names) > k else "")
