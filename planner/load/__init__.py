"""Loading: paths -> bounded parse -> objects -> defaults -> validation -> Snapshot.

This package and planner.validation are the only code that touches YAML and JSON.
Accepted input: files, directories (recursively: .yaml, .yml, .json), ``-`` for stdin, several
at once; multi-document YAML, JSON, ``kind: List`` (and ``*List``) exactly as ``kubectl get``
prints it, ``helm template`` output, and planner scenario files (kind: Scenario).
"""

from __future__ import annotations

import gc
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner import convert, progress
from planner.domain import KINDS
from planner.errors import InputError
from planner.load.reader import Limits, iter_bytes, parse_bytes
from planner.snapshot import Snapshot

if TYPE_CHECKING:  # the scheduler's configuration is read only by the commands given --scheduler-config
    from planner.scheduler.config import SchedulerConfig

__all__ = ["Limits", "RawInput", "load_snapshot", "read_objects", "collect_paths", "read_scheduler_config"]

_EXTS = (".yaml", ".yml", ".json")


@dataclass
class RawInput:
    objects: list[dict] = field(default_factory=list)  # planner's kinds, in input order
    skipped: Counter = field(default_factory=Counter)  # kind -> count of objects not read
    scenario: Any = None  # planner.scenario.ScenarioExpansion of the (single) scenario read
    sources: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the overlay did (planner.load.overlay)


def collect_paths(paths: Iterable[str]) -> list[str]:
    """Expand directories recursively (sorted, .yaml/.yml/.json); keep '-' and files as given."""
    out: list[str] = []
    for p in paths:
        if p == "-":
            out.append(p)
            continue
        path = Path(p)
        if path.is_dir():
            found = sorted(
                str(f) for f in path.rglob("*") if f.is_file() and f.suffix.lower() in _EXTS
            )
            if not found:
                raise InputError(f"{p}: directory holds no .yaml, .yml or .json files")
            out.extend(found)
        elif path.exists():
            out.append(p)
        else:
            raise InputError(f"{p}: no such file or directory")
    if not out:
        raise InputError("no input: give one or more files, directories or - for stdin")
    return out


_ONE_READ = 1 << 34  # up to this many bytes, one read() (it reserves the size asked for at once)


def _read_at_most(f: Any, n: int) -> bytes:
    """Up to ``n`` bytes of ``f``: one read() for a sane ``n``, in chunks for a larger one (a
    --max-bytes past what memory, or a byte string, can hold: the input itself is smaller)."""
    if n <= _ONE_READ:
        return f.read(n)
    chunks = []
    while n > 0:
        chunk = f.read(min(n, 1 << 26))
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read(path: str, limits: Limits, stdin: list[bytes] | None = None) -> bytes:
    """The bytes of one input; ``stdin`` keeps what was read from standard input, so that a load
    that starts over (planner.load.stream.Broken) reads it again."""
    most = limits.max_bytes + 1  # one byte past the limit: a larger input is refused
    if path == "-":
        if stdin:
            return stdin[0]
        data = _read_at_most(sys.stdin.buffer, most)
        if stdin is not None:
            stdin.append(data)
    else:
        try:
            size = os.path.getsize(path)
            if size > limits.max_bytes:
                raise InputError(limits.too_large(path, size))
            with open(path, "rb") as f:
                data = _read_at_most(f, most)
        except OSError as e:
            raise InputError(f"{path}: cannot read: {e.strerror}") from None
    return data


