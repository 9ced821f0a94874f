"""Schema 7: tests link to shared dependency sets. Each test still depends on exactly its
units after sharing, a schema 6 store upgrade, a killed writer and concurrent xdist
workers; no set is left without a test and no test holds a unit twice."""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from lsp_server.rts.file_units import Unit
from lsp_server.rts.select import select_affected_tests
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore, TestResult, store_path
from lsp_server.rts.unit_names import MODULE

from .helpers import write

pytest_plugins = ["pytester"]

SRC = "X = 1\n\ndef f():\n    return X\n\ndef g():\n    return 2\n"
UNITS = [Unit("m.py", n) for n in (MODULE, "f", "g", "X", "f.<def>", "g.<def>", "f.<doc>")]


def _units_of(test: int, round_: int) -> tuple[Unit, ...]:
    """A test's units in one recording round: the module always, others by the bits of a
    number that differs between tests and rounds."""
    bits = (test * 37 + round_ * 11) % 64
    return (UNITS[0], *(u for i, u in enumerate(UNITS[1:]) if bits >> i & 1))


def _record(store: DependencyStore, root: Path, results: list[TestResult]) -> None:
    states = FileStates(root)
    snapshot = states.snapshot("m.py")
    assert snapshot is not None
    store.record_tests(
        results, {"m.py": snapshot}, environment="env", options=None, session_id=None
    )


def _result(nodeid: str, units: tuple[Unit, ...]) -> TestResult:
    return TestResult(nodeid, "passed", 0.1, units)


def _consistency(root: Path) -> tuple[int, int, int]:
    """(sets no test links to, duplicate rows in the deps view, rows kept in sets)."""
    conn = sqlite3.connect(store_path(root))
    try:
        orphans = conn.execute(
            "SELECT count(*) FROM depsets WHERE id NOT IN (SELECT set_id FROM test_depsets)"
        ).fetchone()[0]
        rows, distinct = conn.execute(
            "SELECT count(*), (SELECT count(*) FROM (SELECT DISTINCT test_id, unit_id FROM deps))"
            " FROM deps"
        ).fetchone()
        kept = conn.execute("SELECT count(*) FROM depset_units").fetchone()[0]
    finally:
        conn.close()
    return orphans, rows - distinct, kept


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "m.py").write_text(SRC)
    return tmp_path


def test_tests_of_a_file_share_a_base_and_keep_exactly_their_units(project: Path) -> None:
    common = (Unit("m.py", MODULE), Unit("m.py", "X"), Unit("m.py", "f.<def>"))
    f, g = Unit("m.py", "f"), Unit("m.py", "g")
    with DependencyStore(project) as store:
        _record(
            store,
            project,
            [
                _result("t.py::a", (*common, f)),
                _result("t.py::b", (*common, g)),
                _result("t.py::c", common),
                _result("u.py::d", (f, g)),
            ],
        )
        assert set(store.dependencies_of("t.py::a")) == {*common, f}
        assert set(store.dependencies_of("t.py::b")) == {*common, g}
        assert set(store.dependencies_of("t.py::c")) == set(common)
        assert set(store.dependencies_of("u.py::d")) == {f, g}
        assert store.tests_depending_on(f) == ["t.py::a", "u.py::d"]
        assert store.tests_depending_on(Unit("m.py", "X")) == ["t.py::a", "t.py::b", "t.py::c"]
        keys = store.dependency_keys(["t.py::b", "u.py::d"])
        assert keys["t.py::b"] == {f"{u.path}::{u.name}" for u in (*common, g)}
        # t.py's base (3 units) is kept once, not once per test.
        assert _consistency(project) == (0, 0, 3 + 1 + 1 + 2)
        # Recorded again: b drops g, d is forgotten; nothing else moves.
        _record(store, project, [_result("t.py::b", common)])
        store.forget_tests(["u.py::d"])
        assert set(store.dependencies_of("t.py::b")) == set(common)
        assert set(store.dependencies_of("t.py::a")) == {*common, f}
        assert store.tests_depending_on(g) == []
        assert _consistency(project)[:2] == (0, 0)


