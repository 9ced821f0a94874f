"""The store's schema: tables, version, migrations, and opening a connection safely.

Layout: ``<root>/.reks/deps.sqlite`` in WAL mode. This module is the only place that says
what tables exist: the dependency tables of test selection, the log of refactoring tasks
(REKS) and the cached verdicts of the extreme analysis. A store made by an older reks is
migrated in place (it keeps its records); a newer, foreign or corrupt file is reported
with the way to recover, never overwritten.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from lsp_server.project.files import STORE_DIR
from lsp_server.rts.store.depsets import DEPSET_TABLES, FROM_SCHEMA_6
from lsp_server.rts.store.errors import (
    CORRUPT,
    StoreError,
    folder_is_writable,
    recovery_hint,
    store_error,
)

SCHEMA_VERSION = 7
STORE_FILE = "deps.sqlite"
BUSY_TIMEOUT_MS = 60_000
QUICK_CHECK_MAX_BYTES = 8 * 1024 * 1024
"""Stores up to this size get SQLite's ``PRAGMA quick_check`` when opened (a few tens of
milliseconds); a larger store is checked by ``reks store --info`` only, and a damaged page
met later is still reported as corruption, never read past."""

_TASKS_TABLE = """CREATE TABLE IF NOT EXISTS reks_tasks (
    id INTEGER PRIMARY KEY,
    applied REAL NOT NULL,
    kind TEXT NOT NULL,
    description TEXT NOT NULL,
    exact INTEGER NOT NULL,
    fallback TEXT,
    after_session INTEGER NOT NULL,
    details TEXT NOT NULL
)"""

# ``function`` is the analysis's key of a function (path::qualname); ``context`` says what
# the verdicts were computed under (the tests and settings); ``entry`` is the analysis's
# own JSON (what must stay unchanged for the verdicts to hold, and the verdicts).
_EXTREME_TABLE = """CREATE TABLE IF NOT EXISTS extreme_verdicts (
    function TEXT PRIMARY KEY,
    context TEXT NOT NULL,
    entry TEXT NOT NULL
)"""

# The tests REKS skipped because of a trusted task, until a run on code that includes the
# task settles them: ``state`` is "pending", "passed" or "failed" (an alarm);
# ``session_id`` is the session that settled it; ``learnt`` says the failure's shape went
# into the user's known-failure file.
_SKIPPED_TABLE = """CREATE TABLE IF NOT EXISTS skipped_tests (
    task_id INTEGER NOT NULL,
    nodeid TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    session_id INTEGER,
    settled REAL,
    learnt INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (task_id, nodeid)
)"""

# What an alarm about a task needs later: where it was asked for (``target``: JSON, or
# NULL) and the text before and after of each file it changed (``files``: JSON
# path -> [before, after]), to say exactly what to undo and to learn its shape.
_EVIDENCE_TABLE = """CREATE TABLE IF NOT EXISTS task_evidence (
    task_id INTEGER PRIMARY KEY,
    target TEXT,
    files TEXT NOT NULL
)"""

# The kinds of values a function unit returned while recorded tests ran it (JSON list,
# see ``lsp_server.rts.returns``; empty: it ran but never returned), as of the unit's
# ``checksum`` then: a changed function starts afresh.
_RETURNS_TABLE = """CREATE TABLE IF NOT EXISTS return_kinds (
    unit_id INTEGER PRIMARY KEY,
    checksum TEXT,
    kinds TEXT NOT NULL
)"""

# The function units each test ran while it ran (its dependencies also hold the functions
# whose names it reads, and what ran at import): which tests execute a function.
_RAN_TABLE = """CREATE TABLE IF NOT EXISTS ran (
    unit_id INTEGER NOT NULL,
    test_id INTEGER NOT NULL,
    PRIMARY KEY (unit_id, test_id)
) WITHOUT ROWID"""

# Seconds each test's set-up spent on fixtures shared between tests, by scope (JSON object,
# see ``lsp_server.rts.setup_clock``), as of its last recorded run: the room a run of the
# test in another order needs. A test recorded before this table has no row.
_SETUP_TABLE = """CREATE TABLE IF NOT EXISTS setup_times (
    test_id INTEGER PRIMARY KEY,
    times TEXT NOT NULL
)"""

_COLLECTED_TABLE = (
    "CREATE TABLE IF NOT EXISTS collected (path TEXT PRIMARY KEY, nodeids TEXT NOT NULL)"
)

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL,
    environment TEXT NOT NULL,
    options TEXT,
    details TEXT NOT NULL DEFAULT '{{}}'
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
{";".join(DEPSET_TABLES)};
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, raw_hash TEXT);
{_COLLECTED_TABLE};
{_TASKS_TABLE};
{_EXTREME_TABLE};
{_SKIPPED_TABLE};
{_EVIDENCE_TABLE};
{_RETURNS_TABLE};
{_RAN_TABLE};
{_SETUP_TABLE};
"""