def _flatten(
    doc: Any,
    where: str,
    raw: RawInput,
    on_scenario: Callable[[dict, str], None],
    depth: int = 0,
    emit: Callable[[dict], None] | None = None,
) -> None:
    """Planner's objects of one document, in order, to ``emit`` (default: raw.objects.append)."""
    if doc is None:  # an empty YAML document (helm template prints them)
        return
    if not isinstance(doc, dict):
        raise InputError(f"{where}: a Kubernetes object must be a mapping, not {type(doc).__name__}")
    kind = doc.get("kind")
    if not isinstance(kind, str) or not kind:
        raise InputError(f"{where}: kind: Required value")
    if kind == "Scenario":
        on_scenario(doc, where)
        return
    if kind == "List" or (kind.endswith("List") and isinstance(doc.get("items"), list)):
        items = doc.get("items")
        if items is None:
            return
        if not isinstance(items, list):
            raise InputError(f"{where}: items: Invalid value: must be a list")
        if depth > 2:
            raise InputError(f"{where}: nested Lists deeper than 2 levels")
        item_kind = kind[:-4] if kind != "List" else None
        for i, it in enumerate(items):
            if item_kind and isinstance(it, dict) and "kind" not in it:
                it["kind"] = item_kind  # the API's own *List responses omit kind on items
            _flatten(it, f"{where}: items[{i}]", raw, on_scenario, depth + 1, emit)
        return
    if kind in KINDS:
        if not isinstance(doc.get("apiVersion"), str):
            raise InputError(f"{where}: {kind}: apiVersion: Required value")
        if emit is None:
            raw.objects.append(doc)
        else:
            emit(doc)
    else:
        raw.skipped[kind] += 1


def read_objects(
    paths: Iterable[str], limits: Limits | None = None, *, overlay: bool = True, namespace: str | None = None
) -> RawInput:
    """Read and parse every input; returns planner's objects (undefaulted) and what was skipped.

    ``overlay``: the objects of the inputs after the first replace those of the same kind,
    namespace and name read before them (planner.load.overlay); ``namespace``: what ``-n`` gives
    namespace-less objects."""
    limits = limits or Limits()
    raw = RawInput()
    errors = _read_into(paths, limits, raw, None, overlay=overlay, namespace=namespace)
    if errors:
        raise InputError(*errors)
    return raw


