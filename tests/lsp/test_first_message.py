"""The client's first message, read while the server imports: its root reaches the rope
worker early, and the server reads the very same bytes afterwards."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from lsp_server.lsp.first_message import FirstMessage, root_of_initialize


def framed(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def initialize(**params: object) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}


def test_the_root_is_found_and_every_byte_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    first = framed(initialize(capabilities={}, rootUri=tmp_path.as_uri()))
    second = framed({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    read_end, write_end = os.pipe()
    os.write(write_end, first[:10])  # the message arrives in pieces
    roots: list[str] = []
    reader = FirstMessage(roots.append, fd=read_end).start()
    os.write(write_end, first[10:] + second)
    os.close(write_end)
    monkeypatch.setattr(sys, "stdin", sys.stdin)
    reader.install()
    assert roots == [os.path.realpath(tmp_path)]
    assert sys.stdin.buffer.read() == first + second


def test_the_end_of_input_before_a_whole_message_is_passed_on(monkeypatch: pytest.MonkeyPatch):
    read_end, write_end = os.pipe()
    os.write(write_end, b"Content-Length: 100\r\n\r\n{")
    os.close(write_end)
    roots: list[str] = []
    reader = FirstMessage(roots.append, fd=read_end).start()
    monkeypatch.setattr(sys, "stdin", sys.stdin)
    reader.install()
    assert roots == []
    assert sys.stdin.buffer.read() == b"Content-Length: 100\r\n\r\n{"


def test_which_root_an_initialize_names(tmp_path: Path):
    other = tmp_path / "other"
    other.mkdir()
    folders = [{"uri": other.as_uri(), "name": "other"}]
    real = os.path.realpath
    assert root_of_initialize(initialize(workspaceFolders=folders, rootUri=tmp_path.as_uri())) == (
        real(other)
    )
    assert root_of_initialize(initialize(rootUri=tmp_path.as_uri())) == real(tmp_path)
    assert root_of_initialize(initialize(rootPath=str(tmp_path))) == real(tmp_path)
    assert root_of_initialize(initialize(rootUri="untitled:x")) is None
    assert root_of_initialize(initialize(rootUri=(tmp_path / "gone").as_uri())) is None
    assert root_of_initialize({"method": "shutdown", "params": {}}) is None
