"""What a ``pytest --reks`` run printed, read back for the editors: counts and failures.

The editors run the affected tests as a subprocess and show the outcome: how many passed
and failed, and where each failure is. pytest prints the counts in its last line
(``1 failed, 2 passed, 3 deselected in 0.20s``) and, with ``-rfE``, one short-summary line
per failed or erroring test (``FAILED tests/t.py::test_x - AssertionError: ...``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SHORT_SUMMARY_OPTION = "-rfE"
"""Asks pytest for the short-summary lines of failures and errors."""

_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")
_SHORT = re.compile(r"^(FAILED|ERROR) (\S+?)(?: - (.*))?$")
_SUMMARY = re.compile(r"^=+ (.*) =+$")


@dataclass(frozen=True)
class Failure:
    nodeid: str
    message: str
    error: bool = False
    """An error in setup or teardown (pytest's ERROR), not a failed assertion."""


@dataclass
class RunReport:
    """Counts by outcome (``passed``, ``failed``, ``error``, ...) and the failures."""

    counts: dict[str, int] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    summary: str = ""
    """pytest's last line, without its ``=`` frame."""

    @property
    def passed(self) -> int:
        return self.counts.get("passed", 0)

    @property
    def failed(self) -> int:
        return self.counts.get("failed", 0) + self.counts.get("error", 0)

    def sentence(self) -> str:
        """``3 passed, 1 failed`` (errors count as failures), then pytest's other counts."""
        words = [f"{self.passed} passed", f"{self.failed} failed"]
        words += [
            f"{n} {kind}"
            for kind, n in self.counts.items()
            if kind not in ("passed", "failed", "error") and kind != "deselected"
        ]
        return ", ".join(words)


def read_run(lines: list[str]) -> RunReport:
    """The report of a pytest run from its output lines."""
    report = RunReport()
    for line in lines:
        short = _SHORT.match(line)
        if short is not None:
            kind, nodeid, message = short.groups()
            report.failures.append(Failure(nodeid, message or kind.lower(), kind == "ERROR"))
    for line in reversed(lines):
        framed = _SUMMARY.match(line.strip())
        text = framed.group(1) if framed else line.strip()
        found = _COUNT.findall(text)
        if found:
            report.summary = text
            for n, kind in found:
                kind = "error" if kind.startswith("error") else kind
                report.counts[kind] = report.counts.get(kind, 0) + int(n)
            break
    return report
