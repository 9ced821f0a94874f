"""Values without a transcript form that T only hands back to E: an object of E's that
reached T inside an exception (requests hands urllib3's connection pool back in a
``with`` block's ``__exit__``), and an object of one of E's classes that T made before the
test (a parametrized urllib3 ``Timeout``). Both are written as handles, not refused; an
object of E's class that E changes is refused."""

from __future__ import annotations

from pathlib import Path

from tests.factoring.helpers import edit, factor, make_project, outcomes

ENV = """
import time


class Pool:
    def __init__(self, host):
        self.host = host


class PoolError(Exception):
    def __init__(self, pool, message):
        super().__init__(message)
        self.pool = pool


class Session:
    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        self.error = error
        return False

    def fetch(self, retries):
        time.sleep(0.2)
        if retries == 0:
            raise PoolError(Pool("example.org"), "timed out")
        return "page"

    def fetch_with(self, settings):
        return self.fetch(settings.retries)


class Settings:
    def __init__(self, retries):
        self.retries = retries

    def spend(self):
        self.retries -= 1


def open_session():
    time.sleep(0.1)
    return Session()
"""

LOGIC = """
from app import env

ONE_RETRY = env.Settings(1)  # made at import, before any test


def fetch(retries):
    try:
        with env.open_session() as session:
            return session.fetch(retries)
    except env.PoolError as error:
        return "failed: " + str(error)


def fetch_with(settings):
    with env.open_session() as session:
        return session.fetch_with(settings)


def fetch_spending(settings):
    with env.open_session() as session:
        session.fetch_with(settings)
        settings.spend()
        return settings.retries
"""

TESTS = """
from app import logic


def test_failure():
    assert logic.fetch(0) == "failed: timed out"


def test_page():
    assert logic.fetch_with(logic.ONE_RETRY) == "page"
"""


def test_an_object_of_e_in_an_exception_handed_back_to_e_is_a_reference(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS, env=ENV)
    result = factor(root, "tests/test_logic.py::test_failure", "app.env")
    assert result.status == "factored", result.reason
    edit(root, "app/logic.py", '"failed: " + str(error)', '"failed:" + str(error)')
    replayed = outcomes(root, result.factored_test or "")[result.factored_test or ""]
    assert replayed["outcome"] == "failed", replayed  # a broken T still fails


def test_an_object_of_es_class_made_before_the_test_is_a_handle(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TESTS, env=ENV)
    result = factor(root, "tests/test_logic.py::test_page", "app.env")
    assert result.status == "factored", result.reason
    transcript = (root / (result.transcript or "")).read_text(encoding="utf-8")
    assert '"type": "app.env.Settings"' in transcript


def test_an_object_of_es_class_that_e_changes_refuses_the_boundary(tmp_path: Path) -> None:
    spending = TESTS + (
        "\n\ndef test_spending():\n    assert logic.fetch_spending(logic.ONE_RETRY) == 0\n"
    )
    root = make_project(tmp_path, LOGIC, spending, env=ENV)
    result = factor(root, "tests/test_logic.py::test_spending", "app.env")
    assert result.status == "refused"
    assert "app.env.Settings" in result.reason and "changed" in result.reason, result.reason
