"""The YAML fast path (planner.load.fastyaml) against the exact path (libyaml's events).

Every comparison reads the same text both ways through planner.load.reader.iter_yaml_docs and
requires the same documents (compared by ``repr``: types, key order, ``True`` against ``1``),
yielded before the same error message (line numbers included).  The generated documents are in
kubectl's block style (where the fast path must read everything itself) and random lines of YAML
and near-YAML (where it must know what it does not read)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.load.reader import Limits, _plain_scalars, iter_bytes, iter_yaml_docs

ROOT = Path(__file__).resolve().parents[2]
PLAIN = _plain_scalars()[0]
SETTINGS = settings(max_examples=300, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def _run(text: str, fast: bool, limits: Limits, stats: dict | None = None) -> tuple[str, str | None]:
    out = []
    try:
        for d in iter_yaml_docs(text, "in.yaml", limits, fast=fast, stats=stats):
            out.append(d)
    except Exception as e:  # noqa: BLE001 - whatever the exact path raises, the fast path must too
        return repr(out), f"{type(e).__name__}: {e}"
    return repr(out), None


def both(text: str, limits: Limits | None = None) -> dict:
    """Read ``text`` both ways; the same documents and error.  Returns the fast path's stats."""
    limits = limits or Limits()
    stats: dict = {}
    fast = _run(text, True, limits, stats)
    exact = _run(text, False, limits)
    assert fast == exact, f"{text!r}\nfast:  {fast}\nexact: {exact}"
    return stats


# ------------------------------------------------------------------ kubectl-style documents

# plain scalars whose type YAML 1.1 decides (yes/no/on/off, octal, sexagesimal, timestamps, numbers
# past 64 bits or past float64, merge and value keys): the fast path must type them as the exact path
TRICKY = [
    "yes", "No", "ON", "off", "y", "n", "true", "False", "TRUE", "null", "Null", "NULL", "~", "0o17", "0x1F", "012",
    "09", "1_000", "0b101", "1e3", "1.0e+3", "6.8523015e+5", ".inf", "-.Inf", ".NaN", "+12", "-0", "3.", ".5",
    "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2002-12-14 21:59:43.10 -5", "190:20:30", "-1:30",
    "18446744073709551615", "18446744073709551616", "-9223372036854775809", "1" * 400, "1e400", "-1e400",
    "<<", "=", "100m", "1Gi", "v1", "apps/v1", "a:b", "a#b", "http://x/y?z=1&w", "it's", 'say "hi"', "-Xmx1g",
    "ip-10-0-0-1.ec2.internal", "é", "日本", "😀", "a  b", "a\\b",
]
WORDS = st.sampled_from(TRICKY) | st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\t\r\x85\u2028\u2029\ufeff"), max_size=12
)
KEYS = st.sampled_from(["apiVersion", "kind", "metadata", "name", "labels", "app.kubernetes.io/name", "80", "yes", "1",
                        "", "a b", "<<", "key: x", "k#", "'q'", "é"]) | WORDS
LEAF = WORDS | st.integers(-(1 << 70), 1 << 70) | st.booleans() | st.none() | st.just({}) | st.just([])
VALUES = st.recursive(LEAF, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(KEYS, kids, max_size=5), max_leaves=25)


def _safe_plain(s: str) -> bool:
    """``s`` can be written as a plain scalar the fast path reads (the merge key and ``=``, typed
    as tags the exact path rejects or merges, are not)."""
    return bool(
        s
        and s not in ("<<", "=")
        and s[0] not in "-?:,[]{}#&*!|>'\"%@` "
        and s.isprintable()
        and not s.endswith((" ", ":"))
        and ": " not in s
        and " #" not in s
    )


_PRINTABLE = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")


_PRINTABLE_LINES = re.compile(_PRINTABLE.pattern[:-1] + "\n]*")


def _double_quoted(v: str, ascii_only: bool) -> str:
    """``v`` double-quoted as go-yaml and PyYAML escape it: what is not printable (and, with
    ``ascii_only``, what is not ASCII) as \\x, \\u or \\U escapes."""
    out = ['"']
    for ch in v:
        if ch in '"\\':
            out.append("\\" + ch)
        elif _PRINTABLE.match(ch) and not (ascii_only and ord(ch) > 127):
            out.append(ch)
        elif ord(ch) <= 0xFF:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return "".join(out) + '"'


