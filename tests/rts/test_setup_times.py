"""``pytest --reks`` keeps, per test, how long its set-up spent on fixtures shared between
tests, by scope: the room a run of the test in another order needs (extreme analysis)."""

from __future__ import annotations

import pytest

from lsp_server.rts.setup_clock import scope_node
from lsp_server.rts.store import DependencyStore

from .helpers import run, write

pytest_plugins = ["pytester"]


def test_shared_fixture_set_up_is_recorded_per_test_and_scope(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "conftest.py",
        """
        import time
        import pytest

        @pytest.fixture(scope="session")
        def database():
            time.sleep(0.2)
            return "db"
        """,
    )
    write(
        pytester,
        "test_s.py",
        """
        import time
        import pytest

        @pytest.fixture(scope="module")
        def tables(database):  # its own time leaves out the session fixture's
            time.sleep(0.1)
            return database

        @pytest.fixture
        def row():
            time.sleep(0.1)  # function scope: part of the test's own duration

        def test_first(tables, row):
            assert tables == "db"

        def test_second(tables, row):
            assert tables == "db"
        """,
    )
    assert run(pytester) == {"test_first", "test_second"}
    with DependencyStore(pytester.path, create=False) as store:
        times = store.setup_times()
    first = times["test_s.py::test_first"]
    assert set(first) == {"session", "module"}
    assert 0.2 <= first["session"] < 0.3
    assert 0.1 <= first["module"] < 0.2
    assert times["test_s.py::test_second"] == {}


def test_the_node_a_shared_fixture_is_set_up_for() -> None:
    nodeid = "tests/test_a.py::TestBox::test_grow[1]"
    assert [scope_node(nodeid, s) for s in ("session", "package", "module", "class")] == [
        "",
        "tests",
        "tests/test_a.py",
        "tests/test_a.py::TestBox",
    ]
    assert scope_node("test_a.py::test_f", "class") == "test_a.py"
