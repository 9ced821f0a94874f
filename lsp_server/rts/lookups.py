"""What a piece of code may read besides the names it spells out, told from its syntax.

* Lookups by a computed string (``globals()``, ``vars``, ``getattr(obj, name)``...) can read
  any name: a test that ran such code depends on every unit of the modules it depends on.
  ``getattr(obj, "x")`` with a constant name reads ``x`` only (the constant counts as a
  read, see ``rts.reads``), so it is no lookup by string: a wrapper that copies
  ``__doc__`` and ``__name__`` off every function it wraps (``toolz.curry``) does not make
  its importers depend on everything.
* A function's docstring is seen by code that reads it by one of ``DOC_READS``
  (``__doc__``, ``inspect.getdoc``...); its code and docstring by code that reads one of
  ``BODY_READS`` (``__code__``, ``inspect.getsource``...), its defaults by one of
  ``SIGNATURE_READS`` (``inspect.signature``...), and all of them by library code handed
  the function object at import (``click.command()(f)`` formats the docstring into a help
  text; reks does not trace library code). A statement that runs at import and calls
  something not defined in the project (``call_roots`` not imported from project modules,
  builtins included) is *foreign*: every importer depends on the functions it names whole.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from lsp_server.rts.ast_walk import statements, walk
from lsp_server.rts.instance_lookups import attribute_stores, own_dicts, stored_names
from lsp_server.rts.looped_names import looped_constants
from lsp_server.rts.name_prefix import NamePrefixes
from lsp_server.rts.no_lookups import BUILTIN_LOOKUPS, BY_NAME, no_lookups
from lsp_server.rts.stdlib_imports import STDLIB_MODULES
from lsp_server.rts.unpacked_formats import formats_unpacked

# Names whose use means "looks names up by string".
DYNAMIC_NAMES = frozenset(
    [
        "globals",
        "vars",
        "__dict__",
        "__import__",
        "import_module",
        "modules",
        "dir",
        "getmembers",
        "getattr",
        "hasattr",
        "setattr",
        "delattr",
        "__getattribute__",
        "__getattr__",
        "__all__",
        # Lookups by a name given as data: operator's getters, inspect's static lookups,
        # a frame's namespaces (``sys._getframe(1).f_globals[name]``), a function's module
        # namespace (``f.__globals__[name]``).
        "attrgetter",
        "methodcaller",
        "getattr_static",
        "getmembers_static",
        "f_globals",
        "f_locals",
        "f_builtins",
        "__globals__",
        # A class's subclasses: class statements the code never names (any module's).
        "__subclasses__",
        # A mapping's entries by the fields of a template: ``rts.unpacked_formats``.
        "format_map",
    ]
)
SESSION_LISTINGS = frozenset(
    [
        "__subclasses__",
        "get_objects",
        "get_referrers",
        "getrefcount",
        "modules",
        "enumerate",
        "active_count",
        "_current_frames",
    ]
)
"""Names whose reading means "lists state of the whole session" (``rts.session_listings``):
a class's subclasses, every object or the referrers of one and the count of those, the
loaded modules, the running threads. Told from the bytecode (``rts.reads``): the builtin
``enumerate`` is read as a global, ``threading.enumerate`` as an attribute or an import."""

FRAME_NAMESPACES = frozenset(["f_globals", "f_locals", "f_builtins"])
"""A frame's namespaces: a read of one is a lookup of any name only where its line runs
(``rts.read_lines``)."""

DOC_READS = frozenset(["__doc__", "getdoc", "help", "pydoc"])
"""Names whose reading means "sees a function's docstring" (its ``.<doc>`` unit)."""

ANNOTATION_READS = frozenset(
    ["__annotations__", "__annotate__", "get_type_hints", "get_annotations"]
)
"""Names whose reading means "sees a class's annotations": every annotated attribute of the
class, each a member unit of its own (``rts.future``), so such a read counts as a lookup of
any attribute (``ATTRIBUTE_LOOKUP``; a function's annotations are its header's)."""

BODY_READS = frozenset(
    [
        "__code__",
        "co_code",
        "getsource",
        "getsourcelines",
        "findsource",
        "getblock",
        "getcomments",
        "dis",
        "get_overloads",  # the ``@overload`` stubs, in the body unit (``rts.units``)
    ]
)
"""Names whose reading means "sees a function's code" (its body unit and docstring)."""

CODE_LINE_READS = frozenset(
    ["co_firstlineno", "co_lines", "co_positions", "co_lnotab", "co_linetable"]
)
"""The line numbers of a code object."""

OTHER_CODES = frozenset(["f_code", "gi_code", "cr_code", "ag_code", "code", "CodeType"])
"""Where a code object comes from but a function's ``__code__`` (``code``: a frame's
``frame.code`` in pytest, ``__code__`` is no plain ``code``)."""

SOURCE_TEXT_READS = frozenset(
    [
        *("getsource", "getsourcelines", "findsource", "getblock", "getcomments"),
        *("getframeinfo", "getouterframes", "getinnerframes"),
        *("extract_tb", "extract_stack", "getline", "getlines"),
        *("format_exc", "format_exception", "format_tb", "format_stack", "getrepr"),
        *("print_exc", "print_exception", "print_tb", "print_stack"),
    ]
)
"""Names whose reading means "sees source text" (a frame's or traceback's lines as
``linecache`` gives them, a function's source): comments show there, so a test reading one
depends on the whole layout of the code that ran (``rts.position_units``)."""

LINE_READS = frozenset(
    [
        *CODE_LINE_READS,
        *("f_lineno", "tb_lineno", "lineno", "end_lineno", "positions", "getlineno"),
        "firstlineno",  # pytest's ``Code``
        *("walk_tb", "walk_stack"),
        *SOURCE_TEXT_READS,
    ]
)
"""Names whose reading means "sees line numbers or source text": the places of the code
that ran (``rts.position_units``), which comments and blank lines change and no other unit
sees. Those but ``SOURCE_TEXT_READS`` show numbers only (where code sits, not the text of
its comments).
Not ``inspect.stack`` and ``inspect.trace``: names as common as a context's "stack"; their
frames' lines are read as ``lineno`` but by index (``stack()[0][2]``), a hole left open."""

CAPTURED_LOG_TEXT = frozenset(["text", "stream", "getvalue"])
"""What shows the formatted text of ``caplog``'s records (``caplog.text``, its handler's
``stream``), line numbers in it (``names_read.reads_captured_log_text``)."""

SIGNATURE_READS = frozenset(
    [
        "__defaults__",
        "__kwdefaults__",
        "from_callable",
        "__signature__",
        "getfullargspec",
        "getargspec",
        "getcallargs",
    ]
)
"""Names whose reading means "sees a function's default values" (its ``.<defaults>`` unit;
names, kinds and annotations are its header's), not its body or docstring."""

INSPECT_SIGNATURES = frozenset(["signature", "Signature"])
"""``inspect.signature``: a read of ``__signature__`` (``SIGNATURE_READS``) when code loads
it as a global or as an attribute of ``inspect`` (``rts.reads``); an attribute or a string
of that name alone is as often a token's signature (pyjwt's)."""


def _constant_name_calls(node: ast.AST) -> set[int]:
    """ids of the ``getattr``-family names called with a constant attribute name, or with
    a name that only ever takes the strings of a literal tuple (``rts.looped_names``)."""
    out: set[int] = set()
    looped = looped_constants(node)
    for item in walk(node):
        if (
            isinstance(item, ast.Call)
            and isinstance(item.func, ast.Name)
            and item.func.id in BY_NAME
            and len(item.args) >= 2
            and (
                (isinstance(item.args[1], ast.Constant) and isinstance(item.args[1].value, str))
                or (isinstance(item.args[1], ast.Name) and item.args[1].id in looped)
            )
        ):
            out.add(id(item.func))
    return out


def own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and what is inside it, except nested function and class bodies (their
    code objects run, and count, on their own); lambdas and comprehensions included."""
    stack: list[ast.AST] = list(ast.iter_child_nodes(node))
    yield node
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            stack.extend(item.decorator_list)
            stack.append(item.args)
            continue
        if isinstance(item, ast.ClassDef):
            stack.extend([*item.decorator_list, *item.bases, *item.keywords])
            continue
        stack.extend(ast.iter_child_nodes(item))


ATTRIBUTE_LOOKUP = "<attribute>"
"""The name read by code looking up attributes of its own instance or class by a computed
string (``getattr(self, name)``): any class attribute (self a module: ``lookup_receivers``)."""


def looks_up_by_string(
    function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool = False
) -> str | None:
    """Whether the code of ``function`` (not of the functions defined in it) looks names
    up by a computed string: None when it does not, ``ATTRIBUTE_LOOKUP`` when each such
    lookup is a ``getattr``-family call on the first parameter of a ``method`` (its
    instance or class), followed by the prefix every name so looked up starts with
    (``rts.name_prefix``; empty when unknown), "*" otherwise."""
    # Most functions that spell such a name do so in a function defined in them, in a
    # comment or as a stored attribute: the sets below (each a walk of the function) are
    # only needed for what may be a lookup.
    candidates = lookup_spellings(function)
    if not candidates:
        return None
    constant = _constant_name_calls(function)
    on_self = _self_calls(function) if method else {}
    # ``setattr(obj, name, value)`` stores: it meets at most a class attribute of ``obj``'s
    # class (a property's setter, a slot), as a lookup on the instance does.
    on_self = {**attribute_stores(function), **on_self}
    if method:
        on_self.update(dict.fromkeys(own_dicts(function), ""))
    local = _local_names(function)
    own = (_own_attributes(function) if method else set()) | no_lookups(function)
    found: str | None = None
    for item in candidates:
        if isinstance(item, ast.Name) and item.id not in local and id(item) not in constant:
            if id(item) not in on_self:
                return "*"
            prefix = on_self[id(item)]
            found = prefix if found is None else _common_prefix(found, prefix)
        if isinstance(item, ast.Attribute) and id(item) not in own:
            if id(item) not in on_self:
                return "*"
            found = "" if found is None else _common_prefix(found, "")
    return None if found is None else ATTRIBUTE_LOOKUP + found


def lookup_spellings(function: ast.AST) -> list[ast.AST]:
    """The names and attributes in ``function``'s own code (``own_nodes``) spelled like a
    lookup by string (``DYNAMIC_NAMES``)."""
    return [
        item.func if isinstance(item, ast.Call) else item  # ``template.format(**namespace)``
        for item in own_nodes(function)
        if formats_unpacked(item)
        or (isinstance(item, ast.Name) and item.id in DYNAMIC_NAMES)
        or (
            isinstance(item, ast.Attribute)
            and item.attr in DYNAMIC_NAMES
            # ``t.globals = ...`` binds an attribute so named: storing looks nothing up.
            and not isinstance(item.ctx, ast.Store)
        )
    ]


def _common_prefix(first: str, second: str) -> str:
    size = 0
    while size < min(len(first), len(second)) and first[size] == second[size]:
        size += 1
    return first[:size]


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names local to ``function``'s own scope (its parameters, what its statements
    bind, minus ``global``/``nonlocal`` ones): a parameter called ``dir`` hides the
    builtin everywhere in the function. Comprehensions and nested scopes bind their own
    names (not counted: fewer locals is the conservative side)."""
    args = function.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    local = {a.arg for a in params if a is not None}
    declared: set[str] = set()
    stack: list[ast.AST] = list(function.body)
    while stack:
        item = stack.pop()
        if isinstance(item, (ast.Global, ast.Nonlocal)):
            declared.update(item.names)
        elif isinstance(item, ast.Name) and not isinstance(item.ctx, ast.Load):
            local.add(item.id)
        elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            local.add(item.name)
            continue
        elif isinstance(item, (ast.Import, ast.ImportFrom)):
            local.update((a.asname or a.name).split(".")[0] for a in item.names)
        elif isinstance(item, ast.ExceptHandler) and item.name:
            local.add(item.name)
        if isinstance(item, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp)):
            continue
        if isinstance(item, ast.GeneratorExp):
            continue
        stack.extend(ast.iter_child_nodes(item))
    return local - declared


