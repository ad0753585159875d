"""The README stays true: its CLI reference names exactly the commands and options that exist."""

from __future__ import annotations

import os
import re
import shlex

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
            for o in [*p.opts, *p.secondary_opts]:  # --overlay/--no-overlay: both
                if o.startswith("-"):
                    opts.add(o)
        opts.discard("--help")
        opts.discard("-h")
        missing = {o for o in opts if o not in ref[name]}
        # a short and a long spelling (or a flag and its negation) may be written as either one
        missing = {
            o for o in missing
            if not any(alt in ref[name] for p in cmd.params if o in [*p.opts, *p.secondary_opts] for alt in [*p.opts, *p.secondary_opts])
        }
        assert not missing, f"README's reference for {name} lacks {sorted(missing)}"
        unknown = ref[name] - opts
        assert not unknown, f"README's reference for {name} names options that do not exist: {sorted(unknown)}"


def test_readme_shows_make_targets():
    text = (ROOT / "README.md").read_text()
    assert "make demo" in text and "make test" in text


def _everyday_examples() -> list[tuple[str, list[str]]]:
    """The console examples of "Everyday questions": (command, lines shown after it)."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Everyday questions", 1)[1].split("\n## ", 1)[0]
    out: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif out:
                out[-1][1].append(line)
    return out


def test_everyday_examples_run_as_shown():
    """Each command runs from a fresh clone (bundled files only) and prints what the README shows
    (lines with '...' abbreviate: their start is checked)."""
    from .conftest import run_cli

    examples = _everyday_examples()
    assert len(examples) >= 4
    for command, shown in examples:
        stdin = None
        if " | " in command:
            feed, command = command.split(" | ", 1)
            assert feed.startswith("cat ")
            stdin = (ROOT / feed[4:].strip()).read_bytes()
        argv = shlex.split(command)
        assert argv[0] == "planner"
        for a in argv[1:]:
            if a.endswith((".yaml", ".json")):
                assert (ROOT / a).is_file(), f"{a} is not in the repository"
        cwd = os.getcwd()
        try:
            os.chdir(ROOT)
            r = run_cli(argv[1:], stdin=stdin)
        finally:
            os.chdir(cwd)
        assert r.code in (0, 1), (command, r.err)
        printed = (r.out + r.err).splitlines()
        for line in shown:
            want = line.split("...", 1)[0].rstrip()
            if want.strip():
                assert any(p.rstrip().startswith(want) for p in printed), (command, line, printed)
