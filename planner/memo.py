"""Values remembered per object, by identity.

Frozen domain objects are shared (the pods of one template share their terms; a StatefulSet
object is planned again and again), and some derived values are costly to compute again for each
caller.  ``ByIdentity`` keeps one value per object (and per extra key parts): the object is held
with its value, so its id cannot be reused by another object while the entry lives; the table is
emptied once it reaches its limit."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class ByIdentity(Generic[V]):
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._table: dict[Hashable, tuple[Any, V]] = {}

    def get(self, obj: Any, make: Callable[[], V], *parts: Hashable) -> V:
        """``make()``, or what it made before for this very object (and these ``parts``)."""
        key = (id(obj), *parts)
        hit = self._table.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = make()
        if len(self._table) >= self.limit:
            self._table.clear()
        self._table[key] = (obj, value)
        return value


__all__ = ["ByIdentity"]
