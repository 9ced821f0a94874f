"""What a transformation's run executed, recorded in its forked child and read by the
worker: the units whose code the transformed run of the tests reached.

A transformed run can take another path than the original run of the same tests, so the
units the original run executed do not say which edits can change the verdict; these do.
The child appends each unit to a file shared with the worker the first time it runs, so a
child killed at its timeout (or crashed) still leaves the record of what it ran.
"""

from __future__ import annotations

import os
import sys
import tempfile

from lsp_server.extreme.execution_recorder import Recorder


class RunLog:
    """Kept by a pytest worker; ``start`` in each child, ``take`` in the worker after it."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self.recorder = Recorder(self.root, returns=False, sink=self._write)
        # Appending: the child's writes land at the end whatever offset the shared file
        # description was left at (the worker empties the file between children).
        self._fd = _private_log()

    def reopen(self) -> None:
        """A log of its own (in a worker forked from the one that made this log)."""
        os.close(self._fd)
        self._fd = _private_log()

    def prewarm(self) -> None:
        """Map the file of every imported module once, before forking: the project's are
        parsed, the others known to be outside it. Every child inherits the map instead of
        parsing the project's files again and resolving the path of each other file its
        code comes from (pytest's, the standard library's: ~50 paths, 2.5 ms a child)."""
        names = [getattr(module, "__file__", None) for module in list(sys.modules.values())]
        self.recorder.prewarm([name for name in names if isinstance(name, str)])

    def forget(self, paths: set[str]) -> None:
        """``paths`` (real paths) were edited and followed in the live functions."""
        self.recorder.forget(paths)

    def start(self) -> None:
        """In the child, after the transformation is installed."""
        self.recorder.current = set()
        self.recorder.start()

    def _write(self, unit: str) -> None:
        os.write(self._fd, (unit + "\n").encode("utf-8", "surrogateescape"))

    def take(self) -> list[str]:
        """In the worker, after the child ended: what it ran (and the log emptied)."""
        size = os.fstat(self._fd).st_size
        data = os.pread(self._fd, size, 0) if size else b""
        os.ftruncate(self._fd, 0)
        lines = data.decode("utf-8", "surrogateescape").split("\n")
        return sorted({line for line in lines if line})


def _private_log() -> int:
    """An unnamed file open for appending."""
    fd, path = tempfile.mkstemp(prefix="reks-run-")
    os.close(fd)
    appending = os.open(path, os.O_RDWR | os.O_APPEND)
    os.unlink(path)
    return appending
