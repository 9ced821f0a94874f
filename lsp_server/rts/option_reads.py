"""Which recorded tests an option rule (``rts.option_rules``) must rerun: pytest hooks
noting, for each test, whether a watch of ``rts.read_watch`` saw a read that belongs to it.

A read belongs to a test when it happened during the test (set-up, call, teardown), while
a shared fixture it uses was set up (every test using the fixture: under ``error`` the
fixture's set-up fails for each of them), or while the test's file or a folder above it
was collected (the collector fails). A read elsewhere during collection (``pytest_collection_
modifyitems``, say), or an untraceable one (``ReadWatch.untraceable``), belongs to every
test recorded after it. A test also notes a mark not registered in ``markers``: it fails
under ``--strict-markers`` even where a filter of the test's module hid the warning.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from pathlib import Path
from typing import Any

import pytest

from lsp_server.rts.option_rules import ROOT_LEVEL_READ, UNREGISTERED_MARK, WARNED
from lsp_server.rts.read_watch import ReadWatch, RootLevelReads, WarningWatch

EARLY_WARNINGS = pytest.StashKey[WarningWatch]()
"""The warnings' watch armed as the initial conftests are imported (``rts.recorder``)."""


def session_option_reads(config: pytest.Config) -> OptionReads:
    """The option rules' watches, the warnings' one taken over from the conftests' import
    (a warning there counts for every test)."""
    warned = config.stash.get(EARLY_WARNINGS, None) or WarningWatch()
    warned.untraceable |= warned.seen > 0
    reads = OptionReads(config, {WARNED: warned, ROOT_LEVEL_READ: RootLevelReads()})
    config.add_cleanup(reads.close)
    return reads


class OptionReads:
    """The hooks; ``watches`` by the ``NAMES`` unit a test that read gets."""

    def __init__(self, config: pytest.Config, watches: Mapping[str, ReadWatch]) -> None:
        self.config = config
        self.watches = watches
        self._at_start: dict[str, int] | None = None  # the counts as the test started
        self._collectors: dict[str, set[str]] = {name: set() for name in watches}
        self._fixtures: dict[str, set[object]] = {name: set() for name in watches}
        self._in_collectors = dict.fromkeys(watches, 0)  # reads during collection, there
        self._nested: list[dict[str, int]] = []  # reads in the collectors within each open one
        self._registered: frozenset[str] | None = None

    def close(self) -> None:
        for watch in self.watches.values():
            watch.close()

    def _counts(self) -> dict[str, int]:
        return {name: watch.seen for name, watch in self.watches.items()}

    def _arm(self) -> dict[str, int]:
        for watch in self.watches.values():
            watch.arm()
        return self._counts()

    def _read_since(self, before: Mapping[str, int]) -> dict[str, int]:
        return {n: w.seen - before[n] for n, w in self.watches.items() if w.seen != before[n]}

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self) -> Generator[None, object, object]:
        before = self._arm()
        try:
            return (yield)
        finally:
            for name, count in self._read_since(before).items():
                if count > self._in_collectors[name]:  # outside every collector
                    self.watches[name].untraceable = True

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, object, object]:
        before = self._arm()
        self._nested.append(dict.fromkeys(self.watches, 0))
        try:
            return (yield)
        finally:
            inner = self._nested.pop()  # collectors collected within (the session's)
            outer = self._nested[-1] if self._nested else self._in_collectors
            for name, count in self._read_since(before).items():
                outer[name] += count
                if count > inner[name]:
                    self._collectors[name].add(str(collector.path))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self) -> Generator[None, object, object]:
        self._at_start = self._arm()
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any) -> Generator[None, object, object]:
        if fixturedef.scope == "function":  # belongs to its one test
            return (yield)
        before = self._arm()
        try:
            return (yield)
        finally:
            for name in self._read_since(before):
                self._fixtures[name].add(fixturedef)

    def names_of(self, item: pytest.Item) -> set[str]:
        """The ``NAMES`` units of the reads that belong to ``item``, which just ran."""
        start = self._at_start or {}
        paths = {str(path) for path in (item.path, *Path(item.path).parents)}
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs if info is not None else {}
        used = [d for name in getattr(item, "fixturenames", ()) for d in defs.get(name, ())]
        found = set()
        for name, watch in self.watches.items():
            if (
                watch.untraceable
                or watch.seen != start.get(name, -1)
                or not paths.isdisjoint(self._collectors[name])
                or any(d in self._fixtures[name] for d in used)
            ):
                found.add(name)
        if any(mark.name not in self._marks_registered() for mark in item.iter_markers()):
            found.add(UNREGISTERED_MARK)
        self._at_start = None  # a test whose start was not seen reads everything
        return found

    def _marks_registered(self) -> frozenset[str]:
        """The mark names ``markers`` registers (as pytest's mark generator reads them)."""
        if self._registered is None:
            lines = self.config.getini("markers")
            names = (line.split(":")[0].split("(")[0].strip() for line in lines)
            self._registered = frozenset(names)
        return self._registered
