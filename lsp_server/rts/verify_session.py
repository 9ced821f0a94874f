"""The pytest side of verifying what REKS skipped (``lsp_server.rts.verification``).

``--reks-verify-budget SECONDS`` (or ``[tool.reks.rts] verify-budget``): when the selected
tests are done, the session runs tests REKS skipped and no run has verified yet, as many
as their recorded durations fit in the budget, and reports them apart.
``--reks-verify-skipped`` runs every such test and nothing else (``reks verify-skipped``).
Whatever ran, the session settles at its end the skipped tests it recorded
(``DependencyStore.settle_session``) and prints an alarm for each task whose skipped tests
failed.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from lsp_server.project.config import load_config
from lsp_server.rts.verification import Alarm, describe_alarm

CONFIG_SECTION, CONFIG_KEY = "rts", "verify-budget"


def configured_budget(config: pytest.Config, root: Path) -> float:
    """Seconds of verification this session may spend: the option, else the project's
    ``[tool.reks.rts] verify-budget``, else 0 (off); ``--reks-verify-skipped``: no limit."""
    if config.getoption("reks_verify_skipped", False):
        return math.inf
    value = config.getoption("reks_verify_budget", None)
    if value is None:
        value = load_config(root).section(CONFIG_SECTION).get(CONFIG_KEY, 0)
    try:
        return max(float(value), 0.0)
    except (TypeError, ValueError):
        raise pytest.UsageError(
            f"reks: {CONFIG_KEY} must be a number of seconds, not {value!r}"
        ) from None


class SkippedVerifier:
    """Runs pending skipped tests within the budget, after the selected ones, and reports
    them apart. Registered by the session controller in every process that runs tests."""

    def __init__(self, nodeids: list[str], budget: float) -> None:
        self.nodeids = set(nodeids)
        self.budget = budget
        self.spent = 0.0
        self.outcomes: dict[str, str] = {}
        self.left_out = 0
        self.alarms: list[Alarm] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: object) -> bool | None:
        """Past the budget (the recorded durations were too optimistic): leave the rest
        pending, without a report."""
        if item.nodeid in self.nodeids and self.spent > self.budget:
            self.left_out += 1
            return True
        return None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid not in self.nodeids:
            return
        self.spent += report.duration
        if report.failed or (report.when == "call" and report.nodeid not in self.outcomes):
            self.outcomes[report.nodeid] = "failed" if report.failed else report.outcome

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tr = terminalreporter
        if self.nodeids:
            failed = sum(1 for o in self.outcomes.values() if o == "failed")
            passed = sum(1 for o in self.outcomes.values() if o == "passed")
            budget = "no limit" if math.isinf(self.budget) else f"budget {self.budget:g} s"
            left = f", {self.left_out} left for later" if self.left_out else ""
            tr.write_line(
                f"reks: verified {len(self.outcomes)} tests REKS had skipped ({budget},"
                f" {self.spent:.1f} s): {passed} passed, {failed} failed{left}"
            )
        for alarm in self.alarms:
            for line in describe_alarm(alarm):
                tr.write_line(line, red=True, bold=True)
