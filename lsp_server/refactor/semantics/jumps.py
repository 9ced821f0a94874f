"""Where a selection leaves itself: the ``return``s in it and the ``break``/``continue``s
whose loop is outside it, and what the rest of its function reads (extract method with
jumps, ``refactor.extract_jumps``)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from lsp_server.refactor.semantics.flow import (
    binds,
    blocks,
    scope_binds,
    walk_statements,
)
from lsp_server.refactor.semantics.liveness import Probe, Targets, live_before
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


def live_at_jumps(flow: RegionFlow, jumps: Sequence[ast.stmt]) -> set[str]:
    """Names live where the selection's ``break``s and ``continue``s land: after the
    innermost loop around the selection, or at its head (before it: a superset)."""
    loops = [
        stmt
        for stmt in walk_statements(flow.function.body)
        if isinstance(stmt, _LOOPS) and flow.holder in set(walk_statements(stmt.body))
    ]
    kinds = {type(j) for j in jumps}
    if not loops or not kinds & {ast.Break, ast.Continue}:
        return set()
    probe = Probe(loops[-1])
    live_before(flow.function.body, set(), Targets(), probe)
    found = set(probe.live_after) if ast.Break in kinds else set()
    return found | (probe.live_before if ast.Continue in kinds else set())


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
