"""Which top-level statements of a module are plain name bindings, and what they refer to.

The code outside function bodies is split into units (``units.source_units``):

* a *binding* unit per top-level statement whose only effect at import is to bind names:
  a ``def`` or ``class`` whose decorators only wrap, an assignment of a value computed
  without calls (or with calls known to have no effect elsewhere). Its unit is named by
  the name it binds (a ``def``'s unit is its function's unit); a class's unit covers its
  whole statement except method bodies, and every name its body binds gets an alias unit
  (``C.attr``, same checksum) so that a test reading ``obj.attr`` finds it;
* the *residue*, the module unit: imports, calls and every other statement with effects at
  import, and names the tools look up by name (``__all__``, ``__getattr__``, pytest hooks,
  ``setUpModule``...). Every test that imports the module depends on it, as before.

A binding's ``refs`` are the names its statement reads at import (decorators, defaults,
annotations, base classes, the assigned value, a class body): a test that depends on the
binding depends on what those names are bound to as well. Order matters at import (a
value read before it is rebound, a base class defined after its subclass), so each
statement's checksum says, for every name it reads that the module binds, whether a
binding comes before it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# Decorators and calls that only build or wrap the object they are given (by the last
# name of the decorator or callee); anything else may register it somewhere.
_PURE_DECORATORS = frozenset(
    [
        "staticmethod",
        "classmethod",
        "property",
        "setter",
        "getter",
        "deleter",
        "abstractmethod",
        "overload",
        "cached_property",
        "lru_cache",
        "cache",
        "wraps",
        "total_ordering",
        "dataclass",
        "contextmanager",
        "asynccontextmanager",
        "final",
        "override",
        "fixture",
        "runtime_checkable",
        "define",
        "frozen",
        "mutable",
        "s",
        "attrs",
    ]
)
_PURE_CALLS = frozenset(
    [
        "TypeVar",
        "ParamSpec",
        "TypeVarTuple",
        "NewType",
        "object",
        "frozenset",
        "set",
        "dict",
        "list",
        "tuple",
        "namedtuple",
        "compile",
        "getLogger",
        "cast",
        "partial",
        "property",
        "staticmethod",
        "classmethod",
        "int",
        "str",
        "float",
        "bytes",
        "bool",
        "range",
        "sorted",
        "len",
        "Literal",
        "Union",
        "Optional",
    ]
)
# Module-level names that Python, pytest or unittest look up by name, never by a
# reference in code: their statements stay in the residue.
_LOOKED_UP = frozenset(
    [
        "__all__",
        "__getattr__",
        "__dir__",
        "__path__",
        "setUpModule",
        "tearDownModule",
        "setup_module",
        "teardown_module",
        "setup_function",
        "teardown_function",
        "load_tests",
        "pytestmark",
        "pytest_plugins",
        "collect_ignore",
        "collect_ignore_glob",
    ]
)


@dataclass
class Binding:
    """A top-level statement that only binds names."""

    names: tuple[str, ...]
    """Unit names: the bound names, or the class name for a class."""
    start: tuple[int, int]
    end: tuple[int, int]
    refs: frozenset[str]
    aliases: tuple[str, ...] = ()
    """For a class: ``C.x`` for every name its body binds (methods excluded)."""
    is_def: bool = False
    is_class: bool = False


@dataclass
class ModuleLayout:
    bindings: list[Binding] = field(default_factory=list)
    residue_refs: frozenset[str] = frozenset()
    markers: dict[str, list[str]] = field(default_factory=dict)
    """Unit name (the module unit for the residue) -> order markers for its checksum."""


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _chain(node: ast.expr) -> Iterator[str]:
    while isinstance(node, ast.Attribute):
        yield node.attr
        node = node.value
    if isinstance(node, ast.Name):
        yield node.id


def import_time_names(node: ast.AST) -> set[str]:
    """Names and attribute names ``node`` reads when it runs at import: function and lambda
    bodies left out (they run later, and what they read is known from their code)."""
    out: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Name):
            out.add(item.id)
        elif isinstance(item, ast.Attribute):
            out.add(item.attr)
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(item.decorator_list)
            stack.append(item.args)
            if item.returns is not None:
                stack.append(item.returns)
            continue
        if isinstance(item, ast.Lambda):
            stack.append(item.args)
            continue
        stack.extend(ast.iter_child_nodes(item))
    return out


def is_pure(node: ast.AST) -> bool:
    """No call (except known pure ones), await, yield or walrus outside lambda bodies."""
    for item in ast.walk(node):
        if isinstance(item, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
        if isinstance(item, ast.Call) and _last_name(item.func) not in _PURE_CALLS:
            return False
    return True


def _pure_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    chain = list(_chain(target))
    if not chain or not (chain[0] in _PURE_DECORATORS or "mark" in chain):
        return False
    if isinstance(node, ast.Call):
        if any(k.arg == "autouse" for k in node.keywords):
            return False
        return all(is_pure(a) for a in (*node.args, *(k.value for k in node.keywords)))
    return True


def _def_is_binding(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if node.name in _LOOKED_UP or node.name.startswith("pytest_"):
        return False
    args = node.args
    header: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    return all(map(_pure_decorator, node.decorator_list)) and all(map(is_pure, header))


def _class_is_binding(node: ast.ClassDef) -> bool:
    if node.keywords or not all(map(_pure_decorator, node.decorator_list)):
        return False
    if not all(map(is_pure, node.bases)):
        return False
    # A call as a statement of the body is there for its effect (a registration).
    return not any(
        isinstance(stmt, ast.Expr) and not is_pure(stmt.value) for stmt in _class_body(node)
    )


def nested_statements(node: ast.AST) -> Iterator[ast.stmt]:
    """Statements directly inside a compound statement (``if``, ``try``, ``match``, ``def``,
    ``class``...), except handlers and match cases looked through."""
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, name, ()):
            if isinstance(child, ast.stmt):
                yield child
            else:  # an except handler or a match case
                yield from child.body


def _class_body(node: ast.ClassDef) -> Iterator[ast.stmt]:
    for stmt in node.body:
        yield stmt
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from nested_statements(stmt)


def _class_aliases(node: ast.ClassDef, prefix: str) -> Iterator[str]:
    for stmt in _class_body(node):
        if isinstance(stmt, ast.ClassDef):
            yield f"{prefix}{stmt.name}"
            yield from _class_aliases(stmt, f"{prefix}{stmt.name}.")
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for target in _assigned(stmt):
                yield f"{prefix}{target}"


def _assigned(stmt: ast.stmt) -> Iterator[str]:
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    for target in targets:
        for item in ast.walk(target):
            if isinstance(item, ast.Name):
                yield item.id


def _assignment_names(stmt: ast.stmt) -> tuple[str, ...] | None:
    """The names a plain top-level assignment binds; None when it is not one."""
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    else:
        return None
    names: list[str] = []
    for target in targets:
        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        for element in elements:
            if not isinstance(element, ast.Name):
                return None
            names.append(element.id)
    if any(n in _LOOKED_UP or n.startswith("__") for n in names) or not is_pure(value):
        return None
    return tuple(names)


def _binding(stmt: ast.stmt) -> Binding | None:
    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
    span = ((first, 0), (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0))
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if _def_is_binding(stmt):
            return Binding((stmt.name,), *span, frozenset(import_time_names(stmt)), is_def=True)
        return None
    if isinstance(stmt, ast.ClassDef):
        if _class_is_binding(stmt):
            refs = frozenset().union(
                *map(import_time_names, stmt.body),
                *map(import_time_names, [*stmt.bases, *stmt.decorator_list]),
            )
            aliases = tuple(dict.fromkeys(_class_aliases(stmt, f"{stmt.name}.")))
            return Binding((stmt.name,), *span, refs, aliases, is_class=True)
        return None
    names = _assignment_names(stmt)
    if names is None:
        return None
    return Binding(names, *span, frozenset(import_time_names(stmt)) - set(names))


def _order_markers(reads: Iterable[str], bound_before: set[str], bound: set[str]) -> list[str]:
    return [
        f"<{name}:{'before' if name in bound_before else 'after'}>"
        for name in sorted(set(reads) & bound)
    ]


def module_layout(tree: ast.Module) -> ModuleLayout:
    """Bindings and residue of a module's top-level statements."""
    layout = ModuleLayout()
    found = [(stmt, _binding(stmt)) for stmt in tree.body]
    bound = {name for _, b in found if b is not None for name in b.names}
    before: set[str] = set()
    residue_refs: set[str] = set()
    for stmt, binding in found:
        if binding is None:
            reads = import_time_names(stmt)
            residue_refs |= reads
            layout.markers.setdefault("", []).extend(_order_markers(reads, before, bound))
            continue
        layout.bindings.append(binding)
        for name in binding.names:
            layout.markers.setdefault(name, []).extend(_order_markers(binding.refs, before, bound))
        before.update(binding.names)
    layout.residue_refs = frozenset(residue_refs)
    return layout
