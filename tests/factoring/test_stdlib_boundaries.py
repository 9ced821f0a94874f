"""Real environments of the standard library (sqlite3, subprocess) as boundaries, and the
refusal of a boundary whose replay is not faster than the real thing."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_server.factoring.factor import factor_tests
from tests.factoring.helpers import edit, factor, make_project, outcomes

LOGIC = """
import sqlite3
import subprocess
import sys


def names(path):
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("create table t (name text)")
        conn.executemany("insert into t values (?)", [("b",), ("a",)])
    rows = conn.execute("select name from t order by name").fetchall()
    conn.close()
    return [row[0] for row in rows]


def echo(text):
    done = subprocess.run(
        [sys.executable, "-c", f"print({text!r})"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()
"""

TESTS = """
import pytest

from app import logic


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "x.db")


def test_sqlite(db_path):
    assert logic.names(db_path) == ["a", "b"]


def test_subprocess():
    assert logic.echo("hi") == "hi"
"""


def test_sqlite3_and_subprocess_replay_and_catch_a_broken_t(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS)
    nodeids = ["tests/test_logic.py::test_sqlite", "tests/test_logic.py::test_subprocess"]
    results = factor_tests(root, nodeids, ["sqlite3", "subprocess"], keep_slower=True)
    for result in results:
        assert result.status == "factored", result.reason
    factored = [r.factored_test or "" for r in results]
    emitted = (root / factored[0].split("::")[0]).read_text(encoding="utf-8")
    assert "from test_logic import db_path" in emitted  # the original module's fixture
    assert "def test_sqlite_factored(db_path):" in emitted
    data = json.loads((root / (results[0].transcript or "")).read_text(encoding="utf-8"))
    assert data["format"] == "reks-factoring-transcript" and data["version"] == 5
    assert data["pickled"] is False and data["boundary"] == ["sqlite3", "subprocess"]
    assert data["events"][0]["target"] == "sqlite3.connect"
    assert data["events"][0]["args"] == ["<tmp_path>/x.db"]
    edit(root, "app/logic.py", "order by name", "order by name desc")
    edit(root, "app/logic.py", "done.stdout.strip()", "done.stdout")
    after = outcomes(root, *nodeids, *factored)
    for nodeid in [*nodeids, *factored]:
        assert after[nodeid]["outcome"] == "failed", (nodeid, after[nodeid])
    assert "order by name desc" in after[factored[0]]["divergence"]


def test_boundary_cheaper_than_replay_is_refused(tmp_path: Path) -> None:
    env = "def fast(x):\n    return x + 1\n"
    logic = """
    from app import env


    def total():
        return sum(env.fast(i) for i in range(3000))
    """
    tests = """
    from app import logic


    def test_it():
        assert logic.total() == sum(range(1, 3001))
    """
    root = make_project(tmp_path, logic, tests, env=env)
    result = factor(root, "tests/test_logic.py::test_it", "app.env")
    assert result.status == "refused"
    assert "replay is not faster" in result.reason and "3000 recorded calls" in result.reason
    assert not list((root / "tests").glob("test_factored__*"))


def test_a_coroutine_handed_to_asyncio_run_is_replayed(tmp_path: Path) -> None:
    env = "import asyncio\n\n\nasync def fetch(x):\n    await asyncio.sleep(0.01)\n    return x\n"
    logic = """
    import asyncio

    from app import env


    def get():
        return asyncio.run(env.fetch(3))
    """
    tests = """
    from app import logic


    def test_it():
        assert logic.get() == 3
    """
    root = make_project(tmp_path, logic, tests, env=env)
    [result] = factor_tests(root, ["tests/test_logic.py::test_it"], ["app.env"], keep_slower=True)
    assert result.status == "factored", result.reason
    factored = result.factored_test or ""
    assert outcomes(root, factored)[factored]["outcome"] == "passed"


def test_capture_works_in_a_project_interpreter_without_reks_dependencies(tmp_path: Path) -> None:
    """The project's interpreter runs the capture; it has pytest but not reks's own
    dependencies (xxhash). A shadowing ``xxhash.py`` in the project root stands for that."""
    root = make_project(tmp_path, LOGIC, TESTS)
    (root / "xxhash.py").write_text("raise ImportError('no xxhash here')\n", encoding="utf-8")
    nodeid = "tests/test_logic.py::test_subprocess"
    [result] = factor_tests(root, [nodeid], ["subprocess"], keep_slower=True)
    assert result.status == "factored", result.reason
    data = json.loads((root / (result.transcript or "")).read_text(encoding="utf-8"))
    files = data["environment"]["files"]
    assert any(key.endswith("subprocess.py") for key in files)
    assert all(checksums and "<unhashed>" not in checksums for checksums in files.values())
