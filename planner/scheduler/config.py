"""A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) turned into profiles.

Upstream (kubernetes/kubernetes, v1.37):
* pkg/scheduler/apis/config/v1/defaults.go and default_plugins.go: the defaults (one profile named
  default-scheduler when none is given; the default plugins, all in MultiPoint) and
  ``mergePlugins`` / ``mergePluginSet`` (a custom extension point's ``disabled`` removes default
  plugins, ``"*"`` all of them; a custom ``enabled`` entry naming a default plugin replaces it in
  place -- its weight -- and the others are appended);
* pkg/scheduler/framework/runtime/framework.go NewFramework: ``updatePluginList`` (an enabled
  plugin must exist and extend the extension point), ``expandMultiPointPlugins`` (the MultiPoint
  plugins that implement an extension point are added to it unless disabled there, ``"*"``
  skipping the expansion; a plugin also enabled at the specific point keeps that entry, first) and
  ``getScoreWeights`` (the Score entry's weight first, then MultiPoint's; 0 means 1);
* pkg/scheduler/apis/config/validation/validation.go and validation_pluginargs.go: the errors,
  in upstream's wording (``field.Error``: ``path: Invalid value: v: detail``).

Modelled: the Filter and Score extension points (PreFilter runs with its Filter, PreScore with
its Score), score weights, percentageOfNodesToScore, NodeResourcesFitArgs.scoringStrategy
(LeastAllocated, MostAllocated, RequestedToCapacityRatio with its resources and weights) and
PodTopologySpreadArgs (defaultConstraints, defaultingType).  Everything else is accepted as
kube-scheduler accepts it and listed in the profile's notes as not modelled.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from planner.domain import LabelSelector, Pod, TopologySpreadConstraint
from planner.errors import InputError
from planner.scheduler.framework import SKIP, ClusterState, NodeInfo, Status
from planner.scheduler.plugins.noderesources import fit
from planner.scheduler.plugins.podtopologyspread import filtering as pts_filtering
from planner.scheduler.plugins.podtopologyspread import scoring as pts_scoring
from planner.scheduler.plugins.podtopologyspread.common import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY
from planner.scheduler.registry import (
    DEFAULT_SCHEDULER_NAME,
    FILTER_PLUGINS,
    SCORE_PLUGINS,
    FilterPlugin,
    Profile,
    ScorePlugin,
    Scorer,
)

if TYPE_CHECKING:  # numpy is imported where an array is built (the replay), not at start-up
    import numpy as np

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"

PTS = pts_scoring.NAME
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

# default_plugins.go getDefaultPlugins (v1.37): MultiPoint, in order, with the score weights
# (DynamicResources before DefaultPreemption and NodeDeclaredFeatures appended by applyFeatureGates).
DEFAULT_MULTI_POINT: tuple[tuple[str, int], ...] = (
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 0),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
    ("NodeDeclaredFeatures", 0),
)

# The in-tree registry (framework/plugins/registry.go) and the extension points each implements
# that planner distinguishes ("filter", "score"; "other" for the rest).
_FILTERS = {m.NAME: m for m in FILTER_PLUGINS}
_SCORERS = {p.name: p for p in SCORE_PLUGINS}
KNOWN_PLUGINS: dict[str, frozenset[str]] = {
    name: frozenset(({"filter"} if name in _FILTERS else set()) | ({"score"} if name in _SCORERS else set()))
    for name, _ in DEFAULT_MULTI_POINT
}
KNOWN_PLUGINS["DynamicResources"] = frozenset({"filter"})  # not modelled: planner has no ResourceClaims
KNOWN_PLUGINS["GangScheduling"] = frozenset()

EXTENSION_POINTS = (
    "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
    "reserve", "permit", "preBind", "bind", "postBind", "multiPoint",
)
_TYPE_NAME = {"filter": "FilterPlugin", "score": "ScorePlugin"}


@dataclass
class SchedulerConfig:
    """The profiles by schedulerName (in the file's order) and the first profile's name."""

    profiles: dict[str, Profile]
    source: str = ""
    notes: list[str] = field(default_factory=list)

    def profile_for(self, scheduler_name: str | None) -> Profile | None:
        """The profile a pod with this spec.schedulerName is scheduled by; None for none."""
        return self.profiles.get(scheduler_name or DEFAULT_SCHEDULER_NAME)

    @property
    def main(self) -> Profile:
        """The profile for default-scheduler, else the first one."""
        return self.profiles.get(DEFAULT_SCHEDULER_NAME) or next(iter(self.profiles.values()))


class _Errors:
    def __init__(self) -> None:
        self.items: list[str] = []

    def invalid(self, path: str, value: Any, detail: str) -> None:
        self.items.append(f"{path}: Invalid value: {_fmt(value)}: {detail}")

    def required(self, path: str, detail: str = "") -> None:
        self.items.append(f"{path}: Required value" + (f": {detail}" if detail else ""))

    def not_supported(self, path: str, value: Any, supported: tuple[str, ...]) -> None:
        vals = ", ".join(json.dumps(s) for s in supported)
        self.items.append(f"{path}: Unsupported value: {_fmt(value)}: supported values: {vals}")

    def duplicate(self, path: str, value: Any) -> None:
        self.items.append(f"{path}: Duplicate value: {_fmt(value)}")

    def other(self, msg: str) -> None:
        self.items.append(msg)


def _fmt(v: Any) -> str:
    """field.Error's value: strings quoted, numbers bare."""
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, bool) or v is None:
        return json.dumps(v)
    if isinstance(v, int | float):
        return str(v)
    return json.dumps(v, sort_keys=True, default=str)


