"""Normalized token text of a Python file, sliced by position, and its digest.

Comments, blank lines, line continuations, indentation width and punctuation that only
layout puts there (trailing commas, a from-import's parentheses) are dropped, and a string
literal stands for its value (``rts.string_spelling``), so formatting-only edits change no
checksum.
"""

from __future__ import annotations

import bisect
import io
import itertools
import re
import sys
import tokenize
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import xxhash

from lsp_server.rts.layout_punctuation import layout_punctuation
from lsp_server.rts.string_spelling import literal_value_text

# The C tokenizer behind ``tokenize.generate_tokens`` (3.12+), which takes a readline.
_TokenizerIter: Any = None
if sys.version_info >= (3, 12):
    import _tokenize

    _TokenizerIter = getattr(_tokenize, "TokenizerIter", None)


class Body(Protocol):
    """Where a function's body starts and ends (a ``units.UnitSpan``)."""

    @property
    def body_start(self) -> tuple[int, int]: ...

    @property
    def body_end(self) -> tuple[int, int]: ...


class SourceError(ValueError):
    """The source of a Python file cannot be tokenized or parsed."""


def _raw_tokens(source: str) -> Iterator[tuple[int, str, tuple[int, int], Any, Any]]:
    """(type, string, start, end, line) of every token, as ``tokenize.generate_tokens``
    gives them. On 3.12+ straight from the C tokenizer it wraps: making a ``TokenInfo`` of
    each token and the generator around it took half of the tokenizing, a tenth of
    analysing a file."""
    readline = io.StringIO(source).readline
    if _TokenizerIter is not None:
        return iter(_TokenizerIter(readline, extra_tokens=True))
    return _unterminated_strings_raise(tokenize.generate_tokens(readline))


def _unterminated_strings_raise(tokens: Iterator[Any]) -> Iterator[Any]:
    """Before 3.12 an unterminated string is an error token (its quote) where 3.12 raises;
    other error tokens stay (3.11 gives one for a combining mark in a valid name)."""
    for token in tokens:
        if token[0] == tokenize.ERRORTOKEN and token[1] in ("'", '"'):
            raise SourceError(f"unterminated string at line {token[2][0]}")
        yield token


RawToken = tuple[int, str, tuple[int, int], tuple[int, int], str]
"""(type, string, start, end, line) of a token, as ``tokenize.generate_tokens`` gives it."""


def source_tokens(source: str) -> list[RawToken]:
    """Every token of ``source`` (``_raw_tokens``); ``SourceError`` if it does not
    tokenize. A file's analysis tokenizes it once: its units' checksums and its layout's
    (``rts.layout_unit``) are both made from these."""
    try:
        return list(_raw_tokens(source))
    except (tokenize.TokenError, SyntaxError) as exc:  # IndentationError included
        raise SourceError(str(exc)) from exc


def normalized_tokens(
    source: str, raw: list[RawToken] | None = None
) -> list[tuple[tuple[int, int], str]]:
    """The normalized tokens of ``source`` (from its tokens ``raw``, when given)."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
    markers = {tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>"}
    markers[tokenize.NEWLINE] = "<newline>"
    out: list[tuple[tuple[int, int], str]] = []
    kinds: list[int] = []
    append, append_kind = out.append, kinds.append
    for kind, string, start, _, _ in source_tokens(source) if raw is None else raw:
        if kind == tokenize.STRING:
            # Its value: a literal spelled otherwise is layout (``rts.string_spelling``).
            append((start, literal_value_text(string)))
            append_kind(kind)
        elif kind not in skip:
            append((start, markers.get(kind, string)))
            append_kind(kind)
    return without_layout_punctuation(out, kinds)


def without_layout_punctuation(
    tokens: list[tuple[tuple[int, int], str]], kinds: list[int]
) -> list[tuple[tuple[int, int], str]]:
    """``tokens`` (with their ``tokenize`` kinds) less the punctuation only layout puts
    there (``rts.layout_punctuation``): reformatting by black or isort changes no checksum."""
    drop = layout_punctuation([text for _, text in tokens], kinds)
    if not drop:
        return tokens
    return [token for i, token in enumerate(tokens) if i not in drop]


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

    def lines_spelling(self, names: frozenset[str]) -> list[int]:
        """The lines holding a token that is one of ``names`` (a name, or a piece of an
        f-string): a pass over the tokens costs a fraction of a walk over the tree."""
        pairs = zip(self.positions, self.texts, strict=True)
        return [pos[0] for pos, text in pairs if text in names]

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
            upto = bisect.bisect_left(positions, hole_start)
            if not marker:
                # The dedents at a whole statement's start close the block before it.
                while (
                    upto < len(texts)
                    and texts[upto] == "<dedent>"
                    and positions[upto] == hole_start
                ):
                    upto += 1
            out.extend(texts[lo:upto])
            lo = max(upto, bisect.bisect_left(positions, hole_end))
            if marker:
                out.append(marker)
            else:  # a whole statement: its line end and dedents go too
                while lo < len(texts) and texts[lo] in ("<newline>", "<dedent>"):
                    lo += 1
        out.extend(texts[lo : bisect.bisect_left(positions, end)])
        return out


_DOTTED = re.compile(r"\.\s*([A-Za-z_]\w*)")


def attribute_names(text: TokenText) -> frozenset[str]:
    """Every identifier the code spells after a dot (``x.attr``, the two maybe on lines of
    their own inside brackets), and every one a string or number token holds after a dot
    (a dotted name a lookup by string takes: over-approximated). Comments spell none: a
    sentence ending above a line that starts with a name (click's ``_termui_impl.py``)
    made that name an attribute, and every read of it a read anywhere."""
    texts = text.texts
    pairs = itertools.pairwise(texts)
    found = {after for dot, after in pairs if dot == "." and after.isidentifier()}
    for token in texts:  # ``_DOTTED`` finds none in a token without a dot
        if "." in token and token != "." and not token.isidentifier():
            found.update(_DOTTED.findall(token))
    return frozenset(found)
