"""Values of top-level expressions made of constants alone, computed at analysis time.

``__version__ = ".".join([str(p) for p in version_info if p or p == 0])`` (glom),
``ESCAPES = MappingProxyType({...})`` or ``re.compile(_TIME_RE_STR, flags=re.VERBOSE)``
(tomli) cannot raise at import unless computing them raises, and whether it does is the
same wherever the same Python computes them (as ``rts.constant_calls`` argues): so they are
computed here, and one that succeeds is a binding like a literal (``rts.import_raise``),
its value known to the statements after it (``Scope.constants``).

Only what cannot run project code, have effects or grow out of bounds is computed: literals,
names the module surely bound to such values (its docstring's ``__doc__`` too), builtins it
did not rebind, containers, comprehensions, subscripts, f-strings without a format spec,
``+``, ``|``, ``&``, ``-``, small products, comparisons, boolean operators, calls of the
pure callables and string methods below (and of ``str.maketrans``), ``range`` of at most
``_RANGE`` items. Anything
else, or anything that raises here, is ``MISSING``.
"""

from __future__ import annotations

import ast
import builtins
import types
from typing import TYPE_CHECKING

from lsp_server.rts.ast_walk import walk
from lsp_server.rts.stdlib_values import MISSING, value_of

if TYPE_CHECKING:
    from lsp_server.rts.import_scope import Scope

