"""The reference numbers of E's objects during capture, and the proxy T holds for each.

A number stays with its object while the object lives, so an object E hands over twice is the
same reference twice. The recorder holds neither the object nor its proxy: T's proxy holds
the object, so an object T drops dies when it would have in the plain run. A sqlite cursor
not read to the end, kept alive, keeps its statement running, and ``DROP TABLE`` then fails
with "database table is locked" in the capture only. Objects that take no weak reference are
kept for the whole capture (their ids must stay unique).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

P = TypeVar("P")


class EObjects(Generic[P]):
    """Number -> E's live object's proxy (made by ``make(number, object)`` when T needs one)."""

    def __init__(self, make: Callable[[int, Any], P]) -> None:
        self._make = make
        self._numbers: dict[int, int] = {}
        """id of a live E object -> its number (dropped when the object dies)."""
        self._deaths: dict[int, weakref.ref[Any]] = {}
        self._immortal: list[Any] = []
        self._proxies: dict[int, Callable[[], P | None]] = {}
        self._count = 0

    def known(self, value: Any) -> int | None:
        """The number of ``value`` if it is a live E object numbered already."""
        return self._numbers.get(id(value))

    def number(self, value: Any) -> tuple[int, bool]:
        """The number of E's object ``value``, and whether it is new."""
        key = id(value)
        number = self._numbers.get(key)
        if number is not None:
            return number, False
        self._count += 1
        number = self._numbers[key] = self._count
        self._proxies[number] = _no_proxy
        try:
            self._deaths[number] = weakref.ref(value, self._forget(key, number))
        except TypeError:
            self._immortal.append(value)
        return number, True

    def proxy(self, number: int, value: Any) -> P:
        """T's proxy for E's object ``value`` under ``number``: the one T holds, if any (the
        same object twice is the same proxy), else a new one."""
        proxy = self._proxies[number]()
        if proxy is None:  # T never had one, or dropped it and E hands the object over again
            proxy = self._make(number, value)
            self._proxies[number] = weakref.ref(proxy)
        return proxy

    def _forget(self, key: int, number: int) -> Callable[[Any], None]:
        def died(_: Any) -> None:  # before the object's memory (and id) is free again
            if self._numbers.get(key) == number:
                del self._numbers[key]
            self._deaths.pop(number, None)

        return died


def _no_proxy() -> None:
    """A number's proxy before T got one: a weak reference that is dead."""
    return None
