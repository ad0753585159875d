"""The README stays true: its CLI reference names exactly the commands and options that exist."""

from __future__ import annotations

import re

from typer.main import get_command

from planner.cli import app

from .conftest import ROOT


def _reference() -> dict[str, set[str]]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## CLI reference", 1)[1].split("\n## ", 1)[0]
    out: dict[str, set[str]] = {}
    for m in re.finditer(r"^`planner ([a-z-]+)([^`]*)`", section, re.M):
        cmd, rest = m.group(1), m.group(2)
        if cmd.startswith("--"):
            continue
        out[cmd] = set(re.findall(r"(--[a-z][a-z-]*|-[a-z])\b", rest))
    return out


def test_readme_reference_matches_cli():
    ref = _reference()
    group = get_command(app)
    commands = set(group.commands)  # type: ignore[attr-defined]
    assert set(ref) == commands, f"README lists {sorted(ref)}, CLI has {sorted(commands)}"
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        opts = set()
        for p in cmd.params:
            for o in p.opts:
                if o.startswith("-"):
                    opts.add(o)
        opts.discard("--help")
        opts.discard("-h")
        missing = {o for o in opts if o not in ref[name]}
        # a short and a long spelling may be written as either one
        missing = {o for o in missing if not any(alt in ref[name] for p in cmd.params if o in p.opts for alt in p.opts)}
        assert not missing, f"README's reference for {name} lacks {sorted(missing)}"
        unknown = ref[name] - opts
        assert not unknown, f"README's reference for {name} names options that do not exist: {sorted(unknown)}"


def test_readme_shows_make_targets():
    text = (ROOT / "README.md").read_text()
    assert "make demo" in text and "make test" in text
