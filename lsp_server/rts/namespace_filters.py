"""Sets of names that a module's top level tests the names of a standard-library module
against: what the test can tell apart is the set's members that module has.

toolz's ``curried/operator.py`` curries every function of ``operator`` but those it lists::

    IGNORE = {"__abs__", "abs", "attrgetter", ...}
    locals().update(
        {name: f if name in IGNORE else curry(f)
         for name, f in vars(operator).items() if callable(f)})
    del IGNORE

The ``update`` is in the module unit and read ``IGNORE``, so every importer depended on the
set: listing two names only Python 3.14's ``operator`` has (688a812) ran all 204 tests. The
statement sees the set only through ``name in IGNORE`` with ``name`` a name of ``operator``,
and the standard library's names are the same wherever this Python runs (the analysis is
kept per Python: ``rts.analysis_cache``). So there the set is no read of the statement: the
module unit holds a marker of the members the module has instead (a member it gains or
loses changes the marker and selects every importer, as before).

The set must be a display of string constants bound by the module and not rebound since;
every load of it in the statement must be the right side of one ``in``/``not in`` whose left
side is the target of the single ``for`` of a comprehension (without nested ones or ``:=``)
over ``vars(m)``, ``vars(m).items()``/``.keys()``, ``dir(m)`` or ``m.__dict__...`` of a
module ``m`` imported from the standard library. ``del S`` reads no value either (whether
``S`` is bound there is in the module unit's order markers).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.bound_names import maybe_bound
from lsp_server.rts.import_scope import Scope
from lsp_server.rts.stdlib_values import MISSING, stdlib_object

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_NAMESPACE_METHODS = frozenset(["items", "keys"])


@dataclass
class NameSets:
    """The module's sets of string constants bound so far, walked in order."""

    values: dict[str, frozenset[str]] = field(default_factory=dict)

    def take(self, stmt: ast.stmt, scope: Scope) -> tuple[set[str], list[str]]:
        """For ``stmt`` (``scope``: what is bound before it): the names it reads no value
        of, and the markers that stand for the sets among them; then note what it binds."""
        unread, markers = _deleted(stmt), []
        for name, tested in _filtered(stmt, self.values, scope).items():
            unread.add(name)
            kept = sorted(self.values[name] & tested)
            markers.append(f"<{name} in namespace:{','.join(kept)}>")
        for name in maybe_bound(stmt):
            self.values.pop(name, None)
        value = _string_set(stmt)
        if value is not None:
            self.values[value[0]] = value[1]
        return unread, markers


def _deleted(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, ast.Delete) and all(isinstance(t, ast.Name) for t in stmt.targets):
        return {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    return set()


def _string_set(stmt: ast.stmt) -> tuple[str, frozenset[str]] | None:
    """``S = {"a", "b"}`` -> ("S", {"a", "b"})."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if not (isinstance(target, ast.Name) and isinstance(value, ast.Set)):
        return None
    members = [e.value for e in value.elts if isinstance(e, ast.Constant)]
    strings = [m for m in members if isinstance(m, str)]
    return (target.id, frozenset(strings)) if len(strings) == len(value.elts) else None


def _filtered(stmt: ast.stmt, sets: dict[str, frozenset[str]], scope: Scope) -> dict[str, set[str]]:
    """The sets ``stmt`` reads only by testing names of a standard-library module -> the
    names those modules have."""
    loads: dict[str, int] = {}
    for node in walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in sets:
            loads[node.id] = loads.get(node.id, 0) + 1
    if not loads or scope.star:
        return {}
    tested: dict[str, set[str]] = {}
    counted: dict[str, int] = {}
    for node in walk(stmt):
        if isinstance(node, _COMPREHENSIONS):
            for name, (names, count) in _tests_in(node, set(loads), scope).items():
                tested.setdefault(name, set()).update(names)
                counted[name] = counted.get(name, 0) + count
    return {name: names for name, names in tested.items() if counted[name] == loads[name]}


def _tests_in(
    comprehension: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
    wanted: set[str],
    scope: Scope,
) -> dict[str, tuple[set[str], int]]:
    """In a comprehension over a standard-library module's names: each wanted set tested
    against its target -> (the module's names, how many such tests)."""
    if len(comprehension.generators) != 1:
        return {}
    generator = comprehension.generators[0]
    inner = [n for n in walk(comprehension) if n is not comprehension]
    if any(isinstance(n, (*_COMPREHENSIONS, ast.NamedExpr, ast.Lambda)) for n in inner):
        return {}
    key = _key_target(generator.target, generator.iter)
    names = _namespace_names(generator.iter, scope)
    if key is None or names is None:
        return {}
    found: dict[str, tuple[set[str], int]] = {}
    for node in inner:
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
            continue
        right, left = node.comparators[0], node.left
        if not (isinstance(node.ops[0], (ast.In, ast.NotIn)) and isinstance(right, ast.Name)):
            continue
        if right.id in wanted and isinstance(left, ast.Name) and left.id == key:
            count = found.get(right.id, (names, 0))[1]
            found[right.id] = (names, count + 1)
    return found


def _key_target(target: ast.expr, iterable: ast.expr) -> str | None:
    """The name the ``for`` binds to each name of the namespace."""
    items = isinstance(iterable, ast.Call) and _method(iterable) == "items"
    if items and isinstance(target, ast.Tuple) and target.elts:
        target = target.elts[0]
    elif items:
        return None
    return target.id if isinstance(target, ast.Name) else None


def _method(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) and not call.args else None


def _namespace_names(iterable: ast.expr, scope: Scope) -> set[str] | None:
    """The names of the standard-library module ``iterable`` goes over, if it does."""
    if isinstance(iterable, ast.Call) and _method(iterable) in _NAMESPACE_METHODS:
        assert isinstance(iterable.func, ast.Attribute)
        iterable = iterable.func.value
    module: ast.expr | None = None
    if isinstance(iterable, ast.Attribute) and iterable.attr == "__dict__":
        module = iterable.value
    elif isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name):
        single = len(iterable.args) == 1 and not iterable.keywords
        builtin = iterable.func.id in ("vars", "dir") and iterable.func.id not in scope.rebound
        module = iterable.args[0] if single and builtin else None
    if not isinstance(module, ast.Name) or module.id not in scope.modules:
        return None
    value = stdlib_object(scope, scope.modules[module.id], [])
    return None if value is MISSING else set(vars(value))
