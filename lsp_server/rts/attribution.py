"""Which units a test depends on, from what ran and what was opened while it was active.

A test depends on the units of every code object it ran (a function's unit, the units
enclosing it, its class, its module), on every non-Python project file it opened, on the
module parts of its file's static import closure and conftests, on what ran while its file
was collected, and on the import footprint of every module it depends on (what ran while
that module's top level ran). Of the bindings of those modules (``rts.bindings``) it
depends on the ones whose names it read (``rts.reads``: the names of the code it ran, its
fixtures' names, and what those bindings and the module parts read at import, closed
over); the names themselves are recorded so that a later binding of one of them selects
it. Units are interned as small ints: a test depends on hundreds of them.
"""

from __future__ import annotations

from inspect import CO_NEWLOCALS
from operator import itemgetter
from pathlib import Path
from types import CodeType

import pytest

from lsp_server.project.files import ProjectPaths
from lsp_server.rts.binding_reads import BindingReads
from lsp_server.rts.case_units import CaseUnits
from lsp_server.rts.class_hooks import HookedClasses
from lsp_server.rts.code_read_marks import CodeReadMarks
from lsp_server.rts.constant_fetches import fetched_units
from lsp_server.rts.dead_runs import module_units
from lsp_server.rts.deleted_modules import by_name
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.function_units import FunctionUnits
from lsp_server.rts.gathered_listings import GATHERED, gathered_by_copy
from lsp_server.rts.identity import identity
from lsp_server.rts.import_footprints import GlobalsRead, ImportFootprints, add_globals
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.interned_units import FileAnswers, InternedUnits
from lsp_server.rts.listing_marks import statement_listing, window_listing
from lsp_server.rts.lookup_receivers import settle_untold
from lsp_server.rts.lookups import ATTRIBUTE_LOOKUP
from lsp_server.rts.loose_assignments import body_reads
from lsp_server.rts.module_fetches import with_fetched_modules
from lsp_server.rts.namespace_listings import own_listing
from lsp_server.rts.option_rules import XFAIL_MARK
from lsp_server.rts.own_globals import OWN_GLOBALS, modules_read_whole, own_globals_read
from lsp_server.rts.position_units import PositionUnits, ran_reads_lines
from lsp_server.rts.read_lines import LineReads, own_signature
from lsp_server.rts.reads import EVERY_NAME, builds_classes
from lsp_server.rts.runtime_lookups import RuntimeLookups
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.spans import ImportStatement
from lsp_server.rts.static_units import static_units
from lsp_server.rts.tracing import CodeTracer
from lsp_server.rts.unit_names import FILE, MODULE, NAMES, header_name
from lsp_server.rts.windows import Window


