"""A transformation runs its covering tests in the order most likely to detect it soonest:
tests named after the function first (they check its results), each group fastest first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Analysis, Options, analyse
from lsp_server.extreme.test_order import DetectingTests, deadlines, detection_order

SOURCE = "def iter_index(x):\n    y = x * 2\n    return y\n"

TESTS = "import time\nfrom m import iter_index\n" + "".join(
    f"\ndef test_passing_through_{i}():\n    iter_index(1)\n" for i in range(4)
)
CHECKS = """
class TestIterIndex:
    def test_value(self):
        time.sleep(0.02)
        assert iter_index(2) == 4
"""


@pytest.mark.slow  # a whole analysis, ~3-7 s
def test_tests_named_after_the_function_run_first(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    analysis = _analysed(make_project({"m.py": SOURCE, "test_m.py": TESTS + CHECKS}))
    for result in analysis.results:
        assert result.tests == ["test_m.py::TestIterIndex::test_value"]


def _analysed(root: Path) -> Analysis:
    """A whole analysis of ``root`` on one worker (the requests run one after another)."""
    analysis = analyse(root, Options(jobs=1, incremental=False))
    assert analysis.results
    return analysis


def test_the_file_name_does_not_count_and_each_group_is_fastest_first() -> None:
    tests = ["test_sieve.py::test_a", "t.py::SieveTests::test_b", "t.py::test_sieve_c"]
    durations = {tests[0]: 0.001, tests[1]: 0.5, tests[2]: 0.1}
    assert detection_order("m.sieve", tests, durations) == [tests[2], tests[1], tests[0]]


TWO = (
    "def first(x):\n    y = x * 2\n    return y\n\n\ndef second(x):\n    y = x + 1\n    return y\n"
)
THROUGH = "import time\nfrom m import first, second\n" + "".join(
    f"\ndef test_through_{i}():\n    first(1)\n    second(1)\n" for i in range(5)
)
ONE_CHECK = """
def test_checks_both():
    time.sleep(0.05)
    assert first(second(1)) == 4
"""


@pytest.mark.slow  # a whole analysis, ~3-7 s
def test_a_test_that_detected_earlier_transformations_runs_first(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The slowest test is the only one checking results: ``first``'s transformations find
    # it last, after every fast one passed; ``second``'s (run after) try it first.
    analysis = _analysed(make_project({"m.py": TWO, "test_m.py": THROUGH + ONE_CHECK}))
    ran = {
        (r.transformation.function, r.transformation.body): r.tests
        for r in analysis.results
        if r.detected_by == "test_m.py::test_checks_both"
    }
    firsts = [tests for (function, _), tests in ran.items() if function == "first"]
    seconds = [tests for (function, _), tests in ran.items() if function == "second"]
    assert firsts and seconds
    assert len(firsts[0]) == 6  # the five that pass through, then the one that checks
    assert all(tests == ["test_m.py::test_checks_both"] for tests in seconds)


def test_promoted_tests_keep_the_remembered_detector_first_and_get_their_deadlines() -> None:
    detecting = DetectingTests()
    detecting.record({"verdict": "detected", "detected_by": "t.py::test_strong"})
    tests = ["t.py::test_last", "t.py::test_a", "t.py::test_strong"]
    durations = {tests[0]: 0.1, tests[1]: 0.2, tests[2]: 0.4}
    request = {
        "function": "f",
        "tests": list(tests),
        "timeout": 10.0,
        "deadlines": deadlines(tests, durations, 0.0, 1.0, 3.0, 10.0),
        "basis": {"durations": durations, "margin": 0.0, "timing": [1.0, 3.0]},
        "pinned": True,  # test_last detected this very transformation last time
    }
    detecting.promote(request)
    assert request["tests"] == ["t.py::test_last", "t.py::test_strong", "t.py::test_a"]
    assert request["deadlines"] == pytest.approx([1.0 + 3 * 0.1, 1.0 + 3 * 0.5, 1.0 + 3 * 0.7])


HELPER = """
def describe(x):
    if x is None:
        return None
    return x + 1
"""
MANY_CASES = """
import time

import pytest

from m import describe


@pytest.mark.parametrize("case", range(12))
def test_nothing_to_describe(case):
    time.sleep(0.01)
    assert describe(None) is None


def test_describes_a_number():
    time.sleep(0.015)
    assert describe(1) == 2
