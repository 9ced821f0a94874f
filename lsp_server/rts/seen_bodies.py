"""The bodies, default values and docstrings of the definitions a test depends on that it
may see.

A test that depends on a function's header (``rts.bindings``) sees its body only when it
ran it (its own unit, ``rts.function_units``), read code (``lookups.BODY_READS``), or when a
module it depends on handed the function to library code at import (which may run it or
read its code untraced); it sees its default values when it read signatures
(``lookups.SIGNATURE_READS``) too, and its docstring when it read docstrings
(``lookups.DOC_READS``) too. The body unit holds the default values: code reads and
library code see them with it. A test that read code depends on every unit of the files of
its modules besides: a module's source shows every statement of it, named by the test or
not, and a function's code object its line in the file, which any line added above moves.
Where the code reads were told as the test ran (``rts.told_code_reads``), their names do
not count here: the test depends on what was read instead (``rts.code_read_units``).
"""

from __future__ import annotations

from collections.abc import Callable, Set
from itertools import chain

from lsp_server.rts.code_read_units import file_units_read
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.names_read import PartsRead
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.unit_names import (
    body_name,
    bound_name,
    defaults_name,
    doc_name,
)
from lsp_server.rts.wrapping_builtins import only_keeps

_NO_PARTS = (-1, -1, -1, "")
_SharedKey = tuple[frozenset[int], frozenset[str], PartsRead]
_Adds = dict[int, tuple[int, ...]]  # a unit's id -> the ids of the parts it adds


