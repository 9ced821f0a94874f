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
