"""How long each test's set-up spent on fixtures shared between tests, by fixture scope.

A test that comes first in its module (or class, or the session) pays for the shared
fixtures there; a later run of the same test in another order or alone pays for them where
it first needs them. The extreme analysis gives a transformation's run that much room
(``extreme.requests.setup_margin``), and ``pytest --reks`` keeps the figures in the store.
Function-scoped fixtures are part of their own test's duration: they are not counted.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

import pytest

SHARED_SCOPES = ("session", "package", "module", "class")
"""Fixture scopes whose set-up one test pays for the others, widest first."""

SetupTimes = dict[str, float]
"""Seconds a test's set-up spent on shared fixtures, by scope (absent: none)."""


class SetupClock:
    """Pytest hooks timing the set-up of shared fixtures, each fixture's own time (without
    the fixtures it requested, counted under their own scope). ``take`` after each test."""

    def __init__(self) -> None:
        self._times: SetupTimes = {}
        self._open: list[list[float]] = []  # [started, seconds in nested shared set-ups]

    def take(self) -> SetupTimes:
        """The times since the last ``take`` (the test that just ran)."""
        times, self._times = self._times, {}
        return times

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: Any, request: pytest.FixtureRequest
    ) -> Generator[None, object, object]:
        scope = fixturedef.scope
        if scope not in SHARED_SCOPES:
            return (yield)
        self._open.append([time.perf_counter(), 0.0])
        try:
            return (yield)
        finally:
            started, nested = self._open.pop()
            spent = time.perf_counter() - started
            if self._open:
                self._open[-1][1] += spent
            self._times[scope] = self._times.get(scope, 0.0) + max(spent - nested, 0.0)


def scope_node(nodeid: str, scope: str) -> str:
    """The node a shared fixture of ``scope`` is set up once for, when ``nodeid`` needs it:
    the session, the test file's folder, the test file, or the test's class."""
    path, _, rest = nodeid.partition("::")
    if scope == "session":
        return ""
    if scope == "package":
        return path.rpartition("/")[0]
    if scope == "module":
        return path
    parts = rest.split("::")
    return "::".join([path, *parts[:-1]]) if len(parts) > 1 else path