class Emitter:
    """Block YAML in the styles kubectl, Helm and PyYAML print: random indentation, indentless or
    indented sequences, plain, quoted and block scalars, comments and empty lines."""

    def __init__(self, rnd: random.Random, supported_only: bool) -> None:
        self.rnd = rnd
        self.supported = supported_only  # only what the fast path reads
        self.step = rnd.choice([1, 2, 2, 4])
        self.indentless = rnd.random() < 0.7

    def scalar(self, v: object) -> str:
        r = self.rnd
        if v is None:
            return r.choice(["null", "~", "Null"])
        if isinstance(v, bool):
            return r.choice(["true", "yes", "on"] if v else ["false", "no", "off"])
        if isinstance(v, int):
            return str(v)
        assert isinstance(v, str)
        pick = r.random()
        if pick < 0.5 and (_safe_plain(v) or not self.supported and v and "\n" not in v):
            return v
        if pick < 0.75 and v.isprintable():
            return "'" + v.replace("'", "''") + "'"
        return _double_quoted(v, ascii_only=r.random() < 0.5)

    def key(self, k: str) -> str:
        # kubectl quotes a key YAML would type as anything but a string (1, yes, null: two of
        # them could be one key); the fuzz may not
        if _safe_plain(k) and self.rnd.random() < 0.8 and (not self.supported or isinstance(PLAIN(k), str)):
            return k
        if self.rnd.random() < 0.5 and k.isprintable():
            return "'" + k.replace("'", "''") + "'"
        return _double_quoted(k, ascii_only=self.rnd.random() < 0.5)

    def block(self, v: str, ind: int) -> list[str]:
        """``v`` as a block scalar's header and lines (its content is ``v``'s lines, whatever
        the style makes of them)."""
        r = self.rnd
        header = r.choice(["|", "|-", "|+", ">", ">-", ">+"])
        pad = " " * (ind + self.step)
        lines: list[str] = []
        first = True  # kubectl's blocks: the first content line sets the indentation, none is less indented
        for ln in v.split("\n"):
            if ln.strip(" ") == "":
                wide = len(pad) + 2 if not (self.supported and first) else len(pad)
                lines.append(" " * r.choice([0, len(pad), r.randint(0, wide)]))
            else:
                lines.append(pad + " " * (0 if self.supported and first else r.choice([0, 0, 0, 1, 3])) + ln)
                first = False
        return [header, *lines]

    def node(self, v: object, ind: int, out: list[str], head: str) -> None:
        """``head`` (``"key:"``, ``"-"``) and ``v`` after it, at indentation ``ind``."""
        r = self.rnd
        sp = " " * ind
        if isinstance(v, dict) and v:
            out.append(f"{sp}{head}")
            self.mapping(v, ind + self.step, out)
        elif isinstance(v, list) and v:
            out.append(f"{sp}{head}")
            self.sequence(v, ind if head != "-" and self.indentless else ind + self.step, out)
        elif isinstance(v, dict):
            out.append(f"{sp}{head} {{}}")
        elif isinstance(v, list):
            out.append(f"{sp}{head} []")
        elif isinstance(v, str) and "\n" in v and v.strip() and r.random() < 0.7 and (not self.supported or _PRINTABLE_LINES.fullmatch(v)):
            header, *lines = self.block(v, ind)
            out.append(f"{sp}{head} {header}")
            out.extend(lines)
        else:
            out.append(f"{sp}{head} {self.scalar(v)}" + " " * r.choice([0, 0, 0, 2]))
        if r.random() < 0.05:
            out.append(" " * r.randint(0, 6) + r.choice(["", "# a comment", "#"]))

    def mapping(self, m: dict, ind: int, out: list[str]) -> None:
        for k, v in m.items():
            self.node(v, ind, out, self.key(k) + ":")

    def sequence(self, items: list, ind: int, out: list[str]) -> None:
        for it in items:
            if isinstance(it, dict) and it and self.rnd.random() < 0.8:  # "- key: value" on one line
                sub: list[str] = []
                self.mapping(it, ind + 2, sub)
                sub[0] = " " * ind + "- " + sub[0][ind + 2 :]
                out.extend(sub)
            else:
                self.node(it, ind, out, "-")

    def stream(self, docs: list) -> str:
        r = self.rnd
        out: list[str] = []
        if r.random() < 0.3:
            out.append("---")
        for j, d in enumerate(docs):
            if j:
                out.append("---")
            if r.random() < 0.1:
                out.append("# Source: chart/templates/x.yaml")
            if isinstance(d, dict) and d:
                self.mapping(d, 0, out)
            elif isinstance(d, list) and d:
                self.sequence(d, 0, out)
            elif d is not None or r.random() < 0.5:
                out.append(f"a: {self.scalar(d)}" if not isinstance(d, (dict, list)) else f"a: {json.dumps(d)}")
        text = "\n".join(out)
        return text + r.choice(["\n", "\n", "", "\n---\n", "\n\n"])


