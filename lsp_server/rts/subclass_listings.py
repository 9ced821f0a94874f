"""Who sees a change of the session's classes through ``Base.__subclasses__()``.

A test whose code asks a class for its subclasses (it reads the name ``__subclasses__``,
``rts.lookups.DYNAMIC_NAMES``) depends on every unit of the modules it depends on. But the
listing holds every subclass made so far in the whole session, in modules the test never
imported: a module that only another test's file imports adds its classes all the same,
and so does a new test file. What classes a session made is global state, so any change
anywhere (a class statement, its bases, code that builds classes at run time) and any new
test file may change the listing: each selects the tests that read the name. Those are
few, and they pay for it alone."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from pathlib import Path

from lsp_server.project.files import python_files
from lsp_server.rts.file_units import Unit
from lsp_server.rts.reasons import Reason, ReasonKind, Selection
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import MODULE, NAMES

SUBCLASS_LISTING = Unit(NAMES, "__subclasses__")
"""The unit of a test whose code read ``__subclasses__`` (``rts.reads``)."""


def tests_listing_subclasses(store: DependencyStore, changed: Iterable[Unit]) -> dict[str, Unit]:
    """Tests that listed subclasses, each with the first of the ``changed`` units (names a
    test read aside: a new binding changes no class)."""
    listing = store.tests_depending_on(SUBCLASS_LISTING)
    if not listing:
        return {}
    first = min((unit for unit in changed if unit.path != NAMES), default=None)
    return {} if first is None else dict.fromkeys(listing, first)


def select_listings_seeing_new_tests(
    store: DependencyStore, selection: Selection, new_test_files: Callable[[], list[str]]
) -> None:
    """Move the unaffected tests that listed subclasses to the selected ones when a test
    file no collection recorded is there (``new_test_files``, asked only then): its
    classes (in no record) join the listing."""
    listing = set(store.tests_depending_on(SUBCLASS_LISTING)).intersection(selection.unaffected)
    if not listing:
        return
    new = new_test_files()
    if not new:
        return
    reason = Reason(ReasonKind.ADDED, Unit(new[0], MODULE))
    selection.unaffected = [n for n in selection.unaffected if n not in listing]
    for nodeid in sorted(listing):
        selection.selected[nodeid] = reason


def uncollected_test_files(
    root: Path, store: DependencyStore, patterns: Iterable[str]
) -> list[str]:
    """The project's files named like test files (pytest's ``python_files`` globs) that no
    whole-file collection recorded, root-relative."""
    known = store.collected_files().keys()
    globs = list(patterns)
    found = []
    for path in python_files(root):
        if any(fnmatch.fnmatch(path.name, glob) for glob in globs):
            rel = path.relative_to(root).as_posix()
            if rel not in known:
                found.append(rel)
    return found
