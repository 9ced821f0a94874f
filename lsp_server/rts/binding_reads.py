"""Which binding units (``rts.bindings``) of the modules a test depends on it reads.

``UnitAttribution`` knows what a test ran; this part follows the names that code read to
the units binding them (closed over what those bindings read at import), adds the bodies
and docstrings the test may see (``rts.lookups``) and the ``NAMES`` units. It runs once
per test: what does not depend on the test (a module's every unit but the bodies, a
header's body and docstring, the names a module hands to library code) is computed once
per session.
"""

from __future__ import annotations

from collections.abc import Callable

from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.lookups import BODY_READS, DOC_READS
from lsp_server.rts.reads import EVERY_NAME, NAMES
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.units import (
    DOC,
    MODULE,
    FileUnits,
    Unit,
    body_name,
    bound_name,
    doc_name,
    header_name,
)

_NO_PARTS = (-1, -1, "")


class BindingReads:
    """Session caches for ``read``; ``intern`` maps a unit to its small int id and
    ``units`` is the list it indexes."""

    def __init__(
        self,
        states: FileStates,
        resolver: ImportResolver,
        intern: Callable[[Unit], int],
        units: list[Unit],
    ) -> None:
        self.states = states
        self.resolver = resolver
        self._intern = intern
        self._units = units
        # A name -> (path, unit name) of the binding units of every file indexed so far.
        self._bound: dict[str, list[tuple[str, str]]] = {}
        self._indexed: set[str] = set()
        # A module -> the names its foreign calls at import are handed (rts.lookups).
        self._handed: dict[str, frozenset[str]] = {}
        self._handed_unions: dict[frozenset[str], frozenset[str]] = {}
        # A module -> the ids of its units but the bodies (what a lookup by string finds).
        self._by_string: dict[str, frozenset[int]] = {}
        # A header unit's id -> its body's id, its docstring's id, its bound name.
        self._parts: dict[int, tuple[int, int, str]] = {}

    def read(self, ids: frozenset[int], names: set[str], dynamic: bool) -> set[int]:
        """The binding units of the modules ``ids`` depends on that the test reads: those
        of ``names``, of the names the module units and those bindings read at import
        (closed over), of the classes they belong to; every unit of those modules when the
        test looked names up by string. The names read go in as ``NAMES`` units."""
        units = self._units
        paths = {units[i].path for i in ids if units[i].name == MODULE}
        found: set[int] = set()
        pending = set(names)
        for path in paths:
            file_units = self.states.units(path)
            if file_units is None:
                continue
            self._index(path, file_units)
            pending |= file_units.residue_refs
            if dynamic:  # every unit but the bodies: rts.lookups says who sees those
                found |= self._found_by_string(path, file_units)
        for uid in ids:  # what ran: the classes and bindings it belongs to
            unit = units[uid]
            if unit.path in paths and (file_units := self.states.units(unit.path)):
                pending |= file_units.refs.get(unit.name, frozenset())
                owner = file_units.class_of(unit)
                if owner is not None:
                    found.add(self._intern(owner))
                    pending |= file_units.refs.get(owner.name, frozenset())
        seen: set[str] = set()
        while pending:
            name = pending.pop()
            seen.add(name)
            for path, unit_name in self._bound.get(name, ()):
                if path in paths:
                    found.add(self._intern(Unit(path, unit_name)))
                    file_units = self.states.units(path)
                    assert file_units is not None
                    pending |= file_units.refs.get(unit_name, frozenset()) - seen
            pending -= seen
        found.update(self._intern(Unit(NAMES, name)) for name in seen)
        if dynamic:
            found.add(self._intern(Unit(NAMES, EVERY_NAME)))
        code, docs = not BODY_READS.isdisjoint(seen), not DOC_READS.isdisjoint(seen)
        self._add_bodies(found, paths, code, docs)
        return found

    def _found_by_string(self, path: str, file_units: FileUnits) -> frozenset[int]:
        cached = self._by_string.get(path)
        if cached is None:
            # Bodies and docstrings: what code a test ran and which docstrings it read by
            # name say who sees those (as before docstrings had units of their own).
            sums = file_units.checksums
            cached = frozenset(
                self._intern(u)
                for u in file_units.units()
                if header_name(u.name) not in sums and not u.name.endswith(DOC)
            )
            self._by_string[path] = cached
        return cached

    def _add_bodies(self, found: set[int], paths: set[str], code: bool, docs: bool) -> None:
        """The bodies and docstrings of the functions whose headers are in ``found`` that
        the test may see: every docstring when it read docstrings, every body and docstring
        when it read code, else those of the functions handed to library code at import by
        a module it depends on."""
        key = frozenset(paths)
        handed = self._handed_unions.get(key)
        if handed is None:
            handed = frozenset().union(*map(self._handed_names, paths))
            self._handed_unions[key] = handed
        added: list[int] = []
        for uid in found:
            body, doc, name = self._parts_of(uid)
            if body < 0:
                continue
            whole = code or name in handed
            if whole:
                added.append(body)
            if whole or docs:
                added.append(doc)
        found.update(added)

    def _parts_of(self, uid: int) -> tuple[int, int, str]:
        parts = self._parts.get(uid)
        if parts is None:
            unit = self._units[uid]
            body = body_name(unit.name)
            parts = _NO_PARTS
            if body is not None:
                parts = (
                    self._intern(Unit(unit.path, body)),
                    self._intern(Unit(unit.path, doc_name(body))),
                    bound_name(unit.name) or "",
                )
            self._parts[uid] = parts
        return parts

    def _handed_names(self, path: str) -> frozenset[str]:
        cached = self._handed.get(path)
        if cached is not None:
            return cached
        file_units = self.states.units(path)
        names: set[str] = set()
        if file_units is not None:
            for roots, reads in file_units.call_sites:
                if not all(self._is_project_name(path, file_units, root) for root in roots):
                    names |= reads
        self._handed[path] = frozenset(names)
        return self._handed[path]

    def _is_project_name(self, path: str, file_units: FileUnits, name: str) -> bool:
        """Whether calling ``name`` at the top of ``path`` runs project code (traced)."""
        module = file_units.import_origins.get(name)
        if module is None:
            return False  # a builtin, or a name assigned from anything
        return module.startswith(".") or self.resolver.is_project_module(path, module)

    def _index(self, path: str, file_units: FileUnits) -> None:
        if path not in self._indexed:
            self._indexed.add(path)
            for name, unit_names in file_units.bound.items():
                self._bound.setdefault(name, []).extend((path, u) for u in unit_names)
