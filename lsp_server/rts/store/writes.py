"""What the store records: sessions, tests with their dependencies, collections, the log
of refactoring tasks and the extreme analysis's verdicts.

Every write is one short ``BEGIN IMMEDIATE`` transaction, so a run killed with ``kill -9``
loses at most the tests being written, and several processes (two sessions, xdist
workers) can write at once: SQLite serializes them and ``busy_timeout`` makes the others
wait instead of failing.

Invariants that make selection cheap and safe:

* A unit has one recorded checksum (``units.checksum``), shared by every test that depends
  on it. When a test is recorded against a different checksum than the stored one, every
  *other* test depending on that unit is marked ``stale`` (it has not run against the new
  code) and is selected next time with that reason.
* ``files.raw_hash`` is the hash of the bytes every stored unit checksum of that file was
  taken from. A matching raw hash therefore proves every unit of the file unchanged
  without parsing it. Anything that changes a unit checksum without a fresh snapshot of
  the file (the REKS primitives in ``store.refactorings``) clears the raw hash, forcing a
  parse next time.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter
from typing import TypeVar

from lsp_server.rts.file_snapshot import FileSnapshot
from lsp_server.rts.file_units import Unit
from lsp_server.rts.interned_units import InternedIds, InternedUnits
from lsp_server.rts.listing_units import LISTING
from lsp_server.rts.store.deleted_files import DeletedFiles
from lsp_server.rts.store.depsets import DependencySets, TestUnits
from lsp_server.rts.store.stale_marks import DEPENDING
from lsp_server.rts.unit_names import (
    CLASS_KIND,
    MODULE,
    NAMES,
    bound_name,
    gone_with_class,
    importing_parts,
    is_import_risk,
    module_read,
    newly_readable,
    wrapped_parts,
)

OUTCOMES = ("passed", "failed", "error", "skipped")

_Self = TypeVar("_Self", bound="StoreWrites")


@dataclass(frozen=True)
class TestResult:
    """One test's outcome in a session and the units it depended on."""

    __test__ = False  # not a pytest test class
    nodeid: str
    outcome: str
    duration: float
    units: Collection[Unit]  # a tuple, or ``InternedUnits`` (translated once per unit)
    setup: Mapping[str, float] | None = None  # shared fixtures' set-up by scope, if measured


