"""``tokens.normalized_tokens`` reads the C tokenizer directly on 3.12+: it must give what
``tokenize.generate_tokens`` gives, normalized, on real code, and refuse what it refuses."""

from __future__ import annotations

import ast
import io
import sysconfig
import tokenize
from pathlib import Path

import pytest

from lsp_server.rts.lookups import DYNAMIC_NAMES
from lsp_server.rts.spans import scan
from lsp_server.rts.string_spelling import literal_value_text
from lsp_server.rts.tokens import (
    SourceError,
    TokenText,
    normalized_tokens,
    without_layout_punctuation,
)

_MARKERS = {tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>", tokenize.NEWLINE: "<newline>"}
_DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}


def _with_tokenize(source: str) -> list[tuple[tuple[int, int], str]]:
    kept = [
        tok
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type not in _DROPPED
    ]
    # A string literal stands for its value (``rts.string_spelling``).
    tokens = [
        (tok.start, literal_value_text(tok.string))
        if tok.type == tokenize.STRING
        else (tok.start, _MARKERS.get(tok.type, tok.string))
        for tok in kept
    ]
    return without_layout_punctuation(tokens, [tok.type for tok in kept])


def test_the_same_tokens_as_tokenize_on_standard_library_modules() -> None:
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:30]
    sources = [p.read_text(encoding="utf-8", errors="replace") for p in stdlib]
    sources.append('def f(x):  # c\n    return f"{x!r:>{3}}" \\\n        + "y"\n\n\nclass C: ...\n')
    for source in sources:
        assert normalized_tokens(source) == _with_tokenize(source)


@pytest.mark.parametrize("source", ['x = "unterminated\n', "def f():\n  x\n y\n", "(\n"])
def test_what_does_not_tokenize_is_a_source_error(source: str) -> None:
    with pytest.raises(SourceError):
        normalized_tokens(source)


def test_lines_from_tokens_find_the_lookups_by_string_the_tree_finds() -> None:
    """``spans.scan`` checks only functions spanning a line that spells a lookup-by-string
    name; the lines read from the tokens (strings and keywords too) lose none."""
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:25]
    found = 0
    for path in stdlib:
        source = path.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(source)
        lines = TokenText(normalized_tokens(source)).lines_spelling(DYNAMIC_NAMES)
        by_tokens = scan(tree, lines)
        assert by_tokens == scan(tree), path
        found += len(by_tokens[2])
    assert found > 10