def _int(errs: _Errors, path: str, v: Any, default: int = 0) -> int:
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        errs.invalid(path, v, "must be an integer")
        return default
    return v


def parse_config(doc: Any, source: str) -> SchedulerConfig:
    """Validate ``doc`` (a decoded KubeSchedulerConfiguration) and build its profiles; every
    problem is one line of the InputError, prefixed with ``source``."""
    errs = _Errors()
    if not isinstance(doc, dict):
        raise InputError(f"{source}: a KubeSchedulerConfiguration must be a mapping")
    api = doc.get("apiVersion")
    kind = doc.get("kind")
    if kind != KIND:
        raise InputError(f"{source}: kind {_fmt(kind)}: expected {KIND!r}")
    if api != API_VERSION:
        raise InputError(f'{source}: no kind "{KIND}" is registered for version "{api}" (planner reads {API_VERSION})')
    pct = _percentage(errs, "percentageOfNodesToScore", doc.get("percentageOfNodesToScore"))
    raw_profiles = doc.get("profiles")
    if raw_profiles is None:
        raw_profiles = []
    if not isinstance(raw_profiles, list):
        raise InputError(f"{source}: profiles: Invalid value: must be a list")
    if not raw_profiles:
        raw_profiles = [{}]
    if len(raw_profiles) == 1 and isinstance(raw_profiles[0], dict) and raw_profiles[0].get("schedulerName") is None:
        raw_profiles = [{**raw_profiles[0], "schedulerName": DEFAULT_SCHEDULER_NAME}]
    profiles: dict[str, Profile] = {}
    notes: list[str] = []
    for i, rp in enumerate(raw_profiles):
        path = f"profiles[{i}]"
        if not isinstance(rp, dict):
            errs.invalid(path, rp, "must be a mapping")
            continue
        name = rp.get("schedulerName")
        if not name:
            errs.required(f"{path}.schedulerName")
            continue
        if name in profiles:
            errs.duplicate(f"{path}.schedulerName", name)
            continue
        prof = _profile(errs, path, rp, str(name), pct)
        if prof is not None:
            profiles[str(name)] = prof
    for k in doc:
        if k not in ("apiVersion", "kind", "profiles", "percentageOfNodesToScore"):
            notes.append(f"{k} is not modelled")
    if errs.items:
        raise InputError(*(f"{source}: {e}" for e in errs.items))
    return SchedulerConfig(profiles, source, notes)


