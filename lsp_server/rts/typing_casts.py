"""Calls of ``typing.cast`` read as the value they return, in function checksums.

``typing.cast(T, v)`` returns ``v`` at run time and checks nothing: a cast added or dropped
around a value (a typed decorator's ``return cast(F, wrapper)``, often rewritten for the
type checker) changes nothing a test can observe, unless evaluating ``T`` fails. So a
function's body unit (``rts.units``) leaves out the ``cast(T,`` and ``)`` of such a call
where ``T`` cannot fail to evaluate: a constant (a type written as a string), a builtin the
module binds nowhere, an attribute ``typing`` has, or a name the module binds exactly
once, at its top level, unconditionally, before the call. jinja's ``optimizeconst``, run at
import by every importer, went from ``update_wrapper(t.cast(F, new_func), f)`` to
``update_wrapper(new_func, f)``: the whole suite ran (testmon: 356 of 764 tests).

``cast`` counts only when it is typing's: ``from typing import cast`` (or
``typing_extensions``), or ``cast`` of a module imported as ``import typing [as t]``, each
bound once at the top level and nowhere else in the module.
"""

from __future__ import annotations

import ast
import builtins
import typing
from collections import Counter

from lsp_server.rts.ast_walk import of_types
from lsp_server.rts.bound_names import binding_occurrences, surely_bound
from lsp_server.rts.tokens import Pos

CAST_MARK = "<cast>"  # what a hole leaves; dropped from the text afterwards
_TYPING_MODULES = frozenset(["typing", "typing_extensions"])
_Hole = tuple[Pos, Pos, str]


def _top_bindings(tree: ast.Module) -> dict[str, tuple[int, ast.stmt]]:
    """Names a top-level statement of ``tree`` surely binds: the line the first such
    statement ends on, and the statement."""
    found: dict[str, tuple[int, ast.stmt]] = {}
    for stmt in tree.body:
        for name in surely_bound(stmt):
            found.setdefault(name, (stmt.end_lineno or stmt.lineno, stmt))
    return found


class _Casts:
    """What the module binds, to tell typing's ``cast`` and types that cannot fail."""

    def __init__(self, tree: ast.Module) -> None:
        self.top = _top_bindings(tree)
        self.modules: set[str] = set()  # names of typing modules
        self.casts: set[str] = set()  # names of typing's cast
        for name, (_, stmt) in self.top.items():
            if isinstance(stmt, ast.Import):
                typing_module = {
                    a.asname or a.name for a in stmt.names if a.name in _TYPING_MODULES
                }
                if name in typing_module:
                    self.modules.add(name)
            elif isinstance(stmt, ast.ImportFrom) and stmt.module in _TYPING_MODULES:
                casts = {a.asname or a.name for a in stmt.names if a.name == "cast"}
                if not stmt.level and name in casts:
                    self.casts.add(name)
        # Counting every name the module binds walks the whole tree (a tenth of a file's
        # analysis): only when a typing import leaves a cast to tell.
        self.counts: Counter[str] = Counter()
        if self.modules or self.casts:
            # A parameter counts too: ``def f(t): t.cast(...)`` is no typing's.
            self.counts.update(binding_occurrences(tree))
            self.modules = {name for name in self.modules if self.counts[name] == 1}
            self.casts = {name for name in self.casts if self.counts[name] == 1}

    def is_cast(self, node: ast.Call) -> bool:
        if node.keywords or len(node.args) != 2:
            return False
        if any(isinstance(arg, ast.Starred) for arg in node.args):
            return False
        func = node.func
        if isinstance(func, ast.Name):
            return func.id in self.casts
        return (
            isinstance(func, ast.Attribute)
            and func.attr == "cast"
            and isinstance(func.value, ast.Name)
            and func.value.id in self.modules
        )

    def evaluates(self, node: ast.expr, line: int) -> bool:
        """Whether evaluating ``node`` on ``line`` cannot fail."""
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Attribute):
            owner = node.value
            return (
                isinstance(owner, ast.Name)
                and owner.id in self.modules
                and hasattr(typing, node.attr)
            )
        if not isinstance(node, ast.Name):
            return False
        count = self.counts[node.id]
        if count == 0:
            return hasattr(builtins, node.id)
        top = self.top.get(node.id)
        return count == 1 and top is not None and top[0] < line


def cast_holes(tree: ast.Module, lines: list[str]) -> list[_Hole]:
    """The holes that leave ``v`` of each typing ``cast(T, v)`` whose ``T`` cannot fail
    (each marked ``CAST_MARK``, to drop); none on lines that are not ASCII (the tree's
    columns count bytes, the tokens' characters)."""
    casts = _Casts(tree)
    if not casts.casts and not casts.modules:
        return []
    holes: list[_Hole] = []
    for node in of_types(tree, (ast.Call,)):
        if not isinstance(node, ast.Call) or not casts.is_cast(node):
            continue
        kind, value = node.args
        end_line = node.end_lineno or node.lineno
        if not all(line.isascii() for line in lines[node.lineno - 1 : end_line]):
            continue
        if not casts.evaluates(kind, node.lineno):
            continue
        value_end = (value.end_lineno or value.lineno, value.end_col_offset or 0)
        holes.append(((node.lineno, node.col_offset), (value.lineno, value.col_offset), CAST_MARK))
        holes.append((value_end, (end_line, node.end_col_offset or 0), CAST_MARK))
    return sorted(holes)


def inside(holes: list[_Hole], start: Pos, end: Pos, outside: list[tuple[Pos, Pos]]) -> list[_Hole]:
    """The holes between ``start`` and ``end`` that are in none of the ``outside`` ranges."""
    return [
        hole
        for hole in holes
        if start <= hole[0]
        and hole[1] <= end
        and not any(low <= hole[0] < high for low, high in outside)
    ]