def test_a_test_recorded_twice_in_one_batch_keeps_its_last_units(project: Path) -> None:
    f, g = Unit("m.py", "f"), Unit("m.py", "g")
    with DependencyStore(project) as store:
        _record(store, project, [_result("t.py::a", (f,))])
        # A rerun of a flaky test reports it twice: the last run's units are its record.
        x = Unit("m.py", "X")
        _record(store, project, [_result("t.py::a", (f, g, x)), _result("t.py::a", (g,))])
        assert set(store.dependencies_of("t.py::a")) == {g}
        assert _consistency(project)[:2] == (0, 0)


def test_a_refactoring_rule_changes_a_shared_set_for_its_tests_only(project: Path) -> None:
    common = (Unit("m.py", MODULE), Unit("m.py", "f"))
    with DependencyStore(project) as store:
        _record(store, project, [_result("t.py::a", common), _result("t.py::b", common)])
        _record(store, project, [_result("u.py::c", (Unit("m.py", "g"),))])
        store.replace_unit(Unit("m.py", "f"), Unit("m.py", "h"), "sum-h")
        assert set(store.dependencies_of("t.py::a")) == {Unit("m.py", MODULE), Unit("m.py", "h")}
        assert store.tests_depending_on(Unit("m.py", "h")) == ["t.py::a", "t.py::b"]
        store.add_dependents(Unit("m.py", "g"), Unit("m.py", "h"), "sum-h")
        assert store.tests_depending_on(Unit("m.py", "h")) == ["t.py::a", "t.py::b", "u.py::c"]
        # A test recorded later with the set's old contents gets a set of its own.
        _record(store, project, [_result("t.py::d", common)])
        assert set(store.dependencies_of("t.py::d")) == set(common)
        assert set(store.dependencies_of("t.py::a")) == {Unit("m.py", MODULE), Unit("m.py", "h")}
        store.remove_unit(Unit("m.py", "h"))
        assert set(store.dependencies_of("t.py::b")) == {Unit("m.py", MODULE)}
        assert _consistency(project)[:2] == (0, 0)


def test_a_unit_recorded_again_after_its_removal_is_depended_on(project: Path) -> None:
    # The same store object: what it cached of the removed unit's row must not outlive it.
    f = Unit("m.py", "f")
    with DependencyStore(project) as store:
        _record(store, project, [_result("t.py::a", (Unit("m.py", MODULE), f))])
        store.remove_unit(f)
        _record(store, project, [_result("t.py::b", (Unit("m.py", MODULE), f))])
        assert set(store.dependencies_of("t.py::b")) == {Unit("m.py", MODULE), f}
        assert store.tests_depending_on(f) == ["t.py::b"]


# The dependency tables of schema 6, as reks wrote them, with the rest of the schema.
SCHEMA_6_DEPS = """
DROP VIEW deps;
DROP TABLE test_depsets;
DROP TABLE depset_units;
DROP TABLE depsets;
CREATE TABLE deps (test_id INTEGER NOT NULL, unit_id INTEGER NOT NULL,
    PRIMARY KEY (test_id, unit_id)) WITHOUT ROWID;
CREATE INDEX deps_by_unit ON deps (unit_id, test_id);
UPDATE meta SET value='6' WHERE key='schema_version';
"""


def test_a_schema_6_store_is_upgraded_with_every_dependency(project: Path) -> None:
    with DependencyStore(project) as store:
        # Recording a test stores every unit of its files.
        _record(store, project, [_result("t.py::keep", (Unit("m.py", MODULE),))])
    conn = sqlite3.connect(store_path(project))
    ids = {name: uid for uid, name in conn.execute("SELECT id, name FROM units")}
    conn.executescript(SCHEMA_6_DEPS)
    tests = {
        "t.py::keep": (MODULE,),
        "t.py::a": ("f", MODULE),
        "t.py::b": ("g", MODULE),
        "u.py::c": ("X",),
    }
    for nodeid, names in tests.items():
        test_id = conn.execute(
            "INSERT INTO tests (nodeid, outcome, duration, environment, recorded)"
            " VALUES (?, 'passed', 0.1, 'env', 1.0)"
            " ON CONFLICT (nodeid) DO UPDATE SET recorded=1.0 RETURNING id",
            (nodeid,),
        ).fetchone()[0]
        conn.executemany("INSERT INTO deps VALUES (?,?)", [(test_id, ids[n]) for n in names])
    conn.commit()
    conn.close()
    with DependencyStore(project) as store:
        assert store.info().schema_version == 7
        for nodeid, names in tests.items():
            assert set(store.dependencies_of(nodeid)) == {Unit("m.py", n) for n in names}
        assert select_affected_tests(project, store).selected == {}
        (project / "m.py").write_text(SRC.replace("return 2", "return 3"))
        assert list(select_affected_tests(project, store).selected) == ["t.py::b"]
        # Re-recorded, the migrated sets are replaced and dropped when unused.
        _record(store, project, [_result("t.py::a", (Unit("m.py", "g"),))])
        assert set(store.dependencies_of("t.py::a")) == {Unit("m.py", "g")}
        assert set(store.dependencies_of("u.py::c")) == {Unit("m.py", "X")}
        assert store.check_integrity() == "ok"
    assert _consistency(project)[:2] == (0, 0)


