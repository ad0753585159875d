"""Files planner writes outside --emit (`capacity --plot FILE`, the bench outputs through
planner.files): a fresh temporary file in the same folder, renamed over FILE, so a symlink at
FILE is replaced, never written through, and a failure leaves FILE as it was."""

from __future__ import annotations

import os
import stat

import pytest

from planner.errors import UsageError
from planner.files import create_file, safe_name, write_file, write_with
from tests.conftest import SCENARIOS, run_cli


def test_plot_replaces_a_symlink_and_never_writes_through_it(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    outside.chmod(0o600)
    plot = tmp_path / "plots" / "cap.png"
    plot.parent.mkdir()
    plot.symlink_to(outside)
    r = run_cli(["capacity", SCENARIOS / "hpa-scale-up-retained-volume.yaml", "--workload", "statefulset/search", "--plot", plot])
    assert r.code in (0, 1) and "Traceback" not in r.err, r.err  # 1: a replica count fails (seed 001)
    assert outside.read_text() == "precious\n" and stat.S_IMODE(outside.stat().st_mode) == 0o600
    assert not plot.is_symlink() and plot.read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in plot.parent.iterdir()) == ["cap.png"]  # no temporary file left


def test_plot_into_a_directory_is_an_error(tmp_path):
    r = run_cli(["capacity", SCENARIOS / "hpa-scale-up-retained-volume.yaml", "--workload", "statefulset/search", "--plot", tmp_path])
    assert r.code == 2 and "is a directory" in r.err and list(tmp_path.iterdir()) == []


def test_write_file_replaces_links_and_is_atomic(tmp_path):
    outside = tmp_path / "outside"
    outside.write_text("keep")
    link = tmp_path / "results.json"
    link.symlink_to(outside)
    write_file(link, "{}\n")
    assert outside.read_text() == "keep" and not link.is_symlink() and link.read_text() == "{}\n"

    def boom(f):
        f.write(b"half")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_with(link, boom)
    assert link.read_text() == "{}\n" and sorted(p.name for p in tmp_path.iterdir()) == ["outside", "results.json"]
    with pytest.raises(UsageError):
        write_file(tmp_path / "missing-folder" / "x", "y")


def test_create_file_never_opens_what_is_there(tmp_path):
    outside = tmp_path / "outside"
    outside.write_text("keep")
    (tmp_path / "link").symlink_to(outside)
    with pytest.raises(FileExistsError):
        create_file(tmp_path / "link", "x")
    with pytest.raises(FileExistsError):
        create_file(outside, "x")
    assert outside.read_text() == "keep"
    create_file(tmp_path / "new.sh", "#!/bin/sh\n", mode=0o755)
    assert os.access(tmp_path / "new.sh", os.X_OK)


def test_safe_name():
    assert safe_name("01-1-json-pv-pv-data.json") == "01-1-json-pv-pv-data.json"
    assert safe_name("../../etc/passwd") == "_.._.._etc_passwd"
    assert safe_name(".hidden") == "_.hidden"
    assert "/" not in safe_name("a/b\nc$(x)") and safe_name("") == "_"
