"""The selecting part of the pytest plugin: which tests not to collect or run.

The selection itself (``select_affected_tests``) is computed once by the process that
owns the session: a plain session, or the xdist controller before any worker starts, so
every worker deselects the same tests and nothing a worker writes can change another
worker's collection. Workers get the result through ``shared()``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lsp_server.project.files import ProjectPaths
from lsp_server.rts.fingerprint import Fingerprint
from lsp_server.rts.select import Reason, ReasonKind, Selection, select_affected_tests
from lsp_server.rts.session_listings import (
    select_listings_seeing_new_tests,
    selects_listings,
    uncollected_test_files,
)
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore
from lsp_server.rts.store.stale_marks import ProvenUnaffected


def _whole_files_collected(config: pytest.Config) -> bool:
    """Whether this run collects every test of each file it collects: not with node ids on
    the command line, nor with --lf (it filters modules while collecting them)."""
    return not getattr(config.option, "lf", False) and not any(
        "::" in str(arg) for arg in config.args
    )


def uncollectable_files(
    store: DependencyStore, unaffected: set[str], states: FileStates
) -> dict[str, int]:
    """Test files, unchanged since they were recorded, whose every test at their last
    whole-file collection is one of ``unaffected``: collecting them would only deselect
    everything they hold. A file's collection depends on nothing its tests do not (their
    units include what ran and was read while collecting it), so it would yield the same
    tests; a changed file may hold a new test (a new ``def`` changes no recorded unit).
    Each file -> how many tests it holds."""
    files = unchanged_collections(store, states, unaffected.issuperset)
    return {path: len(nodeids) for path, nodeids in files.items()}


def unchanged_collections(
    store: DependencyStore, states: FileStates, among: Callable[[list[str]], bool]
) -> dict[str, list[str]]:
    """Test files unchanged since their last whole-file collection whose node ids then pass
    ``among`` -> those node ids: collecting such a file again yields the same tests (see
    ``uncollectable_files``). ``among`` is asked first: it spares hashing the others."""
    hashes = store.file_hashes()
    return {
        path: nodeids
        for path, nodeids in store.collected_files().items()
        if nodeids and among(nodeids) and states.raw_hash(path) == hashes.get(path)
    }


class Deselector:
    """Pytest hooks that skip collecting unaffected test files and deselect unaffected
    tests; ``mode`` is "affected", "all" (deselect nothing) or "dry-run" (run nothing)."""

    def __init__(self, store: DependencyStore, mode: str, root: Path, paths: ProjectPaths) -> None:
        self.store = store
        self.mode = mode
        self.root = root
        self.paths = paths
        self.selection: Selection | None = None
        self.unaffected: set[str] = set()
        # Files not to collect at all (every test they held is unaffected) -> their tests.
        self.uncollected: dict[str, int] = {}
        self._collected: dict[str, list[str]] = {}
        self.counts: tuple[int, int] | None = None
        """(selected, deselected) once collection is done."""
        self.environment_runs = 0
        """Selected tests that run because they were recorded in another environment (a
        recorded test no longer collected, outside ``testpaths`` now, runs nowhere)."""
        self.dry_run_lines: list[tuple[str, Reason]] = []
        self.verifying: list[str] = []
        """Skipped tests run to verify them, after the selected ones (``also_run``)."""
        self.only_verifying = False
        self.states: FileStates | None = None
        self.compared: dict[str, tuple[str | None, str | None]] = {}
        """Per file whose stored raw hash differs from the current one, the two hashes
        the selection compared (``store.stale_marks``)."""

    def also_run(self, config: pytest.Config, nodeids: list[str], only: bool) -> None:
        """Run ``nodeids`` too, last (``only``: and nothing else)."""
        self.verifying = list(nodeids)
        self.only_verifying = only
        self.unaffected.difference_update(nodeids)
        if only and _whole_files_collected(config):
            wanted = set(nodeids)
            self.uncollected = {
                path: len(ids)
                for path, ids in self.store.collected_files().items()
                if ids and wanted.isdisjoint(ids)
            }
        else:
            states = self.states
            if self.selection is None or states is None:
                self.uncollected = {}
            else:
                self.uncollected = self._uncollectable(config, states)

    def select(self, config: pytest.Config, fingerprint: Fingerprint, states: FileStates) -> None:
        """Compute the selection (not with --reks-all, which runs everything)."""
        if self.mode == "all":
            return
        self.selection = select_affected_tests(
            self.root, self.store, None, fingerprint=fingerprint, states=states
        )
        patterns = config.getini("python_files")
        select_listings_seeing_new_tests(
            self.store,
            self.selection,
            lambda: uncollected_test_files(self.root, self.store, patterns),
        )
        self.unaffected = set(self.selection.unaffected)
        self.states = states
        stored = self.store.file_hashes()
        self.compared = {
            path: (raw, states.raw_hash(path))
            for path, raw in stored.items()
            if states.raw_hash(path) != raw
        }
        self.store.keep_proven_unaffected(ProvenUnaffected(self.unaffected, self.compared))
        self.uncollected = self._uncollectable(config, states)

    def shared(self) -> dict[str, Any]:
        """The selection, for an xdist worker's ``adopt``."""
        return {
            "unaffected": sorted(self.unaffected),
            "uncollected": self.uncollected,
            "verifying": self.verifying,
            "only_verifying": self.only_verifying,
            "compared": {path: list(hashes) for path, hashes in self.compared.items()},
        }

    def adopt(self, shared: dict[str, Any]) -> None:
        """Use the selection the xdist controller computed."""
        self.unaffected = set(shared["unaffected"])
        self.uncollected = dict(shared["uncollected"])
        self.verifying = list(shared.get("verifying", ()))
        self.only_verifying = bool(shared.get("only_verifying"))
        self.compared = {path: (old, new) for path, (old, new) in shared["compared"].items()}
        self.store.keep_proven_unaffected(ProvenUnaffected(self.unaffected, self.compared))

    def _uncollectable(self, config: pytest.Config, states: FileStates) -> dict[str, int]:
        """``uncollectable_files`` of the unaffected tests, when whole files are collected
        and no listing of the session's state runs (``selects_listings``)."""
        if not _whole_files_collected(config):
            return {}
        if self.selection is not None and selects_listings(self.store, self.selection):
            return {}
        return uncollectable_files(self.store, self.unaffected, states)

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
        if self.mode != "dry-run" and self._collected and _whole_files_collected(config):
            self.store.record_collection(self._collected)
        if self.mode == "all":
            self.counts = (len(items), 0)
            return
        verifying = set(self.verifying)
        if self.only_verifying:
            keep = [item for item in items if item.nodeid in verifying]
            drop = [item for item in items if item.nodeid not in verifying]
        else:
            keep = [item for item in items if item.nodeid not in self.unaffected]
            drop = [item for item in items if item.nodeid in self.unaffected]
        # Verification runs when the selected tests are done (a stable sort keeps order).
        keep.sort(key=lambda item: item.nodeid in verifying)
        checked = sum(1 for item in keep if item.nodeid in verifying)
        self.counts = (len(keep) - checked, len(drop) + sum(self.uncollected.values()))
        selected = self.selection.selected if self.selection else {}
        environment = ReasonKind.ENVIRONMENT
        self.environment_runs = sum(
            1 for item in keep if getattr(selected.get(item.nodeid), "kind", None) is environment
        )
        if self.mode == "dry-run":
            self.dry_run_lines = [
                (item.nodeid, selected.get(item.nodeid, Reason(ReasonKind.NEW))) for item in keep
            ]
            keep, drop = [], items[:]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
