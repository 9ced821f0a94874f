"""Bringing a deleted file's stored units to its deletion, as a sync brings a changed
file's to its new snapshot (``StoreWrites._sync_file``).

Left as they were, the units of a deleted file count as changed at every later selection
(``select.changed_units``): their dependents run and are recorded without them, but every
rule firing on any change (a listing of the session's state, ``rts.session_listings``)
fires again at every run. typeguard's ``tests/pep695.py``, deleted at ``1cd7638``, reran
its 8 listing tests at every later commit.

The first recording write of a session that finds a stored file gone (the session ran
against its deletion) marks stale every test that may see it and has not run against it
yet: the tests depending on one of its units, but those the session's selection proved
unaffected by that very deletion (``store.stale_marks``: the importers of a module quiet at
import, whose units that import alone put on them are no change, ``rts.deleted_modules``,
would otherwise run at the next run for nothing), and the tests listing the session's
state (its own tests, a test file's, are forgotten: no collection yields them again). The
tests this session records clear their mark as usual; those it does not run (deselected,
an interrupted or crashed run) keep it and run next time. Then every unit's checksum and
the file's raw hash become NULL: "gone when last synced", which selection skips
(``changed_units``). The unit rows stay, so a file created again at that path is a change
of each of them (NULL against a checksum), which the listing rule sees too.

A test recorded with units of a file the session holds as deleted ran that file (it
was there again when it ran, after selection looked): its record lacks those units, so it
is marked stale too (``_mark_ran_deleted``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable

from lsp_server.rts.store.stale_marks import StaleMarks


class DeletedFiles(StaleMarks):
    """The deleted-file sync of ``StoreWrites``."""

    _conn: sqlite3.Connection
    _synced: dict[str, str | None]

    def _sync_deleted(self, path: str, session_id: int | None) -> None:
        """Mark stale the tests that may see ``path``'s deletion, then store its units as
        gone (see the module docstring); nothing when that was done already."""
        rows = self._conn.execute("SELECT checksum FROM units WHERE path=?", (path,))
        checksums = [checksum for (checksum,) in rows]
        row = self._conn.execute("SELECT raw_hash FROM files WHERE path=?", (path,)).fetchone()
        if (row is None or row[0] is None) and all(c is None for c in checksums):
            return  # handled by an earlier session, or never recorded
        why = f"{path} deleted"
        not_proven = self._not_proven(path, None if row is None else row[0], None)
        self._conn.execute(
            f"UPDATE tests SET stale=? WHERE stale IS NULL{not_proven} AND id IN"
            " (SELECT d.test_id FROM deps d JOIN units u ON u.id=d.unit_id WHERE u.path=?)",
            (why, path),
        )
        self._mark_listings_stale(why, session_id)
        # Its own tests are never collected again: forgotten, as a collection forgets a
        # test it no longer yields (one back with the file is new: it runs).
        prefix = path + "::"
        rows = self._conn.execute(
            "SELECT nodeid FROM tests WHERE substr(nodeid, 1, ?)=?", (len(prefix), prefix)
        )
        self.forget_tests([nodeid for (nodeid,) in rows.fetchall()])
        self._conn.execute("UPDATE units SET checksum=NULL WHERE path=?", (path,))
        self._conn.execute("UPDATE files SET raw_hash=NULL WHERE path=?", (path,))
        self._synced.pop(path, None)

    def forget_tests(self, nodeids: Iterable[str]) -> None:
        """Forget the records of ``nodeids`` (``StoreCollections``)."""
        raise NotImplementedError

    def _mark_ran_deleted(
        self, ran: Iterable[tuple[str, Collection[str]]], deleted: Collection[str]
    ) -> None:
        """Mark stale each test of ``ran`` (node id, the files of its units) that ran one
        of the ``deleted`` files: its record leaves that file's units out."""
        rows = []
        for nodeid, paths in ran:
            gone = sorted(set(paths).intersection(deleted))
            if gone:
                rows.append((f"ran {gone[0]}, which was deleted", nodeid))
        self._conn.executemany("UPDATE tests SET stale=? WHERE nodeid=? AND stale IS NULL", rows)
