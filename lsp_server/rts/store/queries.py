"""What selection, the REKS rules, the extreme analysis and the CLI read from the store."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_server.rts.file_units import Unit
from lsp_server.rts.store.schema import SCHEMA_VERSION
from lsp_server.rts.unit_names import MODULE, NAMES, module_read, read_parts

FEW_TESTS = 50
"""Up to this many tests, ``dependency_keys`` looks each up instead of reading every row."""


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


@dataclass(frozen=True)
class LoggedTask:
    """One row of the refactoring task log."""

    id: int
    applied: float
    kind: str
    description: str
    exact: bool
    fallback: str | None
    after_session: int
    details: dict[str, Any]


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


class StoreQueries:
    """The reading half of ``DependencyStore`` (which opens ``_conn``)."""

    _conn: sqlite3.Connection
    path: Path

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

    def setup_times(self) -> dict[str, dict[str, float]]:
        """Node id -> seconds its last recorded set-up spent on shared fixtures, by scope
        (tests recorded before reks measured it are absent)."""
        return {
            nodeid: json.loads(times)
            for nodeid, times in self._conn.execute(
                "SELECT t.nodeid, s.times FROM setup_times s JOIN tests t ON t.id = s.test_id"
            )
        }

    def has_tests(self) -> bool:
        """Whether any test was ever recorded."""
        return self._conn.execute("SELECT 1 FROM tests LIMIT 1").fetchone() is not None

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

    def return_kinds(self, units: Iterable[Unit]) -> dict[Unit, tuple[str | None, list[str]]]:
        """(checksum, kinds) recorded by ``record_return_kinds`` for those of ``units``
        that tests ran since it was recorded."""
        out: dict[Unit, tuple[str | None, list[str]]] = {}
        for unit in units:
            row = self._conn.execute(
                "SELECT r.checksum, r.kinds FROM units u JOIN return_kinds r ON r.unit_id=u.id"
                " WHERE u.path=? AND u.name=?",
                (unit.path, unit.name),
            ).fetchone()
            if row is not None:
                out[unit] = (row[0], json.loads(row[1]))
        return out

    def tests_that_ran(self, unit: Unit) -> list[str]:
        """The tests that ran the function ``unit`` when last recorded (``record_ran``)."""
        return self._tests_linked("ran", unit)

    def return_kinds_since(self) -> int | None:
        """The first session that recorded return kinds (None: none did)."""
        row = self._conn.execute("SELECT value FROM meta WHERE key='return_kinds_since'").fetchone()
        return int(row[0]) if row is not None and row[0].isdigit() else None

    def tests_reading(
        self, path: str, names: Iterable[str], any_name: bool = True
    ) -> dict[str, str]:
        """Tests that depend on module ``path`` and read one of ``names`` (recorded as
        ``NAMES`` units: anywhere, or as globals of ``path``), each with one such name;
        with ``any_name``, those that may read any name too. Without it, only the names
        recorded as of ``path``."""
        names = set(names)
        if any_name:
            # "*": tests that may read any name; of ``path`` (a module read whole).
            keys = sorted(
                {*names, *(module_read(n, path) for n in names), "*", module_read("*", path)}
            )
        else:
            keys = sorted(module_read(n, path) for n in names)
        out: dict[str, str] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            for nodeid, key in self._conn.execute(
                "SELECT t.nodeid, nu.name FROM units mu JOIN deps md ON md.unit_id=mu.id"
                " JOIN deps nd ON nd.test_id=md.test_id JOIN units nu ON nu.id=nd.unit_id"
                " JOIN tests t ON t.id=md.test_id WHERE mu.path=? AND mu.name=?"
                f" AND nu.path=? AND nu.name IN ({','.join('?' * len(chunk))})",
                (path, MODULE, NAMES, *chunk),
            ):
                out.setdefault(nodeid, read_parts(key)[0])
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

    def dependency_keys(self, nodeids: Iterable[str]) -> dict[str, set[str]]:
        """The units each of ``nodeids`` depends on, as ``path::name`` keys. Reads each
        shared set once and names each unit once: joining and naming every row in SQL
        (or a query per test) cost seconds on a suite of hundreds."""
        wanted = set(nodeids)
        out: dict[str, set[str]] = {nodeid: set() for nodeid in wanted}
        tests = {
            test_id: out[nodeid]
            for test_id, nodeid in self._conn.execute("SELECT id, nodeid FROM tests")
            if nodeid in wanted
        }
        if not tests:
            return out
        keys = {
            uid: f"{path}::{name}"
            for uid, path, name in self._conn.execute("SELECT id, path, name FROM units")
        }
        # Each shared set is read and named once, however many tests link to it.
        links = "SELECT test_id, set_id FROM test_depsets"
        if len(tests) <= FEW_TESTS:  # a few tests of a large store: each by its index
            rows = [
                row
                for test_id in tests
                for row in self._conn.execute(f"{links} WHERE test_id=?", (test_id,))
            ]
        else:
            rows = self._conn.execute(links).fetchall()
        named: dict[int, set[str]] = {}
        for test_id, set_id in rows:
            if test_id in tests:
                if set_id not in named:
                    units = self._conn.execute(
                        "SELECT unit_id FROM depset_units WHERE set_id=?", (set_id,)
                    )
                    named[set_id] = {keys[uid] for (uid,) in units}
                tests[test_id].update(named[set_id])
        return out

    def tests_depending_on(self, unit: Unit) -> list[str]:
        return self._tests_linked("deps", unit)

    def _tests_linked(self, table: str, unit: Unit) -> list[str]:
        """Node ids of the tests that ``table`` (``deps`` or ``ran``) links to ``unit``."""
        return [
            row[0]
            for row in self._conn.execute(
                f"SELECT t.nodeid FROM units u JOIN {table} l ON l.unit_id=u.id"
                " JOIN tests t ON t.id=l.test_id WHERE u.path=? AND u.name=? ORDER BY t.nodeid",
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

    def session_fingerprint(self, environment: str, options: str | None) -> dict[str, Any]:
        """The fingerprint details of the last finished session recorded under
        ``environment`` and ``options`` (empty when none kept them)."""
        row = self._conn.execute(
            "SELECT details FROM sessions WHERE environment=? AND options IS ?"
            " AND finished IS NOT NULL ORDER BY id DESC LIMIT 1",
            (environment, options),
        ).fetchone()
        details = json.loads(row[0]) if row else {}
        found = details.get("fingerprint") if isinstance(details, dict) else None
        return found if isinstance(found, dict) else {}

    def last_session_id(self) -> int:
        """The id of the last test session (0 when none ran)."""
        row = self._conn.execute("SELECT max(id) FROM sessions").fetchone()
        return int(row[0] or 0)

    def logged_tasks(self, after_session: int) -> list[LoggedTask]:
        """Refactoring tasks logged after session ``after_session`` (or later), oldest first."""
        return [
            LoggedTask(
                id=row[0],
                applied=row[1],
                kind=row[2],
                description=row[3],
                exact=bool(row[4]),
                fallback=row[5],
                after_session=row[6],
                details=json.loads(row[7]),
            )
            for row in self._conn.execute(
                "SELECT id, applied, kind, description, exact, fallback, after_session, details"
                " FROM reks_tasks WHERE after_session >= ? ORDER BY id",
                (after_session,),
            )
        ]

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
