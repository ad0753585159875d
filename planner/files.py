"""Files planner writes: created, never followed.

Every file planner writes (``--plot``, ``remediate --emit``, the bench outputs) goes through here:

* :func:`write_file` / :func:`open_atomic`: the bytes go to a fresh temporary file in the target's
  own folder (``mkstemp``: ``O_CREAT | O_EXCL``, a name nobody could have planted), which then
  replaces the target with ``os.replace``.  A symlink at the target is replaced, never written
  through; a reader never sees half a file.
* :class:`StagedDir`: a whole folder built in a fresh temporary folder next to it (same file
  system), then renamed into place.  The folder it replaces must be one planner made: it holds a
  marker file (:data:`MARKER`) listing what planner wrote there, and nothing else; an empty
  folder is fine too.  Anything else (a user's folder, files the runbooks wrote, a symlink) is
  refused with a :class:`~planner.errors.UsageError`, never deleted.
* :func:`create_file`: a new file inside a folder planner has just created (the staged folder):
  ``O_CREAT | O_EXCL | O_NOFOLLOW``, so nothing already there is ever opened.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any

from planner.errors import UsageError

MARKER = ".planner-emit"
"""The marker file of a folder ``remediate --emit`` made: JSON, ``{"written_by": "planner
remediate --emit", "files": [relative paths]}``."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_dir(path: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def open_atomic(path: str | os.PathLike[str], mode: int = 0o666) -> Iterator[IO[bytes]]:
    """A binary file object whose bytes replace ``path`` when the block ends without an error
    (``mode`` less the umask); on an error the target is left as it was and the temporary file is
    removed.  A symlink at ``path`` is replaced by the new file: its target is not touched."""
    target = os.path.abspath(os.fspath(path))
    folder, name = os.path.split(target)
    if not name:
        raise UsageError(f"{os.fspath(path)}: not a file name")
    if os.path.isdir(target) and not os.path.islink(target):
        raise UsageError(f"{os.fspath(path)}: is a directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name[:64]}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise UsageError(f"{os.fspath(path)}: cannot write in {folder}: {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_file(path: str | os.PathLike[str], data: bytes | str, mode: int = 0o666) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically, replacing (never following) a symlink."""
    with open_atomic(path, mode) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def create_file(path: str | os.PathLike[str], data: bytes | str, mode: int = 0o644) -> None:
    """Create a new file: fails if anything (a file, a symlink) is already at ``path``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.fchmod(f.fileno(), mode & ~_umask())


def safe_name(text: str, limit: int = 200) -> str:
    """``text`` as one file name: characters other than ``A-Za-z0-9._-`` become ``_``, no leading
    dot, at most ``limit`` characters; so a name can never leave its folder (no ``/``, no ``..``)."""
    out = "".join(c if (c.isascii() and (c.isalnum() or c in "._-")) else "_" for c in text)[:limit]
    if not out or out.startswith("."):
        out = "_" + out[: limit - 1]
    return out


def _first_entry(root: str) -> str:
    for dirpath, dirnames, filenames in os.walk(root):
        for n in sorted(filenames) + sorted(dirnames):
            return os.path.relpath(os.path.join(dirpath, n), root)
    return "?"


def foreign_entry(root: str) -> str | None:
    """None when the folder ``root`` is empty or holds exactly what planner's marker lists (and
    the marker); else the first entry (relative path) planner did not write."""
    try:
        with open(os.path.join(root, MARKER), "rb") as f:
            listed = json.loads(f.read().decode("utf-8")).get("files")
    except FileNotFoundError:
        return _first_entry(root) if os.listdir(root) else None
    except (OSError, ValueError, AttributeError):
        return MARKER
    if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
        return MARKER
    allowed = {os.path.normpath(x) for x in listed} | {MARKER}
    folders = {os.path.dirname(x) for x in allowed} - {""}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        for d in sorted(dirnames):
            r = os.path.normpath(os.path.join(rel, d))
            if os.path.islink(os.path.join(dirpath, d)) or r not in folders:
                return r
        for fn in sorted(filenames):
            r = os.path.normpath(os.path.join(rel, fn))
            if r not in allowed:
                return r
    return None


class StagedDir:
    """Build a folder beside ``target`` and move it into place whole.

    ``with StagedDir(target, "--emit") as d: ...`` gives ``d.path``, a fresh empty folder in
    ``target``'s parent; files are created in it with :meth:`write` (``O_EXCL | O_NOFOLLOW``).
    When the block ends without an error, the marker is written, the old ``target`` (if any) is
    renamed aside, the new folder renamed to ``target`` and the old one removed.  On an error the
    new folder is removed and ``target`` is left as it was.

    Refused before anything is written (UsageError): ``target`` a symlink, or something that is
    not a folder, or a folder that is neither empty nor one planner made (see :data:`MARKER`)."""

    def __init__(self, target: str | os.PathLike[str], option: str) -> None:
        self.given = os.fspath(target)
        self.option = option
        self.target = os.path.abspath(self.given)
        self.parent, self.name = os.path.split(self.target)
        if not self.name or self.name in (".", ".."):
            raise UsageError(f"{option} {self.given}: give a folder name")
        self.written: list[str] = []
        self.path = ""
        self.check()

    def check(self) -> None:
        try:
            st = os.lstat(self.target)
        except FileNotFoundError:
            return
        except OSError as e:
            raise UsageError(f"{self.option} {self.given}: {e.strerror}") from None
        if stat.S_ISLNK(st.st_mode):
            raise UsageError(f"{self.option} {self.given}: is a symlink; planner does not write through links: give the real folder")
        if not stat.S_ISDIR(st.st_mode):
            raise UsageError(f"{self.option} {self.given}: exists and is not a directory")
        foreign = foreign_entry(self.target)
        if foreign is not None:
            raise UsageError(
                f"{self.option} {self.given}: the folder holds files planner did not write (e.g. {foreign!r}); "
                f"planner replaces only a folder it made ({MARKER} lists its files) or an empty one: move them or choose another folder"
            )

    def __enter__(self) -> StagedDir:
        try:
            os.makedirs(self.parent, exist_ok=True)
            self.path = tempfile.mkdtemp(prefix=f".{self.name[:64]}.planner-new-", dir=self.parent)
            os.chmod(self.path, 0o777 & ~_umask())
        except OSError as e:
            raise UsageError(f"{self.option} {self.given}: cannot create a folder in {self.parent}: {e.strerror}") from None
        return self

    def mkdir(self, rel: str) -> str:
        p = os.path.join(self.path, rel)
        os.mkdir(p, 0o777)
        return p

    def write(self, rel: str, data: bytes | str, mode: int = 0o644) -> str:
        """Create ``rel`` (relative, a name planner chose: no ``..``) in the new folder; returns
        the path it will have once the folder is in place."""
        norm = os.path.normpath(rel)
        if os.path.isabs(norm) or norm.startswith(".."):
            raise ValueError(f"not a path inside the folder: {rel!r}")
        create_file(os.path.join(self.path, norm), data, mode)
        self.written.append(norm)
        return os.path.join(self.given, norm)

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            return
        aside = ""
        try:
            marker = {"written_by": f"planner {self.option}", "files": sorted(self.written)}
            create_file(os.path.join(self.path, MARKER), json.dumps(marker, indent=1) + "\n")
            self.check()  # again: the folder may have changed while the plans were written
            if os.path.lexists(self.target):
                aside = os.path.join(self.parent, f".{self.name[:64]}.planner-old-{secrets.token_hex(6)}")
                os.rename(self.target, aside)
            os.rename(self.path, self.target)
        except BaseException:  # an error or Ctrl-C, wherever it lands: the old folder stays (or comes back) whole
            if aside and os.path.lexists(aside) and not os.path.lexists(self.target):
                os.rename(aside, self.target)
                aside = ""
            shutil.rmtree(self.path, ignore_errors=True)
            if aside and os.path.lexists(self.target) and not os.path.lexists(self.path):
                shutil.rmtree(aside, ignore_errors=True)  # the new folder made it into place: the old one goes
            raise
        try:
            _fsync_dir(self.parent)
        finally:  # even on Ctrl-C: the new folder is in place, the old one is not left beside it
            if aside:
                shutil.rmtree(aside, ignore_errors=True)


def write_with(path: str | os.PathLike[str], writer: Callable[[IO[bytes]], Any], mode: int = 0o666) -> None:
    """``writer(f)`` writes to a temporary file that then replaces ``path`` (see open_atomic)."""
    with open_atomic(path, mode) as f:
        writer(f)


__all__ = ["MARKER", "StagedDir", "create_file", "open_atomic", "safe_name", "write_file", "write_with"]
