"""Whether a top-level binding can raise while its module is imported.

A binding unit (``rts.bindings``) is selected through the tests that read its names. That
is only sound while running the statement cannot fail: a new ``y = missing``, a default
``def f(x=later)`` or a call that raises breaks the import, and every test importing the
module fails, reading the name or not. A binding that may raise therefore puts a digest of
what may raise into the module unit (``rts.import_digest``), so a change there selects
every importer, as any other statement with effects at import does.

"Cannot raise" is proved, never guessed: constants, names surely bound before the statement
(or builtins), containers and lambdas of those, attributes that resolve in an imported
standard-library module, and annotations made of those (when they are evaluated at all);
wrappers that take no part in whether the decoration succeeds (``dataclass`` and
``total_ordering`` on classes they accept); a class with one plain base (no metaclass, no
``__init_subclass__`` of unknown code) and a body made of such statements.
"""

from __future__ import annotations

import abc
import ast
import functools
import importlib
import typing
import unittest

from lsp_server.rts.ast_walk import attribute_chain, walk
from lsp_server.rts.bound_names import (
    EMPTY_CONSTRUCTORS,
    maybe_bound,
    maybe_bound_in,
    surely_bound,
)
from lsp_server.rts.class_members import PLAIN_BASES, safe_fills
from lsp_server.rts.constant_calls import succeeds, value_here
from lsp_server.rts.constant_values import computed_in_class, constant_value
from lsp_server.rts.dataclass_fields import dataclass_may_raise, is_dataclass_decorator
from lsp_server.rts.enum_classes import enum_made_here
from lsp_server.rts.import_scope import Scope
from lsp_server.rts.library_names import attribute_known, takes_known
from lsp_server.rts.partial_callees import held_values
from lsp_server.rts.purity import PURE_MODULE_CALLS
from lsp_server.rts.skip_marks import mark_values
from lsp_server.rts.stdlib_queries import is_query
from lsp_server.rts.stdlib_values import (
    MISSING,
    evaluates,
    evaluates_among,
    stdlib_has,
    stdlib_object_of,
)
from lsp_server.rts.store_only_init import fits
from lsp_server.rts.typing_classes import typed_dict_bases, typed_dict_may_raise
from lsp_server.rts.wrapping_builtins import KEEPING_BUILTINS

# Wrappers whose decoration succeeds whatever they wrap (a bare name, or a call of one of
# ``_WRAPPER_CALLS`` with arguments that cannot raise either). ``dataclass`` or
# ``total_ordering`` are no such wrappers: they raise on a class they cannot handle.
_WRAPPERS = frozenset(
    [
        "staticmethod",
        "classmethod",
        "property",
        "abstractmethod",
        "overload",
        "final",
        "override",
        "cached_property",
        "cache",
        "runtime_checkable",
        "fixture",
    ]
)
_WRAPPER_CALLS = frozenset(["lru_cache", "fixture"])
_ACCESSORS = frozenset(["setter", "getter", "deleter"])
# Their call without arguments makes a new object and cannot fail.
_NO_ARGUMENT_MAKERS = [getattr(importlib.import_module(m), n) for m, n in PURE_MODULE_CALLS]

_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)

ORDERINGS = frozenset(["__lt__", "__le__", "__gt__", "__ge__"])
# Methods Python calls on a class while creating a subclass of it (``__set_name__`` is
# called on a descriptor put in a class body: ``bound_names.instantiable`` sees to those).
_CLASS_HOOKS = frozenset(["__init_subclass__"])