def _own_attributes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """ids of the ``self.dir``-like attributes of a method's instance named like a lookup
    builtin (boltons' ``self._dir = dir``): an attribute of the instance, not the builtin."""
    params = [*function.args.posonlyargs, *function.args.args]
    if not params:
        return set()
    first = params[0].arg
    if first in stored_names(function):
        return set()  # rebound: no longer the instance or class
    return {
        id(item)
        for item in walk(function)
        if isinstance(item, ast.Attribute)
        and item.attr in BUILTIN_LOOKUPS
        and isinstance(item.value, ast.Name)
        and item.value.id == first
    }


def _self_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[int, str]:
    """ids of the ``getattr``-family names called on the function's first parameter, each
    with the constant prefix of the names it looks up ("" when unknown)."""
    params = [*function.args.posonlyargs, *function.args.args]
    static = any("staticmethod" in ast.unparse(d) for d in function.decorator_list)
    if not params or static:
        return {}
    first = params[0].arg
    if first in stored_names(function):
        return {}  # rebound: no longer the instance or class
    prefixes = NamePrefixes(function)
    return {
        id(item.func): prefixes.of(item.args[1]) if len(item.args) > 1 else ""
        for item in walk(function)
        if isinstance(item, ast.Call)
        and isinstance(item.func, ast.Name)
        and item.func.id in BY_NAME
        and item.args
        and isinstance(item.args[0], ast.Name)
        and item.args[0].id == first
    }


