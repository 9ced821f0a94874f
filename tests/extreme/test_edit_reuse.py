"""After an edit, a transformation's verdict is kept exactly when nothing its own run
executed changed: the transformed run of a test can take another path than the original
run (so it may reach the edit although the original did not, or stop before the edit
although the original reached it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Analysis, Options, analyse
from lsp_server.extreme.quick import saved_change
from lsp_server.extreme.warm import WarmPools

SOURCE = """\
def base(x):
    y = x + 1
    return y


def early(x):
    y = x * 2
    return y


def guard(x):
    ok = x > 0
    return ok
"""

TESTS = """
from m import base, early, guard

def test_early_then_base():
    # early's transformed run fails here, before base runs.
    assert early(2) == 4
    assert base(1) == 2

def test_guard():
    # The original run never calls base; guard's transformed run does.
    assert guard(1) or base(0) == 2
"""


def _rows(analysis: Analysis) -> list[tuple[str, str, str]]:
    return [
        (r.transformation.function, r.transformation.body, r.verdict.value)
        for r in analysis.results
    ]


def test_an_edit_reruns_only_the_transformations_whose_run_reached_it(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"m.py": SOURCE, "test_m.py": TESTS})
    # base(1) == 2 still holds and base(0) == 2 now does: guard's "return False" is no
    # longer detected.
    second, cold, restarts = _edited_once(root, SOURCE.replace("y = x + 1", "y = max(x + 1, 2)"))
    assert restarts == 1  # the edit was followed in the warm workers
    assert _rows(second) == _rows(cold)
    assert ("guard", "return False", "undetected") in _rows(second)
    ran = {(r.transformation.function, r.transformation.body) for r in cold.results}
    base_count = sum(1 for function, _ in ran if function == "base")
    # base's own transformations, and those of guard whose run called base; early's
    # transformed runs stopped before base, so their verdicts stand.
    assert "m.py::early" in second.reused
    assert second.run_count == base_count + 1  # guard's "return False"


def _edited_once(root: Path, edited: str) -> tuple[Analysis, Analysis, int]:
    """Analyse on warm workers (guard's "return False" is detected), write ``edited`` to
    m.py, analyse again on them: that analysis, a cold one of the edited code, and how
    many times the warm workers were started."""
    warm = WarmPools()
    try:
        first = analyse(root, Options(jobs=1), warm=warm)
        assert ("guard", "return False", "detected") in _rows(first)
        (root / "m.py").write_text(edited)
        second = analyse(root, Options(jobs=1), warm=warm)
    finally:
        warm.close()
    return second, analyse(root, Options(jobs=1, incremental=False)), warm.restarts


@pytest.mark.slow  # three analyses, ~6-15 s
def test_an_edit_of_a_constant_a_run_read_reruns_it(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # No function's code changes when LIMIT does, yet base(0) == 2 now holds, so guard's
    # "return False" is no longer detected; the worker must not keep the old LIMIT either.
    source = "LIMIT = 0\n\n\n" + SOURCE.replace("y = x + 1", "y = max(x + 1, LIMIT)")
    root = make_project({"m.py": source, "test_m.py": TESTS})
    second, cold, _ = _edited_once(root, source.replace("LIMIT = 0", "LIMIT = 2"))
    assert ("guard", "return False", "undetected") in _rows(cold)
    assert _rows(second) == _rows(cold)


def test_a_run_stopped_at_its_timeout_still_records_what_it_ran(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "m.py": """
                def step(n):
                    m = n - 1
                    return m


                def countdown(n):
                    while n:
                        n = step(n)
                    return n
            """,
            "test_m.py": """
                from m import countdown

                def test_countdown():
                    assert countdown(3) == 0
            """,
        }
    )
    analysis = analyse(root, Options(jobs=1, incremental=False))
    (hung,) = [
        r
        for r in analysis.results
        if (r.transformation.function, r.transformation.body) == ("step", "return 1")
    ]
    assert hung.verdict.value == "timeout"
    assert hung.units is not None
    assert {"m.py::countdown", "test_m.py::test_countdown"} <= set(hung.units)


@pytest.mark.slow  # four analyses, ~6-15 s
def test_re_analysing_only_the_edited_function_runs_and_observes_only_its_own(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    tests = TESTS + "\ndef test_unrelated():\n    assert early(1) == 2\n"
    root = make_project({"m.py": SOURCE, "test_m.py": tests})
    warm = WarmPools()
    try:
        first = analyse(root, Options(jobs=1), warm=warm)
        (root / "m.py").write_text(SOURCE.replace("y = x + 1", "y = max(x + 1, 2)"))
        second = analyse(root, Options(jobs=1, only=["m.py::base"]), warm=warm)
        assert set(second.functions) == {"m.py::base"}
        assert {r.transformation.function for r in second.results} == {"base"}
        # base's covering test only, not the two that never ran it.
        assert second.observed_tests == len(first.covering["m.py::base"]) == 1
        assert second.run_count == sum(
            1 for r in first.results if r.transformation.function == "base"
        )
        # The others were left as they were: the next whole analysis still sees guard's
        # "return False" run into the edit.
        third = analyse(root, Options(jobs=1), warm=warm)
        assert ("guard", "return False", "undetected") in _rows(third)
        # The quick verdicts of the edited function are redone by a whole analysis.
        assert "m.py::base" not in third.reused
        assert _rows(third) == _rows(analyse(root, Options(jobs=1, incremental=False)))
    finally:
        warm.close()


@pytest.mark.slow  # two analyses, ~4-10 s
def test_an_edited_function_runs_each_transformation_with_its_last_detector_first(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # Only the slowest covering test checks the result; the fast ones run first.
    fast = "".join(f"\ndef test_fast_{i}():\n    double(1)\n" for i in range(4))
    slow = "\ndef test_slow():\n    time.sleep(0.05)\n    assert double(2) == 4\n"
    source = "def double(x):\n    y = x * 2\n    return y\n"
    root = make_project(
        {"m.py": source, "test_m.py": "import time\nfrom m import double\n" + fast + slow}
    )
    first = analyse(root, Options(jobs=1))
    assert first.results and all(r.detected_by == "test_m.py::test_slow" for r in first.results)
    # The first transformation found the checking test last (the others then tried it
    # first: ``test_order``); after the edit each tries its own last detector first.
    assert len(first.results[0].tests) == 5
    (root / "m.py").write_text(source.replace("y = x * 2", "y = 2 * x"))
    second = analyse(root, Options(jobs=1))
    assert second.run_count == len(first.results)
    # Each detected by the first test it ran.
    assert all(r.tests == ["test_m.py::test_slow"] for r in second.results)


CENTRAL = """\
def central(x):
    y = x + 1
    return y


def other(x):
    return central(x) * 2
"""

CENTRAL_TESTS = (
    "from m import central, other\n"
    + "".join(f"\ndef test_through_{i}():\n    other({i})\n" for i in range(6))
    + "\ndef test_central():\n    assert central(1) == 2\n"
)


@pytest.mark.slow  # four analyses, ~6-15 s
def test_an_edited_function_alone_observes_only_its_detecting_tests(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"m.py": CENTRAL, "test_m.py": CENTRAL_TESTS})
    warm = WarmPools()
    try:
        analyse(root, Options(jobs=1), warm=warm)
        (root / "m.py").write_text(CENTRAL.replace("y = x + 1", "y = 1 + x"))
        only = analyse(root, Options(jobs=1, only=["m.py::central"]), warm=warm)
        cold = analyse(root, Options(jobs=1, incremental=False, only=["m.py::central"]))
        assert _rows(only) == _rows(cold) and only.run_count == cold.run_count
        # Only the one test that detected them ran on the edited code, not all seven.
        assert only.observed_tests == 1 and cold.observed_tests == 7
        # A detection by a test that fails on the edited code is no verdict.
        (root / "m.py").write_text(CENTRAL.replace("y = x + 1", "y = x + 2"))
        broken = analyse(root, Options(jobs=1, only=["m.py::central"]), warm=warm)
        assert {r.verdict.value for r in broken.results} == {"error"}
        assert all("does not pass on the edited code" in r.reason for r in broken.results)
    finally:
        warm.close()


REACHED_TESTS = (
    "from m import base, early\n"
    + "".join(f"\ndef test_through_{i}():\n    base({i})\n    early({i})\n" for i in range(6))
    + "\ndef test_early():\n    assert base(0) < 5\n    assert early(2) == 4\n"
    + "\ndef test_base():\n    assert base(1) == 2\n"
)


@pytest.mark.slow  # six analyses, ~8-20 s
def test_a_function_whose_detections_reached_the_edit_is_not_observed_again(
    make_project: Callable[[dict[str, str]], Path], warm_pools: WarmPools
) -> None:
    # Every transformation of early is detected by test_early, whose run calls base
    # first: editing base re-analyses early too (``quick.reached_by``). Its detections
    # stand when the detector still detects and passes on the edited code: none of its
    # seven covering tests needs observing (a central function's hundreds).
    root = make_project({"m.py": SOURCE, "test_m.py": REACHED_TESTS})
    last = analyse(root, Options(jobs=1), warm=warm_pools)
    assert {r[2] for r in _rows(last) if r[0] in ("base", "early")} == {"detected"}
    for edited in ("y = 1 + x", "y = x + 9"):  # the second makes test_early fail
        (root / "m.py").write_text(SOURCE.replace("y = x + 1", edited))
        change = saved_change(last, "m.py")
        assert change is not None and change.to_analyse == ["m.py::base", "m.py::early"]
        only = analyse(root, Options(jobs=1, only=change.to_analyse), warm=warm_pools)
        cold = analyse(root, Options(jobs=1, incremental=False))
        early = [r for r in _rows(only) if r[0] == "early"]
        assert early == [r for r in _rows(cold) if r[0] == "early"]
        if edited == "y = 1 + x":
            # The detectors of base's and early's transformations, no other test.
            assert only.observed_tests == 2, only.observed_tests
        else:  # no detection stands: early's tests observed, its verdicts undetected
            assert {r[2] for r in early} == {"undetected"}
        (root / "m.py").write_text(SOURCE)
        last = analyse(root, Options(jobs=1), warm=warm_pools)


@pytest.mark.slow  # three analyses, ~5-12 s
def test_functions_edited_together_are_not_observed_again(
    make_project: Callable[[dict[str, str]], Path], warm_pools: WarmPools
) -> None:
    # early's covering tests ran base, edited in the same save: more than early's
    # own body changed, yet its detections stand once their detector passes.
    root = make_project({"m.py": SOURCE, "test_m.py": REACHED_TESTS})
    last = analyse(root, Options(jobs=1), warm=warm_pools)
    edited = SOURCE.replace("y = x + 1", "y = 1 + x").replace("y = x * 2", "y = 2 * x")
    (root / "m.py").write_text(edited)
    change = saved_change(last, "m.py")
    assert change is not None and change.changed == ["m.py::base", "m.py::early"]
    only = analyse(root, Options(jobs=1, only=change.to_analyse), warm=warm_pools)
    cold = analyse(root, Options(jobs=1, incremental=False, only=change.to_analyse))
    assert _rows(only) == _rows(cold)
    assert only.observed_tests == 2, only.observed_tests


@pytest.mark.slow  # three analyses, ~5-12 s
def test_an_edited_import_time_function_alone_observes_only_its_detecting_tests(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    source = CENTRAL + "\nAT_IMPORT = central(0)\n"
    root = make_project({"m.py": source, "test_m.py": CENTRAL_TESTS})
    first, only, cold = _edited_alone(root, "m.py::central", source.replace("x + 1", "1 + x"))
    assert "m.py::central" in first.import_time
    assert _rows(only) == _rows(cold)
    assert only.observed_tests == 1


def _edited_alone(root: Path, key: str, edited: str) -> tuple[Analysis, Analysis, Analysis]:
    """A first analysis on warm workers; then, with ``m.py`` edited to ``edited``, the
    function ``key`` analysed alone on them (the editor's quick path) and on new workers
    without remembered state."""
    warm = WarmPools()
    try:
        first = analyse(root, Options(jobs=1), warm=warm)
        (root / "m.py").write_text(edited)
        only = analyse(root, Options(jobs=1, only=[key]), warm=warm)
    finally:
        warm.close()
    cold = analyse(root, Options(jobs=1, incremental=False, only=[key]))
    return first, only, cold


BUGGY = """\
def inc(x):
    y = x + 2  # the bug: test_inc fails
    return y
"""

BUGGY_TESTS = """
from m import inc

def test_inc():
    assert inc(1) == 2

def test_inc_runs():
    inc(1)  # checks nothing
"""


@pytest.mark.slow  # three analyses, ~5-12 s
def test_fixing_the_edited_function_lets_its_failing_tests_detect(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # Before the fix only test_inc_runs passes: every transformation is undetected. After
    # it test_inc passes too and detects them all; the quick re-analysis must not keep
    # running the tests that passed before only.
    root = make_project({"m.py": BUGGY, "test_m.py": BUGGY_TESTS})
    first, only, cold = _edited_alone(root, "m.py::inc", BUGGY.replace("x + 2", "x + 1"))
    assert {r.verdict.value for r in first.results} == {"undetected"}
    assert {r.verdict.value for r in cold.results} == {"detected"}
    assert _rows(only) == _rows(cold)


DOC_SOURCE = '''\
def greet(name):
    """Say hello."""
    return "hello " + name


def shout(text):
    loud = text.upper()
    return loud
'''

DOC_TESTS = """
from m import greet, shout

def test_shout():
    # Reads greet's docstring without calling greet.
    if "hidden" not in greet.__doc__:
        assert shout("a") == "A"
    else:
        shout("a")
"""


@pytest.mark.slow  # four analyses, ~5-12 s
def test_an_edited_docstring_a_test_read_reruns_the_verdicts_of_its_runs(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # After the edit test_shout checks nothing: shout's transformations are undetected,
    # though no run ever executed greet, whose docstring alone changed.
    root = make_project({"m.py": DOC_SOURCE, "test_m.py": DOC_TESTS})
    last = analyse(root, Options(jobs=1))
    assert "detected" in {r[2] for r in _rows(last) if r[0] == "shout"}
    (root / "m.py").write_text(DOC_SOURCE.replace("Say hello.", "Say hello (hidden)."))
    change = saved_change(last, "m.py")
    assert change is not None and "m.py::shout" in change.to_analyse
    quick = analyse(root, Options(jobs=1, only=change.to_analyse))
    whole = analyse(root, Options(jobs=1))
    cold = analyse(root, Options(jobs=1, incremental=False))
    shout = [r for r in _rows(cold) if r[0] == "shout"]
    assert {r[2] for r in shout} == {"undetected"}
    assert [r for r in _rows(quick) if r[0] == "shout"] == shout
    assert [r for r in _rows(whole) if r[0] == "shout"] == shout


UNRELATED = "".join(f"\ndef test_unrelated_{i}():\n    assert len('abc') == 3\n" for i in range(5))


@pytest.mark.slow  # three analyses, ~5-12 s
def test_a_reached_function_observes_only_the_tests_that_ran_it_or_the_edit(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # ``return 0`` of early is undetected (0 >= 0): its re-analysis after base's edit
    # needs every covering test, so they are observed; a test can cover it now only if it
    # ran early or base before (nothing else changed), not the five unrelated ones.
    tests = REACHED_TESTS.replace("assert early(2) == 4", "assert early(2) >= 0") + UNRELATED
    root = make_project({"m.py": SOURCE, "test_m.py": tests})
    last = analyse(root, Options(jobs=1))
    assert "undetected" in {r[2] for r in _rows(last) if r[0] == "early"}
    (root / "m.py").write_text(SOURCE.replace("y = x + 1", "y = 1 + x"))
    change = saved_change(last, "m.py")
    assert change is not None and change.to_analyse == ["m.py::base", "m.py::early"]
    only = analyse(root, Options(jobs=1, only=change.to_analyse))
    cold = analyse(root, Options(jobs=1, incremental=False, only=change.to_analyse))
    assert _rows(only) == _rows(cold)
    # The 8 tests that ran early or base (not the 13 collected), and base's detector
    # once more on the edited code (``confirm_detections``).
    assert only.observed_tests == 8 + 1, only.observed_tests
