"""Static features of a refactoring request: the constructs near the target that make
engines fail (``getattr`` by name, ``super()`` calls, augmented assignment in a selection,
...). The same detector describes generated programs (to learn failing shapes) and the
user's code (to match them), so shapes and requests speak the same vocabulary."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping

from lsp_server.astgen.client_features import client_features, module_client_features
from lsp_server.project.text import identifier_at, line_starts, offset_of

_INTROSPECTION = {"getattr", "setattr", "hasattr", "delattr"}


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _ancestors(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> Iterator[ast.AST]:
    while node in parents:
        node = parents[node]
        yield node


def _span(node: ast.AST, starts: list[int]) -> tuple[int, int]:
    start = offset_of(starts, node.lineno, node.col_offset)  # type: ignore[attr-defined]
    end = offset_of(starts, node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
    return start, end


def features(kind: str, source: str, offset: int, end: int | None = None) -> frozenset[str]:
    """The features of performing ``kind`` at ``offset`` (..``end``) of ``source``; empty
    when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    if kind == "rename":
        return frozenset(_rename(tree, identifier_at(source, offset)))
    if kind == "extract-method" and end is not None:
        return frozenset(_extract_method(tree, source, offset, end))
    if kind == "extract-variable" and end is not None:
        return frozenset(_extract_variable(tree, source, offset, end))
    if kind == "inline":
        return frozenset(_inline(tree, identifier_at(source, offset)))
    return frozenset()


def _class_bases(tree: ast.AST) -> dict[str, set[str]]:
    return {
        node.name: {b.id for b in node.bases if isinstance(b, ast.Name)}
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }


def _rename(tree: ast.AST, name: str) -> Iterator[str]:
    if not name:
        return
    parents = _parents(tree)
    defining: list[str] = []  # classes defining ``name`` as a member
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            if node.name == name:
                yield "target:class"
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    defining.append(node.name)
                    yield "target:method"
                    for deco in item.decorator_list:
                        deco_name = deco.id if isinstance(deco, ast.Name) else "other"
                        known = {"property", "staticmethod", "classmethod"}
                        yield f"decorator:{deco_name if deco_name in known else 'other'}"
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                        defining.append(node.name)
                        yield "target:class-attribute"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name == name and not isinstance(parents.get(node), ast.ClassDef):
                yield "target:function"
            if any(a.arg == name for a in node.args.args + node.args.kwonlyargs):
                yield "target:parameter"
        elif isinstance(node, ast.Attribute) and node.attr == name:
            yield from _attribute_use(node, parents)
        elif isinstance(node, ast.Name) and node.id == name:
            for up in _ancestors(node, parents):
                if isinstance(up, ast.JoinedStr):
                    yield "use:fstring"
                if isinstance(up, ast.Lambda):
                    yield "use:lambda"
        elif isinstance(node, ast.Call):
            func = node.func
            if (
                isinstance(func, ast.Name)
                and func.id in _INTROSPECTION
                and any(isinstance(a, ast.Constant) and a.value == name for a in node.args)
            ):
                yield "use:getattr-string"
            if any(k.arg == name for k in node.keywords):
                yield "use:keyword-argument"
        elif isinstance(node, ast.alias) and name in (node.name, node.asname):
            yield "import:aliased" if node.asname else "import:plain"
    bases = _class_bases(tree)
    for cls in defining:
        for other in (o for o in defining if o != cls):
            if cls in _all_bases(other, bases):
                yield "hierarchy:redefined-in-subclass"
            elif other not in _all_bases(cls, bases):
                yield "hierarchy:same-name-unrelated-class"


