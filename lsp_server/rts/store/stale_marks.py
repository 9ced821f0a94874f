"""Marking tests stale when a file's stored units are brought to a new snapshot, and the
tests a selection proved unaffected by that very change, which some marks leave alone.

A sync marks stale, coarsely, the tests that read a name the file binds anew or takes a
name it no longer binds; selection asks finer questions about the same change (whether the
new member's class was reached, whether an imported module still takes the name). A test
it skipped on that proof would otherwise be marked stale by the run that recorded the
others and run at the next, unrelated change. Leaving it unmarked is sound because none of
the units it ran changed (those marks stay: ``_mark_dependents_stale``) and the names it
read resolve as before, so it would run the same code again and record the same units.
One changed unit is left to the proof too: a file's ``<imports>module`` unit whose text
changed while the module is still imported there (``rts.first_imports``). Selection leaves
its dependents out only when it proved the moment moved unseen (``rts.import_statements``;
else every importer ran), so they would run the same code and record the same units, the
changed one included: python-validators' ``bsc_address`` inserted above ``eth_address``
left 817 tests out, and the sync marked 604 stale, run at the next commit. So are that
unit removed and a deleted file's units (``store.deleted_files``): selection leaves their
dependents out only when it proved they do not see the module stop running (it still runs
there: ``rts.import_statements``; it was quiet at import and runs nowhere now:
``rts.deleted_modules``); rerun, they would record the same units but the removed ones.
The proof holds only for the change selection saw: the file's stored and current hashes
must still be the ones it compared.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from lsp_server.rts.reads import LISTED_NAMES, NEEDED_BY_IMPORT, SESSION_LISTING
from lsp_server.rts.unit_names import MODULE, NAMES, module_read, taken_name

DEPENDING = "SELECT d.test_id FROM deps d JOIN units u ON u.id=d.unit_id WHERE u.path=? AND u.name"
_NOT_PROVEN = " AND nodeid NOT IN (SELECT nodeid FROM temp.proven_unaffected)"


@dataclass(frozen=True)
class ProvenUnaffected:
    """The tests a selection left out, and per file whose stored hash differed from the
    current one, the (stored, current) raw hashes it compared."""

    nodeids: Collection[str]
    hashes: Mapping[str, tuple[str | None, str | None]]


class StaleMarks:
    """The stale marks of ``StoreWrites``' file sync."""

    _conn: sqlite3.Connection
    _proven: ProvenUnaffected | None = None

    def keep_proven_unaffected(self, proven: ProvenUnaffected) -> None:
        """Let this connection's syncs leave ``proven``'s tests out of the marks a finer
        selection rule answers (see the module docstring)."""
        self._conn.execute("CREATE TEMP TABLE IF NOT EXISTS proven_unaffected (nodeid TEXT)")
        self._conn.execute("DELETE FROM temp.proven_unaffected")
        self._conn.executemany(
            "INSERT INTO temp.proven_unaffected VALUES (?)", [(n,) for n in proven.nodeids]
        )
        self._proven = proven

    def _not_proven(self, path: str, stored: str | None, current: str | None) -> str:
        """The SQL condition leaving out the proven tests when syncing ``path`` from the
        ``stored`` raw hash to ``current`` is the change the selection saw; else none."""
        proven = self._proven
        if proven is None or proven.hashes.get(path) != (stored, current):
            return ""
        return _NOT_PROVEN

    def _mark_importers_stale(self, path: str, reason: str, not_proven: str = "") -> None:
        """The tests that depend on module ``path`` (they imported it) are stale, but those
        ``not_proven`` leaves out."""
        self._conn.execute(
            f"UPDATE tests SET stale=? WHERE stale IS NULL{not_proven} AND id IN ({DEPENDING}=?)",
            (reason, path, MODULE),
        )

    def _mark_takers_stale(self, path: str, unit: str, reason: str, not_proven: str) -> None:
        """The tests of modules that may take the removed binding ``unit`` of ``path`` with
        a ``from`` import (``select.tests_reading_changed``, without its resolver), but
        those ``not_proven`` leaves out."""
        name = taken_name(unit, removed=True)
        if name is None:
            return
        reads = (module_read(NEEDED_BY_IMPORT + name, path), module_read(LISTED_NAMES, path))
        self._conn.execute(
            f"UPDATE tests SET stale=? WHERE stale IS NULL{not_proven} AND id IN"
            f" ({DEPENDING} IN (?, ?) INTERSECT {DEPENDING}=?)",
            (reason, NAMES, *reads, path, MODULE),
        )

    def _mark_dependents_stale(
        self, unit_id: int, reason: str, exclude_test: int | None, not_proven: str = ""
    ) -> None:
        self._conn.execute(
            f"UPDATE tests SET stale=? WHERE stale IS NULL{not_proven} AND id != ? AND id IN"
            " (SELECT test_id FROM deps WHERE unit_id=?)",
            (reason, -1 if exclude_test is None else exclude_test, unit_id),
        )

    def _mark_listings_stale(
        self, reason: str, session_id: int | None, not_proven: str = ""
    ) -> None:
        """The tests that listed the session's state (``rts.session_listings``) and that
        session ``session_id`` did not record are stale: a file changed, which selection
        counts as a change they see wherever it is, and they did not run against it (a run
        deselecting them, or stopped before them, syncs the file all the same). But those
        ``not_proven`` leaves out: selection proved them unaffected by this very change (a
        change to comments' text alone, ``rts.comment_changes``), which marked stale would
        rerun them at the next run though nothing changed since."""
        self._conn.execute(
            f"UPDATE tests SET stale=? WHERE stale IS NULL{not_proven} AND session_id IS NOT ?"
            f" AND id IN ({DEPENDING}=?)",
            (reason, -1 if session_id is None else session_id, NAMES, SESSION_LISTING),
        )
