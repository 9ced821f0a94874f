"""Text helpers every package shares: line tables, identifiers at offsets, atomic writes."""

from __future__ import annotations

import ast
import contextlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any


def line_starts(text: str) -> list[int]:
    """Offset of the first character of each line (``\\n``-separated) of ``text``."""
    starts = [0]
    find = text.find
    index = find("\n")
    while index >= 0:
        starts.append(index + 1)
        index = find("\n", index + 1)
    return starts


def line_start(text: str, line: int) -> int | None:
    """Offset where 0-based ``line`` of ``text`` starts (None past the last line).

    One split in C, not a ``find`` per line in Python: a code action at line 20,000 of a
    long module took milliseconds of the interpreter lock that way, twice, while the
    server answered the other requests of a burst (issue 15 item 1's p99)."""
    if line <= 0:
        return 0
    rest = text.split("\n", line)
    if len(rest) <= line:
        return None
    return len(text) - len(rest[-1])


def offset_of(starts: list[int], line: int, column: int) -> int:
    """Offset of 1-based ``line`` and 0-based ``column`` (as ``ast`` and ``tokenize`` give)."""
    return starts[line - 1] + column


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def identifier_span(text: str, offset: int) -> tuple[int, int]:
    """Start and end of the identifier around ``offset`` (equal when there is none)."""
    start = offset
    while start > 0 and _is_word(text[start - 1]):
        start -= 1
    end = offset
    while end < len(text) and _is_word(text[end]):
        end += 1
    return start, end


def identifier_at(text: str, offset: int) -> str:
    """The identifier around ``offset`` (empty when there is none)."""
    start, end = identifier_span(text, offset)
    return text[start:end]


def write_atomic(path: str | Path, text: str | bytes) -> None:
    """Write ``text`` (or bytes) all at once: a reader, or a killed run, never sees half a
    file, and no temporary file stays behind."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".reks-", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; a report is not
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as binary:
                binary.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json_atomic(path: str | Path, data: Any, indent: int | None = None) -> None:
    write_atomic(path, json.dumps(data, indent=indent, ensure_ascii=False) + "\n")


def parse_python(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` without the compiler's warnings (invalid escapes and the like): Python
    shows a project's own warnings when it imports the module, with its file name; parsing
    it again for analysis must not repeat them as ``<unknown>:LINE``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(source, filename)
