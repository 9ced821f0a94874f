"""A changed T that uses E differently diverges (its system test must run instead); a changed
T that uses E exactly as recorded and then fails is an accurate failure of T."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.factoring import FactorResult
from tests.factoring.helpers import edit, factor, make_project, outcomes

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
"""

TEST = "tests/test_logic.py::test_it"


@pytest.fixture(scope="module")
def factored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, FactorResult]]:
    root = make_project(tmp_path_factory.mktemp("divergence"), LOGIC, TESTS)
    result = factor(root, TEST, "app.env")
    assert result.status == "factored", result.reason
    yield root, result


def _after(root: Path, result: FactorResult, old: str, new: str) -> tuple[dict, dict]:
    edit(root, "app/logic.py", old, new)
    try:
        after = outcomes(root, TEST, result.factored_test or "")
    finally:
        edit(root, "app/logic.py", new, old)
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
