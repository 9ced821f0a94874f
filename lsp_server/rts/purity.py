"""Whether code that runs at import only builds values (no effect elsewhere), and which
names it reads: the vocabulary of ``rts.bindings`` and ``rts.class_members``."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import TypeGuard

from lsp_server.rts.ast_walk import per_node, walk

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


# Standard-library constructors called through their module (``itertools.count()``:
# boltons' ``FunctionBuilder._compile_count``): a new object, no effect elsewhere (and,
# called without arguments, no failure: ``rts.import_raise``).
PURE_MODULE_CALLS = frozenset(
    [
        ("itertools", "count"),
        ("collections", "OrderedDict"),
        ("collections", "defaultdict"),
        ("collections", "deque"),
        ("threading", "Lock"),
        ("threading", "RLock"),
    ]
)


# Standard-library classes whose ``C(...)`` only makes a new value: no effect elsewhere
# (``decimal.Decimal`` is none: it may set flags of the thread's context). Whether a call
# may raise is ``rts.import_raise``'s question.
STDLIB_VALUE_CLASSES = frozenset(
    ("datetime", name) for name in ("date", "datetime", "time", "timedelta", "timezone")
)


def _module_call(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and (func.value.id, func.attr) in PURE_MODULE_CALLS
    )


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
    return set(_import_time_names(node))


@per_node  # a dozen rules ask it of the same statements
def _import_time_names(node: ast.AST) -> frozenset[str]:
    out: set[str] = set()
    stack = [node]
    push, node_type = stack.append, ast.AST
    doc_read = False  # an attribute ``__doc__``: a read unless the statement copies one
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Name):
            # ``__doc__`` as a name is the module's (``rts.module_docstring``) or class's.
            out.add(item.id)
        elif isinstance(item, ast.Attribute):
            if item.attr != "__doc__":
                out.add(item.attr)
            else:
                doc_read = True
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(item.decorator_list)
            push(item.args)
            if item.returns is not None:
                push(item.returns)
            continue
        if isinstance(item, ast.Lambda):
            push(item.args)
            continue
        # ``ast.iter_child_nodes`` without its two generators per node.
        for name in item._fields:
            value = getattr(item, name, None)
            if isinstance(value, node_type):
                push(value)
            elif isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, node_type))
    if doc_read and not _copies_doc(node):
        out.add("__doc__")
    return frozenset(out)


def _copies_doc(node: ast.AST) -> bool:
    """Whether ``node`` stores a ``__doc__`` attribute (``g.__doc__ = f.__doc__``): it
    copies a docstring, shown only to whoever reads ``__doc__`` later; none shows a
    function's body (rts.lookups). Asked only of a statement that has a ``__doc__``."""
    return any(
        isinstance(n, ast.Attribute) and n.attr == "__doc__" and isinstance(n.ctx, ast.Store)
        for n in walk(node)
    )


def is_pure(
    node: ast.AST, makers: frozenset[str] = frozenset(), builders: frozenset[str] = frozenset()
) -> bool:
    """No call (except known pure ones, ``C()`` of the classes ``makers``: they run no
    code of the module, and ``C(...)`` of the classes ``builders``: their ``__init__`` only
    stores on the new instance), await, yield or walrus outside lambda bodies."""
    for item in _outside_lambda_bodies(node):
        if isinstance(item, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
        if (
            isinstance(item, ast.Call)
            and _last_name(item.func) not in _PURE_CALLS
            and not _module_call(item.func)
        ):
            callee = item.func.id if isinstance(item.func, ast.Name) else None
            if callee in builders:
                continue
            if callee not in makers or item.args or item.keywords:
                return False
    return True


def _outside_lambda_bodies(node: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``node``'s tree but those of lambda bodies: they run when the lambda
    is called (its code is recorded then), not when the statement does."""
    todo = [node]
    while todo:
        item = todo.pop()
        yield item
        if isinstance(item, ast.Lambda):
            todo.append(item.args)  # the defaults are evaluated here
        else:
            todo.extend(ast.iter_child_nodes(item))


def pure_decorator(
    node: ast.expr,
    wrappers: frozenset[str] = frozenset(),
    inert: Callable[[ast.expr], bool] | None = None,
) -> bool:
    """``wrappers``: functions of the module that only wrap (``rts.wrapping_decorators``);
    ``inert``: whether an argument with calls changes nothing all the same (a query of the
    platform, ``rts.stdlib_queries``: ``skipif(shutil.which("head") is None)``)."""
    target = node.func if isinstance(node, ast.Call) else node
    chain = list(_chain(target))
    own = isinstance(target, ast.Name) and target.id in wrappers
    if not chain or not (own or chain[0] in _PURE_DECORATORS or "mark" in chain):
        return False
    if isinstance(node, ast.Call):
        if any(k.arg == "autouse" for k in node.keywords):
            return False
        values = (*node.args, *(k.value for k in node.keywords))
        return all(is_pure(a) or (inert is not None and inert(a)) for a in values)
    return True


def nested_statements(node: ast.AST) -> Iterator[ast.stmt]:
    """Statements directly inside a compound statement (``if``, ``try``, ``match``, ``def``,
    ``class``...), except handlers and match cases looked through."""
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, name, ()):
            if isinstance(child, ast.stmt):
                yield child
            else:  # an except handler or a match case
                yield from child.body


def is_string_statement(stmt: ast.stmt) -> bool:
    """A string standing as a statement: a docstring, or compiled to nothing."""
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def is_type_checking_block(stmt: ast.stmt) -> TypeGuard[ast.If]:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``), whatever its ``else``: its body
    runs only under a type checker."""
    if not isinstance(stmt, ast.If):
        return False
    test = stmt.test
    name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
    return name == "TYPE_CHECKING"
