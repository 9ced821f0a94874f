"""Refactor on save (``textDocument/willSaveWaitUntil``): the configured
behaviour-preserving refactorings of the saved file, recorded like any refactoring."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.lsp.convert import text_edits
from lsp_server.lsp.features.refactoring.lifecycle import await_job, encoding_of, root_of, text_of
from lsp_server.refactor.model import FileEdit, RefactoringError, RefactoringResult, RefactorRequest
from lsp_server.refactor.rope_thread import RopeJob

if TYPE_CHECKING:
    from lsp_server.lsp.features.refactoring.feature import RefactoringFeature

# -- refactor on save ------------------------------------------------------------------------------
ON_SAVE_ACTIONS = {"organizeImports": "organize-imports"}


async def will_save_wait_until(
    feature: RefactoringFeature, params: types.WillSaveTextDocumentParams
) -> list[types.TextEdit]:
    """Configured behaviour-preserving refactorings of the saved file (``onSave`` setting)."""
    uri = params.text_document.uri
    if not uri.endswith(".py") or not feature.host.settings.onSave:
        return []
    path, text = text_of(feature, uri)
    if feature.pending.awaits(path, text):
        # A refactoring handed out is not in every file yet (an editor may send the other
        # files' changes after this save): an edit on top of it would keep the files from
        # ever holding what it handed out, and all its tests would run as after a hand edit.
        # The next save refactors.
        return []
    edits: list[types.TextEdit] = []
    for name in feature.host.settings.onSave:
        action = ON_SAVE_ACTIONS.get(name)
        if action is None:
            continue
        job = RopeJob()
        try:
            future = feature.host.engine.submit(RefactorRequest(action, path, 0), job)
            result: RefactoringResult = await asyncio.wait_for(
                await_job(future, job), feature.host.settings.onSaveTimeout
            )
        except (JsonRpcException, asyncio.TimeoutError, RefactoringError):
            job.cancel()
            continue  # saving must never fail because a refactoring could not run
        own = [e for e in result.edits if isinstance(e, FileEdit) and e.path == path]
        if len(own) != len(result.edits) or not own:
            continue

        edits = text_edits(text, own[0].new_text, encoding_of(feature))
        feature.pending.add(root_of(feature, path), result)
        break  # one refactoring per save keeps the edits consistent with the buffer
    return edits
