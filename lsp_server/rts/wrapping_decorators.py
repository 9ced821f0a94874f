"""Functions of a module that only wrap what they decorate, proved from their code.

A decorator the purity rules do not know (``purity.pure_decorator``) keeps the class or
``def`` it decorates in the module unit: it may register what it is given. toolz's
``@instanceproperty`` (on methods of ``curry``, ``Compose`` and ``excepts``) is a function of
the same module that returns a ``partial`` of itself or an ``InstanceProperty`` (a
``property`` subclass that stores one more attribute) made from its arguments; so a blank
line in ``excepts``' docstring ran every test.

A *wrapper* here is a top-level ``def`` without decorators whose body (after a docstring)
is only ``if``/``return``/``pass`` over expressions that are names, constants, ``is``
comparisons and calls of ``partial``, of itself or of a *wrapping class*, with names and
constants as arguments: it has no effect outside what it returns, and nothing it computes
from a value can raise. A wrapping class has ``object`` or ``property`` for its only base,
no decorator, keyword or creation hook, and an ``__init__`` that only stores parameters or
constants on the instance and calls its base's ``__init__`` with them.

A wrapper may also have for its body (after a docstring) only ``@wraps(param) def
inner(...)`` and ``return inner``, ``wraps`` being ``functools.wraps`` where it is applied
and ``inner`` having only constants for defaults and names bound by the module's imports
for annotations (validators' ``@validator``: ``*args: Any``): applying it defines
``inner`` and copies the parameter's name, docstring and attributes onto it
(``functools.update_wrapper`` skips what it cannot read), which changes nothing else; it
cannot raise applied first to a ``def`` when one positional argument fits its signature.
``inner``'s body runs when it is called. Only applied bare: ``@w(g)`` wraps ``g`` and
calls it with what it decorates. A top-level ``def`` decorated by a name imported from a
module that may be the project's is trusted the same way and checked at selection
(``rts.imported_wrappers``).

Applying a wrapper at import still runs code, and may raise where a call does not fit a
signature: the wrapper and the class's ``__init__`` ran at import, so every importer
depends on their units, headers included (``rts.import_footprints``), and the decorator
expressions that may raise are in the module unit (``rts.import_digest``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.bound_names import maybe_bound, maybe_bound_in, parameters
from lsp_server.rts.purity import is_pure, is_string_statement
from lsp_server.rts.stdlib_imports import STDLIB_MODULES
from lsp_server.rts.store_only_init import _HOOKS as CREATION_HOOKS

_WRAPPING_BASES = frozenset(["object", "property"])
_PARTIAL = "partial"


@dataclass
class Wrappers:
    """The wrappers and wrapping classes bound so far in a module's top-level statements,
    kept as ``rts.bindings`` walks them (a rebinding drops a name)."""

    functions: dict[str, frozenset[str]] = field(default_factory=dict)
    """A wrapper's name -> the names its body calls (checked when it is applied: a
    function's globals are looked up when it runs)."""
    classes: set[str] = field(default_factory=set)
    bound: set[str] = field(default_factory=set)
    """Every name the statements so far may bind (a module's own ``property``...)."""
    wraps: set[str] = field(default_factory=set)
    """How ``functools.wraps`` is spelled here now (``wraps``, ``functools.wraps``)."""
    shaped: set[str] = field(default_factory=set)
    """The ``@wraps`` wrappers: only applied bare do they only wrap (``@w(g)`` wraps
    ``g`` and calls it with what it decorates)."""
    safe: set[str] = field(default_factory=set)
    """The ``@wraps`` wrappers that accept one positional argument: applying one to a
    ``def`` cannot raise (see ``safely_applied``)."""
    imported: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    """Names a top-level ``from`` import took from a module that may be the project's ->
    (module, leading dots, name): trusted as wrappers of a ``def`` they decorate bare
    (``rts.imported_wrappers`` checks them where they come from)."""
    trusted: list[tuple[str, tuple[str, int, str]]] = field(default_factory=list)
    """Each top-level ``def`` (by name) trusted so, with the origin of its decorator."""
    needs: dict[str, frozenset[str]] = field(default_factory=dict)
    """A ``@wraps`` wrapper's name -> the names its ``inner``'s annotations read."""
    imports: set[str] = field(default_factory=set)
    """Names the top-level imports surely bind, as of now."""

    def before(self, stmt: ast.stmt) -> tuple[frozenset[str], frozenset[str]]:
        """Forget what ``stmt`` may rebind; the wrappers ``stmt`` may apply, and those that
        cannot raise applied to it first (``safely_applied``)."""
        rebound = maybe_bound(stmt)
        for name in rebound & self.functions.keys():
            del self.functions[name]
        self.classes -= rebound
        self.safe -= rebound
        self.shaped -= rebound
        self.imports -= rebound
        for name in rebound & self.imported.keys():
            del self.imported[name]
        self.bound |= rebound
        self.wraps = {w for w in self.wraps if w.partition(".")[0] not in rebound}
        called = {
            n.func.id
            for n in walk(stmt)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        trusted = self._trust_imported(stmt, called)
        return self.usable() - (self.shaped & called) | trusted, self.safely_applied(stmt) | trusted

    def _trust_imported(self, stmt: ast.stmt, called: set[str]) -> frozenset[str]:
        """The imported names ``stmt``, a top-level ``def``, is decorated with bare (and
        calls nowhere): noted in ``trusted``."""
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return frozenset()
        bare = {d.id for d in stmt.decorator_list if isinstance(d, ast.Name)}
        names = bare & self.imported.keys() - called
        self.trusted += [(stmt.name, self.imported[name]) for name in sorted(names)]
        return frozenset(names)

    def exported(self) -> frozenset[str]:
        """At the module's end: its ``@wraps`` wrappers that cannot raise applied to a
        ``def``, for another module to decorate with (``FileUnits.safe_wrappers``)."""
        return frozenset(self.safe & self.usable())

    def after(self, stmt: ast.stmt) -> None:
        """Note ``stmt`` when it defines a wrapper or a wrapping class, or imports
        ``functools.wraps``."""
        self.wraps |= wraps_spellings(stmt)
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.imports |= {(a.asname or a.name).split(".")[0] for a in stmt.names} - {"*"}
        if isinstance(stmt, ast.ImportFrom) and (
            stmt.level or (stmt.module or "").split(".")[0] not in STDLIB_MODULES
        ):
            for alias in stmt.names:
                origin = (stmt.module or "", stmt.level, alias.name)
                self.imported[alias.asname or alias.name] = origin
        if isinstance(stmt, ast.FunctionDef):
            callees = wrapper_callees(stmt)
            if callees is not None:
                self.functions[stmt.name] = callees
                shaped = _wraps_callee(_body(stmt), _params(stmt))
                self.needs[stmt.name] = frozenset() if shaped is None else shaped[1]
                if shaped is not None:
                    self.shaped.add(stmt.name)
                    if _one_positional(stmt.args):
                        self.safe.add(stmt.name)
        elif isinstance(stmt, ast.ClassDef) and is_wrapping_class(stmt):
            self.classes.add(stmt.name)

    def safely_applied(self, stmt: ast.stmt) -> frozenset[str]:
        """The wrappers that cannot raise applied first to ``stmt`` (``@w`` right above it)
        when it is a ``def``: ``functools.update_wrapper`` copies from a function only
        attributes of the types a function takes. None for any other statement (a class
        body may rebind the name)."""
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return frozenset()
        return frozenset(self.safe & self.usable())

    def usable(self) -> frozenset[str]:
        """The wrappers whose callees are, as of now, wrapping classes or themselves, and
        whose annotations read names the imports bind."""
        known = {_PARTIAL} | (set() if _WRAPPING_BASES & self.bound else self.classes)
        known |= self.wraps
        return frozenset(
            n
            for n, c in self.functions.items()
            if c <= known | {n} and self.needs.get(n, frozenset()) <= self.imports
        )


def wrapper_callees(node: ast.FunctionDef) -> frozenset[str] | None:
    """The names the body of a wrapper calls; None when ``node`` is no wrapper."""
    args = node.args
    defaults = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    if node.decorator_list or not all(isinstance(d, ast.Constant) for d in defaults):
        return None
    body, params = _body(node), _params(node)
    shaped = _wraps_callee(body, params)
    if shaped is not None:
        return frozenset([shaped[0]])
    callees: set[str] = set()
    if not _plain_statements(body, callees):
        return None
    # Any other global it read might be unbound when it runs: NameError at import.
    known = params | callees | {node.name}
    loads = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name)}
    return frozenset(callees) if loads <= known else None