def _writer(root: str, progress: str) -> None:
    """Records 12 tests again and again, each round with other units, until killed."""
    store = DependencyStore(Path(root))
    round_ = 0
    while True:
        for start in (0, 6):
            results = [
                _result(f"t{i % 2}.py::test_{i}", _units_of(i, round_))
                for i in range(start, start + 6)
            ]
            _record(store, Path(root), results)
        Path(progress + ".new").write_text(str(round_))
        os.replace(progress + ".new", progress)  # read whole or not at all
        round_ += 1


def test_a_killed_writer_leaves_every_test_with_one_whole_record(project: Path) -> None:
    progress = project / "progress"
    ctx = multiprocessing.get_context("spawn")
    writer = ctx.Process(target=_writer, args=(str(project), str(progress)))
    writer.start()
    deadline = time.monotonic() + 120
    try:
        # Killed while it writes: after a few whole rounds, in the middle of another.
        while not (progress.exists() and int(progress.read_text()) >= 3):
            assert writer.is_alive() and time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        assert writer.pid is not None
        os.kill(writer.pid, signal.SIGKILL)
        writer.join(30)
    last = int(progress.read_text())
    with DependencyStore(project) as store:
        assert store.check_integrity() == "ok"
        for i in range(12):
            units = set(store.dependencies_of(f"t{i % 2}.py::test_{i}"))
            # The round written last, or the one being written when the kill came.
            assert units in ({*_units_of(i, last)}, {*_units_of(i, last + 1)}), i
        assert _consistency(project)[:2] == (0, 0)


@pytest.mark.slow  # two xdist workers start: seconds each
def test_xdist_workers_record_what_one_process_records(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "lib.py",
        """
        LIMIT = 10


        def clamp(x):
            return min(x, LIMIT)


        def double(x):
            return 2 * x
        """,
    )
    for module in ("a", "b"):
        write(
            pytester,
            f"test_{module}.py",
            """
            import pytest

            import lib


            @pytest.mark.parametrize("x", range(6))
            def test_clamp(x):
                assert lib.clamp(x) == x


            def test_double():
                assert lib.double(2) == 4
            """,
        )
    pytester.runpytest("--reks", "-n", "2", "-p", "no:randomly").assert_outcomes(passed=14)
    with DependencyStore(pytester.path) as store:
        nodeids = sorted(store.test_records())
        by_workers = {n: store.dependencies_of(n) for n in nodeids}
    assert _consistency(pytester.path)[:2] == (0, 0)
    pytester.runpytest("--reks-all", "-n", "0", "-p", "no:randomly").assert_outcomes(passed=14)
    with DependencyStore(pytester.path) as store:
        assert {n: store.dependencies_of(n) for n in nodeids} == by_workers
        assert store.check_integrity() == "ok"
    orphans, duplicates, kept = _consistency(pytester.path)
    assert (orphans, duplicates) == (0, 0)
    assert kept < sum(map(len, by_workers.values())) / 2  # shared, not one row per test


def _sets_read(statements: list[str]) -> set[int]:
    """The set ids whose rows the traced statements read from ``depset_units``."""
    read: set[int] = set()
    for sql in statements:
        if sql.lstrip().upper().startswith("SELECT") and "FROM depset_units" in sql:
            where = sql.split("WHERE", 1)[1]
            read.update(int(n) for n in re.findall(r"\b\d+\b", where))
    return read


