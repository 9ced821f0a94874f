"""Per unit id, the names only its class's dunders' annotations read (``FileUnits.noted``),
for ``BindingReads._close_noted``.

Each test asked every unit it depends on (thousands on jinja) for its noted names, through
its file's units, although a unit's answer never changes in a session (the file states do
not: ``BindingReads`` keeps each unit's split the same way). Asked once per unit here, a
test picks the few units that have some with a set operation in C."""

from __future__ import annotations

from collections.abc import Set

from lsp_server.rts.file_units import Unit
from lsp_server.rts.snapshots import FileStates

Split = tuple[frozenset[str], ...]


class NotedSplits:
    """``units``: the interned units, indexed by id (``UnitAttribution._units``)."""

    def __init__(self, states: FileStates, units: list[Unit]) -> None:
        self._states = states
        self._units = units
        self._asked: set[int] = set()
        # Of the units asked, those with noted names: id -> (top-level class name, path,
        # (read anywhere, read only as the module's globals)).
        self._found: dict[int, tuple[str, str, Split]] = {}
        self._kept: dict[tuple[frozenset[int], frozenset[str] | None], list[tuple[str, Split]]] = {}

    def among(self, uids: Set[int], handed: frozenset[str] | None) -> list[tuple[str, Split]]:
        """(path, split) of the units among ``uids`` whose class's dunders' annotations
        read names; only of classes among ``handed`` (None: any class)."""
        for uid in uids - self._asked:
            self._ask(uid)
        found = self._found
        return [
            (path, split)
            for uid in found.keys() & uids
            for owner, path, split in (found[uid],)
            if handed is None or owner in handed
        ]

    def among_kept(
        self, uids: frozenset[int], handed: frozenset[str] | None
    ) -> list[tuple[str, Split]]:
        """``among``, kept for ``uids`` (a followed base's units: the same set for every
        test of a file)."""
        key = (uids, handed)
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = self.among(uids, handed)
        return list(found)

    def _ask(self, uid: int) -> None:
        self._asked.add(uid)
        unit = self._units[uid]
        file_units = self._states.units(unit.path)
        if file_units is None or not (noted := file_units.noted.get(unit.name)):
            return
        own = file_units.own_globals(noted)
        self._found[uid] = (unit.name.split(".", 1)[0], unit.path, (noted - own, own))