def _body(node: ast.FunctionDef) -> list[ast.stmt]:
    return node.body[1:] if node.body and is_string_statement(node.body[0]) else node.body


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {a.arg for a in parameters(node)}


def _one_positional(args: ast.arguments) -> bool:
    """Whether a call with one positional argument fits the signature ``args``."""
    positional = [*args.posonlyargs, *args.args]
    required = len(positional) - len(args.defaults)
    kw_required = any(d is None for d in args.kw_defaults)
    return (bool(positional) or args.vararg is not None) and required <= 1 and not kw_required


def wraps_spellings(stmt: ast.stmt) -> set[str]:
    """How ``stmt`` binds ``functools.wraps``: ``from functools import wraps [as w]`` or
    ``import functools [as f]`` (then ``f.wraps``)."""
    if isinstance(stmt, ast.ImportFrom) and stmt.module == "functools" and not stmt.level:
        return {a.asname or a.name for a in stmt.names if a.name == "wraps"}
    if isinstance(stmt, ast.Import):
        return {f"{a.asname or a.name}.wraps" for a in stmt.names if a.name == "functools"}
    return set()


def _wraps_callee(body: list[ast.stmt], params: set[str]) -> tuple[str, frozenset[str]] | None:
    """The spelling of ``wraps`` when ``body`` is ``@wraps(param) def inner(...)`` then
    ``return inner`` and defining ``inner`` evaluates nothing but that decorator and
    names, with the names its annotations read (each must be bound where it is applied);
    None for any other body."""
    if len(body) != 2:
        return None
    inner, last = body
    if not isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) or inner.name in params:
        return None
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)):
        return None
    notes = _plain_signature(inner)
    if notes is None or last.value.id != inner.name or len(inner.decorator_list) != 1:
        return None
    decorator = inner.decorator_list[0]
    if not (
        isinstance(decorator, ast.Call)
        and not decorator.keywords
        and len(decorator.args) == 1
        and isinstance(decorator.args[0], ast.Name)
        and decorator.args[0].id in params
    ):
        return None
    func = decorator.func
    if isinstance(func, ast.Name):
        return func.id, notes
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return (f"{func.value.id}.wraps", notes) if func.attr == "wraps" else None
    return None


