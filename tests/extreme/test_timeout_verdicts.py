"""A timeout counts as a detection (the transformation made the tests hang) only when the
original code's tests took well within the limit that stopped the run: with a limit tighter
than the tests need anyway (a small ``--timeout-factor``, durations measured on a quieter
machine), the run is made once more with room, and a timeout then is "not analysable:
timed out under load" with the figures, never a detection."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.extreme.analysis import Options, analyse
from lsp_server.extreme.model import Verdict
from lsp_server.extreme.timeout_rule import UNDER_LOAD

from .conftest import INC_MODULE

# Busy for 1 s of CPU time, whatever the load: a limit of a tenth of its duration (plus
# 0.05 s) stops it by its CPU budget as surely as by the clock. ``inc`` is called without
# being checked: every transformation of it leaves the test passing.
SLOW_BUSY_TEST = """
import time

from m import inc

def test_busy_then_inc():
    started = time.process_time()
    while time.process_time() - started < 1.0:
        pass
    inc(1)
"""


def test_a_timeout_of_tests_slower_than_their_limit_is_no_detection(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    root = make_project({"m.py": INC_MODULE, "test_m.py": SLOW_BUSY_TEST})
    # A long wall-clock allowance: only the CPU budget (a tenth of 1 s) can stop the run.
    options = Options(jobs=1, incremental=False, timeout_factor=0.1, timeout_base=20.0)
    analysis = analyse(root, options)
    assert analysis.results
    for result in analysis.results:
        assert result.verdict is not Verdict.TIMEOUT, result
        if result.verdict is Verdict.ERROR:  # the run with room timed out too
            assert result.reason.startswith(UNDER_LOAD), result
            assert "s on the original code" in result.reason, result
        else:
            assert result.verdict is Verdict.UNDETECTED, result


# ``step -> return False`` makes ``advance`` loop for ever: a timeout in place, and a hang
# of the plain run on disk too (stopped at its limit: the in-place timeout plus the
# allowance, here ten seconds instead of the minute a real project's start is given). The
# loop sleeps: a busy one would burn those ten seconds of CPU on a loaded CI machine.
STEP_MODULE = """
import time

def step(state):
    state["n"] += 1
    return state["n"] >= 3

def advance(state):
    while not step(state):
        time.sleep(0.01)
    return state["n"]
"""


@pytest.mark.slow  # ~20-30 s: the plain run of the hang waits for its limit
def test_verify_samples_timeout_detections_too(
    make_project: Callable[[dict[str, str]], Path],
) -> None:
    tests = "from loop import advance\n\ndef test_advance():\n    assert advance({'n': 0}) == 3\n"
    root = make_project({"loop.py": STEP_MODULE, "test_loop.py": tests})
    options = Options(jobs=1, incremental=False, only=["step"], verify=1, disk_timeout_base=10.0)
    analysis = analyse(root, options)
    verdicts = [r.verdict for r in analysis.results]
    assert Verdict.TIMEOUT in verdicts, analysis.results
    # One detected verdict and one timeout checked the plain way; they agree.
    assert analysis.checked_on_disk == min(1, verdicts.count(Verdict.DETECTED)) + 1
    assert analysis.defects == []
    assert Verdict.TIMEOUT in [r.verdict for r in analysis.results]
