"""Checking new names before rope is asked to use them.

rope happily renames ``x`` to ``class`` or to a name already bound in the same scope;
both break the program. ``check_identifier`` rejects non-identifiers and keywords,
``check_clash`` rejects a name that is already bound where the renamed one is defined.
"""

from __future__ import annotations

import ast
import builtins
import keyword

from lsp_server.project.text import parse_python
from lsp_server.refactor.model import InvalidNameError


def check_identifier(name: str, what: str = "name") -> None:
    if not name or not name.isidentifier():
        raise InvalidNameError(f"{name!r} is not a valid Python {what}")
    if keyword.iskeyword(name):
        raise InvalidNameError(f"{name!r} is a Python keyword")


def check_module_name(name: str) -> None:
    """A module may be given as ``name`` or ``name.py``; each dotted part must be valid."""
    base = name[:-3] if name.endswith(".py") else name
    for part in base.split("."):
        check_identifier(part, "module name")


def _bound_names(scope: ast.AST) -> set[str]:
    """Names bound directly in ``scope`` (not in nested functions/classes)."""
    names: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = scope.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            names.add(arg.arg)
        if args.vararg:
            names.add(args.vararg.arg)
        if args.kwarg:
            names.add(args.kwarg.arg)
    body = getattr(scope, "body", [])
    todo: list[ast.AST] = list(body) if isinstance(body, list) else [body]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            todo.extend(node.decorator_list)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        todo.extend(ast.iter_child_nodes(node))
    return names


def self_attributes(cls: ast.ClassDef) -> list[str]:
    """Attributes assigned as ``self.x = ...`` in the methods of ``cls``, in order."""
    seen: dict[str, None] = {}
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            seen.setdefault(node.attr, None)
    return list(seen)


def _enclosing_scopes(tree: ast.Module, line: int) -> list[ast.AST]:
    """Scopes (module, classes, functions) whose text contains ``line``, outermost first."""
    chain: list[ast.AST] = [tree]
    node: ast.AST = tree
    while True:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.stmt):
                continue
            first = min([child.lineno, *(d.lineno for d in getattr(child, "decorator_list", []))])
            if first <= line <= (child.end_lineno or child.lineno):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    chain.append(child)
                node = child
                break
        else:
            return chain


def check_clash(
    source: str,
    def_line: int,
    old: str,
    new: str,
    is_attribute: bool,
    tree: ast.Module | None = None,
) -> None:
    """Raise ``InvalidNameError`` if ``new`` is already bound where ``old`` is defined.

    ``def_line`` (1-based) is the line of the definition of ``old`` in ``source``;
    ``tree`` is its syntax tree when the caller has it (rope's: not parsed again).
    """
    if old == new:
        raise InvalidNameError(f"the new name is the same as the old one ({old!r})")
    if tree is None:
        try:
            tree = parse_python(source)
        except SyntaxError:
            return  # rope will report the syntax error itself
    scopes = _enclosing_scopes(tree, def_line)
    # The scope that binds `old`: the innermost scope binding it, skipping the definition
    # itself when `old` is the name of a def/class on that line.
    for scope in reversed(scopes):
        is_itself = isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
            scope.name == old and scope.lineno == def_line
        )
        if is_itself:
            continue
        bound = _bound_names(scope)
        if isinstance(scope, ast.ClassDef) and is_attribute:
            bound.update(self_attributes(scope))
        if old in bound or (isinstance(scope, ast.ClassDef) and is_attribute):
            if new in bound:
                where = "module" if isinstance(scope, ast.Module) else f"`{scope.name}`"  # type: ignore[attr-defined]
                raise InvalidNameError(f"{new!r} is already defined in {where}")
            if (
                isinstance(scope, ast.Module)
                and hasattr(builtins, new)
                and new in _used_names(tree)
            ):
                raise InvalidNameError(f"{new!r} would shadow the builtin used in this module")
            return


def _used_names(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def check_free(source: str, line: int, name: str, where: str) -> None:
    """Raise ``InvalidNameError`` if ``name`` is already bound where a refactoring adds it.

    ``where`` is ``"function"`` (a new local: the innermost function around ``line``),
    ``"class"`` (a new method: the class around ``line``, else the module) or ``"module"``.
    """
    try:
        tree = parse_python(source)
    except SyntaxError:
        return
    scopes = _enclosing_scopes(tree, line)
    kinds: tuple[type, ...] = {
        "function": (ast.FunctionDef, ast.AsyncFunctionDef),
        "class": (ast.ClassDef,),
        "module": (ast.Module,),
    }[where]
    scope = next((s for s in reversed(scopes) if isinstance(s, kinds)), tree)
    bound = _bound_names(scope)
    if isinstance(scope, ast.ClassDef):
        bound.update(self_attributes(scope))
    if name in bound:
        label = "the module" if isinstance(scope, ast.Module) else f"`{scope.name}`"  # type: ignore[attr-defined]
        raise InvalidNameError(f"{name!r} is already defined in {label}")
