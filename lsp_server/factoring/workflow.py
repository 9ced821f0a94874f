"""``pytest --reks-factored``: factored tests first, system tests only when needed.

Each collected factored test (a module with ``REKS_ORIGINAL``) runs before the system tests;
a system test whose factored version passed is skipped with that reason, and one whose
factored version diverged, failed or was stale runs as usual. The summary says how much time
the skipped system tests took when they were captured.
"""

from __future__ import annotations

from typing import Any

import pytest


class FactoredFirst:
    """The plugin object ``pytest_configure`` registers for ``--reks-factored``."""

    def __init__(self) -> None:
        self.factored_of: dict[str, str] = {}
        """System test node id -> its factored test's node id."""
        self.system_s: dict[str, float] = {}
        self.outcomes: dict[str, str] = {}
        self.replaced: list[str] = []
        self.ran: list[str] = []
        self.replay_s = 0.0
        self.divergences: dict[str, str] = {}
        """Factored test -> the call at which its replay diverged."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        collected = {item.nodeid for item in items}
        factored = []
        for item in items:
            original = getattr(getattr(item, "module", None), "REKS_ORIGINAL", None)
            if original and original in collected:
                self.factored_of[original] = item.nodeid
                factored.append(item)
                self.system_s[original] = _recorded_system_time(item)
        firsts = {id(item) for item in factored}
        items[:] = factored + [item for item in items if id(item) not in firsts]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid not in self.factored_of.values():
            return
        if report.failed or report.skipped:
            self.outcomes[report.nodeid] = "failed" if report.failed else "skipped"
            divergence = _divergence(report)
            if divergence:
                self.divergences.setdefault(report.nodeid, divergence)
        else:
            self.outcomes.setdefault(report.nodeid, "passed")
        self.replay_s += report.duration

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        factored = self.factored_of.get(item.nodeid)
        if factored is None:
            return
        if self.outcomes.get(factored) == "passed":
            self.replaced.append(item.nodeid)
            pytest.skip(f"reks: its factored test passed ({factored})")
        self.ran.append(item.nodeid)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.factored_of:
            return
        saved = sum(self.system_s.get(n, 0.0) for n in self.replaced)
        terminalreporter.write_line(
            f"reks factored: {len(self.replaced)} system tests answered by their factored "
            f"tests (saved about {saved:.2f} s, replays took {self.replay_s:.2f} s); "
            f"{len(self.ran)} ran because the factored test diverged, failed or was stale"
        )
        for factored, divergence in self.divergences.items():
            terminalreporter.write_line(f"reks factored: {factored}: {divergence}")


def _divergence(report: pytest.TestReport) -> str:
    """The replay's divergence message in a failed report ("" for a failure of T)."""
    for line in report.longreprtext.splitlines():
        start = line.find("replay of ")
        if start >= 0 and " diverged: " in line:
            return line[start:]
    return ""


def _recorded_system_time(item: pytest.Item) -> float:
    """The system test's duration when it was captured (stored in the transcript)."""
    import json
    from pathlib import Path

    module: Any = getattr(item, "module", None)
    path = Path(module.__file__).parent / module.REKS_TRANSCRIPT
    try:
        return float(json.loads(path.read_text(encoding="utf-8")).get("system_s", 0.0))
    except (OSError, ValueError):
        return 0.0
