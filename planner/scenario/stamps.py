"""Determinism: uids (UUIDv5 of the scenario name, kind, namespace and name) and creation
timestamps (from 2024-01-01T00:00:00Z, one second per stamp in emission order)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)


class Stamper:
    """The scenario's clock and uid source; one per expansion, shared by every section so that
    timestamps follow the order objects are made in."""

    def __init__(self, name: str) -> None:
        self.name = name  # the scenario's name (or its source), seeding the uids
        self.clock = 0

    def uid(self, kind: str, namespace: str, name: str) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"planner-scenario:{self.name}/{kind}/{namespace}/{name}"))

    def now(self) -> str:
        t = BASE_TIME + timedelta(seconds=self.clock)
        self.clock += 1
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    def meta(self, kind: str, name: str, namespace: str | None = None) -> dict:
        """metadata with name, namespace, uid and creationTimestamp (the next tick)."""
        md: dict[str, Any] = {"name": name}
        if namespace is not None:
            md["namespace"] = namespace
        md["uid"] = self.uid(kind, namespace or "", name)
        md["creationTimestamp"] = self.now()
        return md
