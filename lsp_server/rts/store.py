"""The dependency store: per-test dependencies, outcomes and sessions in SQLite.

Layout: ``<root>/.reks/deps.sqlite`` in WAL mode. Every write is one short ``BEGIN
IMMEDIATE`` transaction, so a run killed with ``kill -9`` loses at most the test being
written, and several processes (two sessions, xdist workers) can write at once: SQLite
serializes them and ``busy_timeout`` makes the others wait instead of failing.

Invariants that make selection cheap and safe:

* A unit has one recorded checksum (``units.checksum``), shared by every test that depends
  on it. When a test is recorded against a different checksum than the stored one, every
  *other* test depending on that unit is marked ``stale`` (it has not run against the new
  code) and is selected next time with that reason.
* ``files.raw_hash`` is the hash of the bytes every stored unit checksum of that file was
  taken from. A matching raw hash therefore proves every unit of the file unchanged
  without parsing it. Anything that changes a unit checksum without a fresh snapshot of
  the file (the REKS primitives) clears the raw hash, forcing a parse next time.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from pathlib import Path

from lsp_server.rts.units import Unit

SCHEMA_VERSION = 2
STORE_DIR = ".reks"
STORE_FILE = "deps.sqlite"
BUSY_TIMEOUT_MS = 60_000

OUTCOMES = ("passed", "failed", "error", "skipped")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL,
    environment TEXT NOT NULL,
    options TEXT,
    details TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS tests (
    id INTEGER PRIMARY KEY,
    nodeid TEXT NOT NULL UNIQUE,
    outcome TEXT NOT NULL,
    duration REAL NOT NULL,
    environment TEXT NOT NULL,
    options TEXT,
    session_id INTEGER,
    stale TEXT,
    recorded REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS units (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    checksum TEXT,
    UNIQUE (path, name)
);
CREATE TABLE IF NOT EXISTS deps (
    test_id INTEGER NOT NULL,
    unit_id INTEGER NOT NULL,
    PRIMARY KEY (test_id, unit_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS deps_by_unit ON deps (unit_id, test_id);
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, raw_hash TEXT);
CREATE TABLE IF NOT EXISTS collected (path TEXT PRIMARY KEY, nodeids TEXT NOT NULL);
"""

# From version N to N + 1: statements that bring an older store up to date (it keeps its
# records; nothing it holds means something else now).
_MIGRATIONS: dict[int, list[str]] = {
    1: ["CREATE TABLE IF NOT EXISTS collected (path TEXT PRIMARY KEY, nodeids TEXT NOT NULL)"],
}


class StoreError(Exception):
    """The store cannot be used as it is; the message says how to recover."""


def _is_locked(exc: sqlite3.OperationalError) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


