"""Which units a test depends on, from what ran and what was opened while it was active.

A test depends on the units of every code object it ran (a function's unit, the units
enclosing it, its module), on every non-Python project file it opened, on the module parts
of its file's static import closure and conftests, on what ran while its file was
collected, and on the import footprint of every module it depends on (what ran while that
module's top level ran). Units are interned as small ints: hashing a ``Unit`` (a
dataclass) runs Python code, and a test depends on hundreds of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType

import pytest

from lsp_server.project.files import ProjectPaths, is_python
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.tracing import CodeSet, CodeTracer
from lsp_server.rts.units import FILE, MODULE, ImportStatement, Unit


@dataclass
class Window:
    """What ran and what was opened while one test, fixture setup or collection was active."""

    codes: CodeSet = field(default_factory=dict)
    files: set[str] = field(default_factory=set)

    def update(self, other: Window) -> None:
        self.codes.update(other.codes)
        self.files |= other.files


class UnitAttribution:
    """Turns windows into units; every cache lives as long as the pytest session."""

    def __init__(self, root: Path, paths: ProjectPaths, states: FileStates) -> None:
        self.root = root
        self.paths = paths
        self.states = states
        self.resolver = ImportResolver(root, self._imports_of)
        # What ran while each collector (by path) collected: its tests depend on it.
        self.collection_windows: dict[str, Window] = {}
        self._unit_ids: dict[Unit, int] = {}
        self._units: list[Unit] = []
        self.paths_seen: set[str] = set()  # of every interned unit
        # By id(code): see lsp_server.rts.tracing. The code objects are kept in _codes so
        # that an id is never reused while it is a key.
        self._code_units: dict[int, tuple[int, ...]] = {}
        self._codes: list[CodeType] = []
        self._static_cache: dict[object, frozenset[int]] = {}
        self._footprints: dict[int, frozenset[int]] = {}
        self._footprint_unions: dict[frozenset[int], frozenset[int]] = {}

    def units_of_test(
        self, item: pytest.Item, window: Window, tracer: CodeTracer
    ) -> tuple[Unit, ...]:
        """Every unit the test ``item`` depends on, given what ran in its ``window``."""
        code_units = self._code_units
        codes = window.codes
        for key in set(codes).difference(code_units):
            self._units_of_code(codes[key])
        # Set operations in C: a test runs hundreds of code objects.
        ids = self._static_units(item).union(
            *map(code_units.__getitem__, codes), self._file_ids(window.files)
        )
        self._absorb_footprints(tracer)
        if self._footprints:
            hits = ids.intersection(self._footprints)
            if hits:
                ids = ids.union(self._footprints_of(hits))
        return tuple(map(self._units.__getitem__, ids))

    def _imports_of(self, rel: str) -> list[ImportStatement] | None:
        units = self.states.units(rel)
        return None if units is None else units.imports

    def _intern(self, unit: Unit) -> int:
        uid = self._unit_ids.get(unit)
        if uid is None:
            uid = self._unit_ids[unit] = len(self._units)
            self._units.append(unit)
            self.paths_seen.add(unit.path)
        return uid

    def _units_of_code(self, code: CodeType) -> tuple[int, ...]:
        cached = self._code_units.get(id(code))
        if cached is not None:
            return cached
        rel = self.paths.python_rel(code.co_filename)
        units: tuple[Unit, ...] = ()
        if rel is not None:
            module = Unit(rel, MODULE)
            file_units = self.states.units(rel)
            if file_units is None or (found := file_units.unit_for_code(code)) == module:
                units = (module,)
            else:
                units = (found, *file_units.enclosing(found), module)
        ids = tuple(self._intern(u) for u in units)
        self._code_units[id(code)] = ids
        self._codes.append(code)
        return ids

    def _static_units(self, item: pytest.Item) -> frozenset[int]:
        """Module parts of the test file's import closure and its conftests, plus the
        docstring's unit for doctests."""
        dtest = getattr(item, "dtest", None)
        key = (str(item.path), None if dtest is None else (dtest.filename, dtest.lineno))
        cached = self._static_cache.get(key)
        if cached is None:
            ids = {self._intern(u) for u in self._compute_static_units(item)}
            ids.update(self._collection_units(Path(item.path)))
            cached = frozenset(ids)
            self._static_cache[key] = cached
        return cached

    def _collection_units(self, path: Path) -> set[int]:
        """What ran and was opened while collecting ``path`` and its parent directories."""
        ids: set[int] = set()
        for candidate in (path, *path.parents):
            window = self.collection_windows.get(str(candidate))
            if window is not None:
                for code in window.codes.values():
                    ids.update(self._units_of_code(code))
                ids.update(self._file_ids(window.files))
            if candidate == self.root:
                break
        return ids

    def _file_ids(self, filenames: set[str]) -> set[int]:
        ids = set()
        for filename in filenames:
            rel = self.paths.rel(filename)
            if rel is not None and not rel.endswith((".py", ".pyc", ".pyo")):
                ids.add(self._intern(Unit(rel, FILE)))
        return ids

    def _compute_static_units(self, item: pytest.Item) -> set[Unit]:
        units: set[Unit] = set()
        rel = self.paths.rel(str(item.path))
        if rel is None:
            return units
        # Conftests count for non-Python test files too: their hooks collect them.
        for conftest in self.resolver.conftests(rel):
            units.update(Unit(f, MODULE) for f in self.resolver.closure(conftest))
        if not is_python(rel):
            units.add(Unit(rel, FILE))
        else:
            units.update(Unit(f, MODULE) for f in self.resolver.closure(rel))
        dtest = getattr(item, "dtest", None)
        if dtest is not None and dtest.filename:
            doc_rel = self.paths.rel(dtest.filename)
            if doc_rel is not None and is_python(doc_rel):
                file_units = self.states.units(doc_rel)
                if file_units is not None and dtest.lineno is not None:
                    units.add(file_units.unit_at_line(dtest.lineno + 1))
                units.add(Unit(doc_rel, MODULE))
            elif doc_rel is not None:
                units.add(Unit(doc_rel, FILE))
        return units

    def _absorb_footprints(self, tracer: CodeTracer) -> None:
        """Units of what ran while each project module executed, by the module's unit: a
        test depending on a module also depends on what shaped it at import."""
        for code, codes in tracer.take_footprints():
            rel = self.paths.python_rel(code.co_filename)
            if rel is None:
                continue
            module = self._intern(Unit(rel, MODULE))
            ids: set[int] = set()
            for ran in codes.values():
                ids.update(self._units_of_code(ran))
            ids.discard(module)
            if ids:
                self._footprints[module] = self._footprints.get(module, frozenset()).union(ids)
                self._footprint_unions.clear()

    def _footprints_of(self, modules: frozenset[int]) -> frozenset[int]:
        """The union of the footprints of ``modules``, memoized: the tests of a file mostly
        depend on the same modules."""
        union = self._footprint_unions.get(modules)
        if union is None:
            union = frozenset().union(*map(self._footprints.__getitem__, modules))
            self._footprint_unions[modules] = union
        return union
