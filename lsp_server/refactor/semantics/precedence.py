"""Inlining pastes an expression's text where a name was; the syntax tree must come out as
if the name's node had been replaced by the expression's node. Where rope's text parses
differently (precedence: ``n + 1 * 2``), the uses are parenthesised here."""

from __future__ import annotations

import ast
import copy

from lsp_server.project.text import parse_python
from lsp_server.refactor.context import Context
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.semantics.edit import Source, place

ATOMS = (
    ast.Name,
    ast.Constant,
    ast.Call,
    ast.Attribute,
    ast.Subscript,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
    ast.GeneratorExp,
    ast.JoinedStr,
)


def slot(use: ast.expr, parent: ast.AST | None) -> bool:
    """Whether ``use`` stands where any expression can go without parentheses."""
    if isinstance(parent, ast.Call):
        return use in parent.args and not isinstance(parent.func, ast.Lambda)
    if isinstance(parent, (ast.Assign, ast.Return, ast.Expr, ast.keyword)):
        return True
    if isinstance(parent, ast.FormattedValue):
        return parent.value is use
    return isinstance(parent, (ast.List, ast.Set)) or (
        isinstance(parent, ast.Dict) and use in parent.values
    )


def _key(node: ast.AST) -> tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)  # type: ignore[attr-defined]


class _Substitute(ast.NodeTransformer):
    def __init__(self, value: ast.expr, uses: set[tuple], definition: tuple | None) -> None:
        self.value = value
        self.uses = uses
        self.definition = definition

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return copy.deepcopy(self.value) if _key(node) in self.uses else node

    def visit_Assign(self, node: ast.Assign) -> ast.AST | None:
        if _key(node) == self.definition:
            return None
        return self.generic_visit(node)


def _dump(text: str) -> str | None:
    try:
        return ast.dump(parse_python(text))
    except (SyntaxError, ValueError):
        return None


def expected_tree(src: Source, definition: ast.Assign, uses: list[ast.Name], remove: bool) -> str:
    """The dump of the file as inlining means it: uses replaced by the value's node."""
    tree = parse_python(src.text)
    keys = {_key(u) for u in uses}
    substitute = _Substitute(definition.value, keys, _key(definition) if remove else None)
    return ast.dump(substitute.visit(tree))


def _pasted(src: Source, definition: ast.Assign, uses: list[ast.Name], remove: bool, wrap) -> str:
    """The old text with the definition's lines removed and each use replaced."""
    value = src.segment(definition.value)
    edits = [(src.start(u), src.end(u), wrap(u, value)) for u in uses]
    if remove:
        first = src.starts[definition.lineno - 1]
        last = definition.end_lineno or definition.lineno
        end = src.starts[last] if last < len(src.starts) else len(src.text)
        edits.append((first, end, ""))
    text = src.text
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _check_fstrings(ctx: Context, src: Source, definition: ast.Assign, uses: list[ast.Name]):
    """Before Python 3.12 a replacement field cannot hold the string's quote or a backslash."""
    value = src.segment(definition.value)
    for use in uses:
        for node in ast.walk(src.tree):
            if isinstance(node, ast.JoinedStr) and src.start(node) < src.start(use) < src.end(node):
                quote = src.segment(node).lstrip("rRfFbBuU")[:1]
                if quote in value or "\\" in value:
                    raise RefactoringError(
                        f"inline: pasting `{value}` into the f-string at "
                        f"{place(ctx, use.lineno)} needs Python 3.12 (same quotes or a "
                        "backslash inside a replacement field)"
                    )


def mend_precedence(
    ctx: Context, src: Source, after: str, definition: ast.Assign, uses: list[ast.Name]
) -> str | None:
    """None when rope's text means what inlining means; else the mended text, or a refusal."""
    remove = not ctx.arg("only_current", False)
    _check_fstrings(ctx, src, definition, uses)
    expected = expected_tree(src, definition, uses, remove)
    if _dump(after) == expected:
        return None
    plain = _pasted(src, definition, uses, remove, lambda use, value: value)
    loose = not isinstance(definition.value, ATOMS)
    parents = {c: p for p in ast.walk(src.tree) for c in ast.iter_child_nodes(p)}

    def wrap(use: ast.Name, value: str) -> str:
        return f"({value})" if loose and not slot(use, parents.get(use)) else value

    mended = _pasted(src, definition, uses, remove, wrap)
    if plain == after and _dump(mended) == expected:
        return mended
    raise RefactoringError(
        f"inline: rope's result does not mean the same as the original (the value defined "
        f"at {place(ctx, definition.lineno)} would be read differently at its uses)"
    )
