"""Whether a module's namespace may take names from elsewhere: a star import, or a
namespace filled in by code (``globals()``, ``vars()``, ``__dict__``, ``sys.modules``,
``builtins``, ``exec``). Its global reads then count as reads of any module.

Told from the code, not from the raw text: a comment, a docstring or a string assigned to
``__doc__`` runs nothing (toolz's ``functoolz`` named ``__dict__`` and "builtins" so, and
every test importing toolz counted as reading ``sys`` of any module). Other string
literals are kept: a string may name a module that code then fills
(``import_module("builtins")``).

Nor does code that only reads a namespace fill one: ``vars(mod).keys()``,
``globals()["NAME"]``, ``name in obj.__dict__``, ``for k in vars(m)``, ``builtins.abs``
(toolz's tests read ``builtins`` this way). A value read by a computed key, or through
``.items()``, may be the builtins' namespace (a module's ``__builtins__``): handed on;
not by a key a membership check bounds to other strings (``rts.guarded_keys``).
``sys.modules["__main__"]`` read is the script pytest runs under, no project module.
Every other use of a namespace (stored, passed to a function, updated, an item assigned)
may fill it and opens the module, except a fill of ``self.__dict__`` in a plain method of
a class that cannot make modules (bases only ``object``, builtin exceptions or such classes
of the module, no metaclass, no decorator that may replace it): its instances are not modules. Not
followed, as a module's other code is not: the method called unbound with a module, or
inherited by a module's class defined elsewhere. Lookups by a computed name are
``rts.lookups``'s business.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator

from lsp_server.rts.ast_walk import enclosing, of_types, parent_map
from lsp_server.rts.bound_names import binding_occurrences, bound_inside
from lsp_server.rts.guarded_keys import bounded_keys
from lsp_server.rts.purity import is_string_statement

_OPEN_SPELLING = re.compile(
    r"import\s+\*|\b(?:globals|locals|vars|__dict__|modules|builtins|__builtins__|exec)\b"
)
_NAMESPACE_CALLS = frozenset(["globals", "locals", "vars"])
_MODULE_NAMES = frozenset(["builtins", "__builtins__"])
_WORDS = _NAMESPACE_CALLS | _MODULE_NAMES | {"__dict__", "modules", "exec"}
# What reads a namespace and hands out no value of it: a module's namespace holds the
# builtins' one (``__builtins__``), which ``.items()``, ``.values()`` or ``[k]`` by a
# computed ``k`` may hand to code that fills it.
_KEY_METHODS = frozenset(["keys", "__contains__", "__len__"])
_ITEM_METHODS = frozenset(["get", "__getitem__"])
# Decorators under which a method's first parameter is still an instance of its class.
_INSTANCE_DECORATORS = frozenset(["property", "cached_property", "setter", "getter", "deleter"])
# Class decorators that return the class itself (another one may return anything).
_CLASS_DECORATORS = frozenset(["dataclass", "total_ordering", "final"])
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# The builtin exception classes: none shares an instance layout with ``types.ModuleType``,
# so no class with one among its bases makes modules (validators' ``ValidationError``).
_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


def opens_namespace(tree: ast.Module) -> bool:
    """Whether the module's code (comments and string statements left out) may fill its
    namespace from elsewhere."""
    # Most modules spell no word: one walk. Uses are judged only where one is spelled.
    spelled = [node for node in of_types(tree, _SPELLERS) if _spelling(node)]
    if not spelled:
        return False
    parents = parent_map(tree)
    safe_classes: set[str] | None = None  # needed only for ``__dict__``: found once
    builtin_type = "type" not in binding_occurrences(tree)  # no ``type`` of its own
    for node in spelled:
        if isinstance(node, ast.Attribute) and node.attr == "__dict__" and safe_classes is None:
            safe_classes = _classes_without_modules(tree)
        if _may_fill(node, parents, safe_classes or set(), builtin_type):
            return True
    return False


# The nodes ``_spelling`` may find spelling a word.
_SPELLERS = (
    ast.Name,
    ast.Attribute,
    ast.alias,
    ast.Constant,
    ast.keyword,
    ast.Global,
    ast.Nonlocal,
    ast.MatchClass,
    *_DEFINITIONS,
    ast.ImportFrom,
)


def _spelling(node: ast.AST) -> bool:
    """Whether ``node`` spells a word or a star import (its use still to be judged)."""
    if isinstance(node, ast.Name):
        return node.id in _WORDS
    if isinstance(node, ast.Attribute | ast.alias):
        return (node.attr if isinstance(node, ast.Attribute) else node.name) in _WORDS
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and _spells(node.value)
    if isinstance(node, ast.keyword):
        return node.arg in _WORDS
    if isinstance(node, ast.Global | ast.Nonlocal):
        return not _WORDS.isdisjoint(node.names)
    if isinstance(node, ast.MatchClass):  # ``case C(__dict__=d)`` reads an attribute
        return not _WORDS.isdisjoint(node.kwd_attrs)
    if isinstance(node, _DEFINITIONS):
        return node.name in _WORDS
    return isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)


def _may_fill(
    node: ast.AST, parents: dict[int, ast.AST], safe: set[str], builtin_type: bool
) -> bool:
    """Whether ``node``, which spells a word (``_spelling``), uses a namespace other than
    to read it; ``builtin_type``: the module binds no ``type`` of its own."""
    if isinstance(node, ast.alias):
        # ``import builtins`` binds a name whose uses are judged where they are; under
        # another name they would not be.
        return node.asname is not None or node.name not in _MODULE_NAMES
    if isinstance(node, ast.Constant):
        return not _is_doc(node, parents.get(id(node)))
    if isinstance(node, ast.Name):
        return _name_may_fill(node, parents, builtin_type)
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        typed = builtin_type and _type_taken(node, parents)
        return not (_only_read(node, parents) or typed or _instance_dict(node, parents, safe))
    if isinstance(node, ast.Attribute) and node.attr == "modules":
        return not _main_module_read(node, parents)
    # A star import, ``sys.modules``, ``builtins.exec``, ``f(globals=...)`` (a string, in
    # effect), ``global builtins``, ``def vars(...)``.
    return True


def _main_module_read(node: ast.Attribute, parents: dict[int, ast.AST]) -> bool:
    """Whether ``node`` is ``sys.modules["__main__"]`` read: the script pytest runs under,
    never a project module imported by its name, so no namespace of the module reading it
    (click's ``utils._detect_program_name``)."""
    parent = parents.get(id(node))
    return (
        isinstance(node.value, ast.Name)
        and node.value.id == "sys"
        and isinstance(parent, ast.Subscript)
        and parent.value is node
        and isinstance(parent.ctx, ast.Load)
        and isinstance(parent.slice, ast.Constant)
        and parent.slice.value == "__main__"
    )


def _is_doc(node: ast.Constant, parent: ast.AST | None) -> bool:
    """A string statement (a docstring), or a string assigned to ``__doc__`` (toolz's
    ``is_valid_args.__doc__ = "..."``): prose, run by no code of the module (a doctest
    runs in a copy of the module's namespace)."""
    if isinstance(parent, ast.stmt) and is_string_statement(parent):
        return True
    return (
        isinstance(parent, ast.Assign)
        and parent.value is node
        and all(_last_name(target) == "__doc__" for target in parent.targets)
    )


def _spells(text: str) -> bool:
    return _OPEN_SPELLING.search(text) is not None


def _name_may_fill(node: ast.Name, parents: dict[int, ast.AST], builtin_type: bool) -> bool:
    parent = parents.get(id(node))
    if node.id == "builtins":
        # ``builtins.abs`` reads; an attribute assigned (``__setattr__`` too), or the
        # module handed on, may fill.
        return not (
            isinstance(parent, ast.Attribute)
            and parent.value is node
            and isinstance(parent.ctx, ast.Load)
            and not parent.attr.startswith("__")
        )
    if node.id == "__builtins__":  # a dict outside ``__main__``
        value: ast.expr = node
    elif node.id in _NAMESPACE_CALLS and isinstance(parent, ast.Call) and parent.func is node:
        value = parent
    else:
        return True
    return not (_only_read(value, parents) or (builtin_type and _type_taken(value, parents)))


def _type_taken(value: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether the namespace ``value`` evaluates to is only handed to the builtin ``type``
    alone (``type(object.__dict__)``, a table keyed by the mapping-proxy type): it returns
    the object's class and runs none of its code. The caller knows ``type`` is the
    builtin (the module binds no such name, even as a parameter)."""
    call = parents.get(id(value))
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "type"
        and len(call.args) == 1
        and call.args[0] is value
        and not call.keywords
    )


def _only_read(value: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether the namespace ``value`` evaluates to is only read where it is used."""
    parent = parents.get(id(value))
    if isinstance(parent, ast.Attribute) and parent.value is value:
        if parent.attr in _ITEM_METHODS:  # ``ns.get("NAME")``: the string is judged too
            call = parents.get(id(parent))
            return isinstance(call, ast.Call) and call.func is parent and _named(call.args[:1])
        return parent.attr in _KEY_METHODS
    if isinstance(parent, ast.Subscript):
        loaded = parent.value is value and isinstance(parent.ctx, ast.Load)
        return loaded and (_named([parent.slice]) or _not_builtins(parent.slice, parents))
    if isinstance(parent, ast.Compare):
        return value is not parent.left and all(
            isinstance(op, ast.In | ast.NotIn) for op in parent.ops
        )
    if isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension):
        return parent.iter is value
    return False


def _named(keys: list[ast.expr]) -> bool:
    """Whether ``keys`` is one string written out (``__builtins__`` among the words)."""
    return len(keys) == 1 and isinstance(keys[0], ast.Constant) and isinstance(keys[0].value, str)


def _not_builtins(key: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether the computed ``key`` takes only values a check bounds, none of them
    ``__builtins__`` (``rts.guarded_keys``: click's deprecated names, ``f"_{name}"``)."""
    keys = bounded_keys(key, parents)
    return keys is not None and "__builtins__" not in keys


def _instance_dict(node: ast.Attribute, parents: dict[int, ast.AST], safe: set[str]) -> bool:
    """Whether ``node`` is ``self.__dict__`` in a plain method of a class in ``safe``, with
    ``self`` never rebound there."""
    receiver = node.value
    if not isinstance(receiver, ast.Name):
        return False
    function = enclosing(node, parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    owner = parents.get(id(function))
    positional = [*function.args.posonlyargs, *function.args.args]
    return (
        isinstance(owner, ast.ClassDef)
        and owner.name in safe
        and function in owner.body
        and bool(positional)
        and positional[0].arg == receiver.id
        and all(_last_name(d) in _INSTANCE_DECORATORS for d in function.decorator_list)
        and receiver.id not in bound_inside(function)
    )


def _last_name(decorator: ast.expr) -> str:
    if isinstance(decorator, ast.Name):
        return decorator.id
    if isinstance(decorator, ast.Attribute):
        return decorator.attr
    return ""


def _classes_without_modules(tree: ast.Module) -> set[str]:
    """Names of the module's classes whose instances cannot be modules: no metaclass or
    other class keyword, bases only ``object``, builtin exceptions or such top-level
    classes of the module, none of those names bound by anything else in the module."""
    bound_elsewhere = set(_other_bindings(tree))
    classes = [node for node in of_types(tree, (ast.ClassDef,)) if isinstance(node, ast.ClassDef)]
    top = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    counts = {name: sum(c.name == name for c in classes) for name in top}
    trusted = {"object", *_EXCEPTIONS} - bound_elsewhere
    abc_names = _abc_spellings(tree)
    trusted |= abc_names.get("ABC", set())
    safe: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in classes:
            bases_ok = all(_spelled(b) in trusted for b in node.bases)
            plain = all(_last_name(d) in _CLASS_DECORATORS for d in node.decorator_list)
            meta_ok = all(
                k.arg == "metaclass" and _spelled(k.value) in abc_names.get("ABCMeta", set())
                for k in node.keywords
            )
            if node.name not in safe and meta_ok and bases_ok and plain:
                safe.add(node.name)
                changed = True
                if node.name in top and counts[node.name] == 1:
                    trusted.add(node.name)
    # A nested class of the same name as a safe one may not be: all of a name or none.
    unsafe = {n.name for n in classes if n.name not in safe}
    return safe - unsafe - bound_elsewhere


def _spelled(node: ast.expr) -> str:
    """``name`` or ``name.attr`` as written; "" for any other expression."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return ""


def _abc_spellings(tree: ast.Module) -> dict[str, set[str]]:
    """How the module spells ``abc.ABC`` and ``abc.ABCMeta`` (``ABC``, ``abc.ABC``) where a
    top-level ``from abc import ABC`` or ``import abc`` is the name's only binding. Neither
    makes modules: ``ABC`` is a class with no state (``__slots__ = ()``) whose metaclass
    ``ABCMeta`` makes instances as ``type`` does (it has no ``__call__``), so their
    subclasses' instances are as plain as ``object``'s (tenacity's ``BaseRetrying(ABC)``
    fills ``self.__dict__`` in ``__setstate__``)."""
    counts: dict[str, int] = {}
    for name in _other_bindings(tree):
        counts[name] = counts.get(name, 0) + 1
    out: dict[str, set[str]] = {"ABC": set(), "ABCMeta": set()}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "abc" and node.level == 0:
            for alias in node.names:
                if alias.name in out and alias.asname is None and counts[alias.name] == 1:
                    out[alias.name].add(alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "abc" and alias.asname is None and counts["abc"] == 1:
                    out["ABC"].add("abc.ABC")
                    out["ABCMeta"].add("abc.ABCMeta")
    return out


# What binds a name in ``_other_bindings``' account.
_OTHER_BINDERS = (
    ast.Name,
    ast.alias,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.arg,
    ast.Global,
    ast.Nonlocal,
)


def _other_bindings(tree: ast.Module) -> Iterator[str]:
    """Every name bound in the module by something other than a ``class`` statement."""
    for node in of_types(tree, _OTHER_BINDERS):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            yield node.id
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).split(".")[0]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name
        elif isinstance(node, ast.arg):
            yield node.arg
        elif isinstance(node, ast.Global | ast.Nonlocal):
            yield from node.names
