"""What reks says at the end of a session: why every test runs when the environment
changed."""

from __future__ import annotations

import pytest

from .helpers import write

pytest_plugins = ["pytester"]


def test_an_environment_change_says_what_changed(pytester: pytest.Pytester) -> None:
    write(pytester, "test_a.py", "def test_a():\n    assert True\n")
    pytester.runpytest_inprocess("--reks").assert_outcomes(passed=1)
    result = pytester.runpytest_inprocess("--reks", "-p", "no:warnings")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["reks: the environment changed (option plugins: [] -> ['no:warnings']): every test runs"]
    )
    again = pytester.runpytest_inprocess("--reks", "-p", "no:warnings")
    assert "environment changed" not in again.stdout.str()
