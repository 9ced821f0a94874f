"""The client's first message, read while the server still imports its code.

An LSP client sends ``initialize`` as soon as it has started the server, and that message
names the workspace. Importing pygls and lsprotocol takes most of a second; meanwhile the
spare rope worker (``refactor.rope_spare``) has imported rope and waits. ``FirstMessage``
reads the first message on a thread, tells the spare worker the root it names
(``bind_early``: the worker opens the project and reads its files in the background), and
hands every byte it read, unchanged, to the server's standard input (``install``): the
server then reads the same stream it would have read.

Only the standard library is imported here: this runs before anything else.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse

MAX_FIRST_MESSAGE = 1 << 20
"""Bytes read at most while looking for the end of the first message; a longer one is
passed on without its root being looked at."""


def root_of_initialize(message: Any) -> str | None:
    """The workspace root an ``initialize`` request names (its first workspace folder,
    else ``rootUri``, else ``rootPath``), as a real path; None when it names none."""
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    folders = params.get("workspaceFolders")
    uri = None
    if isinstance(folders, list) and folders and isinstance(folders[0], dict):
        uri = folders[0].get("uri")
    uri = uri if isinstance(uri, str) else params.get("rootUri")
    if isinstance(uri, str):
        parsed = urlparse(uri)
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            return None
        path: Any = unquote(parsed.path)
    else:
        path = params.get("rootPath")
    if not isinstance(path, str) or not os.path.isabs(path) or not os.path.isdir(path):
        return None
    return os.path.realpath(path)


def _body_of_first(data: bytes) -> bytes | None:
    """The body of the first message in ``data`` once it is complete (None before)."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None
    length = None
    for line in data[:end].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = int(value.strip())
    if length is None:
        return b""  # not a header we understand: the server's reader will say so
    body = data[end + 4 : end + 4 + length]
    return body if len(body) == length else None


class _Replay(io.RawIOBase):
    """A raw reader that gives ``prefix`` first, then what file descriptor ``fd`` holds."""

    def __init__(self, fd: int, prefix: bytes) -> None:
        self._fd = fd
        self._prefix = memoryview(prefix)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._prefix:
            size = min(len(buffer), len(self._prefix))
            buffer[:size] = self._prefix[:size]
            self._prefix = self._prefix[size:]
            return size
        data = os.read(self._fd, len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def fileno(self) -> int:
        return self._fd


class FirstMessage:
    """Reads standard input up to the end of the first message on a thread of its own."""

    def __init__(self, on_root: Callable[[str], None], fd: int = 0) -> None:
        self._on_root = on_root
        self._fd = fd
        self._read = bytearray()
        self._thread = threading.Thread(target=self._run, name="reks-first-message", daemon=True)

    def start(self) -> FirstMessage:
        self._thread.start()
        return self

    def _run(self) -> None:
        body = None
        while body is None and len(self._read) < MAX_FIRST_MESSAGE:
            try:
                chunk = os.read(self._fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self._read += chunk
            body = _body_of_first(bytes(self._read))
        if not body:
            return
        try:
            root = root_of_initialize(json.loads(body))
        except (ValueError, UnicodeDecodeError):
            return  # the server's reader answers a malformed message
        if root is not None:
            self._on_root(root)

    def install(self) -> None:
        """Wait for the thread (it ends with the first message, or the end of input),
        then make ``sys.stdin`` read what it read, followed by the rest of the stream."""
        self._thread.join()
        raw = _Replay(self._fd, bytes(self._read))
        sys.stdin = io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8")


_started: FirstMessage | None = None


def read_first_message(on_root: Callable[[str], None]) -> None:
    """Start reading the first message of standard input (once per process)."""
    global _started
    if _started is None:
        _started = FirstMessage(on_root).start()


def install_first_message() -> None:
    """Hand what ``read_first_message`` read to ``sys.stdin`` (nothing when it never ran)."""
    global _started
    started, _started = _started, None
    if started is not None:
        started.install()
