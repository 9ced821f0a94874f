"""Where our own extract method (``extract_jumps``) puts the new function.

- In a plain method of a module-level class (unless ``--global``): a method after it,
  called through the receiver (``self.new(...)``).
- Otherwise, when the selection's function (or the class holding it, and so on up) is a
  module-level statement: a module-level function after that statement, called by name.
  A static or class method's region reads no receiver of its own (``cls`` is passed like
  any variable), and a method body skips its class's scope, so the names the region reads
  mean the same in a module-level function.
- Inside another function (a nested function, or a method of a local class): a function
  defined right before the nested statement, in the same block, called by name. It is
  defined whenever that statement is, and it reads the enclosing functions' variables
  through the same closures. The name must be new to the enclosing function: binding it
  there would change what the function's other uses of the name mean.

Leaving a class, a region must not name a private ``__name``: Python mangles it with the
class's name inside the class only.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lsp_server.refactor.context import Context
from lsp_server.refactor.model import RefactoringError
from lsp_server.refactor.semantics.edit import Source, place
from lsp_server.refactor.semantics.region import RegionFlow

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Placement:
    """Where the new function's text goes and how the call site reaches it."""

    insert_at: int
    def_indent: str
    receiver: str | None
    """The enclosing method's ``self`` when the new function is a method."""
    before: bool
    """Inserted before the statement holding the selection (else after it)."""


def _line_end(text: str, offset: int) -> int:
    found = text.find("\n", offset)
    return len(text) if found < 0 else found


def _is_plain_method(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    decorators = {d.id for d in function.decorator_list if isinstance(d, ast.Name)}
    return not decorators & {"staticmethod", "classmethod"} and bool(function.args.args)


def _mangled(flow: RegionFlow) -> ast.Name | ast.Attribute | None:
    for node in (n for stmt in flow.statements for n in ast.walk(stmt)):
        if not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        name = node.id if isinstance(node, ast.Name) else node.attr
        if name.startswith("__") and not name.endswith("__"):
            return node
    return None


def _refuse_name_taken(ctx: Context, scope: ast.AST, name: str) -> None:
    for node in ast.walk(scope):
        used = (isinstance(node, ast.Name) and node.id == name) or (
            isinstance(node, (*_FUNCTIONS, ast.ClassDef))
            and node.name == name
            and node is not scope
        )
        if used or (isinstance(node, ast.arg) and node.arg == name):
            raise RefactoringError(
                f"extract method `{name}`: `{name}` is already a name in "
                f"`{getattr(scope, 'name', ctx.rel)}` ({place(ctx, getattr(node, 'lineno', 0))}); "
                "the new function would be defined there, choose another name"
            )


def placement(ctx: Context, src: Source, flow: RegionFlow, name: str) -> Placement:
    """Where the new function goes for a selection that jumps (module docstring)."""
    parents = {child: node for node in ast.walk(src.tree) for child in ast.iter_child_nodes(node)}
    function = flow.function
    holder = parents.get(function)
    if (
        isinstance(holder, ast.ClassDef)
        and isinstance(parents.get(holder), ast.Module)
        and not ctx.arg("global", False)
        and _is_plain_method(function)
    ):
        def_indent = src.text[src.starts[function.lineno - 1] : src.start(function)]
        insert_at = _line_end(src.text, src.end(function))
        return Placement(insert_at, def_indent, function.args.args[0].arg, False)
    top: ast.stmt = function
    while isinstance(up := parents.get(top), ast.ClassDef):
        top = up
    mangled = _mangled(flow) if top is not function else None
    if mangled is not None:
        raise RefactoringError(
            f"extract method `{name}`: the private name "
            f"`{mangled.id if isinstance(mangled, ast.Name) else mangled.attr}` at "
            f"{place(ctx, mangled.lineno)} means another name outside its class"
        )
    if isinstance(parents.get(top), ast.Module):
        return Placement(_line_end(src.text, src.end(top)), "", None, False)
    # A function in a block of the module (``if TYPE_CHECKING:``) has the module as scope.
    scope = next((p for p in _ancestors(parents, top) if isinstance(p, _FUNCTIONS)), src.tree)
    _refuse_name_taken(ctx, scope, name)
    first = min([top.lineno, *(d.lineno for d in getattr(top, "decorator_list", []))])
    line_start = src.starts[first - 1]
    line = src.text[line_start : _line_end(src.text, line_start)]
    def_indent = line[: len(line) - len(line.lstrip(" \t"))]
    return Placement(line_start, def_indent, None, True)


def _ancestors(parents: dict[ast.AST, ast.AST], node: ast.AST) -> list[ast.AST]:
    out = []
    while node in parents:
        node = parents[node]
        out.append(node)
    return out