def _percentage(errs: _Errors, path: str, v: Any) -> int:
    n = _int(errs, path, v)
    if n < 0 or n > 100:
        errs.invalid(path, n, "not in valid range [0-100]")
        return 0
    return n


def _plugin_set(errs: _Errors, path: str, raw: Any) -> tuple[list[tuple[str, int]], list[str]]:
    """A PluginSet: (enabled (name, weight), disabled names)."""
    if raw is None:
        return [], []
    if not isinstance(raw, dict):
        errs.invalid(path, raw, "must be a mapping with enabled and disabled")
        return [], []
    enabled: list[tuple[str, int]] = []
    disabled: list[str] = []
    for key, out in (("enabled", enabled), ("disabled", disabled)):
        items = raw.get(key) or []
        if not isinstance(items, list):
            errs.invalid(f"{path}.{key}", items, "must be a list")
            continue
        for j, p in enumerate(items):
            if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"]:
                errs.required(f"{path}.{key}[{j}].name")
                continue
            if key == "enabled":
                w = _int(errs, f"{path}.{key}[{j}].weight", p.get("weight"))
                if w < 0:
                    # planner's check: upstream leaves a negative weight to the framework's sum
                    errs.invalid(f"{path}.{key}[{j}].weight", w, "must be non-negative")
                enabled.append((p["name"], w))
            else:
                out.append(p["name"])  # type: ignore[arg-type]
    return enabled, disabled


def merge_plugin_set(
    default: list[tuple[str, int]], enabled: list[tuple[str, int]], disabled: list[str]
) -> list[tuple[str, int]]:
    """default_plugins.go mergePluginSet: the enabled list of the merged set."""
    disabled_set = set(disabled)
    custom = {name: (i, p) for i, p in enumerate(enabled) for name in (p[0],)}
    replaced: set[int] = set()
    out: list[tuple[str, int]] = []
    if "*" not in disabled_set:
        for d in default:
            if d[0] in disabled_set:
                continue
            if d[0] in custom:
                i, p = custom[d[0]]
                d = p
                replaced.add(i)
            out.append(d)
    out.extend(p for i, p in enumerate(enabled) if i not in replaced)
    return out


def _extension(
    errs: _Errors, path: str, point: str, specific: list[tuple[str, int]], disabled: list[str], multi: list[tuple[str, int]]
) -> list[str]:
    """updatePluginList + expandMultiPointPlugins for one extension point: its plugin names, in order."""
    type_name = _TYPE_NAME[point]
    seen: list[str] = []
    for name, _ in specific:
        if name not in KNOWN_PLUGINS:
            errs.other(f'{path}: {type_name} "{name}" does not exist')
        elif point not in KNOWN_PLUGINS[name]:
            errs.other(f'{path}: plugin "{name}" does not extend {type_name} plugin')
        elif name in seen:
            errs.other(f'{path}: plugin "{name}" already registered as "{type_name}"')
        else:
            seen.append(name)
    if "*" in disabled:
        return seen
    dis = set(disabled)
    override: set[str] = set()
    multi_enabled: list[str] = []
    for name, _ in multi:
        if name not in KNOWN_PLUGINS or point not in KNOWN_PLUGINS[name] or name in dis:
            continue
        if name in seen:
            override.add(name)
            continue
        if name in multi_enabled:
            errs.other(f'{path}: plugin "{name}" already registered as "{type_name}"')
            continue
        multi_enabled.append(name)
    return [n for n in seen if n in override] + multi_enabled + [n for n in seen if n not in override]