def _plain_signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str] | None:
    """The names the annotations of ``node`` are, when its defaults are constants and its
    annotations names (``*args: Any``: evaluating one raises only while it is unbound);
    None otherwise."""
    args = node.args
    defaults = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    notes = [a.annotation for a in parameters(node) if a.annotation is not None]
    notes += [node.returns] if node.returns is not None else []
    if getattr(node, "type_params", None) or not all(isinstance(d, ast.Constant) for d in defaults):
        return None
    if not all(isinstance(n, ast.Name) for n in notes):
        return None
    return frozenset(n.id for n in notes if isinstance(n, ast.Name))


def _plain_statements(body: list[ast.stmt], callees: set[str]) -> bool:
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Return):
            if stmt.value is not None and not _plain_value(stmt.value, callees):
                return False
        elif isinstance(stmt, ast.If):
            if not _plain_test(stmt.test):
                return False
            if not (
                _plain_statements(stmt.body, callees) and _plain_statements(stmt.orelse, callees)
            ):
                return False
        else:
            return False
    return True


def _plain_test(node: ast.expr) -> bool:
    """``x is None``, ``x is not y``: comparisons that call no code and cannot raise."""
    if isinstance(node, ast.Compare):
        plain_ops = all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)
        return plain_ops and all(_atom(n) for n in (node.left, *node.comparators))
    return _atom(node)


def _atom(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    )


def _plain_value(node: ast.expr, callees: set[str]) -> bool:
    if _atom(node):
        return True
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False
    values = [*node.args, *(k.value for k in node.keywords)]
    if any(k.arg is None for k in node.keywords) or not all(map(_atom, values)):
        return False  # ``**kw`` needs a mapping; anything but a name or constant may run code
    callees.add(node.func.id)
    return True


def is_wrapping_class(node: ast.ClassDef) -> bool:
    """A class whose ``C(...)`` only stores its arguments on a new ``object`` or
    ``property`` (see the module docstring)."""
    if node.decorator_list or node.keywords or len(node.bases) != 1:
        return False
    base = node.bases[0]
    if not (isinstance(base, ast.Name) and base.id in _WRAPPING_BASES):
        return False
    bound = maybe_bound_in(node.body)
    inits = [s for s in node.body if "__init__" in maybe_bound_in([s])]
    if (
        bound & (CREATION_HOOKS | {"__slots__"})
        or len(inits) != 1
        or not isinstance(inits[0], ast.FunctionDef)
    ):
        return False
    if not all(is_pure(s) for s in node.body if not isinstance(s, ast.FunctionDef)):
        return False
    init = inits[0]
    positional = [*init.args.posonlyargs, *init.args.args]
    if init.decorator_list or init.args.vararg or init.args.kwarg or not positional:
        return False
    self_name = positional[0].arg
    params = {a.arg for a in [*positional[1:], *init.args.kwonlyargs]}
    body = init.body[1:] if init.body and is_string_statement(init.body[0]) else init.body
    # A stored name the class binds (a property without a setter) would take the store.
    return all(_stores_or_inits(stmt, self_name, base.id, bound, params) for stmt in body)


def _stores_or_inits(
    stmt: ast.stmt, self_name: str, base: str, taken: set[str], params: set[str]
) -> bool:
    """``self.attr = value`` or ``Base.__init__(self, values...)``, each value a parameter
    or a constant."""

    def plain(node: ast.expr) -> bool:
        return isinstance(node, ast.Constant) or (isinstance(node, ast.Name) and node.id in params)

    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        stores = (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == self_name
            and target.attr not in taken
        )
        return stores and plain(stmt.value)
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    func = call.func
    named = (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Name)
        and func.value.id == base
    )
    first = call.args[0] if call.args else None
    if not (named and isinstance(first, ast.Name) and first.id == self_name):
        return False
    values = [*call.args[1:], *(k.value for k in call.keywords)]
    return all(k.arg is not None for k in call.keywords) and all(map(plain, values))
