"""The observation pass: which tests execute which function, how long each test takes, what
each function returns, and which functions ran while the project was imported.

The dependency store of test selection (what ``pytest --reks`` recorded) stands in for the
observation of every test whose recorded dependencies are unchanged: it ran exactly the
units recorded for it, with the recorded outcome and about the recorded duration, and the
store also holds the kinds each function returned (for its current checksum). Only the
tests selection would run (new, changed, failed), and the covering tests of a function
whose return kinds the store lacks, are observed; often none. Without a store every test
is observed under the cap. A test still running at its timeout on the original code is
stopped, reported hung, and excluded.
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
    # Covering tests whose recorded dependencies are unchanged, as an observation would
    # report them (outcome, duration, units), and the recorded return kinds of functions.
    known_tests: dict[str, dict[str, Any]] = field(default_factory=dict)
    returns: dict[str, list[str]] = field(default_factory=dict)
    setup: float = 0.0  # the recorded duration of the first collected test
    # Each recorded test's set-up time of shared fixtures by scope (``rts.setup_clock``).
    setups: dict[str, dict[str, float]] = field(default_factory=dict)


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
    """What the store knows of the tests that may execute ``functions``; the tests to
    observe are the rest (see the module docstring)."""
    facts = read_store(root, functions)
    return StoreView() if facts is None else facts.view(collected, import_time)


@dataclass
class StoreFacts:
    """What the store says of the tests of some functions, whichever tests the workers
    collect: read while they collect (``read_store``), narrowed to theirs by ``view``."""

    functions: list[FunctionInfo]
    records: dict[str, Any]  # node id -> ``TestRecord``
    covering: set[str]  # recorded tests that depend on a function
    observe: set[str]  # recorded tests to observe (beside the new ones)
    depending: dict[str, list[str]]  # function key -> tests depending on it
    returns: dict[str, list[str]]  # function key -> its recorded return kinds
    ran: dict[str, set[str]]  # function key -> tests that ran it
    deps: dict[str, set[str]]  # covering test not to observe -> its dependencies
    setups: dict[str, dict[str, float]]

    def view(self, collected: list[str], import_time: frozenset[str]) -> StoreView:
        """The ``StoreView`` of the ``collected`` tests, ``import_time`` the keys of the
        functions that ran while the project was imported."""
        records = self.records
        # A collected test the store has no record of is new: it is observed.
        observe = self.observe.union(t for t in collected if t not in records)
        fresh = [t for t in collected if t in self.covering and t not in observe]
        targets = {f.key for f in self.functions}
        ran_by_test: dict[str, set[str]] = {}  # test -> the targets it ran, found once
        for key, tests in self.ran.items():
            for test in tests:
                ran_by_test.setdefault(test, set()).add(key)
        known_tests = {
            t: {
                "outcome": records[t].outcome,
                "duration": records[t].duration,
                "units": _units_run(self.deps[t], targets, ran_by_test.get(t, set())),
                "setup": self.setups.get(t),
            }
            for t in fresh
        }
        durations = {n: r.duration for n, r in records.items() if r.outcome == "passed"}
        setup = durations.get(collected[0], 0.0) if collected else 0.0
        subset = [t for t in collected if t in observe]
        dependents = {key: self.depending[key] for key in import_time if key in self.depending}
        return StoreView(
            subset, durations, dependents, known_tests, dict(self.returns), setup, self.setups
        )


def read_store(
    root: Path, functions: list[FunctionInfo], selected: set[str] | None = None
) -> StoreFacts | None:
    """``StoreFacts`` of ``functions``; None without a usable store (observe every test).
    ``selected``: what ``select_affected_tests`` selects (without the environment), when
    the caller found it already (``CollectionScope.selected_without_environment``)."""
    from lsp_server.rts.file_units import Unit
    from lsp_server.rts.select import select_affected_tests
    from lsp_server.rts.store import DependencyStore, StoreError, store_path

    if not store_path(root).exists():
        return None
    units = {f.key: Unit(f.path, f.qualname) for f in functions}
    try:
        with DependencyStore(root, create=False) as store:
            records = store.test_records()
            if not records:
                return None
            if selected is None:
                selected = set(select_affected_tests(root, store).selected)
            covering = store.tests_depending_on_any(units.values())
            recorded = store.return_kinds(units.values())
            returns = _current_returns(recorded, functions)
            ran = {key: set(store.tests_that_ran(unit)) for key, unit in units.items()}
            since = store.return_kinds_since()
            depending = {key: store.tests_depending_on(unit) for key, unit in units.items()}
            for key, unit in units.items():
                # No kinds at all: its own code returned in none of the tests recorded
                # since kinds are (only code nested in it ran, or nothing did).
                if unit not in recorded and _recorded_since(depending[key], records, since):
                    returns[key] = []
            lacking = [u for k, u in units.items() if k not in returns]
            # A test recorded before kinds were has no record of the functions it ran.
            unknown = {t for t in covering if not _recorded_since([t], records, since)}
            observe = {*selected, *unknown, *store.tests_depending_on_any(lacking)}
            deps = store.dependency_keys([t for t in covering if t not in observe])
            setups = store.setup_times()
    except (StoreError, OSError, sqlite3.Error):
        return None
    return StoreFacts(
        functions, records, set(covering), observe, depending, returns, ran, deps, setups
    )


def _units_run(deps: set[str], targets: set[str], ran: set[str]) -> set[str]:
    """A test's units as an observation reports them (in no order: sorting ~1250 units of
    each of marshmallow's 1228 tests was most of reading the store): a target function's
    unit is a dependency of the tests that read its name too, so for targets the record of
    which tests ran it counts (``ran``: the targets this test ran)."""
    return (deps - targets) | ran


def _recorded_since(tests: list[str], records: dict[str, Any], since: int | None) -> bool:
    """Every one of ``tests`` was recorded by a session that recorded return kinds (so a
    function that has none ran in none of them)."""
    if since is None:
        return False
    sessions = [records[t].session_id for t in tests if t in records]
    return all(s is not None and s >= since for s in sessions)


def _current_returns(
    recorded: dict[Any, tuple[str | None, list[str]]], functions: list[FunctionInfo]
) -> dict[str, list[str]]:
    """Recorded return kinds of ``functions`` whose code is still what returned them."""
    from lsp_server.rts.file_units import Unit

    out: dict[str, list[str]] = {}
    for function in functions:
        checksum, kinds = recorded.get(Unit(function.path, function.qualname), (None, []))
        if checksum is not None and checksum == function.checksum:
            out[function.key] = kinds
    return out


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
        self._executing: dict[str, set[str]] | None = None  # file -> tests that ran its code

    def _text(self, test_file: str) -> str:
        if test_file not in self._texts:
            try:
                self._texts[test_file] = (self.root / test_file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self._texts[test_file] = ""
        return self._texts[test_file]

    def of(self, function: FunctionInfo) -> list[str]:
        module = function.path.removesuffix(".py").rsplit("/", 1)[-1]
        if module == "__init__":
            module = function.path.rsplit("/", 2)[-2] if "/" in function.path else module
        named = re.compile(rf"\b{re.escape(module)}\b")
        found = set(self.view.dependents.get(function.key, []))
        found |= self._executing_file().get(function.path, set())
        # Asked once per test file, not per test: marshmallow's 1230 tests in a few files.
        naming = {
            f for f in {n.split("::", 1)[0] for n in self.tests} if named.search(self._text(f))
        }
        found |= {n for n in self.tests if n.split("::", 1)[0] in naming}
        return sorted(n for n in found if n in self.tests)

    def _executing_file(self) -> dict[str, set[str]]:
        """Each file's tests that executed some of its code, from every test's units once
        (per function, a scan of every unit of every test took marshmallow 10 s)."""
        if self._executing is None:
            self._executing = {}
            # Each distinct unit's file found once: marshmallow's 1231 tests ran ~1250 units
            # each, of a few thousand distinct ones.
            every = set().union(*(info["units"] for info in self.tests.values()))
            file_of = {unit: unit.partition("::")[0] for unit in every}
            for nodeid, info in self.tests.items():
                for path in set(map(file_of.__getitem__, info["units"])):
                    self._executing.setdefault(path, set()).add(nodeid)
        return self._executing
