"""Inline a function (rope's ``InlineMethod``) or a parameter's default (``InlineParameter``).

rope pastes the body's text into each caller, with each parameter replaced by its
argument's text (or the default's). That keeps behaviour only when each argument with
effects is evaluated exactly once, in the caller's order, before the body's own effects;
when the body does not assign a parameter; when the names the body reads mean the same
at the call site (a caller's local ``K`` is not the global ``K``); when a default, which
Python evaluates once at the ``def``, gives the same value evaluated at every call (a
literal); when the statements rope hoists before the caller's statement ran there
anyway (not in a ``while`` condition, after ``and``, ...); and when the pasted expression
parses as one operand (``h(3) * 2`` with ``return a + 1``). Precedence is mended here
(``inline_paste``); the rest is refused, naming the reason and the place.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass

from rope.base.change import ChangeContents, ChangeSet

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.semantics.edit import Source, new_text, old_source, with_new_text
from lsp_server.refactor.semantics.extract_variable import evaluated_before, lazy_reason
from lsp_server.refactor.semantics.flow import binds, reads, scope_binds, walk_statements
from lsp_server.refactor.semantics.inline_binding import (
    check_aliases,
    check_capture,
    check_default_rebound,
    check_late_binding,
    deferred_reason,
    literal,
)
from lsp_server.refactor.semantics.inline_paste import mend_inlined_calls, parameter_defaults
from lsp_server.refactor.semantics.inline_variable import is_pure
from lsp_server.refactor.semantics.precedence import ATOMS, slot
from lsp_server.rts.lookups import own_nodes

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (*_FUNCTIONS, ast.Lambda, ast.ClassDef)
_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)
_YIELDS = (ast.Yield, ast.YieldFrom)
_BUILTINS = frozenset(dir(builtins))
Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class CallSite:
    """A call of the inlined function in a file rope changes: where, and each parameter's
    argument (``None``: the parameter's default)."""

    rel: str
    src: Source
    call: ast.Call
    parents: dict[ast.AST, ast.AST]
    arguments: dict[str, ast.expr | None]

    def where(self) -> str:
        return f"{self.rel}:{self.call.lineno}"


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}


