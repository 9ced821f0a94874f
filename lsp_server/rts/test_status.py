"""What the editor shows about tests after refactorings: which ones REKS skips, which must run.

``test_status`` combines the real selection (``select_affected_tests``: hand edits, failed
tests, new dependencies) with the refactoring tasks recorded since the last test session:
a test is *skipped* when a task would have made plain dependency selection rerun it and
nothing else selects it now; it is *affected* when the selection runs it. Both statements
are recomputed from the store and the files each time, so they disappear as soon as they
stop being true (the tests ran, or a hand edit now selects a skipped test).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lsp_server.project.interpreter import project_python
from lsp_server.project.text import parse_python
from lsp_server.rts.probe_process import probing_for
from lsp_server.rts.select import select_affected_tests
from lsp_server.rts.snapshots import FileStates
from lsp_server.rts.store import DependencyStore, LoggedTask, StoreError, store_path


@dataclass(frozen=True)
class TaskRecord(LoggedTask):
    """A recorded refactoring task, as the server reads it back."""

    @property
    def skipped_tests(self) -> tuple[str, ...]:
        return tuple(self.details.get("skipped_tests", ()))

    @property
    def affected_tests(self) -> tuple[str, ...]:
        return tuple(self.details.get("affected_tests", ()))


def tasks_since(store: DependencyStore, session_id: int | None = None) -> list[TaskRecord]:
    """Recorded refactoring tasks applied after session ``session_id`` (default: after the
    last test session), oldest first."""
    if session_id is None:
        session_id = store.last_session_id()
    return [TaskRecord(**vars(task)) for task in store.logged_tasks(session_id)]


@dataclass(frozen=True)
class TestLocation:
    """Where a test function is defined: root-relative path, 1-based line, name columns."""

    path: str
    line: int
    start: int
    end: int


@dataclass
class TestStatus:
    skipped: dict[str, list[str]] = field(default_factory=dict)
    """Node id -> descriptions of the refactorings whose selection REKS skipped."""
    affected: dict[str, str] = field(default_factory=dict)
    """Node id -> why it must run."""
    distrusted: dict[str, list[str]] = field(default_factory=dict)
    """Node id -> "<task>: <why it was treated as a hand edit>" for tests a task selected."""

    def summary(self) -> str:
        return f"{len(self.skipped)} tests skipped by refactorings, {len(self.affected)} affected"


def test_status(
    root: Path, overlays: Mapping[str, str] | None = None, python: str | None = None
) -> TestStatus | None:
    """The current status, or None when the project has no dependency store with tests.
    ``overlays``: root-relative path -> text of files whose current text is not saved yet
    (an editor's buffers): the status is the one of that text. ``python``: the interpreter
    the tests run in (``project_python`` finds it by default); library probes run only
    when it is this one (``rts.probe_process``)."""
    if not store_path(root).exists():
        return None
    try:
        store = DependencyStore(root, create=False)
    except StoreError:
        return None
    status = TestStatus()
    with store, probing_for(project_python(root, python)):
        if not store.has_tests():  # made by the extreme analysis for its verdicts
            return None
        selection = select_affected_tests(root, store, states=FileStates(root, overlays=overlays))
        tasks = tasks_since(store)
    status.affected = {nodeid: str(reason) for nodeid, reason in selection.selected.items()}
    for task in tasks:
        for nodeid in task.skipped_tests:
            if nodeid not in status.affected:
                status.skipped.setdefault(nodeid, []).append(task.description)
        if task.fallback is not None:
            for nodeid in task.affected_tests:
                if nodeid in status.affected:
                    status.distrusted.setdefault(nodeid, []).append(
                        f"{task.description} was treated as a hand edit: {task.fallback}"
                    )
    return status


def locate_tests(root: Path, nodeids: list[str]) -> dict[str, TestLocation]:
    """The ``def`` of each test (parameters stripped); tests that cannot be found are left
    out (a doctest, a file that no longer parses)."""
    by_file: dict[str, list[str]] = {}
    for nodeid in nodeids:
        path, _, rest = nodeid.partition("::")
        if rest:
            by_file.setdefault(path, []).append(nodeid)
    out: dict[str, TestLocation] = {}
    for path, ids in by_file.items():
        try:
            text = (root / path).read_text(encoding="utf-8")
            tree = parse_python(text, path)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        defs = _definitions(tree)
        lines = text.splitlines()
        for nodeid in ids:
            qualname = nodeid.split("::", 1)[1].split("[", 1)[0].replace("::", ".")
            node = defs.get(qualname)
            if node is None:
                continue
            line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
            start = line.find(node.name, node.col_offset)
            start = start if start >= 0 else node.col_offset
            out[nodeid] = TestLocation(path, node.lineno, start, start + len(node.name))
    return out


def _definitions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[prefix + node.name] = node
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return found
