"""Which refactorings apply at a cursor or selection, from the syntax tree alone.

Listing code actions must be fast (an editor asks on every cursor move), so nothing here
calls rope: applicability is decided from Python's own ``ast`` of the current text. rope
computes the edit later, when the user picks an action. An offer rope then refuses is
reported as an error at that point; the syntactic tests below keep that rare.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lsp_server.project.text import parse_python
from lsp_server.refactor.class_fields import FieldAssignments
from lsp_server.refactor.cursor import Cursor, is_parameter
from lsp_server.refactor.destinations import ProjectModule, project_class_attributes

# Setting keys (``ActionSettings`` fields) each offer is switched by.
EXTRACT_METHOD = "extractMethod"
EXTRACT_VARIABLE = "extractVariable"
INLINE = "inline"
MOVE = "move"
INTRODUCE_PARAMETER = "introduceParameter"
CHANGE_SIGNATURE = "changeSignature"
ENCAPSULATE_FIELD = "encapsulateField"
LOCAL_TO_FIELD = "localToField"
METHOD_OBJECT = "methodObject"
USE_FUNCTION = "useFunction"
INTRODUCE_FACTORY = "introduceFactory"
ORGANIZE_IMPORTS = "organizeImports"


@dataclass(frozen=True)
class Offer:
    """One applicable refactoring: engine ``action`` with ``args``, at ``offset``/``end``.

    ``kind`` is the LSP code-action kind; ``needs`` names arguments the client must supply
    before the edit can be computed (e.g. a move's ``destination``); ``default_name`` names
    the ``DefaultNames`` field that fills ``args[name_arg]``.
    """

    title: str
    kind: str
    action: str
    setting: str
    offset: int
    end: int | None = None
    args: dict[str, Any] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    default_name: str | None = None
    name_arg: str = "name"


def offers_at(
    text: str,
    offset: int,
    end: int | None = None,
    tree: ast.Module | None = None,
    project_module: ProjectModule | None = None,
) -> list[Offer]:
    """Refactorings that apply at ``offset`` (or to the selection ``offset``..``end``).

    ``project_module`` tells which imported modules are project code (move method offers
    only attributes whose class is); without it only the module's own classes and
    relative imports count.
    """
    if tree is None:
        try:
            tree = parse_python(text)
        except (SyntaxError, ValueError):
            return []
    cursor = Cursor(text, tree, offset, end)
    cursor.project_module = project_module
    return [offer for family in OFFER_FAMILIES for offer in family(cursor)]


def _extract(cursor: Cursor) -> list[Offer]:
    """Extract variable (an expression), method and function (statements or expression)."""
    start, end = cursor.offset, cursor.selection_end
    if end is None:
        return []
    selected = cursor.text[start:end]
    stripped = selected.strip()
    if not stripped:
        return []
    out: list[Offer] = []
    try:
        ast.parse(stripped, mode="eval")
        is_expression = True
    except SyntaxError:
        is_expression = False
        try:
            ast.parse(textwrap.dedent(selected.strip("\n")))
        except SyntaxError:
            return []
    if is_expression:
        for similar, suffix in ((False, ""), (True, " (and similar)")):
            kind = "refactor.extract.variable" + (".similar" if similar else "")
            args = {"similar": similar}
            out.append(
                Offer(
                    f"Extract variable{suffix}",
                    kind,
                    "extract-variable",
                    EXTRACT_VARIABLE,
                    start,
                    end,
                    args,
                    default_name="extractedVariable",
                )
            )
    variants = [
        (False, False, "Extract method", "refactor.extract.method"),
        (True, False, "Extract method (and similar)", "refactor.extract.method.similar"),
    ]
    if cursor.innermost_function is not None:
        variants.append(
            (False, True, "Extract function (module level)", "refactor.extract.function")
        )
    for similar, global_, title, kind in variants:
        args = {"similar": similar, "global": global_}
        out.append(
            Offer(
                title,
                kind,
                "extract-method",
                EXTRACT_METHOD,
                start,
                end,
                args,
                default_name="extractedMethod",
            )
        )
    return out


def _move_global(cursor: Cursor) -> list[Offer]:
    """Move a top-level function or class to another module (the client asks where)."""
    node = cursor.definition
    if node is None or not isinstance(cursor.parent(node), ast.Module):
        return []
    what = "class" if isinstance(node, ast.ClassDef) else "function"
    title = f"Move {what} `{node.name}` to module…"
    return [Offer(title, "refactor.move.global", "move", MOVE, cursor.at, needs=("destination",))]


def _use_function(cursor: Cursor) -> list[Offer]:
    node = cursor.function_definition
    if node is None or not isinstance(cursor.parent(node), ast.Module):
        return []
    title = f"Use function `{node.name}` where its body is repeated"
    return [Offer(title, "refactor.rewrite.useFunction", "use-function", USE_FUNCTION, cursor.at)]


MAX_MOVE_TARGETS = 5


def _move_method(cursor: Cursor) -> list[Offer]:
    """One offer per attribute of ``self`` holding a project class's instance: the
    destination is known, no prompt needed."""
    node = cursor.function_definition
    parent = cursor.parent(node) if node is not None else None
    if node is None or not isinstance(parent, ast.ClassDef) or node.name.startswith("__"):
        return []
    return [
        Offer(
            f"Move method `{node.name}` to the class of `self.{attribute}`",
            "refactor.move.method",
            "move",
            MOVE,
            cursor.at,
            args={"destination": attribute},
        )
        for attribute in project_class_attributes(
            cursor.facts, _fields_of(cursor, parent), cursor.project_module
        )[:MAX_MOVE_TARGETS]
    ]


def _fields_of(cursor: Cursor, cls: ast.ClassDef) -> ast.ClassDef | FieldAssignments:
    """The class, or the assignments to ``self`` in all its methods when the cursor's
    text holds only some of them (a long class: ``refactor.outline``)."""
    top_level = isinstance(cursor.parent(cls), ast.Module)
    return cursor.class_fields if top_level and cursor.class_fields is not None else cls


def _introduce_factory(cursor: Cursor) -> list[Offer]:
    node = cursor.definition
    if not isinstance(node, ast.ClassDef):
        return []
    kind = "refactor.rewrite.introduceFactory"
    title = f"Introduce factory for `{node.name}`"
    return [
        Offer(
            title, kind, "introduce-factory", INTRODUCE_FACTORY, cursor.at, default_name="factory"
        )
    ]


def _encapsulate_field(cursor: Cursor) -> list[Offer]:
    node, at, word = cursor.name, cursor.at, cursor.word
    if not (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and cursor.text[at - 5 : at] == "self."
        and word == node.attr
    ):
        return []
    kind = "refactor.rewrite.encapsulateField"
    return [Offer(f"Encapsulate field `{word}`", kind, "encapsulate-field", ENCAPSULATE_FIELD, at)]


def _inline(cursor: Cursor) -> list[Offer]:
    """Inline a function (at its def or a use), a variable, or a parameter's default."""
    at = cursor.at
    if cursor.function_definition is not None:
        name = cursor.function_definition.name
        return [Offer(f"Inline function `{name}`", "refactor.inline.method", "inline", INLINE, at)]
    if cursor.parameter is not None:
        function, index, arg = cursor.parameter
        n_params = len(function.args.posonlyargs) + len(function.args.args)
        if index < n_params - len(function.args.defaults):
            return []
        title = f"Inline default of parameter `{arg.arg}`"
        return [Offer(title, "refactor.inline.parameter", "inline", INLINE, at)]
    node, word = cursor.name, cursor.word
    if not isinstance(node, ast.Name):
        return []
    in_function = cursor.innermost_function is not None
    if cursor.local_store or (
        not in_function and cursor.module_store and not cursor.module_function
    ):
        return [
            Offer(f"Inline variable `{word}`", "refactor.inline.variable", "inline", INLINE, at)
        ]
    if cursor.module_function and isinstance(node.ctx, ast.Load):
        return [Offer(f"Inline function `{word}`", "refactor.inline.method", "inline", INLINE, at)]
    return []


def _local_to_field(cursor: Cursor) -> list[Offer]:
    function = cursor.innermost_function
    if not isinstance(cursor.name, ast.Name) or not cursor.local_store:
        return []
    if function is None or not cursor.is_method(function):
        return []
    title = f"Turn local `{cursor.word}` into a field"
    kind = "refactor.rewrite.localToField"
    return [Offer(title, kind, "local-to-field", LOCAL_TO_FIELD, cursor.at)]


def _method_object(cursor: Cursor) -> list[Offer]:
    node = cursor.function_definition
    if node is None:
        return []
    return [
        Offer(
            f"Turn `{node.name}` into a method object",
            "refactor.rewrite.methodObject",
            "method-object",
            METHOD_OBJECT,
            cursor.at,
            default_name="methodObject",
            name_arg="classname",
        )
    ]


def _signature(title: str, kind: str, at: int, change: dict[str, Any]) -> Offer:
    args = {"changes": [change]}
    return Offer(title, kind, "change-signature", CHANGE_SIGNATURE, at, args=args)


def _change_signature(cursor: Cursor) -> list[Offer]:
    """Normalize the calls (at a def), remove or move left a parameter (on it)."""
    at = cursor.at
    if cursor.function_definition is not None:
        name = cursor.function_definition.name
        kind = "refactor.rewrite.signature.normalize"
        return [_signature(f"Normalize the calls of `{name}`", kind, at, {"op": "normalize"})]
    if cursor.parameter is None:
        return []
    function, index, arg = cursor.parameter
    remove = {"op": "remove", "index": index}
    kind = "refactor.rewrite.signature.remove"
    out = [_signature(f"Remove parameter `{arg.arg}`", kind, at, remove)]
    # `self` stays first: a method's second parameter cannot move left.
    if index > 0 and not (index == 1 and cursor.is_method(function)):
        order = list(range(len(function.args.posonlyargs) + len(function.args.args)))
        order[index - 1], order[index] = order[index], order[index - 1]
        kind = "refactor.rewrite.signature.reorder"
        title = f"Move parameter `{arg.arg}` left"
        out.append(_signature(title, kind, at, {"op": "reorder", "order": order}))
    return out


def _introduce_parameter(cursor: Cursor) -> list[Offer]:
    node, function, word = cursor.name, cursor.innermost_function, cursor.word
    if not isinstance(node, ast.Name) or function is None:
        return []
    if not isinstance(node.ctx, ast.Load) or is_parameter(function, word):
        return []
    return [
        Offer(
            f"Introduce parameter for `{word}`",
            "refactor.rewrite.parameter.introduce",
            "introduce-parameter",
            INTRODUCE_PARAMETER,
            cursor.at,
            default_name="parameter",
        )
    ]


def _organize_imports(cursor: Cursor) -> list[Offer]:
    if not cursor.has_imports:
        return []
    return [
        Offer("Organize imports", "source.organizeImports", "organize-imports", ORGANIZE_IMPORTS, 0)
    ]


def _move_module(cursor: Cursor) -> list[Offer]:
    return [
        Offer(
            "Move module to package…",
            "refactor.move.module",
            "move",
            MOVE,
            0,
            args={"module": True},
            needs=("destination",),
        )
    ]


OFFER_FAMILIES: tuple[Callable[[Cursor], list[Offer]], ...] = (
    _extract,
    _move_global,
    _use_function,
    _move_method,
    _introduce_factory,
    _encapsulate_field,
    _inline,
    _local_to_field,
    _method_object,
    _change_signature,
    _introduce_parameter,
    _organize_imports,
    _move_module,
)
"""Each family lists its offers at a cursor; the editor shows them in this order. To add a
refactoring family: write its function and put it here."""
WHOLE_MODULE_FAMILIES = (_organize_imports, _move_module)
"""Families whose offers act on the whole module (offset 0), wherever the cursor is
(``refactor.outline_offers`` does not move them to the cursor's part of the module)."""
