"""Who sees a change of the session's state through a listing of it.

Some reads list what the whole session made so far, not what the test's own modules made:
a class's subclasses (``Base.__subclasses__()``, ``type.__subclasses__(cls)``), every object
or every referrer of one (``gc.get_objects()``, ``gc.get_referrers(x)``) and the reference
count that tallies them (``sys.getrefcount``), the loaded modules (``sys.modules``, looped
over or asked for a module another test imported), the running threads
(``threading.enumerate()``, ``threading.active_count()``, ``sys._current_frames()``). A
module that only another test's file imports adds to them all the same, and so does a new
test file, while the listing test depends on no unit of either. So any change anywhere
and any new test file select the tests whose code read one of ``lookups.SESSION_LISTINGS``
(``reads.SESSION_LISTING``, one ``NAMES`` unit). Those are few, and they pay for it alone.
A run that does not rerun them (deselected, stopped early) still brings the changed or
deleted files to the store: that sync marks them stale (``store.stale_marks``,
``store.deleted_files``), or the change would be seen by no later selection."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from pathlib import Path

from lsp_server.project.files import python_files
from lsp_server.rts.comment_changes import comments_only, source_text_readers
from lsp_server.rts.file_units import Unit
from lsp_server.rts.reads import SESSION_LISTING
from lsp_server.rts.reasons import Reason, ReasonKind, Selection
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.unit_names import MODULE, NAMES

LISTING = Unit(NAMES, SESSION_LISTING)
"""The unit of a test whose code read a listing of the session's state (``rts.reads``)."""


def tests_listing_session_state(store: DependencyStore, changed: Iterable[Unit]) -> dict[str, Unit]:
    """Tests that listed state of the session, each with the first of the ``changed``
    units (names a test read aside: a new binding makes no object, class or module). A
    change to comments' text alone makes no object either: it selects those that read
    source text only (``rts.comment_changes``; toolz 19edc08, a comment typo, reran two
    tests listing ``sys.modules``)."""
    listing = store.tests_depending_on(LISTING)
    if not listing:
        return {}
    changed = list(changed)
    first = min((unit for unit in changed if unit.path != NAMES), default=None)
    if first is not None and comments_only(store, changed):
        listing = sorted(source_text_readers(store).intersection(listing))
    return {} if first is None else dict.fromkeys(listing, first)


def selects_listings(store: DependencyStore, selection: Selection) -> bool:
    """Whether ``selection`` runs a test that listed state of the session: it must run in
    a session that imports what a whole run imports, with every test file collected
    (those whose every test is unaffected too: what they import joins the listing)."""
    return not set(selection.selected).isdisjoint(store.tests_depending_on(LISTING))


def select_listings_seeing_new_tests(
    store: DependencyStore, selection: Selection, new_test_files: Callable[[], list[str]]
) -> None:
    """Move the unaffected tests that listed state of the session to the selected ones
    when a test file no collection recorded is there (``new_test_files``, asked only
    then): what it makes (in no record) joins the listing."""
    listing = set(store.tests_depending_on(LISTING)).intersection(selection.unaffected)
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
