"""Timing like for like: a test's time is its own setup, call and teardown; fixtures shared
with other tests (session, module or class scope) are measured apart, so that the test that
happens to run first (or last) is not charged a server start (or stop) that every test uses."""

from __future__ import annotations

from pathlib import Path

from tests.factoring.helpers import make_project, outcomes

CONFTEST = """
import time

import pytest


@pytest.fixture(scope="session")
def server():
    time.sleep(0.4)
    yield "server"
    time.sleep(0.3)
"""

TESTS = """
def test_first(server):
    assert server == "server"


def test_second(server):
    assert server == "server"
"""


def test_a_shared_fixture_is_measured_apart_from_the_tests_that_use_it(tmp_path: Path) -> None:
    root = make_project(tmp_path, "", TESTS)
    (root / "tests" / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    first, second = "tests/test_logic.py::test_first", "tests/test_logic.py::test_second"
    entries = outcomes(root, first, second)
    assert entries[first]["outcome"] == entries[second]["outcome"] == "passed"
    assert entries[first]["duration_s"] < 0.2, entries[first]  # not the server's start
    assert entries[second]["duration_s"] < 0.2, entries[second]  # nor its stop
    assert entries[first]["shared_s"] >= 0.4, entries[first]
    assert entries[second]["shared_s"] >= 0.3, entries[second]
