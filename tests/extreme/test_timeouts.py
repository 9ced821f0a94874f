"""A transformation's timeout comes from its tests' measured durations, test by test: one
that hangs in its first, fast test is stopped after about that test's share, not after the
time every covering test together took on the original code."""

from __future__ import annotations

import resource
from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Analysis, Options, analyse
from lsp_server.extreme.model import TransformationResult, Verdict
from lsp_server.extreme.transform_run import CPU_SLACK, PAST_HANGS

from .conftest import LOOP_MODULE

SLOW_TESTS = 24  # 0.15 s each: the whole covering set takes ~3.6 s on the original code

TESTS = "\n".join(
    [
        "import time",
        "from loop import advance, ready",
        "",
        "def test_fast():",
        "    assert advance({'n': 0}) == 3",
        "",
        *(
            f"def test_slow_{i}():\n    time.sleep(0.15)\n    assert ready({{'n': 3}})\n"
            for i in range(SLOW_TESTS)
        ),
    ]
)


@pytest.mark.slow  # ~6-10 s: observes 25 tests, one transformation hangs
def test_a_hang_in_the_first_test_stops_at_that_tests_deadline(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project(
        {
            "loop.py": LOOP_MODULE,
            "test_loop.py": TESTS,
        }
    )
    analysis = analyse(root, Options(jobs=2, incremental=False, paths=[root / "loop.py"]))
    (hang,) = [
        r
        for r in analysis.results
        if (r.transformation.function, r.transformation.body) == ("ready", "return False")
    ]
    # The slow tests fail: the first one after the hang detects it (``_past_hangs``).
    assert hang.verdict is Verdict.DETECTED
    whole = 1.0 + 3.0 * SLOW_TESTS * 0.15  # the timeout of the whole covering set
    assert hang.duration < whole / 2, hang


@pytest.mark.slow  # ~3-6 s: one transformation loops
def test_a_busy_loop_is_a_timeout_once_it_used_its_cpu_budget(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # A loaded machine can stop a run past a wall-clock deadline that does not hang, so
    # such a timeout must repeat (twice the deadline, and more); a run that used more CPU
    # time than its tests' budget did that much work, whatever the load. The wall-clock
    # deadline is made long here: only the CPU budget can stop the loop soon.
    tests = "from loop import advance\n\ndef test_advance():\n    assert advance({'n': 0}) == 3\n"
    root = make_project({"loop.py": LOOP_MODULE, "test_loop.py": tests})
    options = Options(jobs=1, incremental=False, paths=[root / "loop.py"], timeout_base=20.0)
    analysis = analyse(root, options)
    (hang,) = [
        r
        for r in analysis.results
        if (r.transformation.function, r.transformation.body) == ("ready", "return False")
    ]
    assert hang.verdict is Verdict.TIMEOUT
    assert "CPU" in hang.reason
    assert hang.duration < 20.0  # once, and before the wall-clock deadline


# ``ready -> return False``: ``test_advance`` hangs (the loop never ends), ``test_enough``
# fails. ``test_advance`` is the faster and names no function, so it runs first.
HANG_THEN_FAIL = """
import time
from loop import advance, ready

def test_advance():
    assert advance({'n': 0}) == 3

def test_enough():
    time.sleep(0.05)
    assert ready({'n': 3})
"""


# ``ready -> return False``: ``test_advance_until_ready`` hangs (it names the function, so
# it runs first); ``test_busy`` then works 0.05 s of CPU time, more than a short budget
# after a hang allows but well within the test's own, and fails.
HANG_THEN_BUSY_FAIL = """
import time
from loop import advance, ready

def test_advance_until_ready():
    assert advance({'n': 0}) == 3

def test_busy():
    state, start = {'n': 3}, time.process_time()
    while not ready(state) and time.process_time() - start < 0.05:
        pass
    assert ready(state)
"""


@pytest.mark.slow  # ~3-10 s each: observes 2 tests, one transformation hangs
@pytest.mark.parametrize(
    ("tests", "first", "detector"),
    [
        pytest.param(HANG_THEN_FAIL, "test_advance", "test_enough", id="fails"),
        # Passing hangs on a short budget first must not change a verdict: a slow test
        # after a hang, stopped there, runs again on its whole budget, and fails.
        pytest.param(HANG_THEN_BUSY_FAIL, "test_advance_until_ready", "test_busy", id="slow"),
    ],
)
def test_a_failing_test_after_a_hanging_one_makes_it_detected(
    make_project: Callable[[dict[str, str]], Path], tests: str, first: str, detector: str
) -> None:
    # The verdict must not depend on the order of the tests (durations measured anew by
    # each recording, detections of other transformations): a failing covering test
    # detects the transformation whether a hanging one runs before it or not. cachetools'
    # ``LRUCache.__delitem__ -> pass`` made 12 of its 16 covering tests loop and 3 fail,
    # and its verdict went from timeout to detected between two recordings of the store.
    root = make_project({"loop.py": LOOP_MODULE, "test_loop.py": tests})
    _detected_past_a_hang(root, first, detector)


def _ready_false(root: Path) -> tuple[Analysis, TransformationResult]:
    """An analysis of ``loop.py`` on one worker, and its result of ``ready -> return False``."""
    analysis = analyse(root, Options(jobs=1, incremental=False, paths=[root / "loop.py"]))
    (hang,) = [
        r
        for r in analysis.results
        if (r.transformation.function, r.transformation.body) == ("ready", "return False")
    ]
    return analysis, hang


def _detected_past_a_hang(root: Path, first: str, detector: str) -> None:
    """``ready -> return False`` hangs in the test ``first``, and ``detector`` after it fails."""
    analysis, hang = _ready_false(root)
    assert analysis.covering["loop.py::ready"][0] == f"test_loop.py::{first}"
    assert hang.verdict is Verdict.DETECTED, hang
    assert hang.detected_by == f"test_loop.py::{detector}"
    assert hang.reason.startswith(PAST_HANGS)


def _hangs_then_fail(hangs: int) -> str:
    """``hangs`` fast tests that loop under ``ready -> return False``, then one that fails
    (slow: the request's timeout, the CPU budgets the hangs passed may use, is longer)."""
    looping = "".join(
        f"def test_advance_{i}():\n    assert advance({{'n': 0}}) == 3\n\n" for i in range(hangs)
    )
    enough = "def test_enough():\n    time.sleep(0.3)\n    assert ready({'n': 3})\n"
    return f"import time\nfrom loop import advance, ready\n\n{looping}{enough}"


def _cpu_of_analysis(root: Path) -> tuple[float, str]:
    """CPU seconds of the analysis's processes (the workers and their children, waited
    for when the pool closes) and the verdict's reason of ``ready -> return False``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    _, hang = _ready_false(root)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert hang.verdict is Verdict.DETECTED, hang
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, hang.reason


@pytest.mark.slow  # ~4-8 s: two analyses of a small project
def test_hangs_passed_on_the_way_to_a_failing_test_cost_less_than_a_full_cpu_budget(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # cachetools' ``FIFOCache.__delitem__ -> pass`` hangs in 4 covering tests before the
    # fifth fails; tomlkit's ``Source.inc -> return False`` in 2 of 3. Each hang passed
    # used to cost the whole CPU budget of a test (``CPU_SLACK``, 0.1 s for a fast one):
    # those runs were most of both analyses' time. A failure further on is a detection
    # however the hangs before it were stopped, so they are passed on a short budget first.
    extra = 16
    one, _ = _cpu_of_analysis(
        make_project({"loop.py": LOOP_MODULE, "test_loop.py": _hangs_then_fail(1)})
    )
    many, reason = _cpu_of_analysis(
        make_project({"loop.py": LOOP_MODULE, "test_loop.py": _hangs_then_fail(1 + extra)})
    )
    assert reason.startswith(f"{PAST_HANGS} {extra + 1} test(s) hung first"), reason
    # With ``CPU_SLACK`` in every budget, each extra hang cost more than CPU_SLACK (0.106 s
    # measured); on ``PROBE_SLACK`` 0.027-0.038 s. The bound leaves room for a loaded machine,
    # where CPU time per hang grows too (0.6 failed once at load 14).
    assert (many - one) / extra < 0.8 * CPU_SLACK, (one, many)


# ``ready -> return False``: every test waits for a state that never comes, sleeping
# (waiting on a lock, a queue or a retry loop looks the same): it uses no CPU, so only its
# wall-clock deadline (at least ``Options.timeout_base``) stops it. No test fails.
WAITING_MODULE = """
import time

def ready(state):
    if state["n"] >= 3:
        return True
    return False

def wait_for(state):
    while not ready(state):
        time.sleep(0.01)
        state["n"] += 1
    return state["n"]
"""
WAITING_TESTS = 30


@pytest.mark.slow  # ~10 s (~25 s before): observes 30 tests, one transformation waits
def test_passing_waits_costs_a_bounded_multiple_of_the_covering_tests_timeout(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    # The look past hangs for a failing test may use the request's timeout in all; each
    # wait passed was charged its test's CPU budget (~0.2 s) while it lasted its wall-clock
    # deadline (~1.1 s): 19 waits passed, ~25 s for a transformation whose tests take ~1 s.
    tests = "from waiting import wait_for\n\n" + "".join(
        f"def test_wait_{i}():\n    assert wait_for({{'n': 0}}) == 3\n\n"
        for i in range(WAITING_TESTS)
    )
    root = make_project({"waiting.py": WAITING_MODULE, "test_waiting.py": tests})
    analysis = analyse(root, Options(jobs=1, incremental=False, paths=[root / "waiting.py"]))
    (waits,) = [
        r
        for r in analysis.results
        if (r.transformation.function, r.transformation.body) == ("ready", "return False")
    ]
    assert waits.verdict is Verdict.TIMEOUT, waits
    whole = 1.0 + 3.0 * WAITING_TESTS * 0.03  # the timeout of the whole covering set
    # The first run, the look past the waits (the timeout in all), the repeat, the control.
    assert waits.duration < 3 * whole + 2.0, waits
