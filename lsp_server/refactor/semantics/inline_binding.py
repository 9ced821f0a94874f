"""Inline of a function: when the pasted argument text is read, what its names mean there,
and whether every call is one rope inlines.

A parameter is bound once, at the call. rope pastes the argument's text in place of each
use, so a use inside a nested function, a lambda's body or a generator expression (past
its first iterable) reads the caller's names when that code runs, not at the call: a
caller that rebinds ``x`` after ``f = h(x)`` changes what ``f()`` returns (late binding).
A name the argument reads can also be captured by a name the body binds (``[a + i for i
in ...]`` called with ``h(i)`` reads the loop's ``i``). And rope inlines calls that name
the function, not calls through an alias made by ``from m import h as g``: it removes
``h`` and leaves ``g(...)`` importing a name that no longer exists.
"""

from __future__ import annotations

import ast

from rope.base import libutils

from lsp_server.refactor.context import Context
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.semantics.edit import Source
from lsp_server.refactor.semantics.flow import binds, reads, scope_binds, walk_statements
from lsp_server.refactor.semantics.module_access import module_of_import

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def deferred_reason(function: ast.AST, use: ast.AST) -> str | None:
    """Why ``use`` (inside ``function``'s body) runs later than the call, or None."""
    parents = {c: p for p in ast.walk(function) for c in ast.iter_child_nodes(p)}
    node = use
    while node in parents and parents[node] is not function:
        parent = parents[node]
        if isinstance(parent, _FUNCTIONS) and any(node is s for s in parent.body):
            return f"it is inside the nested function `{parent.name}`, run when that is called"
        if isinstance(parent, ast.Lambda) and node is parent.body:
            holder = parents.get(parent)
            # `(lambda: a)()` runs the body right there, like the code around it.
            if not (isinstance(holder, ast.Call) and holder.func is parent):
                return "it is in a lambda's body, run when the lambda is called"
        if isinstance(parent, ast.GeneratorExp) and not _first_iterable(parent, use):
            return "it is in a generator expression, run when the generator is consumed"
        node = parent
    return None


def _first_iterable(generator: ast.GeneratorExp, use: ast.AST) -> bool:
    """Python evaluates a generator expression's first iterable at once, the rest lazily."""
    return any(n is use for n in ast.walk(generator.generators[0].iter))


def literal(node: ast.expr) -> bool:
    """A constant (``1``, ``-2``, ``("a", 3)``): the same value whenever it is evaluated."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return literal(node.operand)
    if isinstance(node, ast.Tuple):
        return all(literal(e) for e in node.elts)
    return False


def check_late_binding(function, param: str, value: ast.expr, where: str) -> None:
    """A parameter read later than the call must get a value that cannot change meanwhile."""
    if literal(value):
        return
    for use in ast.walk(function):
        if not (isinstance(use, ast.Name) and use.id == param and isinstance(use.ctx, ast.Load)):
            continue
        reason = deferred_reason(function, use)
        if reason is not None:
            raise RefactoringError(
                f"inline `{function.name}`: the use of `{param}` at line {use.lineno} would read "
                f"`{ast.unparse(value)}` from the call at {where} later than the call "
                f"({reason}); by then the caller may have rebound it"
            )


def body_bindings(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Every name the body binds, in any scope nested in it (locals, loop and comprehension
    targets, parameters of nested functions and lambdas, nested ``def``/``class`` names)."""
    found: set[str] = set()
    for stmt in function.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                found.add(node.id)
            elif isinstance(node, ast.arg):
                found.add(node.arg)
            elif isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
                found.add(node.name)
            elif isinstance(node, ast.alias):
                found.add(node.asname or node.name.split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                found.add(node.name)
    return found


def check_capture(function, param: str, argument: ast.expr | None, src: Source, where: str):
    """The argument's names must not be captured by a name the pasted body binds."""
    if argument is None:
        return
    captured = sorted(reads(argument) & body_bindings(function))
    if captured:
        raise RefactoringError(
            f"inline `{function.name}`: the argument `{src.segment(argument)}` for `{param}` at "
            f"{where} reads `{captured[0]}`, which the body of `{function.name}` binds; "
            "pasted there it would read the body's name instead"
        )


def check_aliases(ctx: Context, function: ast.AST) -> None:
    """Refuse removing a function that a module imports under another name."""
    name = getattr(function, "name", "")
    if ctx.arg("only_current", False):
        return
    defining = f"{libutils.modname(ctx.resource)}.{name}"
    files, _ = ctx.scope_files(name)
    for resource in files:
        src = Source.parse(resource.read())
        if src is None:
            continue
        here = libutils.modname(resource)
        if resource.name == "__init__.py":
            here += ".__init__"
        for node in ast.walk(src.tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            for alias in node.names:
                aliased = alias.name == name and alias.asname not in (None, name)
                if aliased and module_of_import(node, alias, here) == defining:
                    raise RefactoringError(
                        f"inline `{name}`: {resource.path}:{node.lineno} imports it as "
                        f"`{alias.asname}`; rope does not inline calls through that alias and "
                        f"would remove `{name}` (inline only this call, or import it by its name)"
                    )


def check_default_rebound(src: Source, function, param: str, default: ast.expr, rel: str) -> None:
    """A default that is a global name is read once, when the ``def`` runs; pasted into a
    call it reads the name then. Refuse when the module binds the name more than once."""
    if not isinstance(default, ast.Name):
        return
    name = default.id
    lines: list[int] = []
    for stmt in walk_statements(src.tree.body):
        if name in binds(stmt) | scope_binds(stmt):
            lines.append(stmt.lineno)
    for scope in ast.walk(src.tree):
        if isinstance(scope, _FUNCTIONS) and any(
            isinstance(s, ast.Global) and name in s.names for s in walk_statements(scope.body)
        ):
            lines += [s.lineno for s in walk_statements(scope.body) if name in binds(s)]
    later = sorted(line for line in lines if line != min(lines, default=0))
    if later:
        raise RefactoringError(
            f"inline `{function.name}`: the default `{name}` of `{param}` is read when "
            f"`{function.name}` is defined, but `{name}` is bound again at {rel}:{later[0]}; "
            "pasted into the calls it would read the value at each call"
        )
