"""Punctuation that only layout puts there, found in a file's tokens so checksums skip it.

Formatters add and remove it: black's magic trailing comma explodes ``f(a, b)`` into one
argument a line ending in ``b,``; isort wraps a long from-import in parentheses. Dropped:

- a comma right before a closing bracket when another comma separates elements in that
  bracket (``(a, b,)`` is ``(a, b)`` whatever the bracket is);
- with one element, that comma in a call's or definition's parentheses (the bracket follows
  a name that is no keyword, or a closing ``)``/``]``), in a list display (``[`` follows
  an operator or a keyword) and in a set or dict display (``{`` outside f-strings);
- the parentheses of a from-import, and a comma before its closing one.

Kept: the comma of a one-element tuple (``(a,)``) or subscript (``y[a,]``), any
punctuation inside an f-string's replacement fields (``f"{a,=}"`` prints its source), and
commas between a lambda's parameters, which separate no elements (``(lambda a, b: 0,)``
is a one-element tuple). Soft keywords count as keywords and names alike: ``match [a,]``
is a list or a subscript.
"""

from __future__ import annotations

import keyword
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

_FSTRING_STARTS = frozenset(
    getattr(tokenize, name)
    for name in ("FSTRING_START", "TSTRING_START")
    if hasattr(tokenize, name)
)
_FSTRING_ENDS = frozenset(
    getattr(tokenize, name) for name in ("FSTRING_END", "TSTRING_END") if hasattr(tokenize, name)
)
_OPENERS = frozenset("([{")
_CLOSERS = frozenset(")]}")
# Names before a bracket that make it no call and no subscript. True, False and None are
# keywords before which a bracket calls or subscripts (and fails): left out, not guessed.
_HARD_KEYWORDS = frozenset(keyword.kwlist) - {"True", "False", "None"}
_SOFT_KEYWORDS = frozenset(keyword.softkwlist)


@dataclass
class _Bracket:
    opener: int
    """Index of the opening token."""
    in_fstring: bool
    commas: int = 0
    """Commas separating elements at this bracket's level (a lambda's parameters not)."""
    open_lambdas: int = 0
    """Lambdas at this level whose parameters' ``:`` is still to come."""


def layout_punctuation(texts: Sequence[str], kinds: Sequence[int]) -> set[int]:
    """Indices of the tokens (``texts`` with their ``tokenize`` kinds) that only layout
    puts there."""
    if not _has_candidates(texts):
        return set()
    drop: set[int] = set()
    stack: list[_Bracket] = []
    fstrings = 0
    for i, (text, kind) in enumerate(zip(texts, kinds, strict=True)):
        if kind in _FSTRING_STARTS:
            fstrings += 1
        elif kind in _FSTRING_ENDS:
            fstrings -= 1
        elif kind != tokenize.OP and text != "lambda":
            continue
        elif text == "lambda":
            if stack:
                stack[-1].open_lambdas += 1
        elif text in _OPENERS:
            stack.append(_Bracket(i, fstrings > 0))
        elif text == "," and stack:
            if stack[-1].open_lambdas == 0:
                stack[-1].commas += 1
        elif text == ":" and stack and stack[-1].open_lambdas:
            stack[-1].open_lambdas -= 1
        elif text in _CLOSERS and stack:
            bracket = stack.pop()
            if not bracket.in_fstring:
                drop |= _dropped_at_close(texts, kinds, bracket, i)
    return drop


def _has_candidates(texts: Sequence[str]) -> bool:
    """A comma right before a closing bracket, or a parenthesized import: most files have
    neither, and skip the pass over their brackets."""
    previous = ""
    for text in texts:
        if (text in _CLOSERS and previous == ",") or (text == "(" and previous == "import"):
            return True
        previous = text
    return False


def _dropped_at_close(
    texts: Sequence[str], kinds: Sequence[int], bracket: _Bracket, close: int
) -> set[int]:
    opener = bracket.opener
    before = opener - 1
    trailing = close - 1 > opener and texts[close - 1] == "," and kinds[close - 1] == tokenize.OP
    if texts[opener] == "(" and before >= 0 and texts[before] == "import":
        # ``from m import (a, b,)``: ``import`` is a keyword, never a name here.
        return {opener, close} | ({close - 1} if trailing else set())
    if not trailing:
        return set()
    if bracket.commas >= 2 or _one_element_needs_no_comma(texts, kinds, opener):
        return {close - 1}
    return set()


def _one_element_needs_no_comma(texts: Sequence[str], kinds: Sequence[int], opener: int) -> bool:
    bracket = texts[opener]
    if bracket == "{":
        return True
    previous = texts[opener - 1] if opener > 0 else ""
    previous_kind = kinds[opener - 1] if opener > 0 else tokenize.NEWLINE
    after_value = previous in (")", "]") or (
        previous_kind == tokenize.NAME
        and previous not in _HARD_KEYWORDS
        and previous not in _SOFT_KEYWORDS
    )
    if bracket == "(":
        return after_value
    # ``[``: a display after an operator, a keyword or a statement's start; after anything
    # else (a name, a string, a closing bracket, a soft keyword) a subscript.
    if previous_kind == tokenize.OP:
        return previous not in _CLOSERS
    if previous_kind == tokenize.NAME:
        return previous in _HARD_KEYWORDS
    return previous_kind in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
