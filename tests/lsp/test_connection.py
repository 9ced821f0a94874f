"""The real server over raw stdio: every request gets an answer, even with parameters that
fail validation, and a broken header ends the server so that the editor restarts it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(60)


class RawClient:
    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lsp_server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
        )

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def answer(self, request_id: int) -> dict[str, Any]:
        """The response to ``request_id`` (notifications in between are skipped)."""
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            length = 0
            while (line := stdout.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            assert length, "the server closed the stream"
            message = json.loads(stdout.read(length))
            if message.get("id") == request_id and "method" not in message:
                return message


@pytest.fixture
def client(tmp_path: Path):  # type: ignore[no-untyped-def]
    raw = RawClient(tmp_path)
    raw.send(
        {
            "id": 1,
            "method": "initialize",
            "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()},
        }
    )
    assert "result" in raw.answer(1)
    raw.send({"method": "initialized", "params": {}})
    yield raw
    if raw.process.poll() is None:
        raw.process.kill()
    raw.process.wait()


@pytest.mark.parametrize(
    "method,params",
    [
        ("textDocument/codeAction", None),
        ("textDocument/codeAction", {"textDocument": {"uri": "file:///x.py"}}),  # no range
        (
            "textDocument/rename",
            {
                "textDocument": {"uri": "file:///x.py"},
                "position": {"line": -1, "character": 0},
                "newName": "y",
            },
        ),
    ],
    ids=["null-params", "missing-range", "negative-line"],
)
def test_every_request_is_answered(client: RawClient, method: str, params: Any) -> None:
    client.send({"id": 7, "method": method, "params": params})
    answer = client.answer(7)
    assert "error" in answer and answer["error"]["code"] in (-32602, -32600, -32803), answer
    # The server still serves afterwards.
    client.send({"id": 8, "method": "shutdown"})
    assert "error" not in client.answer(8)


def test_a_broken_header_ends_the_server(client: RawClient) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "shutdown"}).encode()
    client.send_raw(b"Content-Length: twelve\r\n\r\n" + body)
    assert client.process.wait(timeout=30) is not None


def test_a_refused_request_is_a_plain_error_without_traceback(client: RawClient) -> None:
    client.send(
        {
            "id": 11,
            "method": "textDocument/rename",
            "params": {
                "textDocument": {"uri": "untitled:Untitled-1"},
                "position": {"line": 0, "character": 0},
                "newName": "y",
            },
        }
    )
    error = client.answer(11)["error"]
    assert error["code"] == -32803, error  # RequestFailed, not an internal error
    assert "only file: URIs" in error["message"]
    assert "Traceback" not in json.dumps(error) and "traceback" not in json.dumps(error)
    assert "lsp_server" not in error["message"]  # no server paths or module names
