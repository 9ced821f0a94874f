"""Renames: ``textDocument/prepareRename``, ``textDocument/rename`` and
``workspace/willRenameFiles`` (a module or package renamed in the file explorer)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lsp_server.lsp.convert import (
    offset_in_text,
    position_at,
    supports_change_annotations,
    uri_to_path,
)
from lsp_server.lsp.features.refactoring.lifecycle import (
    await_job,
    compute,
    encoding_of,
    failed,
    root_of,
    text_of,
    to_edit,
)
from lsp_server.project.text import identifier_span
from lsp_server.refactor.engine import PrepareResult
from lsp_server.refactor.model import (
    FileEdit,
    RefactoringError,
    RefactoringResult,
    RefactorRequest,
)
from lsp_server.refactor.rope_thread import RopeJob
from lsp_server.refactor.spans import describe_uncertain, without_uncertain
from lsp_server.rts.provenance import Provenance

if TYPE_CHECKING:
    from lsp_server.lsp.features.refactoring.feature import RefactoringFeature


# -- rename ----------------------------------------------------------------------------------------
def _name_offset(text: str, position: types.Position, encoding: str) -> int:
    """The offset of a rename's position, which must be on a name in the file."""
    try:
        offset = offset_in_text(text, position, encoding)
    except RefactoringError as exc:
        raise failed(f"cannot rename here: {exc}") from exc
    start, end = identifier_span(text, offset)
    if start == end:
        where = f"line {position.line + 1}, character {position.character + 1}"
        raise failed(f"cannot rename here: there is no name at {where}")
    return offset


async def prepare_rename(
    feature: RefactoringFeature, params: types.PrepareRenameParams
) -> types.PrepareRenamePlaceholder | None:
    path, text = text_of(feature, params.text_document.uri)
    encoding = encoding_of(feature)
    offset = _name_offset(text, params.position, encoding)
    job = RopeJob()
    try:
        found: PrepareResult = await await_job(
            feature.host.engine.submit_prepare_rename(path, offset, job), job
        )
    except RefactoringError as exc:
        raise failed(str(exc)) from exc
    return types.PrepareRenamePlaceholder(
        range=types.Range(
            position_at(text, found.start, encoding), position_at(text, found.end, encoding)
        ),
        placeholder=found.name,
    )


async def rename(feature: RefactoringFeature, params: types.RenameParams) -> types.WorkspaceEdit:
    path, text = text_of(feature, params.text_document.uri)
    offset = _name_offset(text, params.position, encoding_of(feature))
    request = RefactorRequest("rename", path, offset, args={"new_name": params.new_name})
    result = await compute(feature, request)
    root = root_of(feature, path)
    if result.uncertain and not supports_change_annotations(feature.host.lsp.client_capabilities):
        places = describe_uncertain(result.uncertain, root)
        result = without_uncertain(result)
        feature.host.lsp.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=f"reks: left out {len(places)} uncertain change(s) this editor cannot"
                " ask to confirm; check them by hand: " + "; ".join(places),
            )
        )
    edit = await to_edit(feature, result)
    feature.pending.add(root, result)
    return edit


async def will_rename_files(
    feature: RefactoringFeature, params: types.RenameFilesParams
) -> types.WorkspaceEdit | None:
    """Update imports for files (modules or packages) the editor is about to rename."""
    edits: list[Any] = []
    touched: set[str] = set()
    for item in params.files:
        old_path, new_path = uri_to_path(item.old_uri), uri_to_path(item.new_uri)
        is_module = old_path.endswith(".py") or os.path.isfile(
            os.path.join(old_path, "__init__.py")
        )
        if not is_module:
            continue
        target = old_path if old_path.endswith(".py") else os.path.join(old_path, "__init__.py")
        if _renamed_and_moved(old_path, new_path):
            result = await _rename_and_move(feature, old_path, new_path)
        else:
            request = RefactorRequest("rename-module", target, 0, args={"new_path": new_path})
            result = await compute(feature, request)
        for edit in result.edits:
            if isinstance(edit, FileEdit):
                if edit.path in touched:
                    raise failed("rename these files one at a time")
                touched.add(edit.path)
                edits.append(edit)
        feature.pending.add(root_of(feature, target), result)
    if not edits:
        return None
    return await to_edit(feature, RefactoringResult(edits, Provenance("rename-files", "")), False)


def _renamed_and_moved(old_path: str, new_path: str) -> bool:
    old, new = os.path.realpath(old_path), os.path.realpath(new_path)
    return os.path.dirname(old) != os.path.dirname(new) and (
        os.path.basename(old) != os.path.basename(new)
    )


async def _rename_and_move(
    feature: RefactoringFeature, old_path: str, new_path: str
) -> RefactoringResult:
    """A module renamed into another folder: both steps at once (see ``module_moves``)."""
    job = RopeJob()
    try:
        future = feature.host.engine.submit_module_move(old_path, new_path, job)
    except RefactoringError as exc:
        raise failed(str(exc)) from exc
    result: RefactoringResult = await await_job(future, job)
    return result
