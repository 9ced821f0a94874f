"""A pytest plugin for the factoring runs only (``runner.run_pytest`` loads it with ``-p``):
the project files the run's session writes around its tests (a ``--junitxml`` of the
``addopts``, pytest-cov's data file and reports, a conftest's ``pytest_configure`` or
``pytest_sessionfinish``) are put back as they were when it ends. The run is reks's, over
the few tests it chose: its reports must not replace those of the user's own runs
(``extreme.session_writes``). What the tests themselves write stays theirs."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from lsp_server.extreme.session_writes import SessionWrites

_guard_key = pytest.StashKey[SessionWrites]()


@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> Iterator[None]:
    # A wrapper runs before every plugin's own implementation: pytest-cov starts coverage
    # (and erases its data file) in its own, after this one started keeping.
    guard = SessionWrites(os.getcwd())  # the runner runs pytest in the project's root
    guard.start()
    early_config.stash[_guard_key] = guard
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Iterator[None]:
    guard = session.config.stash.get(_guard_key, None)
    if guard is None:
        yield
        return
    with guard.paused():
        yield
