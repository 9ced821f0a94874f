"""A test's units as small ints into the session's table of interned units.

``UnitAttribution`` interns every unit it meets and works on sets of ids; a test depends
on hundreds of units (1,250 on marshmallow), most of them the same for every test. Given
the ids and the table, the store translates each interned unit to its own id once per
session (``InternedIds``) instead of hashing every unit of every test, and the batch's
files come from each answer's ``paths`` instead of every unit's path.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from lsp_server.rts.file_units import Unit


@dataclass(frozen=True, eq=False)
class InternedUnits:
    """The units ``ids`` index in ``table`` (the attribution's list, which only grows),
    and the files they lie in. Iterating gives the units."""

    ids: frozenset[int]
    table: Sequence[Unit]
    paths: frozenset[str]

    def __iter__(self) -> Iterator[Unit]:
        return map(self.table.__getitem__, self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, unit: object) -> bool:
        return any(unit == u for u in self)


class FileAnswers(dict[tuple[Any, ...], InternedUnits]):
    """``UnitAttribution``'s answers by their keys, whose second item is the test's file:
    only the answers of the last file a test was recorded in are kept. A file's tests run
    together, so another file's key never comes again, and each answer kept (a thousand
    ids) is one more object for every full garbage collection of the project's session
    to visit (jinja: 1.1 s of collections recording, 0.16 s plain)."""

    def __setitem__(self, key: tuple[Any, ...], answer: InternedUnits) -> None:
        if self and next(iter(self))[1] != key[1]:
            self.clear()
        super().__setitem__(key, answer)


class InternedIds:
    """The store ids of one table's units by table index; ``UNTRANSLATED`` where a unit
    was not asked for yet (only a test's own units are translated: the store creates a
    unit row once its file is synced)."""

    UNTRANSLATED = -1  # store ids start at 1

    def __init__(self, table: Sequence[Unit]) -> None:
        self.table = table
        self.ids: list[int] = []
        # The table indices still ``UNTRANSLATED``: whether a test needs a translation is
        # then one set operation in C, not a loop over its ~1,000 ids (a second session
        # starts with nothing translated and asks it of every test).
        self._pending: set[int] = set()
        # Translations of whole answers: the attribution hands the same answer to every
        # test with the same inputs (parametrized cases), and a translated id never moves.
        self._answers: WeakKeyDictionary[InternedUnits, frozenset[int]] = WeakKeyDictionary()

    def of_units(self, units: InternedUnits) -> frozenset[int]:
        """``of(units.ids)``, kept for ``units`` once none is ``UNTRANSLATED``."""
        found = self._answers.get(units)
        if found is None:
            found = self.of(units.ids)
            if not self._pending or self._pending.isdisjoint(units.ids):
                self._answers[units] = found
        return found

    def of(self, ids: frozenset[int]) -> frozenset[int]:
        """The store ids at ``ids``, ``UNTRANSLATED`` among them when one is missing."""
        self._grow()
        return frozenset(map(self.ids.__getitem__, ids))

    def untranslated(self, ids: frozenset[int]) -> list[int]:
        """The indices among ``ids`` not translated yet (in C: most tests of a first
        session bring a few new units among a thousand)."""
        self._grow()
        pending = self._pending
        if not pending or pending.isdisjoint(ids):
            return []
        return list(pending.intersection(ids))

    def translated(self, indices: Sequence[int], uids: Sequence[int]) -> None:
        """Set the store ids ``uids`` of the table indices ``indices``."""
        for index, uid in zip(indices, uids, strict=True):
            self.ids[index] = uid
        self._pending.difference_update(indices)

    def _grow(self) -> None:
        known, size = len(self.ids), len(self.table)
        if known < size:  # the attribution interned more units since
            self.ids.extend([self.UNTRANSLATED] * (size - known))
            self._pending.update(range(known, size))
