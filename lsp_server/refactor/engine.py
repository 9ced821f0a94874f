"""The refactoring engine: one entry point for every refactoring, for the server and the CLI.

``RefactorEngine`` keeps one ``RopeWorkspace`` (warm rope project) per workspace root, all
served by one ``Worker`` thread. ``compute`` runs a refactoring on the worker and returns a
``RefactoringResult`` (plain edits + Provenance); nothing is written. ``apply`` writes a
result to disk atomically. Whoever applies a result (the CLI with ``--apply``, the server
once the client accepted the edit) calls ``announce_applied``.

Applied-refactoring hook
------------------------
``RefactorEngine.listeners`` is the single place where applied refactorings are announced:
append a callable taking ``(root, provenance)``; it is called, once per applied task, after
the edit reached the files (disk or editor buffers). The REKS rules plug in here to update
the dependency store. A listener that raises is logged and does not stop the others.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from lsp_server.jobs import Cancelled, Job
from lsp_server.project.text import identifier_span
from lsp_server.refactor.announcements import Announcements
from lsp_server.refactor.apply import apply_edits
from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import (
    FileEdit,
    RefactoringError,
    RefactoringResult,
    RefactorRequest,
)
from lsp_server.refactor.provenance import ProvenancePlan
from lsp_server.refactor.rope_thread import RopeJob, Worker
from lsp_server.refactor.workspace import RopeWorkspace
from lsp_server.rts.provenance import Provenance, TaskTarget

log = logging.getLogger(__name__)

Operation = Callable[[Context], Planned]


def operations() -> dict[str, Operation]:
    """Action name -> operation; the names are those of the CLI and of code-action data.

    Imported on first use: the language server's process computes nothing with rope (its
    worker does), and starts faster without the operations and the semantic checks."""
    from lsp_server.refactor import (
        extract,
        extract_jumps,
        imports,
        inline,
        move,
        rename,
        rewrite,
        signature,
    )

    return {
        "rename": rename.rename,
        "rename-module": rename.rename_module,
        "extract-method": extract_jumps.extract_method,
        "extract-variable": extract.extract_variable,
        "inline": inline.inline,
        "move": move.move,
        "introduce-parameter": signature.introduce_parameter,
        "change-signature": signature.change_signature,
        "encapsulate-field": rewrite.encapsulate_field,
        "local-to-field": rewrite.local_to_field,
        "method-object": rewrite.method_object,
        "use-function": rewrite.use_function,
        "introduce-factory": rewrite.introduce_factory,
        "organize-imports": imports.organize_imports,
    }


_MODULE_MOVES = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reks-module-move")


class RefactoringListener(Protocol):
    """Called with the workspace root and the Provenance of a refactoring once applied."""

    def __call__(self, root: str, provenance: Provenance) -> None: ...


@dataclass(frozen=True)
class PrepareResult:
    """What prepareRename answers: the name under the cursor and where it starts."""

    name: str
    start: int
    end: int


def find_root(path: str) -> str:
    """The project root of a file for the CLI: the nearest folder up with a project marker."""
    folder = Path(path).resolve().parent
    for candidate in [folder, *folder.parents]:
        if any(
            (candidate / marker).exists()
            for marker in ("pyproject.toml", "setup.py", "setup.cfg", ".git", ".reks")
        ):
            return str(candidate)
    return str(folder)


class RefactorEngine:
    """Warm rope projects per root, one worker thread, and the applied-refactoring hook."""

    def __init__(self, worker: Worker | None = None) -> None:
        self.worker = worker if worker is not None else Worker()
        self.workspaces: dict[str, RopeWorkspace] = {}
        self.listeners: list[RefactoringListener] = []
        self.announcements = Announcements()
        """Applied refactorings whose announcement to the listeners is under way."""

    # -- workspaces ------------------------------------------------------------------
    def add_root(self, root: str) -> RopeWorkspace:
        real = os.path.realpath(root)
        if real not in self.workspaces:
            self.workspaces[real] = RopeWorkspace(real, self.worker)
        return self.workspaces[real]

    def remove_root(self, root: str) -> None:
        workspace = self.workspaces.pop(os.path.realpath(root), None)
        if workspace is not None:
            workspace.close()

    def workspace_for(self, path: str) -> RopeWorkspace:
        """The workspace holding ``path`` (the innermost root); raises if none does."""
        matches = [ws for ws in self.workspaces.values() if ws.contains(path)]
        if not matches:
            raise RefactoringError(f"{path} is not in an open workspace folder")
        return max(matches, key=lambda ws: len(ws.root))

    def set_overlay(self, path: str, text: str | None) -> None:
        for workspace in self.workspaces.values():
            if workspace.contains(path):
                workspace.set_overlay(path, text)

    def mark_changed(self, path: str) -> None:
        for workspace in self.workspaces.values():
            if workspace.contains(path):
                workspace.mark_changed(path)

    # -- computing ---------------------------------------------------------------------
    def submit(
        self, request: RefactorRequest, job: RopeJob | None = None
    ) -> Future[RefactoringResult]:
        """Compute ``request`` on the worker thread; cancel through ``job.cancel()``."""
        job = job if job is not None else RopeJob()
        return self.worker.submit(lambda: self._compute(request, job), job=job)

    def compute(self, request: RefactorRequest, job: RopeJob | None = None) -> RefactoringResult:
        """Compute ``request`` and wait for the result (not from the message loop)."""
        job = job if job is not None else RopeJob()
        return self.worker.call(lambda: self._compute(request, job), job=job)

    def prepare_rename(self, path: str, offset: int) -> PrepareResult:
        """The identifier at ``offset`` if rope can rename it; raises RefactoringError."""

        def work() -> PrepareResult:
            from rope.base import exceptions as rope_exceptions

            from lsp_server.refactor import rename

            workspace = self.workspace_for(path)
            text = workspace.read(path) or ""
            ctx = Context(workspace, RefactorRequest("rename", path, offset), RopeJob(), text)
            start, end = identifier_span(text, offset)
            if start == end:
                raise RefactoringError("no name at the cursor")
            try:
                name = rename.old_name(ctx)
            except rope_exceptions.RopeError as exc:
                raise RefactoringError(str(exc)) from exc
            if not name:
                raise RefactoringError("nothing to rename here")
            return PrepareResult(text[start:end], start, end)

        return self.worker.call(work)

    def submit_prepare_rename(
        self, path: str, offset: int, job: RopeJob | None = None
    ) -> Future[PrepareResult]:
        """``prepare_rename`` on the worker thread."""
        return self.worker.submit(lambda: self.prepare_rename(path, offset), job=job)

    def submit_module_move(
        self, old_path: str, new_path: str, job: RopeJob | None = None
    ) -> Future[RefactoringResult]:
        """Rename and move module ``old_path`` to ``new_path`` (``module_moves``), on a
        thread of its own: it runs an engine of its own on a scratch copy."""
        from lsp_server.refactor.module_moves import rename_and_move_module

        workspace = self.workspace_for(old_path)
        return _MODULE_MOVES.submit(
            rename_and_move_module, workspace, old_path, new_path, RefactorEngine
        )

    def prewarm(self, root: str, job: Job | None = None) -> Future[None]:
        """Parse every module of workspace ``root`` in the background (``add_root`` first)."""
        return self.add_root(root).prewarm(job)

    def _compute(self, request: RefactorRequest, job: RopeJob) -> RefactoringResult:
        """Long because it is the one sequence every refactoring goes through: parse check,
        operation with its semantic checks, simulation, edit checks, provenance plan."""
        from rope.base import exceptions as rope_exceptions

        from lsp_server.refactor import semantics
        from lsp_server.refactor.changes import simulate
        from lsp_server.refactor.edit_check import check_edit
        from lsp_server.refactor.rope_guard import skipping_failures

        operation = operations().get(request.action)
        if operation is None:
            raise RefactoringError(f"unknown refactoring {request.action!r}")
        workspace = self.workspace_for(request.path)
        text = workspace.read(request.path)
        if text is None:
            raise RefactoringError(f"{request.path} does not exist")
        ctx = Context(workspace, request, job, text)
        try:
            own_error = (
                workspace.syntax_error(ctx.resource) if request.path.endswith(".py") else None
            )
        except ValueError as exc:
            raise RefactoringError(str(exc)) from exc
        if own_error is not None:
            raise RefactoringError(
                f"{workspace.relpath(request.path)} cannot be parsed: {own_error}"
            )
        try:
            job.check()
            with skipping_failures(request.path) as failed_files:
                planned = semantics.check(ctx, operation(ctx))
            planned.skipped = [*planned.skipped, *failed_files]
            job.check()
            sim = simulate(workspace, planned.changes)
        except rope_exceptions.InterruptedTaskError as exc:
            raise Cancelled() from exc
        except rope_exceptions.RopeError as exc:
            raise RefactoringError(str(exc) or type(exc).__name__) from exc
        except (SyntaxError, IndentationError) as exc:
            raise RefactoringError(semantics.parse_failure_message(ctx, exc)) from exc
        if not sim.edits:
            raise RefactoringError(f"{planned.description}: nothing to change")
        rel = workspace.relpath
        for edit in sim.edits:
            if isinstance(edit, FileEdit):
                check_edit(edit, rel(edit.path), planned.verify_names)
        plan = ProvenancePlan(
            planned.kind,
            planned.description,
            before={rel(p): t for p, t in sim.before.items()},
            after={rel(p): t for p, t in sim.after.items()},
            renamed={rel(a): rel(b) for a, b in sim.renamed.items()},
            hints=planned.hints,
            target=TaskTarget(request.action, rel(request.path), request.offset, request.end),
            # Changes the user confirmed are not evidence: their units count as hand
            # edits, so their tests run.
            exact=not planned.uncertain,
        )
        return RefactoringResult(
            sim.edits, plan, planned.skipped, plan.after, uncertain=planned.uncertain
        )

    # -- applying ------------------------------------------------------------------------
    def apply(self, result: RefactoringResult, root: str) -> None:
        """Write ``result`` to disk (all or nothing), then announce it."""
        apply_edits(result.edits, journal_dir=os.path.join(root, ".reks"))
        for edit_path in result.files_after:
            self.mark_changed(os.path.join(root, edit_path))
        self.announce_applied(root, result.provenance)

    def announce_applied(self, root: str, provenance: Provenance) -> None:
        """Tell every listener that a refactoring reached the files. See module docstring."""
        for listener in list(self.listeners):
            try:
                listener(root, provenance)
            except Exception:
                log.exception("refactoring listener %r failed", listener)

    def close(self) -> None:
        for workspace in self.workspaces.values():
            workspace.close()
        self.workspaces.clear()
        self.worker.stop()
