"""Whose code an audit event comes from: the frames above the event's caller, read for the
files they run (the import system reading a source or listing a folder is no read by the
test: ``rts.source_file_reads``, ``rts.directory_listings``)."""

from __future__ import annotations

from types import FrameType


def runs_code_of(
    frame: FrameType | None, depth: int, prefixes: tuple[str, ...], parts: tuple[str, ...]
) -> bool:
    """Whether ``frame`` or one of the ``depth - 1`` frames above it runs code of a file
    whose name starts with one of ``prefixes`` (``<frozen importlib``) or holds one of
    ``parts``."""
    for _ in range(depth):
        if frame is None:
            return False
        filename = frame.f_code.co_filename
        if filename.startswith(prefixes) or any(part in filename for part in parts):
            return True
        frame = frame.f_back
    return False
