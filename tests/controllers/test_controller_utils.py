"""planner/controllers/controller_utils.py's name and uid generators against their plain forms:
object_uid is uuid.uuid5 formatted from the digest, generate_name's suffix hashes
``<stem>/<counter>`` with FNV-1a continued from the stem's hash."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.controllers.controller_utils import generate_name, object_uid
from planner.revision import SAFE_ALPHANUMS, fnv32a

text = st.text(min_size=0, max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["Pod", "ReplicaSet", "PersistentVolumeClaim"]), text, text, text)
def test_object_uid_is_uuid5(kind: str, namespace: str, name: str, created: str) -> None:
    want = str(uuid.uuid5(uuid.NAMESPACE_URL, f"planner-controllers:{kind}/{namespace}/{name}/{created}"))
    assert object_uid(kind, namespace, name, created) == want


def _plain_name(prefix: str, taken: set[str]) -> str:
    """GenerateName as generate_name documents it, hashing the whole ``<stem>/<i>`` each time."""
    base = prefix[:58]
    stem = prefix[:-1] if prefix.endswith("-") else prefix
    i = 0
    while True:
        h = fnv32a(f"{stem}/{i}".encode())
        suffix = ""
        for _ in range(5):
            suffix += SAFE_ALPHANUMS[h % len(SAFE_ALPHANUMS)]
            h //= len(SAFE_ALPHANUMS)
        if base + suffix not in taken:
            return base + suffix
        i += 1


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=70).map(lambda s: s + "-"), st.integers(0, 6))
def test_generate_name_is_the_plain_hash(prefix: str, n: int) -> None:
    taken: set[str] = set()
    start = [0]
    for _ in range(n + 1):
        want = _plain_name(prefix, taken)
        assert generate_name(prefix, taken.__contains__, start) == want
        assert generate_name(prefix, taken.__contains__) == want
        taken.add(want)
