"""Who sees a changed ``__all__`` of a module that others star-import.

``from b import *`` binds in the importer what ``b.__all__`` lists. It used to count as a
read of the name ``__all__``, and since a package's ``__init__`` runs for every test
importing any of its modules, an edit of one listing selected every test (funcy's
``__init__`` star-imports its thirteen modules: adding ``split_keys`` to ``colls.__all__``
ran 204 tests where 55 read something of ``colls``). The statement now reads no name
(``purity.import_time_names``), and a changed listing selects instead:

* the tests reading a name listed before or now but not both (a unit per listed name
  tells: ``listing_units``), read anywhere, as a global of ``b`` or of a module taking
  ``b``'s names with a star import (a builtin it shadows there, say), or any name at all;
* every test whose modules star-import ``b`` (``reads.LISTED_NAMES``) when the import may
  fail or the listing is not known: ``__all__`` computed, a listed name ``b`` does not
  bind at its top level, ``__all__`` added or removed (a star import then takes every
  public name, or only the listed ones), a file that does not parse.

Code reading ``__all__`` itself (``b.__all__``, a package computing its own from its
modules') depends on the binding as on any other, and sees it change; but a package
gathering its own with a helper that only copies them reads ``GATHERED`` instead
(``rts.gathered_listings``), selected here when a listing is not known, and its star
importers with any listing change.
"""

from __future__ import annotations

from collections.abc import Iterable

from lsp_server.project.files import is_python
from lsp_server.rts.file_units import Unit
from lsp_server.rts.gathered_listings import GATHERED
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.listing_units import KNOWN_LISTING, LISTED, LISTING
from lsp_server.rts.reads import EVERY_NAME, LISTED_NAMES
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import module_read


def tests_seeing_listings(
    store: DependencyStore, states: FileStates, resolver: ImportResolver, changed: Iterable[Unit]
) -> dict[str, Unit]:
    """Tests that can see the change of an ``__all__`` among the ``changed`` units (edited,
    added or removed), with its unit."""
    out: dict[str, Unit] = {}
    paths = {unit.path for unit in changed if unit.name in (LISTING, KNOWN_LISTING)}
    for path in sorted(paths):
        unit = Unit(path, LISTING)
        names = _relisted(store, states, path)
        importers = _star_importers(states, resolver, store.file_hashes(), path)
        if names is None or importers is None:
            found = store.tests_reading(path, [LISTED_NAMES], any_name=False)
            # A gathering helper may fail on what is not a list of names, or find none.
            found.update(store.tests_reading(path, [GATHERED]))
        else:
            scoped = [module_read(n, m) for m in importers for n in (*names, EVERY_NAME)]
            found = store.tests_reading(path, [*names, *scoped]) if names else {}
        found.update(_taking_gathered(store, states))
        for nodeid in found:
            out.setdefault(nodeid, unit)
    return out


def _taking_gathered(store: DependencyStore, states: FileStates) -> dict[str, str]:
    """Tests whose modules star-import a module gathering listings (``GATHERED``): the
    names they take changed, and one may not be bound there."""
    found: dict[str, str] = {}
    for path in store.file_hashes():
        units = states.units(path) if is_python(path) else None
        if units is not None and units.gathering:
            found.update(store.tests_reading(path, [LISTED_NAMES], any_name=False))
    return found


def _relisted(store: DependencyStore, states: FileStates, path: str) -> set[str] | None:
    """The names listed before or now but not both in ``path``'s ``__all__``; None when a
    star import of it may fail now, or a listing is not known."""
    units, snap = states.units(path), states.snapshot(path)
    if units is None or snap is None or units.listed is None:
        return None
    if not units.listed <= units.top_names:
        return None  # ``AttributeError`` at the star import, or bound some other way
    recorded = {name for name, checksum in store.units_of(path).items() if checksum is not None}
    if KNOWN_LISTING not in recorded or KNOWN_LISTING not in units.checksums:
        return None  # ``__all__`` added or removed: takes every public name, or fails
    before = {name.removeprefix(LISTED) for name in recorded if name.startswith(LISTED)}
    return before ^ units.listed


def _star_importers(
    states: FileStates, resolver: ImportResolver, paths: Iterable[str], origin: str
) -> set[str] | None:
    """The files among ``paths`` that take ``origin``'s names with a star import, directly
    or through another such file; None when one of them does not parse."""
    files = [p for p in paths if is_python(p) and states.raw_hash(p) is not None]
    taking: dict[str, set[str]] = {}  # origin -> the files star-importing it
    for path in files:
        units = states.units(path)
        if units is None:
            return None
        for statement in units.imports:
            if "*" in statement.names:
                source = resolver.from_origin(path, statement)
                if source is not None:
                    taking.setdefault(source, set()).add(path)
    found: set[str] = set()
    todo = [origin]
    while todo:
        for path in taking.get(todo.pop(), ()):
            if path not in found:
                found.add(path)
                todo.append(path)
    return found
