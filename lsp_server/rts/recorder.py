"""The active part of the pytest plugin: selection before the run, recording during it.

Roles: a plain session selects, runs and records. Under xdist the controller selects
(once, before any worker starts, so every worker deselects the same tests and nothing a
worker writes can change another worker's collection) and the workers record, each
writing its tests in short transactions of its own.

Attribution: code run while a fixture is being set up is kept per fixture definition
(with its own tracer window), and every test that has the fixture in its closure
(``item.fixturenames``) gets those dependencies. That covers session/module/class
fixtures set up once for many tests, ``setup_class``/``setup_module`` and unittest's
``setUpClass`` (pytest implements them as autouse fixtures).
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

from lsp_server.project.files import ProjectPaths, is_python
from lsp_server.rts.fingerprint import current_fingerprint
from lsp_server.rts.imports import ImportResolver
from lsp_server.rts.select import Reason, ReasonKind, Selection, select_affected_tests
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore, FileSnapshot, StoreError, TestResult
from lsp_server.rts.tracing import (
    CodeSet,
    CodeTracer,
    FileWatcher,
    activate_watcher,
    new_tracer,
)
from lsp_server.rts.units import FILE, MODULE, ImportStatement, Unit

_WORKER_KEY = "reks"
# Results are written in batches: at most this many tests or seconds per transaction.
_BATCH_TESTS = 100
_BATCH_S = 1.0
# ini options that only choose which tests run or how they are reported.
_SELECTION_INI = frozenset({"addopts", "testpaths", "markers", "timeout", "console_output_style"})


def fingerprint_options(config: pytest.Config) -> dict[str, object]:
    """pytest options that can change a test's outcome (selection options such as -k, -m,
    --lf, -x, -n and node ids cannot, so they are left out)."""
    opt = config.option
    plugins = sorted(p for p in (getattr(opt, "plugins", None) or []) if p != "no:cacheprovider")
    ini: dict[str, str] = {}
    # Every registered ini option (pytest's and plugins'): xfail_strict, filterwarnings,
    # pythonpath, usefixtures... can change outcomes. The registry is private API, hence
    # the fallback to none.
    registered = getattr(getattr(config, "_parser", None), "_inidict", {})
    for key in sorted(registered):
        if key in _SELECTION_INI:
            continue
        try:
            ini[key] = repr(config.getini(key))
        except (ValueError, KeyError):
            continue
    return {
        "plugins": plugins,
        "override_ini": getattr(opt, "override_ini", None),
        "importmode": getattr(opt, "importmode", None),
        "runxfail": getattr(opt, "runxfail", None),
        "strict_markers": getattr(opt, "strict_markers", None),
        "doctestmodules": getattr(opt, "doctestmodules", None),
        "assertmode": getattr(opt, "assertmode", None),
        "pythonwarnings": getattr(opt, "pythonwarnings", None),
        "ini": ini,
    }


@dataclass
class _Window:
    """What ran and what was opened while one test or one fixture setup was active."""

    codes: CodeSet = field(default_factory=dict)
    files: set[str] = field(default_factory=set)

    def update(self, other: _Window) -> None:
        self.codes.update(other.codes)
        self.files |= other.files


def _outcome(reports: list[pytest.TestReport]) -> tuple[str, float]:
    duration = sum(r.duration for r in reports)
    failed = [r for r in reports if r.failed]
    if failed:
        return ("failed" if any(r.when == "call" for r in failed) else "error"), duration
    if any(r.skipped for r in reports):
        return "skipped", duration
    return "passed", duration


class ReksPlugin:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        opt = config.option
        self.mode = "dry-run" if opt.reks_dry_run else ("all" if opt.reks_all else "affected")
        self.root = Path(config.rootpath).resolve()
        self.paths = ProjectPaths(self.root)
        self.workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
        self.is_controller = self.workerinput is None and getattr(opt, "dist", "no") != "no"
        if self.is_controller and self.mode == "dry-run":
            # Workers collect; their listing would not reach the terminal.
            raise pytest.UsageError("reks: --reks-dry-run cannot be combined with xdist's -n")
        self.states = FileStates(self.root)
        self.resolver = ImportResolver(self.root, self._imports_of)
        self.selection: Selection | None = None
        self.unaffected: set[str] = set()
        # Files not to collect at all (every test they held is unaffected) -> their tests.
        self.uncollected: dict[str, int] = {}
        self._collected: dict[str, list[str]] = {}
        self.counts: tuple[int, int] | None = None
        self.dry_run_lines: list[tuple[str, Reason]] = []
        self.session_id: int | None = None
        self.store = self._open_store()
        if self.workerinput is not None:
            shared = self.workerinput[_WORKER_KEY]
            self.environment: str = shared["environment"]
            self.options: str | None = shared["options"]
            self.session_id = shared["session"]
            self.unaffected = set(shared["unaffected"])
            self.uncollected = dict(shared["uncollected"])
        else:
            fingerprint = current_fingerprint(fingerprint_options(config))
            self.environment = fingerprint.environment
            self.options = fingerprint.options
            if self.mode != "all":
                self.selection = select_affected_tests(
                    self.root, self.store, None, fingerprint=fingerprint, states=self.states
                )
                self.unaffected = set(self.selection.unaffected)
                self.uncollected = self._uncollectable(config)
            if self.mode != "dry-run":
                self.session_id = self.store.begin_session(
                    self.mode, self.environment, self.options
                )
        self.recording = self.mode != "dry-run" and not self.is_controller
        # Started when the initial conftests were loaded (see start_import_tracing).
        early = config.stash.get(EARLY_TRACER, None)
        self.tracer: CodeTracer | None = None
        if self.recording:
            self.tracer = early or new_tracer(self.paths.is_python_file)
        elif early is not None:
            early.stop()
        self._footprints: dict[int, frozenset[int]] = {}
        self._footprint_unions: dict[frozenset[int], frozenset[int]] = {}
        self.watcher = FileWatcher()
        self._stack: list[_Window] = []
        self._tracing = False
        self._collection_windows: dict[str, _Window] = {}
        self._fixture_windows: dict[object, _Window] = {}
        self._reports: dict[str, list[pytest.TestReport]] = {}
        # Units are interned as small ints while recording: hashing a Unit (a dataclass)
        # runs Python code, and a test depends on hundreds of them.
        self._unit_ids: dict[Unit, int] = {}
        self._units: list[Unit] = []
        self._paths: set[str] = set()  # of every interned unit
        # By id(code): see lsp_server.rts.tracing. The code objects are kept in _codes so
        # that an id is never reused while it is a key.
        self._code_units: dict[int, tuple[int, ...]] = {}
        self._codes: list[CodeType] = []
        self._static_cache: dict[object, frozenset[int]] = {}
        self._pending: list[TestResult] = []
        self._last_flush = time.monotonic()
        self._recorded = 0
        self._worker_counts: list[tuple[int, int]] = []

    def _open_store(self) -> DependencyStore:
        try:
            return DependencyStore(self.root)
        except StoreError as exc:
            if self.mode == "all" and self.workerinput is None:
                return DependencyStore.rebuild(self.root)
            raise pytest.UsageError(f"reks: {exc}") from exc

    # -- xdist --------------------------------------------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[_WORKER_KEY] = {
            "environment": self.environment,
            "options": self.options,
            "session": self.session_id,
            "unaffected": sorted(self.unaffected),
            "uncollected": self.uncollected,
        }

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        counts = getattr(node, "workeroutput", {}).get("reks_counts")
        if counts:
            self._worker_counts.append(tuple(counts))

    # -- selection ----------------------------------------------------------------------

    def _whole_files_collected(self, config: pytest.Config) -> bool:
        """Whether this run collects every test of each file it collects: not with node ids
        on the command line, nor with --lf (it filters modules while collecting them)."""
        return not getattr(config.option, "lf", False) and not any(
            "::" in str(arg) for arg in config.args
        )

    def _uncollectable(self, config: pytest.Config) -> dict[str, int]:
        """Test files whose every test, at their last whole-file collection, is recorded
        and unaffected: collecting them would only deselect everything they hold. A
        file's collection depends on nothing its tests do not (their units include what
        ran and was read while collecting it), so it would yield the same tests."""
        if not self._whole_files_collected(config):
            return {}
        return {
            path: len(nodeids)
            for path, nodeids in self.store.collected_files().items()
            if nodeids and self.unaffected.issuperset(nodeids)
        }

    def pytest_ignore_collect(self, collection_path: Path, config: pytest.Config) -> bool | None:
        if not self.uncollected:
            return None
        rel = self.paths.rel(str(collection_path))
        return True if rel in self.uncollected else None

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # Once per collector (a module, a class): its items share one file.
        items = [x for x in report.result if isinstance(x, pytest.Item)]
        if items:
            rel = self.paths.rel(str(items[0].path))
            if rel is not None:
                self._collected.setdefault(rel, []).extend(x.nodeid for x in items)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        if self.mode != "dry-run" and self._collected and self._whole_files_collected(config):
            self.store.record_collection(self._collected)
        if self.mode == "all":
            self.counts = (len(items), 0)
            return
        keep = [item for item in items if item.nodeid not in self.unaffected]
        drop = [item for item in items if item.nodeid in self.unaffected]
        if self.mode == "dry-run":
            selected = self.selection.selected if self.selection else {}
            self.dry_run_lines = [
                (item.nodeid, selected.get(item.nodeid, Reason(ReasonKind.NEW))) for item in keep
            ]
            self.counts = (len(keep), len(drop) + sum(self.uncollected.values()))
            keep, drop = [], items[:]
        else:
            self.counts = (len(keep), len(drop) + sum(self.uncollected.values()))
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    # -- recording ----------------------------------------------------------------------

    def _start_tracing(self) -> None:
        if self.tracer is not None and not self._tracing:
            activate_watcher(self.watcher)
            if not self.tracer.started:
                self.tracer.start()
            self._tracing = True

    def _stop_tracing(self) -> None:
        if self.tracer is not None and self._tracing:
            self.tracer.stop()
            activate_watcher(None)
            self._tracing = False

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Generator[None, object, object]:
        # Collection is traced too: code a test module runs at import (parametrize lists
        # built by a helper, data files loaded for parametrization) decides what its tests
        # do without running inside any test.
        self._start_tracing()
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, object, object]:
        if not self._tracing:
            return (yield)
        self._flush()
        self._stack.append(_Window())
        try:
            return (yield)
        finally:
            self._flush()
            window = self._stack.pop()
            key = str(collector.path)
            self._collection_windows.setdefault(key, _Window()).update(window)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        self._start_tracing()
        try:
            return (yield)
        finally:
            self._stop_tracing()
            self._flush_records()

    def _flush(self, restart: bool = True) -> None:
        """Move what ran since the last flush into the innermost window (or drop it when no
        window is open)."""
        if self.tracer is None:
            return
        codes = self.tracer.take(restart)
        files = self.watcher.take()
        if self._stack:
            top = self._stack[-1]
            top.codes.update(codes)
            top.files |= files

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        if not self._tracing:
            return (yield)
        assert self.tracer is not None
        self.tracer.take()
        self.watcher.take()
        self._stack = [_Window()]
        self._reports[item.nodeid] = []
        result = yield
        # No restart here: the next test's start restarts events, and nothing between
        # tests is attributed.
        self._flush(restart=False)
        window = self._stack.pop()
        self._stack = []
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
        self._flush()
        self._stack.append(_Window())
        try:
            return (yield)
        finally:
            self._flush()
            window = self._stack.pop()
            self._fixture_windows.setdefault(fixturedef, _Window()).update(window)
            if self._stack:
                self._stack[-1].update(window)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        reports = self._reports.get(report.nodeid)
        if reports is not None:
            reports.append(report)

    def _imports_of(self, rel: str) -> list[ImportStatement] | None:
        units = self.states.units(rel)
        return None if units is None else units.imports

    def _intern(self, unit: Unit) -> int:
        uid = self._unit_ids.get(unit)
        if uid is None:
            uid = self._unit_ids[unit] = len(self._units)
            self._units.append(unit)
            self._paths.add(unit.path)
        return uid

    def _units_of_code(self, code: CodeType) -> tuple[int, ...]:
        cached = self._code_units.get(id(code))
        if cached is not None:
            return cached
        rel = self.paths.python_rel(code.co_filename)
        units: tuple[Unit, ...] = ()
        if rel is not None:
            module = Unit(rel, MODULE)
            file_units = self.states.units(rel)
            if file_units is None or (found := file_units.unit_for_code(code)) == module:
                units = (module,)
            else:
                units = (found, *file_units.enclosing(found), module)
        ids = tuple(self._intern(u) for u in units)
        self._code_units[id(code)] = ids
        self._codes.append(code)
        return ids

    def _static_units(self, item: pytest.Item) -> frozenset[int]:
        """Module parts of the test file's import closure and its conftests, plus the
        docstring's unit for doctests."""
        dtest = getattr(item, "dtest", None)
        key = (str(item.path), None if dtest is None else (dtest.filename, dtest.lineno))
        cached = self._static_cache.get(key)
        if cached is None:
            ids = {self._intern(u) for u in self._compute_static_units(item)}
            ids.update(self._collection_units(Path(item.path)))
            cached = frozenset(ids)
            self._static_cache[key] = cached
        return cached

    def _collection_units(self, path: Path) -> set[int]:
        """What ran and was opened while collecting ``path`` and its parent directories."""
        ids: set[int] = set()
        for candidate in (path, *path.parents):
            window = self._collection_windows.get(str(candidate))
            if window is not None:
                for code in window.codes.values():
                    ids.update(self._units_of_code(code))
                ids.update(self._file_ids(window.files))
            if candidate == self.root:
                break
        return ids

    def _file_ids(self, filenames: set[str]) -> set[int]:
        ids = set()
        for filename in filenames:
            rel = self.paths.rel(filename)
            if rel is not None and not rel.endswith((".py", ".pyc", ".pyo")):
                ids.add(self._intern(Unit(rel, FILE)))
        return ids

    def _compute_static_units(self, item: pytest.Item) -> set[Unit]:
        units: set[Unit] = set()
        rel = self.paths.rel(str(item.path))
        if rel is None:
            return units
        # Conftests count for non-Python test files too: their hooks collect them.
        for conftest in self.resolver.conftests(rel):
            units.update(Unit(f, MODULE) for f in self.resolver.closure(conftest))
        if not is_python(rel):
            units.add(Unit(rel, FILE))
        else:
            units.update(Unit(f, MODULE) for f in self.resolver.closure(rel))
        dtest = getattr(item, "dtest", None)
        if dtest is not None and dtest.filename:
            doc_rel = self.paths.rel(dtest.filename)
            if doc_rel is not None and is_python(doc_rel):
                file_units = self.states.units(doc_rel)
                if file_units is not None and dtest.lineno is not None:
                    units.add(file_units.unit_at_line(dtest.lineno + 1))
                units.add(Unit(doc_rel, MODULE))
            elif doc_rel is not None:
                units.add(Unit(doc_rel, FILE))
        return units

    def _record(self, item: pytest.Item, window: _Window) -> None:
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
        code_units = self._code_units
        codes = window.codes
        for key in set(codes).difference(code_units):
            self._units_of_code(codes[key])
        # Set operations in C: a test runs hundreds of code objects.
        ids = self._static_units(item).union(
            *map(code_units.__getitem__, codes), self._file_ids(window.files)
        )
        self._absorb_footprints()
        if self._footprints:
            hits = ids.intersection(self._footprints)
            if hits:
                ids = ids.union(self._footprints_of(hits))
        outcome, duration = _outcome(reports)
        units = tuple(map(self._units.__getitem__, ids))
        self._pending.append(TestResult(item.nodeid, outcome, duration, units))
        if len(self._pending) >= _BATCH_TESTS or time.monotonic() - self._last_flush > _BATCH_S:
            self._flush_records()

    def _absorb_footprints(self) -> None:
        """Units of what ran while each project module executed, by the module's unit: a
        test depending on a module also depends on what shaped it at import."""
        assert self.tracer is not None
        for code, codes in self.tracer.take_footprints():
            rel = self.paths.python_rel(code.co_filename)
            if rel is None:
                continue
            module = self._intern(Unit(rel, MODULE))
            ids: set[int] = set()
            for ran in codes.values():
                ids.update(self._units_of_code(ran))
            ids.discard(module)
            if ids:
                self._footprints[module] = self._footprints.get(module, frozenset()).union(ids)
                self._footprint_unions.clear()

    def _footprints_of(self, modules: frozenset[int]) -> frozenset[int]:
        """The union of the footprints of ``modules``, memoized: the tests of a file mostly
        depend on the same modules."""
        union = self._footprint_unions.get(modules)
        if union is None:
            union = frozenset().union(*map(self._footprints.__getitem__, modules))
            self._footprint_unions[modules] = union
        return union

    def _flush_records(self) -> None:
        """Write buffered results in one transaction. Losing a buffer (kill -9) is safe:
        those tests keep their previous record, which selects them again."""
        self._last_flush = time.monotonic()
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        snapshots: dict[str, FileSnapshot] = {}
        for path in self._paths:
            snap = self.states.snapshot(path)
            if snap is not None:
                snapshots[path] = snap
        self.store.record_tests(
            pending,
            snapshots,
            environment=self.environment,
            options=self.options,
            session_id=self.session_id,
        )
        self._recorded += len(pending)

    # -- reporting ----------------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self._stop_tracing()
        counts = self._total_counts()
        if self.workerinput is not None:
            workeroutput = getattr(self.config, "workeroutput", None)
            if workeroutput is not None and self.counts is not None:
                workeroutput["reks_counts"] = list(self.counts)
        elif self.session_id is not None:
            self.store.finish_session(
                self.session_id,
                {
                    "selected": counts[0] if counts else None,
                    "deselected": counts[1] if counts else None,
                    "exitstatus": int(exitstatus),
                },
            )
        nothing_to_run = exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED
        if nothing_to_run and (self.mode == "dry-run" or (counts is not None and counts[1])):
            session.exitstatus = pytest.ExitCode.OK

    def _total_counts(self) -> tuple[int, int] | None:
        if self._worker_counts:
            # Every worker collects and deselects the same tests; one worker's view is the
            # session's.
            return self._worker_counts[0]
        return self.counts

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tr = terminalreporter
        if self.mode == "dry-run":
            tr.section("reks: tests that would run")
            for nodeid, reason in self.dry_run_lines:
                tr.write_line(f"{nodeid}  ({reason})")
        counts = self._total_counts()
        if counts is None:
            return
        seconds = f" in {self.selection.seconds * 1000:.0f} ms" if self.selection else ""
        if self.mode == "all":
            tr.write_line(f"reks: {counts[0]} selected (--reks-all), dependencies re-recorded")
        else:
            verb = "would run" if self.mode == "dry-run" else "selected"
            tr.write_line(
                f"reks: {counts[0]} {verb}, {counts[1]} deselected (unchanged) [selection{seconds}]"
            )

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self._stop_tracing()
        self.store.close()


EARLY_TRACER = pytest.StashKey[CodeTracer]()


def start_import_tracing(config: pytest.Config) -> None:
    """Trace from before the initial conftests are imported: what a conftest's imports run
    at the top level of project modules (a class decorator building classes, say) belongs
    to those modules' import footprints. ``ReksPlugin`` takes the tracer over."""
    paths = ProjectPaths(Path(config.rootpath).resolve())
    tracer = new_tracer(paths.is_python_file)
    tracer.start()
    config.stash[EARLY_TRACER] = tracer
    config.add_cleanup(tracer.stop)
