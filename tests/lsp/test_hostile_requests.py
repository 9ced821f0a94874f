"""Requests a careless or hostile client sends get a clear refusal instead of doing
something else: positions past the end of a file, forged code-action data, a command
argument that is not a path, changes older than the document."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.test_refactoring import doc, position
from tests.support.lsp import change_document, open_document

# One server for the module (``shared_vscode``): each test reads the project, or writes and
# opens a file of its own.
pytestmark = [pytest.mark.timeout(90), pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


async def _rename(client: LanguageClient, path: Path, at: types.Position) -> object:
    return await client.text_document_rename_async(
        types.RenameParams(text_document=doc(path), position=at, new_name="x")
    )


async def test_a_rename_off_any_name_is_refused_with_where(
    shared_vscode: LanguageClient, module_project: Path
) -> None:
    util = module_project / "geometry/util.py"
    with pytest.raises(JsonRpcException, match="line 10001 is past the end of the file"):
        await _rename(shared_vscode, util, types.Position(line=10_000, character=0))
    blank = util.read_text().splitlines().index("")
    with pytest.raises(JsonRpcException, match=f"no name at line {blank + 1}"):
        await _rename(shared_vscode, util, types.Position(line=blank, character=0))
    with pytest.raises(JsonRpcException, match="past the end"):
        await shared_vscode.text_document_prepare_rename_async(
            types.PrepareRenameParams(
                text_document=doc(util), position=types.Position(line=10_000, character=0)
            )
        )


async def test_forged_code_action_data_and_command_arguments_are_refused(
    shared_vscode: LanguageClient, module_project: Path
) -> None:
    util = module_project / "geometry/util.py"
    open_document(shared_vscode, util)
    at = position(util, "def double", 4)
    actions = await shared_vscode.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(util),
            range=types.Range(at, at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions
    offered = next(a for a in actions if isinstance(a, types.CodeAction) and a.data)
    assert isinstance(offered.data, dict)
    other = next(
        a.title for a in actions if isinstance(a, types.CodeAction) and a.title != offered.title
    )
    forged_title = types.CodeAction(title=other, kind=offered.kind, data=offered.data)
    with pytest.raises(JsonRpcException, match="not offered at that place"):
        await shared_vscode.code_action_resolve_async(forged_title)
    data = {**offered.data, "action": "organize-imports"}
    forged_action = types.CodeAction(title=offered.title, kind=offered.kind, data=data)
    with pytest.raises(JsonRpcException, match="not offered at that place"):
        await shared_vscode.code_action_resolve_async(forged_action)
    resolved = await shared_vscode.code_action_resolve_async(offered)  # the real one still works
    assert resolved.edit is not None

    with pytest.raises(JsonRpcException, match="must be a folder or file"):
        await shared_vscode.workspace_execute_command_async(
            types.ExecuteCommandParams(command="reks.analyseWeakTests", arguments=[5])
        )
    with pytest.raises(JsonRpcException, match="no such folder or file"):
        await shared_vscode.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="reks.analyseWeakTests", arguments=[str(module_project / "missing")]
            )
        )


async def test_a_change_older_than_the_document_is_ignored(
    shared_vscode: LanguageClient, module_project: Path
) -> None:
    module = module_project / "geometry/fresh.py"
    module.write_text("def original():\n    return 1\n")
    open_document(shared_vscode, module)

    change_document(shared_vscode, module, 3, "def current():\n    return 3\n")
    change_document(shared_vscode, module, 2, "def stale():\n    return 2\n")
    change_document(shared_vscode, module, 3, "def replayed():\n    return 3\n")
    prepared = await shared_vscode.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=doc(module), position=types.Position(line=0, character=5)
        )
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "current"
