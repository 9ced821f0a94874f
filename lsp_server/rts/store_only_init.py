"""Classes of a module whose instances are made by an ``__init__`` that only stores.

``X = C({}, None)`` at import runs ``C.__init__``. When that ``__init__`` only stores its
parameters (or constants) on the new instance, the call has no effect outside the object
it returns (``rts.purity``), and it cannot raise when the arguments fit the signature and
every stored attribute has room (``rts.import_raise``): then the statement is a binding
its readers alone see (sqlparse's ``_NO_SPANS = DelimitedSpans({}, {})``). The
``__init__`` ran at import, so its body is in the module's import footprint
(``rts.import_footprints``): a change there still selects every importer.
"""

from __future__ import annotations

import ast

from lsp_server.rts.bound_names import assigned_value, constant_strings, maybe_bound_in

# Methods that run on, or decide, the stores an ``__init__`` makes or the making itself.
_HOOKS = frozenset(
    [
        "__new__",
        "__setattr__",
        "__getattr__",
        "__getattribute__",
        "__init_subclass__",
        "__set_name__",
        "__class_getitem__",
    ]
)


def store_only_init(node: ast.ClassDef) -> ast.arguments | None:
    """The parameters of ``node``'s ``__init__`` when the class has no base but ``object``,
    no decorator, metaclass or hook (``_HOOKS``), one plain ``__init__`` whose body only
    stores parameters or constants as attributes of the instance, each with room for it
    (in the ``__slots__`` when the class has them, bound by nothing else in the class
    body); None for any other class."""
    bases_plain = all(isinstance(b, ast.Name) and b.id == "object" for b in node.bases)
    if not bases_plain or node.keywords or node.decorator_list:
        return None
    bound = maybe_bound_in(node.body)
    inits = [s for s in node.body if "__init__" in maybe_bound_in([s])]
    if bound & _HOOKS or len(inits) != 1 or not isinstance(inits[0], ast.FunctionDef):
        return None
    init = inits[0]
    args = init.args
    positional = [*args.posonlyargs, *args.args]
    if init.decorator_list or args.vararg or args.kwarg or not positional:
        return None
    stored = _stored(init, positional[0].arg, {a.arg for a in [*positional, *args.kwonlyargs]})
    if stored is None:
        return None
    slots = _slots(node)
    if "__slots__" in bound and (slots is None or not stored <= slots):
        return None
    if stored & (bound - {"__slots__"}):
        return None  # a class attribute (a property) would take the store
    return args


def _stored(init: ast.FunctionDef, self_name: str, parameters: set[str]) -> set[str] | None:
    """The attributes ``init`` stores, when its body only stores ``self.attr = value``
    (a parameter other than ``self``, or a constant) after a docstring; else None."""
    body = init.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    stored: set[str] = set()
    for stmt in body:
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            return None
        target, value = stmt.targets[0], stmt.value
        if not (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == self_name
        ):
            return None
        plain = isinstance(value, ast.Constant) or (
            isinstance(value, ast.Name) and value.id in parameters - {self_name}
        )
        if not plain:
            return None
        stored.add(target.attr)
    return stored


def _slots(node: ast.ClassDef) -> set[str] | None:
    """The names of a ``__slots__`` of string constants (one string, or a list or tuple of
    them); None when the class binds ``__slots__`` otherwise, or not at all."""
    for stmt in node.body:
        value = assigned_value(stmt, "__slots__")
        if value is not None:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return {value.value}
            return constant_strings(value)
    return None


def fits(call: ast.Call, params: ast.arguments) -> bool:
    """Whether ``call``'s arguments bind ``params`` (an ``__init__``'s, ``self`` first)
    without a ``TypeError``: no unpacking, no parameter given twice or unknown, every one
    without a default given."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return False
    names = [a.arg for a in [*params.posonlyargs, *params.args]]
    positional = names[1:]
    if len(call.args) > len(positional):
        return False
    given = set(positional[: len(call.args)])
    by_keyword = {a.arg for a in [*params.args, *params.kwonlyargs]} - {names[0]}
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in by_keyword or keyword.arg in given:
            return False
        given.add(keyword.arg)
    required = positional[: max(0, len(positional) - len(params.defaults))]
    kw_defaults = zip(params.kwonlyargs, params.kw_defaults, strict=True)
    required += [a.arg for a, d in kw_defaults if d is None]
    return set(required) <= given
