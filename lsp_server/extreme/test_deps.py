"""What each test's original run depends on (``state.run_deps`` of the units it ran), kept
as a bit set over one index of units, so that the union over a function's covering tests
(its state entry, ``state.entry``) is a few integer ORs. Joining the tests' Python sets was
most of planning tomlkit's analysis: 39 functions, ~90 covering tests each, hundreds of
units per test, while every worker waited for the plan."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lsp_server.extreme.state import run_deps

_BITS = [tuple(bit for bit in range(8) if byte >> bit & 1) for byte in range(256)]
"""The set bits of each byte value, lowest first."""


class TestDeps:
    """The dependencies of the tests of an observation (``tests``: node id -> what the
    original run recorded, its ``units`` among it), each computed once."""

    __test__ = False  # not a test class, whatever its name

    def __init__(self, tests: Mapping[str, Mapping[str, Any]]) -> None:
        self._tests = tests
        self._index: dict[str, int] = {}
        self._names: list[str] = []
        self._masks: dict[str, int] = {}

    def union(self, runners: Iterable[str]) -> set[str]:
        """``run_deps`` of every unit the ``runners`` ran, together (``run_deps`` of a
        union is the union of each part's)."""
        mask = 0
        for nodeid in runners:
            mask |= self._mask(nodeid)
        data = mask.to_bytes((mask.bit_length() + 7) // 8, "little")
        names = self._names
        return {
            names[offset * 8 + bit]
            for offset, byte in enumerate(data)
            if byte
            for bit in _BITS[byte]
        }

    def _mask(self, nodeid: str) -> int:
        mask = self._masks.get(nodeid)
        if mask is None:
            mask = 0
            for unit in run_deps(self._tests[nodeid]["units"]):
                at = self._index.get(unit)
                if at is None:
                    at = self._index[unit] = len(self._names)
                    self._names.append(unit)
                mask |= 1 << at
            self._masks[nodeid] = mask
        return mask
