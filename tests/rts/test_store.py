"""The dependency store on real SQLite files: invariants, REKS primitives, corruption."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.reads import NEEDED_BY_IMPORT
from lsp_server.rts.select import ReasonKind, select_affected_tests
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import SCHEMA_VERSION, DependencyStore, StoreError, store_path
from lsp_server.rts.unit_names import FILE, LAYOUT, MODULE, NAMES, PLACES, module_read

SRC = "X = 1\n\ndef f():\n    return X\n\ndef g():\n    return 2\n"


def _record(store: DependencyStore, root: Path, nodeid: str, units: list[Unit], outcome="passed"):
    states = FileStates(root)
    snaps = {u.path: states.snapshot(u.path) for u in units}
    store.record_test(
        nodeid, outcome, 0.5, units, snaps, environment="env", options=None, session_id=None
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "m.py").write_text(SRC)
    return tmp_path


def test_record_and_query(project: Path) -> None:
    with DependencyStore(project) as store:
        _record(store, project, "t.py::a", [Unit("m.py", "f"), Unit("m.py", MODULE)])
        _record(store, project, "t.py::b", [Unit("m.py", "g")])
        assert set(store.dependencies_of("t.py::a")) == {Unit("m.py", "f"), Unit("m.py", MODULE)}
        assert store.tests_depending_on(Unit("m.py", "g")) == ["t.py::b"]
        assert [e.nodeid for e in store.executions_of(Unit("m.py", "f"))] == ["t.py::a"]
        assert store.executions_of(Unit("m.py", "f"))[0].duration == 0.5
        assert set(store.units_of("m.py")) == {
            *("f", "g", "f.<def>", "g.<def>", "f.<doc>", "g.<doc>", "X", MODULE),
            *("f.<defaults>", "g.<defaults>", LAYOUT, "f.<lines>", "g.<lines>"),
            *(PLACES, "f.<places>", "g.<places>", FILE),  # FILE: the bytes (source_file_reads)
        }
        sel = select_affected_tests(project, store)
        assert sel.selected == {}
        (project / "m.py").write_text(SRC.replace("return 2", "return 3"))
        sel = select_affected_tests(project, store)
        assert list(sel.selected) == ["t.py::b"]
        assert sel.selected["t.py::b"].kind is ReasonKind.CHANGED


def test_rerecord_marks_other_dependents_stale(project: Path) -> None:
    with DependencyStore(project) as store:
        _record(store, project, "t.py::a", [Unit("m.py", "g")])
        _record(store, project, "t.py::b", [Unit("m.py", "g")])
        (project / "m.py").write_text(SRC.replace("return 2", "return 3"))
        # Only b reruns (e.g. a was deselected by -k); a must still be selected afterwards.
        _record(store, project, "t.py::b", [Unit("m.py", "g")])
        sel = select_affected_tests(project, store)
        assert list(sel.selected) == ["t.py::a"]
        assert "m.py::g changed" in str(sel.selected["t.py::a"])
        # recorded checksum is one value per unit
        assert (
            store.recorded_checksum(Unit("m.py", "g"))
            == FileStates(project).snapshot("m.py").checksums["g"]
        )


def test_reks_primitives(project: Path) -> None:
    with DependencyStore(project) as store:
        _record(store, project, "t.py::a", [Unit("m.py", "f")])
        with store.transaction():
            store.replace_unit(Unit("m.py", "f"), Unit("m.py", "h"), "c1")
            store.add_dependents(Unit("m.py", "h"), Unit("n.py", "k"), "c2")
            store.refresh_checksum(Unit("m.py", "h"), "c3")
        assert store.dependencies_of("t.py::a") == {
            Unit("m.py", "h"): "c3",
            Unit("n.py", "k"): "c2",
        }
        assert store.tests_depending_on(Unit("m.py", "f")) == []
        with pytest.raises(RuntimeError), store.transaction():
            store.refresh_checksum(Unit("m.py", "h"), "c4")
            raise RuntimeError("rolled back")
        assert store.recorded_checksum(Unit("m.py", "h")) == "c3"


def test_corrupt_store_is_reported_and_not_overwritten(project: Path) -> None:
    path = store_path(project)
    path.parent.mkdir()
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="reks store --rebuild"):
        DependencyStore(project)
    assert path.read_bytes() == b"this is not sqlite" * 100
    DependencyStore.rebuild(project).close()
    assert path.with_name(path.name + ".bak").read_bytes().startswith(b"this is not")
    DependencyStore(project).close()


def test_foreign_version(project: Path) -> None:
    DependencyStore(project).close()
    conn = sqlite3.connect(store_path(project))
    conn.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="schema version 99"):
        DependencyStore(project)


def test_version_1_store_is_migrated_with_its_records(project: Path) -> None:
    with DependencyStore(project) as store:
        _record(store, project, "t.py::a", [Unit("m.py", "f")])
    conn = sqlite3.connect(store_path(project))
    for table in ("collected", "reks_tasks", "extreme_verdicts"):  # not in version 1
        conn.execute(f"DROP TABLE {table}")
    _back_to_dependency_rows(conn)
    conn.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    with DependencyStore(project) as store:
        assert store.info().schema_version == SCHEMA_VERSION
        assert set(store.test_records()) == {"t.py::a"}
        assert set(store.dependencies_of("t.py::a")) == {Unit("m.py", "f")}
        store.record_collection({"t.py": ["t.py::b", "t.py::a"]})
        assert store.collected_files() == {"t.py": ["t.py::a", "t.py::b"]}


def _back_to_dependency_rows(conn: sqlite3.Connection) -> None:
    """The dependencies as versions 1-6 kept them: one ``deps`` row per test and unit."""
    rows = conn.execute("SELECT test_id, unit_id FROM deps").fetchall()
    conn.execute("DROP VIEW deps")
    for table in ("test_depsets", "depset_units", "depsets"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute(
        "CREATE TABLE deps (test_id INTEGER NOT NULL, unit_id INTEGER NOT NULL,"
        " PRIMARY KEY (test_id, unit_id)) WITHOUT ROWID"
    )
    conn.executemany("INSERT INTO deps VALUES (?,?)", rows)


def _writer(root: str, prefix: str) -> None:
    store = DependencyStore(Path(root))
    for i in range(60):
        _record(store, Path(root), f"{prefix}{i}", [Unit("m.py", "f"), Unit("m.py", "g")])
    store.close()


def test_two_processes_write_at_once(project: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(project), p)) for p in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    with DependencyStore(project) as store:
        assert len(store.test_records()) == 120
        assert store.check_integrity() == "ok"


def test_a_unit_added_after_its_file_was_cached_is_recorded(project: Path) -> None:
    # The store reads a file's unit ids once per session; a function added to the file
    # later must still get its own row and dependencies.
    with DependencyStore(project) as store:
        _record(store, project, "t.py::a", [Unit("m.py", "f")])
        (project / "m.py").write_text(SRC + "\ndef h():\n    return 4\n")
        _record(store, project, "t.py::b", [Unit("m.py", "h"), Unit("m.py", "f")])
        assert set(store.dependencies_of("t.py::b")) == {Unit("m.py", "h"), Unit("m.py", "f")}
        assert store.tests_depending_on(Unit("m.py", "f")) == ["t.py::a", "t.py::b"]


def test_recording_a_test_again_leaves_exactly_its_new_dependencies(project: Path) -> None:
    # Only the rows that changed are written: what was dropped goes, what is new comes,
    # what stayed stays, and the index by unit agrees.
    with DependencyStore(project) as store:
        _record(store, project, "t.py::a", [Unit("m.py", "f"), Unit("m.py", "X")])
        _record(store, project, "t.py::a", [Unit("m.py", "f"), Unit("m.py", "g")])
        assert set(store.dependencies_of("t.py::a")) == {Unit("m.py", "f"), Unit("m.py", "g")}
        assert store.tests_depending_on(Unit("m.py", "X")) == []
        assert store.tests_depending_on(Unit("m.py", "g")) == ["t.py::a"]
        _record(store, project, "t.py::a", [])
        assert set(store.dependencies_of("t.py::a")) == set()
        assert store.check_integrity() == "ok"


def test_what_each_test_ran_is_replaced_per_test_in_a_batch(project: Path) -> None:
    f, g = Unit("m.py", "f"), Unit("m.py", "g")
    with DependencyStore(project) as store:
        for nodeid in ("t.py::a", "t.py::b", "t.py::c"):
            _record(store, project, nodeid, [f, g])
        store.record_ran({"t.py::a": [f], "t.py::b": [f, g], "t.py::c": [g]})
        store.record_ran({"t.py::a": [g], "t.py::b": [], "t.py::gone": [f]})
        assert store.tests_that_ran(f) == []
        assert sorted(store.tests_that_ran(g)) == ["t.py::a", "t.py::c"]


def _count_row_writes(root: Path, table: str) -> sqlite3.Connection:
    """A connection to the store whose ``writes`` table counts the rows inserted into and
    deleted from ``table`` (triggers in the store itself: any connection's writes count)."""
    conn = sqlite3.connect(store_path(root))
    conn.executescript(
        f"CREATE TABLE writes (kind TEXT);"
        f"CREATE TRIGGER counted_inserts AFTER INSERT ON {table}"
        f" BEGIN INSERT INTO writes VALUES ('insert'); END;"
        f"CREATE TRIGGER counted_deletes AFTER DELETE ON {table}"
        f" BEGIN INSERT INTO writes VALUES ('delete'); END;"
    )
    return conn


def test_recording_what_tests_ran_again_writes_only_the_rows_that_changed(project: Path) -> None:
    # A second session re-records every test, most of which ran the same functions: their
    # rows stay, and only a test whose functions changed has rows deleted and inserted.
    f, g = Unit("m.py", "f"), Unit("m.py", "g")
    with DependencyStore(project) as store:
        for nodeid in ("t.py::a", "t.py::b"):
            _record(store, project, nodeid, [f, g])
        store.record_ran({"t.py::a": [f, g], "t.py::b": [f]})
        counter = _count_row_writes(project, "ran")
        store.record_ran({"t.py::a": [f, g], "t.py::b": [g]})
        writes = sorted(kind for (kind,) in counter.execute("SELECT kind FROM writes"))
        counter.close()
        assert writes == ["delete", "insert"]
        assert store.tests_that_ran(f) == ["t.py::a"]
        assert sorted(store.tests_that_ran(g)) == ["t.py::a", "t.py::b"]


def test_what_a_forgotten_test_ran_is_written_again_when_it_is_recorded_again(
    project: Path,
) -> None:
    # The store keeps the ``ran`` rows it read (the table has no index by test): forgetting
    # a test, or another connection's commit, must not leave it believing rows are there.
    f = Unit("m.py", "f")
    with DependencyStore(project) as store:
        _record(store, project, "t.py::a", [f])
        store.record_ran({"t.py::a": [f]})
        store.forget_tests(["t.py::a"])
        _record(store, project, "t.py::a", [f])
        store.record_ran({"t.py::a": [f]})
        assert store.tests_that_ran(f) == ["t.py::a"]
        other = sqlite3.connect(store_path(project))
        with other:
            other.execute("DELETE FROM ran")
        other.close()
        store.record_ran({"t.py::a": [f]})
        assert store.tests_that_ran(f) == ["t.py::a"]


def test_a_removed_binding_selects_what_imports_need_not_who_may_read_any_name(
    project: Path,
) -> None:
    # ``from m import X`` elsewhere (n.py) fails once m binds X no more (NAMES
    # <from>X@m.py); a test that may read any name but depends on no unit of X cannot tell.
    (project / "n.py").write_text("from m import X\n")
    with DependencyStore(project) as store:
        _record(store, project, "t.py::any", [Unit("m.py", MODULE), Unit(NAMES, "*")])
        needs = Unit(NAMES, module_read(NEEDED_BY_IMPORT + "X", "m.py"))
        importer = [Unit("m.py", MODULE), Unit("n.py", MODULE), needs]
        _record(store, project, "t.py::imports", importer)
        (project / "m.py").write_text(SRC.replace("X = 1\n", ""))
        assert list(select_affected_tests(project, store).selected) == ["t.py::imports"]
