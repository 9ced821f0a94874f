"""The layout checksums of a Python file: what a test reading line numbers or source text
(``lookups.LINE_READS``) sees of it besides its units.

Unit checksums skip comments, blank lines and the whitespace between tokens, yet a comment
or a blank line above a function moves its ``co_firstlineno`` and the line of a warning it
raises, and a comment inside it shows in ``inspect.getsource``. The layout is the raw text
with each name, number and string (the text of an f-string) cut down to a placeholder that
keeps its line breaks (a string literal keeps what its value does not say, its prefix and
quotes or, holding a backslash, its whole text: ``rts.string_spelling``): every line break,
comment, space and operator stays. So the layout with the units' tokens gives the raw text
back, while an edit that only renames or changes a literal (which its own unit tells)
leaves the layout alone.

Two kinds of units carry it (``unit_names``): the file's ``LAYOUT`` (its whole layout:
what a module's code and class bodies are placed by) and each function's ``LINES`` unit
(its first line and the layout of its own lines, the comments after its last statement
with them: all that places its code objects, its frames and what it raises, and that
shows in its source). A line added above a function
changes the ``LINES`` units of the functions below it only.

Each has a twin without the text of comments (``PLACES``, ``PLACED``): the same lines with
every comment cut and trailing spaces dropped, so a comment-only or blank line stays a line
(what follows keeps its number) but its text is gone. That is what a test reading only
line numbers and columns sees (frames, code objects, warnings, ``e.lineno``); a test
reading source text (``inspect.getsource``, ``linecache``, a formatted traceback) sees the
comments too and depends on the ``LAYOUT``/``LINES`` units (``rts.position_units``).
Comments on the first two lines stay in the places: an encoding declaration there changes
how the file decodes (tomli 871f2c1: a ``# noqa`` dropped off a ``def`` line reran every
test reading ``TOMLDecodeError.lineno``).
"""

from __future__ import annotations

import io
import token
import tokenize
from collections.abc import Iterable

from lsp_server.rts.spans import UnitSpan
from lsp_server.rts.string_spelling import literal_spelling
from lsp_server.rts.tokens import RawToken, digest
from lsp_server.rts.unit_names import LAYOUT, PLACES, lines_name, places_name

_CUT = frozenset(
    [token.NAME, token.NUMBER, token.STRING, getattr(token, "FSTRING_MIDDLE", token.STRING)]
)
_PLACEHOLDER = "\x01"


def layout_checksum(source: str) -> str:
    """The digest of ``source``'s layout; of its whole text when it does not tokenize."""
    return digest(_layout_lines(source) or [source])


def layout_checksums(
    source: str, spans: Iterable[UnitSpan], raw: list[RawToken] | None = None
) -> dict[str, str]:
    """The ``LAYOUT`` and ``PLACES`` checksums of ``source`` and the ``LINES`` and
    ``PLACED`` checksums of each function of ``spans`` (all the definitions of a name
    together: a redefinition, ``@overload`` stubs). Where ``source`` does not tokenize,
    each covers the whole text. ``raw``: the tokens of ``source``, when known."""
    tokens = _tokens(source) if raw is None else _cut(raw)
    lines, uncommented = ([], []) if tokens is None else _layouts(source, tokens)
    if tokens is None or not lines:
        whole = digest([source])
        names = [LAYOUT, PLACES, *(f(span.name) for span in spans for f in _FUNCTION_NAMES)]
        return dict.fromkeys(names, whole)
    places = [line.rstrip() for line in uncommented]
    texts: dict[str, list[str]] = {}
    for span in spans:
        def_line = lines[span.def_line - 1]
        indent = len(def_line) - len(def_line.lstrip())
        last = _trailing_comments_end(lines, span.last_line, indent)
        texts.setdefault(lines_name(span.name), []).extend(
            [f"@{span.first_line}", *lines[span.first_line - 1 : last]]
        )
        texts.setdefault(places_name(span.name), []).extend(
            [f"@{span.first_line}", *places[span.first_line - 1 : span.last_line]]
        )
    whole_file = {LAYOUT: digest(lines), PLACES: digest(places)}
    return {**whole_file, **{name: digest(text) for name, text in texts.items()}}


_FUNCTION_NAMES = (lines_name, places_name)


def _trailing_comments_end(lines: list[str], last: int, indent: int) -> int:
    """The last line of the comments indented past ``indent`` (its ``def`` line's) that
    follow a function's last line ``last`` before the next code, other lines between them:
    ``inspect.getsource`` shows those (from its body's column on)."""
    end = last
    for number in range(last + 1, len(lines) + 1):
        line = lines[number - 1]
        text = line.strip()
        if text and not text.startswith("#"):
            break  # the next code
        if text and len(line) - len(line.lstrip()) > indent:
            end = number
    return end


def _layout_lines(source: str) -> list[str]:
    """The layout of ``source``, line by line (line ``n`` at index ``n - 1``); empty when
    it does not tokenize."""
    tokens = _tokens(source)
    return [] if tokens is None else _layouts(source, tokens)[0]


_KEPT = frozenset([*_CUT, token.COMMENT])


def _tokens(source: str) -> list[RawToken] | None:
    """The tokens of ``source`` the layouts cut (``_CUT``, comments); None when it does not
    tokenize."""
    try:
        return _cut(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndexError):
        return None


def _cut(tokens: Iterable[RawToken]) -> list[RawToken]:
    """Those of ``tokens`` the layouts cut (``_CUT``, comments)."""
    kept = _KEPT
    return [t for t in tokens if t[0] in kept]


def _layouts(source: str, tokens: list[RawToken]) -> tuple[list[str], list[str]]:
    """The layout of ``source`` from its ``tokens`` (``_tokens``), line by line: with its
    comments, and without those below its second line (in one pass over the tokens)."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    pieces: list[str] = []  # with the comments
    cut: list[str] = []  # without
    done = done_cut = 0
    for kind, string, start, end_at, _ in tokens:
        begin = starts[start[0] - 1] + start[1]
        end = starts[end_at[0] - 1] + end_at[1]
        if kind == token.COMMENT:  # kept as it is, or cut (one line, no break inside)
            if start[0] > 2:
                cut.append(source[done_cut:begin])
                done_cut = end
            continue
        breaks = "\n" * (end_at[0] - start[0])
        if kind == token.STRING:  # what its value does not say: ``rts.string_spelling``
            spelling = literal_spelling(string)
            breaks = "" if "\n" in spelling else breaks  # a whole token keeps its own
            placeholder = _PLACEHOLDER + spelling + breaks
        else:
            placeholder = _PLACEHOLDER + breaks
        pieces += (source[done:begin], placeholder)
        cut += (source[done_cut:begin], placeholder)
        done = done_cut = end
    pieces.append(source[done:])
    cut.append(source[done_cut:])
    return "".join(pieces).splitlines(keepends=True), "".join(cut).splitlines(keepends=True)
