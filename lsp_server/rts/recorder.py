"""The recording part of the pytest plugin: what each test ran, written to the store.

Attribution: code run while a fixture is being set up is kept per fixture definition
(with its own tracer window), and every test that has the fixture in its closure
(``item.fixturenames``) gets those dependencies. That covers session/module/class
fixtures set up once for many tests, ``setup_class``/``setup_module`` and unittest's
``setUpClass`` (pytest implements them as autouse fixtures). Code run while a test file
is collected belongs to its tests too. ``UnitAttribution`` turns all that into units.

Results are written in batches, each one short transaction (dependencies, functions run
and return kinds together): a killed run loses at most the tests of one batch, which keep
their previous record and are selected again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from lsp_server.project.files import ProjectPaths, is_test_path
from lsp_server.rts.attribution import UnitAttribution
from lsp_server.rts.audit_events import FileWatcher, activate_watcher, watch_code_reads
from lsp_server.rts.cache_hits import CacheHits
from lsp_server.rts.cached_calls import CachedCalls
from lsp_server.rts.collector_pause import collector_paused
from lsp_server.rts.collector_runs import CollectorRuns
from lsp_server.rts.file_units import Unit
from lsp_server.rts.filled_containers import FilledContainers
from lsp_server.rts.flush_pace import FlushPace
from lsp_server.rts.lazy_builds import LazyBuilds
from lsp_server.rts.logged_lines import register_logged_lines
from lsp_server.rts.module_rebinds import reaching
from lsp_server.rts.option_reads import EARLY_WARNINGS, session_option_reads
from lsp_server.rts.parametrize_files import ParametrizeFiles
from lsp_server.rts.process_starts import ProcessStarts
from lsp_server.rts.read_watch import WarningWatch
from lsp_server.rts.recording_faults import register_fault_watch
from lsp_server.rts.setup_clock import SetupClock
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore, FileSnapshot, TestResult
from lsp_server.rts.store_drift import stored_drift
from lsp_server.rts.tracer_choice import new_tracer
from lsp_server.rts.tracing import CodeSet, CodeTracer, RanSoFar
from lsp_server.rts.windows import Window

EARLY_TRACER = pytest.StashKey[CodeTracer]()


def start_import_tracing(config: pytest.Config) -> None:
    """Trace from before the initial conftests are imported: what a conftest's imports run
    at the top level of project modules (a class decorator building classes, say) belongs
    to those modules' import footprints. ``DependencyRecorder`` takes the tracer over."""
    paths = ProjectPaths(Path(config.rootpath).resolve())
    tracer = new_tracer(paths.is_python_file, paths.is_test_file)
    tracer.start()
    config.stash[EARLY_TRACER] = tracer
    config.add_cleanup(tracer.stop)
    # A warning as a conftest is imported fails the session under "error" (rts.read_watch).
    warned = config.stash[EARLY_WARNINGS] = WarningWatch()
    warned.arm()
    config.add_cleanup(warned.close)


def _outcome(reports: list[pytest.TestReport]) -> tuple[str, float]:
    duration = sum(r.duration for r in reports)
    failed = [r for r in reports if r.failed]
    if failed:
        return ("failed" if any(r.when == "call" for r in failed) else "error"), duration
    if any(r.skipped for r in reports):
        return "skipped", duration
    return "passed", duration


_INCOMPLETE = (
    "recorded incompletely: the profile hook was switched off during the test or before it "
    "(a RecursionError in the hook, or a profiler the test started)"
)