"""


@pytest.mark.slow  # a whole analysis, ~3-7 s
def test_one_case_of_each_parametrized_test_runs_before_more_cases_of_one(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # Twelve cases of one test (10 ms each) pass ``None`` through ``describe``: none can
    # detect ``return None``. Fastest first ran all twelve before the only test that
    # checks a number (15 ms); now a case counts the time of its test's cases before it.
    analysis = _analysed(make_project({"m.py": HELPER, "test_m.py": MANY_CASES}))
    by_body = {r.transformation.body: r for r in analysis.results}
    returning_none = by_body["return None"]
    assert returning_none.verdict.value == "detected"
    assert returning_none.detected_by == "test_m.py::test_describes_a_number"
    assert returning_none.tests[-1] == "test_m.py::test_describes_a_number"
    assert len(returning_none.tests) <= 3  # 13 before: every case first


def test_the_cases_of_a_parametrized_test_take_turns_by_their_time_so_far() -> None:
    many = [f"t.py::test_many[{i}]" for i in range(4)]
    slow, fast = "t.py::TestC::test_slow", "t.py::test_fast[a-b]"
    durations = {**dict.fromkeys(many, 0.01), slow: 0.025, fast: 0.002}
    order = detection_order("m.f", [*many, slow, fast], durations)
    # Each case counts what its test's earlier cases took: test_many's third case (0.03 s
    # in all) comes after the slow test (0.025 s), its first two before it.
    assert order == [fast, many[0], many[1], slow, many[2], many[3]]


CANCELLING = """
def combine(a, b):
    total = a + helper(b) - helper(b)
    return total


def helper(x):
    y = x * 2
    return y
"""
TWO_CHECKS = """
import time

from m import combine, helper


def test_sum():
    assert combine(1, 5) == 1


def test_double():
    time.sleep(0.02)
    assert helper(3) == 6
"""


@pytest.mark.slow  # a whole analysis, ~3-7 s
def test_the_detector_of_a_transformation_of_the_same_function_runs_first(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # test_sum detects ``combine``'s transformations and runs ``helper`` without checking
    # it (its results cancel). Once test_double detected one of ``helper``'s, it comes
    # first for the next one: the count of detections made test_sum (fast, as many
    # detections) run first again.
    analysis = _analysed(make_project({"m.py": CANCELLING, "test_m.py": TWO_CHECKS}))
    helpers = [r for r in analysis.results if r.transformation.function == "helper"]
    assert len(helpers) >= 2
    assert all(r.detected_by == "test_m.py::test_double" for r in helpers)
    assert all(r.tests == ["test_m.py::test_double"] for r in helpers[1:])


LOCALE = """
def get_default_locale_path(name):
    path = "/locale/" + name
    return path
"""
LOCALE_TESTS = "import time\nfrom m import get_default_locale_path\n" + "".join(
    f"\ndef test_passing_through_{i}():\n    get_default_locale_path('x')\n" for i in range(4)
)
LOCALE_CHECK = """
def test_default_locale_path_is_absolute():
    time.sleep(0.02)
    assert get_default_locale_path("de") == "/locale/de"
"""


@pytest.mark.slow  # a whole analysis, ~3-7 s
def test_tests_named_after_most_words_of_the_function_run_first(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # humanize's ``_get_default_locale_path -> return None`` ran 211 tests before
    # ``test_default_locale_path_defined__spec__``: its name holds three of the function's
    # four words, not the whole name.
    files = {"m.py": LOCALE, "test_m.py": LOCALE_TESTS + LOCALE_CHECK}
    analysis = _analysed(make_project(files))
    for result in analysis.results:
        assert result.tests == ["test_m.py::test_default_locale_path_is_absolute"]


def test_more_shared_words_come_first_and_one_shared_word_is_no_naming() -> None:
    whole = "t.py::TestGetDefaultLocalePath::test_a"
    three = "t.py::test_default_locale_path_defined[spec-de]"
    two = "t.py::test_locale_path_of_a_unit"
    one = "t.py::test_minimum_unit_default"  # one word of four: like any other test
    other = "t.py::test_ordinal[13-13th]"
    durations = {whole: 0.5, three: 0.4, two: 0.01, one: 0.001, other: 0.002}
    order = detection_order(
        "i18n._get_default_locale_path", [other, one, two, three, whole], durations
    )
    assert order == [whole, three, two, one, other]


def test_tests_naming_most_words_stay_before_tests_that_detected_other_functions() -> None:
    detecting = DetectingTests()
    detecting.record({"verdict": "detected", "detected_by": "t.py::test_ordinal"}, "m.py::f")
    tests = ["t.py::test_ordinal", "t.py::test_default_locale_path_defined", "t.py::test_x"]
    request = {
        "function": "_get_default_locale_path",
        "path": "m.py",
        "tests": list(tests),
        "timeout": 10.0,
    }
    detecting.promote(request)
    assert request["tests"] == [tests[1], tests[0], tests[2]]
