"""File contents by path, read once while a file is unchanged on disk.

A rename reads every file of the project to look for the old name; a stat is much cheaper
than a read, so a warm workspace (``refactor.workspace``) re-reads only what changed, and
decodes each file once, in its own encoding.
"""

from __future__ import annotations

import os
import threading


class FileCache:
    """File contents by path, valid while size and modification time stay the same.

    A rename reads every file of the project to look for the name; a stat is much cheaper
    than a read, so a warm project re-reads only what changed.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[int, int, bytes]] = {}
        self._decoded: dict[str, tuple[str | None, str | None]] = {}
        """path -> (text, why it cannot be decoded), for the bytes in ``_entries``."""

    def _stat(self, path: str) -> tuple[int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def read_bytes(self, path: str) -> bytes:
        key = self._stat(path)
        with self._lock:
            entry = self._entries.get(path)
        if key is not None and entry is not None and entry[:2] == key:
            return entry[2]
        with open(path, "rb") as handle:
            data = handle.read()
        if key is not None:
            with self._lock:
                self._entries[path] = (key[0], key[1], data)
                self._decoded.pop(path, None)
        return data

    def read_text(self, path: str) -> str | None:
        """The file's text decoded in its own encoding (PEP 263 coding line, BOM); None
        when it does not exist or is in no encoding Python accepts (``decode_problem``)."""
        key = self._stat(path)
        if key is None:
            return None
        with self._lock:
            entry = self._entries.get(path)
            if entry is not None and entry[:2] == key and path in self._decoded:
                return self._decoded[path][0]
        try:
            data = self.read_bytes(path)
        except OSError:
            return None
        from lsp_server.rts.units import tokenize_decode

        text: str | None
        try:
            text, problem = tokenize_decode(data), None
        except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
            text, problem = None, _decode_problem(exc)
        with self._lock:
            self._entries[path] = (key[0], key[1], data)
            self._decoded[path] = (text, problem)
        return text

    def decode_problem(self, path: str) -> str | None:
        """Why ``path``'s bytes cannot be decoded as Python source (None when they can or
        the file cannot be read)."""
        if self.read_text(path) is not None:
            return None
        with self._lock:
            return self._decoded.get(path, (None, None))[1]


def _decode_problem(exc: Exception) -> str:
    # tokenize says "invalid or missing encoding declaration" for bytes that are not UTF-8
    # in the first two lines, and raises UnicodeDecodeError for the same further down.
    if isinstance(exc, UnicodeDecodeError) or "invalid or missing" in str(exc):
        return "not valid UTF-8, and no PEP 263 coding line names the encoding it is in"
    return f"cannot be decoded: {exc}"
