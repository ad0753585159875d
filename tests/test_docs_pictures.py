"""The pictures README shows (docs/*.png) are drawn from bundled scenarios by `make pictures`
(docs/pictures.py): drawn again here, they are the checked-in files byte for byte with the
matplotlib the lock pins (another version may place a pixel differently: then same size)."""

from __future__ import annotations

import importlib.util
import os
import re

import pytest

from tests.conftest import ROOT, run_cli


def _pictures_module():
    spec = importlib.util.spec_from_file_location("docs_pictures", ROOT / "docs" / "pictures.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_shows_every_picture_and_only_those():
    mod = _pictures_module()
    readme = (ROOT / "README.md").read_text()
    shown = set(re.findall(r"\]\(docs/([a-z-]+\.png)\)", readme))
    assert shown == set(mod.PICTURES), shown
    for name, argv in mod.PICTURES.items():
        assert (ROOT / "docs" / name).is_file(), f"docs/{name} is not checked in: make pictures"
        assert all((ROOT / a).is_file() for a in argv if a.endswith(".yaml")), argv  # bundled inputs only


def test_pictures_are_current(tmp_path):
    import matplotlib

    from tests.pictures.support import png_pixels

    mod = _pictures_module()

    def run(argv: list[str]) -> tuple[int, str]:
        cwd = os.getcwd()
        try:
            os.chdir(ROOT)
            r = run_cli(argv)
        finally:
            os.chdir(cwd)
        return r.code, r.err

    written = mod.draw(tmp_path, run)
    pinned = re.search(r"^matplotlib==(\S+)", (ROOT / "requirements.lock").read_text(), re.M)
    assert pinned is not None
    for path in written:
        checked_in = ROOT / "docs" / path.name
        if matplotlib.__version__ == pinned.group(1):
            assert path.read_bytes() == checked_in.read_bytes(), f"docs/{path.name} is out of date: make pictures"
        else:
            # another matplotlib lays text out a pixel or two apart (a tight bounding box): the
            # same picture, within a few pixels of the checked-in size
            got, want = png_pixels(path).shape, png_pixels(checked_in).shape
            assert got[2:] == want[2:] and all(abs(g - w) <= max(4, w // 50) for g, w in zip(got[:2], want[:2])), (got, want)
    if matplotlib.__version__ != pinned.group(1):
        pytest.skip(f"matplotlib {matplotlib.__version__}, not the locked {pinned.group(1)}: compared by size only")
