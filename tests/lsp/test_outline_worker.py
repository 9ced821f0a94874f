"""Code actions in a long document never wait for it to be parsed again (issue 15 item 7):
its outline is made in a worker process, and a code action while a newer one is being
made answers from the last one where the document is unchanged. A chosen action is
checked against the current text, so an offer made from an earlier text never becomes a
wrong edit.

The outline worker is held with SIGSTOP: a re-analysis that takes as long as the test likes.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_server.lsp.features.refactoring.code_actions import INLINE_OUTLINE_CHARS
from tests.lsp.test_rope_worker import server_child
from tests.support.lsp import open_document, until
from tests.support.processes import stop_process

FUNCTIONS = 1_000


def long_module(path: Path) -> str:
    text = "".join(f"def f{i}(a):\n    return a + {i}\n\n\n" for i in range(FUNCTIONS))
    assert len(text) > INLINE_OUTLINE_CHARS  # outlined by the worker, not the server
    path.write_text(text)
    return text


async def actions_at(client: LanguageClient, path: Path, line: int) -> list[types.CodeAction]:
    at = types.Position(line, 4)
    answer = await asyncio.wait_for(
        client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                range=types.Range(at, at),
                context=types.CodeActionContext(diagnostics=[]),
            )
        ),
        30,
    )
    return [a for a in answer or [] if isinstance(a, types.CodeAction)]


def change(client: LanguageClient, path: Path, version: int, line: int, text: str) -> None:
    at = types.Position(line, 0)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(range=types.Range(at, at), text=text)
            ],
        )
    )


def inline(actions: list[types.CodeAction], name: str) -> types.CodeAction:
    return next(a for a in actions if a.title == f"Inline function `{name}`")


async def outline_worker(client: LanguageClient) -> int:
    """The server's outline worker, once it runs: the server starts it on a thread when a
    long document opens, and a code action may be answered before it is there."""
    await until(
        lambda: server_child(client, b"outline_process") is not None,
        "an outline worker (none: the server parses long documents itself?)",
        60,
    )
    worker = server_child(client, b"outline_process")
    assert worker is not None
    return worker


async def test_a_code_action_while_the_document_is_analysed_again_answers_from_the_last_outline(
    vscode: LanguageClient, project: Path
) -> None:
    path = project / "long.py"
    long_module(path)
    open_document(vscode, path)
    inline(await actions_at(vscode, path, 40), "f10")
    worker = await outline_worker(vscode)
    stop_process(worker)  # the new text's outline takes as long as the test likes
    try:
        change(vscode, path, 2, 0, "import os\n")  # every statement one line further down
        action = inline(await actions_at(vscode, path, 41), "f10")
        assert isinstance(action.data, dict)
        assert action.data["position"] == {"line": 41, "character": 4}
        resolving = asyncio.ensure_future(vscode.code_action_resolve_async(action))
        await asyncio.sleep(0.5)
        assert not resolving.done()  # checked against the current text's outline: waits
    finally:
        os.kill(worker, signal.SIGCONT)
    resolved = await asyncio.wait_for(resolving, 60)
    assert resolved.edit is not None


async def test_an_offer_from_an_earlier_text_is_refused_where_the_text_changed(
    vscode: LanguageClient, project: Path
) -> None:
    path = project / "long.py"
    long_module(path)
    open_document(vscode, path)
    action = inline(await actions_at(vscode, path, 40), "f10")
    change(vscode, path, 2, 40, "def g10(a):\n    return a\n\n\n")  # f10 is on line 44 now
    with pytest.raises(Exception, match="not offered at that place"):
        await asyncio.wait_for(vscode.code_action_resolve_async(action), 60)


async def test_a_code_action_never_waits_for_an_outline(
    vscode: LanguageClient, project: Path
) -> None:
    """Where the document changed since its last outline, and in a document with none
    yet, the offers come from the statements around the cursor (issue 15: codeAction
    p99 under 50 ms; an outline of a long module takes seconds under load)."""
    first, second = project / "long.py", project / "other.py"
    long_module(first)
    open_document(vscode, first)
    inline(await actions_at(vscode, first, 40), "f10")
    worker = await outline_worker(vscode)
    stop_process(worker)  # no outline is made from now on
    try:
        change(vscode, first, 2, 40, "def g10(a):\n    return a\n\n\n")  # not in the outline
        actions = await asyncio.wait_for(actions_at(vscode, first, 40), 10)
        data = inline(actions, "g10").data
        assert isinstance(data, dict) and data["position"] == {"line": 40, "character": 4}
        long_module(second)
        open_document(vscode, second)
        actions = await asyncio.wait_for(actions_at(vscode, second, 40), 10)
        data = inline(actions, "f10").data
        assert isinstance(data, dict) and data["position"] == {"line": 40, "character": 4}
    finally:
        os.kill(worker, signal.SIGCONT)
