"""Values that differ between the run that captured and the run that replays only because
they are drawn fresh each run (a ``tempfile.mkdtemp`` folder, a ``time.time()`` reading):
matched by their role, and a real difference still diverges."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from lsp_server.factoring import values
from lsp_server.factoring.factor import factor_tests
from lsp_server.factoring.run_varying import TEMP_NAME_MARK, TEMP_ROOT, watch_temp_names
from tests.factoring.helpers import edit, make_project, outcomes

LOGIC = """
import os
import sqlite3
import time


def names(folder):
    conn = sqlite3.connect(os.path.join(folder, "x.db"))
    now = time.time()
    with conn:
        conn.execute("create table t (name text, stored real)")
        conn.executemany("insert into t values (?, ?)", [("b", now), ("a", now)])
    rows = conn.execute("select name, stored from t order by name").fetchall()
    conn.close()
    assert all(stored == now for _, stored in rows)
    return [row[0] for row in rows]
"""

TESTS = """
import shutil
import tempfile
import time

import pytest

from app import logic


@pytest.fixture
def folder():
    made = tempfile.mkdtemp(prefix="reks-run-varying-")
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_sqlite(folder):
    assert logic.names(folder) == ["a", "b"]
"""


@pytest.mark.slow  # three pytest runs (5-10 s); the roles' logic is tested fast below
def test_a_mkdtemp_folder_and_a_clock_reading_are_the_same_roles_on_replay(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS)
    nodeid = "tests/test_logic.py::test_sqlite"
    [result] = factor_tests(root, [nodeid], ["sqlite3"], keep_slower=True)
    assert result.status == "factored", result.reason
    factored = result.factored_test or ""
    data = json.loads((root / (result.transcript or "")).read_text(encoding="utf-8"))
    [connect] = [e for e in data["events"] if e.get("target") == "sqlite3.connect"]
    [path] = connect["args"]  # the folder's role, not the capture's random name
    assert path == f"{tempfile.gettempdir()}/reks-run-varying-<tempfile#1>/x.db"
    assert outcomes(root, factored)[factored]["outcome"] == "passed"
    edit(root, "app/logic.py", '"x.db"', '"y.db"')  # a real difference under the same folder
    after = outcomes(root, factored)[factored]
    assert after["outcome"] == "failed" and "y.db" in after["divergence"], after


def test_roles_number_fresh_names_in_order_and_fall_back_to_the_capture(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sequence: Any = tempfile._RandomNameSequence  # type: ignore[attr-defined]
    monkeypatch.setattr(sequence, "__next__", sequence.__next__)  # undone after the test
    monkeypatch.setattr(sequence, "_reks_watched", False, raising=False)
    monkeypatch.setattr(TEMP_ROOT, "drawn", set())
    watch_temp_names()
    first, second = tempfile.mkdtemp(), tempfile.mkdtemp()
    try:
        TEMP_ROOT.set(None)
        both = f"{second}:{first}"  # numbered by position in the value: runs agree
        assert TEMP_ROOT.encode(both).count(TEMP_NAME_MARK) == 2
        assert TEMP_ROOT.encode(second).endswith(f"{TEMP_NAME_MARK}1>")
        assert TEMP_ROOT.encode("/etc/hosts") == "/etc/hosts"  # not fresh: its own text
        captured = [Path(second).name[-8:], Path(first).name[-8:]]
        TEMP_ROOT.set(None, captured=["capture1", "capture2"])
        assert TEMP_ROOT.decode(f"/x/{TEMP_NAME_MARK}2>") == "/x/capture2"  # E drew it
        TEMP_ROOT.encode(first)
        assert TEMP_ROOT.decode(f"/x/{TEMP_NAME_MARK}1>") == f"/x/{captured[1]}"
    finally:
        TEMP_ROOT.set(None)
        os.rmdir(first)
        os.rmdir(second)


def test_clock_readings_of_the_test_are_roles_and_other_numbers_keep_their_value() -> None:
    before = time.time() - 5
    TEMP_ROOT.set(None, captured_readings=[1.5, 2.5, 3.5])
    try:
        now, now_ns = time.time(), time.time_ns()
        data = values.encode([now, now_ns, now, now + 60, before, 7.0], _refuse)
        assert data == [{"$clock": 1}, {"$clock": 2}, {"$clock": 1}, now + 60, before, 7.0]
        decoded = values.decode([{"$clock": 2}, {"$clock": 3}], _refuse)
        assert decoded == [now_ns, 3.5]  # the third: E read it in the capture
    finally:
        TEMP_ROOT.set(None)
        TEMP_ROOT.since = None  # no test window open in this process any more


def _refuse(value: Any) -> Any:
    raise AssertionError(value)
