"""Top-level enumerations of constants made at analysis time, to know they cannot raise.

A class over a standard-library enum class (``class Color(enum.Enum): RED = "red"``) is
made by ``EnumType``, which reads every member and may raise: a name given twice, a value
a mixin refuses (``class Size(int, Enum): HUGE = "huge"``), a reserved ``_sunder_`` name
misused. Whether it does is decided by the statement's own
constants, the same wherever the same Python runs it: reks analyses files in the
interpreter that runs the tests, and the analysis cache is kept per Python
(``rts.analysis_cache``). So the statement is made here, on a copy whose methods are stubs
(a function is no member whatever its body; its header is judged by ``rts.import_raise``),
and one made here cannot raise at import (``rts.import_raise``). ``EnumType`` records the
class nowhere else, so a member added is seen by the tests that read the class alone
(structlog ba1a1785: ``CallsiteParameter.QUAL_MODULE`` selected every importer of
``processors.py``).

Only a body of strings, ``pass``, methods and ``NAME = <literal>`` is
tried, with bases that are builtin types or standard-library classes and no decorator
(a decorated class is no binding: ``rts.class_members``); anything else counts as may raise.
"""

from __future__ import annotations

import ast
import builtins
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsp_server.rts.stdlib_values import MISSING, stdlib_object_of

if TYPE_CHECKING:
    from lsp_server.rts.import_scope import Scope

_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class MadeEnum:
    """What the trial made: the names its attributes resolve for (members, methods), and
    whether its members can be dictionary keys (no ``__eq__`` without ``__hash__``)."""

    names: frozenset[str]
    hashable: bool


def enum_made_here(node: ast.ClassDef, scope: Scope) -> MadeEnum | None:
    """What ``node``, a top-level class statement after what ``scope`` has bound, makes
    when it is an enumeration of constants over a standard-library enum class made here
    without raising (its methods' headers aside); else None."""
    bases = [_base(b, scope) for b in node.bases]
    if node.keywords or not bases or any(b is None for b in bases):
        return None
    if not any(isinstance(b, enum.EnumMeta) for b in bases):
        return None
    if node.decorator_list:
        return None
    body = [_trial_statement(s, scope) for s in node.body]
    if any(s is None for s in body):
        return None
    names = {f"__reks_base{i}__": b for i, b in enumerate(bases)}
    trial = ast.parse(f"class {node.name}: pass").body[0]  # fields as this Python has them
    assert isinstance(trial, ast.ClassDef)
    trial.bases = [ast.Name(id=n, ctx=ast.Load()) for n in names]
    trial.body = [s for s in body if s is not None] or [ast.Pass()]
    module = ast.fix_missing_locations(ast.Module(body=[trial], type_ignores=[]))
    namespace = {
        **names,
        "__name__": "reks_enum_trial",
        "__builtins__": builtins,
    }
    try:
        exec(compile(module, "<reks enum trial>", "exec"), namespace)
    except Exception:  # any failure here is a failure at import
        return None
    made = namespace[node.name]
    assert isinstance(made, enum.EnumMeta)
    methods = {s.name for s in node.body if isinstance(s, _FuncDef)}
    hashable = type.__getattribute__(made, "__hash__") is not None
    return MadeEnum(frozenset(made.__members__) | methods, hashable)


def _base(node: ast.expr, scope: Scope) -> object | None:
    """The class a base expression is: a builtin type not rebound, or a standard-library
    class."""
    if isinstance(node, ast.Name) and node.id not in scope.bound and scope.known(node.id):
        value = getattr(builtins, node.id, None)
        return value if isinstance(value, type) and node.id not in scope.rebound else None
    value = stdlib_object_of(node, scope)
    return value if value is not MISSING and isinstance(value, type) else None


def _trial_statement(stmt: ast.stmt, scope: Scope) -> ast.stmt | None:
    """The statement as the trial runs it (a method as a stub of the same name), None
    when it is not tried."""
    if isinstance(stmt, ast.Pass):
        return stmt
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return None if not isinstance(stmt.value.value, str) else ast.Pass()
    if isinstance(stmt, _FuncDef):
        stub = ast.parse(f"def {stmt.name}(self):\n    pass\n").body[0]
        return ast.copy_location(stub, stmt)
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    if not isinstance(stmt.targets[0], ast.Name):
        return None
    try:
        ast.literal_eval(stmt.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return stmt
