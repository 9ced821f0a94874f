"""The dependency store: per-test dependencies, outcomes and sessions in SQLite, plus the
log of refactoring tasks and the extreme analysis's cached verdicts.

``DependencyStore`` is the one way in. Its parts, by role: ``schema`` (tables, version,
migrations, opening), ``writes`` (recording tests, in short transactions;
``stale_marks``: whom a file's sync marks stale), ``refactorings`` (the REKS primitives
and the task log), ``verification`` (the tests REKS skipped and whether a later run
verified them) and ``queries`` (what selection, the rules, the analysis and the CLI
read). Nothing outside this package touches SQL.
"""

from __future__ import annotations

from pathlib import Path

from lsp_server.rts.interned_units import InternedIds
from lsp_server.rts.store.collections import StoreCollections
from lsp_server.rts.store.errors import CORRUPT, StoreError, store_error
from lsp_server.rts.store.extreme_cache import StoreExtremeCache
from lsp_server.rts.store.queries import (
    Execution,
    LoggedTask,
    StoreInfo,
    StoreQueries,
    TestRecord,
)
from lsp_server.rts.store.refactorings import StoreRefactorings
from lsp_server.rts.store.runs import StoreRuns
from lsp_server.rts.store.schema import (
    BUSY_TIMEOUT_MS,
    SCHEMA_VERSION,
    STORE_DIR,
    STORE_FILE,
    ensure_gitignore,
    move_aside,
    open_connection,
    store_path,
)
from lsp_server.rts.store.verification import (
    FAILED,
    PASSED,
    PENDING,
    SkippedTest,
    StoreVerification,
    TaskEvidence,
)
from lsp_server.rts.store.writes import OUTCOMES, FileSnapshot, TestResult

__all__ = [
    "BUSY_TIMEOUT_MS",
    "CORRUPT",
    "FAILED",
    "OUTCOMES",
    "PASSED",
    "PENDING",
    "SCHEMA_VERSION",
    "STORE_DIR",
    "STORE_FILE",
    "DependencyStore",
    "Execution",
    "FileSnapshot",
    "LoggedTask",
    "SkippedTest",
    "StoreError",
    "StoreInfo",
    "TaskEvidence",
    "TestRecord",
    "TestResult",
    "store_error",
    "store_path",
]


class DependencyStore(
    StoreRefactorings,
    StoreVerification,
    StoreExtremeCache,
    StoreRuns,
    StoreCollections,
    StoreQueries,
):
    """The project's store (``<root>/.reks/deps.sqlite``); see the package docstring."""

    def __init__(self, root: Path, *, create: bool = True, read_only: bool = False) -> None:
        """``read_only``: for commands that only read (implies not ``create``); the file
        is opened read-only, so a read-only folder or file is no obstacle."""
        self.root = Path(root)
        self.path = store_path(self.root)
        if not self.path.exists() and (not create or read_only):
            raise StoreError(
                f"no dependency store at {self.path}; run `pytest --reks` first", "missing"
            )
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ensure_gitignore(self.path)
        self._depth = 0
        self._synced: dict[str, str | None] = {}
        self._unit_id_cache: dict[tuple[str, str], int] = {}
        self._unit_paths_cached: set[str] = set()
        self._interned: dict[int, InternedIds] = {}
        self._set_units: dict[int, frozenset[int]] = {}
        self._bases: dict[str, int] = {}
        self._ran_rows: dict[int, set[int]] | None = None
        self._ran_read_whole = False  # see ``StoreRuns._stored_ran``
        self._data_version: int | None = None
        self._conn = open_connection(self.path, read_only=read_only)

    @classmethod
    def rebuild(cls, root: Path) -> DependencyStore:
        """Recreate an empty store, keeping any previous file as ``deps.sqlite.bak``."""
        move_aside(store_path(Path(root)))
        return cls(root)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> DependencyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