def _profile(errs: _Errors, path: str, rp: dict, name: str, pct: int) -> Profile | None:
    notes: list[str] = []
    n_before = len(errs.items)
    pct = _percentage(errs, f"{path}.percentageOfNodesToScore", rp["percentageOfNodesToScore"]) if rp.get("percentageOfNodesToScore") is not None else pct
    plugins = rp.get("plugins") or {}
    if not isinstance(plugins, dict):
        errs.invalid(f"{path}.plugins", plugins, "must be a mapping")
        plugins = {}
    sets: dict[str, tuple[list[tuple[str, int]], list[str]]] = {}
    for point, raw in plugins.items():
        if point not in EXTENSION_POINTS:
            errs.other(f"{path}.plugins: unknown extension point {_fmt(point)}")
            continue
        sets[point] = _plugin_set(errs, f"{path}.plugins.{point}", raw)
    mp_enabled, mp_disabled = sets.get("multiPoint", ([], []))
    multi = merge_plugin_set(list(DEFAULT_MULTI_POINT), mp_enabled, mp_disabled)
    for n, _ in multi:
        if n not in KNOWN_PLUGINS:
            errs.other(f'{path}.plugins.multiPoint: plugin "{n}" does not exist')
    for point in sets:
        if point in ("preFilter", "preScore") and (sets[point][0] or sets[point][1]):
            notes.append(f"profile {name}: plugins.{point} is not modelled apart: a plugin's {point} runs with its "
                         f"{'Filter' if point == 'preFilter' else 'Score'}")
        elif point not in ("filter", "score", "multiPoint") and (sets[point][0] or sets[point][1]):
            notes.append(f"profile {name}: plugins.{point} is not modelled")
    f_en, f_dis = sets.get("filter", ([], []))
    s_en, s_dis = sets.get("score", ([], []))
    filter_names = _extension(errs, f"{path}.plugins.filter", "filter", f_en, f_dis, multi)
    score_names = _extension(errs, f"{path}.plugins.score", "score", s_en, s_dis, multi)
    # getScoreWeights: the Score entry first, then MultiPoint's; 0 is 1
    weights: dict[str, int] = {}
    for n, w in s_en + multi:
        if n in score_names and n not in weights:
            weights[n] = w or 1
    args = _plugin_args(errs, path, rp.get("pluginConfig"), name, notes)
    if len(errs.items) > n_before:
        return None
    strategy: fit.ScoringStrategy = args.get("NodeResourcesFit", fit.DEFAULT_STRATEGY)
    defaulting, defaults = args.get(PTS, (SYSTEM_DEFAULTING, ()))
    filters = tuple(_FILTERS[n] for n in filter_names if n in _FILTERS)
    scorers: list[ScorePlugin] = []
    for n in score_names:
        base = _SCORERS[n]
        s: ScorePlugin = base
        if n == fit.NAME and not strategy.is_default:
            pre, sc = fit.strategy_scorer(strategy)
            s = Scorer(fit.NAME, weights[n], pre, sc, kernel=_fit_kernel(strategy))
        elif weights[n] != base.weight:
            s = replace(base, weight=weights[n])  # type: ignore[type-var]
        scorers.append(s)
    prof = Profile(name, filters, tuple(scorers), strategy, defaulting, tuple(defaults), pct, tuple(notes))
    if defaulting == LIST_DEFAULTING:
        prof = _with_list_spread_defaults(prof)
    return prof


def feasibility_notes(config: SchedulerConfig, profile: Profile) -> list[str]:
    """What planner check and capacity (feasibility: the CP-SAT model and the witness replay)
    honour of a --scheduler-config profile, as notes."""
    src = config.source
    out = [
        f"scheduler profile {profile.scheduler_name!r} from {src}: its filters decide feasibility; scoring (weights, "
        "scoringStrategy, ScheduleAnyway default spread constraints) only ranks feasible nodes and never changes which "
        "replica counts are schedulable (simulate and explain follow it)"
    ]
    disabled = [m.NAME for m in FILTER_PLUGINS if m.NAME not in profile.filter_names]
    if disabled:
        out.append(f"the profile disables the filter(s) {', '.join(disabled)}: their constraints are left out")
    if profile.spread_defaults_do_not_schedule:
        cs = ", ".join(
            f"{c.topology_key} maxSkew {c.max_skew}" for c in profile.spread_defaults if c.when_unsatisfiable == DO_NOT_SCHEDULE
        )
        out.append(f"the profile's DoNotSchedule default spread constraints ({cs}) apply to pods without constraints of their own")
    return out


