"""The recorder hands the store each test's units as ids into the session's table of
interned units (``InternedUnits``): the store translates each interned unit once and
records exactly what the same units given as a tuple record, across batches, a table that
grows between them, a file missing from one batch's snapshots, and a store whose caches
another connection's commit dropped. Real SQLite, real snapshots."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from lsp_server.rts.file_units import Unit
from lsp_server.rts.interned_units import InternedUnits
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore, FileSnapshot, TestResult
from lsp_server.rts.unit_names import MODULE

M = "X = 1\n\ndef f():\n    return X\n\ndef g():\n    return 2\n"
N = "def h():\n    return 3\n"


def _interned(table: list[Unit], units: Collection[Unit]) -> InternedUnits:
    for unit in units:
        if unit not in table:
            table.append(unit)
    ids = frozenset(table.index(u) for u in units)
    return InternedUnits(ids, table, frozenset(u.path for u in units))


def _record(root: Path, results: list[TestResult], paths: tuple[str, ...]) -> None:
    states = FileStates(root)
    snapshots: dict[str, FileSnapshot] = {}
    for path in paths:
        snapshot = states.snapshot(path)
        assert snapshot is not None
        snapshots[path] = snapshot
    with DependencyStore(root) as store:
        store.record_tests(results, snapshots, environment="env", options=None, session_id=None)


def _dependencies(root: Path, nodeids: list[str]) -> dict[str, set[Unit]]:
    with DependencyStore(root) as store:
        return {n: set(store.dependencies_of(n)) for n in nodeids}


def test_interned_units_record_what_the_same_units_as_a_tuple_record(tmp_path: Path) -> None:
    interned, plain = tmp_path / "interned", tmp_path / "plain"
    for root in (interned, plain):
        root.mkdir()
        (root / "m.py").write_text(M)
        (root / "n.py").write_text(N)
    f, g, h = Unit("m.py", "f"), Unit("m.py", "g"), Unit("n.py", "h")
    module, x = Unit("m.py", MODULE), Unit("m.py", "X")
    batches = [
        ([("t.py::a", (module, x, f)), ("t.py::b", (module, g))], ("m.py",)),
        # The table grows: a unit of another file, and a test whose file has no snapshot in
        # this batch (its units without one are left out, as a tuple's are).
        ([("t.py::c", (module, f, h)), ("u.py::d", (module, x, g))], ("m.py",)),
        ([("t.py::c", (module, f, h)), ("t.py::a", (module, g))], ("m.py", "n.py")),
    ]
    table: list[Unit] = []
    for tests, paths in batches:
        _record(
            interned,
            [TestResult(n, "passed", 0.1, _interned(table, units)) for n, units in tests],
            paths,
        )
        _record(plain, [TestResult(n, "passed", 0.1, units) for n, units in tests], paths)
    nodeids = ["t.py::a", "t.py::b", "t.py::c", "u.py::d"]
    assert _dependencies(interned, nodeids) == _dependencies(plain, nodeids)
    assert _dependencies(interned, ["t.py::c"])["t.py::c"] == {module, f, h}


def test_one_store_translates_a_growing_table_over_batches(tmp_path: Path) -> None:
    """One connection records every batch, as the recorder's does: units translated in an
    earlier batch keep their ids, units added to the table later get theirs."""
    (tmp_path / "m.py").write_text(M)
    (tmp_path / "n.py").write_text(N)
    states = FileStates(tmp_path)
    snapshots = {p: s for p in ("m.py", "n.py") if (s := states.snapshot(p)) is not None}
    module, f, g, h = (
        Unit("m.py", MODULE),
        Unit("m.py", "f"),
        Unit("m.py", "g"),
        Unit("n.py", "h"),
    )
    table: list[Unit] = []
    with DependencyStore(tmp_path) as store:
        for nodeid, units in [("t.py::a", (module, f)), ("t.py::b", (module, g, h))]:
            result = TestResult(nodeid, "passed", 0.1, _interned(table, units))
            store.record_tests([result], snapshots, environment="e", options=None, session_id=1)
        # Another connection's commit drops this one's caches: ids are read again.
        with DependencyStore(tmp_path) as other:
            other.record_tests(
                [TestResult("t.py::z", "passed", 0.1, (h,))],
                snapshots,
                environment="e",
                options=None,
                session_id=2,
            )
        result = TestResult("t.py::c", "passed", 0.1, _interned(table, (module, f, h)))
        store.record_tests([result], snapshots, environment="e", options=None, session_id=1)
    deps = _dependencies(tmp_path, ["t.py::a", "t.py::b", "t.py::c", "t.py::z"])
    assert deps == {
        "t.py::a": {module, f},
        "t.py::b": {module, g, h},
        "t.py::c": {module, f, h},
        "t.py::z": {h},
    }
