"""Return kinds from code compiled with markers (``rts.instrument_loader``): each return of
a function (``return E``, a bare ``return``, falling off its end) becomes

    return E if __reks_known__[s] else __reks_return__(s, E)

``s`` a constant index of the site in a process-wide bytearray (``ReturnSites.known``). While
a byte is 0 the value goes through ``__reks_return__`` (the instrumented tracer's, which
notes its kind and hands it back); once the site's kind is known enough it is set to 1, and
the return costs four instructions more than before (no call). Only one branch runs: ``E``
is evaluated once, in either. A site returning a constant (``return None``, ``return
True``: its kind is always the same) is known after its first return for the whole
session; the others after ``RETURNS_PER_TEST`` returns of their function in a test, until
the next test (as ``sys.monitoring`` does on 3.12).

``E`` is copied into the call's branch; a lambda or generator expression in it has its own
marker, so the copy is made before markers are placed, and the copy's are numbered like
any other (``copies`` of ``mark_returns``: both are the same unit).

Generators and async generators are left as they are: what their frames return is no
result (``rts.returns``).
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from lsp_server.rts.ast_walk import copy_tree, scope_nodes, walk
from lsp_server.rts.returns import kind_of

KNOWN_NAME = "__reks_known__"
RETURN_NAME = "__reks_return__"
RETURN_SITE_NAMES = frozenset([KNOWN_NAME, RETURN_NAME])

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_ENDS = (ast.Return, ast.Raise)


def _pass(site: int, value: object) -> object:
    """``RETURN_NAME`` while no tracer notes kinds."""
    return value


class ReturnSites:
    """Every return site of marked functions: the byte saying its kind is known enough, the
    marker index of its function (``HitTable``), and the kind of the constant it returns
    (None: it returns an expression)."""

    def __init__(self) -> None:
        self.known = bytearray()
        self.function: list[int] = []
        self.constant: list[str | None] = []
        # Marker index of a function -> its sites returning an expression.
        self.varying: dict[int, list[int]] = {}

    def add(self, constant: str | None) -> int:
        """A new site (its function told by ``own``); its index."""
        self.known.append(0)
        self.function.append(-1)
        self.constant.append(constant)
        return len(self.known) - 1

    def own(self, site: int, function: int) -> None:
        self.function[site] = function
        if self.constant[site] is None:
            varying = self.varying.setdefault(function, [])
            if site not in varying:
                varying.append(site)

    def install(self) -> None:
        setattr(builtins, KNOWN_NAME, self.known)
        setattr(builtins, RETURN_NAME, _pass)

    def all_known(self) -> None:
        """Every return as cheap as it gets (no tracer notes kinds)."""
        self.known[:] = b"\x01" * len(self.known)
        setattr(builtins, RETURN_NAME, _pass)


def located(node: ast.AST, at: ast.AST) -> Any:
    """``node`` and everything in it placed at the start of ``at`` (a point: a span copied
    from ``at`` may end before it starts once pytest has rewritten ``at``)."""
    line, column = getattr(at, "lineno", 1), getattr(at, "col_offset", 0)
    for part in walk(node):
        if "lineno" in part._attributes:
            part.lineno = part.end_lineno = line  # type: ignore[attr-defined]
            part.col_offset = part.end_col_offset = column  # type: ignore[attr-defined]
    return node


def _noted(site: int, value: ast.expr, at: ast.AST) -> tuple[ast.expr, ast.expr]:
    """The return value of a site, and the copy of ``value`` in it."""
    known = located(
        ast.Subscript(
            value=ast.Name(id=KNOWN_NAME, ctx=ast.Load()),
            slice=ast.Constant(value=site),
            ctx=ast.Load(),
        ),
        at,
    )
    copied: ast.expr = copy_tree(value)  # type: ignore[assignment]
    call = located(
        ast.Call(
            func=ast.Name(id=RETURN_NAME, ctx=ast.Load()),
            args=[ast.Constant(value=site)],
            keywords=[],
        ),
        at,
    )
    call.args.append(copied)
    noted = ast.IfExp(test=known, body=value, orelse=call)
    return ast.copy_location(noted, value), copied


def _constant_kind(value: ast.expr | None) -> str | None:
    if value is None:
        return kind_of(None)
    return kind_of(value.value) if isinstance(value, ast.Constant) else None


def mark_returns(
    function: ast.FunctionDef | ast.AsyncFunctionDef, sites: ReturnSites
) -> tuple[list[int], list[ast.expr]]:
    """Give each return of ``function`` a new site; the sites, and the copies of return
    values made (see the module's docstring). Nothing for a generator."""
    returns: list[ast.Return] = []
    # The nodes of its own scope: a nested function, class or lambda is code of its own.
    for node in scope_nodes(function.body, _SCOPES):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return [], []
        if isinstance(node, ast.Return):
            returns.append(node)
    body = function.body
    if not isinstance(body[-1], _ENDS):
        # Falling off the end returns None: a return there says so.
        end = ast.Return(value=None)
        body.append(located(end, body[-1]))
        returns.append(end)
    found, copies = [], []
    for node in returns:
        constant = _constant_kind(node.value)
        site = sites.add(constant)
        value = node.value
        if value is None:
            value = located(ast.Constant(value=None), node)
        node.value, copied = _noted(site, value, node)
        found.append(site)
        copies.append(copied)
    return found, copies
