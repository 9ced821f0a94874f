"""How a test failed, in one line: the reason of a detected verdict names the failing test,
the phase (setup, call, teardown) and the error, so a developer can tell a real detection
from one the analysis made up (``disk_check`` reports a detection without a reason as a
defect)."""

from __future__ import annotations

from collections.abc import Generator

import pytest

NOTE_LIMIT = 200
"""Characters of the error's message kept in a note."""


def short_failure(*args: object, **kwargs: object) -> str:
    # Rendering a failure report (source, locals, reprs) dominated the cost of a detected
    # transformation; the one-line note of ``FailureNote`` is all a verdict keeps.
    return "failed"


def describe(call: pytest.CallInfo[None]) -> str:
    """``when: ErrorType: first line of its message`` of a failed phase of a test."""
    excinfo = call.excinfo
    if excinfo is None:  # a report made failed without an exception (a strict xpass)
        return f"{call.when}: failed"
    try:
        message = str(excinfo.value).strip().splitlines()
    except Exception:  # a project's exception whose __str__ fails: its type says enough
        message = []
    text = f"{call.when}: {excinfo.typename}"
    if message:
        text += f": {message[0][:NOTE_LIMIT]}"
    return text


class FailureNote:
    """A pytest plugin of the worker: the first failure of the test being run (``text``,
    empty while it passes); ``reset`` before each test."""

    def __init__(self) -> None:
        self.text = ""

    def reset(self) -> None:
        self.text = ""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if report.failed and not self.text:
            self.text = describe(call)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Subtests report their failures through this hook only, not in the reports
        # ``runtestprotocol`` returns; a failed subtest is a failed test.
        if report.failed and not self.text:
            self.text = f"{report.when}: a subtest failed"