_RANGE = 1000
_PURE_CALLABLES = frozenset(
    [
        *(
            getattr(builtins, n)
            for n in [
                "str",
                "int",
                "float",
                "bool",
                "tuple",
                "list",
                "frozenset",
                "set",
                "dict",
                "len",
                "chr",
                "ord",
                "sorted",
                "min",
                "max",
                "sum",
                "any",
                "all",
                "abs",
                "repr",
                "enumerate",
                "zip",
                "reversed",
                "map",
                "filter",
            ]
        ),
        types.MappingProxyType,
    ]
)
_STR_METHODS = frozenset(
    [
        "join",
        "split",
        "rsplit",
        "strip",
        "lstrip",
        "rstrip",
        "lower",
        "upper",
        "replace",
        "startswith",
        "endswith",
        "splitlines",
        "encode",
        "decode",
        "partition",
        "rpartition",
        "translate",
        "maketrans",
    ]
)
# ``str.maketrans(mapping)``, ``bytes.maketrans(b"ab", b"ba")``: static methods of the types
# that only build a table (humanize's ``_SUPERSCRIPT_TRANS``). ``bytes`` itself is no pure
# callable (``bytes(10**9)``): a stand-in lends its table maker alone.
_BYTES_TABLES = types.SimpleNamespace(maketrans=bytes.maketrans)
_NODES = (
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.Load,
    ast.Store,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.ListComp,
    ast.SetComp,
    ast.GeneratorExp,
    ast.DictComp,
    ast.comprehension,
    ast.BinOp,
    ast.Add,
    ast.Sub,
    ast.BitOr,
    ast.BitAnd,
    ast.Mult,
    ast.UnaryOp,
    ast.USub,
    ast.UAdd,
    ast.Not,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.Compare,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.In,
    ast.NotIn,
    ast.IfExp,
    ast.Call,
    ast.keyword,
    ast.Name,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _bounded_range(*args: int) -> range:
    made = range(*args)
    if len(made) > _RANGE:
        raise OverflowError("too long to compute at analysis time")
    return made


def constant_value(node: ast.expr, scope: Scope) -> object:
    """The value of the module-level expression ``node`` given what ``scope`` bound before
    it; ``MISSING`` unless it is made only of what this module computes."""
    namespace: dict[str, object] = {}
    targets = {
        n.id
        for c in walk(node)
        if isinstance(c, ast.comprehension)
        for n in walk(c.target)
        if isinstance(n, ast.Name)
    }
    if sum(isinstance(c, _COMPREHENSIONS) for c in walk(node)) > 1:
        return MISSING  # nested loops could run long
    for item in walk(node):
        if not isinstance(item, _NODES):
            return MISSING
        if isinstance(item, ast.FormattedValue) and item.format_spec is not None:
            return MISSING  # a width could be anything
        mult = isinstance(item, ast.BinOp) and isinstance(item.op, ast.Mult)
        if mult and not _small_product(item, scope):  # type: ignore[arg-type]
            return MISSING
        if isinstance(item, ast.Attribute) and not _string_method(item, scope):
            return MISSING
        if isinstance(item, ast.Call) and not _pure_call(item, targets):
            return MISSING
        if isinstance(item, ast.Name) and item.id not in targets and item.id not in namespace:
            value = _known(item.id, scope)
            if value is MISSING:
                return MISSING
            namespace[item.id] = value
    try:
        code = compile(ast.fix_missing_locations(ast.Expression(node)), "<constant>", "eval")
        # Globals, not locals: a comprehension's scope sees only those before 3.12.
        return eval(code, {"__builtins__": {}, **namespace})
    except Exception:  # whatever it raises, importing the module raises too
        return MISSING


def immutable(value: object) -> bool:
    """Whether ``value`` is a constant no later statement can change (a list may be
    appended to, an iterator consumed, where this module's copy would not see it)."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, range)):
        return True
    if isinstance(value, (tuple, frozenset)):
        return all(map(immutable, value))
    if isinstance(value, types.MappingProxyType):
        return all(immutable(k) and immutable(v) for k, v in value.items())
    return False


def _small_product(node: ast.BinOp, scope: Scope) -> bool:
    """``LIMIT * 2``, ``"-" * 70``: a product of two numbers, or of a short sequence and a
    small count, each a literal or a name bound to one (``"x" * 10**9`` is not computed)."""
    left, right = (_operand(side, scope) for side in (node.left, node.right))
    numbers = (int, float)
    if isinstance(left, numbers) and isinstance(right, numbers):
        return abs(left) < _RANGE**3 and abs(right) < _RANGE**3
    for seq, count in ((left, right), (right, left)):
        if isinstance(seq, (str, bytes, tuple)) and isinstance(count, int):
            return len(seq) * count <= _RANGE * 10
    return False


def _operand(node: ast.expr, scope: Scope) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return scope.constants.get(node.id, MISSING)
    return MISSING


def _known(name: str, scope: Scope) -> object:
    if name in scope.constants:
        return scope.constants[name]
    if name in scope.fresh:
        return scope.fresh[name]
    value = value_of(name, scope)
    if value is range:
        return _bounded_range
    if value is bytes:
        return _BYTES_TABLES
    return value if any(value is c for c in _PURE_CALLABLES) else MISSING


def _string_method(node: ast.Attribute, scope: Scope) -> bool:
    """``"sep".join``, ``__version__.split``: a method of a string literal or of a name
    bound to a string."""
    held: object = MISSING
    if isinstance(node.value, ast.Constant):
        held = node.value.value
    elif isinstance(node.value, ast.Name):
        held = scope.constants.get(node.value.id, MISSING)
        if held is MISSING and node.value.id not in scope.constants:
            owner = _known(node.value.id, scope)  # the builtin type, not rebound
            return node.attr == "maketrans" and (owner is str or owner is _BYTES_TABLES)
    return isinstance(held, (str, bytes)) and node.attr in _STR_METHODS


def _pure_call(node: ast.Call, targets: set[str]) -> bool:
    func = node.func  # an attribute is a string's method (see ``_string_method``)
    return isinstance(func, ast.Attribute) or (
        isinstance(func, ast.Name) and func.id not in targets
    )


def computed_in_class(stmt: ast.stmt, scope: Scope, earlier: set[str]) -> bool:
    """``stmt`` in a class body assigns to names a value computed at analysis from the
    module's values alone (it reads no name the body bound ``earlier``, which would hide
    the module's): it succeeded with them, and with changed ones the new text is judged
    again (``LEVEL = LEVEL + 1`` under a module constant ``LEVEL``)."""
    if not isinstance(stmt, ast.Assign) or not all(isinstance(t, ast.Name) for t in stmt.targets):
        return False
    read = {node.id for node in walk(stmt.value) if isinstance(node, ast.Name)}
    return not read & earlier and constant_value(stmt.value, scope) is not MISSING
