"""The real server over raw stdio: every request gets an answer, even with parameters that
fail validation, and a broken header ends the server so that the editor restarts it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(60)


class RawClient:
    def __init__(
        self, root: Path, env: dict[str, str] | None = None, stderr: int = subprocess.DEVNULL
    ) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lsp_server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=root,
            env=None if env is None else {**os.environ, **env},
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


def _initialized(raw: RawClient, tmp_path: Path) -> RawClient:
    raw.send(
        {
            "id": 1,
            "method": "initialize",
            "params": {"capabilities": {}, "rootUri": tmp_path.as_uri()},
        }
    )
    assert "result" in raw.answer(1)
    raw.send({"method": "initialized", "params": {}})
    return raw


@pytest.fixture
def client(tmp_path: Path):  # type: ignore[no-untyped-def]
    raw = _initialized(RawClient(tmp_path), tmp_path)
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


def test_messages_written_at_once_are_each_answered(client: RawClient) -> None:
    """The reader takes whole messages off the stream, however the client's writes cut
    them: two requests in one write, a header line split across two writes."""
    asked = {"jsonrpc": "2.0", "method": "textDocument/codeAction", "params": None}
    first = json.dumps({**asked, "id": 21}).encode()
    second = json.dumps({**asked, "id": 22}).encode()
    client.send_raw(
        b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
        b"\r\n%s" % (len(first), first) + b"Content-Len"
    )
    client.send_raw(b"gth: %d\r\n\r\n%s" % (len(second), second))
    assert client.answer(21)["error"]["code"] == -32602  # answered (its params are invalid)
    assert client.answer(22)["error"]["code"] == -32602


def test_the_server_records_its_side_of_each_request_when_asked(tmp_path: Path) -> None:
    """``REKS_REQUEST_TIMES``: when each request's bytes were read, when the loop handled
    it and when its answer was ready, with the CPU used meanwhile, so that a benchmark
    can tell a block in the server from a wait for a CPU (issue 15)."""
    times = tmp_path / "times.jsonl"
    root = tmp_path / "root"
    root.mkdir()
    raw = _initialized(RawClient(root, {"REKS_REQUEST_TIMES": str(times)}), root)
    try:
        raw.send({"id": 5, "method": "shutdown"})
        assert "error" not in raw.answer(5)
    finally:
        raw.process.kill()
        raw.process.wait()
    records = {r["id"]: r for r in map(json.loads, times.read_text().splitlines())}
    assert set(records) == {1, 5}
    assert records[1]["method"] == "initialize" and records[5]["method"] == "shutdown"
    for record in records.values():
        assert record["received"] <= record["read"] <= record["answered"]
        assert record["cpu"] >= 0 and record["loop_cpu"] >= 0 and record["cpu_wait"] >= 0


@pytest.mark.parametrize(("shut_down_first", "code"), [(True, 0), (False, 1)])
def test_exit_ends_the_server_at_once_with_the_code_the_protocol_names(
    tmp_path: Path, shut_down_first: bool, code: int
) -> None:
    """``exit`` after ``shutdown`` ends the server with 0, without it with 1 (the LSP
    spec). The standard-input thread is still waiting on the open stream then: the
    interpreter, closing that stream at exit, waited a second for the thread's lock and
    aborted (SIGABRT, 'Fatal Python error'), and an editor saw a crash at every stop."""
    raw = RawClient(tmp_path, stderr=subprocess.PIPE)
    try:
        _initialized(raw, tmp_path)
        if shut_down_first:
            raw.send({"id": 2, "method": "shutdown"})
            assert "error" not in raw.answer(2)
        raw.send({"method": "exit"})
        returncode = raw.process.wait(timeout=30)
    finally:
        if raw.process.poll() is None:
            raw.process.kill()
            raw.process.wait()
    assert raw.process.stderr is not None
    stderr = raw.process.stderr.read().decode(errors="replace")
    assert "Fatal Python error" not in stderr
    assert returncode == code
