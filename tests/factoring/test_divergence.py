"""A changed T that uses E differently diverges (its system test must run instead); a changed
T that uses E exactly as recorded and then fails is an accurate failure of T."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.factoring import FactorResult, factor_tests
from tests.factoring.helpers import edit, make_project, outcomes

LOGIC = """
from app import env


def summarise(x):
    data = env.compute(x)
    return data["double"]
"""

TESTS = """
from app import logic


def test_it():
    assert logic.summarise(3) == 6


def test_other():
    assert logic.summarise(4) == 8
"""

TEST = "tests/test_logic.py::test_it"
OTHER = "tests/test_logic.py::test_other"


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[FactorResult]]:
    root = make_project(tmp_path_factory.mktemp("divergence"), LOGIC, TESTS)
    results = factor_tests(root, [TEST, OTHER], ["app.env"])
    assert all(r.status == "factored" for r in results), results
    return root, results


@pytest.fixture
def factored(both: tuple[Path, list[FactorResult]]) -> tuple[Path, FactorResult]:
    return both[0], both[1][0]


def _run_edited(root: Path, old: str, new: str, *nodeids: str) -> dict[str, dict]:
    """The outcomes of ``nodeids`` with ``old`` replaced by ``new`` in T (put back after)."""
    edit(root, "app/logic.py", old, new)
    try:
        return outcomes(root, *nodeids)
    finally:
        edit(root, "app/logic.py", new, old)


def _after(root: Path, result: FactorResult, old: str, new: str) -> tuple[dict, dict]:
    after = _run_edited(root, old, new, TEST, result.factored_test or "")
    return after[TEST], after[result.factored_test or ""]


def test_a_test_that_fails_before_making_the_recorded_calls_diverged(
    factored: tuple[Path, FactorResult],
) -> None:
    # T no longer asks E: the recorded answer would not be E's answer to T's new use of
    # it, so the failure says nothing about the system test: a divergence, not a failure.
    system, replayed = _after(*factored, "data = env.compute(x)", 'data = {"double": 0}')
    assert system["outcome"] == "failed"
    assert replayed["outcome"] == "failed"
    assert replayed.get("divergence"), replayed
    assert "never made the call" in replayed["divergence"]
    assert "app.env.compute(3)" in replayed["divergence"]


def test_a_test_that_fails_after_a_faithful_replay_is_an_accurate_failure(
    factored: tuple[Path, FactorResult],
) -> None:
    system, replayed = _after(*factored, 'return data["double"]', 'return data["double"] + 1')
    assert system["outcome"] == "failed"
    assert replayed["outcome"] == "failed"
    assert "divergence" not in replayed
    assert "assert 7 == 6" in replayed["message"]


def test_a_divergence_found_after_a_passing_test_leaves_the_next_test_alone(
    both: tuple[Path, list[FactorResult]],
) -> None:
    # T computes the answer itself and never asks E: the test passes, the transcript's
    # calls were never made (a divergence found at teardown); the next test still runs.
    root, results = both
    first, second = (r.factored_test or "" for r in results)
    after = _run_edited(root, "data = env.compute(x)", 'data = {"double": x * 2}', first, second)
    assert after[first]["outcome"] == "failed"
    assert "app.env.compute(3)" in after[first]["divergence"]
    assert after[second]["outcome"] == "failed"
    assert "app.env.compute(4)" in after[second].get("divergence", ""), after[second]


CLOCK_LOGIC = """
import datetime as dt
import time

from app import env


def stamp():
    data = env.compute(1)
    return data["double"], dt.datetime.now(), time.time()
"""

CLOCK_TESTS = """
import datetime as dt

from app import logic


def test_it():
    double, when, seconds = logic.stamp()
    assert double == 2
    assert abs(dt.datetime.utcnow() - dt.datetime.utcfromtimestamp(seconds)).total_seconds() < 60