class SeenBodies:
    """Session caches for ``add``; ``intern`` maps a unit to its small int id and
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
        # A module -> the names its foreign calls at import are handed (rts.lookups).
        self._handed: dict[str, frozenset[str]] = {}
        self._handed_unions: dict[frozenset[str], frozenset[str]] = {}
        # A header unit's id -> its body's, its defaults' (-1: none recorded, as in a
        # store written before they had a unit) and its docstring's ids, its bound name.
        self._parts: dict[int, tuple[int, int, int, str]] = {}
        # A class unit's id -> the ids of the default-values units of the methods whose
        # headers it holds (``FileUnits.class_signatures``), and its top-level name.
        self._held: dict[int, tuple[tuple[int, ...], str]] = {}
        # (names handed, parts read) -> what each unit found adds, and the units adding
        # nothing (``_parts_found``).
        self._adds: dict[tuple[frozenset[str], PartsRead], tuple[_Adds, set[int]]] = {}
        # (units shared by many tests, their modules, parts read) -> ``add_beside``.
        self._shared_parts: dict[_SharedKey, frozenset[int]] = {}
        # The paths of a test's modules -> every unit of those files (``_whole_files``).
        self._files_whole: dict[frozenset[str], frozenset[int]] = {}

    def add(self, found: set[int], paths: Set[str], read: PartsRead) -> None:
        """The bodies, default values and docstrings of the functions whose headers are in
        ``found`` (and the docstrings of the plain classes there) that the test may see:
        every docstring when it read docstrings, every default value when it read
        signatures, every body and docstring when it read code (and every other unit of
        the files ``paths``: ``_whole_files``), else those of the functions and classes
        handed to library code at import by a module it depends on."""
        found.update(self._parts_found(found, paths, read))
        if read.code:
            found |= self._whole_files(paths)

    def add_beside(
        self, found: set[int], shared: frozenset[int], paths: frozenset[str], read: PartsRead
    ) -> None:
        """``add``, for a ``found`` that holds the units ``shared`` by many tests (their
        file's imports), maybe less some without parts: the parts of ``shared`` are found
        once per ``paths`` and ``read`` (what ``add`` adds is the union of what each unit
        adds), then only the test's own units are looked at."""
        if not all(self._parts_of(uid)[2] < 0 for uid in shared.difference(found)):
            self.add(found, paths, read)
            return
        key = (shared, paths, read)
        parts = self._shared_parts.get(key)
        if parts is None:
            parts = self._shared_parts[key] = frozenset(self._parts_found(shared, paths, read))
        found.update(self._parts_found(found.difference(shared), paths, read))
        found |= parts
        if read.code:
            found |= self._whole_files(paths)

    def _whole_files(self, paths: Set[str]) -> frozenset[int]:
        """Every unit of the files ``paths``: what reading code may show. A module's source
        (``inspect.getsource(module)``) holds every function and statement of its file, named
        by the test or not, and a function's code object its position there
        (``co_firstlineno``), which any line above it moves."""
        key = frozenset(paths)
        cached = self._files_whole.get(key)
        if cached is None:
            cached = frozenset(file_units_read(key, self.states, self._intern))
            self._files_whole[key] = cached
        return cached

    def _parts_found(
        self, found: set[int] | frozenset[int], paths: Set[str], read: PartsRead
    ) -> list[int]:
        """What ``add`` adds to ``found``."""
        handed = self.handed(paths)
        # What each unit adds depends only on the names handed and the parts read, which
        # most tests share: kept per both, every unit is looked at once (a test's found
        # set holds hundreds of headers that add nothing unless code was read).
        adds, barren = self._adds.setdefault((handed, read), ({}, set()))
        for uid in found.difference(barren, adds):
            parts = self._parts_added(uid, handed, read)
            if parts:
                adds[uid] = parts
            else:
                barren.add(uid)
        return list(chain.from_iterable(map(adds.__getitem__, adds.keys() & found)))

    def handed(self, paths: Set[str]) -> frozenset[str]:
        """The names the modules ``paths`` hand to library code at import."""
        key = frozenset(paths)
        handed = self._handed_unions.get(key)
        if handed is None:
            handed = frozenset().union(*map(self._handed_names, paths))
            self._handed_unions[key] = handed
        return handed

    def _parts_added(self, uid: int, handed: frozenset[str], read: PartsRead) -> tuple[int, ...]:
        """The parts of unit ``uid`` a test sees that read ``read`` and depends on modules
        handing the names ``handed`` to library code."""
        held, top = self._held_signatures(uid)
        shown = held if held and (read.signatures or read.code or top in handed) else ()
        body, defaults, doc, name = self._parts_of(uid)
        if doc < 0:
            return shown
        whole = read.code or name in handed
        added: list[int] = [*shown]
        if whole and body >= 0:
            added.append(body)
        if read.signatures and defaults >= 0:
            added.append(defaults)
        if whole or read.docs:
            added.append(doc)
        return tuple(added)

    def _parts_of(self, uid: int) -> tuple[int, int, int, str]:
        parts = self._parts.get(uid)
        if parts is None:
            unit = self._units[uid]
            body = body_name(unit.name)
            parts = _NO_PARTS
            if body is not None:
                parts = (
                    self._intern(Unit(unit.path, body)),
                    self._own_unit(unit.path, defaults_name(body)),
                    self._intern(Unit(unit.path, doc_name(body))),
                    bound_name(unit.name) or "",
                )
            elif unit.name in self._classes(unit.path):  # a plain class's docstring
                parts = (-1, -1, self._own_unit(unit.path, doc_name(unit.name)), unit.name)
            self._parts[uid] = parts
        return parts

    def _held_signatures(self, uid: int) -> tuple[tuple[int, ...], str]:
        """The default values and annotations a class unit leaves to its methods' units
        (``FileUnits.class_signatures``): a signature of the class shows them, and a
        library handed the class may read one."""
        held = self._held.get(uid)
        if held is None:
            unit = self._units[uid]
            file_units = self.states.units(unit.path)
            names = file_units.class_signatures.get(unit.name, ()) if file_units else ()
            ids = tuple(self._intern(Unit(unit.path, name)) for name in names)
            held = self._held[uid] = (ids, unit.name.split(".", 1)[0])
        return held

    def _classes(self, path: str) -> Set[str]:
        file_units = self.states.units(path)
        return file_units.classes.keys() if file_units is not None else frozenset()

    def _own_unit(self, path: str, name: str) -> int:
        """The id of unit ``name`` of ``path``; -1 when the file has none (rts.bindings)."""
        file_units = self.states.units(path)
        if file_units is None or name not in file_units.checksums:
            return -1
        return self._intern(Unit(path, name))

    def _handed_names(self, path: str) -> frozenset[str]:
        cached = self._handed.get(path)
        if cached is not None:
            return cached
        file_units = self.states.units(path)
        names: set[str] = set()
        if file_units is not None:
            for roots, reads in file_units.call_sites:
                if not all(
                    self._is_project_name(path, file_units, root) or only_keeps(file_units, root)
                    for root in roots
                ):
                    names |= reads
        self._handed[path] = frozenset(names)
        return self._handed[path]

    def _is_project_name(self, path: str, file_units: FileUnits, name: str) -> bool:
        """Whether calling ``name`` at the top of ``path`` runs project code (traced)."""
        module = file_units.import_origins.get(name)
        if module is None:
            return False  # a builtin, or a name assigned from anything
        return module.startswith(".") or self.resolver.is_project_module(path, module)
