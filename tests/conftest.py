"""Fixtures every part of the test suite shares."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import lsp_server.project
import lsp_server.rts
from tests.support import SUBPROCESS_PYTEST_ADDOPTS
from tests.support.lsp import copy_example


@pytest.fixture(autouse=True, scope="session")
def _subprocess_pytest_options() -> Iterator[None]:
    """Every pytest the tests start in a subprocess leaves out the plugins it never uses.
    Set once the session runs, so that this process's own options (and xdist's workers,
    which need pytest-lsp) are not changed."""
    own = os.environ.get("PYTEST_ADDOPTS", "")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_ADDOPTS", f"{own} {SUBPROCESS_PYTEST_ADDOPTS}".strip())
        yield


@pytest.fixture(autouse=True, scope="session")
def _recording_modules_imported_once() -> None:
    """pytester's in-process runs drop every module first imported during the run, and
    the recording plugin imports its analysis modules as it needs them: each run imported
    about a hundred of them again, each compiled afresh by pytest's assertion rewriting
    (bytecode writing is off in these tests), 60% of an rts test's time. Imported before
    the first run, they stay."""
    for package in (lsp_server.rts, lsp_server.project):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A private copy of the bundled VersionedSet example (the original stays untouched)."""
    return copy_example(tmp_path)


@pytest.fixture
def no_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``__pycache__`` in temporary projects: a test that edits a module and runs it
    again within the same second must not get the stale compiled file."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)


@pytest.fixture(autouse=True)
def packaged_known_failures(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The known-failure shapes in force are the packaged ones: shapes a ``reks engine-test
    --write-known-failures`` run left in the user's data folder must not change what the
    tests see (a test wanting other shapes sets ``REKS_KNOWN_FAILURES`` itself)."""
    missing = tmp_path_factory.getbasetemp() / "no-user-known-failures.json"
    monkeypatch.setenv("REKS_KNOWN_FAILURES", str(missing))