def test_a_rerun_compares_a_tests_own_set_by_digest(project: Path) -> None:
    """Re-recorded by a new session (nothing cached), unchanged tests are matched without
    reading their own sets' rows back: only the file's shared base is read. A test whose
    units changed is still rewritten to exactly its new units."""
    common = (Unit("m.py", MODULE), Unit("m.py", "X"), Unit("m.py", "f.<def>"))
    f, g, doc = Unit("m.py", "f"), Unit("m.py", "g"), Unit("m.py", "f.<doc>")
    first = [
        _result("t.py::a", (*common, f)),
        _result("t.py::b", (*common, g)),
        _result("t.py::c", (*common, f, g)),
    ]
    with DependencyStore(project) as store:
        _record(store, project, first)
    conn = sqlite3.connect(store_path(project))
    try:
        links = conn.execute("SELECT set_id, count(*) FROM test_depsets GROUP BY set_id")
        shared = {set_id for set_id, tests in links if tests > 1}
    finally:
        conn.close()
    assert len(shared) == 1  # the base of t.py
    with DependencyStore(project) as store:
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        # c's own set changes (g goes, a docstring comes); a and b are unchanged.
        _record(store, project, [*first[:2], _result("t.py::c", (*common, f, doc))])
        store._conn.set_trace_callback(None)
        own_read = _sets_read(statements) - shared
        assert set(store.dependencies_of("t.py::a")) == {*common, f}
        assert set(store.dependencies_of("t.py::b")) == {*common, g}
        assert set(store.dependencies_of("t.py::c")) == {*common, f, doc}
    # Only c's old set is read (it changed: the new split weighs it).
    assert len(own_read) <= 1
    assert _consistency(project)[:2] == (0, 0)


MANY = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(24))


def _record_many(store: DependencyStore, root: Path, results: list[TestResult]) -> None:
    snapshot = FileStates(root).snapshot("many.py")
    assert snapshot is not None
    store.record_tests(
        results, {"many.py": snapshot}, environment="env", options=None, session_id=None
    )


def _many(*numbers: int) -> tuple[Unit, ...]:
    return tuple(Unit("many.py", f"f{i}") for i in numbers)


def test_units_several_tests_share_past_the_base_are_kept_once(project: Path) -> None:
    """Two of three tests of a file also share ten units the third lacks: those are one
    set both link to, not a copy in each test's own set (typeguard's tests each wrote
    ~2,600 such units: a quarter of its recording run)."""
    (project / "many.py").write_text(MANY)
    common, shared = _many(0), _many(*range(1, 11))
    tests = {
        "t.py::a": (*common, *shared, *_many(20)),
        "t.py::b": (*common, *shared, *_many(21)),
        "t.py::c": (*common, *_many(22)),
    }
    with DependencyStore(project) as store:
        _record_many(store, project, [_result(n, units) for n, units in tests.items()])
        for nodeid, units in tests.items():
            assert set(store.dependencies_of(nodeid)) == set(units)
        assert store.tests_depending_on(_many(5)[0]) == ["t.py::a", "t.py::b"]
    # The base (1), the shared ten once, one own unit per test.
    assert _consistency(project) == (0, 0, 1 + 10 + 3)


def test_shared_parts_keep_each_test_exactly_its_units_over_rounds(project: Path) -> None:
    """Tests of two files re-recorded round after round, each time with other overlapping
    units, in batches of different sizes: each test depends on exactly its last units, no
    set is left unlinked and no test holds a unit twice."""
    (project / "many.py").write_text(MANY)

    def units_of(test: int, round_: int) -> tuple[Unit, ...]:
        bits = (test * 2654435761 + round_ * 40503) % (1 << 24)
        return _many(0, *(i for i in range(1, 24) if bits >> i & 1 or i % (test + 2) == 0))

    with DependencyStore(project) as store:
        for round_, size in enumerate((7, 3, 12, 1, 5)):
            nodeids = [f"t{i % 2}.py::test_{i}" for i in range(12)]
            for start in range(0, 12, size):
                batch = nodeids[start : start + size]
                results = [_result(n, units_of(nodeids.index(n), round_)) for n in batch]
                _record_many(store, project, results)
            for i, nodeid in enumerate(nodeids):
                assert set(store.dependencies_of(nodeid)) == set(units_of(i, round_)), nodeid
        assert store.check_integrity() == "ok"
    assert _consistency(project)[:2] == (0, 0)