def may_raise(stmt: ast.stmt, scope: Scope) -> bool:
    """Whether running the top-level binding ``stmt`` after what ``scope`` has bound may
    raise."""
    if isinstance(stmt, _FuncDef):
        return _def_may_raise(stmt, scope, scope.bound)
    if isinstance(stmt, ast.ClassDef):
        if enum_made_here(stmt, scope) is not None:
            # Not a plain class for what follows (subclassing it may raise).
            defs = [s for s in stmt.body if isinstance(s, _FuncDef)]
            return any(risky_header_parts(d, scope, scope.bound) for d in defs)
        risky = class_may_raise(stmt, scope, set(scope.bound))
        hooks = {s.name for s in stmt.body if isinstance(s, _FuncDef)} & _CLASS_HOOKS
        if not risky and not hooks:
            scope._judged = stmt.name  # ``after`` takes it in as a plain class
        return risky
    if isinstance(stmt, ast.Import):
        return not all(stdlib_has(scope, a.name) for a in stmt.names)
    if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module != "__future__":
        return not all(takes_known(scope, stmt.module or "", a.name) for a in stmt.names)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return _assignment_may_raise(stmt, scope, scope.bound)
    if isinstance(stmt, ast.If):  # ``if TYPE_CHECKING:``: the test and the ``else`` run
        if not _safe_value(stmt.test, scope, scope.bound):
            return True
        # Judged with what the module bound before the ``if``: a name an earlier statement
        # of the ``else`` binds counts as unknown (a false alarm costs precision only).
        return any(may_raise(s, scope) for s in stmt.orelse)
    return not (isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__")


def _assignment_may_raise(stmt: ast.Assign | ast.AnnAssign, scope: Scope, bound: set[str]) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if not all(isinstance(t, ast.Name) for t in targets):
        return True  # unpacking can fail on the value's length
    if isinstance(stmt, ast.AnnAssign) and not _safe_annotation(stmt.annotation, scope, bound):
        return True
    return stmt.value is not None and not _safe_value(stmt.value, scope, bound)


def _def_may_raise(
    node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, bound: set[str]
) -> bool:
    return bool(risky_header_parts(node, scope, bound))


def risky_header_parts(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    scope: Scope,
    bound: set[str],
    pytest_names: set[str] | None = None,
) -> list[ast.expr]:
    """The expressions of a ``def`` statement that may raise when it runs, in order.
    ``pytest_names``: the names that are the ``pytest`` module there (default: the
    module's; a class body may bind them to something else)."""
    names = scope.pytest if pytest_names is None else pytest_names
    risky = []
    marks_only = True  # below this decorator: only skip marks (applied bottom-up)
    for decorator in reversed(node.decorator_list):
        if marks_only and _skip_mark(decorator, scope, bound, names):
            continue
        first, marks_only = marks_only, False
        own = first and isinstance(decorator, ast.Name) and decorator.id in scope.safe_wrappers
        if not (own or _safe_decorator(decorator, scope, bound)):
            risky.append(decorator)
    risky.reverse()
    args = node.args
    defaults = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    risky += [d for d in defaults if not _safe_value(d, scope, bound)]
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    notes = [a.annotation for a in every if a is not None and a.annotation is not None]
    if node.returns is not None:
        notes.append(node.returns)
    return risky + [n for n in notes if not _safe_annotation(n, scope, bound)]


def class_may_raise(node: ast.ClassDef, scope: Scope, local: set[str]) -> bool:
    risky = risky_class_parts(node, scope, local)
    return risky is None or bool(risky)


RiskyStatements = list[tuple[ast.stmt, list[ast.expr] | None]]


def risky_class_parts(node: ast.ClassDef, scope: Scope, local: set[str]) -> RiskyStatements | None:
    """The body statements that may raise, in order, with their risky parts (a ``def``'s
    ``risky_header_parts``; None: all of it), given the names ``local`` bound before; None
    when the class statement may raise around its body (the whole class counts)."""
    if typed_dict_bases(node, scope):
        return None if typed_dict_may_raise(node, scope) else []
    if _header_may_raise(node, scope, local):
        return None
    updates = safe_fills(node)  # fills of the body's own displays that cannot raise
    pytest_names = scope.pytest - maybe_bound_in(node.body)
    found: RiskyStatements = []
    earlier: set[str] = set()  # what the body may have bound before (hiding the module's)
    for stmt in node.body:
        if isinstance(stmt, _FuncDef):
            if parts := risky_header_parts(stmt, scope, local, pytest_names):
                found.append((stmt, parts))
        elif (
            id(stmt) not in updates
            and _statement_may_raise(stmt, scope, local)
            and not computed_in_class(stmt, scope, earlier)
        ):
            found.append((stmt, None))
        local |= surely_bound(stmt)  # what follows runs only where it did not raise
        earlier |= maybe_bound(stmt)
    return found


def _statement_may_raise(stmt: ast.stmt, scope: Scope, local: set[str]) -> bool:
    if isinstance(stmt, ast.ClassDef):
        return class_may_raise(stmt, scope, set(local))
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return _assignment_may_raise(stmt, scope, local)
    return not isinstance(stmt, ast.Pass) and not (
        isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
    )


def _header_may_raise(node: ast.ClassDef, scope: Scope, local: set[str]) -> bool:
    """Whether decorators, bases (a metaclass, ``__init_subclass__``) may raise."""
    if node.decorator_list:
        decorator, *others = node.decorator_list
        if others:
            return True
        if stdlib_object_of(decorator, scope) is functools.total_ordering:
            if not ORDERINGS & maybe_bound_in(node.body):
                return True  # it refuses a class without an ordering method
        elif not is_dataclass_decorator(decorator):
            return True
        else:
            known = functools.partial(_safe_decorator, scope=scope, bound=local, roots_only=True)
            if dataclass_may_raise(node, decorator, known):
                return True
    if node.keywords or len(node.bases) > 1:
        return True  # more than one base: the MRO or the instance layouts may conflict
    called = {
        c.func.id for c in walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
    }
    known_callees = (
        scope.instantiable | EMPTY_CONSTRUCTORS | scope.imported.keys() | scope.builders.keys()
    )
    if called & maybe_bound_in(node.body) & known_callees:
        return True  # ``dict = ...`` in the body: ``dict()`` there is not the builtin
    # A base's metaclass or ``__init_subclass__`` runs on the new class.
    return not all(_plain_base(base, scope) for base in node.bases)


def _plain_base(base: ast.expr, scope: Scope) -> bool:
    """A base whose subclasses are made by ``type`` (or ``ABCMeta``) with no
    ``__init_subclass__`` of its own: a builtin exception, a plain class of the module, a
    standard-library class."""
    if isinstance(base, ast.Name) and base.id in PLAIN_BASES | scope.plain_classes:
        return not scope.star
    return _plain_class(stdlib_object_of(base, scope))


def _plain_class(value: object) -> bool:
    if not isinstance(value, type) or type(value) not in (type, abc.ABCMeta):
        return False
    hooks = (vars(c).get("__init_subclass__") for c in value.__mro__ if c is not object)
    return all(hook is None or hook is _TESTCASE_HOOK for hook in hooks)


# ``unittest.TestCase``'s only sets two attributes of the new class from constants (3.10
# to 3.13): it cannot raise, and reads nothing of the class body.
_TESTCASE_HOOK = vars(unittest.TestCase).get("__init_subclass__", object())


def _safe_decorator(
    node: ast.expr, scope: Scope, bound: set[str], roots_only: bool = False
) -> bool:
    """A wrapper whose first name is bound (``roots_only``: whatever it is)."""
    root = attribute_chain(node.func if isinstance(node, ast.Call) else node)[0]
    if not (isinstance(root, ast.Name) and (root.id in bound or scope.known(root.id))):
        return False
    if roots_only:
        return True
    if isinstance(node, ast.Call):
        values = [*node.args, *(k.value for k in node.keywords)]
        safe = all(_safe_value(v, scope, bound) for v in values)
        return safe and _last_name(node.func) in _WRAPPER_CALLS
    if isinstance(node, ast.Attribute) and node.attr in _ACCESSORS:
        return isinstance(node.value, ast.Name) and node.value.id in bound
    return _last_name(node) in _WRAPPERS


def _skip_mark(node: ast.expr, scope: Scope, bound: set[str], pytest_names: set[str]) -> bool:
    values = mark_values(node, pytest_names)
    return values is not None and all(_safe_value(v, scope, bound) for v in values)


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _safe_value(node: ast.expr, scope: Scope, bound: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in bound or scope.known(node.id)
    if isinstance(node, ast.Attribute):
        local = set() if bound is scope.bound else bound  # a class body's names hide them
        return attribute_known(node, scope, local) or _enum_attribute(node, scope, bound)
    if isinstance(node, ast.Call) and stdlib_object_of(node.func, scope) is typing.TypeVar:
        return evaluates(node, scope)
    # Module level only: a class body's own names hide the module's.
    module_level = bound is scope.bound
    if module_level and constant_value(node, scope) is not MISSING:
        return True  # ``".".join(map(str, version_info))``: computed here, it succeeded
    resolve = functools.partial(value_here, scope=scope, module_level=module_level)
    if isinstance(node, ast.Call) and succeeds(node, resolve):
        return True  # ``re.compile``, ``namedtuple`` of constants that succeed here
    if is_query(node, scope):
        return True  # ``platform.system() == "Windows"``: it succeeds here
    if (held := held_values(node, scope, bound)) is not None:  # ``rts.partial_callees``
        return all(_safe_value(v, scope, bound) for v in held)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if not node.args and not node.keywords and _makes_plainly(node.func.id, scope, bound):
            return True
        if _builds_plainly(node, node.func.id, scope, bound):
            return True
        # ``staticmethod(f)`` in a class body: a builtin wrapper that takes anything.
        wrapper = node.func.id in KEEPING_BUILTINS and scope.known(node.func.id)
        values = [*node.args, *(k.value for k in node.keywords)]
        return (
            wrapper
            and node.func.id not in bound
            and all(_safe_value(v, scope, bound) for v in values)
        )
    if isinstance(node, ast.Call):
        made = stdlib_object_of(node.func, scope)  # ``itertools.count()``
        plain = not node.args and not node.keywords
        return plain and any(made is maker for maker in _NO_ARGUMENT_MAKERS)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_safe_value(e, scope, bound) for e in node.elts)
    if isinstance(node, ast.Set):  # a name's value may be unhashable
        return all(isinstance(e, ast.Constant) for e in node.elts)
    if isinstance(node, ast.Dict):
        keys_constant = all(
            isinstance(k, ast.Constant)
            or (k is not None and _enum_attribute(k, scope, bound, key=True))
            for k in node.keys
        )
        return keys_constant and all(_safe_value(v, scope, bound) for v in node.values)
    if isinstance(node, ast.Lambda):
        defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        return all(_safe_value(d, scope, bound) for d in defaults)
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return isinstance(node.op, (ast.USub, ast.UAdd)) and type(node.operand.value) in (
            int,
            float,
        )
    return False


def _enum_attribute(node: ast.expr, scope: Scope, bound: set[str], key: bool = False) -> bool:
    """``C.name`` of an enumeration of the module made at analysis time (``rts.enum_classes``)
    that has it (``key``: and whose members are hashable)."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
        return False
    name = node.value.id
    made = scope.enums.get(name)
    if made is None or (name in bound and name not in scope.bound):
        return False  # not such a class, or a class-body name
    return node.attr in made.names and (made.hashable or not key)


def _builds_plainly(node: ast.Call, name: str, scope: Scope, bound: set[str]) -> bool:
    """``node`` calls ``name``, a class of the module whose ``__init__`` only stores, with
    arguments that fit its signature and cannot raise."""
    params = scope.builders.get(name)
    if params is None or (name in bound and name not in scope.bound):
        return False  # not such a class, or a class-body name
    values = [*node.args, *(k.value for k in node.keywords)]
    return fits(node, params) and all(_safe_value(v, scope, bound) for v in values)


def _makes_plainly(name: str, scope: Scope, bound: set[str]) -> bool:
    """``name()`` cannot raise: a builtin type whose no-argument call makes an empty
    value, or an instantiable class of the module (not rebound in a class body)."""
    if name in bound and name not in scope.bound:
        return False  # a class-body name
    if name in scope.instantiable:
        return True
    builtin = name in EMPTY_CONSTRUCTORS and name not in scope.rebound and not scope.star
    return builtin and name not in bound


def _safe_annotation(node: ast.expr, scope: Scope, bound: set[str]) -> bool:
    """An annotation evaluates without raising: names known, attributes resolvable; a
    subscript or ``|`` of such (how typing forms are spelled)."""
    if scope.lazy_annotations:
        return True
    if isinstance(node, ast.Subscript):
        parts = _safe_annotation(node.value, scope, bound) and _safe_annotation(
            node.slice, scope, bound
        )
        return parts and evaluates_among(node, scope, bound)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        parts = _safe_annotation(node.left, scope, bound) and _safe_annotation(
            node.right, scope, bound
        )
        return parts and evaluates_among(node, scope, bound)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_safe_annotation(e, scope, bound) for e in node.elts)
    return _safe_value(node, scope, bound)
