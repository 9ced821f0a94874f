"""The message converters of a session made before its first requests come.

pygls reads every message into lsprotocol's classes and writes every answer back with
cattrs, which generates (and compiles) the code of a class's converter the first time it
meets that class. A session's first ``didChange``, code action, rename and cancellation
each paid for theirs, one after the other on the message loop, while an editor sends
exactly those in a burst right after opening its documents: the first five code actions
of ``bench/lsp_load.py`` took 150-280 ms against under 30 ms for every later one (issue
15 item 1). ``warm_up`` reads and writes one message of each kind an editor sends in
its first seconds, through the protocol's own path: the kinds of that burst while
``initialize`` is answered (about 60 ms; the client sends the burst right after the
answer, so only there are they made before it), the others on a thread afterwards.
"""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types
from pygls.protocol import JsonRPCProtocol
from pygls.protocol.json_rpc import JsonRPCResponseMessage

_URI = "file:///reks-warm-up/module.py"
_DOCUMENT = {"uri": _URI}
_RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}


def _incoming() -> list[tuple[str, dict[str, Any]]]:
    """(method, params) of what an editor sends in a session's first seconds; the
    first ``_BURST_IN`` are the kinds of the first burst (see ``warm_up``)."""
    versioned = {"uri": _URI, "version": 2}
    diagnostic = {"range": _RANGE, "message": "m", "severity": 2, "source": "s"}
    return [
        (
            types.TEXT_DOCUMENT_CODE_ACTION,
            {
                "textDocument": _DOCUMENT,
                "range": _RANGE,
                "context": {"diagnostics": [diagnostic], "only": ["refactor"], "triggerKind": 2},
            },
        ),
        (types.CANCEL_REQUEST, {"id": "1"}),
        (
            types.TEXT_DOCUMENT_DID_OPEN,
            {"textDocument": {**_DOCUMENT, "languageId": "python", "version": 1, "text": ""}},
        ),
        (
            types.TEXT_DOCUMENT_DID_CHANGE,
            {"textDocument": versioned, "contentChanges": [{"range": _RANGE, "text": "x"}]},
        ),
        (
            types.TEXT_DOCUMENT_DID_CHANGE,
            {"textDocument": versioned, "contentChanges": [{"text": "x"}]},
        ),
        (
            types.TEXT_DOCUMENT_RENAME,
            {"textDocument": _DOCUMENT, "position": _RANGE["start"], "newName": "n"},
        ),
        (types.TEXT_DOCUMENT_DID_SAVE, {"textDocument": _DOCUMENT}),
        (types.TEXT_DOCUMENT_DID_CLOSE, {"textDocument": _DOCUMENT}),
        (types.CODE_ACTION_RESOLVE, {"title": "t", "kind": "refactor", "data": {"uri": _URI}}),
        (
            types.TEXT_DOCUMENT_PREPARE_RENAME,
            {"textDocument": _DOCUMENT, "position": _RANGE["start"]},
        ),
        (types.WORKSPACE_EXECUTE_COMMAND, {"command": "c", "arguments": [{"uri": _URI}]}),
        (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, {"changes": [{"uri": _URI, "type": 2}]}),
    ]


def _outgoing() -> list[Any]:
    """Answers of the kinds the server sends first: code actions, an edit, a placeholder."""
    edit = types.TextEdit(
        range=types.Range(types.Position(0, 0), types.Position(0, 1)), new_text="n"
    )
    annotated = types.AnnotatedTextEdit(range=edit.range, new_text="n", annotation_id="reks")
    document = types.OptionalVersionedTextDocumentIdentifier(uri=_URI, version=1)
    command = types.Command(title="t", command="c", arguments=[{"uri": _URI}])
    return [
        [
            types.CodeAction(title="t", kind=types.CodeActionKind.Refactor, data={"uri": _URI}),
            types.CodeAction(title="t", kind=types.CodeActionKind.RefactorExtract, command=command),
        ],
        types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(text_document=document, edits=[edit, annotated]),
                types.RenameFile(old_uri=_URI, new_uri=_URI),
            ],
            change_annotations={"reks": types.ChangeAnnotation(label="l", needs_confirmation=True)},
        ),
        types.WorkspaceEdit(changes={_URI: [edit]}),
        types.PrepareRenamePlaceholder(range=edit.range, placeholder="p"),
    ]


def _sent(protocol: JsonRPCProtocol) -> list[Any]:
    """Notifications and requests of the kinds the server sends first (progress of the
    indexing, diagnostics, messages)."""
    token = "reks-warm-up"
    diagnostic = types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 1)), message="m"
    )
    sent: list[tuple[str, Any]] = [
        (types.WINDOW_WORK_DONE_PROGRESS_CREATE, types.WorkDoneProgressCreateParams(token=token)),
        *(
            (types.PROGRESS, types.ProgressParams(token=token, value=value))
            for value in (
                types.WorkDoneProgressBegin(title="t", cancellable=False, percentage=0),
                types.WorkDoneProgressReport(message="m", percentage=1),
                types.WorkDoneProgressEnd(message="m"),
            )
        ),
        (
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
            types.PublishDiagnosticsParams(uri=_URI, diagnostics=[diagnostic]),
        ),
        (
            types.WINDOW_SHOW_MESSAGE,
            types.ShowMessageParams(type=types.MessageType.Info, message="m"),
        ),
        (types.WINDOW_LOG_MESSAGE, types.LogMessageParams(type=types.MessageType.Log, message="m")),
    ]
    messages = []
    for number, (method, params) in enumerate(sent):
        kind: Any = protocol.get_message_type(method)
        if types.METHOD_TO_TYPES[method][1] is None:
            messages.append(kind(method=method, params=params, jsonrpc="2.0"))
        else:
            messages.append(
                kind(id=f"warm-up-{number}", method=method, params=params, jsonrpc="2.0")
            )
    return messages


_BURST_IN = 6
"""The first ``_incoming`` kinds (code action, cancel, didOpen, didChange, rename) and
``_BURST_OUT`` first ``_outgoing`` ones (code actions, edits) are made in ``initialize``."""
_BURST_OUT = 3


def warm_up(protocol: JsonRPCProtocol, burst_only: bool = False) -> None:
    """Read and write one message of each kind through ``protocol``'s converter (nothing
    is handled or sent): its converters exist before the first real message needs them.
    ``burst_only``: only those of an editor's first burst, on the way to answering
    ``initialize`` (the client sends that burst at once; the rest is made on a thread)."""
    incoming = []
    for number, (method, params) in enumerate(_incoming()):
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if types.METHOD_TO_TYPES[method][1] is not None:
            message["id"] = number  # a request (a notification has no answer type)
        incoming.append(message)
    answers: list[Any] = [
        JsonRPCResponseMessage(id=number, result=result, jsonrpc="2.0")
        for number, result in enumerate(_outgoing())
    ]
    if burst_only:
        incoming, answers = incoming[:_BURST_IN], answers[:_BURST_OUT]
    else:
        answers += _sent(protocol)
    # Twice: cattrs forgets every converter it cached each time it makes one for a new
    # kind of list or mapping; the second pass meets none and leaves them all cached.
    for _ in range(2):
        for message in incoming:
            protocol.structure_message(message)
        for answer in answers:
            json.dumps(answer, default=protocol._serialize_message)