DOCS = st.lists(st.dictionaries(KEYS, VALUES, max_size=6) | st.lists(VALUES, max_size=4) | VALUES, min_size=1, max_size=4)
BLOCK_TEXT = st.lists(st.sampled_from(["x", "  y", "", " ", "   ", "z z", "# not a comment", "- a", "k: v", "   w"]), max_size=6).map("\n".join)


@SETTINGS
@given(DOCS, st.randoms(use_true_random=False))
def test_kubectl_style_documents_read_by_the_fast_path_alone(docs, rnd):
    """What kubectl prints is read by the fast path, every document (no fallback), as the exact
    path reads it."""
    text = Emitter(rnd, supported_only=True).stream(docs)
    stats = both(text)
    assert stats["exact_from"] is None, text


@SETTINGS
@given(DOCS, st.randoms(use_true_random=False))
def test_any_block_style_documents(docs, rnd):
    """Plain scalars that are not (colons, comments, indicators): whatever the fast path reads
    is read as the exact path reads it, whatever it does not the exact path reads."""
    both(Emitter(rnd, supported_only=False).stream(docs))


@SETTINGS
@given(st.lists(st.tuples(BLOCK_TEXT, st.sampled_from([0, 1, 2, 3]), st.booleans()), min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_block_scalars(parts, rnd):
    """``|`` and ``>`` with every chomping, content lines more indented than the first, empty
    lines with fewer, as many or more spaces than the content, at a document's end, before
    ``---`` and at the stream's end without a line break."""
    out = []
    for body, extra, in_seq in parts:
        header = rnd.choice(["|", "|-", "|+", ">", ">-", ">+"])
        pad = " " * (2 + extra)
        lines = [(pad + ln if ln.strip() else ln) for ln in body.split("\n")]
        if in_seq:
            out += [f"k{len(out)}:", f"- {header}", *lines]
        else:
            out += [f"k{len(out)}: {header}", *lines]
        if rnd.random() < 0.3:
            out.append("---")
    both("\n".join(out) + rnd.choice(["", "\n", "\n\n", "\n  \n"]))


FRAGMENTS = [
    "a:", "a: 1", "- x", "-", "- a: 1", "  b: 2", "    c:", "- - x", "? k", ": v", "k: &a v", "k: *a", "*a: v",
    "k: !!str 1", "k: !x y", "k: [a, b]", "k: {a: 1}", "k: []", "k: {}", "k: [ ]", "k: 'a", "  b'", 'k: "a\\', "k: a",
    "  continued", "k: a # c", "# c", "", "   ", "k:\tv", "\tk: v", "k: v\r", "k: \x85", "\ufeffk: v", "...", "---",
    "--- x", "--- |", "%YAML 1.1", "%TAG ! tag:x,2000:", "<<: {a: 1}", "<<: *a", "k: |", "k: >2", "k: |-", "  |x",
    "k: '<<'", "k: \"\\ud800\"", "k: \"\\x4\"", "k: \"\\q\"", '"k": v', "'k': v", "'k' : v", "k : v", "k:v", "k: v:",
    "k: - x", "k: :x", "k: =", "1: a", "true: b", "~: c", "k: @x", "k: `x", "k: %x", "x" * 1030 + ": v",
    "k: " + "a" * 2000, "k: é", "k: \x01", "k: \x7f", "k: \ud7ff\ue000",
]


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.integers(0, 6)), max_size=14))
def test_random_lines(parts):
    """Valid, invalid and unusual YAML line by line: the same documents and the same message."""
    both("\n".join(" " * ind + frag for frag, ind in parts))


# ------------------------------------------------------------------ messages and bounds