def _read_into(
    paths: Iterable[str],
    limits: Limits,
    raw: RawInput,
    emit: Callable[[dict], None] | None,
    *,
    overlay: bool = True,
    namespace: str | None = None,
    stdin: list[bytes] | None = None,
    lists: set[str] | None = None,
) -> list[str]:
    """read_objects' loop: each input's objects, in order, to ``emit`` (None: to raw.objects);
    returns the errors.  With ``emit``, a large kubectl List JSON file is decoded item by item
    (planner.load.stream), which raises stream.Broken when the load must start over.

    With ``overlay`` and several inputs, the inputs after the first are read first, and each
    object of the first is handed on as it is read, or replaced by theirs (Overlay.take: the
    snapshot is still read one object at a time); the objects that replaced nothing follow.
    ``stdin``: the bytes of standard input, kept across a load that starts over."""
    from planner.load.overlay import Overlay, apply_namespace

    out: Callable[[dict], None] = emit if emit is not None else raw.objects.append
    current: list[Callable[[dict], None]] = [out]  # where the scenario's objects go

    def on_scenario(doc: dict, where: str) -> None:
        from planner.scenario import expand_scenario

        if raw.scenario is not None:
            raise InputError(f"{where}: only one Scenario can be read at a time")
        exp = expand_scenario(doc, where)
        raw.scenario = exp
        for obj in exp.objects:
            _flatten(obj, f"{where}: {obj.get('kind')}", raw, on_scenario, emit=current[0])

    args = list(paths)
    groups = [collect_paths([a]) for a in args] if args else [collect_paths(args)]
    ov = Overlay() if overlay and len(groups) > 1 else None
    # the objects may go straight to ``emit`` when nothing is done to them on the way: no overlay,
    # and no namespace to fill in but by the load's sink itself (_Sink.namespace)
    direct = emit is not None and ov is None and (namespace is None or getattr(emit, "namespace", None) == namespace)
    errors: dict[int, list[str]] = {}
    reading, sizes = _reading(groups)

    def read_group(i: int, sink: Callable[[dict, str], None], streamed: bool) -> None:
        for path in groups[i]:
            label = "<stdin>" if path == "-" else path

            def each(o: dict, label: str = label) -> None:
                sink(o, label)

            current[0] = each
            base = reading.done
            reading.update(description=f"reading {label}")

            def tick(offset: int, base: float = base) -> None:  # how far into this input
                reading.update(done=base + offset)

            # a file a streamed attempt found to be a JSON List is bounded as such when it is read
            # whole (after stream.Broken, for every error's message): Limits.max_stream_bytes
            limits_here = replace(limits, max_bytes=limits.largest) if lists and path in lists else limits

            try:
                if streamed:
                    # the objects go straight to the load's sink (no overlay; a namespace to fill in
                    # the sink's own): a large input may then be read by two processes (planner.load.parallel)
                    target = emit if emit is not None and direct and sink is to_output else each
                    if path != "-" and _stream_list(path, label, limits, raw, on_scenario, target, tick, lists):
                        continue
                    data = _read(path, limits_here, stdin)
                    if _yaml_halves(data, label, limits_here, raw, on_scenario, target, tick):
                        continue
                    _stream_docs(iter_bytes(data, label, limits_here, tick), label, raw, on_scenario, each)
                    continue
                docs = parse_bytes(_read(path, limits_here, stdin), label, limits_here, tick)
                for j, doc in enumerate(docs):
                    where = label if len(docs) == 1 else f"{label}: document {j + 1}"
                    _flatten(doc, where, raw, on_scenario, emit=each)
            except InputError as e:
                errors.setdefault(i, []).extend(e.messages)
            finally:
                reading.update(done=base + sizes.get(path, 0))

    def to_overlay(o: dict, label: str) -> None:
        apply_namespace(o, namespace)
        assert ov is not None
        ov.add(o, label)

    def to_output(o: dict, label: str) -> None:
        apply_namespace(o, namespace)
        out(ov.take(o) if ov is not None else o)

    with reading:
        if ov is not None:
            for i in range(1, len(groups)):
                read_group(i, to_overlay, emit is not None)
            read_group(0, to_output, emit is not None)
            if not errors:
                for o in ov.rest():
                    out(o)
                raw.notes.extend(ov.notes())
        else:
            for i in range(len(groups)):
                read_group(i, to_output, emit is not None)
    raw.sources.extend("<stdin>" if p == "-" else p for g in groups for p in g)
    return [m for i in sorted(errors) for m in errors[i]]


def _reading(groups: list[list[str]]) -> tuple[progress.Task, dict[str, int]]:
    """The progress task of a read: bytes read of the inputs' total (standard input: unknown), and
    each file's size."""
    if progress.current() is None:
        return progress.NULL_TASK, {}
    sizes: dict[str, int] = {}
    for g in groups:
        for p in g:
            try:
                sizes[p] = 0 if p == "-" else os.path.getsize(p)
            except OSError:
                sizes[p] = 0
    known = all(p != "-" for g in groups for p in g)
    return progress.task("reading", total=sum(sizes.values()) if known else None, unit="bytes"), sizes


def _stream_docs(
    docs: Iterator[Any], label: str, raw: RawInput, on_scenario: Callable[[dict, str], None], emit: Callable[[dict], None]
) -> None:
    """The documents of one input, each flattened as soon as the next one is read (whether a
    document is the only one decides how it is named).  An error before anything was flattened
    is the whole read's; after, stream.Broken (the whole read parses every document first)."""
    from planner.load import stream

    prev: Any = None
    n = 0
    flattened = False
    try:
        for doc in docs:
            if n:
                flattened = True
                _flatten(prev, f"{label}: document {n}", raw, on_scenario, emit=emit)
            prev = doc
            n += 1
        if n:
            flattened = True
            _flatten(prev, label if n == 1 else f"{label}: document {n}", raw, on_scenario, emit=emit)
    except InputError:
        if flattened:
            raise stream.Broken(label) from None
        raise


