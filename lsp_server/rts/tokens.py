"""Normalized token text of a Python file, sliced by position, and its digest.

Comments, blank lines, line continuations and indentation width are dropped, so
formatting-only edits change no checksum.
"""

from __future__ import annotations

import bisect
import io
import tokenize
from collections.abc import Iterable
from typing import Protocol

import xxhash


class Body(Protocol):
    """Where a function's body starts and ends (a ``units.UnitSpan``)."""

    @property
    def body_start(self) -> tuple[int, int]: ...

    @property
    def body_end(self) -> tuple[int, int]: ...


class SourceError(ValueError):
    """The source of a Python file cannot be tokenized or parsed."""


def normalized_tokens(source: str) -> list[tuple[tuple[int, int], str]]:
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
    out: list[tuple[tuple[int, int], str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in skip:
                continue
            if tok.type == tokenize.INDENT:
                text = "<indent>"
            elif tok.type == tokenize.DEDENT:
                text = "<dedent>"
            elif tok.type == tokenize.NEWLINE:
                text = "<newline>"
            else:
                text = tok.string
            out.append((tok.start, text))
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        raise SourceError(str(exc)) from exc
    return out


def digest(texts: Iterable[str]) -> str:
    # Same digest as feeding each text followed by NUL to a streaming hasher, in one call.
    data = "".join(text + "\x00" for text in texts)
    return xxhash.xxh3_64_hexdigest(data.encode("utf-8", "surrogatepass"))


Pos = tuple[int, int]

_LAYOUT = ("<dedent>", "<indent>")


class TokenText:
    """The normalized tokens of a file, sliced by position. Tokens are in position order:
    slices are found by bisection instead of scanning every token per function (quadratic
    on large modules)."""

    def __init__(self, tokens: list[tuple[tuple[int, int], str]]) -> None:
        self.positions = [pos for pos, _ in tokens]
        self.texts = [text for _, text in tokens]

    def between(
        self, start: tuple[int, int], end: tuple[int, int], holes: Iterable[Body]
    ) -> list[str]:
        """Tokens from ``start`` to ``end``, each hole's body replaced by a marker."""
        return self.without(start, end, [(h.body_start, h.body_end, "<body>") for h in holes])

    def without(self, start: Pos, end: Pos, holes: Iterable[tuple[Pos, Pos, str]]) -> list[str]:
        """Tokens from ``start`` to ``end`` except those of each (start, end, marker) hole,
        in position order, replaced by its marker (none when empty)."""
        positions, texts = self.positions, self.texts
        lo = bisect.bisect_left(positions, start)
        # The layout tokens on the first line (the dedents that close the statement before,
        # the indent that opens the block it is first in) belong to no statement: a method
        # put before another must not change the other's header.
        while lo < len(texts) and texts[lo] in _LAYOUT and positions[lo][0] == start[0]:
            lo += 1
        out: list[str] = []
        for hole_start, hole_end, marker in holes:
            out.extend(texts[lo : bisect.bisect_left(positions, hole_start)])
            lo = bisect.bisect_left(positions, hole_end)
            if marker:
                out.append(marker)
            else:  # a whole statement: its line end and dedents go too
                while lo < len(texts) and texts[lo] in ("<newline>", "<dedent>"):
                    lo += 1
        out.extend(texts[lo : bisect.bisect_left(positions, end)])
        return out
