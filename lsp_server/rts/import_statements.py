"""Which tests see a top-level ``from module import ...`` start or stop importing its module.

Besides binding its names (``rts.from_imports``) the statement imports ``module`` where it
stands: the unit ``<imports>module`` of the file (``unit_names.IMPORTING``; its text is
what the file runs before its first such statement, ``rts.first_imports``). A test sees
that import added, moved or removed only when the module now runs, or no longer runs, in
its process; where it is imported anyway, only the moment moves. The moment is not seen
while the module cannot import the file back (no cycle: neither is half run when the other
looks), nothing it runs takes a name of a module that may be running when the file runs
(a package half done: ``rts.running_imports``), and neither the file nor what the
statement runs (the module's packages not imported before the file too) calls anything at
import (a call may change what the other reads) or changes anything but its own namespace
(a registry filled without a call is read by import-time code run between the two
moments: ``rts.import_effects``). A listing of the loaded modules made at import between
the two moments sees the module or not: it reads the session's state
(``listing_marks.statement_listing``). Then the tests selected are those whose file does
not surely import the module otherwise; else every test depending on the file runs, as
for any change of its module unit. (sqlparse's keywords.py began and stopped taking names from
utils.py, which every test imported through the lexer: every test ran.)

"Surely imported" is under-approximated: the test's file and its conftests, and what their
top-level imports import, through files none of whose import statements changed since the
tests were recorded (the same imports ran then). A name ``from package import name`` takes
counts as a submodule only when the package binds the name at most by importing it.

A module no test ran (new: python-validators' ``__init__`` takes each new check from its
own new module) is surely imported by none: a test that ran everything it imports is left
to the units of the names it binds when ``rts.quiet_modules`` shows that nothing else of
its running is seen, and the tests reading its name in its package run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import PurePosixPath

from lsp_server.rts.deleted_modules import QuietDeletion, ghost_module
from lsp_server.rts.file_units import Unit
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.quiet_modules import files_needed
from lsp_server.rts.reasons import ReasonKind
from lsp_server.rts.running_imports import (
    prefixes,
    reads_running_module,
    runs_with,
    takes_submodule,
)
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.spans import ImportStatement
from lsp_server.rts.unit_names import (
    IMPORTED,
    IMPORTING,
    MODULE,
    importing_name,
    importing_parts,
)


class ImportStatementChanges:
    """The changed ``IMPORTING`` units among ``changed`` (unit -> anything) and what they
    select. ``recorded``: the files whose module unit the store knows (they existed when
    the tests were recorded); ``dependents(unit)``: the tests depending on a unit;
    ``readers(path, names)``: the tests reading one of ``names`` in module ``path``."""

    def __init__(
        self,
        states: FileStates,
        resolver: ImportResolver,
        changed: Mapping[Unit, object],
        recorded: set[str],
        dependents: Callable[[Unit], list[str]],
        readers: Callable[[str, Iterable[str]], Mapping[str, str]],
        quiet: Mapping[str, QuietDeletion] | None = None,
    ) -> None:
        self.states = states
        # Deleted modules no test sees gone but for their names (``rts.deleted_modules``).
        self._quiet = quiet or {}
        self.resolver = resolver
        self.statements = [u for u in changed if importing_parts(u.name) is not None]
        # Still first imported by the file, elsewhere (``rts.first_imports``): it runs as
        # before in every test that imports the file; only the moment moved.
        self._moved_only = {u for u in self.statements if changed[u] == ReasonKind.CHANGED}
        # Files whose import statements may differ from those the tests ran with.
        self._moved = {
            u.path for u in changed if u.name == MODULE or u.name.startswith((IMPORTED, IMPORTING))
        }
        self._recorded = recorded
        self._dependents = dependents
        self._readers = readers
        self._changed = changed
        self._surely: dict[str, frozenset[str]] = {}
        self._ran: dict[str, set[str]] = {}

    def unproven(self) -> set[Unit]:
        """The module units of the files where such a change may be seen by every importer
        (the module is no project file, a cycle, calls at import)."""
        return {Unit(u.path, MODULE) for u in self.statements if self._proven(u) is None}

    def selected(self) -> dict[str, Unit]:
        """Tests that do not surely import the module otherwise, with the statement's unit."""
        out: dict[str, Unit] = {}
        for unit in self.statements:
            target = self._proven(unit)
            if target is None:
                continue  # the module unit counts as changed: ``unproven``
            if unit in self._moved_only or self._imported_above(unit, target):
                continue  # the moment is not seen (``_proven``), or it imports nothing
            if target in self._quiet:  # it runs nowhere now: seen by its name alone
                for nodeid in self._readers(*_package_attribute(target)):
                    out.setdefault(nodeid, unit)
                continue
            # A module no test ran, which a test may see run but for its names.
            needed = None if target in self._recorded else self._needed(unit, target)
            if needed is not None:  # it is an attribute of its package too
                for nodeid in self._readers(*_package_attribute(target)):
                    out.setdefault(nodeid, unit)
            for nodeid in self._dependents(Unit(unit.path, MODULE)):
                if nodeid in out or target in self._surely_imported(nodeid):
                    continue
                if needed is None or not all(nodeid in self._ran_by(f) for f in needed):
                    out[nodeid] = unit
        return out

    def _proven(self, unit: Unit) -> str | None:
        """The module file a statement's unit imports when the moment it does is not seen
        (``_order_unseen``); else None."""
        target = self._target(unit)
        deleted = None if target is None else self._quiet.get(target)
        if deleted is not None:  # what it ran still runs where it ran
            runs = self.resolver.run_closure(unit.path) | self.resolver.packages_above(unit.path)
            return target if deleted.runs <= runs else None
        if target is None:
            return None
        unseen = self._imported_above(unit, target) or self._order_unseen(unit.path, target)
        return target if unseen else None

    def _imported_above(self, unit: Unit, target: str) -> bool:
        """Whether unchanged top-level import statements above the file's first ``from``
        import of the module of ``unit`` surely import ``target`` (tenacity's tests: ``import
        tenacity``, then ``from tenacity.retry import ...``): then that statement runs no
        module code where it stands, only binds names. A plain ``import`` is in the module
        unit, a ``from`` import's moment in its ``IMPORTING`` unit; unchanged, they ran
        where they stand when the tests were recorded too."""
        units = self.states.units(unit.path)
        parts = importing_parts(unit.name)
        if units is None or parts is None:
            return False
        starts: list[str] = []
        for statement in units.imports:
            if not statement.top:
                continue
            if statement.is_from and (statement.module or "", statement.level) == parts:
                return target in self._follow(starts)
            if self._statement_changed(unit.path, statement):
                return False
            starts.extend(self._imported(unit.path, statement))
        return False

    def _statement_changed(self, path: str, statement: ImportStatement) -> bool:
        if not statement.is_from:
            return Unit(path, MODULE) in self._changed
        return Unit(path, importing_name(statement.module or "", statement.level)) in self._changed

    def _needed(self, unit: Unit, target: str) -> frozenset[str] | None:
        """What a test must have run for ``target``, which the statement of ``unit``
        imports, to run unseen in it but for its names (``rts.quiet_modules``)."""
        parts = importing_parts(unit.name)
        relative = parts is not None and parts[1] > 0
        return files_needed(self.states, self.resolver, unit.path, target, relative, self._recorded)

    def _ran_by(self, rel: str) -> set[str]:
        """The tests that ran ``rel`` at import when recorded: a change there selects them."""
        found = self._ran.get(rel)
        if found is None:
            found = self._ran[rel] = set(self._dependents(Unit(rel, MODULE)))
        return found

    def _target(self, unit: Unit) -> str | None:
        parts = importing_parts(unit.name)
        assert parts is not None
        found = self.resolver.module_file(unit.path, *parts)
        if found is None and self._quiet:
            imports_of = self._imports_of
            found = ghost_module(self.resolver.root, imports_of, self._quiet, unit.path, *parts)
        return found

    def _imports_of(self, rel: str) -> list[ImportStatement] | None:
        units = self.states.units(rel)
        return None if units is None else units.imports

    def _order_unseen(self, path: str, target: str) -> bool:
        """Whether importing ``target`` earlier or later in ``path`` cannot be seen: no
        cycle, no name taken from a module that may be half run then
        (``rts.running_imports``), and no call at import in ``path`` or in what the
        statement runs (``running_imports.runs_with``: the packages of ``target`` not
        imported before ``path`` too)."""
        runs = runs_with(self.resolver, path, target)
        if path in runs or reads_running_module(self.states, self.resolver, path, runs):
            return False
        for rel in (path, *runs):
            units = self.states.units(rel)
            # Nor any other effect beyond its own namespace: import-time code elsewhere,
            # run between the old and the new moment, may read it (``rts.import_effects``).
            if units is None or units.call_sites or not units.changes_only_own_namespace:
                return False
        return True

    def _surely_imported(self, nodeid: str) -> frozenset[str]:
        test_file = nodeid.split("::", 1)[0]
        found = self._surely.get(test_file)
        if found is None:
            found = self._surely[test_file] = self._follow(
                [test_file, *self.resolver.conftests(test_file)]
            )
        return found

    def _follow(self, starts: list[str]) -> frozenset[str]:
        seen: set[str] = set()
        todo = [rel for rel in starts if self._unmoved(rel)]
        while todo:
            rel = todo.pop()
            if rel in seen:
                continue
            seen.add(rel)
            units = self.states.units(rel)
            if units is None:
                continue
            for statement in units.imports:
                if statement.top:
                    todo.extend(f for f in self._imported(rel, statement) if self._unmoved(f))
        return frozenset(seen)

    def _unmoved(self, rel: str) -> bool:
        return rel in self._recorded and rel not in self._moved

    def _imported(self, rel: str, statement: ImportStatement) -> list[str]:
        """Project files a top-level import statement of ``rel`` surely runs."""
        resolver = self.resolver
        if not statement.is_from:
            # ``import a.b`` runs ``a`` and ``a.b``.
            dotted = [prefixes(name) for name in statement.names]
            return [f for d in dotted for p in d if (f := resolver.module_file(rel, p, 0))]
        origin = resolver.from_origin(rel, statement)
        if origin is None:
            return []
        out = [origin]
        module = statement.module or ""
        if module and not statement.level:
            out.extend(f for p in prefixes(module)[:-1] if (f := resolver.module_file(rel, p, 0)))
        for name in statement.names:
            if name != "*" and takes_submodule(self.states, resolver, origin, name):
                dotted_name = f"{module}.{name}" if module else name
                found = resolver.module_file(rel, dotted_name, statement.level)
                if found is not None:
                    out.append(found)
        return out


def _package_attribute(module_file: str) -> tuple[str, list[str]]:
    """The ``__init__.py`` of the package a module file is in, and the name importing the
    module binds there."""
    path = PurePosixPath(module_file)
    if path.name == "__init__.py":
        path = path.parent
    return (path.parent / "__init__.py").as_posix(), [path.stem]