class StoreWrites(DeletedFiles, DependencySets):
    """The writing half of ``DependencyStore`` (which opens ``_conn``)."""

    _conn: sqlite3.Connection
    # Per-connection caches of what the database holds, valid while no other connection
    # commits (checked through PRAGMA data_version at each transaction).
    _synced: dict[str, str | None]
    # Keyed by (path, name) as plain tuples, which a ``Unit`` finds (same hash and
    # equality): the garbage collector stops tracking a tuple of strings, so thousands of
    # keys cost nothing in the project's own full collections (a ``Unit`` stays tracked).
    _unit_id_cache: dict[tuple[str, str], int]
    _unit_paths_cached: set[str]  # files whose stored units are all in the cache
    _interned: dict[int, InternedIds]  # by id() of the table of ``InternedUnits``
    _ran_rows: dict[int, set[int]] | None  # the ``ran`` table by test (``StoreRuns``)
    _ran_read_whole: bool
    _data_version: int | None
    _depth: int

    # -- transactions -------------------------------------------------------------------

    @contextmanager
    def transaction(self: _Self) -> Iterator[_Self]:
        """One write transaction; nested calls join the outermost one."""
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        self._conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self.forget_caches()
            self._data_version = version
        try:
            yield self
        except BaseException:
            self._depth = 0
            self._conn.execute("ROLLBACK")
            self.forget_caches()
            raise
        self._depth = 0
        self._conn.execute("COMMIT")

    def forget_caches(self) -> None:
        """Drop what this connection cached of the database (reloaded when needed)."""
        self._synced.clear()
        self._set_units.clear()
        self._bases.clear()
        self._unit_id_cache.clear()
        self._unit_paths_cached.clear()
        self._interned.clear()
        self._ran_rows = None

    # -- sessions -----------------------------------------------------------------------

    def begin_session(self, kind: str, environment: str, options: str | None) -> int:
        with self.transaction():
            cur = self._conn.execute(
                "INSERT INTO sessions (kind, started, environment, options) VALUES (?,?,?,?)",
                (kind, time.time(), environment, options),
            )
            return int(cur.lastrowid or 0)

    def finish_session(self, session_id: int, details: Mapping[str, object]) -> None:
        with self.transaction():
            self._conn.execute(
                "UPDATE sessions SET finished=?, details=? WHERE id=?",
                (time.time(), json.dumps(dict(details)), session_id),
            )

    # -- recording ----------------------------------------------------------------------

    def record_test(
        self,
        nodeid: str,
        outcome: str,
        duration: float,
        units: Iterable[Unit],
        snapshots: Mapping[str, FileSnapshot],
        *,
        environment: str,
        options: str | None,
        session_id: int | None,
    ) -> None:
        """Replace ``nodeid``'s record: its outcome and the units it depends on.

        ``snapshots`` holds the current state of every file ``units`` lie in; a unit whose
        file has no snapshot (it vanished during the run) is skipped, which is safe because
        a missing file is a change for every test that had depended on it.
        """
        self.record_tests(
            [TestResult(nodeid, outcome, duration, tuple(units))],
            snapshots,
            environment=environment,
            options=options,
            session_id=session_id,
        )

    def record_tests(
        self,
        results: Iterable[TestResult],
        snapshots: Mapping[str, FileSnapshot],
        *,
        environment: str,
        options: str | None,
        session_id: int | None,
        deleted: Collection[str] = (),
        changed: Collection[str] = (),
    ) -> None:
        """``record_test`` for several tests in one transaction. ``deleted``: the stored
        files gone in the state the session ran against (``store.deleted_files``);
        ``changed``: those changed there, synced too (``rts.store_drift``)."""
        results = list(results)
        for result in results:
            if result.outcome not in OUTCOMES:
                raise ValueError(f"unknown outcome {result.outcome!r}")
        paths: set[str] = set().union(*map(_paths_of, results))
        deleted = set(deleted) - snapshots.keys()
        with self.transaction():
            # Files first: a test whose unit moves gets marked stale here, and recording
            # it below clears that again.
            for path in sorted(deleted):
                self._sync_deleted(path, session_id)
            for path in sorted(paths.union(changed) & snapshots.keys()):
                snap = snapshots[path]
                if self._synced.get(path, "") != snap.raw_hash:
                    self._sync_file(snap, session_id)
            # Usually every unit's file has a snapshot: no test needs filtering (a test
            # that imported a module from a zip archive does: filtered alone).
            self.link_dependencies(
                [
                    self._record_one(
                        result,
                        snapshots,
                        snapshots.keys() >= set(_paths_of(result)),
                        environment,
                        options,
                        session_id,
                    )
                    for result in results
                ]
            )
            if deleted & paths:
                self._mark_ran_deleted(((r.nodeid, set(_paths_of(r))) for r in results), deleted)

    def _record_one(
        self,
        result: TestResult,
        snapshots: Mapping[str, FileSnapshot],
        complete: bool,
        environment: str,
        options: str | None,
        session_id: int | None,
    ) -> TestUnits:
        """The test's row, and what to link it to. ``complete``: every unit's file has a
        snapshot (else units without one are left out: their file is gone or does not
        parse)."""
        test_id = self._upsert_test(
            result.nodeid, result.outcome, result.duration, environment, options, session_id
        )
        if result.setup is not None:
            times = json.dumps(dict(result.setup), sort_keys=True)
            self._conn.execute("INSERT OR REPLACE INTO setup_times VALUES (?,?)", (test_id, times))
        # The tests of one file share most units: they may share a base set.
        group = result.nodeid.partition("::")[0]
        if complete and isinstance(result.units, InternedUnits):
            return TestUnits(test_id, group, self._interned_ids(result.units, snapshots))
        units: Iterable[Unit] = result.units
        if not complete:
            units = [u for u in result.units if u.path in snapshots]
        # Unit ids come from the cache: one C-level lookup per dependency.
        cached = list(map(self._unit_id_cache.get, units))
        uids = self._unit_ids(units, snapshots) if None in cached else cached
        return TestUnits(test_id, group, frozenset(u for u in uids if u is not None))

    def _interned_ids(
        self, units: InternedUnits, snapshots: Mapping[str, FileSnapshot]
    ) -> frozenset[int]:
        """The store ids of ``units``, every file of which is synced: each interned unit is
        translated the first time a test depends on it, as ``_unit_ids`` would."""
        table = units.table
        interned = self._interned.get(id(table))
        if interned is None or interned.table is not table:
            interned = self._interned[id(table)] = InternedIds(table)
        missing = interned.untranslated(units.ids)
        if missing:
            interned.translated(missing, self._unit_ids([table[i] for i in missing], snapshots))
        return interned.of_units(units)

    def _upsert_test(
        self,
        nodeid: str,
        outcome: str,
        duration: float,
        environment: str,
        options: str | None,
        session_id: int | None,
    ) -> int:
        row = self._conn.execute(
            "INSERT INTO tests (nodeid, outcome, duration, environment, options, session_id,"
            " stale, recorded) VALUES (?,?,?,?,?,?,NULL,?) ON CONFLICT(nodeid) DO UPDATE SET"
            " outcome=excluded.outcome, duration=excluded.duration,"
            " environment=excluded.environment, options=excluded.options,"
            " session_id=excluded.session_id, stale=NULL, recorded=excluded.recorded"
            " RETURNING id",
            (nodeid, outcome, duration, environment, options, session_id, time.time()),
        ).fetchone()
        return int(row[0])

    def _sync_file(self, snap: FileSnapshot, session_id: int | None) -> None:
        """Bring every stored unit of ``snap.path`` to the snapshot, marking stale the tests
        that depended on a unit whose checksum moves (they have not run against it), and
        the tests listing the session's state that ``session_id`` did not record."""
        row = self._conn.execute("SELECT raw_hash FROM files WHERE path=?", (snap.path,)).fetchone()
        if row is not None and row[0] == snap.raw_hash:
            self._synced[snap.path] = snap.raw_hash
            return
        stored = self._conn.execute(
            "SELECT id, name, checksum FROM units WHERE path=?", (snap.path,)
        ).fetchall()
        known = {name for _, name, _ in stored}
        gone = set() if snap.error else known - snap.checksums.keys()
        not_proven = self._not_proven(snap.path, None if row is None else row[0], snap.raw_hash)
        for uid, name, checksum in stored:
            new = snap.checksums.get(name)
            if new is None and checksum is not None and gone_with_class(name, gone, known):
                # Not stale: selection leaves it to the class's unit (``gone_with_class``).
                self._conn.execute("UPDATE units SET checksum=NULL WHERE id=?", (uid,))
            elif new != checksum:
                reason = (
                    "does not parse" if snap.error else ("removed" if new is None else "changed")
                )
                # A first import moved or removed (its module deleted quiet at import,
                # ``rts.deleted_modules``): selection proved it unseen or ran every importer.
                moved = not snap.error and importing_parts(name) is not None
                why = f"{Unit(snap.path, name)} {reason}"
                self._mark_dependents_stale(uid, why, None, not_proven if moved else "")
                # A star import takes what ``LISTING`` lists; a base, a class: ``CLASS_KIND``.
                if (new is None and not snap.error) or name == LISTING or name.endswith(CLASS_KIND):
                    why = f"{Unit(snap.path, name)} {reason}"
                    self._mark_takers_stale(snap.path, name, why, not_proven)
                if new is not None and is_import_risk(name):  # every importer sees it
                    self._mark_importers_stale(snap.path, f"{Unit(snap.path, name)} {reason}")
                if wrapped_parts(name):  # unless selection proved the wrapper (same change)
                    why = f"{Unit(snap.path, name)} {reason}"
                    self._mark_importers_stale(snap.path, why, not_proven)
                self._conn.execute("UPDATE units SET checksum=? WHERE id=?", (new, uid))
        moved = any(snap.checksums.get(name) != checksum for _, name, checksum in stored)
        if snap.path != NAMES and row is not None and (moved or len(snap.checksums) > len(known)):
            self._mark_listings_stale(f"{snap.path} changed", session_id, not_proven)
        if snap.path != NAMES:
            known_file = row is not None
            self._store_new_units(snap, {name for _, name, _ in stored}, known_file, not_proven)
        self._conn.execute(
            "INSERT INTO files VALUES (?,?)"
            " ON CONFLICT(path) DO UPDATE SET raw_hash=excluded.raw_hash",
            (snap.path, snap.raw_hash),
        )
        self._synced[snap.path] = snap.raw_hash

    def _store_new_units(
        self, snap: FileSnapshot, stored: set[str], known: bool, not_proven: str
    ) -> None:
        """Store every unit of the file, so that selection tells a binding added later from
        one that was there. A binding added since the file was last synced (``known``)
        marks stale the tests that depend on the module and read its name: they may have
        read the name from elsewhere (a builtin, an import) before it was bound here."""
        added = [name for name in snap.checksums if name not in stored]
        if added:
            self._unit_paths_cached.discard(snap.path)  # the cache lacks them
        self._conn.executemany(
            "INSERT OR IGNORE INTO units (path, name, checksum) VALUES (?,?,?)",
            [(snap.path, name, snap.checksums[name]) for name in added],
        )
        if not known:
            return
        for name in filter(is_import_risk, added):  # every importer sees it
            self._mark_importers_stale(snap.path, f"{Unit(snap.path, name)} added")
        for name in filter(wrapped_parts, added):  # ``rts.imported_wrappers``
            self._mark_importers_stale(snap.path, f"{Unit(snap.path, name)} added", not_proven)
        if LISTING in added:  # star imports take only what it lists now
            why = f"{Unit(snap.path, LISTING)} added"
            self._mark_takers_stale(snap.path, LISTING, why, not_proven)
        for name in newly_readable(added):
            read = bound_name(name)
            if read is not None:
                names = (NAMES, read, module_read(read, snap.path), snap.path, MODULE)
                self._conn.execute(
                    f"UPDATE tests SET stale=? WHERE stale IS NULL{not_proven} AND id IN"
                    f" ({DEPENDING}"
                    f" IN (?, ?, '*') INTERSECT {DEPENDING}=?)",
                    (f"{Unit(snap.path, name)} added", *names),
                )

    def _unit_ids(self, units: Iterable[Unit], snapshots: Mapping[str, FileSnapshot]) -> list[int]:
        """Ids of ``units``, creating the missing ones with their snapshot's checksum."""
        cache, loaded = self._unit_id_cache, self._unit_paths_cached
        units = list(units)
        # A file's stored units are read once per cache lifetime: a unit missing after
        # that is new (reading them again for each test cost seconds on a large module).
        for path in {u.path for u in units if u not in cache} - loaded:
            for uid, name in self._conn.execute(
                "SELECT id, name FROM units WHERE path=?", (path,)
            ).fetchall():
                cache[(path, name)] = uid  # a plain tuple: see ``_unit_id_cache``
            loaded.add(path)
        for unit in units:
            if unit not in cache:
                cur = self._conn.execute(
                    "INSERT INTO units (path, name, checksum) VALUES (?,?,?)",
                    (unit.path, unit.name, snapshots[unit.path].checksums.get(unit.name)),
                )
                cache[unit] = int(cur.lastrowid or 0)
        return [cache[u] for u in units]

    def _forget_unit_records(self, unit_id: int) -> None:
        """What was recorded of a unit about to be deleted (its id may be given again)."""
        self._ran_rows = None
        self._conn.execute("DELETE FROM ran WHERE unit_id=?", (unit_id,))
        self._conn.execute("DELETE FROM return_kinds WHERE unit_id=?", (unit_id,))


def _paths_of(result: TestResult) -> Iterable[str]:
    units = result.units
    return units.paths if isinstance(units, InternedUnits) else map(itemgetter(0), units)
