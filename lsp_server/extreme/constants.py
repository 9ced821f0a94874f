"""Which extreme bodies fit a function: from its return annotation, else from observed values.

A body is the text that replaces the whole function body (``pass``, ``return True``, ...).
Kinds (``lsp_server.rts.returns``) are short names for the type of a value a function
returned while the tests ran; ``pytest --reks`` and the observation run record them, and
``bodies_for_kinds`` turns them into bodies.
"""

from __future__ import annotations

import ast

PASS = "pass"
EMPTY_GENERATOR = "return; yield"
"""Body of a generator (sync or async) that yields nothing."""

_KIND_BODIES: dict[str, tuple[str, ...]] = {
    "none": ("return None",),
    "bool": ("return True", "return False"),
    "int": ("return 0", "return 1"),
    "float": ("return 0.0", "return 0.1"),
    "str": ('return ""', 'return "A"'),
    "bytes": ('return b""', 'return b"A"'),
    "list": ("return []",),
    "dict": ("return {}",),
    "set": ("return set()",),
    "frozenset": ("return frozenset()",),
    "tuple": ("return ()",),
    "iterator": ("return iter(())",),
    "other": ("return None",),
}
_KIND_ORDER = list(_KIND_BODIES)


# Annotation names (last dotted component) -> kind. Unknown names are a class the
# function returns an instance of: the only constant for it is None.
_ANNOTATION_KINDS: dict[str, str] = {
    "None": "none",
    "bool": "bool",
    "int": "int",
    "float": "float",
    "str": "str",
    "bytes": "bytes",
    "list": "list",
    "List": "list",
    "Sequence": "list",
    "MutableSequence": "list",
    "dict": "dict",
    "Dict": "dict",
    "Mapping": "dict",
    "MutableMapping": "dict",
    "set": "set",
    "Set": "set",
    "AbstractSet": "set",
    "MutableSet": "set",
    "frozenset": "frozenset",
    "FrozenSet": "frozenset",
    "tuple": "tuple",
    "Tuple": "tuple",
    "Iterator": "iterator",
    "Iterable": "iterator",
    "Collection": "list",
}
_UNKNOWN = {"Any", "object", "TypeVar", "Self"}
NEVER = {"NoReturn", "Never"}


def bodies_for_kinds(kinds: set[str]) -> list[str]:
    """Bodies for a function that returned values of ``kinds`` (empty set: never ran).

    A function that only ever returned None gets ``pass`` (Descartes' void method)."""
    if not kinds or kinds == {"none"}:
        return [PASS]
    out: list[str] = []
    for kind in sorted(kinds, key=_KIND_ORDER.index):
        for body in _KIND_BODIES[kind]:
            if body not in out:
                out.append(body)
    return out


def _annotation_kinds(node: ast.expr) -> set[str] | None:
    """Kinds an annotation allows; None when it says nothing useful (``Any``, a TypeVar)."""
    if isinstance(node, ast.Constant):
        if node.value is None:
            return {"none"}
        if isinstance(node.value, str):  # a string (forward) annotation
            try:
                inner = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
            return _annotation_kinds(inner)
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | Y
        left, right = _annotation_kinds(node.left), _annotation_kinds(node.right)
        if left is None or right is None:
            return None
        return left | right
    if isinstance(node, ast.Subscript):
        head = _name(node.value)
        if head in ("Optional", "Union"):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            kinds: set[str] = {"none"} if head == "Optional" else set()
            for part in parts:
                sub = _annotation_kinds(part)
                if sub is None:
                    return None
                kinds |= sub
            return kinds
        if head in ("Annotated",):
            first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
            return _annotation_kinds(first)
        if head in ("Literal", "ClassVar", "Final"):
            return None
        return _annotation_kinds(node.value)
    name = _name(node)
    if name is None or name in _UNKNOWN:
        return None
    if name in NEVER:
        return set()
    if name in _ANNOTATION_KINDS:
        return {_ANNOTATION_KINDS[name]}
    if name[:1].islower() and name not in ("type",):
        # typing aliases we do not know and lowercase names (type variables are usually
        # capitalised, builtin generics are listed): say nothing.
        return None
    return {"other"}


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def bodies_from_annotation(returns: ast.expr | None) -> list[str] | None:
    """Bodies the return annotation calls for; None when there is none or it is unusable.

    An empty list means the function never returns (``NoReturn``)."""
    if returns is None:
        return None
    kinds = _annotation_kinds(returns)
    if kinds is None:
        return None
    if not kinds:
        return []
    return bodies_for_kinds(kinds)