def _function_at(src: Source, offset: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose header (``def`` up to its body) holds ``offset``."""
    found: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    for node in ast.walk(src.tree):
        if not isinstance(node, _FUNCTIONS):
            continue
        in_header = src.start(node) <= offset < src.start(node.body[0])
        if in_header and (found is None or src.start(node) > src.start(found)):
            found = node
    return found


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = function.args
    return [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]


def _bind_arguments(function: Function, call: ast.Call, method: bool):
    """parameter -> argument node (None: the default), or None when it cannot be told.
    A method called through an attribute binds its first parameter to the receiver."""
    params = _parameters(function)
    positional = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    bound: dict[str, ast.expr | None] = {}
    if method and isinstance(call.func, ast.Attribute) and positional:
        bound[positional.pop(0)] = call.func.value
    if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) > len(positional):
        return None
    bound.update(zip(positional, call.args, strict=False))
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in params:
            return None
        bound[keyword.arg] = keyword.value
    defaults = parameter_defaults(function)
    for param in params:
        if param not in bound and param not in defaults:
            return None
        bound.setdefault(param, None)
    return bound


def _is_method(src: Source, function: ast.AST) -> bool:
    """Whether ``function`` is a method whose first parameter is bound (not static)."""
    holder = _parents(src.tree).get(function)
    decorators = {d.id for d in getattr(function, "decorator_list", []) if isinstance(d, ast.Name)}
    return isinstance(holder, ast.ClassDef) and "staticmethod" not in decorators


def _old_files(ctx: Context, planned: Planned) -> Iterator[tuple[str, Source]]:
    """Each file rope changes, as it is before the refactoring."""
    todo = [planned.changes] if planned.changes is not None else []
    seen: set[str] = set()
    while todo:
        change = todo.pop()
        if isinstance(change, ChangeSet):
            todo.extend(reversed(change.changes))
        elif isinstance(change, ChangeContents) and change.resource.path not in seen:
            seen.add(change.resource.path)
            if change.resource.path == ctx.resource.path:
                src = old_source(ctx)
            else:
                src = Source.parse(change.resource.read())
            if src is not None:
                yield change.resource.path, src


def call_sites(ctx: Context, planned: Planned, function: Function, method: bool):
    """Every call of ``function`` (by its name) in the files rope changes."""
    sites: list[CallSite] = []
    for rel, src in _old_files(ctx, planned):
        parents = _parents(src.tree)
        for node in ast.walk(src.tree):
            if not isinstance(node, ast.Call) or _inside(node, function):
                continue
            func = node.func
            named = isinstance(func, ast.Name) and func.id == function.name
            if not named and not (isinstance(func, ast.Attribute) and func.attr == function.name):
                continue
            arguments = _bind_arguments(function, node, method)
            if arguments is None:
                raise RefactoringError(
                    f"inline `{function.name}`: the call at {rel}:{node.lineno} passes "
                    "arguments that cannot be matched to parameters (`*`/`**`, too many or too few)"
                )
            sites.append(CallSite(rel, src, node, parents, arguments))
    return sites


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    return any(n is node for n in ast.walk(outer))


def _uses(function: ast.AST, name: str) -> list[ast.Name]:
    found = [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _lazy_in_body(function: ast.AST, use: ast.AST) -> str | None:
    deferred = deferred_reason(function, use)
    if deferred is not None:
        return deferred
    parents = _parents(function)
    node = use
    while node in parents and node is not function:
        parent = parents[node]
        reason = lazy_reason(node, parent)
        blocks = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.Match)
        if reason is None and isinstance(node, ast.stmt) and isinstance(parent, blocks):
            reason = "it is inside a block that may not run"
        if reason is not None:
            return reason
        node = parent
    return None


def _effect_points(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[int, int]]:
    """Where the body's own effects happen (a call: once its arguments are evaluated)."""
    points = []
    for stmt in function.body:
        for node in ast.walk(stmt):
            if isinstance(node, _EFFECTS) and not (isinstance(node, ast.Call) and is_pure(node)):
                points.append((node.end_lineno or 0, node.end_col_offset or 0))
    return points


def _check_arguments(function, site: CallSite) -> None:
    """Arguments with effects: evaluated exactly once, in the caller's order, first."""
    name = function.name
    effects = _effect_points(function)
    last: tuple[int, int] = (0, 0)
    for param, argument in site.arguments.items():
        if argument is None or is_pure(argument):
            continue
        uses = _uses(function, param)
        problem = None
        if len(uses) != 1:
            problem = f"evaluated {len(uses)} times instead of once"
        elif reason := _lazy_in_body(function, uses[0]):
            problem = f"not evaluated exactly once: its parameter's use {reason}"
        else:
            at = (uses[0].lineno, uses[0].col_offset)
            if at < last or any(point < at for point in effects):
                problem = "evaluated in another order relative to other arguments or the body"
            last = at
        if problem:
            raise RefactoringError(
                f"inline `{name}`: the argument `{site.src.segment(argument)}` for `{param}` at "
                f"{site.where()} would be {problem} (it may have side effects)"
            )


def _scope_names(site: CallSite) -> set[str]:
    """Names the call site's enclosing functions and classes bind (their locals)."""
    names: set[str] = set()
    node: ast.AST = site.call
    while node in site.parents:
        node = site.parents[node]
        if isinstance(node, _FUNCTIONS):
            names |= {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            for stmt in walk_statements(node.body):
                names |= binds(stmt) | scope_binds(stmt)
    return names


def _free_reads(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    local = set(_parameters(function))
    for stmt in walk_statements(function.body):
        local |= binds(stmt) | scope_binds(stmt)
    read: set[str] = set()
    for stmt in function.body:
        read |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    return read - local - _BUILTINS


def _check_names(function, site: CallSite) -> None:
    """The body's global names and the defaults rope pastes must mean the same there."""
    defaults = parameter_defaults(function)
    shadowed = _scope_names(site)
    pasted = set(_free_reads(function))
    for param, argument in site.arguments.items():
        if argument is not None or param not in defaults or not _uses(function, param):
            continue
        check_default(function.name, param, defaults[param], site)
        pasted |= reads(defaults[param])
    clash = sorted(pasted & shadowed)
    if clash:
        raise RefactoringError(
            f"inline `{function.name}`: it reads the global `{clash[0]}`, but the caller at "
            f"{site.where()} has a local `{clash[0]}`; the inlined code would read that instead"
        )


def check_default(name: str, param: str, default: ast.expr, site: CallSite) -> None:
    """A default is evaluated once, at the ``def``; pasted into a call it runs every time."""
    if literal(default) or isinstance(default, ast.Name):
        return
    raise RefactoringError(
        f"inline `{name}`: the default `{ast.unparse(default)}` of `{param}` is evaluated once, "
        f"when `{name}` is defined; pasted into the call at {site.where()} it would be "
        "evaluated at every call (a new object or repeated effects)"
    )


def _check_hoisting(function, site: CallSite) -> None:
    """rope puts the body's statements before the caller's statement: the call must have
    been evaluated there, first, exactly once."""
    if len(function.body) == 1 and isinstance(function.body[0], ast.Return):
        return
    child: ast.AST = site.call
    while not isinstance(child, ast.stmt) and child in site.parents:
        parent = site.parents[child]
        reason = lazy_reason(child, parent)
        if reason is None and isinstance(parent, ast.stmt):
            earlier = [
                n
                for n in evaluated_before(parent, site.call, site.src)
                if isinstance(n, _EFFECTS) and not _inside(n, site.call)
            ]
            if earlier:
                reason = f"`{site.src.segment(earlier[0])}` is evaluated before the call"
        if reason is not None:
            raise RefactoringError(
                f"inline `{function.name}`: its body's statements would run before the "
                f"statement holding the call at {site.where()}, but {reason}"
            )
        child = parent


def _check_operand(function, site: CallSite) -> None:
    """rope pastes the last ``return``'s text in place of the call, without parentheses."""
    last = function.body[-1]
    if len(function.body) == 1 or not isinstance(last, ast.Return) or last.value is None:
        return
    if not isinstance(last.value, ATOMS) and not slot(site.call, site.parents.get(site.call)):
        raise RefactoringError(
            f"inline `{function.name}`: the call at {site.where()} is an operand, and rope "
            f"would paste `{ast.unparse(last.value)}` there without parentheses"
        )


def _check_body(function) -> None:
    yields = [n for s in function.body for n in own_nodes(s) if isinstance(n, _YIELDS)]
    if yields:
        raise RefactoringError(
            f"inline `{function.name}`: `{function.name}` is a generator (`yield` on line "
            f"{yields[0].lineno}); its body pasted into a caller would make the caller one"
        )
    params = set(_parameters(function))
    for stmt in walk_statements(function.body):
        assigned = sorted(binds(stmt) & params)
        if assigned:
            raise RefactoringError(
                f"inline `{function.name}`: its body assigns the parameter `{assigned[0]}` "
                f"(line {stmt.lineno}); rope would rebind the caller's argument instead"
            )


def check_inline_function(ctx: Context, planned: Planned) -> Planned:
    """Refuse or mend rope's inline of a function where behaviour would change."""
    old = old_source(ctx)
    function = _function_at(old, ctx.offset) if old is not None else None
    if old is None or function is None:
        return planned
    _check_body(function)
    method = _is_method(old, function)
    if not method:
        check_aliases(ctx, function)
    sites = call_sites(ctx, planned, function, method)
    defaults = parameter_defaults(function)
    for site in sites:
        _check_arguments(function, site)
        for param, argument in site.arguments.items():
            value = argument if argument is not None else defaults[param]
            check_late_binding(function, param, value, site.where())
            check_capture(function, param, argument, site.src, site.where())
        _check_names(function, site)
        _check_hoisting(function, site)
        _check_operand(function, site)
    after = new_text(ctx, planned)
    here = [s for s in sites if s.rel == ctx.resource.path]
    if after is None or not here:
        return planned
    mended = mend_inlined_calls(
        ctx, here[0].src, after, function, [(s.call, s.arguments) for s in here]
    )
    return planned if mended is None else with_new_text(ctx, planned, mended)


def _parameter_at(src: Source, offset: int):
    for node in ast.walk(src.tree):
        if isinstance(node, _FUNCTIONS):
            for arg in _parameters_nodes(node):
                if src.start(arg) <= offset <= src.end(arg):
                    return node, arg.arg
    return None


def _parameters_nodes(function) -> list[ast.arg]:
    args = function.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def check_inline_parameter(ctx: Context, planned: Planned) -> Planned:
    """rope's inline of a parameter pastes its default into every call that omits it."""
    old = old_source(ctx)
    found = _parameter_at(old, ctx.offset) if old is not None else None
    if old is None or found is None:
        return planned
    function, param = found
    default = parameter_defaults(function).get(param)
    if default is None:
        return planned
    check_default_rebound(old, function, param, default, ctx.rel)
    for site in call_sites(ctx, planned, function, _is_method(old, function)):
        if site.arguments.get(param) is None:
            check_default(function.name, param, default, site)
            clash = sorted(reads(default) & _scope_names(site))
            if clash:
                raise RefactoringError(
                    f"inline `{param}`: its default reads `{clash[0]}`, but the caller at "
                    f"{site.where()} has a local `{clash[0]}`; the pasted default would read that"
                )
    return planned
