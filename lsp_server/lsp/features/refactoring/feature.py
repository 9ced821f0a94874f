"""``RefactoringFeature``: the refactoring methods and hooks, and their per-server state."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from lsprotocol import types

from lsp_server.jobs import Cancelled, Job
from lsp_server.lsp.convert import uri_to_path
from lsp_server.lsp.feature import CommandHandler, Feature, Host, MethodHandler
from lsp_server.lsp.features.refactoring import code_actions, on_save, rename
from lsp_server.lsp.features.refactoring.lifecycle import PendingApplications, check_pending
from lsp_server.lsp.progress import ClientProgress
from lsp_server.project.files import MAX_ANALYSED_CHARS as MAX_CHARS
from lsp_server.project.files import PYTHON_SUFFIXES
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.outline_service import OutlineService

log = logging.getLogger(__name__)

_MODULES_AND_FOLDERS = types.FileOperationRegistrationOptions(
    filters=[
        types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*.py")),
        types.FileOperationFilter(
            pattern=types.FileOperationPattern(
                glob="**/*", matches=types.FileOperationPatternKind.Folder
            )
        ),
    ]
)


class RefactoringFeature(Feature):
    """Renames, refactoring code actions, module renames from the explorer, refactor on save."""

    name = "refactoring"
    code_action_kinds = (
        types.CodeActionKind.RefactorExtract,
        types.CodeActionKind.RefactorInline,
        types.CodeActionKind.RefactorRewrite,
        "refactor.move",
        types.CodeActionKind.SourceOrganizeImports,
    )

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self.pending = PendingApplications()
        self.outlines = OutlineService()
        """Outlines of the documents code actions were asked in (see ``code_actions``)."""
        self.outlines.start_ahead()  # while the client waits for ``initialize``
        self.prewarm_jobs: list[Job] = []
        self.declined: set[str] = set()
        """Documents too large to analyse whose user was told so."""

    def methods(self) -> list[MethodHandler]:
        return [
            MethodHandler(
                types.TEXT_DOCUMENT_PREPARE_RENAME, lambda p: rename.prepare_rename(self, p)
            ),
            MethodHandler(types.TEXT_DOCUMENT_RENAME, lambda p: rename.rename(self, p)),
            MethodHandler(
                types.WORKSPACE_WILL_RENAME_FILES,
                lambda p: rename.will_rename_files(self, p),
                _MODULES_AND_FOLDERS,
            ),
            MethodHandler(
                types.TEXT_DOCUMENT_WILL_SAVE_WAIT_UNTIL,
                lambda p: on_save.will_save_wait_until(self, p),
            ),
        ]

    def commands(self) -> dict[str, CommandHandler]:
        async def execute(arguments: list[Any]) -> None:
            await code_actions.execute_refactoring(self, arguments)

        return {code_actions.APPLY_COMMAND: execute, code_actions.MOVE_COMMAND: execute}

    def folder_added(self, root: str) -> None:
        self.host.spawn(self._prewarm(root))

    def folder_removed(self, root: str) -> None:
        self.host.engine.remove_root(root)

    def document_changed(self, uri: str, closed: bool = False) -> None:
        try:
            path = uri_to_path(uri)
        except RefactoringError:
            return
        text = None if closed else self.host.lsp.workspace.get_text_document(uri).source
        self.host.engine.set_overlay(path, text)
        if text is None:
            self.outlines.forget(uri)
        elif path.endswith(PYTHON_SUFFIXES) and len(text) <= MAX_CHARS:
            # Made from the document's opening on, and whenever the user pauses: the first
            # code action finds one ready, and the later ones one close to the current text.
            self.outlines.typed(uri, text)
        check_pending(self, {path})

    def files_changed(self, uris: list[str]) -> None:
        paths: set[str] = set()
        for uri in uris:
            try:
                path = uri_to_path(uri)
            except RefactoringError:
                continue
            self.host.engine.mark_changed(path)
            paths.add(path)
        check_pending(self, paths)

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        return await code_actions.code_actions(self, params)

    def owns_code_action(self, action: types.CodeAction) -> bool:
        return isinstance(action.data, dict) and "action" in action.data

    async def resolve_code_action(self, action: types.CodeAction) -> types.CodeAction:
        return await code_actions.resolve_code_action(self, action)

    def shutdown(self) -> None:
        for job in self.prewarm_jobs:
            job.cancel()
        self.outlines.close()

    async def _prewarm(self, root: str) -> None:
        """Parse every module of ``root`` in the background, with throttled ``$/progress``."""
        progress = await ClientProgress.begin(
            self.host.lsp,
            "reks: indexing",
            message=os.path.basename(root),
            cancellable=False,
            unit="modules",
        )
        job = progress.job
        self.prewarm_jobs.append(job)
        try:
            await asyncio.wrap_future(self.host.engine.prewarm(root, job))
        except Cancelled:
            pass
        except Exception:
            log.exception("pre-warm of %s failed", root)
        finally:
            progress.end("ready")