def test_an_error_after_fast_documents_names_the_line_in_the_file():
    text = "a: 1\nb: 2\n---\nc: 3\n---\nkind: Node\nkind: Pod\n"
    stats = both(text)
    assert stats == {"fast": 2, "exact_from": (text.index("---\nkind"), 4)}
    with pytest.raises(Exception, match=r'line 7: duplicate key "kind"'):
        list(iter_yaml_docs(text, "in.yaml", Limits()))


def test_nesting_bound_on_the_fast_path():
    """A block nesting past max_depth: the fast path stops short of the bound and the exact path
    says the bound's message, at the line of the whole file."""
    deep = "".join(" " * i + f"k{i}:\n" for i in range(300)) + " " * 300 + "x: 1\n"
    text = "a: 1\n---\n" + deep
    stats = both(text)
    assert stats["fast"] == 1
    with pytest.raises(Exception, match=r"in.yaml: line 259: nesting deeper than 256 levels"):
        list(iter_yaml_docs(text, "in.yaml", Limits()))
    within = "".join(" " * i + f"k{i}:\n" for i in range(200)) + " " * 200 + "x: 1\n"
    assert both(within)["exact_from"] is None  # read by the fast path, iteratively
    small = Limits(max_depth=3)
    assert both("a:\n  b: 1\n", small)["exact_from"] is None
    for text in ("a:\n  b:\n    c: 1\n", "a:\n  b:\n    c: {}\n", "a:\n- - {}\n"):
        both(text, small)  # at the bound: the exact path decides


def test_document_count_bound_on_the_fast_path():
    text = "a: 1\n---\nb: 2\n---\nc: 3\n---\nd: 4\n"
    limits = Limits(max_documents=3)
    stats = both(text, limits)
    assert stats["fast"] == 3
    with pytest.raises(Exception, match="more than 3 YAML documents"):
        list(iter_yaml_docs(text, "in.yaml", limits))


def test_alias_bomb_after_fast_documents():
    bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for name in "bcdefghi":
        bomb.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
        prev = name
    text = "x: 1\n---\n" + "\n".join(bomb) + "\n"
    assert both(text)["fast"] == 1
    with pytest.raises(Exception, match=r"in.yaml: line 9: aliases expand to more than 1000000 nodes"):
        list(iter_yaml_docs(text, "in.yaml", Limits()))


def test_fast_path_is_linear_in_a_wide_document():
    """Many keys at one level and a long sequence: one pass, no quadratic work (not timed: a
    size the exact path would take seconds over if the fast path re-read lines)."""
    text = "".join(f"k{i}: v{i}\n" for i in range(20000)) + "s:\n" + "".join(f"- {i}\n" for i in range(20000))
    assert both(text)["exact_from"] is None


# ------------------------------------------------------------------ files


def _yaml_files() -> list[Path]:
    found = [p for d in ("scenarios", "examples", "tests/data", "docs") for p in sorted((ROOT / d).rglob("*.y*ml"))]
    assert len(found) > 20
    return found


@pytest.mark.parametrize("path", _yaml_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_bundled_files_read_the_same(path):
    both(path.read_text(encoding="utf-8"))


@pytest.mark.slow  # a 50-node snapshot read twice (seconds)
def test_bench_snapshot_read_by_the_fast_path(tmp_path):
    from bench import generate

    files = generate.generate(50, 3, 1, ["yaml"], tmp_path)
    data = Path(files["yaml"]).read_bytes()
    text = data.decode()
    stats = both(text)
    assert stats["exact_from"] is None and stats["fast"] > 1800
    assert list(iter_bytes(data, "x.yaml", Limits())) == list(iter_yaml_docs(text, "x.yaml", Limits(), fast=False))


@pytest.mark.parametrize("bad", ["\x01", "\x7f", "\ufffe", "é\x0b"])
def test_a_character_libyaml_rejects_leaves_the_stream_to_it(bad):
    """libyaml's reader rejects it ahead of the parser, by offset: the whole stream is its."""
    text = "a: 1\n---\nb: 2\n" * 100 + f"---\nc: '{bad}'\n"
    assert both(text) == {"fast": 0, "exact_from": (0, 0)}


def test_a_tab_stops_the_fast_path_at_its_document():
    text = "a: 1\n---\nb: 2\n---\nc:\td\n---\ne: 3\n"
    assert both(text) == {"fast": 2, "exact_from": (text.index("---\nc"), 3)}
