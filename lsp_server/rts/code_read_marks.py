"""Marks telling, among the names a test read, which code reads were told as they ran and
which were not (``rts.told_code_reads``), for the code of a test's window and for the code
that ran at a module's import (its footprint, shared by every test depending on it).

A code-read name ``n`` read by told code gets its ``TOLD`` twin, and the units of what was
read; read by code not told (a string computed at run time, a statement at collection, a
spelling not told) it gets its ``UNTOLD_MARK`` twin. ``names_read.NamesRead.flags`` skips
``n`` only with the first and without the second: the marks of several footprints and of
the window are merged, and one untold read anywhere keeps the wide reading.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from types import CodeType

from lsp_server.project.files import ProjectPaths
from lsp_server.rts.code_read_targets import TOLD, TOLDABLE, UNTOLD_MARK
from lsp_server.rts.code_read_units import code_read_units
from lsp_server.rts.code_shape_reads import shape_units
from lsp_server.rts.file_units import Unit
from lsp_server.rts.identity import identity
from lsp_server.rts.lookup_sites import shadowed
from lsp_server.rts.runtime_lookups import RuntimeLookups
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.told_code_reads import may_read_code, told_reads


class CodeReadMarks:
    """``marks`` for one session: ``names_of`` gives the names each code object reads."""

    def __init__(
        self,
        lookups: RuntimeLookups,
        names_of: Callable[[CodeType], Set[str]],
        paths: ProjectPaths,
        states: FileStates,
        intern: Callable[[Unit], int],
    ) -> None:
        self._lookups = lookups
        self._names_of = names_of
        self._paths = paths
        self._states = states
        self._intern = intern
        # By identity: every code object read stays alive in ``CodeReads.functions``.
        self._by_code: dict[int, frozenset[int]] = {}
        self._by_shape: dict[int, frozenset[int]] = {}
        self._by_file: dict[str, frozenset[int]] = {}
        # Code objects by identity, classified once: those that may read code, and all
        # (``_readers_among``).
        self._readers: set[int] = set()
        self._classified: set[int] = set()

    def marks(
        self,
        codes: Mapping[int, CodeType],
        names: Set[str],
        untold: Set[str],
        module: CodeType | None = None,
    ) -> tuple[set[str], set[int]]:
        """The marks of the code-read names among ``names`` (read by the code objects
        ``codes``) and ``untold`` (read otherwise), and the units what ``codes`` read
        shows; ``module``: the module whose import ran ``codes`` (``told_reads``)."""
        spelled, other = TOLDABLE.intersection(names), TOLDABLE.intersection(untold)
        # What the code read counts whatever the names: a line reading code counts only
        # where it ran (``rts.read_lines``), and a cache hit borrows code that did not run.
        lookups = self._lookups
        sites = lookups.source_sites if lookups.sources_seen else None
        reads = lookups.code_reads
        readers = self._readers_among(codes)
        found = told_reads(readers, self._names_of, reads, sites, names, self._shadowed, module)
        marks = {UNTOLD_MARK + name for name in other}
        for name in spelled - other:
            marks.add(TOLD + name if TOLD + name in found.twins else UNTOLD_MARK + name)
        functions, files = found.read()
        units = set().union(*map(self._units_of_code, functions), *map(self._units_of_file, files))
        return marks, units.union(*map(self._units_of_shape, found.shapes.values()))

    def _readers_among(self, codes: Mapping[int, CodeType]) -> list[CodeType]:
        """The code objects of ``codes`` (by identity) ``told_reads`` may find a read in:
        those that read or spell a code-read name (``may_read_code``). A test runs
        hundreds of code objects and nearly none reads code: the others are set aside
        once per session, by set operations in C. Both parts of the answer are fixed once
        the attribution has seen the code (``names_of``: its reads and line reads, noted
        once; what it spells, kept by ``CodeReads.spelled``)."""
        classified, readers = self._classified, self._readers
        for key in codes.keys() - classified:
            classified.add(key)
            if may_read_code(codes[key], self._names_of, self._lookups.code_reads):
                readers.add(key)
        return [codes[key] for key in readers.intersection(codes)]

    def _units_of_code(self, code: CodeType) -> frozenset[int]:
        """``code_read_units`` of the code object ``code``, kept by identity."""
        key = identity(code)
        found = self._by_code.get(key)
        if found is None:
            found = frozenset(code_read_units([code], (), self._states, self._paths, self._intern))
            self._by_code[key] = found
        return found

    def _units_of_shape(self, code: CodeType) -> frozenset[int]:
        """What a read of the shape of the code object ``code`` shows
        (``code_shape_reads.shape_units``; a module's code: ``_units_of_code``)."""
        key = identity(code)
        found = self._by_shape.get(key)
        if found is None:
            rel = self._paths.python_rel(code.co_filename)
            file_units = None if rel is None else self._states.units(rel)
            names = None if file_units is None else shape_units(file_units, code)
            if rel is None or names is None:
                found = self._units_of_code(code)
            else:
                found = frozenset(self._intern(Unit(rel, name)) for name in names)
            self._by_shape[key] = found
        return found

    def _units_of_file(self, filename: str) -> frozenset[int]:
        """``code_read_units`` of the file ``filename`` whose source was read."""
        found = self._by_file.get(filename)
        if found is None:
            units = code_read_units((), [filename], self._states, self._paths, self._intern)
            found = self._by_file[filename] = frozenset(units)
        return found

    def _shadowed(self, code: CodeType) -> bool:
        """Whether the module of ``code`` may bind ``getattr`` or ``hasattr`` (it spells)
        to something else than the builtin (``lookup_sites.shadowed``)."""
        rel = self._paths.python_rel(code.co_filename)
        units = None if rel is None else self._states.units(rel)
        return units is None or shadowed(code, units.bound, units.import_origins)
