"""With a dependency store, the workers collect only the test files that can reach the
analysed functions: a recorded, unchanged test file none of whose tests depends on them
(what they ran, what ran while their modules were imported) is not even imported. New and
changed test files, and tests a changed conftest.py affects, are collected as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Analysis, Options, analyse
from tests.support.reks import run_pytest


def _project(make_project: Callable[[dict[str, str]], Path], log: Path) -> Path:
    # ``test_other.py`` notes every import of itself in ``log`` (outside the project: not a
    # file its tests depend on).
    return make_project(
        {
            "calc.py": """
                def inc(x):
                    y = x + 1
                    return y
            """,
            "other.py": """
                def double(x):
                    y = x * 2
                    return y
            """,
            "conftest.py": """
                import pytest

                @pytest.fixture
                def start():
                    return 1

                def pytest_ignore_collect(collection_path, config):
                    return False  # as boltons' conftest answers for most files
            """,
            "test_calc.py": """
                from calc import inc

                def test_inc_runs():
                    inc(1)  # checks nothing
            """,
            "test_other.py": f"""
                with open({str(log)!r}, "a") as log:
                    log.write("imported\\n")

                from other import double

                def test_double(start):
                    assert double(start) == 2
            """,
        }
    )


def _record(root: Path) -> None:
    recorded = run_pytest(root, "--reks", "-p", "no:cacheprovider")
    assert recorded.returncode == 0, recorded.stdout


def _recorded(make_project: Callable[[dict[str, str]], Path], log: Path) -> Path:
    root = _project(make_project, log)
    _record(root)
    return root


def _analyse(root: Path, target: str) -> Analysis:
    return analyse(root, Options(paths=[root / target], jobs=1, incremental=False))


def _check(analysis: Analysis, uncollected: list[str], verdict: str) -> None:
    """Which test files were left out, and the one verdict of every transformation."""
    assert analysis.uncollected_files == uncollected
    assert {r.verdict.value for r in analysis.results} == {verdict}


def test_test_files_that_cannot_reach_the_functions_are_not_collected(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    log = tmp_path / "imports.log"
    root = _recorded(make_project, log)
    log.unlink()
    analysis = _analyse(root, "calc.py")
    assert not log.exists()  # the workers never imported test_other.py
    _check(analysis, ["test_other.py"], "undetected")  # test_inc_runs checks nothing


@pytest.mark.slow  # a recording and two analyses, ~10-20 s
def test_new_and_changed_test_files_are_collected(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    root = _recorded(make_project, tmp_path / "imports.log")
    # A new test file checks ``inc``: only it can detect its transformations.
    (root / "test_new.py").write_text(
        "from calc import inc\n\ndef test_inc():\n    assert inc(1) == 2\n"
    )
    _check(_analyse(root, "calc.py"), ["test_other.py"], "detected")

    (root / "test_new.py").unlink()
    # A recorded test file, edited to check ``inc``.
    other = root / "test_other.py"
    other.write_text(
        other.read_text()
        + "\n\ndef test_inc():\n    from calc import inc\n    assert inc(2) == 3\n"
    )
    _check(_analyse(root, "calc.py"), [], "detected")


def test_a_changed_conftest_collects_the_tests_it_affects(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    root = _recorded(make_project, tmp_path / "imports.log")
    # The fixture of test_double now comes from ``inc``: test_double checks it (through a
    # value neither of the constants an int-returning body is replaced by gives).
    conftest = root / "conftest.py"
    conftest.write_text(
        conftest.read_text().replace("return 1", "from calc import inc\n    return inc(4) - 4")
    )
    _check(_analyse(root, "calc.py"), [], "detected")


@pytest.mark.slow  # a recording, an analysis and its check on disk, ~10-20 s
def test_a_test_file_reaching_the_function_through_an_import_is_collected(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    # ``compute`` runs only while ``table`` is imported; test_table.py never calls it.
    root = make_project(
        {
            "table.py": """
                def compute():
                    values = [1, 2, 3]
                    return values

                TABLE = compute()
            """,
            "test_table.py": """
                from table import TABLE

                def test_table():
                    assert TABLE == [1, 2, 3]
            """,
            "test_unrelated.py": """
                def test_nothing():
                    assert True
            """,
        }
    )
    _record(root)
    _check(_analyse(root, "table.py"), ["test_unrelated.py"], "detected")


_MIXED_TESTS = """
    import unittest

    import pytest

    from calc import inc
    from other import double


    def test_inc():
        assert inc(1) == 2


    @pytest.mark.parametrize("x", [1, 2])
    def test_double(x):
        assert double(x) == 2 * x


    class TestBoth:
        def test_inc(self):
            assert inc(2) == 3

        def test_double(self):
            assert double(2) == 4


    class DoubleCase(unittest.TestCase):
        def test_double(self):
            self.assertEqual(double(3), 6)

        def test_inc(self):
            self.assertEqual(inc(5), 6)