def _yaml_halves(
    data: bytes, label: str, limits: Limits, raw: RawInput, on_scenario: Callable[[dict, str], None], emit: Callable[[dict], None],
    tick: Callable[[int], None] | None = None,
) -> bool:
    """A large multi-document YAML input read by two processes (planner.load.parallel: the
    documents after a ``---`` line about half way by a forked child); False when it is not read
    this way (nothing was emitted).  An error anywhere: stream.Broken (the whole read says it)."""
    from planner.load import parallel, stream

    if not isinstance(emit, _Sink) or emit.count or emit.pending or not parallel.usable(len(data)):
        return False
    cut = parallel.yaml_split(data)
    if cut is None:
        return False
    first_done = [False]

    def both(offset: int) -> None:
        assert tick is not None
        tick(parallel.read_so_far(offset, cut, cut, len(data)))

    def first() -> Iterator[Any]:
        yield from iter_bytes(data[:cut], label, limits, both if tick is not None else None)
        first_done[0] = True

    def second() -> Iterator[Any]:
        return iter_bytes(data[cut:], label, limits)

    def handle(i: int, doc: Any) -> None:
        _flatten(doc, f"{label}: document {i + 1}", raw, on_scenario, emit=emit)

    try:
        parallel.halves(first, lambda: first_done[0], second, second, handle, emit, raw, limits.max_documents)
    except InputError:
        raise stream.Broken(label) from None
    return True


def _stream_list(
    path: str, label: str, limits: Limits, raw: RawInput, on_scenario: Callable[[dict, str], None], emit: Callable[[dict], None],
    tick: Callable[[int], None] | None = None,
    lists: set[str] | None = None,
) -> bool:
    """A JSON List file that orjson would decode whole (larger than json_strict_bytes), item by
    item: what _flatten would do with the whole document.  False when the file is not read this
    way (nothing was emitted); raises stream.Broken when it was partly read and must not be
    used (an error in it: the whole read gives the message)."""
    from planner.load import parallel, stream

    try:
        size = os.path.getsize(path)
    except OSError:
        return False
    if size > limits.max_stream_bytes or size <= limits.json_strict_bytes:
        return False
    try:
        lst = stream.JsonList.open(path, size)
    except (stream.NotStreamable, OSError):
        return False
    with lst:
        kind = lst.frame.get("kind")
        # _flatten's test for a List (items is a list here), and its item kind
        if not isinstance(kind, str) or not kind.endswith("List"):
            return False
        item_kind = kind[:-4] if kind != "List" else None
        if lists is not None:
            lists.add(path)

        def handle(i: int, it: Any) -> None:
            if item_kind and isinstance(it, dict) and "kind" not in it:
                it["kind"] = item_kind
            _flatten(it, f"{label}: items[{i}]", raw, on_scenario, 1, emit)

        try:
            if isinstance(emit, _Sink) and parallel.usable(size):
                parallel.run(lst, handle, emit, raw, tick)  # the second part in a child process
            else:
                parallel.each(lst, handle, tick)
        except (InputError, OSError):
            raise stream.Broken(label) from None
    return True


def skipped_notice(raw: RawInput) -> str | None:
    if not raw.skipped:
        return None
    total = sum(raw.skipped.values())
    kinds = ", ".join(f"{k} ({n})" for k, n in sorted(raw.skipped.items()))
    return f"note: skipped {total} object(s) of kinds planner does not read: {kinds}"


def _key(o: dict) -> str:
    meta = o.get("metadata")
    md: dict = meta if isinstance(meta, dict) else {}
    name = str(md.get("name", ""))
    if o["kind"] in ("Node", "PersistentVolume", "StorageClass", "Namespace", "PriorityClass", "CSINode", "RuntimeClass"):
        return name
    return f"{md.get('namespace') or 'default'}/{name}"


def validate_raw(raw: RawInput) -> list[str]:
    """Apply the API server's defaults in place, then validate; returns every error."""
    from planner.validation import validate_objects
    from planner.validation.defaults import apply_defaults

    for o in raw.objects:
        apply_defaults(o)
    return validate_objects(raw.objects)


