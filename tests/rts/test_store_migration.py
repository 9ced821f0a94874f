"""A store written by the previous reks (schema 2) opens under the current schema with its
records, its refactoring task log included, and every table works afterwards."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from lsp_server.rts.analysis_cache import cached_source_units
from lsp_server.rts.file_units import Unit
from lsp_server.rts.provenance import Origin, Provenance
from lsp_server.rts.refactoring_rules import apply_rules, record_refactoring
from lsp_server.rts.store import SCHEMA_VERSION, DependencyStore, store_path
from lsp_server.rts.test_status import tasks_since
from lsp_server.rts.test_status import test_status as current_test_status

# The DDL of schema version 2, as reks wrote it (the task log was created on first use
# by the REKS rules, outside the versioned schema).
SCHEMA_2 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, started REAL NOT NULL,
    finished REAL, environment TEXT NOT NULL, options TEXT,
    details TEXT NOT NULL DEFAULT '{}');
CREATE TABLE tests (id INTEGER PRIMARY KEY, nodeid TEXT NOT NULL UNIQUE,
    outcome TEXT NOT NULL, duration REAL NOT NULL, environment TEXT NOT NULL, options TEXT,
    session_id INTEGER, stale TEXT, recorded REAL NOT NULL);
CREATE TABLE units (id INTEGER PRIMARY KEY, path TEXT NOT NULL, name TEXT NOT NULL,
    checksum TEXT, UNIQUE (path, name));
CREATE TABLE deps (test_id INTEGER NOT NULL, unit_id INTEGER NOT NULL,
    PRIMARY KEY (test_id, unit_id)) WITHOUT ROWID;
CREATE INDEX deps_by_unit ON deps (unit_id, test_id);
CREATE TABLE files (path TEXT PRIMARY KEY, raw_hash TEXT);
CREATE TABLE collected (path TEXT PRIMARY KEY, nodeids TEXT NOT NULL);
CREATE TABLE reks_tasks (id INTEGER PRIMARY KEY, applied REAL NOT NULL, kind TEXT NOT NULL,
    description TEXT NOT NULL, exact INTEGER NOT NULL, fallback TEXT,
    after_session INTEGER NOT NULL, details TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '2');
INSERT INTO sessions VALUES (1, 'affected', 10.0, 11.0, 'env', NULL, '{}');
INSERT INTO tests VALUES (1, 't.py::test_f', 'passed', 0.25, 'env', NULL, 1, NULL, 11.0);
INSERT INTO units VALUES (1, 'm.py', 'f', 'c-f');
INSERT INTO deps VALUES (1, 1);
INSERT INTO files VALUES ('m.py', 'raw');
INSERT INTO collected VALUES ('t.py', '["t.py::test_f"]');
"""

OLD_TASK = {"kind": "rename", "skipped_tests": ["t.py::test_f"], "affected_tests": []}


def _schema_2_store(root: Path) -> None:
    path = store_path(root)
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_2)
    conn.execute(
        "INSERT INTO reks_tasks VALUES (1, 12.0, 'rename', 'rename `f`->`g`', 1, NULL, 1, ?)",
        (json.dumps(OLD_TASK),),
    )
    conn.commit()
    conn.close()


def test_schema_2_store_migrates_with_its_rows(tmp_path: Path) -> None:
    _schema_2_store(tmp_path)
    with DependencyStore(tmp_path, create=False) as store:
        assert SCHEMA_VERSION == 7
        assert store.info().schema_version == 7
        assert store.return_kinds([Unit("m.py", "f")]) == {}
        assert store.setup_times() == {}  # recorded before set-up times were
        assert store.test_records()["t.py::test_f"].duration == 0.25
        assert store.dependencies_of("t.py::test_f") == {Unit("m.py", "f"): "c-f"}
        assert store.collected_files() == {"t.py": ["t.py::test_f"]}
        [old] = tasks_since(store, 0)
        assert (old.kind, old.description, old.skipped_tests) == (
            "rename",
            "rename `f`->`g`",
            ("t.py::test_f",),
        )
    conn = sqlite3.connect(store_path(tmp_path))
    assert conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("7",)
    conn.close()


def test_task_log_and_verdicts_work_after_migration(tmp_path: Path) -> None:
    _schema_2_store(tmp_path)
    (tmp_path / "m.py").write_text("def g():\n    return 1\n")
    provenance = Provenance(
        "rename",
        "rename `f`->`g`",
        files_before={"m.py": "def f():\n    return 1\n"},
        files_after={"m.py": "def g():\n    return 1\n"},
    )
    provenance.add(Origin.REPLACED, Unit("m.py", "f"), Unit("m.py", "g"))
    before = cached_source_units("m.py", "def f():\n    return 1\n").checksums["f"]
    conn = sqlite3.connect(store_path(tmp_path))
    conn.execute("UPDATE units SET checksum=? WHERE name='f'", (before,))  # f as last tested
    conn.commit()
    conn.close()
    with DependencyStore(tmp_path) as store:
        outcome = apply_rules(store, provenance)
        assert outcome.applied and outcome.task_id == 2
        assert [t.id for t in tasks_since(store)] == [1, 2]
        assert tasks_since(store)[1].skipped_tests == ("t.py::test_f",)
        store.save_extreme_verdicts("ctx", {"m.py::g": {"results": [1]}})
        assert store.extreme_verdicts("ctx") == {"m.py::g": {"results": [1]}}
        assert store.extreme_verdicts("other tests") == {}
    with DependencyStore(tmp_path) as store:  # persisted, and reopened at version 3
        assert store.extreme_verdicts("ctx") == {"m.py::g": {"results": [1]}}
        assert [t.id for t in tasks_since(store)] == [1, 2]


def test_store_holding_only_verdicts_has_no_tests_to_update(tmp_path: Path) -> None:
    # The extreme analysis makes a store for its verdicts before any `pytest --reks`.
    with DependencyStore(tmp_path) as store:
        store.save_extreme_verdicts("ctx", {"m.py::f": {}})
    provenance = Provenance("rename", "rename `f`->`g`")
    assert record_refactoring(tmp_path, provenance) is None
    assert current_test_status(tmp_path) is None
