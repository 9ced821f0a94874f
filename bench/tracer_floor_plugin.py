"""The empty recorders ``bench/tracer_floor.py`` times, as a pytest plugin (``-p
tracer_floor_plugin``); ``REKS_FLOOR`` names the one to run:

- ``profile``: ``sys.setprofile`` and ``threading.setprofile`` with a hook doing nothing;
- ``markers``: project modules loaded with ``rts.instrument_loader``'s markers (test modules
  through pytest's assertion rewriting too), the marks read and cleared after each test;
- ``coverage``: coverage.py's tracer on the project's files, a dynamic context per test
  (as pytest-testmon records), its data kept in memory.

Each records as little as it can: what the design costs before anything is done with it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Generator
from pathlib import Path

import pytest

_KIND = os.environ.get("REKS_FLOOR", "")


def _nothing(frame: object, event: str, arg: object) -> None:
    return None


def _project_file(root: str) -> object:
    prefix = root.rstrip(os.sep) + os.sep
    venv = sys.prefix.rstrip(os.sep) + os.sep

    def is_project_file(path: str) -> bool:
        return path.startswith(prefix) and not path.startswith(venv)

    return is_project_file


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> Generator[None, object, object]:
    root = str(Path(early_config.rootpath).resolve())
    if _KIND == "profile":
        sys.setprofile(_nothing)
        threading.setprofile(_nothing)
    elif _KIND == "markers":
        from _pytest.assertion.rewrite import AssertionRewritingHook, rewrite_asserts

        from lsp_server.rts.instrument_loader import InstrumentingFinder, shared_table

        rewriter = next((f for f in sys.meta_path if isinstance(f, AssertionRewritingHook)), None)

        def pytest_rewrite(tree: object, source: bytes, path: str) -> None:
            rewrite_asserts(tree, source, path, early_config)  # type: ignore[arg-type]

        table = shared_table()
        finder = InstrumentingFinder(
            table,
            _project_file(root),  # type: ignore[arg-type]
            lambda code: None,
            lambda code: None,
            rewriter,
            pytest_rewrite,
        )
        finder.install()
        early_config.stash[_TABLE] = table
    elif _KIND == "coverage":
        import coverage

        cov = coverage.Coverage(data_file=None, source=[root], config_file=False)
        cov.start()
        early_config.stash[_COVERAGE] = cov
    return (yield)


_TABLE = pytest.StashKey[object]()
_COVERAGE = pytest.StashKey[object]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: object) -> Generator[None, object, object]:
    cov = item.config.stash.get(_COVERAGE, None)
    if cov is not None:
        cov.switch_context(item.nodeid)  # type: ignore[attr-defined]
    result = yield
    table = item.config.stash.get(_TABLE, None)
    if table is not None:
        item.stash[_RAN] = len(list(table.take()))  # type: ignore[attr-defined]
    return result


_RAN = pytest.StashKey[int]()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _KIND == "profile":
        sys.setprofile(None)
        threading.setprofile(None)
    cov = config.stash.get(_COVERAGE, None)
    if cov is not None:
        cov.stop()  # type: ignore[attr-defined]
