"""Extract variable from a ``while`` condition: rope assigns the variable once, before the
loop, and the loop never sees the condition change (an infinite loop). The mended edit
assigns it again wherever the condition would be evaluated next: at the end of the body
and before each ``continue`` of this loop."""

from __future__ import annotations

import ast
from itertools import pairwise

from lsp_server.refactor.context import Context
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.semantics.edit import Source, place
from lsp_server.refactor.semantics.flow import blocks


def _continues(body: list[ast.stmt]) -> list[ast.Continue]:
    """The ``continue`` statements that belong to the loop whose body this is."""
    found: list[ast.Continue] = []
    todo = list(body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, ast.Continue):
            found.append(stmt)
        elif not isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            for block in blocks(stmt):
                todo.extend(block)
        else:
            todo.extend(stmt.orelse)  # a loop's else belongs to the outer loop
    return found


def _the_loop(new: Source, variable: str, line: int) -> tuple[ast.While, ast.Assign] | None:
    """The loop testing ``variable`` and rope's assignment right before it."""
    for node in ast.walk(new.tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
            found_blocks = [node.body]
        else:
            found_blocks = blocks(node) if isinstance(node, ast.stmt) else []
        for block in found_blocks:
            for before, stmt in pairwise(block):
                if (
                    isinstance(stmt, ast.While)
                    and isinstance(before, ast.Assign)
                    and [t.id for t in before.targets if isinstance(t, ast.Name)] == [variable]
                    and abs(stmt.lineno - line) <= 1
                ):
                    return stmt, before
    return None


def _line_indent(src: Source, node: ast.stmt) -> str | None:
    """The indentation of ``node``'s line, None when something precedes it on the line."""
    start = src.starts[node.lineno - 1]
    head = src.text[start : src.start(node)]
    return head if not head.strip() else None


def mend_while_test(ctx: Context, after: str, variable: str, line: int) -> str:
    """rope's text with ``variable`` assigned again before the loop tests it again."""
    new = Source.parse(after)
    found = _the_loop(new, variable, line + 1) if new is not None else None
    if new is None or found is None:
        raise RefactoringError(
            f"extract variable: the selection is the condition of a `while` loop "
            f"({place(ctx, line)}), evaluated before every iteration; a variable assigned "
            "once would keep its first value"
        )
    loop, assignment = found
    statement = new.segment(assignment)
    edits: list[tuple[int, str]] = []
    last = loop.body[-1]
    indent = _line_indent(new, loop.body[0])
    if indent is None:
        raise RefactoringError(f"extract variable: the loop at {place(ctx, line)} is on one line")
    line_end = after.find("\n", new.end(last))  # after a trailing comment, if any
    edits.append((len(after) if line_end < 0 else line_end, f"\n{indent}{statement}"))
    for jump in _continues(loop.body):
        jump_indent = _line_indent(new, jump)
        if jump_indent is None:
            raise RefactoringError(
                f"extract variable: the `continue` at {place(ctx, jump.lineno)} shares its line"
            )
        edits.append((new.start(jump), f"{statement}\n{jump_indent}"))
    text = after
    for at, insert in sorted(edits, reverse=True):
        text = text[:at] + insert + text[at:]
    return text
