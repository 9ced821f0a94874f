"""The factored test carries the marks of its original: the module's ``pytestmark`` and the
test's own (diskcache's ``test_core.py`` ignores ``EmptyDirWarning`` module-wide, and its
``Cache.check`` counts the warnings it catches: without the mark the replay found two). Here
a ``usefixtures`` mark sets what T reads."""

from __future__ import annotations

from pathlib import Path

from lsp_server.factoring.factor import factor_tests
from tests.factoring.helpers import edit, make_project, outcomes

LOGIC = """
import os

from app import env


def mode():
    env.compute(1)
    return os.environ["APP_MODE"]
"""

FIXTURE = """
import pytest

from app import logic


@pytest.fixture
def fast_mode(monkeypatch):
    monkeypatch.setenv("APP_MODE", "fast")


@pytest.fixture
def slow_mode(monkeypatch):
    monkeypatch.setenv("APP_MODE", "slow")

"""

MODULE_MARK = (
    FIXTURE
    + """
pytestmark = pytest.mark.usefixtures("fast_mode")


def test_mode():
    assert logic.mode() == "fast"
"""
)

TEST_MARK = (
    FIXTURE
    + """
@pytest.mark.usefixtures("fast_mode")
def test_mode():
    assert logic.mode() == "fast"


@pytest.mark.parametrize("expected", ["slow"])
@pytest.mark.usefixtures("slow_mode")
def test_mode_again(expected):
    assert logic.mode() == expected
"""
)


def test_the_module_marks_of_the_original_apply_to_its_factored_test(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, MODULE_MARK)
    nodeid = "tests/test_logic.py::test_mode"
    (result,) = factor_tests(root, [nodeid], ["app.env"], keep_slower=True)
    assert result.status == "factored", result.reason
    factored = result.factored_test or ""
    edit(root, "tests/test_logic.py", 'usefixtures("fast_mode")', 'usefixtures("slow_mode")')
    after = outcomes(root, nodeid, factored)
    assert after[nodeid]["outcome"] == after[factored]["outcome"] == "failed", after


def test_the_own_marks_of_the_original_apply_to_its_factored_test(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, TEST_MARK)
    nodeids = ["tests/test_logic.py::test_mode", "tests/test_logic.py::test_mode_again[slow]"]
    results = factor_tests(root, nodeids, ["app.env"], keep_slower=True)
    for result in results:
        assert result.status == "factored", result.reason


CLASS_MARK = (
    FIXTURE
    + """
class TestMode:
    pytestmark = pytest.mark.usefixtures("fast_mode")

    def test_mode(self):
        assert logic.mode() == "fast"


@pytest.mark.usefixtures("slow_mode")
class TestModeAgain:
    def test_mode(self):
        assert logic.mode() == "slow"
"""
)


def test_the_marks_of_the_original_class_apply_to_its_factored_test(tmp_path: Path) -> None:
    root = make_project(tmp_path, LOGIC, CLASS_MARK)
    nodeids = [
        "tests/test_logic.py::TestMode::test_mode",
        "tests/test_logic.py::TestModeAgain::test_mode",
    ]
    results = factor_tests(root, nodeids, ["app.env"], keep_slower=True)
    for result in results:
        assert result.status == "factored", result.reason
