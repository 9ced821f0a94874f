"""What capture must not change about the test it records, and ``tempfile`` as part of E.

An E object T drops must die during capture as it does in the plain run: a sqlite cursor
kept alive keeps its statement running, and ``DROP TABLE`` then fails with "database table
is locked". A folder ``tempfile.mkdtemp`` made in the capture is made afresh on replay, under a
name of the replay's own, and T handing that name back to E matches the capture's role.
"""

from __future__ import annotations

import json
from pathlib import Path

from lsp_server.factoring.factor import factor_test
from tests.factoring.helpers import edit, make_project, outcomes

DROPPING = """
import sqlite3


def first_then_drop(path):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("create table t (x)")
    conn.executemany("insert into t values (?)", [(1,), (2,)])
    first = conn.execute("select x from t order by x").fetchone()[0]  # cursor not read out
    conn.execute("drop table t")
    conn.close()
    return first
"""

DROPPING_TESTS = """
from app import logic


def test_drop(tmp_path):
    assert logic.first_then_drop(str(tmp_path / "x.db")) == 1
"""


def test_a_cursor_t_dropped_is_released_during_capture(tmp_path: Path) -> None:
    root = make_project(tmp_path, DROPPING, DROPPING_TESTS)
    nodeid = "tests/test_logic.py::test_drop"
    result = factor_test(root, nodeid, ["sqlite3"], keep_slower=True)
    assert result.status == "factored", result.reason
    factored = result.factored_test or ""
    assert outcomes(root, factored)[factored]["outcome"] == "passed"


MKDTEMP = """
import os
import shutil
import sqlite3
import tempfile


def stored(names):
    folder = tempfile.mkdtemp(prefix="app-")
    with open(os.path.join(folder, "names.txt"), "w") as sink:  # T writes into E's folder
        sink.write(",".join(names))
    conn = sqlite3.connect(os.path.join(folder, "x.db"))
    with conn:
        conn.execute("create table t (name text)")
        conn.executemany("insert into t values (?)", [(n,) for n in names])
    rows = conn.execute("select name from t order by name").fetchall()
    conn.close()
    shutil.rmtree(folder)
    return [row[0] for row in rows]
"""

MKDTEMP_TESTS = """
from app import logic


def test_stored():
    assert logic.stored(["b", "a"]) == ["a", "b"]
"""


def test_a_folder_mkdtemp_made_in_e_is_made_afresh_and_its_name_is_its_role(
    tmp_path: Path,
) -> None:
    root = make_project(tmp_path, MKDTEMP, MKDTEMP_TESTS)
    nodeid = "tests/test_logic.py::test_stored"
    result = factor_test(root, nodeid, ["sqlite3", "tempfile"], keep_slower=True)
    assert result.status == "factored", result.reason
    data = json.loads((root / (result.transcript or "")).read_text(encoding="utf-8"))
    [made] = [e for e in data["events"] if e.get("target") == "tempfile.mkdtemp"]
    assert made["result"].endswith("app-<tempfile#1>")
    [connect] = [e for e in data["events"] if e.get("target") == "sqlite3.connect"]
    assert connect["args"][0].endswith("app-<tempfile#1>/x.db")
    factored = result.factored_test or ""
    assert outcomes(root, factored)[factored]["outcome"] == "passed"
    edit(root, "app/logic.py", '"x.db"', '"y.db"')  # a real difference in the same folder
    after = outcomes(root, nodeid, factored)
    assert after[factored]["outcome"] == "failed" and "y.db" in after[factored]["divergence"]


MKSTEMP = """
import os
import tempfile


def written(text):
    handle, name = tempfile.mkstemp()
    os.write(handle, text.encode())
    os.close(handle)
    with open(name) as source:
        found = source.read()
    os.remove(name)
    return found
"""

MKSTEMP_TESTS = """
from app import logic


def test_written():
    assert logic.written("x") == "x"
"""


def test_mkstemp_in_e_refuses_the_boundary_with_its_reason(tmp_path: Path) -> None:
    """Replayed, ``mkstemp``'s descriptor would be a number T writes to through ``os``:
    whatever file the replay's process has open under it."""
    root = make_project(tmp_path, MKSTEMP, MKSTEMP_TESTS)
    result = factor_test(root, "tests/test_logic.py::test_written", ["tempfile"], keep_slower=True)
    assert result.status == "refused"
    assert "mkstemp hands T an open file descriptor" in result.reason, result.reason
    assert not list((root / "tests").glob("test_factored__*"))


COPYING = """
import os
import shutil
import tempfile


def copied_text(source):
    with tempfile.TemporaryDirectory(prefix="PREFIX") as folder:
        target = os.path.join(folder, "copy")
        shutil.copytree(source, target)  # E copies: the replay must find the copy too
        with open(os.path.join(target, "sub", "a.txt")) as copied:
            return copied.read()
"""

COPYING_TESTS = """
from app import logic


def test_copied(tmp_path):
    (tmp_path / "src" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "sub" / "a.txt").write_text("hello")
    assert logic.copied_text(str(tmp_path / "src")) == "hello"
"""


def test_a_copy_by_shutil_in_e_is_redone_and_a_temporary_directory_removed_on_replay(
    tmp_path: Path,
) -> None:
    """``shutil.copytree`` in E wrote files T then reads; a ``TemporaryDirectory`` E made
    is removed at the end of its ``with`` block: both are redone on replay (the replay's
    folder was left behind, and T found no copy in it)."""
    import tempfile
    import uuid

    prefix = f"reks-td-{uuid.uuid4().hex[:8]}-"
    root = make_project(tmp_path, COPYING.replace("PREFIX", prefix), COPYING_TESTS)
    result = factor_test(
        root, "tests/test_logic.py::test_copied", ["tempfile", "shutil"], keep_slower=True
    )
    assert result.status == "factored", result.reason
    assert not list(Path(tempfile.gettempdir()).glob(prefix + "*"))  # capture and checks
    data = json.loads((root / (result.transcript or "")).read_text(encoding="utf-8"))
    effects = [effect for event in data["events"] for effect in event.get("fs", ())]
    assert ["gone", f"{tempfile.gettempdir()}/{prefix}<tempfile#1>"] in effects
    assert any(e[0] == "file" and e[1].endswith("<tempfile#1>/copy/sub/a.txt") for e in effects)
    factored = result.factored_test or ""
    assert outcomes(root, factored)[factored]["outcome"] == "passed"
    assert not list(Path(tempfile.gettempdir()).glob(prefix + "*"))
