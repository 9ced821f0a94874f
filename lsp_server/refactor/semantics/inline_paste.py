"""Inlining a function whose body is one ``return <expr>``: each call must come out as if
its node had been replaced by ``<expr>``'s node with each parameter replaced by its
argument's node. rope pastes text (``h(3) * 2`` with ``return a + 1`` becomes
``3 + 1 * 2``); where its text parses differently the calls are pasted again here with
the parentheses the tree needs."""

from __future__ import annotations

import ast
import copy

from lsp_server.project.text import parse_python
from lsp_server.refactor.context import Context
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.semantics.edit import Source, place
from lsp_server.refactor.semantics.precedence import ATOMS, slot

Arguments = dict[str, "ast.expr | None"]


def _key(node: ast.AST) -> tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)  # type: ignore[attr-defined]


class _Params(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.values.get(node.id)
        return copy.deepcopy(value) if value is not None else node


class _Calls(ast.NodeTransformer):
    def __init__(self, removed: tuple | None, values: dict[tuple, dict[str, ast.expr]], expr):
        self.removed = removed
        self.values = values
        self.expr = expr

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST | None:
        return None if _key(node) == self.removed else self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Call(self, node: ast.Call) -> ast.AST:
        values = self.values.get(_key(node))
        if values is None:
            return self.generic_visit(node)
        return _Params(values).visit(copy.deepcopy(self.expr))


def parameter_defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    """parameter name -> its default's node, for the parameters that have one."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    found = {a.arg: d for a, d in zip(positional[::-1], args.defaults[::-1], strict=False)}
    kwonly = zip(args.kwonlyargs, args.kw_defaults, strict=True)
    found.update({a.arg: d for a, d in kwonly if d is not None})
    return found


def _values(function, arguments: Arguments) -> dict[str, ast.expr]:
    defaults = parameter_defaults(function)
    return {p: a if a is not None else defaults[p] for p, a in arguments.items()}


def _dump(text: str) -> str | None:
    try:
        return ast.dump(parse_python(text))
    except (SyntaxError, ValueError):
        return None


def _paste(src: Source, expr: ast.expr, values: dict[str, ast.expr], wrap: bool) -> str:
    start = src.start(expr)
    edits = []
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id in values:
            value = values[node.id]
            text = src.segment(value)
            edits.append((src.start(node) - start, src.end(node) - start, text, value))
    pasted = src.segment(expr)
    for a, b, text, value in sorted(edits, key=lambda e: e[0], reverse=True):
        needs = not isinstance(value, ATOMS)
        pasted = pasted[:a] + (f"({text})" if needs else text) + pasted[b:]
    return f"({pasted})" if wrap and not isinstance(expr, ATOMS) else pasted


def _function_span(src: Source, function: ast.AST) -> tuple[int, int]:
    """Offsets of the function's lines, decorators and the blank lines after it included."""
    decorators = getattr(function, "decorator_list", [])
    first = min([function.lineno, *(d.lineno for d in decorators)])  # type: ignore[attr-defined]
    last = function.end_lineno or function.lineno  # type: ignore[attr-defined]
    lines = src.text.splitlines(keepends=True)
    while last < len(lines) and not lines[last].strip():
        last += 1
    end = src.starts[last] if last < len(src.starts) else len(src.text)
    return src.starts[first - 1], end


def mend_inlined_calls(
    ctx: Context,
    src: Source,
    after: str,
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    calls: list[tuple[ast.Call, Arguments]],
) -> str | None:
    """None when rope's text means the inlining; else the mended text, or a refusal."""
    body = function.body
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    expr = body[0].value
    remove = not ctx.arg("only_current", False)
    if ctx.arg("only_current", False):
        calls = [c for c in calls if src.start(c[0]) <= ctx.offset <= src.end(c[0])]
    values = {_key(call): _values(function, arguments) for call, arguments in calls}
    transformer = _Calls(_key(function) if remove else None, values, expr)
    expected = ast.dump(transformer.visit(parse_python(src.text)))
    if _dump(after) == expected:
        return None
    parents = {c: p for p in ast.walk(src.tree) for c in ast.iter_child_nodes(p)}
    edits = [(*_function_span(src, function), "")] if remove else []
    for call, arguments in calls:
        pasted = _paste(src, expr, _values(function, arguments), not slot(call, parents.get(call)))
        edits.append((src.start(call), src.end(call), pasted))
    mended = src.text
    for start, end, replacement in sorted(edits, reverse=True):
        mended = mended[:start] + replacement + mended[end:]
    if _dump(mended) == expected:
        return mended
    raise RefactoringError(
        f"inline `{function.name}`: rope's result does not mean the same as the original (the "
        f"body at {place(ctx, function.lineno)} would be read differently at a call)"
    )
