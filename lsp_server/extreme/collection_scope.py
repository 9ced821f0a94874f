"""Which test files the workers need not collect for an analysis of some functions.

Collecting (importing every test module) was about half of an analysis. The dependency
store says which tests can reach a function: a test depends on every function it ran,
on what ran while its file was collected, and on the import footprint of every module it
depends on. A transformation changes only the function's unit, so a test whose recorded
dependencies are otherwise unchanged (selection leaves it unaffected) and do not include
any analysed function runs exactly as it did: it cannot detect a transformation. A test
file is left out when every test it held at its last whole-file collection is such a test
and its bytes are unchanged (``rts.deselection.uncollectable_files``, the same rule as
``pytest --reks``); new and edited test files, and the tests a changed conftest.py or
helper affects, are collected as before. The environment must be the one recorded: the
workers must run in this interpreter, with the distributions the store saw.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path

from lsp_server.extreme.discover import FunctionInfo


def out_of_reach(root: Path, functions: Iterable[FunctionInfo], python: str | None) -> list[str]:
    """Test files (relative to ``root``, sorted) no test of which can detect a
    transformation of ``functions``; empty without a usable store, or when the workers
    run another interpreter (``python``) than the one whose environment is compared."""
    from lsp_server.rts.deselection import uncollectable_files
    from lsp_server.rts.file_units import Unit
    from lsp_server.rts.fingerprint import current_fingerprint
    from lsp_server.rts.select import select_affected_tests
    from lsp_server.rts.snapshots import FileStates
    from lsp_server.rts.store import DependencyStore, StoreError, store_path

    units = [Unit(f.path, f.qualname) for f in functions]
    if python is not None or not units or not store_path(root).exists():
        return []
    try:
        with DependencyStore(root, create=False) as store:
            if not store.has_tests():
                return []
            states = FileStates(root)
            selection = select_affected_tests(
                root, store, fingerprint=current_fingerprint(), states=states
            )
            reaching = store.tests_depending_on_any(units)
            unaffected = set(selection.unaffected).difference(reaching)
            return sorted(uncollectable_files(store, unaffected, states))
    except (StoreError, OSError, sqlite3.Error):
        return []


def ignoring(root: Path, files: Iterable[str]) -> list[str]:
    """pytest arguments that leave ``files`` uncollected."""
    return [f"--ignore={root / rel}" for rel in files]
