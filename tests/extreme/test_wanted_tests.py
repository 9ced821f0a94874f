"""The worker collects only the wanted methods of a unittest.TestCase class
(``wanted_tests``), and finding them costs one pass over the class's methods: unittest's
name patterns compiled one pattern per wanted name and matched every method against every
pattern (more-itertools' test classes: thousands of matches in each analysis)."""

from __future__ import annotations

import unittest.loader
from collections.abc import Callable

import pytest

from lsp_server.extreme.wanted_tests import WantedTests

pytest_plugins = ["pytester"]

_CASES = """
    import unittest


    class ManyCase(unittest.TestCase):
        def test_a(self):
            pass

        def test_b(self):
            pass

        def test_c(self):
            pass

        def test_d(self):
            pass


    class OtherCase(unittest.TestCase):
        def test_e(self):
            pass
"""


def _matches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The (name, pattern) pairs unittest's loader matches from now on."""
    seen: list[tuple[str, str]] = []
    match: Callable[[str, str], bool] = unittest.loader.fnmatchcase

    def counted(name: str, pattern: str) -> bool:
        seen.append((name, pattern))
        return match(name, pattern)

    monkeypatch.setattr(unittest.loader, "fnmatchcase", counted)
    return seen


def test_a_narrowed_unittest_class_collects_its_wanted_methods_without_name_patterns(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_cases=_CASES)
    wanted = WantedTests()
    wanted.want(["test_cases.py::ManyCase::test_b", "test_cases.py::ManyCase::test_d"])
    seen = _matches(monkeypatch)
    result = pytester.runpytest_inprocess(
        "--collect-only", "-q", "-p", "no:cacheprovider", plugins=[wanted]
    )
    collected = [line for line in result.outlines if "::" in line]
    assert collected == [
        "test_cases.py::ManyCase::test_b",
        "test_cases.py::ManyCase::test_d",
    ]
    assert seen == []


def test_a_wanted_name_the_loader_does_not_find_collects_the_class_whole(
    pytester: pytest.Pytester,
) -> None:
    # ``test_gone`` is not a method of the class (the store is older than the file): the
    # narrowing could leave out a test that can reach the functions, so it does not apply.
    pytester.makepyfile(test_cases=_CASES)
    wanted = WantedTests()
    wanted.want(["test_cases.py::ManyCase::test_b", "test_cases.py::ManyCase::test_gone"])
    result = pytester.runpytest_inprocess(
        "--collect-only", "-q", "-p", "no:cacheprovider", plugins=[wanted]
    )
    collected = [line for line in result.outlines if "::ManyCase::" in line]
    assert collected == [f"test_cases.py::ManyCase::test_{name}" for name in "abcd"]