# From version N to N + 1: statements that bring an older store up to date (it keeps its
# records; nothing it holds means something else now). Version 2 stores may already hold
# a ``reks_tasks`` table (it used to be created on first use): IF NOT EXISTS keeps it.
MIGRATIONS: dict[int, list[str]] = {
    1: [_COLLECTED_TABLE],
    2: [_TASKS_TABLE, _EXTREME_TABLE],
    3: [_SKIPPED_TABLE, _EVIDENCE_TABLE],
    4: [_RETURNS_TABLE, _RAN_TABLE],
    5: [_SETUP_TABLE],
    6: list(FROM_SCHEMA_6),
}


def is_locked(exc: sqlite3.OperationalError) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


def _retry_while_locked(action: Callable[[], object]) -> None:
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            action()
            return
        except sqlite3.OperationalError as exc:
            if not is_locked(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def store_path(root: Path) -> Path:
    return Path(root) / STORE_DIR / STORE_FILE


def ensure_gitignore(path: Path) -> None:
    """Keep the store's folder out of version control."""
    ignore = path.parent / ".gitignore"
    if not ignore.exists():
        with suppress(OSError):
            ignore.write_text("*\n")


def open_connection(path: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """A connection to the store at ``path`` with the current schema (created or migrated
    as needed), or StoreError saying why the file cannot be used and how to recover.

    ``read_only`` (commands that only read): the file is opened with ``mode=ro``, nothing
    is created or migrated, and a read-only folder is no obstacle."""
    try:
        conn = _connect_read_only(path) if read_only else _connect(path)
    except sqlite3.Error as exc:
        raise store_error(path, exc, writing=not read_only) from exc
    try:
        if read_only:
            if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                raise StoreError(f"the dependency store {path} is empty; run `pytest --reks`")
        else:
            _prepare_for_writing(conn)
        _check_version(conn, path, read_only)
        if path.stat().st_size <= QUICK_CHECK_MAX_BYTES:
            problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check(20)")]
            if problems != ["ok"]:
                first = problems[0].splitlines()[0]
                raise StoreError(
                    f"the dependency store {path} is corrupt (SQLite's quick_check: {first},"
                    f" and more); " + recovery_hint(path),
                    CORRUPT,
                )
    except sqlite3.Error as exc:
        conn.close()
        raise store_error(path, exc, writing=not read_only) from exc
    except (StoreError, OSError):
        conn.close()
        raise
    return conn


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection; in a folder nobody can write, the file is opened as
    immutable (SQLite could not make its shared-memory file) unless a write-ahead log
    holds changes that immutable reading would miss."""
    uri = path.resolve().as_uri() + "?mode=ro"
    timeout = BUSY_TIMEOUT_MS / 1000
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        wal = path.with_name(path.name + "-wal")
        has_log = wal.exists() and wal.stat().st_size > 0
        if has_log or folder_is_writable(path):
            raise
    return sqlite3.connect(uri + "&immutable=1", uri=True, timeout=timeout, isolation_level=None)


def _prepare_for_writing(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # Switching a new file to WAL takes an exclusive lock and SQLite answers BUSY at
    # once, without its busy handler, while another process opens the same file.
    _retry_while_locked(lambda: conn.execute("PRAGMA journal_mode=WAL"))
    conn.execute("PRAGMA synchronous=NORMAL")
    if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
        _create(conn)


def _create(conn: sqlite3.Connection) -> None:
    """The schema of an empty database (new, or another process is creating it right
    now: IF NOT EXISTS and INSERT OR IGNORE make two creators harmless)."""
    conn.execute("BEGIN IMMEDIATE")
    for statement in SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    conn.execute("INSERT OR IGNORE INTO meta VALUES ('created', ?)", (str(time.time()),))
    conn.execute("COMMIT")


def _check_version(conn: sqlite3.Connection, path: Path, read_only: bool) -> None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            raise StoreError(
                f"{path} is not a reks dependency store (no schema version); " + recovery_hint(path)
            ) from exc
        raise
    if row is not None and row[0].isdigit() and int(row[0]) < SCHEMA_VERSION:
        if read_only:
            raise StoreError(
                f"the dependency store {path} was made by an older reks (schema {row[0]});"
                " `pytest --reks` brings it up to date",
                "version",
            )
        _migrate(conn, path, int(row[0]))
        return
    if row is None or row[0] != str(SCHEMA_VERSION):
        found = row[0] if row else "none"
        raise StoreError(
            f"the dependency store {path} has schema version {found}, this reks "
            f"uses {SCHEMA_VERSION}; " + recovery_hint(path)
        )


def _migrate(conn: sqlite3.Connection, path: Path, version: int) -> None:
    if any(v not in MIGRATIONS for v in range(version, SCHEMA_VERSION)):
        raise StoreError(
            f"the dependency store {path} has schema version {version}, too old for "
            f"this reks (version {SCHEMA_VERSION}); " + recovery_hint(path)
        )
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated it while this one waited for the lock.
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        for step in range(int(row[0]), SCHEMA_VERSION):
            for statement in MIGRATIONS[step]:
                conn.execute(statement)
        conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def move_aside(path: Path) -> None:
    """Before a rebuild: keep the old store as ``<name>.bak``, drop its WAL side files."""
    if path.exists():
        os.replace(path, path.with_name(path.name + ".bak"))
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.unlink()