class DependencyRecorder:
    """Pytest hooks that trace each test, fixture setup and collection, and record every
    test's outcome with its units (``session``: environment, options and id of the
    session being recorded)."""

    def __init__(
        self,
        config: pytest.Config,
        store: DependencyStore,
        states: FileStates,
        paths: ProjectPaths,
        session: tuple[str, str | None, int | None],
    ) -> None:
        root = Path(config.rootpath).resolve()
        self.store = store
        self.states = states
        self.environment, self.options, self.session_id = session
        # Started when the initial conftests were loaded (see start_import_tracing).
        self.tracer: CodeTracer = config.stash.get(EARLY_TRACER, None) or new_tracer(
            paths.is_python_file, paths.is_test_file
        )
        self.attribution = UnitAttribution(
            root, paths, states, self.tracer.lookups, self.tracer.read_lines.seen
        )
        self.watcher = FileWatcher()
        self.parametrize_files = ParametrizeFiles(self.watcher)
        self.cached_calls = CachedCalls(self.tracer)
        self.cache_hits = CacheHits(paths.is_python_file, self.cached_calls)
        self.filled_containers = FilledContainers(
            paths.is_python_file,
            lambda path: is_test_path(os.path.relpath(path, root)),
            self._ran_so_far,
            LazyBuilds(self.tracer),
        )
        self.setup_clock = SetupClock()  # the set-up times of shared fixtures, per test
        config.pluginmanager.register(self.setup_clock, "reks-setup-clock")
        register_logged_lines(config, self.tracer.read_lines, paths.is_python_file)
        self.collector_runs = CollectorRuns(self.tracer)  # finalizers by chance: no test's
        self._stack: list[Window] = []
        self._process_starts = ProcessStarts(self._innermost, paths.is_python_file)
        self._tracing = False
        self._fixture_windows: dict[object, Window] = {}
        # What ran in the conftests' ``pytest_collection_modifyitems``: it may skip, mark or
        # reorder any test, so every test depends on it.
        self._items_window = Window()
        self._reports: dict[str, list[pytest.TestReport]] = {}
        self._pending: list[TestResult] = []
        self._flush_pace = FlushPace()
        # Code the tests ran since the last write, and the return kinds already written.
        self._ran: CodeSet = {}
        self._written: dict[Unit, set[str]] = {}
        self._functions_ran: dict[str, set[Unit]] = {}  # by node id, since the last write
        # Tests recorded while the tracer was off for a while (``CodeTracer.reinstate``):
        # their records are incomplete, so they are written stale and run next time.
        self._incomplete: set[str] = set()
        self._lost_outside_tests = False  # at collection or between tests: every test
        self.option_reads = session_option_reads(config)
        self._fault = register_fault_watch(config)
        config.pluginmanager.register(self.option_reads, "reks-option-reads")

    # -- tracing ------------------------------------------------------------------------

    def _start_tracing(self) -> None:
        if not self._tracing:
            activate_watcher(self.watcher)
            watch_code_reads(self.tracer.lookups.code_reads.on_attribute)
            self._process_starts.start()
            if not self.tracer.started:
                self.tracer.start()
            self.collector_runs.start()
            self._tracing = True

    def stop_tracing(self) -> None:
        if self._tracing:
            self.collector_runs.stop()
            self.tracer.stop()
            self.filled_containers.stop()
            self.cached_calls.stop()
            activate_watcher(None)
            watch_code_reads(None)
            self._process_starts.stop()
            self._tracing = False

    def _flush(self, restart: bool = True) -> None:
        """Move what ran since the last flush into the innermost window (or drop it when no
        window is open)."""
        codes = self.tracer.take(restart)
        read_lines = self.tracer.read_lines.take()
        files = self.watcher.take()
        if self._stack:
            top = self._stack[-1]
            top.codes.update(codes)
            top.read_lines |= read_lines
            top.files |= files

    def _innermost(self) -> Window | None:
        return self._stack[-1] if self._stack else None

    def _ran_so_far(self) -> RanSoFar | None:
        """Each set holding what the current test ran so far, with its size now."""
        live = self.tracer.ran_so_far()
        if live is not None:
            live.extend((window.codes, len(window.codes)) for window in self._stack)
        return live

    @contextmanager
    def _nested_window(self, keep: Callable[[Window], None]) -> Iterator[None]:
        """A window of its own while the body runs; ``keep`` gets it once it closes."""
        self._flush()
        self._stack.append(Window())
        try:
            yield
        finally:
            self._flush()
            keep(self._stack.pop())

    # -- hooks --------------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Generator[None, object, object]:
        # Collection is traced too: code a test module runs at import (parametrize lists
        # built by a helper, data files loaded for parametrization) decides what its tests
        # do without running inside any test.
        self._start_tracing()
        with self.parametrize_files.watching():
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, object, object]:
        if not self._tracing:
            return (yield)
        windows = self.attribution.collection_windows
        with self._nested_window(windows.setdefault(str(collector.path), Window()).update):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(self) -> Generator[None, object, object]:
        if not self._tracing:
            return (yield)
        with self._nested_window(self._items_window.update):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        self._start_tracing()
        try:
            return (yield)
        finally:
            self.stop_tracing()
            with collector_paused():
                self._flush_records()
            self._release()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        if not self._tracing:
            if self._fault.error is not None:
                self._fault.unrecorded.add(item.nodeid)
            return (yield)
        with collector_paused(), self._fault.caught(item.nodeid, self.stop_tracing):
            # reks's own work between the project's: rts.collector_pause
            self.cache_hits.before()
            self.filled_containers.before()
            self._lost_outside_tests |= self.tracer.reinstate()
            self.tracer.take()
            self.tracer.read_lines.take()
            self.watcher.take()
            self.collector_runs.take()
            self._stack = [Window()]
            self._reports[item.nodeid] = []
            self.setup_clock.take()  # nothing between tests is this test's
        result = yield
        if not self._tracing:  # stopped by a fault of the recording: ``rts.recording_faults``
            return result
        with collector_paused(), self._fault.caught(item.nodeid, self.stop_tracing):
            # No restart: the next test's start restarts events (nothing between tests counts).
            self._flush(restart=False)
            self.filled_containers.ended()
            if self.tracer.reinstate() or self._lost_outside_tests:
                self._incomplete.add(item.nodeid)
            window = self._stack.pop()
            window.codes.update(self.collector_runs.take())
            self._stack = []
            with self.tracer.paused():
                self._record(item, window)
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(
        self, fixturedef: Any, request: pytest.FixtureRequest
    ) -> Generator[None, object, object]:
        # Function-scoped fixtures belong to the one test being set up: its window already
        # gets their code. Only fixtures shared between tests need a window of their own.
        if not self._stack or fixturedef.scope == "function":
            return (yield)

        def keep(window: Window) -> None:
            self._fixture_windows.setdefault(fixturedef, Window()).update(window)
            if self._stack:
                self._stack[-1].update(window)

        with self._nested_window(keep):
            return (yield)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        reports = self._reports.get(report.nodeid)
        if reports is not None:
            reports.append(report)

    def _release(self) -> None:
        """Drop what only recording needed once every test is written: pytest ends its
        session with five full garbage collections (to report unraisable exceptions), and
        each one would visit every answer and cached set the recording kept (a quarter of a
        second on marshmallow's 1,231 tests)."""
        self.attribution = UnitAttribution(
            self.attribution.root,
            self.attribution.paths,
            self.states,
            self.tracer.lookups,
            self.tracer.read_lines.seen,
        )
        self._fixture_windows.clear()
        self._written.clear()
        self.store.forget_caches()

    # -- recording ----------------------------------------------------------------------

    def _record(self, item: pytest.Item, window: Window) -> None:
        reports = self._reports.pop(item.nodeid, [])
        if not reports:  # interrupted before the first phase reported
            return
        info = getattr(item, "_fixtureinfo", None)
        if info is not None:
            for name in getattr(item, "fixturenames", ()):
                for fixturedef in info.name2fixturedefs.get(name, ()):
                    shared = self._fixture_windows.get(fixturedef)
                    if shared is not None:
                        window.update(shared)
        window.update(self._items_window)
        window.files |= self.parametrize_files.files_of(item)
        self.cache_hits.after(window.codes)
        reach = self.filled_containers.after(window.codes)
        units = reaching(
            reach,
            window.codes,
            lambda: self.attribution.units_of_test(item, window, self.tracer),
            self.attribution.paths.python_rel,
        )
        self._ran.update(window.codes)
        self._functions_ran[item.nodeid] = self.attribution.functions.functions_ran(window.codes)
        read_for_options = self.option_reads.names_of(item)
        if read_for_options:
            units = self.attribution.with_names(units, read_for_options)
        outcome, duration = _outcome(reports)
        setup = self.setup_clock.take()
        self._pending.append(TestResult(item.nodeid, outcome, duration, units, setup))
        if self._flush_pace.due(len(self._pending), time.monotonic()):
            self._flush_records()

    def _flush_records(self) -> None:
        """Write buffered results in one transaction. Losing a buffer (kill -9) is safe:
        those tests keep their previous record, which selects them again."""
        started = time.monotonic()
        unrecorded = self._fault.take_unrecorded()
        if unrecorded:  # run after a fault of the recording: ``rts.recording_faults``
            self.store.mark_stale(unrecorded, self._fault.reason)
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        deleted, changed = stored_drift(self.store, self.states)
        snapshots: dict[str, FileSnapshot] = {}
        for path in self.attribution.paths_seen.union(changed):
            snap = self.states.snapshot(path)
            if snap is not None:
                snapshots[path] = snap
        # One transaction for the batch's three writes: each commit rewrites the pages
        # the batch touched (a tenth of a recording run went into commits).
        with self.store.transaction():
            self.store.record_tests(
                pending,
                snapshots,
                environment=self.environment,
                options=self.options,
                session_id=self.session_id,
                deleted=deleted,
                changed=changed,
            )
            self._record_return_kinds()
            incomplete, self._incomplete = self._incomplete, set()
            self.store.mark_stale(incomplete, _INCOMPLETE)
        self._flush_pace.wrote(started, time.monotonic())

    def _record_return_kinds(self) -> None:
        """Which functions each test ran, and what they returned (only what this session
        has not written yet: the same functions run in most tests)."""
        ran, self._ran = self._ran, {}
        functions_ran, self._functions_ran = self._functions_ran, {}
        self.store.record_ran(functions_ran)
        if not self.tracer.records_returns:
            if self.session_id is not None:
                self.store.return_kinds_unknown_before(self.session_id + 1)
            return
        kinds = self.attribution.functions.return_kinds(ran, self.tracer.take_returns())
        written = self._written
        new = {u: k for u, k in kinds.items() if u not in written or not k <= written[u]}
        if new:
            self.store.record_return_kinds(new, self.session_id)
            for unit, found in new.items():
                written.setdefault(unit, set()).update(found)