def _fit_kernel(strategy: fit.ScoringStrategy) -> Any:
    """The vectorised NodeResourcesFit Score for a non-default strategy: MostAllocated on cpu and
    memory (any weights) has one (noderesources/kernels.py, held equal to the reference); the
    others (RequestedToCapacityRatio, other resources) have none and score with the reference."""
    from planner.scheduler.plugins.noderesources import kernels

    res = dict(strategy.resources)
    if strategy.type == fit.MOST_ALLOCATED and len(strategy.resources) == 2 and set(res) == {"cpu", "memory"}:
        return kernels.most_allocated_kernel(res["cpu"], res["memory"])
    if strategy.type == fit.LEAST_ALLOCATED and strategy.resources == fit.DEFAULT_STRATEGY.resources:
        return kernels.fit_score
    return None


def has_kernel(profile: Profile) -> bool:
    """Whether the profile's NodeResourcesFit Score runs vectorised in the replay."""
    return all(s.kernel is not None for s in profile.scorers if s.name == fit.NAME)


# --------------------------------------------------------------------------- plugin args


def _plugin_args(errs: _Errors, path: str, raw: Any, profile: str, notes: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if raw is None:
        return out
    if not isinstance(raw, list):
        errs.invalid(f"{path}.pluginConfig", raw, "must be a list")
        return out
    seen: set[str] = set()
    for i, pc in enumerate(raw):
        p = f"{path}.pluginConfig[{i}]"
        if not isinstance(pc, dict) or not pc.get("name"):
            errs.required(f"{p}.name")
            continue
        n = pc["name"]
        if n in seen:
            errs.duplicate(p, n)
            continue
        seen.add(n)
        a = pc.get("args") or {}
        if not isinstance(a, dict):
            errs.invalid(f"{p}.args", a, "must be a mapping")
            continue
        ap = f"{p}.args"
        if n == fit.NAME:
            out[n] = _fit_args(errs, ap, a, profile, notes)
        elif n == PTS:
            out[n] = _spread_args(errs, ap, a)
        elif a:
            notes.append(f"profile {profile}: the args of {n} are not modelled (its defaults are used)")
    return out


def _fit_args(errs: _Errors, path: str, a: dict, profile: str, notes: list[str]) -> fit.ScoringStrategy:
    for k in ("ignoredResources", "ignoredResourceGroups"):
        if a.get(k):
            notes.append(f"profile {profile}: NodeResourcesFit {k} is not modelled")
    ss = a.get("scoringStrategy")
    if ss is None:
        return fit.DEFAULT_STRATEGY
    sp = f"{path}.scoringStrategy"
    if not isinstance(ss, dict):
        errs.invalid(sp, ss, "must be a mapping")
        return fit.DEFAULT_STRATEGY
    typ = ss.get("type") or fit.LEAST_ALLOCATED
    if typ not in fit.SCORING_STRATEGY_TYPES:
        errs.not_supported(f"{sp}.type", typ, fit.SCORING_STRATEGY_TYPES)
    resources: list[tuple[str, int]] = []
    raw_res = ss.get("resources") or []
    if not isinstance(raw_res, list):
        errs.invalid(f"{sp}.resources", raw_res, "must be a list")
        raw_res = []
    for i, r in enumerate(raw_res):
        rp = f"{sp}.resources[{i}]"
        if not isinstance(r, dict) or not isinstance(r.get("name"), str) or not r["name"]:
            errs.required(f"{rp}.name")
            continue
        w = _int(errs, f"{rp}.weight", r.get("weight"))
        if w == 0 and r.get("weight") is None:
            w = 1  # SetDefaults_NodeResourcesFitArgs
        if w <= 0 or w > 100:
            errs.invalid(f"{rp}.weight", w, f"resource weight of {r['name']} not in valid range [1, 100]")
        resources.append((r["name"], w))
    if not resources:
        resources = list(fit.DEFAULT_STRATEGY.resources)
    shape: list[tuple[int, int]] = []
    rtcr = ss.get("requestedToCapacityRatio")
    if rtcr is not None or typ == fit.REQUESTED_TO_CAPACITY_RATIO:
        shp = f"{sp}.shape"
        raw_shape = (rtcr or {}).get("shape") if isinstance(rtcr, dict) else None
        if not raw_shape or not isinstance(raw_shape, list):
            errs.required(shp, "at least one point must be specified")
        else:
            for i, pt in enumerate(raw_shape):
                if not isinstance(pt, dict):
                    errs.invalid(f"{shp}[{i}]", pt, "must be a mapping with utilization and score")
                    continue
                shape.append((_int(errs, f"{shp}[{i}].utilization", pt.get("utilization")),
                              _int(errs, f"{shp}[{i}].score", pt.get("score"))))
            for i in range(1, len(shape)):
                if shape[i - 1][0] >= shape[i][0]:
                    errs.invalid(f"{shp}[{i}].utilization", shape[i][0], "utilization values must be sorted in increasing order")
                    break
            for i, (u, s) in enumerate(shape):
                if u < 0 or u > 100:
                    errs.invalid(f"{shp}[{i}].utilization", u, "not in valid range [0, 100]")
                if s < 0 or s > 10:
                    errs.invalid(f"{shp}[{i}].score", s, "not in valid range [0, 10]")
    return fit.ScoringStrategy(typ, tuple(resources), tuple(shape) if typ == fit.REQUESTED_TO_CAPACITY_RATIO else ())


def _spread_args(errs: _Errors, path: str, a: dict) -> tuple[str, tuple[TopologySpreadConstraint, ...]]:
    """PodTopologySpreadArgs (validation_pluginargs.go ValidatePodTopologySpreadArgs)."""
    defaulting = a.get("defaultingType") or SYSTEM_DEFAULTING
    if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.not_supported(f"{path}.defaultingType", defaulting, (LIST_DEFAULTING, SYSTEM_DEFAULTING))
    raw = a.get("defaultConstraints") or []
    if not isinstance(raw, list):
        errs.invalid(f"{path}.defaultConstraints", raw, "must be a list")
        raw = []
    out: list[TopologySpreadConstraint] = []
    seen: set[tuple[Any, Any]] = set()
    for i, c in enumerate(raw):
        p = f"{path}.defaultConstraints[{i}]"
        if not isinstance(c, dict):
            errs.invalid(p, c, "must be a mapping")
            continue
        skew = _int(errs, f"{p}.maxSkew", c.get("maxSkew"))
        if skew <= 0:
            errs.invalid(f"{p}.maxSkew", skew, "not in valid range [1, inf)")  # validation.go: must be greater than zero
        key = c.get("topologyKey")
        if not key:
            errs.required(f"{p}.topologyKey", "can not be empty")
        when = c.get("whenUnsatisfiable")
        if when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.not_supported(f"{p}.whenUnsatisfiable", when, (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY))
        if (key, when) in seen:
            errs.duplicate(p, f"{{{key}, {when}}}")
        seen.add((key, when))
        if c.get("labelSelector") is not None:
            errs.invalid(f"{p}.labelSelector", c["labelSelector"], "constraint must not define a selector, as they deduced for each pod")
        if isinstance(key, str) and key and when in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY) and skew > 0:
            out.append(TopologySpreadConstraint(max_skew=skew, topology_key=key, when_unsatisfiable=when, label_selector=None))
    if defaulting == SYSTEM_DEFAULTING and raw:
        errs.invalid(f"{path}.defaultingType", defaulting, "when .defaultConstraints are not empty")
    return defaulting, tuple(out)


