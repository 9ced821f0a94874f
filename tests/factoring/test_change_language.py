"""Section 8 of the paper, measured on a real capture: reordered calls on independent E
objects, added or removed read-only calls and reordered setters keep a factored test valid;
an extra state-changing call does not (it diverges, naming the call)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.factoring.factor import FactorResult
from tests.factoring.helpers import edit, factor, make_project, outcomes

LOGIC = """
from app import env


def use():
    a = env.open_store("a")
    b = env.open_store("b")
    a.put(1)
    b.put(2)
    a.set_a(1)
    a.set_b(2)
    n = a.get_count()
    return n + b.get_count()
"""

TESTS = """
from app import logic


def test_it():
    assert logic.use() == 2
"""

TEST = "tests/test_logic.py::test_it"

HARMLESS = {
    "reordered independent objects": ("a.put(1)\n    b.put(2)", "b.put(2)\n    a.put(1)"),
    "reordered setters": ("a.set_a(1)\n    a.set_b(2)", "a.set_b(2)\n    a.set_a(1)"),
    "added read-only call": (
        "n = a.get_count()",
        "n = a.get_count() + a.get_count() - a.get_count()",
    ),
    "removed read-only call": ("n = a.get_count()", "n = 1"),
}


@pytest.fixture(scope="module")
def factored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, FactorResult]]:
    root = make_project(tmp_path_factory.mktemp("changes"), LOGIC, TESTS)
    result = factor(root, TEST, "app.env")
    assert result.status == "factored", result.reason
    yield root, result


@pytest.mark.parametrize("change", list(HARMLESS))
def test_change_language_keeps_factored_test_valid(
    factored: tuple[Path, FactorResult], change: str
) -> None:
    root, result = factored
    assert result.factored_test
    old, new = HARMLESS[change]
    edit(root, "app/logic.py", old, new)
    try:
        after = outcomes(root, result.factored_test)[result.factored_test]
    finally:
        edit(root, "app/logic.py", new, old)
    assert after["outcome"] == "passed", after


def test_extra_write_call_diverges_naming_it(factored: tuple[Path, FactorResult]) -> None:
    root, result = factored
    assert result.factored_test
    edit(root, "app/logic.py", "a.put(1)\n", "a.put(1)\n    a.put(1)\n")
    try:
        after = outcomes(root, TEST, result.factored_test)
    finally:
        edit(root, "app/logic.py", "a.put(1)\n    a.put(1)\n", "a.put(1)\n")
    assert after[TEST]["outcome"] == "failed"
    entry = after[result.factored_test]
    assert entry["outcome"] == "failed"
    assert "diverged" in entry["divergence"] and ".put(1)" in entry["divergence"]


def _pytest_factored_first(root: Path) -> str:
    import os
    import subprocess
    import sys

    from lsp_server.factoring.runner import PLUGIN, environment

    command = [sys.executable, "-m", "pytest", "-p", PLUGIN, "--reks-factored", "-rs", "tests"]
    env = {
        **environment(root),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD", ""),
    }
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    return done.stdout


def test_reks_factored_runs_the_system_test_only_when_needed(
    factored: tuple[Path, FactorResult],
) -> None:
    root, result = factored
    output = _pytest_factored_first(root)
    assert "1 passed, 1 skipped" in output, output
    assert f"its factored test passed ({result.factored_test})" in output
    assert "reks factored: 1 system tests answered by their factored tests" in output
    edit(root, "app/logic.py", "a.put(1)\n", "a.put(1)\n    a.put(1)\n")
    try:
        output = _pytest_factored_first(root)
    finally:
        edit(root, "app/logic.py", "a.put(1)\n    a.put(1)\n", "a.put(1)\n")
    assert "2 failed" in output and "1 ran because the factored test diverged" in output, output
    assert f"reks factored: {result.factored_test}: replay of " in output
    assert "diverged: T called" in output
