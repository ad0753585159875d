"""The snapshot cache: a loaded snapshot kept in a compact binary file, reused by the next command
that reads the same inputs.

Reading a 5,000-node kubectl snapshot (1.6 GB of JSON) means decoding, defaulting, validating and
converting 185,000 objects; reading back what that produced takes a fraction of it.  So after a
load that succeeded, the snapshot is written to the cache, and the next command given the same
inputs reads it from there (the input is still read in full and hashed: see *Safety*).

**Where.** ``$PLANNER_CACHE_DIR``, else ``$XDG_CACHE_HOME/planner``, else ``~/.cache/planner``: a
folder of the user's own (created with mode 0700).  ``PLANNER_CACHE=off`` (or ``0``, ``no``,
``false``) turns the cache off.

**What is reused.** An entry is keyed by the SHA-256 of: the cache format, planner's own code (a
digest of every module of ``planner`` and ``models``, so any change to planner is a new key), the
Python, orjson and PyYAML versions, the read limits, and each input's name as given, size and
SHA-256 of its bytes, in order.  It is stored under a name derived from the same things with the
inputs' ``stat`` (device, inode, size, modification and change times) in place of their bytes, so
that a load with no entry to reuse costs no extra read of its inputs.  Only loads that succeeded are kept (an input with errors is
read, and reported, every time); the notes the load printed (kinds skipped) are kept with it and
printed again.  Standard input is never cached, and inputs smaller than ``MIN_BYTES`` (16 MiB) in
all are not worth it: they load in well under a second.

**Safety.** A cache file is only ever read when (1) the cache folder is a real folder (not a
symlink) owned by this user and writable by nobody else, (2) the file is a regular file owned by
this user, writable by nobody else, and (3) its header repeats the full key -- which includes the
hash of every input byte as read *now*, so a changed input (whatever its size or time stamps) or
another planner never matches.  A file that fails any of these is ignored (and a stale one is
removed); reading it then goes the ordinary way.

**Bounded.** At most ``MAX_ENTRIES`` (8) files and ``MAX_BYTES`` (4 GiB, ``$PLANNER_CACHE_MAX_BYTES``)
in all; the least recently used go first.

**Cost.** A hit costs the hash of the inputs (about 1 GB/s) and the unpickling; a miss a few
``stat`` calls.  After a miss, the
snapshot is written by a forked child process (its own copy of the loaded snapshot, standard
streams on /dev/null) while the command goes on answering; on platforms without ``fork`` it is
written before the command answers.  The child never writes anything but the cache folder.
"""

from __future__ import annotations

import contextlib
import copyreg
import dataclasses
import hashlib
import io
import operator
import os
import pickle
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from planner.processes import fork_child
from planner.snapshot import Snapshot

FORMAT = b"planner snapshot cache 1\n"
MIN_BYTES = 16 << 20  # inputs smaller than this (in all) are not cached
MAX_ENTRIES = 8
MAX_BYTES = 4 << 30
_SUFFIX = ".snap"
_OFF = ("off", "0", "no", "false")


def enabled() -> bool:
    return os.environ.get("PLANNER_CACHE", "").strip().lower() not in _OFF


def cache_dir() -> Path:
    d = os.environ.get("PLANNER_CACHE_DIR")
    if d:
        return Path(d)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "planner"


def _max_bytes() -> int:
    try:
        return int(os.environ.get("PLANNER_CACHE_MAX_BYTES", MAX_BYTES))
    except ValueError:
        return MAX_BYTES


# --------------------------------------------------------------------------- the key

_CODE_DIGEST: bytes | None = None


def code_digest() -> bytes:
    """A digest of planner's code: every module of the planner and models packages."""
    global _CODE_DIGEST
    if _CODE_DIGEST is None:
        import models
        import planner

        h = hashlib.sha256(planner.__version__.encode() + b"\0")
        for pkg in (planner, models):
            root = Path(pkg.__file__).resolve().parent  # type: ignore[arg-type]
            for p in sorted(root.rglob("*.py")):
                h.update(str(p.relative_to(root.parent)).encode() + b"\0")
                h.update(p.read_bytes() + b"\0")
        _CODE_DIGEST = h.digest()
    return _CODE_DIGEST


def _versions() -> bytes:
    import orjson
    import yaml

    return f"{sys.version}\0{orjson.__version__}\0{yaml.__version__}\0{getattr(yaml, '__with_libyaml__', False)}".encode()


