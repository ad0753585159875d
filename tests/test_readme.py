"""The README stays true: its CLI reference names exactly the commands and options that exist."""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

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


def _run_in_root(argv: list[str], stdin: bytes | None) -> Any:
    """A documented command run as planner (argv[0]) from the repository's root, as the docs show it."""
    from .conftest import run_cli

    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        return run_cli(argv[1:], stdin=stdin)
    finally:
        os.chdir(cwd)


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
        r = _run_in_root(argv, stdin)
        assert r.code in (0, 1), (command, r.err)
        printed = (r.out + r.err).splitlines()
        for line in shown:
            want = line.split("...", 1)[0].rstrip()
            if want.strip():
                assert any(p.rstrip().startswith(want) for p in printed), (command, line, printed)


DOCS = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]


def _console_commands(text: str) -> list[tuple[str, list[str]]]:
    """Every `$ planner ...` of the console blocks (continuation lines joined, comments dropped),
    with the lines shown after it."""
    out: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("$ "):
                cmd = line[2:]
                while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
                out.append((cmd.split("  #", 1)[0].strip(), []))
            elif out:
                out[-1][1].append(line)
            i += 1
    return out


def test_every_documented_command_runs_from_a_fresh_clone():
    """Each command the README and docs/ show runs from the repository's root on bundled files
    only (exit 0 or 1), and prints the lines shown (lines with '...' abbreviate: their start is
    checked)."""
    seen = 0
    for doc in DOCS:
        for command, shown in _console_commands((ROOT / doc).read_text()):
            stdin = None
            if " | " in command:
                feed, command = command.split(" | ", 1)
                assert feed.startswith("cat "), (doc, feed)
                stdin = (ROOT / feed[4:].strip()).read_bytes()
            argv = shlex.split(command)
            assert argv[0] == "planner", (doc, command)
            for a in argv[1:]:
                if a.endswith((".yaml", ".yml", ".json")) or "/" in a and not a.startswith(("-", "statefulset/", "deployment/", "default/")):
                    assert (ROOT / a).exists(), f"{doc}: {a} is not in the repository"
            assert not any(a.startswith(("--plot", "--html", "--emit")) for a in argv), f"{doc}: {command} writes files"
            r = _run_in_root(argv, stdin)
            assert r.code in (0, 1), (doc, command, r.err)
            printed = [p.rstrip() for p in (r.out + r.err).splitlines()]
            for line in shown:
                want = line.split("...", 1)[0].rstrip()
                if want.strip():
                    assert any(p.startswith(want) for p in printed), (doc, command, line)
            seen += 1
    assert seen >= 12


def test_docs_point_inside_the_repository():
    """Links and paths in the README and docs/ name files of the repository (or web pages), never
    a place outside it."""
    for doc in DOCS:
        text = (ROOT / doc).read_text()
        base = (ROOT / doc).parent
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://", "#", "mailto:")):
                continue
            path = target.split("#", 1)[0]
            assert not path.startswith("/") and ".." not in path.split("/"), f"{doc}: {target}"
            assert (base / path).resolve().is_relative_to(ROOT) and (base / path).exists(), f"{doc}: {target} does not exist"
        for m in re.finditer(r"(?<![\w.>])(/(?:home|work|tmp|Users|root|opt|srv|mnt)/[\w./-]+|\.\./[\w./-]+)", text):
            raise AssertionError(f"{doc}: {m.group(0)} is outside the repository")
