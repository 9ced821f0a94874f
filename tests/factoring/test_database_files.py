"""The files ``sqlite3`` keeps beside a database (the database, its ``-wal`` and ``-shm``)
exist on replay as they did in the capture, though no database is opened: diskcache's tests
count a cache folder's entries and its code removes value folders with ``os.removedirs``,
which climbs into the cache folder when the database files are missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.factoring.factor import factor_test
from lsp_server.factoring.fs_effects import database_path
from tests.factoring.helpers import edit, make_project, outcomes

LOGIC = """
import os
import sqlite3


class Cache:
    def __init__(self, folder):
        self.folder = folder
        self.conn = sqlite3.connect(os.path.join(folder, "cache.db"), isolation_level=None)
        self.conn.execute("pragma journal_mode=wal").fetchall()
        self.conn.execute("create table if not exists t (k text)")

    def put(self, name):
        os.makedirs(os.path.join(self.folder, "values"), exist_ok=True)
        with open(os.path.join(self.folder, "values", name), "w") as sink:
            sink.write("v")
        self.conn.execute("insert into t values (?)", (name,))

    def remove(self, name):
        self.conn.execute("delete from t where k = ?", (name,))
        path = os.path.join(self.folder, "values", name)
        os.remove(path)
        try:
            os.removedirs(os.path.dirname(path))  # up to the first folder that is not empty
        except OSError:
            pass

    def close(self):
        self.conn.close()
"""

TESTS = """
import os
import shutil
import tempfile

from app.logic import Cache


def test_cache():
    folder = tempfile.mkdtemp(prefix="cache-")
    cache = Cache(folder)
    cache.put("a")
    cache.remove("a")
    assert sorted(os.listdir(folder)) == ["cache.db", "cache.db-shm", "cache.db-wal"]
    cache.close()
    assert os.listdir(folder) == ["cache.db"]
    shutil.rmtree(folder)
"""


def test_database_files_sqlite3_made_and_removed_exist_on_replay(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS)
    nodeid = "tests/test_logic.py::test_cache"
    result = factor_test(root, nodeid, ["sqlite3"], keep_slower=True)
    assert result.status == "factored", result.reason
    data = json.loads((root / (result.transcript or "")).read_text(encoding="utf-8"))
    effects = [(kind, path) for e in data["events"] for kind, path in e.get("fs", [])]
    made = [path for kind, path in effects if kind == "made"]
    gone = [path for kind, path in effects if kind == "gone"]
    assert any(p.endswith("<tempfile#1>/cache.db") for p in made)  # by role: fresh on replay
    assert any(p.endswith("<tempfile#1>/cache.db-wal") for p in gone)
    factored = result.factored_test or ""
    # T no longer removes the values folder: the system test fails, and so does its replay.
    edit(root, "app/logic.py", "os.removedirs(os.path.dirname(path))", "pass")
    after = outcomes(root, nodeid, factored)
    assert after[nodeid]["outcome"] == "failed"
    assert after[factored]["outcome"] == "failed"


@pytest.mark.parametrize(
    ("database", "uri", "expected"),
    [
        ("cache.db", False, "cache.db"),
        (Path("/tmp/x/cache.db"), False, "/tmp/x/cache.db"),
        (b"/tmp/x/cache.db", False, "/tmp/x/cache.db"),
        (":memory:", False, None),
        ("", False, None),
        ("file:/tmp/x/cache.db?mode=ro", True, "/tmp/x/cache.db"),
        ("file:///tmp/x/cache.db", True, "/tmp/x/cache.db"),
        ("file::memory:?cache=shared", True, None),
        ("file:/tmp/x/cache.db", False, "file:/tmp/x/cache.db"),  # a file named so
    ],
)
def test_the_file_a_connect_argument_names(database: object, uri: bool, expected: str) -> None:
    assert database_path(database, {"uri": uri}) == expected
