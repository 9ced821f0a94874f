"""Whether a module's namespace may take names from elsewhere: a star import, or a
namespace filled in by code (``globals()``, ``vars()``, ``__dict__``, ``sys.modules``,
``builtins``, ``exec``). Its global reads then count as reads of any module.

Told from the code's tokens, not from the raw text: a comment or a docstring that names
``__dict__`` or "builtins" runs nothing (toolz's ``functoolz`` did both, and every test
importing toolz counted as reading ``sys`` of any module). Other string literals are
kept: a string may name a module that code then fills (``import_module("builtins")``).
"""

from __future__ import annotations

import ast
import re

from lsp_server.rts.purity import is_string_statement
from lsp_server.rts.tokens import TokenText

_OPEN_SPELLING = re.compile(
    r"import\s+\*|\b(?:globals|locals|vars|__dict__|modules|builtins|__builtins__|exec)\b"
)


def opens_namespace(tree: ast.Module, text: TokenText) -> bool:
    """Whether the module's code (comments and string statements left out) spells a way
    to fill its namespace from elsewhere."""
    statements = (node for node in ast.walk(tree) if isinstance(node, ast.stmt))
    # A string statement's token starts where the statement does (a docstring's does;
    # one after non-ASCII text on its line is kept: conservative).
    silent = {(s.lineno, s.col_offset) for s in statements if is_string_statement(s)}
    pairs = zip(text.positions, text.texts, strict=True)
    return _OPEN_SPELLING.search(" ".join(t for pos, t in pairs if pos not in silent)) is not None
