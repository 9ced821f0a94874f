"""The converters of the first burst of a session are made while ``initialize`` is
answered, not on the message loop in the middle of the first requests (issue 15 item 1:
the first five code actions of a burst took 150-280 ms, every later one under 30)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import cattrs.converters
import cattrs.gen
import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.protocol.json_rpc import JsonRPCResponseMessage
from pytest_lsp import client_capabilities

from lsp_server.lsp.convert import workspace_edit
from lsp_server.refactor.model import FileCreate, FileEdit, FileRename
from lsp_server.refactor.rope_spare import IN_PROCESS_ENV
from lsp_server.server import create_server


def _client_messages(uri: str) -> list[dict[str, Any]]:
    """The opening burst of ``bench/lsp_load.py``, as a pygls client writes it."""
    client = default_converter()
    at = types.Position(3, 4)
    sent: list[tuple[str, Any]] = [
        (
            types.TEXT_DOCUMENT_DID_OPEN,
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text="x = 1\n"
                )
            ),
        ),
        (
            types.TEXT_DOCUMENT_RENAME,
            types.RenameParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=at, new_name="y"
            ),
        ),
        (types.CANCEL_REQUEST, types.CancelParams(id="7")),
        (
            types.TEXT_DOCUMENT_CODE_ACTION,
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=types.Range(at, at),
                context=types.CodeActionContext(diagnostics=[]),
            ),
        ),
        (
            types.TEXT_DOCUMENT_DID_CHANGE,
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=types.Range(at, at), text="z\n")
                ],
            ),
        ),
    ]
    messages = []
    for number, (method, params) in enumerate(sent):
        message = {"jsonrpc": "2.0", "method": method, "params": client.unstructure(params)}
        if types.METHOD_TO_TYPES[method][1] is not None:
            message["id"] = str(number)
        messages.append(json.loads(json.dumps(message)))
    return messages


def _answers(path: Path) -> list[JsonRPCResponseMessage]:
    """A code action list and a rename's edit, as the server answers them."""
    actions = [
        types.CodeAction(title="Extract method", kind="refactor.extract", data={"uri": "u"}),
        types.CodeAction(
            title="Move", kind="refactor", command=types.Command(title="Move", command="m")
        ),
    ]
    edits: list[FileEdit | FileRename | FileCreate] = [
        FileEdit(str(path), "def f():\n    pass\n", "def g():\n    pass\n")
    ]
    vscode = workspace_edit(edits, client_capabilities("visual-studio-code"), lambda uri: 3)
    plain = workspace_edit(edits, None, lambda uri: None)
    return [
        JsonRPCResponseMessage(id=str(number), result=result, jsonrpc="2.0")
        for number, result in enumerate([actions, vscode, plain])
    ]


def test_the_first_burst_after_initialize_makes_no_converter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(IN_PROCESS_ENV, "1")  # no rope worker: only the protocol is looked at
    path = tmp_path / "module.py"
    messages = _client_messages(path.as_uri())
    answers = _answers(path)
    protocol = create_server().protocol
    initialize = protocol.lsp_initialize(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri())
    )
    handled = None
    with contextlib.suppress(StopIteration):  # pygls' way: run each handler it yields
        while True:
            handler, args, _ = initialize.send(handled)
            handled = handler(*args)

    made: list[object] = []  # every class whose converter code cattrs generates from now
    for name in ("make_dict_structure_fn", "make_dict_unstructure_fn"):
        original = getattr(cattrs.gen, name)

        def counted(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            made.append(args[0])
            return _original(*args, **kwargs)

        for module in (cattrs.gen, cattrs.converters):  # lsprotocol calls cattrs.gen's
            monkeypatch.setattr(module, name, counted)
    for message in messages:
        protocol.structure_message(message)
    for answer in answers:
        json.dumps(answer, default=protocol._serialize_message)
    assert made == []
