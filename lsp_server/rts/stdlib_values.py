"""What the names of a module are bound to in the standard library, as far as its
top-level statements before a point tell (``import_raise.Scope``): the objects themselves,
imported here, so that typing's forms (pure) can be evaluated as importing would."""

from __future__ import annotations

import ast
import builtins
import importlib
import typing
from typing import TYPE_CHECKING

from lsp_server.rts.ast_walk import attribute_chain, walk

if TYPE_CHECKING:
    from lsp_server.rts.import_scope import Scope

MISSING = object()
"""What a name is bound to when it is not known."""

BUILTINS = frozenset(dir(builtins))


def stdlib_object_of(node: ast.expr, scope: Scope) -> object:
    """The standard-library object ``node`` (``x`` of ``from m import x``, ``m.a.b``) is."""
    if isinstance(node, ast.Name) and not scope.star and node.id in scope.imported:
        module, name = scope.imported[node.id]
        return stdlib_object(scope, module, [name])
    if isinstance(node, ast.Attribute) and resolves(node, scope):
        item, chain = attribute_chain(node)
        module = scope.modules.get(getattr(item, "id", ""), "")
        return stdlib_object(scope, module, chain) if module else MISSING
    return MISSING


def stdlib_object(scope: Scope, module: str, chain: list[str]) -> object:
    """``module``'s object at ``chain`` (``MISSING`` unless the module is the standard
    library's and has it)."""
    if module.split(".")[0] not in scope.stdlib:
        return MISSING
    try:
        value: object = importlib.import_module(module)
        for attr in chain:
            value = getattr(value, attr)
    except Exception:  # missing here: it may be missing where the tests run too
        return MISSING
    return value


def resolves(node: ast.Attribute, scope: Scope) -> bool:
    """``m.a.b`` where ``m`` is an imported standard-library module that has ``a.b``, or
    ``C.x`` where ``C`` is a class of the module whose body binds ``x``."""
    item, chain = attribute_chain(node)
    if not isinstance(item, ast.Name):
        return False
    if item.id in scope.members and len(chain) == 1:
        return chain[0] in scope.members[item.id]
    if item.id not in scope.modules:
        return False
    return stdlib_object(scope, scope.modules[item.id], chain) is not MISSING


def type_annotation(node: ast.expr, scope: Scope) -> bool:
    """``node`` evaluates to what ``typing`` takes as a type (``evaluates``)."""
    return evaluates(ast.Call(ast.Name("_check", ast.Load()), [node], []), scope)


def evaluates(node: ast.expr, scope: Scope) -> bool:
    """``node`` made of names the module surely binds to builtins, standard-library objects
    or classes of its own (a bare class stands in for those), of attributes, subscripts,
    ``|``, constants and calls of those evaluates here without raising: typing's forms
    are pure, so this is what importing the module does."""
    namespace: dict[str, object] = {"_check": _typing_check}
    for item in walk(node):
        if isinstance(item, ast.Name):
            if item.id not in namespace:
                value = value_of(item.id, scope)
                if value is MISSING:
                    return False
                namespace[item.id] = value
        elif not isinstance(item, _EVALUATED):
            return False
    try:
        code = compile(ast.fix_missing_locations(ast.Expression(node)), "<annotation>", "eval")
        # Every name the expression spells is in ``namespace``; typing's own code needs
        # the builtins (``TypeVar`` imports ``typing``).
        eval(code, {"__builtins__": builtins.__dict__}, namespace)
    except Exception:  # whatever it raises, importing the module raises too
        return False
    return True


def evaluates_among(node: ast.expr, scope: Scope, bound: set[str]) -> bool:
    """``evaluates``, where ``bound`` are the names bound before ``node`` (a class body's
    own names hide the module's, whose values ``evaluates`` knows: those make it fail).
    An annotation's subscript or ``|`` raises by what its names hold, not only whether
    they are bound (``Alias = 3`` makes ``Alias[str]`` a ``TypeError``)."""
    local = bound is not scope.bound and any(
        isinstance(item, ast.Name) and item.id in bound and item.id not in scope.bound
        for item in walk(node)
    )
    return not local and evaluates(node, scope)


def _typing_check(value: object) -> object:
    """What ``TypedDict`` does to the type of each key."""
    return typing._type_check(value, "not a type")  # type: ignore[attr-defined]


_EVALUATED = (
    ast.Attribute,
    ast.Subscript,
    ast.Tuple,
    ast.List,
    ast.BinOp,
    ast.BitOr,
    ast.Constant,
    ast.Call,
    ast.keyword,
    ast.Load,
)


def value_of(name: str, scope: Scope) -> object:
    """What ``name`` is bound to at this point of the module, as far as it is known."""
    if name in scope.members:  # a class of the module
        return type(name, (), {})
    if not scope.star and name in scope.imported:
        module, attr = scope.imported[name]
        return stdlib_object(scope, module, [attr])
    if name in scope.modules:
        return stdlib_object(scope, scope.modules[name], [])
    if name in BUILTINS and name not in scope.rebound and not scope.star:
        return getattr(builtins, name)
    return MISSING


def stdlib_has(scope: Scope, module: str, name: str | None = None) -> bool:
    """``import module`` (``from module import name``) of the standard library works."""
    if name is None:
        return stdlib_object(scope, module, []) is not MISSING
    if name == "*":
        return False
    found = stdlib_object(scope, module, [name]) is not MISSING
    return found or stdlib_object(scope, f"{module}.{name}", []) is not MISSING