"""


def test_clock_reads_of_t_are_reported(tmp_path: Path) -> None:
    # A factored test whose T reads the wall clock compares replayed values from the capture
    # with today's time (dunamai's tests: commit dates within a minute of now): it may fail
    # on unchanged code later; the factoring says so instead of papering over it.
    root = make_project(tmp_path, CLOCK_LOGIC, CLOCK_TESTS)
    (result,) = factor_tests(root, [TEST], ["app.env"])
    assert result.status == "factored", result.reason
    reads = result.details["clock_reads"]
    assert "app/logic.py:9 datetime.datetime.now" in reads
    assert "app/logic.py:9 time.time" in reads
    assert "tests/test_logic.py:9 datetime.datetime.utcnow" in reads
    assert any("reads the wall clock" in warning for warning in result.warnings)


TEARDOWN_LOGIC = """
from app import env


def open_it():
    return env.open_store("s")


def fill(store, row):
    store.put(row)
    return store.get_count()
"""

TEARDOWN_TESTS = """
import pytest

from app import logic


@pytest.fixture
def store():
    opened = logic.open_it()
    yield opened
    opened.close()  # into E: after a divergence on the store, this call diverges too


def test_it(store):
    assert logic.fill(store, "a") == 1


def test_other(store):
    assert logic.fill(store, "a") == 1
"""

CLOSE = "\n\ndef _close(self):\n    self.closed = True\n\n\nStore.close = _close\n"


@pytest.mark.slow  # four pytest runs
def test_a_divergence_again_in_a_fixture_teardown_leaves_the_next_factored_test_alone(
    tmp_path: Path,
) -> None:
    """A divergence is a BaseException (T's ``except Exception`` must not swallow it), but
    one raised from a fixture's teardown broke pytest's setup state: every later test of
    the session errored with "previous item was not torn down properly"."""
    from tests.factoring.helpers import ENV

    root = make_project(tmp_path, TEARDOWN_LOGIC, TEARDOWN_TESTS, env=ENV + CLOSE)
    results = factor_tests(root, [TEST, OTHER], ["app.env"])
    assert all(r.status == "factored" for r in results), results
    edit(
        root,
        "tests/test_logic.py",
        'fill(store, "a") == 1\n\n\ndef test_other',
        'fill(store, "b") == 1\n\n\ndef test_other',
    )
    after = outcomes(root, *(r.factored_test or "" for r in results))
    first, second = (after[r.factored_test or ""] for r in results)
    assert first["outcome"] == "failed" and "'b'" in first["divergence"], first
    assert second["outcome"] == "passed", second


CLOCK_IN_E_LOGIC = """
import sqlite3
import time


def touch(path, key):
    conn = sqlite3.connect(path)
    conn.execute("create table if not exists t (k text, at real)")
    # diskcache's eviction policies: the reading is written into the statement's text
    conn.execute(f"insert into t values (?, {time.time()})", (key,))
    rows = conn.execute("select k from t").fetchall()
    conn.close()
    return rows
"""

CLOCK_IN_E_TESTS = """
from app import logic


def test_touch(tmp_path):
    assert logic.touch(str(tmp_path / "x.db"), "a") == [("a",)]
"""


@pytest.mark.slow  # two captures and checks: six pytest runs
def test_a_replay_that_diverges_on_the_clock_t_read_is_recaptured_with_the_clock_in_e(
    tmp_path: Path,
) -> None:
    """T writes a reading of the clock into what it hands E: replayed, the reading is the
    replay's, the call differs from the recorded one, and the factored test fails on
    unchanged code. With the clock's module in E too, T gets the capture's readings."""
    root = make_project(tmp_path, CLOCK_IN_E_LOGIC, CLOCK_IN_E_TESTS)
    nodeid = "tests/test_logic.py::test_touch"
    (result,) = factor_tests(root, [nodeid], ["sqlite3"], keep_slower=True)
    assert result.status == "factored", result.reason
    assert result.boundaries == ["sqlite3", "time"]
    assert any("with the clock (time) in E" in note for note in result.warnings)
    factored = result.factored_test or ""
    edit(root, "app/logic.py", '"select k from t"', '"select k from t where 0"')
    after = outcomes(root, nodeid, factored)
    assert after[nodeid]["outcome"] == "failed"
    assert after[factored]["outcome"] == "failed" and "where 0" in after[factored]["divergence"]