def _chain_root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def call_roots(node: ast.AST) -> set[str | None]:
    """The first names of what ``node`` calls at import (decorators included); None for a
    callee that is no name chain (a lambda called in place...)."""
    roots: set[str | None] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        # Its body runs later, traced: only the decorators and the signature run now.
        parts: list[ast.AST] = [*node.decorator_list, node.args]
        roots.update(_chain_root(d) for d in node.decorator_list)
        return roots.union(*map(call_roots, parts))
    for item in own_nodes(node):
        if isinstance(item, ast.Call):
            roots.add(_chain_root(item.func))
        elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            roots.update(_chain_root(d) for d in item.decorator_list)
    return roots


def import_origins(tree: ast.Module) -> dict[str, str]:
    """Names bound by the imports at the top of ``tree`` -> the module they come from, with
    leading dots for a relative import (which is project code)."""
    out: dict[str, str] = {}
    for stmt in statements(tree):
        if isinstance(stmt, ast.ImportFrom):
            module = "." * stmt.level + (stmt.module or "")
            for alias in stmt.names:
                out[alias.asname or alias.name] = module
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                out[(alias.asname or alias.name).split(".")[0]] = alias.name
    return out


def bindings_taken(tree: ast.Module) -> frozenset[str]:
    """Names bound by ``from m import x`` where ``m`` may be project code (relative, or no
    standard-library module): a change of ``m``'s binding changes what they find. Other
    imports bind a module or a library's object whatever the project's modules bind."""
    return frozenset(
        alias.asname or alias.name
        for stmt in statements(tree)
        if isinstance(stmt, ast.ImportFrom)
        and (stmt.level or (stmt.module or "").split(".")[0] not in STDLIB_MODULES)
        for alias in stmt.names
    )
