"""Oversized input does not hold up the server: a document above the size reks analyses is
declined with a message while other files are still served, and absurd arguments (a name of
a million characters) are refused with a plain error."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lsp_server.project.files import MAX_ANALYSED_CHARS
from tests.lsp.test_refactoring import doc, position
from tests.support.lsp import open_document

pytestmark = [pytest.mark.timeout(90)]


async def _actions(
    client: LanguageClient, uri: str, at: types.Position
) -> list[types.Command | types.CodeAction] | None:
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(at, at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )


async def test_a_huge_buffer_is_declined_and_the_others_still_served(
    vscode: LanguageClient, project: Path
) -> None:
    client = vscode
    big = project / "generated.py"
    big.write_text("")
    huge = "x = 1\n" * (MAX_ANALYSED_CHARS // 6 + 10)
    open_document(client, big, huge)
    origin = types.Position(line=0, character=0)
    assert not await _actions(client, big.as_uri(), origin)
    assert any("generated.py" in m.message and "characters" in m.message for m in client.messages)
    util = project / "geometry/util.py"
    open_document(client, util)
    offered = await _actions(client, util.as_uri(), position(util, "double(value) * 2"))
    assert offered, "a small file is still served after a huge one was declined"
    with pytest.raises(JsonRpcException, match="characters"):
        await client.text_document_rename_async(
            types.RenameParams(text_document=doc(big), position=origin, new_name="y")
        )


async def test_an_absurd_new_name_is_refused(vscode: LanguageClient, project: Path) -> None:
    client = vscode
    util = project / "geometry/util.py"
    with pytest.raises(JsonRpcException, match="not a usable value"):
        await client.text_document_rename_async(
            types.RenameParams(
                text_document=doc(util),
                position=position(util, "def double", 4),
                new_name="n" * 1_000_000,
            )
        )
