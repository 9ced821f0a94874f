"""Bringing a warm worker's live functions up to date with an edited file, without importing
it again: an edited function gets its new code, the functions below it their new lines.

An edited function's docstring is followed too (``__doc__``). Only edits that leave the
module's shape alone can be followed this way: the same
functions and classes in the same order, with the same parameters and decorators. Anything
else raises ``SwapError`` and the caller starts a fresh worker. Standard library only (it
runs inside the worker, in the project's interpreter).
"""

from __future__ import annotations

import ast
import types
from collections.abc import Iterator

from lsp_server.extreme.code_swap import (
    FuncDef,
    FunctionIndex,
    SwapError,
    class_of,
    compile_like,
    find_targets,
)
from lsp_server.project.text import parse_python


def _first_line(node: FuncDef) -> int:
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def qualified_defs(tree: ast.Module) -> Iterator[tuple[str, FuncDef]]:
    """Functions of the module and methods of its classes (not nested functions), with
    their qualified names, in source order."""

    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, FuncDef]]:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield prefix + node.name, node
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}{node.name}.")

    yield from walk(tree.body, "")


def _shape(node: FuncDef) -> str:
    head = [node.args, *node.decorator_list]
    return f"{type(node).__name__} " + " ".join(ast.dump(part) for part in head)


def _body(node: FuncDef) -> list[str]:
    return [ast.dump(stmt) for stmt in node.body]  # no line numbers: moved is not edited


def refresh_file(index: FunctionIndex, path: str, old_source: str, new_source: str) -> int:
    """Make the live functions of the file at ``path`` run ``new_source``'s code; the number
    of functions whose code changed. Raises ``SwapError`` for an edit it cannot follow."""
    try:
        old = list(qualified_defs(parse_python(old_source, path)))
        new = list(qualified_defs(parse_python(new_source, path)))
    except SyntaxError as exc:
        raise SwapError(f"{path} does not parse: {exc}") from exc
    if [name for name, _ in old] != [name for name, _ in new]:
        raise SwapError(f"functions were added, removed or renamed in {path}")
    updates: list[tuple[types.FunctionType, types.CodeType]] = []
    edited = 0
    for (qualname, before), (_, after) in zip(old, new, strict=True):
        if _shape(before) != _shape(after):
            raise SwapError(f"the signature or decorators of {qualname} changed")
        targets = find_targets(index, path, before.name, _first_line(before), before.lineno)
        changed = _body(before) != _body(after)
        edited += changed
        shift = _first_line(after) - _first_line(before)
        for function in targets:
            code = function.__code__
            if changed:
                new_code = compile_like(
                    after, code.co_freevars, code.co_filename, class_of(qualname)
                )
            elif shift:
                new_code = code.replace(co_firstlineno=code.co_firstlineno + shift)
            else:
                continue
            if hasattr(code, "co_qualname"):
                new_code = new_code.replace(**{"co_qualname": code.co_qualname})
            updates.append((function, new_code))
    # All compiled before any is assigned: a refusal leaves the worker as it was.
    for function, new_code in updates:
        try:
            function.__code__ = new_code
        except (ValueError, TypeError) as exc:
            raise SwapError(f"cannot update {function.__qualname__}: {exc}") from exc
        function.__doc__ = docstring_of(new_code)  # a test may read it
    return edited


def docstring_of(code: types.CodeType) -> str | None:
    """The ``__doc__`` Python gives a function made from ``code``."""
    cells = tuple(types.CellType() for _ in code.co_freevars)
    return types.FunctionType(code, {}, None, None, cells).__doc__
