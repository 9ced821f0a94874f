"""Cutting the units of a batch's tests of one file into parts that several tests share.

The tests of a file share a *base* (``depsets``: units every one of them depends on), but
what is left often overlaps too: on typeguard, the tests of ``test_typechecked.py`` each
depend on ~2,600 units besides the base, nearly the same ones, and storing each test's
remainder whole wrote 525,000 rows for 529 tests, a quarter of the recording run. Cut into
the parts held by exactly the same tests, each part is stored once and each test links to
the parts it holds (37,000 rows and 2,700 links on the same recording).

A part is worth a set of its own only when storing it once and linking it to its holders
costs fewer rows than copying it into each holder's own set; the rest goes to the holders'
own sets. Each test's sets stay disjoint and their union is exactly its units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_PARTS = 1_000
"""Past this many parts in one batch the cut is dropped (each test keeps its remainder
whole, as before): refining costs a Python step per part and test, and units that many
tests hold in that many different combinations share little anyway."""


@dataclass(frozen=True)
class SharedParts:
    """The sets to store for a batch: ``shared[i]`` is a part held by the tests at the
    indices ``holders[i]``; ``own[t]`` what test ``t`` holds alone (or in parts too small
    to share)."""

    shared: list[frozenset[int]]
    holders: list[list[int]]
    own: list[frozenset[int]]


def _refine(unit_sets: Sequence[frozenset[int]]) -> list[tuple[frozenset[int], list[int]]] | None:
    """The union of ``unit_sets`` as parts of units held by the same sets (by index), or
    None past ``MAX_PARTS``. Set operations in C; a Python step per part and set."""
    parts: list[tuple[frozenset[int], list[int]]] = []
    seen: set[int] = set()  # the union of the parts so far
    for index, units in enumerate(unit_sets):
        refined: list[tuple[frozenset[int], list[int]]] = []
        for part, holders in parts:
            inside = part & units
            if not inside:
                refined.append((part, holders))
                continue
            refined.append((inside, [*holders, index]))
            if len(inside) != len(part):
                refined.append((part - inside, holders))
        outside = units - seen
        if outside:
            refined.append((outside, [index]))
            seen |= outside
        if len(refined) > MAX_PARTS:
            return None
        parts = refined
    return parts


def shared_parts(unit_sets: Sequence[frozenset[int]]) -> SharedParts:
    """Cut ``unit_sets`` (disjoint from any base already taken out) into shared parts and
    own remainders: a part of ``n`` units held by ``k`` tests is shared when ``n + k``
    rows (the part, the links) are fewer than the ``n * k`` its copies would take."""
    parts = _refine(unit_sets)
    if parts is None:
        return SharedParts([], [], list(unit_sets))
    shared: list[frozenset[int]] = []
    holders_of: list[list[int]] = []
    own: list[set[int]] = [set() for _ in unit_sets]
    for part, holders in parts:
        if (len(part) - 1) * (len(holders) - 1) > 1:
            shared.append(part)
            holders_of.append(holders)
        else:
            for index in holders:
                own[index] |= part
    return SharedParts(shared, holders_of, [frozenset(units) for units in own])
