"""A string literal's value and its spelling, kept apart: the value goes into the unit that
holds the literal, the spelling into the layout (``rts.layout_unit``).

Quotes, a ``u`` prefix, an escape written another way (``"\\u000A"`` as ``"\\u000a"``,
``b"\\x41"`` as ``b"A"``) make the same constant: no code can tell them apart but by
reading the source text (tomli b974fa13, a formatter lowering hex escapes in a module-level
table, reran the tests reading the table). So a unit's tokens hold each literal as the
``repr`` of its value, and the layout, which a test reading source text or line numbers
depends on, keeps what the value does not say: the prefix and quotes, and the whole literal
where it holds a backslash (two escapes may trade places with the value unchanged:
``"A\\x41"`` and ``"\\x41A"``). A literal without a backslash is its prefix, its quotes and
its value's characters as they are, so the two parts give the text back.
"""

from __future__ import annotations

import ast
import re

_PREFIX_LETTERS = frozenset("bBrRuUfFtT")
_ESCAPE = re.compile(
    r"\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|N\{[^}]*\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S
)
"""A backslash and what Python reads with it (one character where it knows no more)."""
_OCTAL = frozenset("01234567")
_SIMPLE_ESCAPES = frozenset("\n\\'\"abfnrtv")


def _prefix_length(token: str) -> int:
    size = 0
    while size < len(token) and token[size] in _PREFIX_LETTERS:
        size += 1
    return size


def _quote_length(token: str, start: int) -> int:
    return 3 if token[start : start + 3] in ('"""', "'''") else 1


def literal_value_text(token: str) -> str:
    """What a unit digests of the string token ``token``: the ``repr`` of its value; the
    token itself where it is no plain literal (an f-string before Python 3.12, which
    tokenizes it whole)."""
    start = _prefix_length(token)
    prefix = token[:start].lower()
    if "\\" not in token and prefix in ("", "u", "r"):
        quote = _quote_length(token, start)
        return repr(token[start + quote : len(token) - quote])  # the value as spelled
    if "r" not in prefix and _escapes_warn(token, "b" in prefix):
        return token  # its spelling warns at compile: an error under ``-W error``
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return token
    return repr(value) if isinstance(value, (str, bytes)) else token


def _escapes_warn(token: str, is_bytes: bool) -> bool:
    """Whether compiling the (not raw) literal ``token`` warns of an escape: one Python
    does not know (``"\\d"``, a ``\\u`` in bytes) or an octal one past ``\\377``. The
    same value spelled without the warning is another program under ``-W error``."""
    for match in _ESCAPE.finditer(token):
        escape = match.group(1)
        if escape[0] in _OCTAL:
            if int(escape, 8) > 0o377:
                return True
        elif escape[0] in "NuU":
            if is_bytes:
                return True
        elif escape[0] != "x" and escape not in _SIMPLE_ESCAPES:
            return True
    return False


def literal_spelling(token: str) -> str:
    """What the layout keeps of the string token ``token``: its prefix and quotes, the
    whole token where it holds a backslash. Its line breaks are the caller's to keep."""
    if "\\" in token:
        return token
    start = _prefix_length(token)
    return token[: start + _quote_length(token, start)]