def build_snapshot(raw: RawInput) -> Snapshot:
    """Convert validated objects into the domain model (no validation here)."""
    b = _Builder()
    for o in raw.objects:
        b.add(o)
    return b.finish(raw.scenario)


class _Builder:
    """build_snapshot one object at a time."""

    def __init__(self) -> None:
        self.snap = Snapshot()
        self.conv = convert.Converter()

    def add(self, o: dict) -> None:
        snap, conv = self.snap, self.conv
        kind = o["kind"]
        key = _key(o)
        try:
            if kind == "Pod":
                snap.pods[key] = conv.pod(o)
            elif kind == "Node":
                snap.nodes[key] = convert.node(o, snap.notes)
            elif kind == "PersistentVolume":
                snap.pvs[key] = convert.persistent_volume(o)
            elif kind == "PersistentVolumeClaim":
                snap.pvcs[key] = convert.persistent_volume_claim(o)
            elif kind == "StorageClass":
                snap.storage_classes[key] = convert.storage_class(o)
            elif kind == "Deployment":
                snap.deployments[key] = conv.deployment(o)
            elif kind == "ReplicaSet":
                snap.replicasets[key] = conv.replicaset(o)
            elif kind == "StatefulSet":
                snap.statefulsets[key] = conv.statefulset(o)
            elif kind == "DaemonSet":
                snap.daemonsets[key] = conv.daemonset(o)
            elif kind == "HorizontalPodAutoscaler":
                snap.hpas[key] = convert.hpa(o)
            elif kind == "PodDisruptionBudget":
                snap.pdbs[key] = convert.pdb(o)
            elif kind == "Namespace":
                snap.namespaces[key] = convert.namespace(o)
            elif kind == "PriorityClass":
                snap.priority_classes[key] = convert.priority_class(o)
            elif kind == "CSINode":
                snap.csinodes[key] = convert.csi_node(o)
            elif kind == "LimitRange":
                snap.limit_ranges[key] = convert.limit_range(o)
            elif kind == "RuntimeClass":
                snap.runtime_classes[key] = convert.runtime_class(o, conv)
            elif kind == "ControllerRevision":
                snap.controller_revisions[key] = convert.controller_revision(o, conv)
        except (TypeError, ValueError, AttributeError, KeyError) as e:  # a gap in validation, never a traceback
            raise InputError(f"{kind} {key}: cannot be read: {e}") from None
        if kind != "Pod":  # pods are never patched or rendered from here: their dicts can go
            snap.raw[(kind, key)] = o

    def finish(self, scenario: Any) -> Snapshot:
        from planner.load.admission import resolve_admission
        from planner.load.priority import resolve_priorities

        snap = self.snap
        resolve_priorities(snap)
        resolve_admission(snap)
        _record_templates(snap)
        _note_dangling(snap)
        if scenario is None:
            _note_one_namespace(snap)
        if scenario is not None:
            snap.scenario = {
                "name": scenario.name,
                "description": scenario.description,
                "expect": scenario.expect,
                "steps": scenario.steps,
            }
        return snap


def _record_templates(snap: Snapshot) -> None:
    """Snapshot.read_templates: each StatefulSet's raw object with the template made of it (its
    priority and admission resolved), so that the controllers know a template as read without
    converting the raw one again (planner.controllers.template_hash)."""
    raw = snap.raw
    for key, sts in snap.statefulsets.items():
        o = raw.get(("StatefulSet", key))
        if isinstance(o, dict):
            snap.read_templates[("StatefulSet", key)] = (o, sts.template)