# --------------------------------------------------------------------------- List defaulting


def defaulted_pod(pod: Pod, defaults: tuple[TopologySpreadConstraint, ...]) -> Pod | None:
    """plugin.go buildDefaultConstraints with List defaulting: a pod without constraints gets the
    profile's defaultConstraints with the selector of its workload (helper.DefaultSelector, as
    planner approximates it: podtopologyspread/scoring.py default_selector), as if they were its
    own; None when it gets none (no defaults, or no workload selecting it).  A pod with
    constraints is returned as is."""
    if pod.spec.topology_spread_constraints:
        return pod
    if not defaults:
        return None
    sel: LabelSelector | None = pts_scoring.default_selector(pod)
    if sel is None:
        return None
    cs = tuple(replace(c, label_selector=sel) for c in defaults)
    return replace(pod, spec=replace(pod.spec, topology_spread_constraints=cs))


def default_pods(pods: list[Pod], profile: Profile) -> list[Pod]:
    """The pods as ``profile``'s PodTopologySpread sees them when it filters (List defaulting with
    a DoNotSchedule default): each pod without constraints of its own carries the defaults
    (defaulted_pod), so that every engine that filters or encodes it (check's CP-SAT problem,
    its witness) applies them as the pod's own constraints, as upstream does.  Pods of one
    template share the defaulted spec.  Any other profile: the pods as they are."""
    if not profile.spread_defaults_do_not_schedule:
        return pods
    memo: dict[tuple, Pod | None] = {}
    out = []
    for p in pods:
        if p.spec.topology_spread_constraints:
            out.append(p)
            continue
        k = (id(p.spec), p.owner, p.namespace)
        if k not in memo:
            memo[k] = defaulted_pod(p, profile.spread_defaults)
        d = memo[k]
        out.append(p if d is None else replace(p, spec=d.spec))
    return out


