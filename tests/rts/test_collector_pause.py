"""reks's own work between the project's code starts no automatic garbage collection
(``rts.collector_pause``): taking what a test ran, attributing its units, writing them
and analysing a source file allocate and drop thousands of objects, and each collection
they set off visited the whole heap (jinja: 1.5 s of collections recording, 0.16 s
plain). The project's own code is collected as before, and a project that turned the
collector off keeps it off. Checked on real pytest sessions."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import ran_and_failed, write

pytest_plugins = ["pytester"]

# Notes, for each automatic collection of the session, the reks work it started in (the
# function's name: the recorder's part of each test's protocol, a suspended generator while
# the test runs, the last write, an analysis) or "" (the project's code, pytest's), and the
# function it started in: frequent collections, so that reks's work would set some off.
COUNTING_CONFTEST = """
import gc
import sys

REKS_WORK = {
    "pytest_runtest_protocol": "recorder.py",
    "_flush_records": "recorder.py",
    "_analyse": "snapshots.py",
}
started = []


def _reks_work(frame):
    while frame is not None:
        code = frame.f_code
        if code.co_filename.endswith(REKS_WORK.get(code.co_name, "?")):
            return code.co_name
        frame = frame.f_back
    return ""


def _on_collection(phase, info):
    if phase == "start":
        frame = sys._getframe(1)
        started.append(_reks_work(frame) + ":" + frame.f_code.co_name)


gc.callbacks.append(_on_collection)
gc.set_threshold(50, 5, 5)


def pytest_unconfigure(config):
    gc.callbacks.remove(_on_collection)
    with open("collections.txt", "w") as out:
        out.write("\\n".join(started) + "\\n")
"""

LIB = """
class Node:
    def __init__(self, children):
        self.children = children


def tree(depth):
    return Node([tree(depth - 1) for _ in range(3)]) if depth else Node([])


def size(node):
    return 1 + sum(size(child) for child in node.children)
"""

TESTS = """
import lib


def test_small():
    assert lib.size(lib.tree(2)) == 13


def test_larger():
    assert lib.size(lib.tree(5)) == 364
"""


@pytest.fixture
def collector_restored() -> Iterator[None]:
    """The in-process session changes the collector's thresholds (and maybe turns it
    off): this process gets them back."""
    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if enabled:
            gc.enable()


def _collections(root: Path) -> list[tuple[str, str]]:
    """Each collection's reks work ("" for none) and the function it started in."""
    lines = (root / "collections.txt").read_text().splitlines()
    return [(work, frame) for work, _, frame in (line.partition(":") for line in lines)]


@pytest.mark.usefixtures("collector_restored")
def test_recording_and_analysis_start_no_automatic_collection(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "conftest.py", COUNTING_CONFTEST)
    write(pytester, "lib.py", LIB)
    write(pytester, "test_lib.py", TESTS)
    ran, failed = ran_and_failed(pytester)
    assert ran == {"test_small", "test_larger"}
    assert failed == set()
    started = _collections(pytester.path)
    # Inside reks's work none starts: only where the pause ends (the one collection what it
    # kept may bring about, instead of one per thousand objects): in its function, or (3.11)
    # in the ``__exit__`` of contextlib's manager that resumes the collector.
    resumed = {"__exit__", "collector_paused"}
    inside = [
        f"{work} > {frame}"
        for work, frame in started
        if work and frame != work and frame not in resumed
    ]
    assert inside == []
    # The collector still runs where the project's code and pytest's allocate.
    assert [frame for work, frame in started if not work]
    assert gc.isenabled()


DISABLING_CONFTEST = """
import gc

gc.disable()
"""

STAYS_OFF = """
import gc

import lib


def test_first():
    assert lib.size(lib.tree(3)) == 40


def test_collector_still_off():
    # test_first was recorded in between: its recording turned the collector back on?
    assert not gc.isenabled()
"""


@pytest.mark.usefixtures("collector_restored")
def test_a_project_that_turned_the_collector_off_keeps_it_off(
    pytester: pytest.Pytester,
) -> None:
    write(pytester, "conftest.py", DISABLING_CONFTEST)
    write(pytester, "lib.py", LIB)
    write(pytester, "test_lib.py", STAYS_OFF)
    ran, failed = ran_and_failed(pytester)
    assert ran == {"test_first", "test_collector_still_off"}
    assert failed == set()
