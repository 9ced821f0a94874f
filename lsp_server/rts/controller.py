"""The active part of the pytest plugin: one session of ``--reks``, ``--reks-all`` or
``--reks-dry-run``.

``ReksPlugin`` opens the store, fingerprints the environment, begins and finishes the
session, talks to xdist and reports; it hands selection to a ``Deselector`` and recording
to a ``DependencyRecorder``, each registered as a pytest plugin of its own. Roles: a plain
session selects, runs and records. Under xdist the controller selects (once, before any
worker starts) and the workers record, each writing its tests in short transactions of
its own. Every session that ran tests settles, at its end, the tests REKS skipped after
refactorings that it ran (``lsp_server.rts.verify_session``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from lsp_server.project.files import ProjectPaths
from lsp_server.rts.analysis_cache import AnalysisCache
from lsp_server.rts.deselection import Deselector
from lsp_server.rts.fingerprint import current_fingerprint
from lsp_server.rts.option_rules import RECORDED_FOR_OPTIONS, SELECTION_INI
from lsp_server.rts.recorder import EARLY_TRACER, DependencyRecorder
from lsp_server.rts.select import ReasonKind
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import CORRUPT, FAILED, DependencyStore, StoreError
from lsp_server.rts.verification import alarms, budget_picks
from lsp_server.rts.verify_session import SkippedVerifier, configured_budget

_WORKER_KEY = "reks"


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
        if key in SELECTION_INI:
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
        # Python's -W and PYTHONWARNINGS: filters behind pytest's, and pytest leaves out
        # its "always" for deprecations when there are any.
        "warnoptions": list(sys.warnoptions),
        "ini": ini,
        # What the recorder notes per test for the option rules (rts.option_rules): a
        # store recorded without it cannot tell which tests an option change affects.
        "recorded": RECORDED_FOR_OPTIONS,
    }


class ReksPlugin:
    """The session controller; registers the deselector and, when this process runs
    tests, the recorder."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        opt = config.option
        self.mode = "dry-run" if opt.reks_dry_run else ("all" if opt.reks_all else "affected")
        root = Path(config.rootpath).resolve()
        self.root = root
        self.workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
        is_controller = self.workerinput is None and getattr(opt, "dist", "no") != "no"
        if is_controller and self.mode == "dry-run":
            # Workers collect; their listing would not reach the terminal.
            raise pytest.UsageError("reks: --reks-dry-run cannot be combined with xdist's -n")
        paths = ProjectPaths(root)
        # Unchanged files' analyses come from earlier sessions (rts.analysis_cache).
        states = FileStates(root, analyses=AnalysisCache(root))
        self.session_id: int | None = None
        self.store = self._open_store()
        self.deselector = Deselector(self.store, self.mode, root, paths)
        self._worker_counts: list[tuple[int, int]] = []
        self._worker_environment_runs: list[int] = []
        if self.workerinput is not None:
            shared = self.workerinput[_WORKER_KEY]
            self.environment: str = shared["environment"]
            self.options: str | None = shared["options"]
            self.session_id = shared["session"]
            self.deselector.adopt(shared)
        else:
            fingerprint = current_fingerprint(fingerprint_options(config))
            self.fingerprint_details = fingerprint.details
            self.environment = fingerprint.environment
            self.options = fingerprint.options
            self.deselector.select(config, fingerprint, states)
            self._verify_skipped(config)
            if self.mode != "dry-run":
                self.session_id = self.store.begin_session(
                    self.mode, self.environment, self.options
                )
        config.pluginmanager.register(self.deselector, "reks-selection")
        budget = configured_budget(config, root) if self.mode == "affected" else 0.0
        self.verifier = SkippedVerifier(self.deselector.verifying, budget)
        config.pluginmanager.register(self.verifier, "reks-verification")
        self.recorder: DependencyRecorder | None = None
        if self.mode != "dry-run" and not is_controller:
            session = (self.environment, self.options, self.session_id)
            self.recorder = DependencyRecorder(config, self.store, states, paths, session)
            config.pluginmanager.register(self.recorder, "reks-recorder")
        elif (early := config.stash.get(EARLY_TRACER, None)) is not None:
            early.stop()

    def _open_store(self) -> DependencyStore:
        try:
            return DependencyStore(self.root)
        except StoreError as exc:
            # Only a corrupt store is worth recreating: a locked, read-only or full one
            # would fail the same way, and lose its records.
            if self.mode == "all" and self.workerinput is None and exc.kind == CORRUPT:
                return DependencyStore.rebuild(self.root)
            raise pytest.UsageError(f"reks: {exc}") from exc

    def _verify_skipped(self, config: pytest.Config) -> None:
        """Add the pending skipped tests the verification budget allows to the run."""
        budget = configured_budget(config, self.root) if self.mode == "affected" else 0.0
        if budget <= 0:
            return
        only = bool(config.option.reks_verify_skipped)
        selection = self.deselector.selection
        exclude = set() if only or selection is None else set(selection.selected)
        picks = budget_picks(self.store.pending_tests(), budget, exclude)
        self.deselector.also_run(config, picks, only)

    # -- xdist --------------------------------------------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[_WORKER_KEY] = {
            "environment": self.environment,
            "options": self.options,
            "session": self.session_id,
            **self.deselector.shared(),
        }

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        counts = getattr(node, "workeroutput", {}).get("reks_counts")
        if counts:
            self._worker_counts.append(tuple(counts[:2]))
            self._worker_environment_runs.append(counts[2])

    # -- reporting ----------------------------------------------------------------------

    def _stop_tracing(self) -> None:
        if self.recorder is not None:
            self.recorder.stop_tracing()

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self._stop_tracing()
        counts = self._total_counts()
        own_counts = self.deselector.counts
        if self.workerinput is not None:
            workeroutput = getattr(self.config, "workeroutput", None)
            if workeroutput is not None and own_counts is not None:
                workeroutput["reks_counts"] = [*own_counts, self.deselector.environment_runs]
        elif self.session_id is not None:
            self.store.finish_session(
                self.session_id,
                {
                    "fingerprint": getattr(self, "fingerprint_details", {}),
                    "selected": counts[0] if counts else None,
                    "deselected": counts[1] if counts else None,
                    "exitstatus": int(exitstatus),
                },
            )
            settled = self.store.settle_session(self.session_id, self._hand_edited())
            self.verifier.alarms = alarms(self.store, [s for s in settled if s.state == FAILED])
        nothing_to_run = exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED
        if nothing_to_run and (self.mode == "dry-run" or (counts is not None and counts[1])):
            session.exitstatus = pytest.ExitCode.OK

    def _hand_edited(self) -> set[str]:
        """Tests this session ran because code they depend on changed by hand."""
        selection = self.deselector.selection
        if selection is None:
            return set()
        own = (ReasonKind.NEW, ReasonKind.FAILED, ReasonKind.ERROR)
        return {n for n, reason in selection.selected.items() if reason.kind not in own}

    def _total_counts(self) -> tuple[int, int] | None:
        if self._worker_counts:
            # Every worker collects and deselects the same tests; one worker's view is the
            # session's.
            return self._worker_counts[0]
        return self.deselector.counts

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tr = terminalreporter
        if self.mode == "dry-run":
            tr.section("reks: tests that would run")
            for nodeid, reason in self.deselector.dry_run_lines:
                tr.write_line(f"{nodeid}  ({reason})")
        counts = self._total_counts()
        if counts is None:
            return
        selection = self.deselector.selection
        seconds = f" in {selection.seconds * 1000:.0f} ms" if selection else ""
        if self.mode == "all":
            tr.write_line(f"reks: {counts[0]} selected (--reks-all), dependencies re-recorded")
        else:
            verb = "would run" if self.mode == "dry-run" else "selected"
            environment = selection.environment_change if selection else None
            runs = self._environment_runs()
            if environment is not None and runs:
                whom = "every test runs" if runs == sum(counts) else _tests_run(runs)
                tr.write_line(f"reks: the environment changed ({environment}): {whom}")
            tr.write_line(
                f"reks: {counts[0]} {verb}{self._not_run(counts[1])} [selection{seconds}]"
            )

    def _environment_runs(self) -> int:
        """Like ``_total_counts``: one worker's view is the session's."""
        if self._worker_environment_runs:
            return int(self._worker_environment_runs[0])
        return self.deselector.environment_runs

    def _not_run(self, unchanged: int) -> str:
        """The unchanged tests, split as pytest sees them: deselected (pytest's own count)
        and never collected (whole files reks kept pytest from importing)."""
        files = self.deselector.uncollected
        if not files:
            return f", {unchanged} deselected (unchanged)"
        uncollected = sum(files.values())
        parts = [f"{unchanged - uncollected} deselected"] if unchanged > uncollected else []
        plural = "file" if len(files) == 1 else "files"
        parts.append(f"{uncollected} in {len(files)} {plural} not collected")
        return f"; {unchanged} unchanged not run: {', '.join(parts)}"

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self._stop_tracing()
        self.store.close()


def _tests_run(count: int) -> str:
    if count == 1:
        return "1 test recorded before it runs"
    return f"{count} tests recorded before it run"
