"""Standard input read whole messages at a time, on a thread of its own (issue 15).

pygls' stdio loop awaits every header line and every body as a separate task of a thread
pool: three hand-overs between the message loop and a pool thread per message, each
needing the interpreter lock and a wake-up of the loop. While other threads held the lock
(the opening burst: outlines, the first imports, the rope worker's buffers being sent),
each hand-over waited its turn, and a code action waited 30-130 ms before the server had
even read it. Here one thread reads message after message as soon as the client writes
them and hands each complete body to the loop in one call; the loop parses and handles it
exactly as pygls' loop does.

That thread is still blocked on the open stream when the client says ``exit``. Reading
through ``sys.stdin``'s buffered reader it held the reader's lock, and the interpreter,
closing ``sys.stdin`` at exit, waited a second for that lock and then aborted ("Fatal
Python error", SIGABRT): every stop of the server took a second and looked like a crash.
``RawLines`` reads the raw stream with a buffer of its own, a lock no one else takes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable
from typing import BinaryIO, Protocol

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.server import JsonRPCServer

log = logging.getLogger(__name__)

_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")  # as pygls reads it


class LineReader(Protocol):
    def readline(self) -> bytes: ...

    def read(self, size: int) -> bytes: ...


def read_message(stdin: LineReader) -> bytes | None:
    """The body of the next message (None at the end of the stream). Headers other than
    ``Content-Length`` are skipped; a blank line before any length is too, as pygls does."""
    length = 0
    while True:
        line = stdin.readline()
        if not line:
            return None
        if not length:
            match = _CONTENT_LENGTH.fullmatch(line)
            if match:
                length = int(match.group(1))
        if length and not line.strip():
            body = stdin.read(length)
            return body or None


class RawStream(Protocol):
    def read(self, size: int = -1, /) -> bytes | None: ...


class RawLines:
    """``readline`` and ``read`` over a raw (unbuffered) stream, buffered here: the thread
    that reads holds no lock of the interpreter's stream objects while it waits."""

    def __init__(self, raw: RawStream, chunk: int = 65536) -> None:
        self._raw = raw
        self._chunk = chunk
        self._buffer = bytearray()
        self._ended = False

    def _fill(self) -> bool:
        """Read one more chunk; False at the end of the stream."""
        if not self._ended:
            data = self._raw.read(self._chunk)
            self._ended = not data
            self._buffer += data or b""
        return not self._ended

    def _take(self, size: int) -> bytes:
        taken = bytes(self._buffer[:size])
        del self._buffer[:size]
        return taken

    def readline(self) -> bytes:
        while (end := self._buffer.find(b"\n")) < 0:
            if not self._fill():
                return self._take(len(self._buffer))
        return self._take(end + 1)

    def read(self, size: int) -> bytes:
        while len(self._buffer) < size and self._fill():
            pass
        return self._take(size)


Handle = Callable[[bytes, float], None]
"""Called on the message loop with each body and the ``time.monotonic()`` it was read at."""


async def serve_messages(stdin: LineReader, handle: Handle) -> None:
    """Read ``stdin`` on a thread, handing each message's body to ``handle`` on the running
    loop, until the stream ends."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def end() -> None:
        if not ended.done():
            ended.set_result(None)

    def read_all() -> None:
        try:
            while (body := read_message(stdin)) is not None:
                loop.call_soon_threadsafe(handle, body, time.monotonic())
        except (OSError, ValueError) as exc:  # a closed or broken stream ends the session
            log.error("reks: cannot read standard input: %s", exc)
        finally:
            # the loop may be closed already (the server exited on ``exit``)
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(end)

    threading.Thread(target=read_all, name="reks-stdin", daemon=True).start()
    await ended


def serve_stdio(server: JsonRPCServer, stdin: LineReader, stdout: BinaryIO) -> int:
    """pygls' ``start_io`` with this module's reader: serve until the stream ends or the
    client says ``exit``; a body that cannot be handled is logged and reported as pygls
    does, and the session goes on. Returns the process's exit code: what pygls' ``exit``
    gives (0 after ``shutdown``, else 1), 0 when the stream ended."""
    protocol = server.protocol
    server._stop_event = threading.Event()
    protocol.set_writer(StdoutWriter(stdout))
    receive = getattr(protocol, "receive", None)

    def handle(body: bytes, received: float) -> None:
        try:
            message = json.loads(body, object_hook=protocol.structure_message)
            if receive is not None:
                receive(message, received)
            else:
                protocol.handle_message(message)
        except Exception as exc:
            log.exception("Unable to handle message")
            server.report_server_error(exc, JsonRpcException)

    code = 0
    try:
        asyncio.run(serve_messages(stdin, handle))
    except BrokenPipeError:
        log.error("Connection to the client is lost! Shutting down the server.")
    except KeyboardInterrupt:
        pass
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        server.shutdown()
    return code
