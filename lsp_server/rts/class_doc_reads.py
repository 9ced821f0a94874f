"""``__doc__`` read by name in a class body: the class's own docstring, not any docstring.

A class body runs in the class namespace, where the docstring (its first statement) bound
``__doc__``: ``@instanceproperty(classval=__doc__)`` (toolz's ``Compose``, ``excepts``) or a
default value ``doc=__doc__`` reads that string. Counted as the name ``__doc__`` read
anywhere, it was a read of docstrings (``lookups.DOC_READS``): every test using the class
depended on the docstring of every function it depends on (toolz e78db447eb, a typo in
``join``'s docstring: 204 tests against testmon's 10).

Such a class keeps its docstring in its class unit (``class_reads_own_doc``), and a statement
of its body reads the class's name instead (``class_scope_refs``): the class unit holds
the docstring; a class that is no binding is in the module unit, docstring and all
(``class_statement_refs``; its body's code, run at import, reads no ``__doc__`` either:
``rts.reads``). Only class scope counts: decorators, default values and annotations of its
methods and its other statements. A lambda, comprehension or nested class there reads the
module's ``__doc__`` (class names are not visible in nested scopes), so a ``__doc__`` there,
an attribute ``x.__doc__`` or a ``global __doc__`` keeps the name read as before, as does a
class without a docstring (its body finds the module's). A body reading it only to define
``__doc__`` through wrappers (``excepts``) leaves it in a unit of its own (``_defines_doc``):
toolz 85be7adaa0, a blank line in ``excepts``' docstring, ran all 204 tests (testmon: 87).
"""

from __future__ import annotations

import ast

from lsp_server.rts.class_body_stores import stored_only
from lsp_server.rts.purity import import_time_names, is_string_statement

DOC = "__doc__"

_NESTED = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.ClassDef)


def _doc_reads(stmt: ast.stmt) -> tuple[bool, bool]:
    """Whether ``stmt`` reads ``__doc__`` by name in class scope, and whether it reads a
    ``__doc__`` any other way (an attribute, in a nested scope, declared global)."""
    by_name = other = False
    stack: list[ast.AST] = [stmt]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Name) and item.id == DOC:
            by_name = by_name or isinstance(item.ctx, ast.Load)
        elif _spells_doc(item) or (
            isinstance(item, (ast.Global, ast.Nonlocal)) and DOC in item.names
        ):
            other = True
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # The body runs later, in the function's scope (its code tells what it reads).
            stack.extend(item.decorator_list)
            stack.append(item.args)
            if item.returns is not None:
                stack.append(item.returns)
            continue
        if isinstance(item, _NESTED):
            other = other or any(map(_spells_doc, ast.walk(item)))
            continue
        stack.extend(ast.iter_child_nodes(item))
    return by_name, other


def _spells_doc(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == DOC) or (
        isinstance(node, ast.Attribute) and node.attr == DOC
    )


def _has_docstring(node: ast.ClassDef) -> bool:
    return bool(node.body) and is_string_statement(node.body[0])


def class_reads_own_doc(node: ast.ClassDef, wrappers: frozenset[str] = frozenset()) -> bool:
    """Whether ``node`` has a docstring that a statement of its body reads by name, other
    than to define ``__doc__`` itself through ``wrappers`` (``_defines_doc``)."""
    return _has_docstring(node) and any(
        _doc_reads(stmt)[0] and not _defines_doc(stmt, wrappers) for stmt in node.body[1:]
    )


def _defines_doc(stmt: ast.stmt, wrappers: frozenset[str]) -> bool:
    """Whether ``stmt`` is ``@w(classval=__doc__) def __doc__(self)`` (toolz's ``excepts``)
    with every decorator a wrapper (``rts.wrapping_decorators``) given names and constants,
    and ``__doc__`` read by name nowhere else: the docstring goes, unchanged and unable to
    make anything raise, into what the class binds to ``__doc__``, which only readers of
    ``__doc__`` see (the docstring's own unit tells them: ``lookups.DOC_READS``)."""
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) or stmt.name != DOC:
        return False
    header: list[ast.AST] = [stmt.args] if stmt.returns is None else [stmt.args, stmt.returns]
    return all(_wraps(d, wrappers) for d in stmt.decorator_list) and not any(
        _spells_doc(n) for part in header for n in ast.walk(part)
    )


def _wraps(decorator: ast.expr, wrappers: frozenset[str]) -> bool:
    if isinstance(decorator, ast.Call):
        values = [*decorator.args, *(k.value for k in decorator.keywords)]
        plain = all(isinstance(v, (ast.Name, ast.Constant)) for v in values)
        return plain and _wraps(decorator.func, wrappers)
    return isinstance(decorator, ast.Name) and decorator.id in wrappers


def class_scope_refs(
    stmt: ast.stmt, node: ast.ClassDef, doc_names: frozenset[str]
) -> frozenset[str]:
    """The names statement ``stmt`` of class ``node``'s body reads when it runs
    (``purity.import_time_names``), a read of the class's docstring by name counted as
    ``doc_names``: the class's name for a member of its own (the class unit holds the
    docstring), none for the rest of the class (in that unit)."""
    names = import_time_names(stmt) - stored_only(stmt)
    if DOC not in names or not _has_docstring(node):
        return frozenset(names)
    by_name, other = _doc_reads(stmt)
    if by_name and not other:
        names = (names - {DOC}) | doc_names
    return frozenset(names)


def class_statement_refs(node: ast.ClassDef, apart: frozenset[int] = frozenset()) -> set[str]:
    """The names class statement ``node`` reads when it runs (``import_time_names``), a
    read of its docstring by name left out: a class that is no binding unit is in the
    module unit, docstring and all (toolz's ``Compose`` and ``excepts``). ``apart``: body
    statements (by id) that are units of their own, reading for their readers alone."""
    if getattr(node, "type_params", None):
        return import_time_names(node)
    header = [*node.bases, *node.decorator_list, *(k.value for k in node.keywords)]
    names: set[str] = set().union(*map(import_time_names, header))
    body = [stmt for stmt in node.body if id(stmt) not in apart]
    return names.union(*(class_scope_refs(stmt, node, frozenset()) for stmt in body))
