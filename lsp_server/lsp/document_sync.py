"""An editor's incremental change applied to pygls' copy of the document, in C.

pygls applies a ``didChange`` on the message loop by splitting the whole document into
lines and writing each into a buffer in a Python loop: 15 ms for a change of one line of
a 30,000-line module, on the loop, for every keystroke, while code actions wait (issue 15
item 1). ``apply_change`` makes the same edit with the same result by slicing the text
at the offsets of the two lines the range names (found by C string methods, from the
nearer end); the range is converted by the document's own position codec. A document
with line breaks other than ``\\n`` (pygls splits at ``\\r``, form feeds, ``\\u2028``...) is
split as pygls splits it; ranges pygls treats in its own odd way (an end before the
start) are left to pygls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

from lsprotocol import types
from pygls.workspace import TextDocument

from lsp_server.project.text import line_start

_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
"""Line breaks of ``str.splitlines`` (pygls' lines) other than ``\\n`` (one ``in`` each:
a regular expression of them takes 40 times as long)."""


def _line_offset(text: str, line: int, count: int) -> int:
    """Offset of 0-based ``line`` of ``text`` (``count`` lines, ``\\n`` the only break;
    ``count`` for the end), split off from the nearer end: one C call, no Python loop."""
    if line <= 0:
        return 0
    if line >= count:
        return len(text)
    if line <= count - line:
        return line_start(text, line) or 0
    newlines_after = count - line - (not text.endswith("\n"))  # from the line's start on
    return len(text.rsplit("\n", newlines_after + 1)[0]) + 1


class _NewlineLines(Sequence[str]):
    """The lines of a text broken at ``\\n`` only, as ``splitlines(True)`` gives them,
    made only when the position codec looks one up."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.total = text.count("\n") + (bool(text) and not text.endswith("\n"))
        self._offsets: dict[int, int] = {}

    def __len__(self) -> int:
        return self.total

    def offset(self, line: int) -> int:
        """Where 0-based ``line`` starts (the end of the text past the last line); the
        start of the line after one already found is looked for from there."""
        known = self._offsets.get(line)
        if known is None:
            before = self._offsets.get(line - 1)
            if before is not None and 0 < line < self.total:
                known = self.text.index("\n", before) + 1
            else:
                known = _line_offset(self.text, line, self.total)
            self._offsets[line] = known
        return known

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return self.text.splitlines(True)[index]
        if index < 0:
            index += self.total
        if not 0 <= index < self.total:
            raise IndexError(index)
        return self.text[self.offset(index) : self.offset(index + 1)]


class _SplitLines(list[str]):
    """pygls' own lines of a text with other line breaks, with their offsets."""

    def offset(self, line: int) -> int:
        return sum(map(len, self[:line]))


def apply_change(document: TextDocument, change: types.TextDocumentContentChangeEvent) -> None:
    """Apply ``change`` to ``document`` exactly as ``TextDocument.apply_change`` does."""
    if not isinstance(change, types.TextDocumentContentChangePartial) or not getattr(
        document, "_is_sync_kind_incremental", False
    ):
        document.apply_change(change)
        return
    source = document.source
    lines: _NewlineLines | _SplitLines
    if any(other in source for other in _OTHER_BREAKS):
        lines = _SplitLines(source.splitlines(True))
    else:
        lines = _NewlineLines(source)
    if not len(lines):
        document._source = source + change.text  # pygls: an edit past the last line
        return
    where = document.position_codec.range_from_client_units(lines, change.range)
    first, last = where.start.line, where.end.line
    if last < first:
        document.apply_change(change)
        return
    # pygls keeps the start line up to the start column and the end line from the end
    # column; a column past a line's end takes (or leaves) that whole line.
    start, end = lines.offset(first), lines.offset(last)
    start += min(where.start.character, lines.offset(first + 1) - start)
    end += min(where.end.character, lines.offset(last + 1) - end)
    document._source = source[:start] + change.text + source[end:]