def _note_dangling(snap: Snapshot) -> None:
    """What a real cluster can hold is not an input error: note it where it matters."""
    for pvc in snap.pvcs.values():
        if pvc.volume_name and pvc.volume_name not in snap.pvs:
            snap.notes.append(f"PersistentVolumeClaim {pvc.key}: bound to PersistentVolume {pvc.volume_name}, which is not in the input")
    unknown = Counter(p.spec.node_name for p in snap.pods.values() if p.spec.node_name and p.spec.node_name not in snap.nodes)
    for n, c in sorted(unknown.items()):
        snap.notes.append(f"{c} pod(s) are bound to node {n}, which is not in the input: they are not counted")
    if snap.nodes:
        nozone = [n.name for n in snap.nodes.values() if not n.zone]
        if nozone and len(nozone) < len(snap.nodes):
            snap.notes.append(f"{len(nozone)} node(s) have no topology.kubernetes.io/zone label (e.g. {nozone[0]}): zone spread skips them")


def _note_one_namespace(snap: Snapshot) -> None:
    """A snapshot of one namespace (`kubectl get pods -n NS`, `planner snapshot -n NS`) lacks the
    other namespaces' pods on the same nodes, whose requests the scheduler counts: say so. A real
    cluster always runs some pods of kube-system (kube-proxy, the network plugin) on its nodes."""
    if not snap.nodes or not snap.pods:
        return
    namespaces = {p.namespace for p in snap.pods.values()}
    if len(namespaces) == 1 and "kube-system" not in namespaces:
        (ns,) = namespaces
        snap.notes.append(
            f"pods were read from namespace {ns} only: pods of other namespaces on these nodes are missing, so free "
            "room is overstated; `planner snapshot -A` (or kubectl get ... -A) reads every namespace"
        )


def load_snapshot(
    paths: Iterable[str],
    limits: Limits | None = None,
    notice: Callable[[str], None] | None = None,
    *,
    overlay: bool = True,
    namespace: str | None = None,
) -> Snapshot:
    """Read, default, validate and convert; raises InputError listing every problem.

    ``overlay``: the inputs after the first are applied over it (planner.load.overlay), and
    ``notice`` is told what they replaced and added; without it, an object that repeats one read
    before is an error.  ``namespace`` (-n): the namespace of namespace-less objects.

    The cyclic garbage collector is paused while loading: decoding a 200 MB snapshot allocates
    millions of dicts and lists, none of them garbage, and CPython's collector would walk them
    again and again (it triples orjson's decode time).  What was loaded is then frozen into the
    permanent generation so that later collections skip it.  The snapshot's base cluster (the
    scheduler cache's NodeInfos, Snapshot.base_cluster) is built here too: every command reads it.
    Large inputs go through the snapshot cache (planner.load.cache): the next command given the
    same inputs reads the snapshot this one built.
    """
    from planner.load import cache

    paths = list(paths)
    limits = limits or Limits()
    try:
        files = collect_paths(paths)
    except InputError:
        files = []  # the load reports it
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        key = _CacheKey(limits, overlay, namespace, tuple(paths))
        snap = cache.cached_load(files, key, lambda note: _load_snapshot(paths, limits, note, _Options(overlay, namespace)), notice)
        with progress.task(f"indexing {len(snap.nodes):,} nodes and {len(snap.pods):,} pods"):
            snap.base_cluster()  # the scheduler's cache of it (NodeInfos), which every command reads
    finally:
        if was_enabled:
            gc.enable()
    gc.freeze()
    return snap


@dataclass(frozen=True)
class _CacheKey:
    """What the snapshot cache's key holds besides the inputs' bytes (planner.load.cache hashes
    its repr): the limits and the options that change what a load gives (the overlay, -n, and
    how the arguments group the files: the overlay applies per argument)."""

    limits: Limits
    overlay: bool
    namespace: str | None
    args: tuple[str, ...]

    @property
    def largest(self) -> int:
        return self.limits.largest  # the largest input a load may accept: larger ones are not cached


@dataclass
class _Options:
    overlay: bool = True
    namespace: str | None = None
    stdin: list[bytes] = field(default_factory=list)  # standard input, read once
    # the files a streamed attempt found to be JSON Lists: a whole read (after stream.Broken, for
    # every error's message) takes them up to Limits.max_stream_bytes, as the stream did
    lists: set[str] = field(default_factory=set)


