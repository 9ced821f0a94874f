"""Which tests leave state behind in a kept child (``kept_child``): a request that holds
one goes the forked way at once, where a kept child would only add its reading of the
state to the run (and redo a later ``undetected`` verdict in a fresh child).

A run that left state says only that one of its tests did. Its tests are suspected, less
those that passed in a kept child's run that left none: a project's clean tests run beside
its state-leaving ones in one request (a function both reach), and would send every later
run of theirs to a fresh child. A test that failed in a clean run is not cleared: it may
have stopped before what leaves the state. Which way a run goes decides its cost only,
never its verdict.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StateLeavers:
    """The suspects, and the tests seen passing in a run that left no state."""

    suspects: set[str] = field(default_factory=set)
    passed_clean: set[str] = field(default_factory=set)

    def forks(self, tests: Collection[str]) -> bool:
        """Whether a request of ``tests`` goes the forked way at once."""
        return not self.suspects.isdisjoint(tests)

    def note(self, tests: list[str], outcome: dict[str, Any] | None, left_state: bool) -> None:
        """A kept child's run of the request of ``tests``: its ``outcome`` (None: nothing
        ran), and whether it left state behind."""
        ran: list[str] = (outcome or {}).get("tests") or (tests if left_state else [])
        if left_state:
            self.suspects.update(test for test in ran if test not in self.passed_clean)
        else:
            failed = (outcome or {}).get("detected_by")
            self.passed_clean.update(test for test in ran if test != failed)