class _Defaulted:
    """The pods as the profile's PodTopologySpread sees them, memoised per pod object."""

    def __init__(self, defaults: tuple[TopologySpreadConstraint, ...]) -> None:
        self.defaults = defaults
        self.memo: dict[int, tuple[Pod, Pod | None]] = {}

    def __call__(self, pod: Pod) -> Pod | None:
        if pod.spec.topology_spread_constraints:
            return pod
        hit = self.memo.get(id(pod))
        if hit is not None and hit[0] is pod:
            return hit[1]
        out = defaulted_pod(pod, self.defaults)
        if len(self.memo) > 4096:
            self.memo.clear()
        self.memo[id(pod)] = (pod, out)
        return out


@dataclass(frozen=True)
class _SpreadFilter:
    """PodTopologySpread's PreFilter and Filter with List default constraints."""

    view: Callable[[Pod], Pod | None]
    NAME: str = PTS

    def pre_filter(self, pod: Pod, cluster: ClusterState) -> tuple[Any, Status | None]:
        p = self.view(pod)
        if p is None:
            return SKIP, None
        return pts_filtering.pre_filter(p, cluster)

    def filter(self, state: Any, pod: Pod, node_info: NodeInfo) -> Status | None:
        p = self.view(pod)
        return pts_filtering.filter(state, p if p is not None else pod, node_info)


def _with_list_spread_defaults(prof: Profile) -> Profile:
    view = _Defaulted(prof.spread_defaults)

    def pre_score(pod: Pod, cluster: ClusterState, nodes: list[NodeInfo]) -> Any:
        p = view(pod)
        return SKIP if p is None else pts_scoring.pre_score(p, cluster, nodes)

    def score(state: Any, pod: Pod, nodes: list[NodeInfo]) -> list[int]:
        return pts_scoring.score(state, view(pod) or pod, nodes)

    def kernel(arr: Any, idx: np.ndarray, pod: Pod) -> np.ndarray | None:
        from planner.scheduler.plugins.podtopologyspread import kernels as pts_kernels

        p = view(pod)
        return None if p is None else pts_kernels.score(arr, idx, p)

    filters: list[FilterPlugin] = [
        _SpreadFilter(view) if m.NAME == PTS else m for m in prof.filters  # type: ignore[misc]
    ]
    scorers = tuple(
        Scorer(PTS, s.weight, pre_score, score, s.normalize, s.normalize_takes_nodes, kernel) if s.name == PTS else s
        for s in prof.scorers
    )
    return replace(prof, filters=tuple(filters), scorers=scorers)


__all__ = ["API_VERSION", "KIND", "SchedulerConfig", "default_pods", "defaulted_pod", "feasibility_notes", "merge_plugin_set", "parse_config"]