def _load_snapshot(paths: Iterable[str], limits: Limits | None, notice: Callable[[str], None] | None, opts: _Options) -> Snapshot:
    from planner.load import stream

    paths = list(paths)
    try:
        return _load_streamed(paths, limits or Limits(), notice, opts)
    except stream.Broken:
        pass
    gc.collect()  # what the streamed attempt built (the collector is paused)
    return _load_whole(paths, limits, notice, opts)


def _load_whole(paths: Iterable[str], limits: Limits | None, notice: Callable[[str], None] | None, opts: _Options | None = None) -> Snapshot:
    """read_objects -> validate_raw -> build_snapshot: every object's dicts at once."""
    opts = opts or _Options()
    limits = limits or Limits()
    raw = RawInput()
    errors = _read_into(paths, limits, raw, None, overlay=opts.overlay, namespace=opts.namespace, stdin=opts.stdin, lists=opts.lists)
    if errors:
        raise InputError(*errors)
    if not raw.objects and raw.scenario is None:
        raise InputError(_NO_OBJECTS)
    errors = validate_raw(raw)
    if errors:
        raise InputError(*errors)
    _tell(raw, notice)
    return build_snapshot(raw)


def _tell(raw: RawInput, notice: Callable[[str], None] | None) -> None:
    """The notices of a load: kinds skipped, what the overlay did."""
    if notice is None:
        return
    n = skipped_notice(raw)
    if n:
        notice(n)
    for m in raw.notes:
        notice(f"note: {m}")


_NO_OBJECTS = "no Kubernetes objects of the kinds planner reads (" + ", ".join(KINDS) + ")"


class _Sink:
    """Each object as it is read: defaults, validation, and (while everything so far is valid)
    conversion; the results and messages of _load_whole, in the same order.  Objects are taken
    in small batches, each step over the batch in turn: faster than one object through all
    steps (the steps' code and memo tables stay in the CPU caches) while the batch's dicts do."""

    BATCH = 64

    def __init__(self, namespace: str | None = None) -> None:
        from planner.load.overlay import apply_namespace
        from planner.validation import ObjectValidator

        # -n: the namespace of namespace-less objects (overlay.apply_namespace), filled in here, so
        # that a large List can go straight to the sink (and to a second process: planner.load.parallel)
        self.namespace = namespace
        self._apply_namespace = apply_namespace
        self.validator = ObjectValidator()
        self.builder = _Builder()
        self.errors: list[str] = []
        self.failed: InputError | None = None  # the first conversion error
        self.count = 0
        self.pending: list[dict] = []

    def __call__(self, o: dict) -> None:
        if self.namespace:
            self._apply_namespace(o, self.namespace)
        self.count += 1
        self.pending.append(o)
        if len(self.pending) >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        from planner.validation.defaults import apply_defaults

        batch, self.pending = self.pending, []
        for o in batch:
            apply_defaults(o)
        validate, errors = self.validator.validate, self.errors
        ok = not errors and self.failed is None
        for o in batch:
            errs = validate(o)
            if errs:
                errors.extend(errs)
                ok = False
        if ok:  # what _load_whole converts: everything, when everything is valid
            add = self.builder.add
            for o in batch:
                try:
                    add(o)
                except InputError as e:
                    self.failed = e
                    break


def _load_streamed(paths: list[str], limits: Limits, notice: Callable[[str], None] | None, opts: _Options) -> Snapshot:
    """_load_whole with each object validated and converted as it is read, so that pods' dicts
    never all exist at once; raises stream.Broken when it must be done by _load_whole."""
    raw = RawInput()
    sink = _Sink(opts.namespace)
    errors = _read_into(paths, limits, raw, sink, overlay=opts.overlay, namespace=opts.namespace, stdin=opts.stdin, lists=opts.lists)
    sink.flush()
    if errors:
        raise InputError(*errors)
    if not sink.count and raw.scenario is None:
        raise InputError(_NO_OBJECTS)
    if sink.errors:
        raise InputError(*sink.errors)
    _tell(raw, notice)
    if sink.failed is not None:
        raise sink.failed
    return sink.builder.finish(raw.scenario)


