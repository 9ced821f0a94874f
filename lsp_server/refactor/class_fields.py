"""What a class's methods assign to attributes of ``self``, and the expressions that may
name the class of what is assigned (read by ``refactor.destinations``).

Kept apart from the project-class test so that the outline worker can list them for a
long class once (``refactor.outline``): a code action in such a class parses only the
members at the cursor, yet its "move method" offers still see every method's fields.
"""

from __future__ import annotations

import ast

FieldAssignments = tuple[tuple[tuple[str, ...], tuple["ast.expr | str", ...]], ...]
"""Per assignment to ``self.<attribute>``: the attributes, and the expressions (nodes, or
their source on the wire) one of which names a class if the attributes hold its instance."""


def _annotations(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return {arg.arg: arg.annotation for arg in every if arg.annotation is not None}


def _self_target(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == "self" else None
    return None


def _class_expressions(
    node: ast.Assign | ast.AnnAssign, annotations: dict[str, ast.expr]
) -> list[ast.expr]:
    """``self.x: Cls = ...``, ``self.x = Cls(...)``, ``self.x = param`` (``param: Cls``)."""
    found = [node.annotation] if isinstance(node, ast.AnnAssign) else []
    value = node.value
    if isinstance(value, ast.Call):
        found.append(value.func)
    elif isinstance(value, ast.Name) and value.id in annotations:
        found.append(annotations[value.id])
    return found


def field_assignments(cls: ast.ClassDef) -> FieldAssignments:
    """The assignments to attributes of ``self`` in ``cls``'s methods, in order."""
    found: list[tuple[tuple[str, ...], tuple[ast.expr | str, ...]]] = []
    for function in cls.body:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        annotations = _annotations(function)
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                targets = [_self_target(t) for t in node.targets]
            elif isinstance(node, ast.AnnAssign):
                targets = [_self_target(node.target)]
            else:
                continue
            attributes = tuple(t for t in targets if t is not None)
            expressions = _class_expressions(node, annotations)
            if attributes and expressions:
                found.append((attributes, tuple(expressions)))
    return tuple(found)


def to_wire(assignments: FieldAssignments) -> list[list[list[str]]]:
    return [
        [list(attributes), [e if isinstance(e, str) else ast.unparse(e) for e in expressions]]
        for attributes, expressions in assignments
    ]


def from_wire(data: list[list[list[str]]]) -> FieldAssignments:
    return tuple((tuple(attributes), tuple(expressions)) for attributes, expressions in data)


def expression(node: ast.expr | str) -> ast.expr | None:
    """The node (parsed from its source when it came over the wire)."""
    if not isinstance(node, str):
        return node
    try:
        return ast.parse(node, mode="eval").body
    except SyntaxError:
        return None
