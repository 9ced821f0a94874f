"""The time a factoring request's run spends on fixtures wider than one test.

Only a run with a request (``reks factor``'s capture, profile or side-by-side timing)
reads it, so ``SharedFixtureTiming`` is registered by the plugin for those runs alone: a
hook wrapper around every fixture setup would otherwise cost every plain pytest run of
every project where reks is installed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest


class SharedFixtureClock:
    """Time spent setting up and tearing down fixtures wider than one test (session,
    package, module or class scope), not yet charged: each phase's report takes it out of
    the test's duration (``shared_s``). Compared like for like, a system test and its
    factored test share such a fixture (an HTTP server, say), and whichever runs first
    would otherwise be charged its start, and the last one its stop."""

    def __init__(self) -> None:
        self.pending = 0.0
        self._depth = 0
        self._started = 0.0

    @staticmethod
    def of(config: pytest.Config) -> SharedFixtureClock:
        return config.stash.setdefault(_shared_key, SharedFixtureClock())

    def start(self) -> None:
        if self._depth == 0:
            self._started = time.perf_counter()
        self._depth += 1

    def stop(self) -> None:
        if self._depth == 0:
            return
        self._depth -= 1
        if self._depth == 0:
            self.pending += time.perf_counter() - self._started

    def take(self) -> float:
        taken, self.pending = self.pending, 0.0
        return taken


_shared_key = pytest.StashKey[SharedFixtureClock]()


class SharedFixtureTiming:
    """The plugin timing shared fixtures into ``SharedFixtureClock.of(config)``."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: Any, request: pytest.FixtureRequest
    ) -> Iterator[None]:
        """Times a shared fixture's setup, and brackets its teardown: finalizers run last
        added first, so ``stop`` (added before the fixture's own teardown) runs after it
        and ``start`` (added after) before it."""
        if fixturedef.scope == "function":
            yield
            return
        clock = SharedFixtureClock.of(request.config)
        fixturedef.addfinalizer(clock.stop)
        clock.start()
        try:
            yield
        finally:
            clock.stop()
            fixturedef.addfinalizer(clock.start)
