"""pytest plugin for the rts benchmarks: write each test's node id and outcome, one JSON
line per test, to the file ``REKS_BENCH_OUTCOMES`` names. Parsing ``-rA`` instead cut a
node id with a space (``test_case[a b]``) at the space, and a failure's message cannot be
told from an id that holds `` - ``. A file that fails to collect is listed as failed."""

from __future__ import annotations

import json
import os

import pytest

_FAILED: set[str] = set()
_PASSED: set[str] = set()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # Any failing phase fails the test (an error in set-up or tear-down included); an
    # expected failure counts as passed, as -rA's XFAIL did.
    if report.failed:
        _FAILED.add(report.nodeid)
    elif report.when == "call" or (report.skipped and hasattr(report, "wasxfail")):
        _PASSED.add(report.nodeid)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    # A test file that fails to import (a mutation, a commit) is listed under its own node
    # id: a tool that collected it failed it too, one that skipped it missed its tests.
    if report.failed:
        _FAILED.add(report.nodeid)


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get("REKS_BENCH_OUTCOMES")
    if path is None or hasattr(session.config, "workerinput"):
        return
    with open(path, "w", encoding="utf-8") as out:
        for nodeid in sorted(_FAILED):
            out.write(json.dumps([nodeid, "failed"]) + "\n")
        for nodeid in sorted(_PASSED - _FAILED):
            out.write(json.dumps([nodeid, "passed"]) + "\n")