"""


def _mixed(
    make_project: Callable[[dict[str, str]], Path],
    log: Path,
    tests: tuple[str, str] = ("test_mixed.py", _MIXED_TESTS),
) -> Path:
    """``calc.inc`` and ``other.double``, the test file ``tests`` (name, text), and a
    conftest logging each node id a pytest session collects into ``log``."""
    return make_project(
        {
            "calc.py": "def inc(x):\n    y = x + 1\n    return y\n",
            "other.py": "def double(x):\n    y = x * 2\n    return y\n",
            # What each pytest session collects, outside the project.
            "conftest.py": f"""
                def pytest_itemcollected(item):
                    with open({str(log)!r}, "a") as out:
                        out.write(item.nodeid + "\\n")
            """,
            tests[0]: tests[1],
        }
    )


def test_in_a_test_file_that_reaches_them_only_the_reaching_tests_are_collected(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    # Collecting a class or function that cannot detect a transformation (pytest parses
    # the fixtures of every class and makes an item of every test) was much of
    # more-itertools' collection: one file holds the tests of every function.
    log = tmp_path / "collected.log"
    root = _mixed(make_project, log)
    _record(root)
    log.unlink()
    narrowed = _analyse(root, "calc.py")
    collected = set(log.read_text().split())
    assert collected == {
        "test_mixed.py::test_inc",
        "test_mixed.py::TestBoth::test_inc",
        "test_mixed.py::DoubleCase::test_inc",
    }
    assert narrowed.uncollected_tests == 4
    _check(narrowed, [], "detected")


@pytest.mark.slow  # a recording and two analyses, ~10-20 s
def test_the_verdicts_of_a_narrowed_collection_are_those_of_a_whole_one(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    root = _mixed(make_project, tmp_path / "collected.log")
    _record(root)
    narrowed = _analyse(root, "calc.py")
    (root / ".reks").rename(tmp_path / "store")  # no store: every test is collected
    whole = _analyse(root, "calc.py")
    assert (narrowed.uncollected_tests, whole.uncollected_tests) == (4, 0)
    assert [(r.transformation, r.verdict) for r in narrowed.results] == [
        (r.transformation, r.verdict) for r in whole.results
    ]


_UNITTEST_CLASS = """
    import unittest

    from calc import inc
    from other import double


    class BothCase(unittest.TestCase):
        def test_inc(self):
            self.assertEqual(inc(1), 2)

        def test_double(self):
            self.assertEqual(double(2), 4)

        def test_double_again(self):
            self.assertEqual(double(3), 6)
"""


def test_in_a_unittest_class_that_reaches_them_only_the_reaching_methods_are_collected(
    make_project: Callable[[dict[str, str]], Path], tmp_path: Path
) -> None:
    # pytest makes the items of a unittest.TestCase class itself (not through
    # pytest_pycollect_makeitem): every method of a class holding one wanted test was
    # collected, as were whole classes of more-itertools' tests.
    log = tmp_path / "collected.log"
    root = _mixed(make_project, log, ("test_case.py", _UNITTEST_CLASS))
    _record(root)
    log.unlink()
    narrowed = _analyse(root, "calc.py")
    assert set(log.read_text().split()) == {"test_case.py::BothCase::test_inc"}
    assert narrowed.uncollected_tests == 2
    _check(narrowed, [], "detected")