def read_manifest(
    path: str,
    kinds: tuple[str, ...],
    what: str,
    limits: Limits | None = None,
    namespace: str | None = None,
    admitted_by: Callable[[], Snapshot] | None = None,
) -> tuple[Any, list[str]]:
    """The one object of ``kinds`` in the manifest at ``path`` (``-``: stdin), defaulted,
    validated and converted to the domain model as any input is (``-n`` fills its namespace);
    and notes naming the objects of other kinds the file holds, which are not read.  ``what``
    names the option in messages (``--pod-file``).  ``admitted_by``: called once the manifest is
    read and valid, the cluster whose LimitRanges and RuntimeClasses admit the pods the object
    makes (planner.load.admission)."""
    limits = limits or Limits()
    raw = read_objects([path], limits, namespace=namespace)
    label = "<stdin>" if path == "-" else path
    found = [o for o in raw.objects if o.get("kind") in kinds]
    if len(found) != 1:
        names = ", ".join(f"{o.get('kind')} {_key(o)}" for o in found[:5])
        raise InputError(
            f"{label}: {what} needs exactly one {' or '.join(kinds)}, found {len(found)}" + (f" ({names})" if names else "")
        )
    others = [o for o in raw.objects if o is not found[0]]
    raw.objects = found
    errors = validate_raw(raw)
    if errors:
        raise InputError(*errors)
    small = build_snapshot(raw)
    kind = found[0]["kind"]
    admission_notes: list[str] = []
    if admitted_by is not None:
        from planner.load.admission import resolve_admission

        cluster = admitted_by()
        before = len(small.notes)
        resolve_admission(small, by=cluster)
        if kind == "Pod":  # its copies are pods created, admitted as a workload's are
            from dataclasses import replace

            from planner.load.admission import admit_pod

            (key, pod), = small.pods.items()
            small.pods[key] = replace(pod, spec=admit_pod(small, pod, found[0].get("spec") or {}, cluster))
        admission_notes = small.notes[before:]
    tables: dict[str, dict[str, Any]] = {
        "Pod": small.pods, "Deployment": small.deployments, "StatefulSet": small.statefulsets, "ReplicaSet": small.replicasets,
    }
    table = tables.get(kind)
    if table is None:
        raise InputError(f"{label}: {what}: a {kind} cannot be read here")
    notes = [f"{label}: {o.get('kind')} {_key(o)} is not read by {what} (give the file after the snapshot to add it)" for o in others[:5]]
    return next(iter(table.values())), notes + admission_notes


def read_steps(path: str, limits: Limits | None = None) -> Any:
    """The steps of a --steps FILE (planner simulate, planner remediate): a YAML or JSON list of
    steps, or a mapping with `steps:` (so a scenario file gives its own), read within the limits."""
    limits = limits or Limits()
    docs = parse_bytes(_read(path, limits), path, limits)
    raw = docs[0] if len(docs) == 1 else docs
    if isinstance(raw, dict) and "steps" in raw:
        raw = raw["steps"]
    return raw


def read_scheduler_config(path: str, limits: Limits | None = None) -> SchedulerConfig:
    """The --scheduler-config FILE: one KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1),
    YAML or JSON, read within the limits and validated (planner.scheduler.config.parse_config:
    one line per problem, exit 2)."""
    limits = limits or Limits()
    docs = [d for d in parse_bytes(_read(path, limits), path, limits) if d is not None]
    if len(docs) != 1:
        raise InputError(f"{path}: expected one KubeSchedulerConfiguration document, found {len(docs)}")
    from planner.scheduler.config import parse_config

    return parse_config(docs[0], path)
