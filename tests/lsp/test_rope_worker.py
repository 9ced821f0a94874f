"""The server runs rope in a worker process: cheap requests never wait for it,
``$/cancelRequest`` reaches it, and a worker that dies is an error answer, then a new one.

The worker is found as the server's child running ``rope_process``; stopping it
(SIGSTOP) stands for rope being busy for as long as the test likes."""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import signal
import struct
import termios
import uuid
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.conftest import CONFIG, start
from tests.support.lsp import change_document, open_document, rename_at, until
from tests.support.processes import stop_process

STUCK = ClientServerConfig(
    server_command=CONFIG.server_command,
    client_factory=CONFIG.client_factory,
    server_env={**os.environ, "REKS_ROPE_CANCEL_GRACE": "1"},
)


@pytest_lsp.fixture(config=STUCK)
async def impatient(lsp_client: LanguageClient, project: Path):
    """A session whose server kills a rope worker 1 s after a cancellation it ignores."""
    await start(lsp_client, project, client_capabilities("visual-studio-code"))
    yield
    await lsp_client.shutdown_session()


def rope_worker(client: LanguageClient) -> int | None:
    """The pid of the server's rope worker (None while there is none)."""
    return server_child(client, b"rope_process")


def server_child(client: LanguageClient, marker: bytes) -> int | None:
    """The pid of the server's child whose command line holds ``marker`` (None if none)."""
    server = client._server.pid  # type: ignore[union-attr]
    children: list[str] = []
    # Each thread's children are listed under that thread: the worker may be started from
    # any of the server's threads.
    for task in Path(f"/proc/{server}/task").glob("*"):
        try:
            children += (task / "children").read_text().split()
        except OSError:
            continue
    for child in children:
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if marker in command:
            return int(child)
    return None


def unread_bytes(pid: int) -> int:
    """Bytes its parent sent process ``pid`` that it has not read: the pipes it holds open
    for reading only (its own unread answers, in the pipes it writes to, do not count)."""
    total = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        if not os.readlink(fd).startswith("pipe:"):
            continue
        info = Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text()
        flags = int(re.search(r"^flags:\s*([0-7]+)", info, re.MULTILINE)[1], 8)  # type: ignore[index]
        if flags & os.O_ACCMODE != os.O_RDONLY:
            continue
        handle = os.open(fd, os.O_RDONLY | os.O_NONBLOCK)
        try:
            total += struct.unpack("i", fcntl.ioctl(handle, termios.FIONREAD, b"\0" * 4))[0]
        finally:
            os.close(handle)
    return total


async def sent_to_stopped(client: LanguageClient, worker: int, path: Path, msg_id: str):
    """Send a rename while ``worker`` is stopped; return once it waits in the worker's pipe
    (more unread bytes than before it was sent), as the future of its answer."""
    before = unread_bytes(worker)
    rename = send_rename(client, path, "twice", msg_id)
    await until(lambda: unread_bytes(worker) > before, "the rename sent to the worker", 120)
    return rename


async def started_worker(client: LanguageClient, util: Path) -> int:
    """The worker, once it has answered one rope request."""
    await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=types.TextDocumentIdentifier(uri=util.as_uri()),
            position=types.Position(4, 4),  # def double
        )
    )
    worker = rope_worker(client)
    assert worker is not None
    return worker


def send_rename(client: LanguageClient, path: Path, new_name: str, msg_id: str):
    params = types.RenameParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
        position=types.Position(4, 4),
        new_name=new_name,
    )
    return asyncio.wrap_future(
        client.protocol.send_request(types.TEXT_DOCUMENT_RENAME, params, msg_id=msg_id)
    )


async def test_cheap_requests_do_not_wait_for_a_busy_rope(vscode: LanguageClient, project: Path):
    util = project / "geometry/util.py"
    assert util.read_text().splitlines()[4].startswith("def double")
    open_document(vscode, util)
    worker = await started_worker(vscode, util)
    stop_process(worker)  # rope busy for as long as it takes
    try:
        rename = send_rename(vscode, util, "twice", str(uuid.uuid4()))
        change_document(vscode, util, 2, util.read_text())
        actions = await asyncio.wait_for(
            vscode.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=util.as_uri()),
                    range=types.Range(types.Position(4, 4), types.Position(4, 4)),
                    context=types.CodeActionContext(diagnostics=[]),
                )
            ),
            30,
        )
        assert any("Inline function `double`" in a.title for a in actions or [])
        assert not rename.done()  # the rename is still with the stopped worker
    finally:
        os.kill(worker, signal.SIGCONT)
    edit = await asyncio.wait_for(rename, 60)
    assert edit is not None


async def test_cancel_request_reaches_a_stuck_worker(impatient: LanguageClient, project: Path):
    util = project / "geometry/util.py"
    worker = await started_worker(impatient, util)
    stop_process(worker)  # rope stuck where it never checks for cancellation
    msg_id = str(uuid.uuid4())
    rename = await sent_to_stopped(impatient, worker, util, msg_id)
    impatient.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    with pytest.raises(Exception, match=r"(?i)cancel"):
        await asyncio.wait_for(rename, 60)
    # the worker did not stop the task within the grace period: it was replaced
    await until(lambda: rope_worker(impatient) != worker, "the stuck worker killed")
    edit = await rename_at(impatient, util, "def double", 4, "twice")
    assert edit is not None


async def test_a_dead_worker_is_an_error_then_a_new_worker(vscode: LanguageClient, project: Path):
    util = project / "geometry/util.py"
    worker = await started_worker(vscode, util)
    stop_process(worker)  # so that it dies with the rename in hand
    rename = await sent_to_stopped(vscode, worker, util, str(uuid.uuid4()))
    os.kill(worker, signal.SIGKILL)
    with pytest.raises(Exception, match="worker stopped"):
        await asyncio.wait_for(rename, 60)
    edit = await rename_at(vscode, util, "def double", 4, "twice")
    assert edit is not None
    await until(lambda: rope_worker(vscode) not in (None, worker), "a new rope worker")