def file_digest(path: str) -> bytes:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").digest()


def _common(limits: Any) -> hashlib._Hash:
    h = hashlib.sha256(FORMAT)
    h.update(code_digest())
    h.update(_versions())
    h.update(repr(limits).encode() + b"\0")
    return h


def probe_key(files: list[str], limits: Any) -> str | None:
    """Where the entry for these inputs would be, from their names and ``stat`` alone (no byte
    read): None when they are not cached (standard input, a file that cannot be read, inputs
    smaller than MIN_BYTES in all or one larger than the limit).  The entry found there is used
    only if its header holds :func:`content_key` of the inputs as they are now."""
    if not files or "-" in files:
        return None
    try:
        stats = [os.stat(p) for p in files]
    except OSError:
        return None
    if sum(st.st_size for st in stats) < MIN_BYTES or any(st.st_size > limits.largest for st in stats):
        return None
    h = _common(limits)
    for p, st in zip(files, stats, strict=True):
        h.update(f"{len(p)}:{p}\0{os.path.abspath(p)}\0{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}\0".encode())
    return h.hexdigest()


def content_key(files: list[str], limits: Any) -> str | None:
    """The key proper: planner's code and versions, the limits, and each input's name, size and
    SHA-256 of every byte; None when a file cannot be read."""
    h = _common(limits)
    try:
        for p in files:
            with open(p, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                digest = hashlib.file_digest(f, "sha256").hexdigest()
            h.update(f"{len(p)}:{p}\0{size}\0{digest}\0".encode())
    except OSError:
        return None
    return h.hexdigest()


# --------------------------------------------------------------------------- the folder


def _private_dir(create: bool) -> Path | None:
    """The cache folder when it is safe to use: a real folder of ours that only we can write."""
    d = cache_dir()
    if create:
        try:
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            return None
    try:
        st = os.lstat(d)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022 or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        return None
    return d


def _entry(d: Path, probe: str) -> Path:
    return d / f"{probe[:40]}{_SUFFIX}"


# --------------------------------------------------------------------------- pickling

# planner's domain objects are frozen slotted dataclasses: pickle's default for them calls
# dataclasses' __getstate__/__setstate__ (two Python calls and a fields() walk per object).
# The cache reduces each to (class, field values) instead: one call of the class on load.


def _dispatch() -> dict[type, Callable[[Any], Any]]:
    from planner import domain

    table: dict[type, Callable[[Any], Any]] = dict(copyreg.dispatch_table)
    for obj in vars(domain).values():
        if not (isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == domain.__name__):
            continue
        params = getattr(obj, "__dataclass_params__", None)
        if params is None or not params.frozen:
            continue
        names = [f.name for f in dataclasses.fields(obj) if f.init]  # the class makes the others
        table[obj] = _reducer(obj, names)
    return table


def _reducer(cls: type, names: list[str]) -> Callable[[Any], Any]:
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda o: (cls, (one(o),))
    get = operator.attrgetter(*names)
    return lambda o: (cls, get(o))


_DISPATCH: dict[type, Callable[[Any], Any]] | None = None


def pickled(obj: Any) -> bytes:
    """``pickle.dumps(obj)`` with planner's domain objects reduced to (class, field values)."""
    global _DISPATCH
    if _DISPATCH is None:
        _DISPATCH = _dispatch()
    buf = io.BytesIO()
    p = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    p.dispatch_table = _DISPATCH  # type: ignore[misc]
    p.dump(obj)
    return buf.getvalue()


def dumps(snap: Snapshot, notices: list[str]) -> bytes:
    state = {f.name: getattr(snap, f.name) for f in dataclasses.fields(Snapshot)}
    return pickled((list(notices), state))


def loads(data: bytes | memoryview) -> tuple[list[str], Snapshot]:
    notices, state = pickle.loads(data)
    return notices, Snapshot(**state)


# --------------------------------------------------------------------------- read / write


def read(probe: str, files: list[str], limits: Any) -> tuple[list[str], Snapshot] | None:
    """The cached load at ``probe`` when its header holds the inputs' content key, else None (no
    entry, one that is not safe to read, or a stale one: that is removed).  The inputs are hashed
    in a thread while the entry is unpickled (hashlib lets go of the GIL): the entry is a file of
    our own (checked first), and nothing of it is used before its key is checked."""
    import threading

    d = _private_dir(create=False)
    if d is None:
        return None
    path = _entry(d, probe)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    keys: list[str | None] = []
    hasher = threading.Thread(target=lambda: keys.append(content_key(files, limits)), daemon=True)
    out = None
    try:
        with open(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o022 or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
                return None
            hasher.start()
            head = f.read(len(FORMAT))
            head += f.readline(100)  # the key's line
            data = f.read()
        if head.startswith(FORMAT):
            with contextlib.suppress(Exception):
                out = loads(data)
        del data
        hasher.join()
        key = keys[0] if keys else None
        if key is None:
            return None  # an input could not be read: the load says why
        if out is None or head != FORMAT + key.encode() + b"\n":
            with contextlib.suppress(OSError):
                path.unlink()  # stale (the inputs changed since) or broken
            return None
    except OSError:
        return None
    finally:
        if hasher.is_alive():
            hasher.join()
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used
    return out


def write(probe: str, files: list[str], limits: Any, snap: Snapshot, notices: list[str]) -> None:
    """Write the entry (atomically: a temporary file renamed into place), then trim the folder."""
    d = _private_dir(create=True)
    if d is None:
        return
    key = content_key(files, limits)
    if key is None or probe_key(files, limits) != probe:  # changed while it was being read
        return
    data = dumps(snap, notices)
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(FORMAT + key.encode() + b"\n")
            f.write(data)
        os.chmod(tmp, 0o600)
        os.replace(tmp, _entry(d, probe))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    trim(d)


def trim(d: Path, keep: int = MAX_ENTRIES, max_bytes: int | None = None) -> None:
    """Keep the ``keep`` most recently used entries within ``max_bytes``; drop temporary files
    older than an hour (a writer that was killed)."""
    max_bytes = _max_bytes() if max_bytes is None else max_bytes
    entries = []
    now = time.time()
    for p in d.iterdir():
        with contextlib.suppress(OSError):
            st = p.lstat()
            if p.name.endswith(".tmp") and p.name.startswith(".") and now - st.st_mtime > 3600:
                p.unlink()
            elif p.name.endswith(_SUFFIX) and stat.S_ISREG(st.st_mode):
                entries.append((st.st_mtime, st.st_size, p))
    entries.sort(reverse=True)
    total = 0
    for i, (_, size, p) in enumerate(entries):
        total += size
        if i >= keep or total > max_bytes:
            with contextlib.suppress(OSError):
                p.unlink()


_WRITERS: list[int] = []  # the write-behind children not yet collected


def _reap() -> None:
    """Collect the write-behind children that have ended (cached_load, at each load): a process
    that loads again and again (a library's caller, a test run) would otherwise keep each one as a
    zombie until it exits."""
    for pid in list(_WRITERS):
        try:
            done = os.waitpid(pid, os.WNOHANG)[0]
        except ChildProcessError:
            done = pid  # collected elsewhere
        if done:
            _WRITERS.remove(pid)


def write_behind(probe: str, files: list[str], limits: Any, snap: Snapshot, notices: list[str]) -> None:
    """write(), in a forked child when the platform forks (the command answers meanwhile)."""
    if not hasattr(os, "fork"):
        with contextlib.suppress(Exception):
            write(probe, files, limits, snap, notices)
        return
    for s in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            s.flush()

    def child() -> None:  # a failed write is a cache miss next time
        with contextlib.suppress(Exception):
            os.setsid()  # not the terminal's Ctrl-C target: the command may already have exited
        write(probe, files, limits, snap, notices)

    with contextlib.suppress(OSError):
        _WRITERS.append(fork_child(child, quiet=(0, 1, 2)))  # nothing of it may reach the user's streams


def cached_load(files: Iterable[str], limits: Any, load: Callable[[Callable[[str], None] | None], Snapshot],
                notice: Callable[[str], None] | None) -> Snapshot:
    """``load(notice)`` through the cache: the cached snapshot for these files when there is one,
    else ``load``'s, written to the cache for the next command."""
    files = list(files)
    _reap()  # the writers of earlier loads that have ended
    probe = probe_key(files, limits) if enabled() else None
    if probe is not None:
        hit = read(probe, files, limits)
        if hit is not None:
            notices, snap = hit
            if notice is not None:
                for n in notices:
                    notice(n)
            return snap
    seen: list[str] = []

    def note(msg: str) -> None:
        seen.append(msg)
        if notice is not None:
            notice(msg)

    snap = load(note)
    if probe is not None:
        write_behind(probe, files, limits, snap, seen)
    return snap
