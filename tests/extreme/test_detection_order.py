"""A transformation runs its covering tests in the order most likely to detect it soonest:
tests named after the function first (they check its results), each group fastest first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.requests import detection_order

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
    root = make_project({"m.py": SOURCE, "test_m.py": TESTS + CHECKS})
    analysis = analyse(root, Options(jobs=1, incremental=False))
    assert analysis.results
    for result in analysis.results:
        assert result.tests == ["test_m.py::TestIterIndex::test_value"]


def test_the_file_name_does_not_count_and_each_group_is_fastest_first() -> None:
    tests = ["test_sieve.py::test_a", "t.py::SieveTests::test_b", "t.py::test_sieve_c"]
    durations = {tests[0]: 0.001, tests[1]: 0.5, tests[2]: 0.1}
    assert detection_order("m.sieve", tests, durations) == [tests[2], tests[1], tests[0]]