def _all_bases(cls: str, bases: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(bases.get(cls, ()))
    while todo:
        base = todo.pop()
        if base not in seen:
            seen.add(base)
            todo.extend(bases.get(base, ()))
    return seen


def _attribute_use(node: ast.Attribute, parents: dict[ast.AST, ast.AST]) -> Iterator[str]:
    value = node.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
    ):
        yield "use:super-call"
    elif isinstance(value, ast.Name) and value.id not in ("self", "cls"):
        for up in _ancestors(node, parents):
            if isinstance(up, (ast.FunctionDef, ast.Lambda)):
                args = up.args.args + up.args.kwonlyargs
                if any(a.arg == value.id for a in args):
                    yield "use:attribute-of-parameter"
                break
    parent = parents.get(node)
    is_self = isinstance(value, ast.Name) and value.id == "self"
    if isinstance(parent, ast.Assign) and node in parent.targets and is_self:
        yield "target:instance-attribute"
    if isinstance(parent, ast.AugAssign) and parent.target is node:
        yield "use:augmented-assignment"
    for up in _ancestors(node, parents):
        if isinstance(up, ast.JoinedStr):
            yield "use:fstring"
        elif isinstance(up, ast.Lambda):
            yield "use:lambda"
        elif isinstance(up, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            yield "use:comprehension"
        elif isinstance(up, ast.arguments):
            yield "use:default-value"
        elif isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(parents.get(up), (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield "use:closure"
            break


def _enclosing_function(tree: ast.AST, start: int, end: int, starts: list[int]) -> ast.AST:
    best: ast.AST = tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a, b = _span(node, starts)
            if a <= start and end <= b:
                best = node
    return best


def _names(node: ast.AST, store: bool) -> set[str]:
    kind = ast.Store if store else ast.Load
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, kind)}


def _extract_method(tree: ast.AST, source: str, start: int, end: int) -> Iterator[str]:
    starts = line_starts(source)
    function = _enclosing_function(tree, start, end, starts)
    selected = [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.stmt) and n is not function
        and start <= _span(n, starts)[0] and _span(n, starts)[1] <= end
    ]  # fmt: skip
    if not selected:
        yield "selection:partial"
        return
    written: set[str] = set()
    for stmt in selected:
        written |= _names(stmt, store=True)
        name = type(stmt).__name__.lower()
        if isinstance(stmt, ast.AugAssign):
            yield "selection:augmented-assignment"
        elif isinstance(stmt, (ast.Return, ast.Break, ast.Continue, ast.For, ast.While, ast.If)):
            yield f"selection:{name}"
        for node in ast.walk(stmt):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                yield "selection:yield"
    after = [
        n for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        and offset_of(starts, n.lineno, n.col_offset) >= end
    ]  # fmt: skip
    live_out = written & {n.id for n in after}
    yield "selection:live-out" if live_out else "selection:no-live-out"
    parents = _parents(tree)
    if any(isinstance(up, (ast.For, ast.While)) for up in _ancestors(selected[0], parents)):
        yield "selection:inside-loop"


def _extract_variable(tree: ast.AST, source: str, start: int, end: int) -> Iterator[str]:
    starts = line_starts(source)
    parents = _parents(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.expr) and _span(node, starts) == (start, end):
            yield f"expression:{type(node).__name__.lower()}"
            child: ast.AST = node
            for up in _ancestors(node, parents):
                if isinstance(up, ast.While) and child is up.test:
                    yield "expression:loop-condition"
                if isinstance(up, (ast.For, ast.While)) and child in up.body:
                    yield "expression:in-loop-body"
                child = up
            return
    yield "expression:partial"


def assigned_anywhere(tree: ast.AST) -> list[ast.Name]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _inline(tree: ast.AST, name: str) -> Iterator[str]:
    parents = _parents(tree)
    assigned = [
        n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        and n.id == name
    ]  # fmt: skip
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    if functions:
        yield "inline:function"
    if assigned:
        yield "inline:variable"
        if len(assigned) > 1:
            yield "inline:assigned-twice"
        definition = parents.get(assigned[0])
        if isinstance(definition, ast.Assign):
            inputs = _names(definition.value, store=False)
            later = [
                n
                for n in assigned_anywhere(tree)
                if n.id in inputs and n.lineno > definition.lineno
            ]
            if later:
                yield "inline:input-rebound"
            if isinstance(definition.value, (ast.BinOp, ast.BoolOp, ast.Compare)):
                yield "inline:compound-value"
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id == name:
            parent = parents.get(node)
            if isinstance(parent, ast.BinOp):
                yield "inline:use-in-operation"
            if isinstance(parent, ast.Call) and parent.func is node:
                grand = parents.get(parent)
                if isinstance(grand, (ast.BinOp, ast.BoolOp, ast.Compare)):
                    yield "inline:call-in-expression"
                if parent.keywords:
                    yield "inline:keyword-call"
            for up in _ancestors(node, parents):
                if isinstance(up, ast.JoinedStr):
                    yield "inline:use-in-fstring"
                elif isinstance(up, (ast.For, ast.While)):
                    yield "inline:use-in-loop"
                elif isinstance(up, ast.keyword):
                    yield "inline:use-as-keyword-value"
                elif isinstance(up, ast.FunctionDef) and up.name != name:
                    if isinstance(parents.get(up), ast.FunctionDef):
                        yield "inline:use-in-closure"
                    break


def request_features(
    kind: str,
    source: str,
    offset: int,
    end: int | None = None,
    files: Mapping[str, str] | None = None,
    path: str | None = None,
) -> frozenset[str]:
    """``features``, plus with the project's ``files`` (before the task) and the source
    ``path``: for a ``move`` of a global how its clients refer to it
    (``client_features``), for a ``rename-module`` how other modules import the module
    (``module_client_features``)."""
    found = features(kind, source, offset, end)
    if files is None or path is None:
        return found
    if kind == "move":
        found |= client_features(files, path, identifier_at(source, offset))
    elif kind == "rename-module":
        found |= module_client_features(files, path)
    return found
