"""Inline variable: every use of the variable becomes its defining expression.

That preserves behaviour only when the expression's inputs still hold the same values at
each use (no rebinding between the definition and the use, nor in a loop around the use,
nor before a nested function runs), when evaluating it more often or later is harmless
(no calls with effects, no fresh mutable objects), and when each use reads it as one
operand (rope pastes the text: ``y * 2`` with ``y = n + 1`` must become ``(n + 1) * 2``).
Precedence is mended here; the rest is refused, naming the reason and the place.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lsp_server.refactor.context import Context, Planned
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.semantics.edit import Source, new_text, old_source, place, with_new_text
from lsp_server.refactor.semantics.flow import binds, reads, scope_binds, walk_statements
from lsp_server.refactor.semantics.mutation import mutation
from lsp_server.refactor.semantics.precedence import mend_precedence

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DEFERRED = (*_SCOPES, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_PURE_CALLS = frozenset(
    {"len", "str", "int", "float", "bool", "abs", "min", "max", "sum", "repr", "round"}
    | {"ord", "chr", "hash", "isinstance", "type", "format", "divmod", "pow", "frozenset"}
)
_EFFECTS = (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)
_FRESH = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.Lambda)


@dataclass
class Inlined:
    """The variable being inlined: its scope, definition and uses in the current file."""

    name: str
    scope: ast.AST
    definition: ast.Assign
    uses: list[ast.Name]
    parents: dict[ast.AST, ast.AST]


def _find(src: Source, offset: int) -> Inlined | None:
    parents = {c: p for p in ast.walk(src.tree) for c in ast.iter_child_nodes(p)}
    at = [
        n
        for n in ast.walk(src.tree)
        if isinstance(n, ast.Name) and src.start(n) <= offset <= src.end(n)
    ]
    if not at:
        return None
    name = at[0].id
    node: ast.AST = at[0]
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            definitions = [s for s in walk_statements(node.body) if name in _bound(s)]
            if definitions:
                break
    else:
        return None
    scope = node
    if len(definitions) != 1 or not isinstance(definitions[0], ast.Assign):
        return None
    definition = definitions[0]
    if len(definition.targets) != 1 or not isinstance(definition.targets[0], ast.Name):
        return None
    uses = _uses(scope, name, definition)
    return Inlined(name, scope, definition, uses, parents)


def _bound(stmt: ast.stmt) -> set[str]:
    return binds(stmt) | scope_binds(stmt)


def _uses(scope: ast.AST, name: str, definition: ast.Assign) -> list[ast.Name]:
    """Reads of ``name`` in ``scope`` and in nested scopes that do not bind it themselves."""
    found: list[ast.Name] = []
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if node is definition.targets[0]:
            continue
        if isinstance(node, _DEFERRED) and node is not scope and _binds_itself(node, name):
            continue
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _binds_itself(node: ast.AST, name: str) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and name in {
        a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)
    }:
        return True
    if isinstance(node, ast.Lambda):
        return False
    body = getattr(node, "body", None)
    if isinstance(body, list):
        return any(name in binds(s) | scope_binds(s) for s in walk_statements(body))
    generators = getattr(node, "generators", [])
    return any(
        isinstance(n, ast.Name) and n.id == name for g in generators for n in ast.walk(g.target)
    )


def _ancestors(found: Inlined, node: ast.AST) -> list[ast.AST]:
    out = []
    while node in found.parents and node is not found.scope:
        node = found.parents[node]
        out.append(node)
    return out


def _deferred(found: Inlined, use: ast.Name) -> bool:
    return any(isinstance(a, _DEFERRED) for a in _ancestors(found, use))


def _loops_around(found: Inlined, node: ast.AST) -> set[int]:
    return {id(a) for a in _ancestors(found, node) if isinstance(a, _LOOPS)}


def is_pure(value: ast.expr, fresh: bool = False) -> bool:
    """Whether evaluating ``value`` again gives an equal value and has no effects; with
    ``fresh``, a value that makes new objects (``a + [0]``) counts too."""
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _PURE_CALLS):
                return False
        elif isinstance(node, _EFFECTS) or (isinstance(node, _FRESH) and not fresh):
            return False
    return True


def _refuse_rebound(ctx: Context, found: Inlined, name: str, line: int, use: ast.Name) -> None:
    raise RefactoringError(
        f"inline `{found.name}`: `{name}` is assigned again at {place(ctx, line)}, between "
        f"the definition ({place(ctx, found.definition.lineno)}) and the use at "
        f"{place(ctx, use.lineno)}; the inlined expression would read another value"
    )


def _refuse_mutated(ctx: Context, found: Inlined, what: str, line: int, use: ast.Name) -> None:
    raise RefactoringError(
        f"inline `{found.name}`: `{what}` at {place(ctx, line)} may change in place an object "
        f"the value ({place(ctx, found.definition.lineno)}) reads, before the use at "
        f"{place(ctx, use.lineno)}; the inlined expression would read the changed object"
    )


def _check_inputs(ctx: Context, found: Inlined, src: Source) -> None:
    """Refuse when an input of the expression may be rebound before a use reads it."""
    inputs = reads(found.definition.value)
    defined_at = src.end(found.definition)
    def_loops = _loops_around(found, found.definition)
    statements = list(walk_statements(getattr(found.scope, "body", [])))
    for use in found.uses:
        use_at = src.start(use)
        late = _deferred(found, use)
        loops = _loops_around(found, use) - def_loops
        for stmt in statements:
            rebound = inputs & _bound(stmt)
            if not rebound or stmt is found.definition:
                continue
            at = src.start(stmt)
            between = defined_at <= at < use_at or (late and at >= defined_at)
            if between or loops & _loops_around(found, stmt):
                _refuse_rebound(ctx, found, sorted(rebound)[0], stmt.lineno, use)
        holder = next((a for a in _ancestors(found, use) if isinstance(a, ast.stmt)), None)
        for stmt in statements:
            until = use if stmt is holder else None
            changed = mutation(stmt, found.definition.value, inputs, until)
            at = src.start(stmt)
            between = defined_at <= at < use_at or (late and at >= defined_at)
            if changed is not None and (between or loops & _loops_around(found, stmt)):
                _refuse_mutated(ctx, found, src.segment(changed), stmt.lineno, use)
        for scope in _ancestors(found, use)[:-1]:  # the variable's own scope is last
            shadowed = sorted(
                n for n in inputs if isinstance(scope, _DEFERRED) and _binds_itself(scope, n)
            )
            if shadowed:
                _refuse_rebound(ctx, found, shadowed[0], scope.lineno, use)  # type: ignore[attr-defined]


def _evaluated_once_next(found: Inlined, use: ast.Name) -> bool:
    """Whether ``use`` is read exactly once, right after the definition runs: in the header
    of the next statement of the same block, not under a lazy or repeated construct."""
    chain = _ancestors(found, use)
    statement = next((a for a in chain if isinstance(a, ast.stmt)), None)
    if statement is None or isinstance(statement, ast.While):
        return False
    lazy = (ast.BoolOp, ast.IfExp, ast.Lambda, *_DEFERRED)
    if any(isinstance(a, lazy) for a in chain[: chain.index(statement)]):
        return False
    holder = found.parents.get(found.definition)
    siblings = _block_of(holder, found.definition)
    index = siblings.index(found.definition)
    return index + 1 < len(siblings) and siblings[index + 1] is statement


def _evaluated_once_later(found: Inlined, use: ast.Name) -> bool:
    """Whether ``use`` is read at most once per run of the definition: in no loop, lazy
    construct or nested scope the definition is not in too."""
    chain = _ancestors(found, use)
    around_definition = {id(a) for a in _ancestors(found, found.definition)}
    lazy = (ast.BoolOp, ast.IfExp, ast.While, *_LOOPS, *_DEFERRED)
    return not any(isinstance(a, lazy) and id(a) not in around_definition for a in chain)


def _block_of(holder: ast.AST | None, stmt: ast.stmt) -> list[ast.stmt]:
    for name in ("body", "orelse", "finalbody"):
        block = getattr(holder, name, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    for part in [*getattr(holder, "handlers", []), *getattr(holder, "cases", [])]:
        if any(s is stmt for s in part.body):
            return part.body
    return [stmt]


def _check_single_evaluation(ctx: Context, found: Inlined) -> None:
    if is_pure(found.definition.value) or not found.uses:
        return
    use = found.uses[0]
    reason = None
    if len(found.uses) > 1:
        reason = f"it is used {len(found.uses)} times"
    elif not _evaluated_once_next(found, use):
        # Made once, later, a new object nobody else saw is the same as made at once.
        if is_pure(found.definition.value, fresh=True) and _evaluated_once_later(found, use):
            return
        reason = "its use is not evaluated exactly once, right after the definition"
    if reason:
        raise RefactoringError(
            f"inline `{found.name}`: its value ({place(ctx, found.definition.lineno)}) may have "
            f"side effects or make a new object, and {reason} (first use at "
            f"{place(ctx, use.lineno)}); inlining would evaluate it differently"
        )


def check_reads_same_value(ctx: Context, src: Source, offset: int) -> None:
    """Refuse unless every use of the variable defined at ``offset`` in ``src`` reads the
    value its definition computed (what extracting it with similar occurrences needs)."""
    found = _find(src, offset)
    if found is None:
        return
    _check_inputs(ctx, found, src)
    if not is_pure(found.definition.value) and len(found.uses) > 1:
        raise RefactoringError(
            f"`{found.name}` stands for {len(found.uses)} evaluations of "
            f"`{src.segment(found.definition.value)}`, which may have side effects or make "
            "a new object each time"
        )


def check_inline(ctx: Context, planned: Planned) -> Planned:
    """Refuse or mend rope's inline of a variable where behaviour would change."""
    if planned.kind != "inline-variable":
        return planned
    old = old_source(ctx)
    after = new_text(ctx, planned)
    if old is None or after is None:
        return planned
    found = _find(old, ctx.offset)
    if found is None:
        return planned
    if ctx.arg("only_current", False):
        found.uses = [u for u in found.uses if old.start(u) <= ctx.offset <= old.end(u)]
    _check_inputs(ctx, found, old)
    _check_single_evaluation(ctx, found)
    mended = mend_precedence(ctx, old, after, found.definition, found.uses)
    return planned if mended is None else with_new_text(ctx, planned, mended)
