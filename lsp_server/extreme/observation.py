"""The observation pass: which tests execute which function, how long each test takes, what
each function returns, and which functions ran while the project was imported.

The dependency store of test selection (what ``pytest --reks`` recorded) narrows the run to
the tests that may execute the targets and gives each test a timeout from its recorded
duration; without a store every test is observed under the cap. A test still running at
its timeout on the original code is stopped, reported hung, and excluded.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_server.extreme.discover import FunctionInfo

TIMEOUT_BASE = 5.0
"""Seconds every observed test may take beyond its scaled recorded duration."""
TIMEOUT_SCALE = 10.0
"""A test may take this many times its recorded duration before it counts as hung."""


@dataclass
class StoreView:
    """What the dependency store says about the tests worth observing."""

    subset: list[str] | None = None  # None: observe every test
    durations: dict[str, float] = field(default_factory=dict)
    # Tests depending on a function, through the import footprints of the modules they use
    # too (asked for the functions that ran at import time only).
    dependents: dict[str, list[str]] = field(default_factory=dict)


def test_timeouts(
    nodeids: list[str] | None, durations: dict[str, float], cap: float
) -> dict[str, float]:
    """Per-test timeouts of the tests with a recorded duration (others get ``cap``)."""
    chosen = durations if nodeids is None else {n: durations[n] for n in nodeids if n in durations}
    return {n: min(cap, TIMEOUT_BASE + TIMEOUT_SCALE * d) for n, d in chosen.items()}


def store_view(
    root: Path,
    collected: list[str],
    functions: list[FunctionInfo],
    import_time: frozenset[str] = frozenset(),
) -> StoreView:
    """The tests that may execute ``functions``, and the recorded durations of tests.

    A test whose recorded dependencies are all unchanged executes exactly the units
    recorded for it, so it is observed only if one of them is a target; every other test
    (new, changed, failed, stale) is observed, since what it executes now is unknown."""
    from lsp_server.rts.select import select_affected_tests
    from lsp_server.rts.store import DependencyStore, StoreError, store_path
    from lsp_server.rts.units import Unit

    if not store_path(root).exists():
        return StoreView()
    try:
        with DependencyStore(root, create=False) as store:
            records = store.test_records()
            if not records:
                return StoreView()
            selection = select_affected_tests(root, store, collected)
            covering = store.tests_depending_on_any([Unit(f.path, f.qualname) for f in functions])
            dependents = {
                f.key: store.tests_depending_on(Unit(f.path, f.qualname))
                for f in functions
                if f.key in import_time
            }
    except (StoreError, OSError, sqlite3.Error):
        return StoreView()
    durations = {n: r.duration for n, r in records.items() if r.outcome == "passed"}
    subset = [t for t in collected if t in selection.selected or t in covering]
    return StoreView(subset, durations, dependents)


def tests_to_observe(
    root: Path, collected: list[str], functions: list[FunctionInfo]
) -> list[str] | None:
    """The tests that may execute ``functions`` (None: every test); see ``store_view``."""
    return store_view(root, collected, functions).subset


class ImportTimeTests:
    """The observed tests that may see what a function computed while its module was
    imported: those the store says depend on it (through import footprints), those that
    executed code of its file, and those whose file names its module."""

    def __init__(self, root: Path, tests: dict[str, dict[str, Any]], view: StoreView) -> None:
        self.root = root
        self.tests = tests
        self.view = view
        self._texts: dict[str, str] = {}

    def _text(self, test_file: str) -> str:
        if test_file not in self._texts:
            try:
                self._texts[test_file] = (self.root / test_file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self._texts[test_file] = ""
        return self._texts[test_file]

    def of(self, function: FunctionInfo) -> list[str]:
        prefix = function.path + "::"
        module = function.path.removesuffix(".py").rsplit("/", 1)[-1]
        if module == "__init__":
            module = function.path.rsplit("/", 2)[-2] if "/" in function.path else module
        named = re.compile(rf"\b{re.escape(module)}\b")
        found = set(self.view.dependents.get(function.key, []))
        for nodeid, info in self.tests.items():
            executes_its_file = any(u.startswith(prefix) for u in info["units"])
            if executes_its_file or named.search(self._text(nodeid.split("::", 1)[0])):
                found.add(nodeid)
        return sorted(n for n in found if n in self.tests)
