"""Extract variable: the expression moves to a new statement before the one holding it, so
it is evaluated once, first, and always. That is wrong where the original evaluates it
again (a ``while`` condition), lazily (an operand of ``and``/``or`` after the first, a
branch of a conditional expression, a comprehension's element or filter, a lambda's body),
or after something in the same statement that may have side effects. Those selections
are refused, naming the reason and the place; a ``while`` condition is mended instead
(``while_test``)."""

from __future__ import annotations

import ast

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.extract import similar_regions
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.semantics.edit import Source, new_text, old_source, place, with_new_text
from lsp_server.refactor.semantics.flow import header_parts
from lsp_server.refactor.semantics.inline_variable import check_reads_same_value
from lsp_server.refactor.semantics.while_test import mend_while_test

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)
"""Nodes whose evaluation may change what another part of the statement computes."""
_OBSERVES = (*_EFFECTS, ast.Attribute, ast.Subscript)
"""Nodes whose value a call evaluated earlier may change."""


def selected_expression(src: Source, start: int, end: int) -> ast.expr | None:
    """The expression spanning the selection exactly (blanks around it ignored)."""
    text = src.text[start:end]
    start += len(text) - len(text.lstrip())
    end -= len(text) - len(text.rstrip())
    best = None
    for node in ast.walk(src.tree):
        if isinstance(node, ast.expr) and src.start(node) == start and src.end(node) == end:
            best = node  # the innermost of nested nodes with the same span
    return best


_WHILE = "it is the condition of a `while` loop, evaluated before every iteration"


def lazy_reason(child: ast.AST, parent: ast.AST) -> str | None:
    """Why ``child`` is not evaluated exactly once, before the rest of ``parent``."""
    if isinstance(parent, ast.While) and child is parent.test:
        return _WHILE
    if isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
        op = "and" if isinstance(parent.op, ast.And) else "or"
        return f"it is evaluated only when the operands before it in `{op}` decide so"
    if isinstance(parent, ast.IfExp) and child is not parent.test:
        return "it is a branch of a conditional expression, evaluated only when chosen"
    if isinstance(parent, _COMPREHENSIONS) and child is not parent.generators[0]:
        return "it is evaluated once per element of a comprehension"
    if isinstance(parent, ast.comprehension):
        return "it is evaluated once per element of a comprehension"
    if isinstance(parent, ast.Lambda) and child is parent.body:
        return "it is the body of a lambda, evaluated when the lambda is called"
    return None


def evaluated_before(stmt: ast.stmt, node: ast.expr, src: Source) -> list[ast.AST]:
    """Parts of ``stmt`` that run before ``node`` (assignment targets run after the value)."""
    start = src.start(node)
    parts: list[ast.AST] = []
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = [stmt.value] if stmt.value is not None else []
        in_value = any(n is node for v in value for n in ast.walk(v))
        parts = list(value) if not in_value else []
        parts += [t for t in targets if src.end(t) <= start] if not in_value else []
        if in_value:
            parts = [
                n
                for v in value
                for n in ast.walk(v)
                if isinstance(n, ast.expr) and src.end(n) <= start
            ]
        return parts
    return [
        n
        for part in header_parts(stmt)
        for n in ast.walk(part)
        if isinstance(n, ast.expr) and src.end(n) <= start
    ]


def check_extract_variable(ctx: Context, planned: Planned) -> Planned:
    """Refuse extracting an expression whose evaluation would move or stop repeating;
    with ``similar``, every replaced occurrence is checked, and each must read the value
    the variable holds (no rebinding or in-place change of its inputs in between)."""
    old = old_source(ctx)
    if old is None:
        return planned
    node = selected_expression(old, ctx.offset, ctx.end)
    if node is None:
        return planned
    parents = {c: p for p in ast.walk(old.tree) for c in ast.iter_child_nodes(p)}
    if not ctx.arg("similar", False):
        return _check_occurrence(ctx, planned, old, parents, node)
    for start, end in similar_regions(ctx, variable=True):
        occurrence = selected_expression(old, start, end)
        if occurrence is not None:
            _check_occurrence(ctx, planned, old, parents, occurrence)
    after = new_text(ctx, planned)
    new = Source.parse(after) if after is not None else None
    if new is not None:
        _check_same_value(ctx, new)
    return planned


def _check_same_value(ctx: Context, new: Source) -> None:
    """The result must be undone by inlining the variable: each use reads its value."""
    name = ctx.str_arg("name")
    for stmt in ast.walk(new.tree):
        if (
            isinstance(stmt, ast.Assign)
            and [t for t in stmt.targets]
            and all(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
        ):
            try:
                check_reads_same_value(ctx, new, new.start(stmt.targets[0]))
            except RefactoringError as exc:
                raise RefactoringError(
                    f"extract variable with similar occurrences: in the result, {exc}"
                ) from exc
            return


def _check_occurrence(ctx, planned, old: Source, parents, node: ast.expr) -> Planned:
    child: ast.AST = node
    while not isinstance(child, ast.stmt) and child in parents:
        parent = parents[child]
        reason = lazy_reason(child, parent)
        after = new_text(ctx, planned)
        if reason == _WHILE and after is not None and not ctx.arg("similar", False):
            name = ctx.str_arg("name")
            mended = mend_while_test(ctx, after, name, node.lineno)
            return with_new_text(ctx, planned, mended)
        if reason is not None:
            raise RefactoringError(
                f"extract variable: {reason} ({place(ctx, node.lineno)}); a variable "
                "assigned once before the statement would change what the program does"
            )
        if isinstance(parent, ast.stmt):
            _check_order(ctx, parent, node, old)
        child = parent
    return planned


def _check_order(ctx: Context, stmt: ast.stmt, node: ast.expr, src: Source) -> None:
    # A call cannot rebind a local variable; only `:=` can. Anything else may observe it.
    heavy = any(isinstance(n, _OBSERVES) for n in ast.walk(node))
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    for before in evaluated_before(stmt, node, src):
        if _inside(before, node):
            continue
        rebinds = (
            isinstance(before, ast.NamedExpr)
            and isinstance(before.target, ast.Name)
            and before.target.id in names
        )
        if rebinds or (heavy and isinstance(before, _EFFECTS)):
            raise RefactoringError(
                f"extract variable: `{src.segment(before)}` is evaluated before the selection "
                f"({place(ctx, node.lineno)}) and may change its value; the variable would "
                "be computed first"
            )


def _inside(candidate: ast.AST, node: ast.AST) -> bool:
    return any(n is candidate for n in ast.walk(node))
