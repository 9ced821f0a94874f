"""A deleted module no test can see gone, but for what it bound and what its code did.

python-validators ``4973c49`` moved ``btc_address.py`` into a new subpackage: its package
``__init__`` stopped importing it, and every one of the 758 tests, which imported the
package and so ran the module at import, depended on its module unit (deleted: selected)
and on the package's import statement gone (its target unknown: the package's module unit
counted as changed). Judging a deleted file needs its analysis as the tests ran it; the
analysis cache (``rts.analysis_cache``) keeps it under the file's path until the file
changes, and an entry is used only when made from the bytes the store recorded
(``files.raw_hash``) by this very analysis code, which recorded the tests too (so the
imports by name below were recorded).

What a test can see of a module no longer running is ruled out as for a new one
(``rts.quiet_modules``): its old top level could not raise, imports aside, called nothing
the module does not define and changed nothing but its own namespace; each top-level
import took a standard-library module or a project file, without a star. Then a test sees
it gone only by reaching its namespace or its objects: by an import statement (none of the
recorded files that still exist imports it: the resolver is shown the file as if it were
there), by importing it by a name held in a string (each such import told is recorded,
``BY_NAME``, and a test that ran it and looked names up by strings not told, ``*``, may
have: those tests run, ``tests_reaching_deleted``), through its package's attribute (the
package's units of that name changed: their readers run), or by holding something it
defined (its functions' and bindings' units stay deleted: the tests that ran or read them
run). What it imported in turn must still run where it ran: each file of its old run
closure is run by every module that stopped importing it (``ImportStatementChanges``).

So the units its import alone put on a test (``import_time_only``: its module unit, its import
statements' and ``from`` imports' units, decorations, import risks) are no change; the
rest stays deleted. Not seen: library code importing it by a string (``importlib`` called
from a library, ``pytest.importorskip``), as for a new module; and a test importing it by a
string once it was imported already (``sys.modules`` answers: no dependency is recorded,
the same hole as for any change of the module). python-validators ``4973c49`` still runs
every test: its new ``eth_address.py`` imports an installed library (``eth_hash``, in
``try``/``except ImportError:``) new to every test process, whose code ``rts.quiet_modules``
cannot judge (no project file: no analysis, no recorded footprint).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from lsp_server.rts.analysis_cache import AnalysisCache
from lsp_server.rts.file_units import FileUnits, Unit
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.quiet_modules import imports_judged
from lsp_server.rts.reasons import ReasonKind
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.spans import ImportStatement
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import (
    DISPLAY_READ,
    IMPORTED,
    IMPORTING,
    MODULE,
    NAMES,
    WRAPPED,
    header_name,
    is_import_risk,
)

BY_NAME = "<imported>"
"""Prefix of the ``NAMES`` unit of a module project code imported by a name held in a
string (``importlib.import_module``, ``__import__``, a ``sys.modules`` lookup):
``<imported>pkg/mod.py``."""

_IMPORT_TIME = (IMPORTING, IMPORTED, WRAPPED, DISPLAY_READ)
_LOADED_BY_PATH = ("__init__.py", "conftest.py")
# Names pytest reads from a module it loads (a plugin named by ``-p``, an entry point).
_READ_BY_PYTEST = ("pytest_", "pytestmark")


def by_name(path: str) -> str:
    return BY_NAME + path


def import_time_only(unit_name: str) -> bool:
    """Whether a unit of a module is one only its import puts on a test."""
    return unit_name == MODULE or unit_name.startswith(_IMPORT_TIME) or is_import_risk(unit_name)


@dataclass(frozen=True)
class QuietDeletion:
    """A deleted module no test sees gone but for its names (the module's docstring)."""

    path: str
    runs: frozenset[str]
    """The project files its import ran, but itself and its packages."""
    import_bindings: frozenset[str] = frozenset()
    """Its units of names its imports bound (``FileUnits.import_units``): no change."""


class _GhostResolver(ImportResolver):
    """An import resolver that sees the deleted ``ghosts`` as if they were still there,
    with their old import statements."""

    def __init__(
        self,
        root: Path,
        imports_of: Callable[[str], list[ImportStatement] | None],
        ghosts: Mapping[str, FileUnits],
    ) -> None:
        self._ghosts = ghosts
        super().__init__(root, lambda rel: _old_or(ghosts, imports_of, rel))

    def _exists(self, rel: str) -> bool:
        return rel in self._ghosts or super()._exists(rel)


def _old_or(
    ghosts: Mapping[str, FileUnits],
    imports_of: Callable[[str], list[ImportStatement] | None],
    rel: str,
) -> list[ImportStatement] | None:
    ghost = ghosts.get(rel)
    return ghost.imports if ghost is not None else imports_of(rel)


def quiet_deletions(
    root: Path,
    deleted: Iterable[str],
    recorded: Mapping[str, str | None],
    imports_of: Callable[[str], list[ImportStatement] | None],
    exists: Callable[[str], bool],
) -> dict[str, QuietDeletion]:
    """Of the ``deleted`` files, the quiet modules no recorded file still imports.
    ``recorded``: each recorded file's raw hash; ``imports_of``: a file's import statements
    now; ``exists``: whether a file is there now."""
    cache = AnalysisCache(root)
    old: dict[str, FileUnits] = {}
    for path in deleted:
        raw = recorded.get(path)
        # pytest loads a conftest by its path, and what it binds (``pytest_plugins``) too.
        if raw is None or not path.endswith(".py") or path.endswith(_LOADED_BY_PATH):
            continue
        units = cache.get(path, raw)
        if units is not None and _was_quiet(units):
            old[path] = units
    if not old:
        return {}
    ghosts = _GhostResolver(root, imports_of, old)
    for path, units in list(old.items()):
        if not imports_judged(ghosts, path, units):
            del old[path]
    imported = set().union(
        *(ghosts.direct_imports(rel) for rel in recorded if rel not in old and exists(rel))
    )
    return {
        path: QuietDeletion(
            path,
            ghosts.run_closure(path) - ghosts.packages_above(path) - {path},
            units.import_units,
        )
        for path, units in old.items()
        if path not in imported
    }


def _was_quiet(units: FileUnits) -> bool:
    return not (
        units.may_raise_at_import
        or units.call_sites
        or not units.changes_only_own_namespace
        or header_name("__getattr__") in units.checksums
        or any(name.startswith(_READ_BY_PYTEST) for name in units.top_names)
    )


def ghost_module(
    root: Path,
    imports_of: Callable[[str], list[ImportStatement] | None],
    quiet: Mapping[str, QuietDeletion],
    importer: str,
    module: str,
    level: int,
) -> str | None:
    """The quiet deleted module an import statement of ``importer`` named, if any."""
    if not quiet:
        return None
    ghosts = _GhostResolver(root, imports_of, {p: FileUnits(p) for p in quiet})
    found = ghosts.module_file(importer, module, level)
    return found if found in quiet else None


def deleted_units(
    path: str, recorded: Iterable[str], quiet: Mapping[str, QuietDeletion]
) -> dict[Unit, ReasonKind]:
    """The changes of a deleted file's recorded units: each deleted, but for a quiet
    module the units only its import put on a test, and then its imports by name too.
    Nor are the names its imports bound (``from hashlib import sha256``): each is another
    module's object, unchanged for a test holding it; its namespace, where the name is
    gone, is reached through the module alone (see the module docstring), and its code
    reading the name is deleted. (python-validators ``4973c49``: 5 tests calling
    ``validators.sha256`` read the name where ``btc_address.py`` bound it too.)"""
    deletion = quiet.get(path)
    if deletion is None:
        return {Unit(path, name): ReasonKind.DELETED for name in recorded}
    kept = deletion.import_bindings
    out = {
        Unit(path, n): ReasonKind.DELETED
        for n in recorded
        if not import_time_only(n) and n not in kept
    }
    out[Unit(NAMES, by_name(path))] = ReasonKind.DELETED
    return out


def find_quiet_deletions(
    root: Path, states: FileStates, recorded: Mapping[str, str | None]
) -> dict[str, QuietDeletion]:
    """``quiet_deletions`` among the ``recorded`` files (with their raw hashes) that
    ``states`` finds gone."""
    deleted = [path for path in recorded if path != NAMES and states.raw_hash(path) is None]
    if not deleted:
        return {}

    def imports_of(rel: str) -> list[ImportStatement] | None:
        units = states.units(rel)
        return None if units is None else units.imports

    def exists(rel: str) -> bool:
        return states.raw_hash(rel) is not None

    return quiet_deletions(root, deleted, recorded, imports_of, exists)


def tests_reaching_deleted(
    store: DependencyStore, quiet: Mapping[str, QuietDeletion]
) -> dict[str, Unit]:
    """Tests that ran a quiet deleted module and looked up names by strings the recording
    could not tell (``*``): such a lookup may have reached its namespace (an import by a
    computed name), with the unit of its imports by name."""
    out: dict[str, Unit] = {}
    for path in quiet:
        for nodeid in store.tests_reading(path, (), any_name=True):
            out.setdefault(nodeid, Unit(NAMES, by_name(path)))
    return out
