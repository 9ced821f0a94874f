"""The layout units (``rts.layout_unit``) a test reading line numbers or source text
(``names_read.PartsRead.lines``) depends on: the places of the code whose positions it can
observe.

Positions reach a test from a frame, a traceback, a warning, a log record, a code object:
each of code that ran. So a test whose code read lines as it ran depends on the ``LINES``
unit of each function it ran (its first line and inner layout), and on the file's
``LAYOUT`` where module code or a class body ran while it was active (an import, a class
statement in the test). A module's import may have kept the positions of what ran then:
where its own statements spell a line read, a test depending on it depends on its
``LAYOUT``; where code its import ran read line numbers (its footprint,
``rts.import_footprints``), on its ``LAYOUT`` and the ``LINES`` units of the functions
that ran then, and on no other place (``ran_reads_lines``: typeguard be72808, where
``@typechecked`` read lines at the import of a dummy module and 311 tests depended on the
places of every function they ran later). What a code object or a source read by the
test shows is not here: a told read shows its own ``LINES`` unit
(``rts.code_read_units``), an untold one every unit of its files (``rts.seen_bodies``),
their layouts with them.

A function that did not run shows no position: a line above it moves nothing a test
reading the lines of others sees, so an edit in a file reruns only the line readers that
ran a function below it.

A test that read no source text (``names_read.PartsRead.text``: line numbers alone, a
frame's, a warning's, an exception's ``lineno``) depends on the twins of those units
without comments' text (``PLACES``, ``PLACED``): a comment edit that moves no line reruns
only the tests reading source text (toolz 19edc08, a comment typo; tomli 871f2c1, a
``# noqa`` dropped off a ``def`` line).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Set
from inspect import CO_NEWLOCALS
from types import CodeType

from lsp_server.project.files import ProjectPaths
from lsp_server.rts.file_units import Unit
from lsp_server.rts.lookups import LINE_READS
from lsp_server.rts.names_read import NamesRead
from lsp_server.rts.new_keys import new_keys
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.unit_names import (
    LAYOUT,
    MODULE,
    PLACES,
    body_name,
    lines_name,
    places_name,
)


def ran_reads_lines(
    codes: Mapping[int, CodeType], names: Set[str], globals_read: Iterable[tuple[str, Set[str]]]
) -> bool:
    """Whether what ran during a test may have read the places of the functions it ran:
    its code spelled a line read (``names``: what that code read, and the marks of its
    told code reads; ``globals_read``: (module, names) it read as its module's globals),
    or module code or a class body ran then (their reads are their statements', and a
    module imported by the test may read the line of its caller). Line numbers read only
    while a module was imported saw what was on the stack then: its own footprint's places
    (``PositionUnits.of_imports``), never a function the test ran later."""
    if any(not code.co_flags & CO_NEWLOCALS for code in codes.values()):
        return True
    spelled = set(names).union(*(read for _, read in globals_read))
    return NamesRead(spelled, {}).flags().lines


class PositionUnits:
    """Session caches for the units placing what ran; ``intern`` maps a unit to its id.
    With ``text``, the units with comments (``LAYOUT``, ``LINES``), for tests that read
    source text; else their twins without (``PLACES``, ``PLACED``)."""

    def __init__(
        self,
        paths: ProjectPaths,
        states: FileStates,
        intern: Callable[[Unit], int],
        text: bool = True,
    ) -> None:
        self._paths = paths
        self._states = states
        self._intern = intern
        self._whole_file, self._function_name = (
            (LAYOUT, lines_name) if text else (PLACES, places_name)
        )
        # By identity(code), of the code objects the caller keeps alive; -1: none.
        self._by_code: dict[int, int] = {}
        self._by_module: dict[tuple[int, int], frozenset[int]] = {}  # (module, ids' size)
        # Module units whose statements read line numbers -> their ``LAYOUT``'s id; the
        # unit ids looked at for that.
        self._statement_readers: dict[int, int] = {}
        self._looked_at: set[int] = set()

    def of_codes(self, codes: Mapping[int, CodeType]) -> set[int]:
        """The ids of the layout units placing the code objects ``codes`` (by identity)."""
        by_code = self._by_code
        for key in new_keys(codes, by_code):
            by_code[key] = self._of_code(codes[key])
        found = set(map(by_code.__getitem__, codes))
        found.discard(-1)
        return found

    def of_imports(
        self,
        ids: Set[int],
        reads: Mapping[int, tuple[frozenset[str], bool]],
        units: Mapping[int, frozenset[int]],
        unit_of: Callable[[int], Unit],
    ) -> set[int]:
        """The ids of the layout units placing what ran at the import of each module of
        ``ids`` (unit ids) that read line numbers then: the module's ``LAYOUT`` where its
        own statements spell a line read; where its footprint read one (``reads``: the
        names each footprint read; ``units``: the units it ran), the module's ``LAYOUT``
        and the ``LINES`` unit of each function that ran then."""
        for uid in ids - self._looked_at:
            self._note_statements(uid, unit_of(uid))
        self._looked_at |= ids
        readers = self._statement_readers
        found = set(map(readers.__getitem__, readers.keys() & ids))
        for module in reads.keys() & ids:
            if LINE_READS.isdisjoint(reads[module][0]):
                continue
            ran = units.get(module, frozenset())
            key = (module, len(ran))
            cached = self._by_module.get(key)
            if cached is None:
                # Other modules' code on the stack then ran at their own import: their
                # footprints place it. Here their module units stand for their functions.
                functions = (unit for unit in map(unit_of, ran) if unit.name != MODULE)
                placed = [self._of_unit(unit) for unit in (unit_of(module), *functions)]
                cached = self._by_module[key] = frozenset(uid for uid in placed if uid >= 0)
            found |= cached
        return found

    def _note_statements(self, uid: int, unit: Unit) -> None:
        """Note module unit ``uid`` when its statements (top-level, class bodies, decorators
        and default values) spell a line read: they read the places of its own code."""
        file_units = self._states.units(unit.path)
        if unit.name != MODULE or file_units is None:
            return
        refs = [*file_units.refs.values(), *file_units.noted.values()]
        spelled = file_units.residue_refs.union(*refs)
        layout = self._of_unit(unit)
        if layout >= 0 and not LINE_READS.isdisjoint(spelled):
            self._statement_readers[uid] = layout

    def _of_code(self, code: CodeType) -> int:
        rel = self._paths.python_rel(code.co_filename)
        file_units = self._states.units(rel) if rel is not None else None
        if rel is None or file_units is None:
            return -1
        return self._of_unit(file_units.unit_for_code(code))

    def _of_unit(self, unit: Unit) -> int:
        """The id of the layout unit placing ``unit``'s code (a function's body or header:
        its ``LINES`` or ``PLACED``; the module part: the file's ``LAYOUT`` or ``PLACES``);
        -1 for none."""
        file_units = self._states.units(unit.path)
        if file_units is None:
            return -1
        function = body_name(unit.name) or unit.name
        name = self._whole_file if unit.name == MODULE else self._function_name(function)
        return self._intern(Unit(unit.path, name)) if name in file_units.checksums else -1