class UnitAttribution:
    """Turns windows into units; every cache lives as long as the pytest session."""

    def __init__(
        self,
        root: Path,
        paths: ProjectPaths,
        states: FileStates,
        lookups: RuntimeLookups,
        sees_read_lines: bool = False,
    ) -> None:
        self.root, self.lookups, self.paths, self.states = root, lookups, paths, states
        # Whether windows tell which code ran a line reading code or docstrings: then those
        # names of the code (``_line_reads``) count only for the windows where one did.
        self._line_reads = LineReads(sees_read_lines, paths.python_rel)
        self.resolver = ImportResolver(root, self._imports_of)
        # What ran while each collector (by path) collected: its tests depend on it.
        self.collection_windows: dict[str, Window] = {}
        self._unit_ids, self._units = dict[Unit, int](), list[Unit]()
        self._unit_paths: list[str] = []  # of each unit in ``_units``
        self.paths_seen: set[str] = set()  # of every interned unit
        # By identity(code) (rts.identity): ``_codes`` keeps them, so no id is reused as a key.
        self._code_units: dict[int, tuple[int, ...]] = {}
        self._codes: list[CodeType] = []
        self._static_cache: dict[object, frozenset[int]] = {}
        self.footprints = ImportFootprints()
        # Names each code reads, whether it looks names up by string; the same for what ran
        # at collection (by static key) and at each module's import.
        self._code_reads: dict[int, tuple[frozenset[str], bool]] = {}
        # By identity(code): its module and the names it reads only as its globals (rts.reads);
        # in ``_code_reads`` when its module's namespace is open to other modules' names.
        self._code_globals: dict[int, tuple[str, frozenset[str]]] = {}
        self._static_reads: dict[object, tuple[frozenset[str], bool, GlobalsRead]] = {}
        # By identity(code): code whose lookups by a name in a variable were recorded as it ran
        # (``rts.runtime_lookups``): what it read is asked each time, it may read more.
        self._read_at_run_time: set[int] = set()
        # By identity(code): what a name its run did not tell reads where the syntax bounds it.
        self._untold_reads: dict[int, str] = {}
        self._answers = FileAnswers()  # see units_of_test; of one test file
        # By static key: see ``_shared_reads`` (dropped with the answers).
        self._shared: dict[object, tuple[frozenset[int], frozenset[str]]] = {}
        self.hooked_classes = HookedClasses(states, paths, self._intern)
        plain = self.hooked_classes.made_plain
        self.bindings = BindingReads(states, self.resolver, self._intern, self._units, plain)
        self.functions = FunctionUnits(paths, states)
        self.marks = CodeReadMarks(lookups, self._names_anywhere, paths, states, self._intern)
        self.cases = CaseUnits(states, paths.rel, self._intern)
        # By whether a test read source text: the places with comments, or without.
        self.positions = tuple(PositionUnits(paths, states, self._intern, t) for t in (False, True))

    def units_of_test(self, item: pytest.Item, window: Window, tracer: CodeTracer) -> InternedUnits:
        """Every unit the test ``item`` depends on, given what ran in its ``window``.

        The answer depends on the test only through its file, what it ran and opened, its
        fixture names and xfail mark, so it is kept for the next test with the same ones
        (a third of sqlparse's tests: parametrized cases), until a module's import
        footprint changes what any test depends on, or some code looks up a name by a
        variable that it had not looked up before (``RuntimeLookups.version``)."""
        self._absorb_footprints(tracer)
        key = (
            self.lookups.version,
            self._static_key(item),
            frozenset(window.codes),
            frozenset(window.files),
            frozenset(window.read_lines),
            self.lookups.code_reads.version,
            frozenset(getattr(item, "fixturenames", ())),
            item.get_closest_marker("xfail") is not None,
        )
        found = self._answers.get(key)
        if found is None:
            found = self._answers[key] = self._units_of_window(item, window)
        return self.cases.added(item, found)  # its case of a literal list: per test

    def _units_of_window(self, item: pytest.Item, window: Window) -> InternedUnits:
        code_units, codes = self._code_units, window.codes
        for key in set(codes).difference(code_units):
            self._units_of_code(codes[key])
        ids = self._static_units(item).union(  # in C: a test runs hundreds of code objects
            *map(code_units.__getitem__, codes), self._file_ids(window.files)
        )
        reads, dynamic, static_globals = self._static_reads[self._static_key(item)]
        names = set(reads).union(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("xfail") is not None:  # read at its end: dynamic ones too
            names.add(XFAIL_MARK)
        read_by_code = list(map(self._code_reads.__getitem__, codes))
        ran = self._line_reads.ran(window.read_lines).union(*map(itemgetter(0), read_by_code))
        names |= ran  # what the window's code read (``ran_reads_lines``)
        dynamic = dynamic or EVERY_NAME in names or any(map(itemgetter(1), read_by_code))
        by_string: set[str] = set()
        listed = self.lookups.listing_marks.listed(codes)  # ``rts.listing_marks``
        for key in self._read_at_run_time.intersection(codes):
            looked_up, imported = self._run_time_reads(codes[key], key in listed)
            by_string |= looked_up
            dynamic = dynamic or EVERY_NAME in looked_up
            ids = ids.union(imported)
        code_globals = [self._code_globals[key] for key in self._code_globals.keys() & codes]
        globals_read = add_globals({}, [*code_globals, *static_globals.items()])
        ids, read_at_import, at_import_by_string = self.footprints.expand(ids)
        self.footprints.add_globals_read(ids, globals_read)
        # Which code reads were told, and what they read (``rts.code_read_marks``).
        marks, read = self.marks.marks(codes, names - reads - by_string, reads | by_string)
        names, ids, ran = names | marks, ids.union(read), ran | marks | by_string
        names, dynamic = names | by_string | read_at_import, dynamic or at_import_by_string
        whole = self.footprints.read_whole(ids) | modules_read_whole(names)
        base = self._shared_reads(item)
        ids = ids.union(self.bindings.read(ids, names, dynamic, globals_read, whole, base))
        if self.bindings.flags.lines:  # the places of what ran (``rts.position_units``)
            fp, placed = self.footprints, ran_reads_lines(codes, ran, code_globals)
            positions = self.positions[self.bindings.flags.text]
            at_import = positions.of_imports(ids, fp.reads, fp.units, self._units.__getitem__)
            ids = ids.union(positions.of_codes(codes) if placed else (), at_import)
        paths = frozenset(map(unit_path := self._unit_paths.__getitem__, ids))
        hooked = self.hooked_classes.units(paths).difference(ids)  # it imported their modules
        ids, paths = ids.union(hooked), paths.union(map(unit_path, hooked))  # a base's, elsewhere
        return InternedUnits(ids, self._units, paths)

    def with_names(self, units: InternedUnits, names: set[str]) -> InternedUnits:
        """``units`` and the ``NAMES`` units of ``names`` (``rts.option_reads``)."""
        ids = units.ids.union(self._intern(Unit(NAMES, name)) for name in names)
        return InternedUnits(ids, self._units, units.paths | {NAMES})

    def _names_anywhere(self, code: CodeType) -> frozenset[str]:
        """What ``code`` reads wherever its lines ran (``_line_reads``)."""
        return self._code_reads[identity(code)][0] | self._line_reads.whole(identity(code))

    def _shared_reads(self, item: pytest.Item) -> tuple[frozenset[int], frozenset[str]]:
        """The units and names every test of ``item``'s file (and doctest) depends on and
        reads: its static units with their import footprints, what ran at collection and
        at those modules' import read (``BindingReads.read`` follows them once)."""
        key = self._static_key(item)
        shared = self._shared.get(key)
        if shared is None:
            ids, names, _ = self.footprints.expand(self._static_units(item))
            names |= self._static_reads[key][0]
            shared = self._shared[key] = (ids, frozenset(names))
        return shared

    def _imports_of(self, rel: str) -> list[ImportStatement] | None:
        units = self.states.units(rel)
        return None if units is None else units.imports

    def _intern(self, unit: Unit) -> int:
        uid = self._unit_ids.get(unit)
        if uid is None:
            uid = self._unit_ids[unit] = len(self._units)
            self._units.append(unit)
            self._unit_paths.append(unit.path)
            self.paths_seen.add(unit.path)
        return uid

    def _units_of_code(self, code: CodeType) -> tuple[int, ...]:
        cached = self._code_units.get(identity(code))
        if cached is not None:
            return cached
        rel = self.paths.python_rel(code.co_filename)
        units: tuple[Unit, ...] = ()
        is_module = code.co_name == "<module>"
        no_reads = is_module or rel is None  # a library looks names up by string all the time
        told, listed = self._line_reads.seen, self.lookups.lists_package(code)
        listing = statement_listing(code, is_module and rel is not None, told, listed)
        self._code_reads[identity(code)] = listing
        if rel is not None:
            module = Unit(rel, MODULE)
            file_units = self.states.units(rel)
            if not no_reads:
                self._note_reads(code, rel, file_units)
            if file_units is None:
                units = (module,)
            elif (found := file_units.unit_for_code(code)) == module:
                owner = None if is_module else file_units.class_at_line(code.co_firstlineno)
                units = module_units(code, file_units) if owner is None else (owner, module)
                if owner is not None and not code.co_flags & CO_NEWLOCALS:
                    # A class body (a nested class's too: its constants name it) binds the
                    # class, which only its readers see; what it reads is in the class
                    # unit's refs already. A lambda of the class body is no class body.
                    self._code_reads[identity(code)] = statement_listing(code, True, True)
                    self._code_globals.pop(identity(code), None)
                    self._line_reads.forget(identity(code))
                    units = (module,)
            else:
                functions = (found, *file_units.enclosing(found))
                headers = (Unit(rel, header_name(f.name)) for f in functions)
                units = (*self.functions.parts(code, found), *functions[1:], *headers, module)
                if not no_reads:  # the syntax tells a getattr by a constant name
                    names_read = self._code_reads[identity(code)][0]
                    kind = file_units.dynamic.get(found.name)
                    if kind == OWN_GLOBALS:  # its module read whole, no other
                        names_read, kind = names_read | {own_globals_read(rel)}, None
                    if kind is not None and (
                        identity(code) in self._read_at_run_time
                        or self.lookups.records(code, file_units.bound, file_units.import_origins)
                    ):
                        # The syntax of the whole function said so (any name, or any member
                        # of its class); its code objects each tell the names their lookups
                        # read as they ran (one not told: ``_untold_reads``).
                        self._read_at_run_time.add(identity(code))
                        if kind != "*":
                            self._untold_reads[identity(code)] = kind
                        kind = None
                    else:  # the syntax told: as before
                        self._read_at_run_time.discard(identity(code))
                    if kind is not None and kind.startswith(ATTRIBUTE_LOOKUP):
                        names_read = names_read | {kind}  # with the names' prefix
                    kind = self._line_reads.settle(code, kind)
                    names_read = with_fetched_modules(code, names_read, kind == "*")
                    self._code_reads[identity(code)] = (names_read, kind == "*")
        ids = tuple(map(self._intern, (*units, *fetched_units(code, self.paths.python_rel))))
        self._code_units[identity(code)] = ids
        self._codes.append(code)
        return ids

    def _note_reads(self, code: CodeType, rel: str, file_units: FileUnits | None) -> None:
        names, global_only, dynamic = body_reads(code, file_units)
        if "__signature__" in names and file_units and own_signature(code, file_units):
            names = names - {"__signature__"}
        if file_units and gathered_by_copy(code, file_units, self.states, self.paths.python_rel):
            names = names - {"__all__"} | {GATHERED}  # the listings only copied: see there
        # Some counted only where their lines ran (``_units_of_window``).
        names, global_only, dynamic = self._line_reads.note(code, names, global_only, dynamic)
        if (
            dynamic
            and file_units is not None
            and self.lookups.records(code, file_units.bound, file_units.import_origins)
        ):
            self._read_at_run_time.add(identity(code))
            dynamic = False
        own = frozenset() if file_units is None else file_units.own_globals(global_only)
        if own:
            self._code_globals[identity(code)] = (rel, own)
        names = with_fetched_modules(code, names | (global_only - own), dynamic)
        self._code_reads[identity(code)] = (names, dynamic)

    def _every_read(
        self, code: CodeType, into: GlobalsRead
    ) -> tuple[frozenset[str], bool, set[int]]:
        """What ``code``, run at collection or import, read anywhere (its module's globals
        go ``into`` their own), and the module units of the modules it imported by name."""
        names, dynamic = self._code_reads[identity(code)]
        found = self._code_globals.get(identity(code))
        if found is not None:
            add_globals(into, [found])
        names = names | self._line_reads.whole(identity(code))
        dynamic = dynamic or EVERY_NAME in names
        if identity(code) not in self._read_at_run_time:
            return names, dynamic, set()
        looked_up, imported = self._run_time_reads(code, None)
        return names | looked_up, dynamic or EVERY_NAME in looked_up, imported

    def _run_time_reads(self, code: CodeType, listed: bool | None) -> tuple[set[str], set[int]]:
        """What ``code`` looked up as it ran (``window_listing``), modules it imported by name."""
        looked_up, files = self.lookups.read(code)
        # A member at most where the syntax says so and no receiver said otherwise.
        looked_up = settle_untold(looked_up, self._untold_reads.get(identity(code)))
        rel = self.paths.python_rel(code.co_filename)
        units = None if rel is None else self.states.units(rel)
        own = units is None or units.class_at_line(code.co_firstlineno) is not None
        looked_up = window_listing(own_listing(looked_up, own), listed, self.lookups.tells_listings)
        looked_up |= with_fetched_modules(code, frozenset(looked_up), False)
        rels = [rel for filename in files if (rel := self.paths.python_rel(filename))]
        # Imported by name: a test ``rts.deleted_modules`` must run once the module is gone.
        by_names = {self._intern(Unit(NAMES, by_name(rel))) for rel in rels}
        return looked_up, {self._intern(Unit(rel, MODULE)) for rel in rels} | by_names

    def _static_units(self, item: pytest.Item) -> frozenset[int]:
        """Module parts of the test file's import closure and conftests; a doctest's docstring."""
        key = self._static_key(item)
        cached = self._static_cache.get(key)
        if cached is None:
            static = static_units(item, self.paths, self.resolver, self.states)
            ids = {self._intern(u) for u in static}
            ids.update(self._collection_units(key, Path(item.path)))
            cached = self._static_cache[key] = frozenset(ids)
        return cached

    @staticmethod
    def _static_key(item: pytest.Item) -> object:
        dtest = getattr(item, "dtest", None)
        return (str(item.path), None if dtest is None else (dtest.filename, dtest.lineno))

    def _collection_units(self, key: object, path: Path) -> set[int]:
        """What ran and was opened while collecting ``path`` and its parent directories
        (and the names that code read, kept under ``key``)."""
        ids: set[int] = set()
        names: set[str] = set()
        globals_read: GlobalsRead = {}
        dynamic = False
        for candidate in (path, *path.parents):
            window = self.collection_windows.get(str(candidate))
            if window is not None:
                for code in window.codes.values():
                    ids.update(self._units_of_code(code))
                    code_names, code_dynamic, imported = self._every_read(code, globals_read)
                    ids |= imported
                    names |= code_names
                    dynamic = dynamic or code_dynamic
                ids.update(self._file_ids(window.files))
            if candidate == self.root:
                break
        self._static_reads[key] = (frozenset(names), dynamic, globals_read)
        return ids

    def _file_ids(self, filenames: set[str]) -> set[int]:
        rels = (self.paths.rel(filename) for filename in filenames)
        keep = [r for r in rels if r is not None and not r.endswith((".pyc", ".pyo"))]
        return {self._intern(Unit(rel, FILE)) for rel in keep}

    def _absorb_footprints(self, tracer: CodeTracer) -> None:
        """Units of what ran while each project module executed, by the module's unit: a
        test depending on a module also depends on what shaped it at import."""
        for code, codes in tracer.take_footprints():
            rel = self.paths.python_rel(code.co_filename)
            if rel is None:
                continue
            module = self._intern(Unit(rel, MODULE))
            ids: set[int] = set()
            names: frozenset[str] = frozenset()
            globals_read: GlobalsRead = {}
            dynamic = hooked = False
            by_string: set[str] = set()
            for ran in codes.values():
                ids.update(self._units_of_code(ran))
                ran_names, ran_dynamic, imported = self._every_read(ran, globals_read)
                ids |= imported
                names = names | ran_names
                dynamic = dynamic or ran_dynamic
                hooked = hooked or (bool(self._code_units[identity(ran)]) and builds_classes(ran))
                if identity(ran) in self._read_at_run_time:
                    by_string |= self._run_time_reads(ran, None)[0]
            # Code read at import (typeguard's ``@typechecked``): told as in a test's window.
            marks, read = self.marks.marks(codes, names - by_string, by_string, code)
            names, ids = names | marks, ids | read
            self.footprints.add(module, ids, names, dynamic, globals_read)
            if hooked:
                hands = self.hooked_classes.may_hand_classes
                self.footprints.add_hooked(module, codes, self.paths.python_rel, hands)
            else:  # an inner import (footprints come innermost first) the hook is not in
                self.footprints.add_unhooked(codes)
            self._answers.clear()  # what depends on the module depends on more now
            self._shared.clear()
