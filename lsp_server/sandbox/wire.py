"""The one wire format between reks and the processes it starts: length-prefixed JSON.

A frame is an 8-byte big-endian length followed by that many bytes of UTF-8 JSON. Frames
are read with a deadline (``select`` before every read), so a peer that stops writing in
the middle of a frame is a timeout, and a peer that dies is a ``ChannelClosed``, never a
hang. Plain file descriptors, no buffering of our own beyond one frame's bytes.
"""

from __future__ import annotations

import errno
import json
import os
import select
import struct
import threading
import time
from typing import Any

_HEADER = struct.Struct(">Q")
_CHUNK = 1 << 16


class ChannelError(Exception):
    """The peer sent something that is not a frame of JSON."""


class ChannelClosed(ChannelError, EOFError):
    """The peer closed its end (it exited or died) before a whole frame arrived."""


class ChannelTimeout(ChannelError, TimeoutError):
    """No whole frame arrived in time (what arrived so far is kept for the next read)."""


def encode(message: Any) -> bytes:
    """One frame holding ``message`` (raises ``TypeError`` when it is not JSON data)."""
    data = json.dumps(message, separators=(",", ":")).encode()
    return _HEADER.pack(len(data)) + data


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class FrameReader:
    """Reads frames from ``fd``, keeping a partial frame across timeouts."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = bytearray()

    def has_frame(self) -> bool:
        """A whole frame is buffered (``select`` on the fd would not show it)."""
        if len(self._buffer) < _HEADER.size:
            return False
        (size,) = _HEADER.unpack_from(self._buffer)
        return len(self._buffer) >= _HEADER.size + size

    def _take(self) -> Any:
        (size,) = _HEADER.unpack_from(self._buffer)
        end = _HEADER.size + size
        data = bytes(self._buffer[_HEADER.size : end])
        del self._buffer[:end]
        try:
            return json.loads(data)
        except ValueError as exc:
            raise ChannelError(f"unreadable frame: {exc}") from exc

    def read(self, timeout: float | None = None) -> Any:
        """The next message; ``timeout`` None waits as long as the peer lives."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.has_frame():
            fd = self.fd
            try:
                left = None if deadline is None else deadline - time.monotonic()
                ready = left is None or (left > 0 and select.select([fd], [], [], left)[0])
                chunk = os.read(fd, _CHUNK) if ready else None
            except (OSError, ValueError) as exc:
                # closed by its owner (``Channel.close``: -1) before or while this read
                # waited: the end of the channel, as when the peer exits
                if fd >= 0 and self.fd == fd and isinstance(exc, OSError):
                    raise
                raise ChannelClosed("the channel was closed") from exc
            if chunk is None:
                raise ChannelTimeout(f"no message within {timeout:.2f} s")
            if not chunk:
                partial = f" ({len(self._buffer)} bytes of a frame)" if self._buffer else ""
                raise ChannelClosed(f"the other end closed the channel{partial}")
            self._buffer += chunk
        return self._take()


class Channel:
    """Both directions between two processes: ``send`` frames out, ``receive`` them in."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.reader = FrameReader(read_fd)
        self.write_fd = write_fd
        self._closing = threading.Lock()
        """Taken to give up a descriptor: a reader thread and its owner may close one
        channel at the same moment, and closing a descriptor number twice closes the file
        that was given that number in between."""

    def fileno(self) -> int:
        return self.reader.fd

    def send(self, message: Any) -> None:
        """Send one frame; an ``OSError`` (EBADF) once the sending end is closed. The
        frame goes to a duplicate of the descriptor taken under the closing lock: another
        thread may close the channel while this one encodes or writes, and the number it
        frees may go to the next process's pipe at once, which must not get this frame."""
        frame = encode(message)
        with self._closing:
            if self.write_fd < 0:
                raise OSError(errno.EBADF, "the channel's sending end is closed")
            fd = os.dup(self.write_fd)
        try:
            write_all(fd, frame)
        finally:
            os.close(fd)

    def receive(self, timeout: float | None = None) -> Any:
        return self.reader.read(timeout)

    def close_sending(self) -> None:
        """Close the sending end: the peer reads end-of-file (its cue to finish)."""
        with self._closing:
            fd, self.write_fd = self.write_fd, -1
        if fd >= 0:
            os.close(fd)

    def close(self) -> None:
        self.close_sending()
        with self._closing:
            fd, self.reader.fd = self.reader.fd, -1
        if fd >= 0:
            os.close(fd)