def _retry_while_locked(action: Callable[[], object]) -> None:
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            action()
            return
        except sqlite3.OperationalError as exc:
            if not _is_locked(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def store_path(root: Path) -> Path:
    return Path(root) / STORE_DIR / STORE_FILE


def _recovery_hint(path: Path) -> str:
    return (
        f"run `reks store --rebuild` (or `pytest --reks-all`) to recreate it; "
        f"the old file is kept as {path.name}.bak"
    )


@dataclass(frozen=True)
class FileSnapshot:
    """The current state of one project file: raw hash and the checksum of every unit."""

    path: str
    raw_hash: str
    checksums: Mapping[str, str]  # unit name -> checksum
    error: str | None = None  # set when a Python file does not parse


@dataclass(frozen=True)
class TestResult:
    """One test's outcome in a session and the units it depended on."""

    __test__ = False  # not a pytest test class

    nodeid: str
    outcome: str
    duration: float
    units: tuple[Unit, ...]


@dataclass(frozen=True)
class TestRecord:
    """What the store holds about a test."""

    __test__ = False
    nodeid: str
    outcome: str
    duration: float
    environment: str
    options: str | None
    stale: str | None
    session_id: int | None


@dataclass(frozen=True)
class Execution:
    """A test that executed a unit, with what the extreme analysis needs to schedule it."""

    nodeid: str
    duration: float
    outcome: str


@dataclass
class StoreInfo:
    path: Path
    schema_version: int
    tests: int
    units: int
    dependencies: int
    files: int
    sessions: int
    last_session: dict[str, object] | None = None
    outcomes: dict[str, int] = field(default_factory=dict)
    stale: int = 0
    size_bytes: int = 0


class DependencyStore:
    """Per-test dependencies with checksums; see the module docstring for invariants."""

    def __init__(self, root: Path, *, create: bool = True) -> None:
        self.root = Path(root)
        self.path = store_path(self.root)
        if not self.path.exists() and not create:
            raise StoreError(f"no dependency store at {self.path}; run `pytest --reks` first")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._ensure_gitignore()
        self._depth = 0
        # Per-connection caches of what the database holds, valid while no other
        # connection commits (checked through PRAGMA data_version at each transaction).
        self._synced: dict[str, str | None] = {}
        self._unit_id_cache: dict[Unit, int] = {}
        self._data_version: int | None = None
        self._conn = self._connect()

    # -- opening ----------------------------------------------------------------------

    def _ensure_gitignore(self) -> None:
        ignore = self.path.parent / ".gitignore"
        if not ignore.exists():
            with suppress(OSError):
                ignore.write_text("*\n")

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the dependency store {self.path}: {exc}") from exc
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            # Switching a new file to WAL takes an exclusive lock and SQLite answers BUSY at
            # once, without its busy handler, while another process opens the same file.
            _retry_while_locked(lambda: conn.execute("PRAGMA journal_mode=WAL"))
            conn.execute("PRAGMA synchronous=NORMAL")
            # An empty database (new, or another process is creating it right now) gets
            # the schema; IF NOT EXISTS makes two creators harmless.
            if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                conn.execute("BEGIN IMMEDIATE")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
                conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('created', ?)", (str(time.time()),)
                )
                conn.execute("COMMIT")
            self._check_version(conn)
        except sqlite3.OperationalError as exc:
            conn.close()
            if not _is_locked(exc):
                raise StoreError(
                    f"the dependency store {self.path} is corrupt or not a reks store ({exc}); "
                    + _recovery_hint(self.path)
                ) from exc
            raise StoreError(
                f"the dependency store {self.path} stayed locked by another process for "
                f"{BUSY_TIMEOUT_MS // 1000} s; try again when the other run has finished"
            ) from exc
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(
                f"the dependency store {self.path} is corrupt or not a reks store ({exc}); "
                + _recovery_hint(self.path)
            ) from exc
        return conn

    def _check_version(self, conn: sqlite3.Connection) -> None:
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                raise StoreError(
                    f"{self.path} is not a reks dependency store (no schema version); "
                    + _recovery_hint(self.path)
                ) from exc
            raise
        if row is not None and row[0].isdigit() and int(row[0]) < SCHEMA_VERSION:
            self._migrate(conn, int(row[0]))
            return
        if row is None or row[0] != str(SCHEMA_VERSION):
            found = row[0] if row else "none"
            raise StoreError(
                f"the dependency store {self.path} has schema version {found}, this reks "
                f"uses {SCHEMA_VERSION}; " + _recovery_hint(self.path)
            )

    def _migrate(self, conn: sqlite3.Connection, version: int) -> None:
        if any(v not in _MIGRATIONS for v in range(version, SCHEMA_VERSION)):
            raise StoreError(
                f"the dependency store {self.path} has schema version {version}, too old for "
                f"this reks (version {SCHEMA_VERSION}); " + _recovery_hint(self.path)
            )
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated it while this one waited for the lock.
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            for step in range(int(row[0]), SCHEMA_VERSION):
                for statement in _MIGRATIONS[step]:
                    conn.execute(statement)
            conn.execute(
                "UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),)
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    @classmethod
    def rebuild(cls, root: Path) -> DependencyStore:
        """Recreate an empty store, keeping any previous file as ``deps.sqlite.bak``."""
        path = store_path(Path(root))
        if path.exists():
            backup = path.with_name(path.name + ".bak")
            os.replace(path, backup)
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                side.unlink()
        return cls(root)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> DependencyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions -------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[DependencyStore]:
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
            self._forget_caches()
            self._data_version = version
        try:
            yield self
        except BaseException:
            self._depth = 0
            self._conn.execute("ROLLBACK")
            self._forget_caches()
            raise
        self._depth = 0
        self._conn.execute("COMMIT")

    def _forget_caches(self) -> None:
        self._synced.clear()
        self._unit_id_cache.clear()

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
    ) -> None:
        """``record_test`` for several tests in one transaction."""
        results = list(results)
        for result in results:
            if result.outcome not in OUTCOMES:
                raise ValueError(f"unknown outcome {result.outcome!r}")
        paths: set[str] = set().union(*(map(itemgetter(0), r.units) for r in results))
        with self.transaction():
            # Files first: a test whose unit moves gets marked stale here, and recording
            # it below clears that again.
            for path in sorted(paths & snapshots.keys()):
                snap = snapshots[path]
                if self._synced.get(path, "") != snap.raw_hash:
                    self._sync_file(snap)
            # Usually every unit's file has a snapshot: no test needs filtering.
            complete = snapshots.keys() >= paths
            for result in results:
                self._record_one(result, snapshots, complete, environment, options, session_id)

    def _record_one(
        self,
        result: TestResult,
        snapshots: Mapping[str, FileSnapshot],
        complete: bool,
        environment: str,
        options: str | None,
        session_id: int | None,
    ) -> None:
        """``complete``: every unit's file has a snapshot (else units without one are left
        out: their file is gone or does not parse)."""
        units: Iterable[Unit] = result.units
        if not complete:
            units = [u for u in result.units if u.path in snapshots]
        test_id = self._upsert_test(
            result.nodeid, result.outcome, result.duration, environment, options, session_id
        )
        self._conn.execute("DELETE FROM deps WHERE test_id=?", (test_id,))
        # Unit ids come from the cache: one C-level lookup per dependency.
        cached = list(map(self._unit_id_cache.get, units))
        uids = self._unit_ids(units, snapshots) if None in cached else cached
        self._conn.executemany(
            "INSERT OR IGNORE INTO deps VALUES (?,?)", zip(repeat(test_id), uids)
        )

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

    def _sync_file(self, snap: FileSnapshot) -> None:
        """Bring every stored unit of ``snap.path`` to the snapshot, marking stale the tests
        that depended on a unit whose checksum moves (they have not run against it)."""
        row = self._conn.execute("SELECT raw_hash FROM files WHERE path=?", (snap.path,)).fetchone()
        if row is not None and row[0] == snap.raw_hash:
            self._synced[snap.path] = snap.raw_hash
            return
        for uid, name, checksum in self._conn.execute(
            "SELECT id, name, checksum FROM units WHERE path=?", (snap.path,)
        ).fetchall():
            new = snap.checksums.get(name)
            if new != checksum:
                reason = (
                    "does not parse" if snap.error else ("removed" if new is None else "changed")
                )
                self._mark_dependents_stale(uid, f"{Unit(snap.path, name)} {reason}", None)
                self._conn.execute("UPDATE units SET checksum=? WHERE id=?", (new, uid))
        self._conn.execute(
            "INSERT INTO files VALUES (?,?)"
            " ON CONFLICT(path) DO UPDATE SET raw_hash=excluded.raw_hash",
            (snap.path, snap.raw_hash),
        )
        self._synced[snap.path] = snap.raw_hash

    def _mark_dependents_stale(self, unit_id: int, reason: str, exclude_test: int | None) -> None:
        self._conn.execute(
            "UPDATE tests SET stale=? WHERE stale IS NULL AND id != ? AND id IN"
            " (SELECT test_id FROM deps WHERE unit_id=?)",
            (reason, -1 if exclude_test is None else exclude_test, unit_id),
        )

    def _unit_ids(
        self, units: Iterable[Unit], snapshots: Mapping[str, FileSnapshot]
    ) -> list[int | None]:
        """Ids of ``units``, creating the missing ones with their snapshot's checksum."""
        cache = self._unit_id_cache
        units = list(units)
        for path in {u.path for u in units if u not in cache}:
            for uid, name in self._conn.execute(
                "SELECT id, name FROM units WHERE path=?", (path,)
            ).fetchall():
                cache[Unit(path, name)] = uid
        for unit in units:
            if unit not in cache:
                cur = self._conn.execute(
                    "INSERT INTO units (path, name, checksum) VALUES (?,?,?)",
                    (unit.path, unit.name, snapshots[unit.path].checksums.get(unit.name)),
                )
                cache[unit] = int(cur.lastrowid or 0)
        return [cache[u] for u in units]

    def forget_tests(self, nodeids: Iterable[str]) -> None:
        with self.transaction():
            for nodeid in nodeids:
                row = self._conn.execute(
                    "SELECT id FROM tests WHERE nodeid=?", (nodeid,)
                ).fetchone()
                if row:
                    self._conn.execute("DELETE FROM deps WHERE test_id=?", (row[0],))
                    self._conn.execute("DELETE FROM tests WHERE id=?", (row[0],))

    def record_collection(self, files: Mapping[str, Iterable[str]]) -> None:
        """The node ids a whole-file collection of each of ``files`` produced (replacing
        what was known of those files)."""
        with self.transaction():
            self._conn.executemany(
                "INSERT INTO collected VALUES (?,?) ON CONFLICT(path) DO UPDATE"
                " SET nodeids=excluded.nodeids",
                [(path, json.dumps(sorted(ids))) for path, ids in files.items()],
            )

    # -- queries ------------------------------------------------------------------------

    def collected_files(self) -> dict[str, list[str]]:
        """Each file's node ids at its last whole-file collection."""
        return {
            path: json.loads(ids)
            for path, ids in self._conn.execute("SELECT path, nodeids FROM collected")
        }

    def test_records(self) -> dict[str, TestRecord]:
        return {
            row[0]: TestRecord(*row)
            for row in self._conn.execute(
                "SELECT nodeid, outcome, duration, environment, options, stale, session_id"
                " FROM tests"
            )
        }

    def test_record(self, nodeid: str) -> TestRecord | None:
        row = self._conn.execute(
            "SELECT nodeid, outcome, duration, environment, options, stale, session_id"
            " FROM tests WHERE nodeid=?",
            (nodeid,),
        ).fetchone()
        return TestRecord(*row) if row else None

    def file_hashes(self) -> dict[str, str | None]:
        return dict(self._conn.execute("SELECT path, raw_hash FROM files").fetchall())

    def unit_checksums(self) -> dict[str, dict[str, str | None]]:
        """Recorded checksum of every unit, by path then name."""
        out: dict[str, dict[str, str | None]] = {}
        for path, name, checksum in self._conn.execute("SELECT path, name, checksum FROM units"):
            out.setdefault(path, {})[name] = checksum
        return out

    def units_of(self, path: str) -> dict[str, str | None]:
        """Recorded checksum of every unit of one file, by unit name."""
        return dict(
            self._conn.execute("SELECT name, checksum FROM units WHERE path=?", (path,)).fetchall()
        )

    def tests_depending_on_any(self, units: Iterable[Unit]) -> dict[str, Unit]:
        """For each test depending on one of ``units``: the first such unit (sorted)."""
        out: dict[str, Unit] = {}
        for unit in sorted(units):
            for (nodeid,) in self._conn.execute(
                "SELECT t.nodeid FROM units u JOIN deps d ON d.unit_id=u.id"
                " JOIN tests t ON t.id=d.test_id WHERE u.path=? AND u.name=?",
                (unit.path, unit.name),
            ):
                out.setdefault(nodeid, unit)
        return out

    def dependencies_of(self, nodeid: str) -> dict[Unit, str | None]:
        """Every unit ``nodeid`` depends on, with its recorded checksum."""
        return {
            Unit(path, name): checksum
            for path, name, checksum in self._conn.execute(
                "SELECT u.path, u.name, u.checksum FROM tests t JOIN deps d ON d.test_id=t.id"
                " JOIN units u ON u.id=d.unit_id WHERE t.nodeid=?",
                (nodeid,),
            )
        }

    def tests_depending_on(self, unit: Unit) -> list[str]:
        return [
            row[0]
            for row in self._conn.execute(
                "SELECT t.nodeid FROM units u JOIN deps d ON d.unit_id=u.id"
                " JOIN tests t ON t.id=d.test_id WHERE u.path=? AND u.name=? ORDER BY t.nodeid",
                (unit.path, unit.name),
            )
        ]

    def executions_of(self, unit: Unit) -> list[Execution]:
        """Tests that executed ``unit`` (a function unit is only ever a dependency because it
        ran), with their last duration and outcome, fastest first."""
        return [
            Execution(nodeid, duration, outcome)
            for nodeid, duration, outcome in self._conn.execute(
                "SELECT t.nodeid, t.duration, t.outcome FROM units u"
                " JOIN deps d ON d.unit_id=u.id JOIN tests t ON t.id=d.test_id"
                " WHERE u.path=? AND u.name=? ORDER BY t.duration, t.nodeid",
                (unit.path, unit.name),
            )
        ]

    def recorded_checksum(self, unit: Unit) -> str | None:
        row = self._conn.execute(
            "SELECT checksum FROM units WHERE path=? AND name=?", (unit.path, unit.name)
        ).fetchone()
        return row[0] if row else None

    def known_units(self, path: str | None = None) -> list[Unit]:
        if path is None:
            rows = self._conn.execute("SELECT path, name FROM units ORDER BY path, name")
        else:
            rows = self._conn.execute(
                "SELECT path, name FROM units WHERE path=? ORDER BY name", (path,)
            )
        return [Unit(p, n) for p, n in rows]

    # -- REKS primitives (refactoring-aware updates) --------------------------------------

    def _unit_id(self, unit: Unit, create_with: str | None = None) -> int | None:
        row = self._conn.execute(
            "SELECT id FROM units WHERE path=? AND name=?", (unit.path, unit.name)
        ).fetchone()
        if row:
            return int(row[0])
        if create_with is None:
            return None
        cur = self._conn.execute(
            "INSERT INTO units (path, name, checksum) VALUES (?,?,?)",
            (unit.path, unit.name, create_with),
        )
        return int(cur.lastrowid or 0)

    def _forget_raw_hash(self, path: str) -> None:
        self._conn.execute("UPDATE files SET raw_hash=NULL WHERE path=?", (path,))
        self._forget_caches()

    def _set_checksum(self, uid: int, unit: Unit, checksum: str, keep: set[int]) -> None:
        """Set a unit's checksum; tests not in ``keep`` that depended on the old value
        become stale (they never ran against ``checksum``)."""
        row = self._conn.execute("SELECT checksum FROM units WHERE id=?", (uid,)).fetchone()
        if row and row[0] != checksum:
            for (test_id,) in self._conn.execute(
                "SELECT test_id FROM deps WHERE unit_id=?", (uid,)
            ).fetchall():
                if test_id not in keep:
                    self._conn.execute(
                        "UPDATE tests SET stale=? WHERE id=? AND stale IS NULL",
                        (f"{unit} changed", test_id),
                    )
        self._conn.execute("UPDATE units SET checksum=? WHERE id=?", (checksum, uid))
        self._forget_raw_hash(unit.path)

    def refresh_checksum(self, unit: Unit, new_checksum: str) -> None:
        """Rule 1: the unit changed only through a refactoring; its dependents keep their
        results. Unknown units are ignored (no test depends on them)."""
        with self.transaction():
            uid = self._unit_id(unit)
            if uid is None:
                return
            self._conn.execute("UPDATE units SET checksum=? WHERE id=?", (new_checksum, uid))
            self._forget_raw_hash(unit.path)

    def replace_unit(self, old: Unit, new: Unit, checksum: str) -> None:
        """Rule 2: every dependency on ``old`` becomes a dependency on ``new``."""
        with self.transaction():
            old_id = self._unit_id(old)
            if old_id is None:
                return
            tests = {
                r[0]
                for r in self._conn.execute(
                    "SELECT test_id FROM deps WHERE unit_id=?", (old_id,)
                ).fetchall()
            }
            new_id = self._unit_id(new, create_with=checksum)
            assert new_id is not None
            self._set_checksum(new_id, new, checksum, keep=tests)
            self._conn.executemany(
                "INSERT OR IGNORE INTO deps VALUES (?,?)", [(t, new_id) for t in tests]
            )
            if new_id != old_id:
                self._conn.execute("DELETE FROM deps WHERE unit_id=?", (old_id,))
                self._conn.execute("DELETE FROM units WHERE id=?", (old_id,))
                self._forget_raw_hash(old.path)

    def add_dependents(self, source_unit: Unit, new_unit: Unit, checksum: str) -> None:
        """Rule 3: tests that depended on ``source_unit`` also depend on ``new_unit``."""
        with self.transaction():
            src_id = self._unit_id(source_unit)
            if src_id is None:
                return
            tests = {
                r[0]
                for r in self._conn.execute(
                    "SELECT test_id FROM deps WHERE unit_id=?", (src_id,)
                ).fetchall()
            }
            new_id = self._unit_id(new_unit, create_with=checksum)
            assert new_id is not None
            self._set_checksum(new_id, new_unit, checksum, keep=tests)
            self._conn.executemany(
                "INSERT OR IGNORE INTO deps VALUES (?,?)", [(t, new_id) for t in tests]
            )

    def remove_unit(self, unit: Unit) -> None:
        """Forget a unit that no longer exists and every dependency on it."""
        with self.transaction():
            uid = self._unit_id(unit)
            if uid is None:
                return
            self._conn.execute("DELETE FROM deps WHERE unit_id=?", (uid,))
            self._conn.execute("DELETE FROM units WHERE id=?", (uid,))
            self._forget_raw_hash(unit.path)

    def mark_stale(self, nodeids: Iterable[str], reason: str) -> None:
        with self.transaction():
            self._conn.executemany(
                "UPDATE tests SET stale=? WHERE nodeid=? AND stale IS NULL",
                [(reason, n) for n in nodeids],
            )

    # -- information --------------------------------------------------------------------

    def info(self) -> StoreInfo:
        def count(table: str) -> int:
            return int(self._conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

        last = self._conn.execute(
            "SELECT id, kind, started, finished, details FROM sessions ORDER BY id DESC LIMIT 1"
        ).fetchone()
        outcomes = dict(
            self._conn.execute("SELECT outcome, count(*) FROM tests GROUP BY outcome").fetchall()
        )
        stale = int(
            self._conn.execute("SELECT count(*) FROM tests WHERE stale IS NOT NULL").fetchone()[0]
        )
        return StoreInfo(
            path=self.path,
            schema_version=SCHEMA_VERSION,
            tests=count("tests"),
            units=count("units"),
            dependencies=count("deps"),
            files=count("files"),
            sessions=count("sessions"),
            last_session=None
            if last is None
            else {
                "id": last[0],
                "kind": last[1],
                "started": last[2],
                "finished": last[3],
                "details": json.loads(last[4] or "{}"),
            },
            outcomes=outcomes,
            stale=stale,
            size_bytes=self.path.stat().st_size if self.path.exists() else 0,
        )

    def check_integrity(self) -> str:
        return str(self._conn.execute("PRAGMA quick_check").fetchone()[0])
