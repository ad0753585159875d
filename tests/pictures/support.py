"""Checks shared by the picture tests: a PNG's pixels, an HTML page's structure, headless Chromium."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# SVG elements written self-closed (<rect .../>)
SVG_EMPTY = {"rect", "line", "circle", "path", "polyline", "polygon", "ellipse", "use", "stop"}


def png_pixels(path: Path):
    """The image as an array (height, width, channels) of 0..255."""
    import matplotlib.image as mpimg
    import numpy as np

    img = mpimg.imread(str(path))
    return (np.asarray(img)[..., :3] * 255).round().astype(int)


def count_colour(pixels, hex_colour: str, tolerance: int = 12) -> int:
    import numpy as np

    rgb = np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(pixels - rgb).max(axis=-1) <= tolerance).sum())


class Page(HTMLParser):
    """A strict reading of an HTML document: every element closed in order (void elements and
    self-closed SVG shapes excepted), and every element kept with its attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.elements: list[tuple[str, dict[str, str], list[str]]] = []  # tag, attributes, ancestors
        self.text: list[str] = []
        self.doctype = False

    def handle_decl(self, decl: str) -> None:
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}, list(self.stack)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}, list(self.stack)))
        if tag not in VOID and tag not in SVG_EMPTY:
            self.errors.append(f"<{tag}/> self-closed")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            self.errors.append(f"</{tag}> closes a void element")
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def find(self, tag: str, **attrs: str) -> list[tuple[str, dict[str, str], list[str]]]:
        return [e for e in self.elements if e[0] == tag and all(e[1].get(k.replace("_", "-")) == v for k, v in attrs.items())]


def read_page(text: str) -> Page:
    p = Page()
    p.feed(text)
    p.close()
    return p


def well_formed(text: str) -> Page:
    """The page parsed; asserts it is one well-formed, self-contained document."""
    p = read_page(text)
    assert p.doctype, "no <!DOCTYPE html>"
    assert not p.errors, p.errors[:5]
    assert not p.stack, f"unclosed: {p.stack}"
    tags = [e[0] for e in p.elements]
    assert tags[:1] == ["html"] and "head" in tags and "body" in tags and "title" in tags
    assert p.find("meta", charset="utf-8")
    # self-contained: nothing fetched, nothing run
    assert "script" not in tags and "link" not in tags and "img" not in tags and "iframe" not in tags
    for _tag, attrs, _ in p.elements:
        for k, v in attrs.items():
            assert not k.startswith("on"), f"event handler {k}"
            assert not (k in ("src", "href", "xlink:href") and v and not v.startswith("#")), f"{k}={v}"
    assert "url(" not in text and "@import" not in text
    return p


def chromium() -> str:
    """The headless browser, or skip."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("chromium is not installed (apt-get install chromium; .ci/run installs it): the HTML pages are not rendered")


def render(browser: str, page: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [browser, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--no-first-run",
         "--disable-extensions", "--window-size=1280,1000", *extra, page.resolve().as_uri()],
        capture_output=True, timeout=120,
    )
