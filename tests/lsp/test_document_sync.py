"""Incremental changes applied by slicing give pygls' own result, whatever the range."""

from __future__ import annotations

import random

import pytest
from lsprotocol import types
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from lsp_server.lsp.document_sync import apply_change

TEXTS = [
    "",
    "x",
    "a = 1\n",
    "a\nbb\nccc",
    "\n\n\n",
    "p\nq\nr\ns\nt\n",
    "a\nbb\r\nccc\n\nd",
    "é😀\nx\ty\n\n",
    "one\ftwo\u2028three\n\r\n",
]
ENCODINGS = [
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf32,
]


def _document(text: str, encoding: types.PositionEncodingKind) -> TextDocument:
    return TextDocument(
        "file:///m.py",
        text,
        version=1,
        sync_kind=types.TextDocumentSyncKind.Incremental,
        position_codec=PositionCodec(encoding),
    )


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_random_changes_give_what_pygls_gives(encoding: types.PositionEncodingKind) -> None:
    rnd = random.Random(15)
    for _ in range(3000):
        text = rnd.choice(TEXTS)
        lines = text.count("\n") + 2
        start = types.Position(rnd.randrange(lines + 1), rnd.randrange(6))
        end = types.Position(rnd.randrange(lines + 1), rnd.randrange(6))
        if rnd.random() < 0.7 and (end.line, end.character) < (start.line, start.character):
            start, end = end, start
        new_text = rnd.choice(["", "z", "new\n", "é\r\n😀"])
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start, end), text=new_text
        )
        theirs, ours = _document(text, encoding), _document(text, encoding)
        theirs.apply_change(
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    types.Position(start.line, start.character),
                    types.Position(end.line, end.character),
                ),
                text=new_text,
            )
        )
        apply_change(ours, change)
        assert ours.source == theirs.source, (text, start, end, new_text)


def test_a_whole_text_change_replaces_the_text() -> None:
    document = _document("a = 1\n", types.PositionEncodingKind.Utf16)
    apply_change(document, types.TextDocumentContentChangeWholeDocument(text="b = 2\n"))
    assert document.source == "b = 2\n"
