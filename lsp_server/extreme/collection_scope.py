"""Which tests the workers need not collect for an analysis of some functions.

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

Of an unchanged file that holds some tests that can reach the functions, only those are
collected (``wanted_tests.WantedTests``): pytest parses the fixtures of every test class
it collects and makes an item of every test, which was most of collecting more-itertools,
whose one large file holds the tests of every function.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lsp_server.extreme.discover import FunctionInfo


@dataclass
class CollectionScope:
    """What the workers leave out; empty: they collect every test."""

    files: list[str] = field(default_factory=list)  # test files (relative, sorted)
    # Of the other unchanged files that hold tests that cannot reach the functions: the
    # node ids of the tests they collect (those that can).
    only: dict[str, list[str]] = field(default_factory=dict)
    left_out: int = 0  # tests not collected in the files of ``only``
    # What ``select_affected_tests`` selects without comparing the environment, found with
    # the same changes (``observation.read_store`` needs it); None: not computed.
    selected_without_environment: set[str] | None = None

    def wanted(self) -> list[str]:
        """The node ids of ``only``, for the workers."""
        return [nodeid for nodeids in self.only.values() for nodeid in nodeids]


def out_of_reach(
    root: Path, functions: Iterable[FunctionInfo], python: str | None
) -> CollectionScope:
    """The tests no one of which can detect a transformation of ``functions`` (see the
    module docstring); none without a usable store, or when the workers run another
    interpreter (``python``) than the one whose environment is compared."""
    from lsp_server.rts.deselection import unchanged_collections
    from lsp_server.rts.file_units import Unit
    from lsp_server.rts.fingerprint import current_fingerprint
    from lsp_server.rts.select import select_with_and_without_fingerprint
    from lsp_server.rts.snapshots import FileStates
    from lsp_server.rts.store import DependencyStore, StoreError, store_path

    units = [Unit(f.path, f.qualname) for f in functions]
    if python is not None or not units or not store_path(root).exists():
        return CollectionScope()
    try:
        with DependencyStore(root, create=False) as store:
            if not store.has_tests():
                return CollectionScope()
            states = FileStates(root)
            selection, anywhere = select_with_and_without_fingerprint(
                root, store, current_fingerprint(), states
            )
            reaching = store.tests_depending_on_any(units)
            unable = set(selection.unaffected).difference(reaching)
            unchanged = unchanged_collections(store, states, lambda ids: not unable.isdisjoint(ids))
    except (StoreError, OSError, sqlite3.Error):
        return CollectionScope()
    scope = CollectionScope(selected_without_environment=set(anywhere.selected))
    for path, nodeids in sorted(unchanged.items()):
        if unable.issuperset(nodeids):
            scope.files.append(path)
            continue
        scope.only[path] = [nodeid for nodeid in nodeids if nodeid not in unable]
        scope.left_out += len(nodeids) - len(scope.only[path])
    return scope


def ignoring(root: Path, files: Iterable[str]) -> list[str]:
    """pytest arguments that leave ``files`` uncollected."""
    return [f"--ignore={root / rel}" for rel in files]
