"""The pytest side of timing factored tests against their system tests: in one session, each
pair runs in interleaved rounds (system, factored, system, factored, ...), and every run's
wall and CPU time is recorded.

Interleaving puts both tests of a pair under the same load at nearly the same moment; a
single timing of each, in different pytest runs, is what let diskcache keep factored tests
that were slower side by side (a disk cache warm in one run and cold in the other).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest


def _cpu_s() -> float:
    """CPU of this process and of its waited-for children (git, a server process): what
    the test cost the machine, next to what it cost in wall time."""
    times = os.times()
    return time.process_time() + times.children_user + times.children_system


class SideBySideTimer:
    """Registered by the factoring plugin for a request with ``pairs`` and ``rounds``.

    ``own_s(item)`` is the plugin's running total of the item's time without the fixtures
    wider than one test (a module's or the session's): their setup and teardown land on
    whichever test comes first or last, and in interleaved rounds every run would pay for
    its module's fixtures. CPU cannot be split that way; the first round and a last,
    unrecorded run carry the session's setup and teardown."""

    def __init__(
        self, pairs: list[list[str]], rounds: int, own_s: Callable[[pytest.Item], float]
    ) -> None:
        self.pairs = pairs
        self.rounds = rounds
        self.own_s = own_s
        self.runs: dict[str, list[dict[str, float]]] = {}

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Round after round, each pair's system test then its factored test. A test never
        follows itself: pytest would keep its function fixtures from one run to the next."""
        by_id = {item.nodeid: item for item in items}
        pairs = [(by_id[s], by_id[f]) for s, f in self.pairs if s in by_id and f in by_id]
        items[:] = [item for _ in range(self.rounds) for pair in pairs for item in pair]
        items += pairs[:1][0][:1] if pairs else []  # takes the session's teardown

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        own, cpu = self.own_s(item), _cpu_s()
        yield
        run = {"wall_s": self.own_s(item) - own, "cpu_s": _cpu_s() - cpu}
        runs = self.runs.setdefault(item.nodeid, [])
        if len(runs) < self.rounds:
            runs.append(run)


def timer_for(
    request: dict[str, Any], own_s: Callable[[pytest.Item], float]
) -> SideBySideTimer | None:
    pairs = request.get("pairs")
    return SideBySideTimer(pairs, int(request.get("rounds", 1)), own_s) if pairs else None
