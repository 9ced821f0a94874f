"""Where a selection leaves itself: the ``return``s in it and the ``break``/``continue``s
whose loop is outside it, and what the rest of its function reads (extract method with
jumps, ``refactor.extract_jumps``)."""

from __future__ import annotations

import ast

from lsp_server.refactor.semantics.flow import (
    binds,
    blocks,
    own_reads,
    scope_binds,
    walk_statements,
)
from lsp_server.refactor.semantics.region import RegionFlow

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def escaping_jumps(statements: list[ast.stmt]) -> list[ast.stmt]:
    """The ``return``s of the selection and the ``break``/``continue``s leaving it."""
    found: list[ast.stmt] = []

    def visit(block: list[ast.stmt], in_loop: bool) -> None:
        for stmt in block:
            if isinstance(stmt, ast.Return) or (
                isinstance(stmt, (ast.Break, ast.Continue)) and not in_loop
            ):
                found.append(stmt)
            elif isinstance(stmt, _LOOPS):
                visit(stmt.body, True)
                visit(stmt.orelse, in_loop)
            else:
                for inner in blocks(stmt):
                    visit(inner, in_loop)

    visit(statements, False)
    return found


def jump_kind(stmt: ast.stmt) -> str:
    return {ast.Return: "return", ast.Break: "break", ast.Continue: "continue"}[type(stmt)]


def read_outside(flow: RegionFlow) -> set[str]:
    inside = set(walk_statements(flow.statements))
    out: set[str] = set()
    for stmt in walk_statements(flow.function.body):
        if stmt not in inside:
            out |= own_reads(stmt)
    return out


def global_names(flow: RegionFlow) -> list[str]:
    """The names the selection binds that its function declares ``global``: the new
    function declares them too."""
    declared: set[str] = set()
    for stmt in walk_statements(flow.function.body):
        if isinstance(stmt, ast.Global):
            declared |= set(stmt.names)
    bound: set[str] = set()
    for stmt in walk_statements(flow.statements):
        bound |= binds(stmt) | scope_binds(stmt)
    return sorted(bound & declared)
